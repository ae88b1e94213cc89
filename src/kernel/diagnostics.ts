/**
 * Diagnostics of the kernel front end and the evaluator's runtime errors.
 *
 * A diagnostic carries a code, a message and a span (1-based line and column of the offending
 * syntax); it is formatted as `FILE:LINE:COL: error: message [Kcode]`. The parser collects them in a
 * list and never throws for user errors; the evaluator throws `KernelRuntimeError`, whose `span` is
 * looked up from the node label through the parser's span table when one is available.
 * All codes are listed here, sorted.
 */

/** A source position: 1-based line and column (columns count UTF-16 code units, as web-tree-sitter does). */
export interface Span {
  readonly line: number;
  readonly col: number;
}

export interface Diagnostic {
  readonly code: string;
  readonly message: string;
  readonly file: string;
  readonly span: Span;
}

/** Every diagnostic code, sorted. */
export const codes = {
  /** tree-sitter could not parse the text (an ERROR node). */
  syntaxError: 'K1001',
  /** tree-sitter inserted a MISSING token. */
  missingToken: 'K1002',
  /** A C construct outside the kernel subset (goto, switch, pointers, structs, ...). */
  unsupported: 'K1003',
  /** A type outside int / float / bool (and void for returns). */
  unsupportedType: 'K1004',
  /** A name that is not declared (variable, array or function). */
  undeclared: 'K1005',
  /** A name declared twice in one scope, or two functions of one name. */
  redefinition: 'K1006',
  /** Operands or operations of the wrong type. */
  typeError: 'K1007',
  /** Assignment to something that cannot be assigned (const, array as a whole, parameter array). */
  notAssignable: 'K1008',
  /** A call with the wrong number or kind of arguments, or a void call used as a value. */
  badCall: 'K1009',
  /** A literal outside the subset (out of range, double, unsigned/long suffix). */
  badLiteral: 'K1010',
  /** `return` with(out) a value that does not match the function's type. */
  badReturn: 'K1011',
  /** An array used as a value, or a scalar indexed. */
  badArrayUse: 'K1012',
  /** A combinator (map, reduce, scan, filter, iota, redomap, scanomap) used wrongly. */
  badCombinator: 'K1013',
  /** Syntax nested deeper than the tools' limit (parser: `MAX_NESTING`; optimizers: `MAX_OPT_DEPTH`). */
  tooDeep: 'K1014',
  /** An identifier outside the subset's (ASCII letters, digits, `_`): Unicode letters, `$`. */
  badIdentifier: 'K1015',
  /** Evaluation failed: division by zero, out-of-bounds access, conversion out of range, fuel, ... */
  runtime: 'K2001',
  /** Arguments given to the evaluator do not fit the function's parameters. */
  badArguments: 'K2002',
} as const;

export function formatDiagnostic(d: Diagnostic): string {
  return `${d.file}:${d.span.line}:${d.span.col}: error ${d.code}: ${d.message}`;
}

/**
 * An error while evaluating a kernel (the C program would have undefined behaviour or run too long).
 * `lbl` is the label of the node being evaluated; `span`/`file` are filled in when a span table is known.
 */
export class KernelRuntimeError extends Error {
  readonly code: string = codes.runtime;
  constructor(
    readonly detail: string,
    readonly lbl: number,
    readonly span: Span | undefined,
    readonly file: string | undefined,
  ) {
    super(span ? `${file ?? '<input>'}:${span.line}:${span.col}: error: ${detail}` : `error: ${detail}`);
    this.name = 'KernelRuntimeError';
  }
}

/** Arguments passed to `evaluate` do not match the function (arity, names, types, array-ness). */
export class KernelArgumentError extends Error {
  readonly code: string = codes.badArguments;
  constructor(message: string) {
    super(message);
    this.name = 'KernelArgumentError';
  }
}
