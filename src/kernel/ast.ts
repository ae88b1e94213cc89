/**
 * The kernel language's AST, declared as SCF-lang data types (after SCF Fig. 3: Fun / Cmd / Expr),
 * so that optimizers written in SCF-lang can pattern-match on it.
 *
 * Rules this file obeys (the SCF-lang checker relies on them):
 * - every node is `{ readonly kind: '...'; ...fields; readonly lbl: number }`; unions are plain `type U = A | B`;
 * - field types are number, string, boolean, other AST types, `List<T>`, `Option<T>`; no arrays, classes,
 *   enums, optional fields or methods; kind strings are unique across the AST and avoid the prelude's
 *   'none'/'some'/'nil'/'cons' and the optimizers' 'const'/'nonConst'/'live'/'dead'.
 *
 * Tags in a command kind's doc comment, read by `npm run gen:fields` (scripts/gen-kernel-fields.ts,
 * which rejects any other and checks where they may stand):
 * - `@leaf`: a command the SCF-lang passes read by its fields alone (src/optimizers/leaf.generated.ts):
 *   no sub-command; fields that are scalars and expressions (`Expr` fields, then at most one
 *   `List<Expr>` or `Option<Expr>`); it evaluates its expressions in field order, assigns no variable
 *   or array itself (a call among its expressions may store into the arrays passed to it) and names
 *   none in a string field. A leaf kind needs no case in the passes; any other kind needs one in each;
 * - `@ends` (a leaf only): control does not go on after it (it leaves the function or the program).
 *
 * Invariants of a program produced by `parseKernel` (and expected of every optimizer's output):
 * - `lbl` is unique within the program;
 * - the AST is *elaborated*: every implicit C conversion is an explicit `cast` node with `implicit: true`,
 *   so both operands of an arithmetic/comparison `binary` have the same type, and the right-hand side of
 *   `assign`/`store`, a `return` value and every scalar call argument have exactly the target's type;
 * - scalar type strings are 'int' (32-bit two's complement, wrapping), 'float' (IEEE binary32) and 'bool'
 *   (values 0/1); a function's `ret` may also be 'void';
 * - sugar is gone: `for` is `seq(init, while(cond, seq(body, step)))` with `isFor: true`; `x += e` and
 *   `x++` are plain assignments; declarations are hoisted into `Fun.locals` (renamed if they shadow);
 *   statement lists are `seq`s without `skip` elements, right-nested as the parser builds them (an
 *   optimizer's output may nest a `seq` first: copy-prop's does; kernel/validate.ts checks the
 *   parser's output strictly and a pass's for `skip`s only).
 */
import type { List, Option } from '../scf-lang/prelude.js';

/** A whole translation unit: the kernel functions in source order. */
export type Program = List<Fun>;

/**
 * A function definition. `ret` is 'int' | 'float' | 'bool' | 'void', or 'int[]' | 'float[]' | 'bool[]'
 * for a host function that returns an array (`float* f(…) { …; return ys; }`; its returns carry an
 * `arrayRef`).
 */
export interface Fun {
  readonly kind: 'fun';
  readonly name: string;
  readonly ret: string;
  readonly params: List<Param>;
  readonly locals: List<Decl>;
  readonly body: Cmd;
  /**
   * The functions its combinators apply and those these call (program order), when it is the
   * function a pipeline optimizes (`withFns`); constant propagation appends its clones. Empty in a
   * parsed program and for every function in `fns`: `programWith` makes a program of it again.
   */
  readonly fns: List<Fun>;
  readonly lbl: number;
}

/** A formal parameter: a scalar, or (isArray) an array of `ty` passed by reference; isConst = read-only. */
export interface Param {
  readonly kind: 'param';
  readonly name: string;
  readonly ty: string;
  readonly isArray: boolean;
  readonly isConst: boolean;
  readonly lbl: number;
}

/** A local variable: a scalar (`size` none) or an array of constant size. Uninitialized until assigned. */
export interface Decl {
  readonly kind: 'decl';
  readonly name: string;
  readonly ty: string;
  readonly size: Option<number>;
  readonly lbl: number;
}

// ---- commands ----------------------------------------------------------------------------------

export type Cmd = Assign | Store | Seq | If | While | Return | Skip | CallCmd | Soac | Hfused;

/** `name = rhs;` for a scalar variable (local or parameter). */
export interface Assign {
  readonly kind: 'assign';
  readonly name: string;
  readonly rhs: Expr;
  readonly lbl: number;
}

/** `array[index] = rhs;` */
export interface Store {
  readonly kind: 'store';
  readonly array: string;
  readonly index: Expr;
  readonly rhs: Expr;
  readonly lbl: number;
}

