/**
 * Diagnostics of the kernel front end and the evaluator's runtime errors.
 *
 * A diagnostic is common's (`common/diagnostics.ts`): a code, a message and a span of offsets,
 * printed `FILE:LINE:COL: error Kcode: message` with a code frame. The parser collects them in a
 * list and never throws for user errors; the evaluator throws `KernelRuntimeError`, whose span is
 * looked up from the node label through the parser's span table when one is available, and
 * whose position is computed from the kernel's text when that is given. All codes are listed
 * here, sorted.
 */
import {
  type Diagnostic as CommonDiagnostic,
  diagnosticFactory,
  formatLocation,
  type SourceSpan,
} from '../common/index.js';

/** A kernel diagnostic: a code of `MESSAGES`, its message and its place (offsets). */
export type Diagnostic = CommonDiagnostic<KernelCode>;

/**
 * Every diagnostic code and its message factory, sorted. The front end's messages vary within a
 * code (a construct outside the subset names the construct), so most factories take the
 * sentence that says what is wrong; those with one form take its facts.
 */
export const MESSAGES = {
  /** tree-sitter could not parse the text (an ERROR node), or a part the syntax needs is missing. */
  K1001: (what: string) => what,
  /** tree-sitter inserted a MISSING token. */
  K1002: (token: string) => `syntax error: expected '${token}'`,
  /** A C construct outside the kernel subset (goto, switch, pointers, structs, ...). */
  K1003: (what: string) => what,
  /** A type outside int / float / bool (and void for returns). */
  K1004: (what: string) => what,
  /** A name that is not declared (variable, array or function). */
  K1005: (what: string) => what,
  /** A name declared twice in one scope, or two functions of one name. */
  K1006: (what: string) => what,
  /** Operands or operations of the wrong type. */
  K1007: (what: string) => what,
  /** Assignment to something that cannot be assigned (const, array as a whole, parameter array). */
  K1008: (what: string) => what,
  /** A call with the wrong number or kind of arguments, or a void call used as a value. */
  K1009: (what: string) => what,
  /** A literal outside the subset (out of range, double, unsigned/long suffix). */
  K1010: (what: string) => what,
  /** `return` with(out) a value that does not match the function's type. */
  K1011: (what: string) => what,
  /** An array used as a value, or a scalar indexed. */
  K1012: (what: string) => what,
  /** A combinator (map, reduce, scan, filter, iota, redomap, scanomap) used wrongly. */
  K1013: (what: string) => what,
  /** Syntax nested deeper than the tools' limit (parser: `MAX_NESTING`; optimizers: `MAX_OPT_DEPTH`). */
  K1014: (what: string) => what,
  /** An identifier outside the subset's (ASCII letters, digits, `_`): Unicode letters, `$`. */
  K1015: (name: string) =>
    `'${name}' is not an identifier of the kernel subset (ASCII letters, digits and '_', not starting with a digit)`,
  /** Evaluation failed: division by zero, out-of-bounds access, conversion out of range, fuel, ... */
  K2001: (what: string) => what,
  /** Arguments given to the evaluator do not fit the function's parameters. */
  K2002: (what: string) => what,
} as const;

export type KernelCode = keyof typeof MESSAGES;

/** A kernel diagnostic: the code, the place and the facts its message needs. */
export const diag = diagnosticFactory(MESSAGES);

/** The codes by what they mean, for call sites. */
export const codes = {
  syntaxError: 'K1001',
  missingToken: 'K1002',
  unsupported: 'K1003',
  unsupportedType: 'K1004',
  undeclared: 'K1005',
  redefinition: 'K1006',
  typeError: 'K1007',
  notAssignable: 'K1008',
  badCall: 'K1009',
  badLiteral: 'K1010',
  badReturn: 'K1011',
  badArrayUse: 'K1012',
  badCombinator: 'K1013',
  tooDeep: 'K1014',
  badIdentifier: 'K1015',
  runtime: 'K2001',
  badArguments: 'K2002',
} as const satisfies Record<string, KernelCode>;

/** `FILE:LINE:COL` of a span in `source` (the kernel file's text), or `FILE` when it is not known. */
export function kernelPlace(span: SourceSpan, source: string | undefined): string {
  return source === undefined ? span.file : formatLocation(span, new Map([[span.file, source]]));
}

/**
 * An error while evaluating a kernel (the C program would have undefined behaviour or run too long).
 * `lbl` is the label of the node being evaluated; `span` is filled in when a span table is known.
 */
export class KernelRuntimeError extends Error {
  readonly code: KernelCode = codes.runtime;
  constructor(
    readonly detail: string,
    readonly lbl: number,
    readonly span: SourceSpan | undefined,
    /** The kernel file's text, to print the span's line and column. */
    source?: string,
  ) {
    super(span ? `${kernelPlace(span, source)}: error: ${detail}` : `error: ${detail}`);
    this.name = 'KernelRuntimeError';
  }
}

/** Arguments passed to `evaluate` do not match the function (arity, names, types, array-ness). */
export class KernelArgumentError extends Error {
  readonly code: KernelCode = codes.badArguments;
  constructor(message: string) {
    super(message);
    this.name = 'KernelArgumentError';
  }
}
