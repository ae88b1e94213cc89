/**
 * The reference evaluator: runs a kernel function with C's semantics for the subset, as gcc does with
 * `-O0 -fwrapv -ffp-contract=off` on a target with FLT_EVAL_METHOD 0 (x86-64 SSE, AArch64).
 *
 * - int: 32-bit two's complement; + - * and unary - wrap; / and % truncate toward zero; shifts are
 *   arithmetic on the bit pattern; comparisons and ! && || give int 0/1.
 * - float: IEEE binary32, rounded (Math.fround) after every operation; division by zero gives ±inf/NaN
 *   as IEEE says (that is defined behaviour under Annex F, so it is not an error).
 * - conversions: int→float rounds to nearest; float→int truncates; anything→bool is `!= 0`.
 * - builtins (`sqrtf`, `powf`, `abs`, …: builtins.ts): C's math functions on binary32 as glibc
 *   computes them, with C's domains (`sqrtf(-1)` is NaN, `logf(0)` -inf): the prelude's `cmath`.
 * - Undefined behaviour in the subset is reported, never silently given a value: integer division by
 *   zero, INT_MIN / -1 and INT_MIN % -1 (they trap on x86), shift counts outside 0..31, array accesses
 *   out of bounds, reads of uninitialized variables or array elements, float→int conversion out of
 *   range (or of NaN), falling off the end of a non-void function. Running out of fuel (steps) or of
 *   call depth is reported too. All are `KernelRuntimeError`s carrying the node's label and, when the
 *   parser's span table is passed, its source position.
 *
 * Values are JS numbers: ints are int32, bools are 0/1, floats are binary32 values. Arrays are passed
 * by reference; the caller's argument arrays are copied first and never modified.
 */
import { cmath } from '../scf-lang/prelude.js';
import { applyBinary, applyUnary, convertScalar, type Fault, literalValue } from './arith.js';
import { builtin } from './builtins.js';
import type { Cmd, Expr, Fun, Lam, Param, Program, Soac } from './ast.js';
import type { SourceSpan } from '../common/index.js';
import { KernelArgumentError, KernelRuntimeError } from './diagnostics.js';
import { article, assertNever, emptyRecord, exprType, findFun, listToArray } from './util.js';

/** An argument: a scalar (booleans allowed for bool parameters) or an array of scalars. */
export type ArgValue = number | boolean | readonly (number | boolean)[];

export interface EvalOptions {
  /** Maximum number of steps (commands executed plus loop tests). Default 10^8. */
  readonly fuel?: number;
  /** Maximum call depth. Default 400. */
  readonly maxDepth?: number;
  /** The parser's span table, to give runtime errors a source position. */
  readonly spans?: ReadonlyMap<number, SourceSpan>;
  /** The kernel's text, for the line and column of a runtime error's position. */
  readonly source?: string;
}

export interface EvalResult {
  /**
   * The return value (int, 0/1 for bool, or a binary32 value), the returned array of a function
   * returning one, `undefined` for a void function.
   */
  readonly result: number | number[] | undefined;
  /** The contents, after the call, of every non-const array parameter, by parameter name. */
  readonly outputs: Readonly<Record<string, number[]>>;
  /** Steps used. */
  readonly steps: number;
}

export const DEFAULT_FUEL = 100_000_000;
const DEFAULT_DEPTH = 400;
const INT_MIN = -2147483648;

type Cell = number | undefined;

interface Frame {
  readonly fun: Fun;
  readonly scalars: Map<string, Cell>;
  readonly arrays: Map<string, Cell[]>;
  ret: number | Cell[] | undefined;
}

