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
 * Invariants of a program produced by `parseKernel` (and expected of every optimizer's output):
 * - `lbl` is unique within the program;
 * - the AST is *elaborated*: every implicit C conversion is an explicit `cast` node with `implicit: true`,
 *   so both operands of an arithmetic/comparison `binary` have the same type, and the right-hand side of
 *   `assign`/`store`, a `return` value and every scalar call argument have exactly the target's type;
 * - scalar type strings are 'int' (32-bit two's complement, wrapping), 'float' (IEEE binary32) and 'bool'
 *   (values 0/1); a function's `ret` may also be 'void';
 * - sugar is gone: `for` is `seq(init, while(cond, seq(body, step)))` with `isFor: true`; `x += e` and
 *   `x++` are plain assignments; declarations are hoisted into `Fun.locals` (renamed if they shadow);
 *   statement lists are right-nested `seq`s without `skip` elements.
 */
import type { List, Option } from '../scf-lang/prelude.js';

/** A whole translation unit: the kernel functions in source order. */
export type Program = List<Fun>;

/** A function definition. `ret` is 'int' | 'float' | 'bool' | 'void'. */
export interface Fun {
  readonly kind: 'fun';
  readonly name: string;
  readonly ret: string;
  readonly params: List<Param>;
  readonly locals: List<Decl>;
  readonly body: Cmd;
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

export type Cmd = Assign | Store | Seq | If | While | Return | Skip | CallCmd;

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

/** `return value;` (`none` in a void function). */
export interface Return {
  readonly kind: 'return';
  readonly value: Option<Expr>;
  readonly lbl: number;
}

/** The empty command. */
export interface Skip {
  readonly kind: 'skip';
  readonly lbl: number;
}

/** A call used as a statement (its result, if any, is discarded). */
export interface CallCmd {
  readonly kind: 'callCmd';
  readonly name: string;
  readonly args: List<Expr>;
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
