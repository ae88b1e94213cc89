/**
 * The kernel language's AST, declared as SCF-lang data types (after SCF Fig. 3: Fun / Cmd / Expr),
 * so that optimizers written in SCF-lang can pattern-match on it. A pass imports these types, and
 * the helpers that keep the invariants below, from `scf/kernel` (src/kernel/public.ts);
 * docs/kernel-ast.md, the pass writer's reference, is generated from this file's doc comments
 * (`npm run gen:ast-doc`).
 *
 * Invariants of a program produced by `parseKernel`, expected of every optimizer's output too.
 * src/kernel/validate.ts checks each one that names a rule (`validateProgram` a parsed program,
 * `validateFun` a pass's output; its header says when scf runs them).
 * - labels (rule `label`): every node's last field, `lbl`, is its label, unique within its function
 *   — parameters, locals, body, lambdas and `fns` included — and, in a parsed program, across the
 *   program. A node a pass keeps or rebuilds in place may keep its label; a node it adds takes a
 *   fresh one above the input's largest: `freshLabel(f)` is the first free label, and a pass threads
 *   the next free one through its walk, as `relabelCmd`/`relabelExpr` do (they renumber a copy of a
 *   subtree from `n` and return the next free label). A subtree the output holds twice (an unrolled
 *   loop body) is relabelled in every copy but one;
 * - shape (rule `shape`): every node is a kind of this file with each field of its declared type;
 *   lists are the prelude's `cons`/`nil` cells, options its `some`/`none`;
 * - types (rule `type`): scalar type strings are 'int' (32-bit two's complement, wrapping), 'float'
 *   (IEEE binary32) and 'bool' (values 0/1); a function's `ret` may also be 'void', 'int[]',
 *   'float[]' or 'bool[]'; a combinator's `op` is one of the six `Soac` lists;
 * - elaborated (rule `elaborated`): every implicit C conversion is an explicit `cast` node with
 *   `implicit: true`, so both operands of an arithmetic or comparison `binary` have the same type,
 *   an index is an int, and the right-hand side of `assign`/`store`, a `return` value and every call
 *   argument have exactly the target's type;
 * - statement lists (rule `seq`): a list of commands is a chain of `seq`s without `skip` elements
 *   (an empty list is one `skip`), right-nested as the parser builds them: `seq(a, seq(b, c))`. An
 *   optimizer's output may nest a `seq` first (copy-prop's does), so after a pass the rule asks
 *   only for no `skip` in a list. `mkSeq` joins two commands and drops a `skip`; `appendSeq` and
 *   `seqOf` build right-nested lists;
 * - combinators (rule `soac`): `comb` and `ne` are present exactly for the ops that take them, and
 *   `ne` is an atom (`Soac` states the rest, which the parser and fusion keep);
 * - names (rule `elaborated`, but for the first clause): a function's parameters and locals have
 *   distinct names, one type each; every scalar an `assign`, a `var` or a scalar combinator's `dest`
 *   names is one of them, every array a `store`, `load`, `arrayRef` or `argArray` names is an array
 *   parameter, an array local or an array combinator's `dest`, and every function a `call` or
 *   `callCmd` names is one of the program's (or of `Fun.fns`) or a builtin (`isBuiltin`); the
 *   variables and arrays a lambda names are its parameters and the bindings before the one naming
 *   them. A pass that adds a
 *   variable declares it in `Fun.locals` under a name its function does not use (a pass whose
 *   output reads or assigns an undeclared name is the pass's error);
 * - sugar is gone: `for` is `seq(init, while(cond, seq(body, step)))` with `isFor: true`; `x += e`
 *   and `x++` are plain assignments; declarations are hoisted into `Fun.locals` (renamed if they
 *   shadow).
 *
 * What a pass preserves: wherever its input runs without a run-time error of the reference
 * evaluator (src/kernel/eval.ts), its output runs without one and gives the same result and output
 * arrays, bit for bit (-0 and NaN included); where the input has one, the output may do anything.
 * tests/optimizers/differential.test.ts checks the built-in passes so.
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
 */
import type { List, Option } from '../scf-lang/prelude.js';

// ---- programs, functions and variables ---------------------------------------------------------

/** A whole translation unit: the kernel functions in source order. */
export type Program = List<Fun>;

/**
 * A function definition. `ret` is 'int' | 'float' | 'bool' | 'void', or 'int[]' | 'float[]' | 'bool[]'
 * for a host function that returns an array (`float* f(…) { …; return ys; }`; its returns carry an
 * `arrayRef`).
 */