/** Runs `fnName` of `program` on `args` (by parameter position, or by parameter name). */
export function evaluate(
  program: Program,
  fnName: string,
  args: readonly ArgValue[] | Readonly<Record<string, ArgValue>>,
  options: EvalOptions = {},
): EvalResult {
  const fun = findFun(program, fnName);
  if (!fun) throw new KernelArgumentError(`no function named '${fnName}'`);
  const params = listToArray(fun.params);
  const ordered = orderArgs(fnName, params, args);
  const scalars: number[] = [];
  const arrays: Cell[][] = [];
  params.forEach((p, i) => {
    const v = ordered[i] as ArgValue;
    if (p.isArray) {
      if (!Array.isArray(v)) throw new KernelArgumentError(`parameter '${p.name}' is an array of ${p.ty}`);
      arrays.push((v as readonly (number | boolean)[]).map((x, j) => coerceArg(x, p.ty, `${p.name}[${j}]`)));
    } else {
      if (Array.isArray(v)) throw new KernelArgumentError(`parameter '${p.name}' is a scalar ${p.ty}`);
      scalars.push(coerceArg(v as number | boolean, p.ty, p.name));
    }
  });
  const machine = new Machine(program, options);
  const ret = machine.call(fun, scalars, arrays, fun.lbl);
  const result = Array.isArray(ret) ? machine.returnedArray(fun, ret) : ret;
  const outputs = emptyRecord<number[]>();
  let ai = 0;
  for (const p of params) {
    if (!p.isArray) continue;
    const arr = arrays[ai++] as Cell[];
    if (!p.isConst) outputs[p.name] = arr.map((x) => x ?? 0);
  }
  return { result, outputs, steps: machine.steps };
}

/** Arguments by parameter position, from a positional list or an object by parameter name. */
export function orderArgs(
  fnName: string,
  params: readonly Param[],
  args: readonly ArgValue[] | Readonly<Record<string, ArgValue>>,
): ArgValue[] {
  let ordered: ArgValue[];
  if (Array.isArray(args)) {
    ordered = [...(args as readonly ArgValue[])];
    if (ordered.length !== params.length) {
      throw new KernelArgumentError(
        `'${fnName}' takes ${params.length} argument(s), ${ordered.length} given`,
      );
    }
  } else {
    const byName = args as Readonly<Record<string, ArgValue>>;
    for (const k of Object.keys(byName)) {
      if (!params.some((p) => p.name === k))
        throw new KernelArgumentError(`'${fnName}' has no parameter '${k}'`);
    }
    ordered = params.map((p) => {
      const v = Object.hasOwn(byName, p.name) ? byName[p.name] : undefined;
      if (v === undefined)
        throw new KernelArgumentError(`missing argument for parameter '${p.name}' of '${fnName}'`);
      return v;
    });
  }
  return ordered;
}

/** Why a JS value is no argument of a scalar type (`scalarArg`). */
export type ScalarMismatch = 'boolean' | 'not a number' | 'not an int32' | 'unsupported type';

/**
 * A value as the kernel sees it, for an argument or a binding: bools as 0/1, floats rounded to
 * binary32, ints checked to be int32 (a JS -0 becomes 0: C has no negative zero int); otherwise
 * why not (each caller words the error).
 */
export function scalarArg(x: unknown, ty: string): number | ScalarMismatch {
  if (typeof x === 'boolean') return ty === 'bool' ? Number(x) : 'boolean';
  if (typeof x !== 'number') return 'not a number';
  switch (ty) {
    case 'int':
      return Number.isInteger(x) && x >= INT_MIN && x <= 2147483647 ? x | 0 : 'not an int32';
    case 'float':
      return Math.fround(x);
    case 'bool':
      return x !== 0 ? 1 : 0;
    default:
      return 'unsupported type';
  }
}

/** `scalarArg` for an argument named `what`, a KernelArgumentError saying why where it is none. */
export function coerceArg(x: number | boolean, ty: string, what: string): number {
  const v = scalarArg(x, ty);
  if (typeof v === 'number') return v;
  const why: Record<ScalarMismatch, string> = {
    boolean: `argument '${what}' must be ${article(ty)}, not a boolean`,
    'not a number': `argument '${what}' must be ${article(ty)}`,
    'not an int32': `argument '${what}' must be an int (a 32-bit integer), got ${x}`,
    'unsupported type': `parameter '${what}' has unsupported type '${ty}'`,
  };
  throw new KernelArgumentError(why[v]);
}

class Machine {
  steps = 0;
  private depth = 0;
  private readonly fuel: number;
  private readonly maxDepth: number;
  private readonly funs = new Map<string, Fun>();

  constructor(
    program: Program,
    private readonly options: EvalOptions,
  ) {
    this.fuel = options.fuel ?? DEFAULT_FUEL;
    this.maxDepth = options.maxDepth ?? DEFAULT_DEPTH;
    for (const f of listToArray(program)) if (!this.funs.has(f.name)) this.funs.set(f.name, f);
  }

