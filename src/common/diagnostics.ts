/**
 * Diagnostics, for every language scf reads: SCF-lang optimizers (`SCFnnnn`), kernels (`Knnnn`),
 * configurations (`Cnnnn`) and early descriptions (`Dnnnn`).
 *
 * - A diagnostic is a code, its message and a `SourceSpan`: a file and a half-open range of
 *   UTF-16 offsets. Line and column are computed only when it is printed (`text.ts`), from the
 *   file's text, so nothing pays for positions that are never shown.
 * - Each language keeps one table, sorted by code, of message factories: a code's message is
 *   written once, and a call site passes only the facts (`diagnosticFactory`). The table's
 *   order is checked by `checkSortedTable` (tests/architecture).
 * - Printing is the same for all: `FILE:LINE:COL: error CODE: message`, then a code frame.
 */
import { lineCol } from './text.js';

/** A half-open range of UTF-16 offsets `[start, end)` in `file`. */
export interface SourceSpan {
  readonly file: string;
  readonly start: number;
  readonly end: number;
}

/** A language's message factories by code, in code order. */
export type MessageTable = Readonly<Record<string, (...args: never[]) => string>>;

/** One error: its code (a key of its language's table), message and place (`null`: none). */
export interface Diagnostic<C extends string = string> {
  readonly code: C;
  readonly message: string;
  readonly span: SourceSpan | null;
}

/** A diagnostic's constructor for `table`: the code, the place and the facts its message needs. */
export function diagnosticFactory<T extends MessageTable>(
  table: T,
): <C extends keyof T & string>(
  code: C,
  span: SourceSpan | null,
  ...args: Parameters<T[C]>
) => Diagnostic<C> {
  return (code, span, ...args) => {
    const f = table[code] as (...a: unknown[]) => string;
    return { code, message: f(...args), span };
  };
}

/** The codes of `table` that are out of order (empty when it is sorted). */
export function unsortedCodes(table: MessageTable): string[] {
  const codes = Object.keys(table);
  return codes.filter((c, i) => i > 0 && (codes[i - 1] as string) >= c);
}

/** Collects diagnostics; drops exact duplicates (code elaborated twice reports once). */
export class DiagnosticLog<C extends string = string> {
  private readonly seen = new Set<string>();
  readonly items: Diagnostic<C>[] = [];

  add(d: Diagnostic<C>): void {
    const key = `${d.code}|${d.span?.file}|${d.span?.start}|${d.span?.end}|${d.message}`;
    if (this.seen.has(key)) return;
    this.seen.add(key);
    this.items.push(d);
  }

  get hasErrors(): boolean {
    return this.items.length > 0;
  }

  /** Sorted by file, then position. */
  sorted(): Diagnostic<C>[] {
    return [...this.items].sort((a, b) => {
      const fa = a.span?.file ?? '';
      const fb = b.span?.file ?? '';
      if (fa !== fb) return fa < fb ? -1 : 1;
      return (a.span?.start ?? 0) - (b.span?.start ?? 0) || (a.code < b.code ? -1 : a.code > b.code ? 1 : 0);
    });
  }
}

// ---- positions and printing ---------------------------------------------------------------

/** `file:line:col` of a span's start (`file` alone when its text is unknown). */
export function formatLocation(span: SourceSpan, sources: ReadonlyMap<string, string>): string {
  const text = sources.get(span.file);
  if (text === undefined) return span.file;
  const { line, col } = lineCol(text, span.start);
  return `${span.file}:${line}:${col}`;
}

/** The source line of a span with carets under it. */
export function codeFrame(text: string, span: SourceSpan): string {
  const { line, col } = lineCol(text, span.start);
  const lines = text.split('\n');
  const src = (lines[line - 1] ?? '').replace(/\r$/, '');
  const endLc = lineCol(text, Math.max(span.start, span.end));
  const width = endLc.line === line ? Math.max(1, endLc.col - col) : Math.max(1, src.length - col + 1);
  const gutter = String(line);
  const pad = ' '.repeat(gutter.length);
  // A very long line (generated code) is shown around the column, with … for what is cut.
  const from =
    src.length > MAX_FRAME_LINE ? Math.max(0, Math.min(col - 1 - 40, src.length - MAX_FRAME_LINE)) : 0;
  const to = Math.min(src.length, from + MAX_FRAME_LINE);
  const before = from > 0 ? '…' : '';
  const shown = `${before}${src.slice(from, to)}${to < src.length ? '…' : ''}`;
  const lead = before + src.slice(from, col - 1).replace(/[^\t]/g, ' ');
  const marks = Math.max(1, Math.min(width, to - col + 1));
  return `${gutter} | ${shown}\n${pad} | ${lead.replace(/…/, ' ')}${'^'.repeat(marks)}`;
}

/** Longest source line a code frame shows whole. */
const MAX_FRAME_LINE = 200;

/** `FILE:LINE:COL: error CODE: message`, then a code frame when asked and the source is known. */
export function formatDiagnostic(d: Diagnostic, sources: ReadonlyMap<string, string>, frame = true): string {
  if (d.span === null) return `error ${d.code}: ${d.message}`;
  const head = `${formatLocation(d.span, sources)}: error ${d.code}: ${d.message}`;
  const text = sources.get(d.span.file);
  if (!frame || text === undefined) return head;
  return `${head}\n${codeFrame(text, d.span)}`;
}