export interface Fun {
  readonly kind: 'fun';
  /** Its C name, unique in the program. */
  readonly name: string;
  /** Its return type (see above). */
  readonly ret: string;
  /** Its formal parameters, in order. */
  readonly params: List<Param>;
  /** Every local variable of its body, hoisted (none is declared inside `body`). */
  readonly locals: List<Decl>;
  /** Its statements: one command, a statement list being a `seq` chain. */
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
  /** The scalar type, or the element type of an array parameter. */
  readonly ty: string;
  /** Whether it is an array passed by reference. */
  readonly isArray: boolean;
  /** Whether the function only reads it (`const float* a`). */
  readonly isConst: boolean;
  readonly lbl: number;
}

/** A local variable: a scalar (`size` none) or an array of constant size. Uninitialized until assigned. */
export interface Decl {
  readonly kind: 'decl';
  readonly name: string;
  /** The scalar type, or the element type of an array. */
  readonly ty: string;
  /** `some(n)` for an array of `n` elements, `none` for a scalar. */
  readonly size: Option<number>;
  readonly lbl: number;
}

// ---- commands ----------------------------------------------------------------------------------

/**
 * A command (a C statement). A statement list is a chain of `seq`s without `skip` elements, an empty
 * one a `skip` (see the invariants above).
 */
export type Cmd = Assign | Store | Seq | If | While | Return | Skip | CallCmd | Soac | Hfused;

/** `name = rhs;` for a scalar variable (local or parameter). */
export interface Assign {
  readonly kind: 'assign';
  /** The scalar variable assigned (a parameter or a local). */
  readonly name: string;
  readonly rhs: Expr;
  readonly lbl: number;
}

/** `array[index] = rhs;` */
export interface Store {
  readonly kind: 'store';
  /** The array stored into (a non-const array parameter or an array local). */
  readonly array: string;
  /** An int. */
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
  /** `skip` when the source has no else. */
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
  /** A printing hint (see above). */
  readonly isFor: boolean;
  readonly lbl: number;
}

/**
 * `return value;` (`none` in a void function).
 * @leaf @ends
 */
export interface Return {
  readonly kind: 'return';
  /** `none` exactly in a void function. */
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
  /** The callee, a function of the program. */
  readonly name: string;
  readonly args: List<Expr>;
  readonly lbl: number;
}

// ---- data-parallel combinators (SOACs, after L0 ch. 2 and 7) -----------------------------------

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
 *
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
  /** 'map' | 'filter' | 'reduce' | 'scan' | 'redomap' | 'scanomap'. */
  readonly op: string;
  /** The result: a fresh array, or the scalar variable a reduce/redomap assigns. */
  readonly dest: string;
  /** The result's scalar type (an array result's element type). */
  readonly ty: string;
  /** The function applied (the fold `g` of redomap/scanomap). */
  readonly fn: Lam;
  /** The combine operator ⊕, some exactly for redomap/scanomap. */
  readonly comb: Option<Lam>;
  /** The neutral element, an atom; some exactly for reduce/scan/redomap/scanomap. */
  readonly ne: Option<Expr>;
  /** The arguments, aligned with `fn`'s parameters (after the accumulator for a fold). */
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

/** A combinator's argument, mapped or passed whole (see `Soac`). */
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
  /** Straight-line bindings, each seeing the parameters and the bindings before it. */
  readonly binds: List<Bind>;
  /** What it returns, of type `ret`. */
  readonly result: Expr;
  /** The scalar type of its result. */
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

/**
 * An expression, of a scalar type (`exprType`) but for `arrayRef`. Evaluating one assigns no
 * variable, but a `call` in it may store into the arrays passed to it (`hasCall`).
 */
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
  /** Its declared type. */
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
  /** The operator (see above). */
  readonly op: string;
  /** The result type (see above). */
  readonly ty: string;
  readonly left: Expr;
  readonly right: Expr;
  readonly lbl: number;
}

/** `op arg`: '-' (int or float, `ty` = arg's type), '~' (int), '!' (any scalar; `ty` 'int'). */
export interface Unary {
  readonly kind: 'unary';
  /** '-', '~' or '!'. */
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
  /** The array's element type. */
  readonly ty: string;
  readonly lbl: number;
}

/**
 * A call of a non-void function of the same program, or of a builtin: a function of C's math
 * library (`sqrtf`, `powf`, `abs`, …; src/kernel/builtins.ts, docs/kernel-math.md), which is pure
 * (`isBuiltin`); `ty` is its return type.
 */
export interface Call {
  readonly kind: 'call';
  readonly name: string;
  readonly args: List<Expr>;
  /** The callee's return type. */
  readonly ty: string;
  readonly lbl: number;
}

/** Conversion of `arg` to `ty`; `implicit` marks conversions C inserts (the printer omits them). */
export interface Cast {
  readonly kind: 'cast';
  readonly ty: string;
  readonly arg: Expr;
  /** Whether C inserted it (the printer omits it then). */
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