  private error(lbl: number, message: string): never {
    throw new KernelRuntimeError(message, lbl, this.options.spans?.get(lbl), this.options.source);
  }

  private tick(lbl: number): void {
    if (++this.steps > this.fuel) {
      this.error(lbl, `step budget of ${this.fuel} exceeded (the kernel may not terminate)`);
    }
  }

  /** A returned array's contents; an element never assigned is an error. */
  returnedArray(fun: Fun, cells: readonly Cell[]): number[] {
    const i = cells.indexOf(undefined);
    if (i >= 0)
      this.error(fun.lbl, `'${fun.name}' returned an array whose element [${i}] was never assigned`);
    return cells as number[];
  }

  /** Calls `fun` with scalar arguments and array references, in parameter order. */
  call(
    fun: Fun,
    scalars: readonly number[],
    arrays: readonly Cell[][],
    at: number,
  ): number | Cell[] | undefined {
    if (this.depth >= this.maxDepth) this.error(at, `call depth limit of ${this.maxDepth} exceeded`);
    const frame: Frame = { fun, scalars: new Map(), arrays: new Map(), ret: undefined };
    let si = 0;
    let ai = 0;
    for (const p of listToArray(fun.params)) {
      if (p.isArray) frame.arrays.set(p.name, arrays[ai++] as Cell[]);
      else frame.scalars.set(p.name, scalars[si++] as number);
    }
    for (const d of listToArray(fun.locals)) {
      if (d.size.kind === 'some') frame.arrays.set(d.name, new Array<Cell>(d.size.value).fill(undefined));
      else frame.scalars.set(d.name, undefined);
    }
    this.depth++;
    let returned: boolean;
    try {
      returned = this.exec(frame, fun.body);
    } catch (e) {
      if (e instanceof RangeError)
        this.error(at, 'call depth too large for the evaluator (JavaScript stack overflow)');
      throw e;
    } finally {
      this.depth--;
    }
    if (!returned && fun.ret !== 'void') {
      this.error(fun.lbl, `function '${fun.name}' reached its end without returning a value`);
    }
    return frame.ret;
  }

  /** Executes a command; true when it executed a `return`. */
  private exec(f: Frame, c: Cmd): boolean {
    switch (c.kind) {
      case 'seq': {
        // Along the right spine by iteration: a long run of statements is one long seq chain.
        let rest: Cmd = c;
        for (; rest.kind === 'seq'; rest = rest.second) if (this.exec(f, rest.first)) return true;
        return this.exec(f, rest);
      }
      case 'assign':
        this.tick(c.lbl);
        f.scalars.set(c.name, this.eval(f, c.rhs));
        return false;
      case 'store': {
        this.tick(c.lbl);
        const arr = this.array(f, c.array, c.lbl);
        const i = this.eval(f, c.index);
        const v = this.eval(f, c.rhs);
        this.bounds(arr, i, c.array, c.index.lbl);
        arr[i] = v;
        return false;
      }
      case 'if':
        this.tick(c.lbl);
        return this.eval(f, c.cond) !== 0 ? this.exec(f, c.thenCmd) : this.exec(f, c.elseCmd);
      case 'while':
        for (;;) {
          this.tick(c.lbl);
          if (this.eval(f, c.cond) === 0) return false;
          if (this.exec(f, c.body)) return true;
        }
      case 'return': {
        this.tick(c.lbl);
        const v = c.value.kind === 'some' ? c.value.value : undefined;
        f.ret =
          v === undefined
            ? undefined
            : v.kind === 'arrayRef'
              ? [...this.array(f, v.name, v.lbl)]
              : this.eval(f, v);
        return true;
      }
      case 'skip':
        return false;
      case 'callCmd':
        this.tick(c.lbl);
        this.invoke(f, c.name, listToArray(c.args), c.lbl);
        return false;
      case 'soac':
        this.soac(f, c);
        return false;
      case 'hfused':
        for (const m of listToArray(c.members)) this.soac(f, m);
        return false;
      default:
        return assertNever(c);
    }
  }

  private array(f: Frame, name: string, lbl: number): Cell[] {
    const arr = f.arrays.get(name);
    if (!arr) return this.error(lbl, `internal error: unknown array '${name}'`);
    return arr;
  }