/** `first; second` */
export interface Seq {
  readonly kind: 'seq';
  readonly first: Cmd;
  readonly second: Cmd;
  readonly lbl: number;
}

/** `if (cond) thenCmd else elseCmd`; a missing else is `skip`. `cond` is tested against zero. */
export interface If {
  readonly kind: 'if';
  readonly cond: Expr;
  readonly thenCmd: Cmd;
  readonly elseCmd: Cmd;
  readonly lbl: number;
}

/**
 * `while (cond) body`. `isFor` is only a printing hint: the loop came from a `for` whose step is the
 * last command of `body`'s seq chain (the printer falls back to `while` when that no longer holds).
 */
export interface While {
  readonly kind: 'while';
  readonly cond: Expr;
  readonly body: Cmd;
  readonly isFor: boolean;
  readonly lbl: number;
}

/**
 * `return value;` (`none` in a void function).
 * @leaf @ends
 */
export interface Return {
  readonly kind: 'return';
  readonly value: Option<Expr>;
  readonly lbl: number;
}

/**
 * The empty command.
 * @leaf
 */
export interface Skip {
  readonly kind: 'skip';
  readonly lbl: number;
}

/**
 * A call used as a statement (its result, if any, is discarded).
 * @leaf
 */
export interface CallCmd {
  readonly kind: 'callCmd';
  readonly name: string;
  readonly args: List<Expr>;
  readonly lbl: number;
}

// ---- data-parallel combinators (SOACs, after L0 ch. 2 and 7) ------------------------------------

/**
 * `dest = op(…)`: a second-order array combinator. Its semantics is sequential (what the evaluator
 * runs); a parallel back end may only reassociate through `comb` (see below).
 *
 * `op` and its fields:
 * - 'map':      dest[i] = fn(args at i)                      (ty: element type of dest)
 * - 'filter':   dest = the elements x of the one mapped argument with fn(args at i) != 0
 * - 'reduce':   dest = fn(…fn(fn(ne, x0), x1)…, xn-1)        (fn is the associative ⊕; ty: scalar)
 * - 'scan':     dest[i] = fn(…fn(ne, x0)…, xi)                (inclusive)
 * - 'redomap':  dest = g(…g(g(ne, args at 0), args at 1)…)     (fn is the fold g, comb the ⊕)
 * - 'scanomap': dest[i] = g(…g(ne, args at 0)…, args at i)
 * `iota(n)` is a 'map' of the identity over `argIota(n)`.
 *
 * Invariants (parser and fusion keep them):
 * - `args` align with `fn.params` for map/filter, with `fn.params.tail` (after the accumulator) for
 *   reduce/scan/redomap/scanomap. An array argument for a scalar parameter, and every `argIota`, is
 *   *mapped* (element i); an array argument for an array parameter is passed whole (broadcast), as
 *   is every `argScalar`. There is at least one mapped argument; mapped arrays have equal lengths
 *   (checked when run). A filter has exactly one mapped argument.
 * - `comb` is some(⊕ : (ty, ty) -> ty) exactly for redomap/scanomap; for those, `g(acc, xs) =
 *   acc ⊕ f(xs)` for some f (fusion builds them so), which is what makes chunked parallel execution
 *   equal to the sequential fold up to ⊕'s associativity. A fused fold g itself is *not* associative
 *   (see ../shared/papers/README.md), so it is never used as a combine operator.
 * - `ne` is some(atom) exactly for reduce/scan/redomap/scanomap; atoms are `var` or literals.
 * - array results (map/filter/scan/scanomap) are fresh, read-only arrays named `dest`, not listed in
 *   `Fun.locals`; a scalar result (reduce/redomap) is assigned to the scalar variable `dest`.
 * - lambdas are closed: their bodies only read their own parameters and bindings, and call
 *   functions of the program; their names are unique in the host function.
 */
export interface Soac {
  readonly kind: 'soac';
  readonly op: string;
  readonly dest: string;
  readonly ty: string;
  readonly fn: Lam;
  readonly comb: Option<Lam>;
  readonly ne: Option<Expr>;
  readonly args: List<SoacArg>;
  readonly lbl: number;
}

/**
 * Horizontally fused combinators (Delite's rule): independent members over the same length, run as
 * one loop (one kernel). Members are all 'map's, or all reductions ('reduce'/'redomap'); none reads
 * another's result, so running them in order is the semantics.
 */
export interface Hfused {
  readonly kind: 'hfused';
  readonly members: List<Soac>;
  readonly lbl: number;
}

