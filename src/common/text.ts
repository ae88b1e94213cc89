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
 * less than half of `name`'s length; undefined otherwise, or where two are equally near.
 */
export function nearestName(name: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestD = Math.min(2, Math.ceil(name.length / 2) - 1) + 1;
  let tie = false;
  for (const c of new Set(candidates)) {
    if (c === name) continue;
    const d = editDistance(name, c);
    if (d < bestD) {
      best = c;
      bestD = d;
      tie = false;
    } else if (d === bestD) tie = true;
  }
  return tie ? undefined : best;
}

/** Optimal string alignment distance: Levenshtein's with adjacent transpositions counted as one. */
function editDistance(a: string, b: string): number {
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      if (i === 0) {
        row.push(j);
        continue;
      }
      const prev = rows[i - 1] as number[];
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min((prev[j] as number) + 1, (row[j - 1] as number) + 1, (prev[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d = Math.min(d, ((rows[i - 2] as number[])[j - 2] as number) + 1);
      row.push(d);
    }
    rows.push(row);
  }
  return (rows[a.length] as number[])[b.length] as number;
}
