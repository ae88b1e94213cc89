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
import { type Diagnostic as CommonDiagnostic, formatLocation, type SourceSpan } from '../common/index.js';

/** A kernel diagnostic: a code of `MESSAGES`, its message and its place (offsets). */
export type Diagnostic = CommonDiagnostic<KernelCode>;

/** What a message is made of: names, types and numbers from the source. */
type Fact = string | number;

/**
 * Every diagnostic code, sorted, with its messages: one factory per form of message, keyed by
 * what it says (`K1003.qualifier`); a call site passes the code, the form and the facts
 * (`fail(ctx, n, codes.unsupported, 'qualifier', text)`), so each message is written once, here.
 * K1001 syntax: tree-sitter could not parse the text, or a part is missing. K1002: tree-sitter
 * inserted a MISSING token. K1003: a C construct outside the kernel subset. K1004: a type outside
 * int / float / bool (and void for returns). K1005: a name that is not declared. K1006: a name
 * declared twice. K1007: operands or operations of the wrong type. K1008: assignment to what
 * cannot be assigned. K1009: a call with the wrong arguments. K1010: a literal outside the
 * subset. K1011: a `return` that does not fit the function. K1012: an array used as a value, or
 * a scalar indexed. K1013: a combinator used wrongly. K1014: syntax nested deeper than the tools'
 * limits (parser: `MAX_NESTING`; optimizers: `MAX_TREE_DEPTH`). K1015: an identifier outside the
 * subset's. K2001: evaluation failed. K2002: arguments that do not fit the function.
 */