/** A combinator's argument. */
export type SoacArg = ArgArray | ArgIota | ArgScalar;

/** An array variable, mapped or whole (by the matching parameter's `isArray`). */
export interface ArgArray {
  readonly kind: 'argArray';
  readonly name: string;
  readonly ty: string;
  readonly lbl: number;
}

/** `iota(len)` as a mapped argument: element i is i. `len` is an int atom. */
export interface ArgIota {
  readonly kind: 'argIota';
  readonly len: Expr;
  readonly lbl: number;
}

/** A scalar passed to every application (an atom of the parameter's type). */
export interface ArgScalar {
  readonly kind: 'argScalar';
  readonly value: Expr;
  readonly lbl: number;
}

/**
 * An anonymous function: `(params) => { binds; return result; }` with straight-line bindings. The
 * parser makes `f` into `(p…) => f(p…)`; fusion composes lambdas by adding bindings.
 */
export interface Lam {
  readonly kind: 'lam';
  readonly params: List<Param>;
  readonly binds: List<Bind>;
  readonly result: Expr;
  readonly ret: string;
  readonly lbl: number;
}

/** `ty name = rhs;` inside a lambda. */
export interface Bind {
  readonly kind: 'bind';
  readonly name: string;
  readonly ty: string;
  readonly rhs: Expr;
  readonly lbl: number;
}

// ---- expressions -------------------------------------------------------------------------------

export type Expr =
  | Var
  | IntLit
  | FloatLit
  | BoolLit
  | Binary
  | Unary
  | Load
  | Call
  | Cast
  | Ternary
  | ArrayRef;

/** A scalar variable; `ty` is its declared type. */
export interface Var {
  readonly kind: 'var';
  readonly name: string;
  readonly ty: string;
  readonly lbl: number;
}

/** An int constant, an integer in [-2^31, 2^31). */
export interface IntLit {
  readonly kind: 'intLit';
  readonly value: number;
  readonly lbl: number;
}

/** A float constant, a binary32 value (Math.fround(value) === value); may be -0, but never NaN/inf from the parser. */
export interface FloatLit {
  readonly kind: 'floatLit';
  readonly value: number;
  readonly lbl: number;
}

/** `true` / `false`, of type bool. */
export interface BoolLit {
  readonly kind: 'boolLit';
  readonly value: boolean;
  readonly lbl: number;
}

/**
 * `left op right`. `ty` is the result type.
 * - arithmetic '+' '-' '*' '/' '%' and bitwise '&' '|' '^' '<<' '>>': operands and result have type `ty`
 *   ('int', or 'float' for + - * /);
 * - comparisons '<' '<=' '>' '>=' '==' '!=': operands share a type ('int' or 'float'), `ty` is 'int';
 * - logical '&&' '||' (short-circuit): operands are any scalars tested against zero, `ty` is 'int'.
 */
export interface Binary {
  readonly kind: 'binary';
  readonly op: string;
  readonly ty: string;
  readonly left: Expr;
  readonly right: Expr;
  readonly lbl: number;
}

/** `op arg`: '-' (int or float, `ty` = arg's type), '~' (int), '!' (any scalar; `ty` 'int'). */
export interface Unary {
  readonly kind: 'unary';
  readonly op: string;
  readonly ty: string;
  readonly arg: Expr;
  readonly lbl: number;
}

/** `array[index]`; `ty` is the element type, `index` has type int. */
export interface Load {
  readonly kind: 'load';
  readonly array: string;
  readonly index: Expr;
  readonly ty: string;
  readonly lbl: number;
}

/** A call of a non-void function of the same program; `ty` is its return type. */
export interface Call {
  readonly kind: 'call';
  readonly name: string;
  readonly args: List<Expr>;
  readonly ty: string;
  readonly lbl: number;
}

/** Conversion of `arg` to `ty`; `implicit` marks conversions C inserts (the printer omits them). */
export interface Cast {
  readonly kind: 'cast';
  readonly ty: string;
  readonly arg: Expr;
  readonly implicit: boolean;
  readonly lbl: number;
}

/** `cond ? thenExpr : elseExpr`; both branches have type `ty`. */
export interface Ternary {
  readonly kind: 'ternary';
  readonly cond: Expr;
  readonly thenExpr: Expr;
  readonly elseExpr: Expr;
  readonly ty: string;
  readonly lbl: number;
}

/** An array passed by name; only valid as a call argument for an array parameter. `ty` is the element type. */
export interface ArrayRef {
  readonly kind: 'arrayRef';
  readonly name: string;
  readonly ty: string;
  readonly lbl: number;
}
