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
