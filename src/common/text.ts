/**
 * Offsets in a source text to 1-based line and column (UTF-16 code units), for every
 * diagnostic that names a place in a file: SCF-lang's, a config's. Positions are computed when
 * a message is printed, from offsets kept until then.
 */

export interface LineCol {
  readonly line: number; // 1-based
  readonly col: number; // 1-based, in UTF-16 code units
}

let lastText: string | undefined;
let lastStarts: number[] = [];

/** Offsets at which the lines of `text` start (the last text's are kept: messages come in runs). */
function lineStarts(text: string): number[] {
  if (text === lastText) return lastStarts;
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) starts.push(i + 1);
  lastText = text;
  lastStarts = starts;
  return starts;
}

/** The line and column of `offset` in `text`. */
export function lineCol(text: string, offset: number): LineCol {
  const starts = lineStarts(text);
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((starts[mid] as number) <= offset) lo = mid;
    else hi = mid - 1;
  }
  return { line: lo + 1, col: offset - (starts[lo] as number) + 1 };
}

/**
 * The name among `candidates` that `name` is most likely a misspelling of: the nearest in edit
 * distance (insertions, deletions, substitutions, and swaps of two neighbours), if at most 2 and
 * less than half of `name`'s length; undefined otherwise, or where two are equally near. Linear in
 * the names' lengths (a source may declare a name of any length).
 */
export function nearestName(name: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestD = Math.min(2, Math.ceil(name.length / 2) - 1) + 1;
  let tie = false;
  for (const c of new Set(candidates)) {
    if (c === name || bestD <= 0) continue;
    const d = editDistance(name, c, bestD);
    if (d < bestD) {
      best = c;
      bestD = d;
      tie = false;
    } else if (d === bestD) tie = true;
  }
  return tie ? undefined : best;
}

/** ` (did you mean 'x'?)` for the candidate `name` most likely misspells (`nearestName`), else ''. */
export function didYouMean(name: string, candidates: Iterable<string>): string {
  const near = nearestName(name, candidates);
  return near === undefined ? '' : ` (did you mean '${near}'?)`;
}

/**
 * Optimal string alignment distance: Levenshtein's with adjacent transpositions counted as one;
 * `max + 1` for any distance over `max`. Only the cells within `max` of the diagonal are computed
 * (a path outside that band costs more than `max`), each row kept as that band.
 */
function editDistance(a: string, b: string, max: number): number {
  const over = max + 1;
  if (Math.abs(a.length - b.length) > max) return over;
  const width = 2 * max + 1;
  // cell (i, j) of row i is band[j - i + max]; outside the band or the table it is `over`
  const cell = (band: readonly number[], i: number, j: number): number => {
    const k = j - i + max;
    return j < 0 || j > b.length || k < 0 || k >= width ? over : (band[k] as number);
  };
  let before: number[] = [];
  let prev: number[] = Array.from({ length: width }, (_, k) => {
    const j = k - max;
    return j < 0 || j > max ? over : j;
  });
  for (let i = 1; i <= a.length; i++) {
    const row: number[] = new Array<number>(width).fill(over);
    let least = over;
    for (let j = Math.max(0, i - max); j <= Math.min(b.length, i + max); j++) {
      let d: number;
      if (j === 0) d = i;
      else {
        const cost = a[i - 1] === b[j - 1] ? 0 : 1;
        d = Math.min(cell(prev, i - 1, j) + 1, cell(row, i, j - 1) + 1, cell(prev, i - 1, j - 1) + cost);
        if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
          d = Math.min(d, cell(before, i - 2, j - 2) + 1);
      }
      row[j - i + max] = Math.min(d, over);
      least = Math.min(least, d);
    }
    if (least > max) return over;
    before = prev;
    prev = row;
  }
  return cell(prev, a.length, b.length);
}