  private bounds(arr: Cell[], i: number, name: string, lbl: number): void {
    if (i < 0 || i >= arr.length)
      this.error(lbl, `index ${i} is out of bounds for array '${name}' of length ${arr.length}`);
  }

  /** Runs a combinator with its sequential semantics (ast.ts), binding its result in `f`. */
  private soac(f: Frame, s: Soac): void {
    this.tick(s.lbl);
    const folds = s.op !== 'map' && s.op !== 'filter';
    const params = listToArray(s.fn.params).slice(folds ? 1 : 0);
    const args = listToArray(s.args);
    // Each argument: a mapped array, an iota length, or a value passed whole.
    type Slot =
      | { readonly tag: 'elems'; readonly cells: Cell[]; readonly name: string }
      | { readonly tag: 'iota'; readonly len: number }
      | { readonly tag: 'array'; readonly cells: Cell[] }
      | { readonly tag: 'scalar'; readonly value: number };
    const slots: Slot[] = args.map((a, i): Slot => {
      switch (a.kind) {
        case 'argArray': {
          const cells = this.array(f, a.name, a.lbl);
          return params[i]?.isArray ? { tag: 'array', cells } : { tag: 'elems', cells, name: a.name };
        }
        case 'argIota': {
          const len = this.eval(f, a.len);
          if (len < 0) this.error(a.lbl, `iota of a negative length (${len})`);
          return { tag: 'iota', len };
        }
        case 'argScalar':
          return { tag: 'scalar', value: this.eval(f, a.value) };
        default:
          return assertNever(a);
      }
    });
    let n = -1;
    let first = '';
    for (const sl of slots) {
      if (sl.tag !== 'elems' && sl.tag !== 'iota') continue;
      const len = sl.tag === 'elems' ? sl.cells.length : sl.len;
      const what = sl.tag === 'elems' ? `'${sl.name}'` : 'iota';
      if (n < 0) {
        n = len;
        first = what;
      } else if (len !== n) {
        this.error(
          s.lbl,
          `'${s.op}' goes over ${first} of length ${n} and ${what} of length ${len}: lengths differ`,
        );
      }
    }
    if (n < 0) this.error(s.lbl, `internal error: '${s.op}' has no mapped argument`);
    const scalarsAt = (i: number): { scalars: number[]; arrays: Cell[][] } => {
      const scalars: number[] = [];
      const arrays: Cell[][] = [];
      for (const sl of slots) {
        switch (sl.tag) {
          case 'elems': {
            const v = sl.cells[i];
            if (v === undefined) this.error(s.lbl, `'${sl.name}[${i}]' is read before it is assigned`);
            scalars.push(v);
            break;
          }
          case 'iota':
            scalars.push(i);
            break;
          case 'array':
            arrays.push(sl.cells);
            break;
          case 'scalar':
            scalars.push(sl.value);
            break;
        }
      }
      return { scalars, arrays };
    };
    const ne = s.ne.kind === 'some' ? this.eval(f, s.ne.value) : 0;
    switch (s.op) {
      case 'map': {
        const out: Cell[] = new Array<Cell>(n);
        for (let i = 0; i < n; i++) {
          this.tick(s.lbl);
          const a = scalarsAt(i);
          out[i] = this.apply(f, s.fn, a.scalars, a.arrays);
        }
        f.arrays.set(s.dest, out);
        return;
      }
      case 'filter': {
        const out: Cell[] = [];
        for (let i = 0; i < n; i++) {
          this.tick(s.lbl);
          const a = scalarsAt(i);
          if (this.apply(f, s.fn, a.scalars, a.arrays) !== 0) {
            const kept = slots.find((sl) => sl.tag === 'elems' || sl.tag === 'iota');
            out.push(kept?.tag === 'elems' ? kept.cells[i] : i);
          }
        }
        f.arrays.set(s.dest, out);
        return;
      }
      case 'reduce':
      case 'redomap':
      case 'scan':
      case 'scanomap': {
        const scans = s.op === 'scan' || s.op === 'scanomap';
        const out: Cell[] = scans ? new Array<Cell>(n) : [];
        let acc = ne;
        for (let i = 0; i < n; i++) {
          this.tick(s.lbl);
          const a = scalarsAt(i);
          acc = this.apply(f, s.fn, [acc, ...a.scalars], a.arrays);
          if (scans) out[i] = acc;
        }
        if (scans) f.arrays.set(s.dest, out);
        else f.scalars.set(s.dest, acc);
        return;
      }
      default:
        this.error(s.lbl, `internal error: unknown combinator '${s.op}'`);
    }
  }