export const MESSAGES = {
  K1001: {
    missingCondition: () => `missing condition`,
    near: (text: Fact) => `syntax error near '${text}'`,
  },
  K1002: {
    expected: (token: Fact) => `syntax error: expected '${token}'`,
  },
  K1003: {
    arrayParameterRank: () => `only one-dimensional array parameters are supported`,
    arrayRank: () => `only one-dimensional arrays are supported`,
    arraySize: () => `array size must be an integer constant between 1 and 16777216`,
    assignmentInExpression: () => `assignment inside an expression is not supported; use a statement`,
    compoundCallIndex: () => `compound assignment with a call in the index is not supported`,
    construct: (what: string) => `${what} ${what.endsWith('s') ? 'are' : 'is'} not supported in kernels`,
    functionValue: () => `function values are not supported`,
    globals: () => `global variables are not supported in kernels`,
    include: (a: Fact) => `#include ${a} is not supported in kernels`,
    incrementInExpression: (a: Fact) => `'${a}' inside an expression is not supported; use a statement`,
    noEffect: () => `expression statement has no effect (only assignments, ++/-- and calls)`,
    operator: (a: Fact) => `operator '${a}' is not supported`,
    pointerCast: () => `pointer casts are not supported`,
    pointerReturn: () => `functions returning pointers are not supported in kernels`,
    pointerVariable: () => `pointer variables are not supported`,
    qualifier: (a: Fact) => `qualifier '${a}' is not supported in kernels`,
    storageClass: (a: Fact) => `storage class '${a}' is not supported in kernels`,
    unnamedParameter: () => `unnamed parameters are not supported`,
    variableArraySize: () => `local arrays need a constant size`,
    variadic: () => `variadic functions are not supported`,
  },
  K1004: {
    double: () => `type 'double' is not supported in kernels (use float)`,
    missing: () => `missing type`,
    type: (a: Fact) => `type '${a}' is not supported in kernels`,
    voidCast: () => `casts to 'void' are not supported`,
    voidParameter: () => `parameter of type 'void'`,
    voidPointerReturn: () => `functions cannot return 'void*'`,
    voidVariable: () => `variables cannot have type 'void'`,
  },
  K1005: {
    function: (a: Fact) => `function '${a}' is not defined in this file`,
    name: (a: Fact) => `'${a}' is not declared`,
  },
  K1006: {
    builtin: (a: Fact) =>
      `'${a}' is a function of C's <math.h>, which C does not let a program define; rename your function`,
    combinator: (a: Fact) => `'${a}' is a built-in combinator and cannot be redefined`,
    function: (a: Fact) => `function '${a}' is defined more than once`,
    inScope: (a: Fact) => `'${a}' is already declared in this scope`,
    parameter: (a: Fact) => `parameter '${a}' is declared twice`,
  },
  K1007: {
    arrayInitializer: () => `an array needs a {...} initializer`,
    floatComplement: () => `invalid operand to '~' (float)`,
    floatIndex: () => `array index must be an integer`,
    floatOperands: (a: Fact) => `invalid operands to '${a}' (float)`,
    scalarInitializerList: () => `a scalar cannot have a {...} initializer`,
    tooManyInitializers: () => `too many initializers for array`,
  },
  K1008: {
    constArray: (a: Fact) => `cannot assign to read-only array '${a}'`,
    constVariable: (a: Fact) => `cannot assign to read-only variable '${a}'`,
    notAnLvalue: () => `only variables and array elements can be assigned`,
    wholeArray: (a: Fact) => `cannot assign to array '${a}' as a whole`,
  },
  K1009: {
    arity: (a: Fact, b: Fact, c: Fact) => `'${a}' takes ${b} argument(s), ${c} given`,
    arrayElementType: (a: Fact, b: Fact, c: Fact, d: Fact) =>
      `argument ${a} of '${b}' must be an array of ${c}, not ${d}`,
    arrayExpected: (a: Fact, b: Fact, c: Fact) => `argument ${a} of '${b}' must be an array of ${c}`,
    arrayReturn: (a: Fact) => `'${a}' returns an array; only the entry function may return one`,
    constArray: (a: Fact, b: Fact) => `read-only array '${a}' passed to non-const parameter '${b}'`,
    doublePrecision: (a: Fact, b: Fact) =>
      `'${a}' computes in double, which kernels do not have; use the float function '${b}'`,
    notNamed: () => `only named functions can be called`,
    voidAsValue: (a: Fact) => `void function '${a}' used as a value`,
  },
  K1010: {
    double: (a: Fact, b: Fact) =>
      `constant '${a}' has type double, which kernels do not support; write '${b}f'`,
    floatRange: (a: Fact) => `float constant '${a}' is out of range`,
    hexFloat: () => `hexadecimal float constants are not supported`,
    intRange: (a: Fact) => `integer constant '${a}' does not fit in int`,
    integerSuffix: (a: Fact) => `integer suffixes are not supported ('${a}')`,
    malformedFloat: (a: Fact) => `malformed float constant '${a}'`,
    malformedInt: (a: Fact) => `malformed integer constant '${a}'`,
  },
  K1011: {
    arrayType: (a: Fact, b: Fact, c: Fact) => `'${a}' returns an array of ${b}, not of ${c}`,
    missingValue: (a: Fact) => `function '${a}' must return a value`,
    notArray: (a: Fact, b: Fact) => `'${a}' must return an array of ${b}`,
    voidWithValue: (a: Fact) => `void function '${a}' cannot return a value`,
  },
  K1012: {
    asValue: (a: Fact) => `array '${a}' used as a value`,
    indexedExpression: () => `only named one-dimensional arrays can be indexed`,
    notAnArray: (a: Fact) => `'${a}' is not an array`,
  },
  K1013: {
    argumentType: (a: Fact, b: Fact, c: Fact, d: Fact) => `${a} needs ${b}${c}, not ${d}`,
    arity: (a: Fact, b: Fact, c: Fact, d: Fact) => `'${a}' passes ${b} argument(s) to '${c}', ${d} given`,
    arrayForScalar: (a: Fact, b: Fact, c: Fact) => `'${a}' gives an array; declare it as '${b} ${c}[]'`,
    arrayForScalarReturn: (a: Fact, b: Fact) => `'${a}' gives an array, not a ${b}`,
    asStatement: (a: Fact) => `combinator '${a}' cannot be used as a statement`,
    elementType: (a: Fact, b: Fact, c: Fact) => `'${a}' gives an array of ${b}, not of ${c}`,
    filterArrays: (a: Fact, b: Fact) =>
      `'filter' keeps elements of one array; '${a}' is given ${b} mapped arrays`,
    foldResult: (a: Fact, b: Fact) => `the fold function of '${a}' must give ${b}, like its operator`,
    foldSignature: (comb: Fact, ret: Fact, _fn: Fact) =>
      `the fold function of '${comb}' must take the accumulator (of its result type ${ret}) first`,
    functionReturnsArray: (a: Fact, b: Fact) => `'${a}' must return a scalar to be used by '${b}'`,
    iotaArity: () => `'iota' takes one argument, the length`,
    iotaElementType: (a: Fact, b: Fact) => `${a} is ${b}; iota gives ints`,
    iotaLength: () => `iota's length must be an int`,
    missingArgument: (a: Fact, b: Fact) => `'${a}' needs ${b}`,
    noArrays: (a: Fact) => `'${a}' needs at least one array to go over`,
    noNeutral: (a: Fact) => `'${a}' needs a neutral element`,
    nonConstParameter: (a: Fact, b: Fact) =>
      `parameter '${a}' of '${b}' must be 'const': functions given to combinators cannot write arrays`,
    notAFunction: (a: Fact, b: Fact) => `${a} of '${b}' must be the name of a function of this file`,
    notAnArray: (a: Fact, b: Fact) => `${a} must be an array of ${b}`,
    operatorSignature: (comb: Fact, ret: Fact, fn: Fact) =>
      `the operator of '${comb}' must take two values of its result type (${ret} ${fn}(${ret}, ${ret}))`,
    placement: (a: Fact) =>
      `'${a}' must be the whole initializer or right-hand side of a declaration or assignment, a return value, or an argument of another combinator`,
    resultType: (a: Fact, b: Fact, c: Fact, d: Fact) => `'${a}' gives ${b}, but '${c}' is ${d}`,
    scalarForArray: (a: Fact) => `'${a}' gives a scalar, not an array`,
  },
  K1014: {
    nesting: (limit: Fact) =>
      `nesting too deep (limit ${limit}): statements and expressions here are nested more than ${limit} levels deep`,
    tree: (fn: Fact, what: Fact, limit: Fact) =>
      `'${fn}' is too long or too deeply nested to ${what} (limit ${limit} levels): it nests deeper here (each statement in a row, local and argument counts one level)`,
  },
  K1015: {
    identifier: (name: Fact) =>
      `'${name}' is not an identifier of the kernel subset (ASCII letters, digits and '_', not starting with a digit)`,
  },
  /** Runtime errors (`KernelRuntimeError`): their messages are the evaluator's (eval.ts). */
  K2001: {},
  /** Arguments that do not fit the function (`KernelArgumentError`, eval.ts). */
  K2002: {},
} as const satisfies Readonly<Record<string, Readonly<Record<string, (...facts: never[]) => string>>>>;

export type KernelCode = keyof typeof MESSAGES;

/** The forms of message of code `C`. */
export type MessageForm<C extends KernelCode> = keyof (typeof MESSAGES)[C] & string;

/** The facts form `F` of code `C` is made of. */
export type FactsOf<C extends KernelCode, F extends MessageForm<C>> = (typeof MESSAGES)[C][F] extends (
  ...facts: infer A
) => string
  ? A
  : never;

/** A kernel diagnostic: the code, the form of its message, the place and the facts. */
export function diag<C extends KernelCode, F extends MessageForm<C>>(
  code: C,
  form: F,
  span: SourceSpan | null,
  ...facts: FactsOf<C, F>
): Diagnostic {
  const make = (MESSAGES[code] as Record<string, (...a: unknown[]) => string>)[form];
  if (make === undefined) throw new Error(`internal error: no message '${form}' for ${code}`);
  return { code, message: make(...facts), span };
}

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