  /** Applies a lambda to scalar values and array references (each in parameter order). */
  private apply(f: Frame, lam: Lam, scalars: readonly number[], arrays: readonly Cell[][]): number {
    const frame: Frame = { fun: f.fun, scalars: new Map(), arrays: new Map(), ret: undefined };
    let si = 0;
    let ai = 0;
    for (const p of listToArray(lam.params)) {
      if (p.isArray) frame.arrays.set(p.name, arrays[ai++] as Cell[]);
      else frame.scalars.set(p.name, scalars[si++] as number);
    }
    for (const b of listToArray(lam.binds)) frame.scalars.set(b.name, this.eval(frame, b.rhs));
    return this.eval(frame, lam.result);
  }

  private invoke(f: Frame, name: string, args: readonly Expr[], lbl: number): number | Cell[] | undefined {
    if (builtin(name)) {
      // C's math function on binary32 (prelude `cmath`); arguments left to right, as a call's
      const [x = 0, y = 0] = args.map((a) => this.eval(f, a));
      return cmath(name, x, y);
    }
    const callee = this.funs.get(name);
    if (!callee) return this.error(lbl, `internal error: unknown function '${name}'`);
    const scalars: number[] = [];
    const arrays: Cell[][] = [];
    for (const a of args) {
      if (a.kind === 'arrayRef') arrays.push(this.array(f, a.name, a.lbl));
      else scalars.push(this.eval(f, a));
    }
    return this.call(callee, scalars, arrays, lbl);
  }

  private eval(f: Frame, e: Expr): number {
    switch (e.kind) {
      case 'var': {
        const v = f.scalars.get(e.name);
        if (v === undefined) return this.error(e.lbl, `'${e.name}' is read before it is assigned`);
        return v;
      }
      case 'intLit':
      case 'floatLit':
      case 'boolLit':
        return literalValue(e);
      case 'binary':
        return this.binary(f, e.op, e.ty, e.left, e.right, e.lbl);
      case 'unary':
        return this.valueAt(applyUnary(e.op, e.ty, this.eval(f, e.arg)), e.lbl);
      case 'load': {
        const arr = this.array(f, e.array, e.lbl);
        const i = this.eval(f, e.index);
        this.bounds(arr, i, e.array, e.index.lbl);
        const v = arr[i];
        if (v === undefined) return this.error(e.lbl, `'${e.array}[${i}]' is read before it is assigned`);
        return v;
      }
      case 'call': {
        const r = this.invoke(f, e.name, listToArray(e.args), e.lbl);
        if (Array.isArray(r))
          return this.error(e.lbl, `internal error: array-returning function '${e.name}' used as a value`);
        if (r === undefined)
          return this.error(e.lbl, `internal error: void function '${e.name}' used as a value`);
        return r;
      }
      case 'cast':
        return this.convert(this.eval(f, e.arg), exprType(e.arg), e.ty, e.lbl);
      case 'ternary':
        return this.eval(f, e.cond) !== 0 ? this.eval(f, e.thenExpr) : this.eval(f, e.elseExpr);
      case 'arrayRef':
        return this.error(e.lbl, `internal error: array '${e.name}' used as a value`);
      default:
        return assertNever(e);
    }
  }

  private convert(v: number, from: string, to: string, lbl: number): number {
    return this.valueAt(convertScalar(v, from, to), lbl);
  }

  /** An operation's value, or its fault reported at node `lbl`. */
  private valueAt(v: number | Fault, lbl: number): number {
    return typeof v === 'number' ? v : this.error(lbl, v.fault);
  }

  private binary(f: Frame, op: string, ty: string, left: Expr, right: Expr, lbl: number): number {
    if (op === '&&') return this.eval(f, left) !== 0 && this.eval(f, right) !== 0 ? 1 : 0;
    if (op === '||') return this.eval(f, left) !== 0 || this.eval(f, right) !== 0 ? 1 : 0;
    const l = this.eval(f, left);
    const r = this.eval(f, right);
    return this.valueAt(applyBinary(op, ty, l, r), lbl);
  }
}
