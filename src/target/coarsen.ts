/**
 * Thread coarsening of straight-line maps for the WGSL back end (wgsl.ts): one invocation
 * computes `width` consecutive elements of a map over `iota(n)`, and the work the elements share
 * (the same array element loaded, the same clamp computed) is done once for all of them. That is
 * where a specialized stencil gains on a software adapter, which runs invocations as SIMD lanes
 * of the CPU and pays every load as a bounds-checked gather: the unrolled radius-2 blur loads 25
 * elements per pixel one invocation each, but 10 per pixel four pixels at a time, since
 * neighbouring pixels read overlapping windows. Specialization is what makes a stencil
 * straight-line (a known radius unrolls its loops), so the generic kernel, with its loops, is not
 * coarsened: this widens what specialization gives, not what any kernel gets.
 *
 * Algorithm. The lambda, with the functions of the program it calls inlined, is evaluated
 * symbolically once per lane j (element k0 + j) into one table of value-numbered nodes, so equal
 * computations of different lanes are one node:
 * - an int value is an affine form Σ cᵢ·aᵢ + c over atoms (k0, scalar operands, opaque int
 *   nodes), with wrapping int32 coefficients: `+`, `-`, negation and a product by a constant are
 *   exact on forms (int32 arithmetic is arithmetic modulo 2³², as the evaluator's and WGSL's), so
 *   `(x + 1) - 1` and `x` are one form, and `x + (j + dx)` of lane j is `x + (j' + dx')` of lane j'
 *   whenever j + dx = j' + dx';
 * - `(k0 + j) % s` and `(k0 + j) / s`, for the one divisor s of the lambda, the same in every
 *   lane (a literal or a scalar operand), are `x + j` and `y`: the group is then `width` columns
 *   x … x + width − 1 of row y of s (k0 = y·s + x), which is what C's `%` and `/` give for every
 *   element of the group when s > 0 (k0 + j ≥ 0, x + j < s); a row's last group may be partial;
 * - everything else (loads, float arithmetic, selects, builtin calls, casts) is an opaque node
 *   keyed by its operator and operands; comparisons and `&&`/`||`/`!` stay expressions of their
 *   operands' nodes (a select's condition, not a node of their own).
 * The shader (wgsl.ts) computes every node reachable from a lane's result once per group, as a
 * `let`, in creation order (operands first), and writes each lane's result where its element
 * exists (its column below s, its index below n). So the coarsened map computes what the plain
 * one does: the forms are equal as int32 values, and a shared node is the same operation on the
 * same operands. Evaluating every node of a lane, whether or not it exists, is harmless as in
 * `select`: the lambda calls no function of the program once inlined, WGSL's loads out of range
 * and integer division by zero are defined, and builtins are pure and total in WGSL. With a
 * divisor that is a scalar operand, the plan holds the plain pass too, and the runtime runs it
 * instead where s ≤ 0. The group is one straight-line block, with no branch to the plain code:
 * on SwiftShader the mere presence of the plain body in the coarsened shader, even on a branch
 * never taken, costs about as much as coarsening saves.
 *
 * When. Only a map site of one member, mapping nothing but one iota (other arguments broadcast
 * arrays and scalars), whose lambda and callees are straight-line: assignments to scalars and one
 * final `return`, no `if`, loop, store, local array or recursion. `coarsen: 'auto'` (the default)
 * coarsens where the group loads at most MAX_LOAD_SHARE of what its elements load apart (a
 * pointwise map shares nothing and is left as it is); 'always' wherever it applies (the tests),
 * 'never' nowhere. A lambda over MAX_NODES nodes once coarsened is left as it is.
 *
 * Invariants: deterministic (the plan is a pure function of the lambda); the nodes' expressions
 * are kernel expressions over the `$`-named variables of `Coarsened` (no user name starts with
 * `$`), typed as the AST types them.
 */
import {
  builtin,
  type Cmd,
  type Expr,
  exprType,
  type Fun,
  type Lam,
  listFromArray,
  listToArray,
} from '../kernel/index.js';
import { wgslType } from './wgsl-literals.js';

/** Elements per invocation. */
export const COARSEN_WIDTH = 4;

/** 'auto' where loads are shared; 'always' wherever a map qualifies; 'never'. */
export type CoarsenMode = 'auto' | 'always' | 'never';

/** At most this share of its elements' separate loads may a coarsened group load ('auto'). */
const MAX_LOAD_SHARE = 0.75;
/** Nodes of a coarsened lambda, above which it is not coarsened (shader size). */
const MAX_NODES = 4000;
/** Nested calls inlined, beyond which a lambda is not coarsened. */
const MAX_INLINE_DEPTH = 32;

/** What a lambda parameter is bound to (in the order of its parameters). */
export type CoarseActual =
  | { readonly kind: 'lane' }
  | { readonly kind: 'array'; readonly name: string }
  | { readonly kind: 'scalar'; readonly value: Expr };

/** A `let` of the coarsened body: `name` of type `ty` is `value`. */
export interface CoarseLet {
  readonly name: string;
  readonly ty: string;
  readonly value: Expr;
}

/**
 * A coarsened map. Expressions name `K0` (the group's first element, int), `ROW` and `COLUMN`
 * (with a divisor: the group's row and first column), the `lets` before them, and the scalar
 * operands and broadcast arrays as the caller's `CoarseActual`s named them.
 */
export interface Coarsened {
  readonly width: number;
  /**
   * The row length s of `(k + j) % s` and `(k + j) / s` (a literal > 0 or a scalar operand's
   * variable), when the lambda divides by one: groups are then `width` columns of one row, and
   * the coarsened pass is only right for s > 0. Undefined: groups are `width` consecutive elements.
   */
  readonly divisor: Expr | undefined;
  /** The shared computations, operands first. */
  readonly lets: readonly CoarseLet[];
  /** Lane j's result. */
  readonly results: readonly Expr[];
  /** Loads of the coarsened group, and of its elements computed apart. */
  readonly loads: { readonly group: number; readonly apart: number };
}

/** The names coarsened expressions give the group's first element, row and first column. */
export const K0 = '$k0';
export const ROW = '$row';
export const COLUMN = '$column';

/** Why a lambda is not coarsened (caught: the map is emitted as it is). */
class NotStraight extends Error {}

type Form = { readonly terms: ReadonlyMap<number, number>; readonly c: number };
/**
 * An int value (affine form); a literal or a truth value, kept as an expression over the nodes
 * `ids` (a comparison is a select's condition, not a node of its own); another scalar (a node);
 * an array (its name in the expressions).
 */
type Val =
  | { readonly t: 'int'; readonly form: Form }
  | { readonly t: 'lit'; readonly e: Expr; readonly ids: readonly number[] }
  | { readonly t: 'node'; readonly id: number }
  | { readonly t: 'array'; readonly name: string };

interface Node {
  readonly name: string;
  readonly ty: string;
  /** undefined for atoms defined outside the body (K0, scalar operands). */
  readonly value: Expr | undefined;
  readonly operands: readonly number[];
  readonly isLoad: boolean;
}

/** Operators whose result is a truth value (0 or 1). */
const TRUTH_OPS = new Set(['<', '<=', '>', '>=', '==', '!=', '&&', '||']);

const LBL = 0;
const v = (name: string, ty: string): Expr => ({ kind: 'var', name, ty, lbl: LBL });
const int = (value: number): Expr => ({ kind: 'intLit', value, lbl: LBL });
const bin = (op: string, ty: string, left: Expr, right: Expr): Expr => ({
  kind: 'binary',
  op,
  ty,
  left,
  right,
  lbl: LBL,
});

/** The symbolic evaluator and its table of value-numbered nodes. */
class Table {
  readonly nodes: Node[] = [];
  private readonly keys = new Map<string, number>();
  /** The divisor all rows share, and the row and column atoms, once a division is seen. */
  divisor: { readonly expr: Expr; readonly key: string; readonly x: number; readonly y: number } | undefined;
  readonly k0: number;

  constructor(
    private readonly funs: ReadonlyMap<string, Fun>,
    private readonly width: number,
  ) {
    this.k0 = this.atom(K0, 'int', 'k0');
  }

  atom(name: string, ty: string, key: string): number {
    return this.intern(`atom:${key}`, () => ({ name, ty, value: undefined, operands: [], isLoad: false }));
  }

  private intern(key: string, make: () => Node): number {
    const known = this.keys.get(key);
    if (known !== undefined) return known;
    if (this.nodes.length >= MAX_NODES) throw new NotStraight('too large');
    this.nodes.push(make());
    this.keys.set(key, this.nodes.length - 1);
    return this.nodes.length - 1;
  }

  /** A node for `value` of type `ty` over operand nodes, shared with any equal one. */
  private node(key: string, ty: string, value: Expr, operands: readonly number[], isLoad = false): number {
    return this.intern(`${key}|${exprKey(value)}`, () => ({
      name: `$t${this.nodes.length}`,
      ty,
      value,
      operands,
      isLoad,
    }));
  }

  lane(j: number): Val {
    return { t: 'int', form: { terms: new Map([[this.k0, 1]]), c: j } };
  }

  // ---- values as operands ----

  /** `val` as an expression over node names (an int form materialized as one node). */
  operand(val: Val, ty: string): { expr: Expr; ids: number[] } {
    if (val.t === 'array') throw new NotStraight('an array as a scalar');
    if (val.t === 'lit') return { expr: val.e, ids: [...val.ids] };
    if (val.t === 'node') {
      const n = this.nodes[val.id] as Node;
      return { expr: v(n.name, n.ty), ids: [val.id] };
    }
    if (ty !== 'int') throw new NotStraight('an int form of another type');
    const { terms, c } = val.form;
    if (terms.size === 0) return { expr: int(c), ids: [] };
    const sorted = [...terms].sort((a, b) => a[0] - b[0]);
    const [first] = sorted;
    if (sorted.length === 1 && c === 0 && first?.[1] === 1) {
      const n = this.nodes[first[0]] as Node;
      return { expr: v(n.name, 'int'), ids: [first[0]] };
    }
    const term = (id: number, coef: number): Expr => {
      const x = v((this.nodes[id] as Node).name, 'int');
      return coef === 1 ? x : bin('*', 'int', x, int(coef));
    };
    let e: Expr | undefined;
    for (const [id, coef] of sorted) {
      if (e === undefined) e = term(id, coef);
      else if (coef < 0 && coef !== -0x80000000) e = bin('-', 'int', e, term(id, -coef));
      else e = bin('+', 'int', e, term(id, coef));
    }
    if (c !== 0)
      e =
        c < 0 && c !== -0x80000000 ? bin('-', 'int', e as Expr, int(-c)) : bin('+', 'int', e as Expr, int(c));
    const ids = sorted.map(([id]) => id);
    const key = `form:${sorted.map(([id, coef]) => `${id}*${coef}`).join('+')}+${c}`;
    const id = this.node(key, 'int', e as Expr, ids);
    return { expr: v((this.nodes[id] as Node).name, 'int'), ids: [id] };
  }

  private opaque(e: Expr, ty: string, parts: readonly { expr: Expr; ids: number[] }[], key: string): Val {
    const id = this.node(
      key,
      ty,
      e,
      parts.flatMap((p) => p.ids),
      e.kind === 'load',
    );
    return ty === 'int' ? { t: 'int', form: { terms: new Map([[id, 1]]), c: 0 } } : { t: 'node', id };
  }

  // ---- expressions ----

  expr(e: Expr, env: Map<string, Val>, depth: number): Val {
    switch (e.kind) {
      case 'var': {
        const val = env.get(e.name);
        if (val === undefined) throw new NotStraight(`'${e.name}' read before it is assigned`);
        return val;
      }
      case 'intLit':
        return { t: 'int', form: { terms: new Map(), c: e.value | 0 } };
      case 'floatLit':
      case 'boolLit':
        return { t: 'lit', e, ids: [] };
      case 'binary':
        return this.binary(e, env, depth);
      case 'unary': {
        const a = this.expr(e.arg, env, depth);
        if (e.op === '-' && e.ty === 'int' && a.t === 'int') return { t: 'int', form: scale(a.form, -1) };
        const p = this.operand(a, exprType(e.arg));
        if (e.op === '!') return { t: 'lit', e: { ...e, arg: p.expr }, ids: p.ids };
        return this.opaque({ ...e, arg: p.expr }, e.ty, [p], `unary:${e.op}:${e.ty}`);
      }
      case 'load': {
        const arr = env.get(e.array);
        if (arr?.t !== 'array') throw new NotStraight(`'${e.array}' is not a broadcast array`);
        const p = this.operand(this.expr(e.index, env, depth), 'int');
        return this.opaque({ ...e, array: arr.name, index: p.expr }, e.ty, [p], `load:${arr.name}:${e.ty}`);
      }
      case 'call':
        return this.call(e, env, depth);
      case 'cast': {
        const p = this.operand(this.expr(e.arg, env, depth), exprType(e.arg));
        return this.opaque({ ...e, arg: p.expr }, e.ty, [p], `cast:${e.ty}:${e.implicit}`);
      }
      case 'ternary': {
        const parts = [
          this.operand(this.expr(e.cond, env, depth), exprType(e.cond)),
          this.operand(this.expr(e.thenExpr, env, depth), e.ty),
          this.operand(this.expr(e.elseExpr, env, depth), e.ty),
        ] as const;
        const [c, t, f] = parts;
        return this.opaque(
          { ...e, cond: c.expr, thenExpr: t.expr, elseExpr: f.expr },
          e.ty,
          parts,
          `?:${e.ty}`,
        );
      }
      case 'arrayRef':
        throw new NotStraight('an array outside a call');
    }
  }

  private binary(e: Expr & { kind: 'binary' }, env: Map<string, Val>, depth: number): Val {
    const l = this.expr(e.left, env, depth);
    const r = this.expr(e.right, env, depth);
    if (e.ty === 'int' && l.t === 'int' && r.t === 'int') {
      if (e.op === '+') return { t: 'int', form: add(l.form, r.form, 1) };
      if (e.op === '-') return { t: 'int', form: add(l.form, r.form, -1) };
      if (e.op === '*' && r.form.terms.size === 0) return { t: 'int', form: scale(l.form, r.form.c) };
      if (e.op === '*' && l.form.terms.size === 0) return { t: 'int', form: scale(r.form, l.form.c) };
      if (e.op === '%' || e.op === '/') {
        const row = this.row(l.form, r.form);
        if (row) return e.op === '%' ? row.x : row.y;
      }
    }
    const lp = this.operand(l, exprType(e.left));
    const rp = this.operand(r, exprType(e.right));
    // a truth value stays an expression of its operands (a select's condition, not an int node)
    if (TRUTH_OPS.has(e.op))
      return { t: 'lit', e: { ...e, left: lp.expr, right: rp.expr }, ids: [...lp.ids, ...rp.ids] };
    return this.opaque({ ...e, left: lp.expr, right: rp.expr }, e.ty, [lp, rp], `bin:${e.op}:${e.ty}`);
  }

  /**
   * `(k0 + j) % s` and `(k0 + j) / s` as `x + j` and `y` (the group's first column and its row),
   * for the one divisor s of the lambda, the same in every lane (see the header); undefined for
   * any other division. A second divisor is not coarsened.
   */
  private row(dividend: Form, divisor: Form): { x: Val; y: Val } | undefined {
    const lane = dividend.terms.size === 1 && dividend.terms.get(this.k0) === 1;
    if (!lane || dividend.c < 0 || dividend.c >= this.width) return undefined;
    const [atom] = divisor.terms;
    const uniform =
      divisor.terms.size === 0
        ? divisor.c > 0
        : divisor.terms.size === 1 && divisor.c === 0 && atom?.[1] === 1 && this.isScalar(atom[0]);
    if (!uniform) return undefined;
    const expr = this.operand({ t: 'int', form: divisor }, 'int').expr;
    const key = exprKey(expr);
    if (this.divisor && this.divisor.key !== key) throw new NotStraight('two divisors');
    this.divisor ??= {
      expr,
      key,
      x: this.atom(COLUMN, 'int', 'column'),
      y: this.atom(ROW, 'int', 'row'),
    };
    const { x, y } = this.divisor;
    return {
      x: { t: 'int', form: { terms: new Map([[x, 1]]), c: dividend.c } },
      y: { t: 'int', form: { terms: new Map([[y, 1]]), c: 0 } },
    };
  }

  private isScalar(id: number): boolean {
    const n = this.nodes[id] as Node;
    return n.value === undefined && n.name.startsWith('$s');
  }

  private call(e: Expr & { kind: 'call' }, env: Map<string, Val>, depth: number): Val {
    const args = listToArray(e.args);
    if (builtin(e.name)) {
      const parts = args.map((a) => this.operand(this.expr(a, env, depth), exprType(a)));
      return this.opaque(
        { ...e, args: listFromArray(parts.map((p) => p.expr)) },
        e.ty,
        parts,
        `call:${e.name}`,
      );
    }
    const fun = this.funs.get(e.name);
    if (!fun || depth >= MAX_INLINE_DEPTH) throw new NotStraight(`'${e.name}' is not inlined`);
    const inner = new Map<string, Val>();
    listToArray(fun.params).forEach((p, i) => {
      const a = args[i];
      if (!a) throw new NotStraight('an argument missing');
      if (p.isArray) {
        const arr = a.kind === 'arrayRef' ? env.get(a.name) : undefined;
        if (arr?.t !== 'array') throw new NotStraight('an array argument that is not a broadcast array');
        inner.set(p.name, arr);
      } else inner.set(p.name, this.expr(a, env, depth));
    });
    for (const d of listToArray(fun.locals))
      if (d.size.kind === 'some') throw new NotStraight('a local array');
    return this.body(fun.body, inner, depth + 1);
  }

  /** The value a straight-line body returns. */
  private body(c: Cmd, env: Map<string, Val>, depth: number): Val {
    const cmds: Cmd[] = [];
    const stack: Cmd[] = [c];
    while (stack.length > 0) {
      const top = stack.pop() as Cmd;
      if (top.kind === 'seq') stack.push(top.second, top.first);
      else cmds.push(top);
    }
    for (const cmd of cmds) {
      if (cmd.kind === 'skip') continue;
      if (cmd.kind === 'assign') env.set(cmd.name, this.expr(cmd.rhs, env, depth));
      else if (cmd.kind === 'return' && cmd.value.kind === 'some')
        return this.expr(cmd.value.value, env, depth);
      else throw new NotStraight(`a '${cmd.kind}' command`);
    }
    throw new NotStraight('no return');
  }

  /** Lane j of `lam` applied to `actuals`. */
  apply(lam: Lam, actuals: readonly CoarseActual[], j: number): Val {
    const env = new Map<string, Val>();
    listToArray(lam.params).forEach((p, i) => {
      const a = actuals[i];
      if (!a) throw new NotStraight('an argument missing');
      if (a.kind === 'lane') env.set(p.name, this.lane(j));
      else if (a.kind === 'array') env.set(p.name, { t: 'array', name: a.name });
      else if (a.value.kind !== 'var') env.set(p.name, this.expr(a.value, env, 0));
      else {
        const id = this.atom(a.value.name, a.value.ty, `scalar:${a.value.name}`);
        env.set(
          p.name,
          a.value.ty === 'int' ? { t: 'int', form: { terms: new Map([[id, 1]]), c: 0 } } : { t: 'node', id },
        );
      }
    });
    for (const b of listToArray(lam.binds)) env.set(b.name, this.expr(b.rhs, env, 0));
    return this.expr(lam.result, env, 0);
  }

  /** The nodes `roots` reach (ids, ascending). */
  reached(roots: readonly number[]): number[] {
    const seen = new Set<number>();
    const stack = [...roots];
    while (stack.length > 0) {
      const id = stack.pop() as number;
      if (seen.has(id)) continue;
      seen.add(id);
      stack.push(...(this.nodes[id] as Node).operands);
    }
    return [...seen].sort((a, b) => a - b);
  }
}

/** `e`'s structure as a string (its leaves are literals, -0 apart from 0, and node names). */
function exprKey(e: Expr): string {
  return JSON.stringify(e, (k, x) => (k === 'lbl' ? undefined : Object.is(x, -0) ? '-0' : x));
}

function add(a: Form, b: Form, sign: 1 | -1): Form {
  const terms = new Map(a.terms);
  for (const [id, coef] of b.terms) {
    const sum = ((terms.get(id) ?? 0) + sign * coef) | 0;
    if (sum === 0) terms.delete(id);
    else terms.set(id, sum);
  }
  return { terms, c: (a.c + sign * b.c) | 0 };
}

function scale(a: Form, k: number): Form {
  const terms = new Map<number, number>();
  for (const [id, coef] of a.terms) {
    const p = Math.imul(coef, k);
    if (p !== 0) terms.set(id, p);
  }
  return { terms, c: Math.imul(a.c, k) };
}

/**
 * `lam` applied to `actuals`, coarsened `width` elements at a time, or undefined where it does
 * not apply or (mode 'auto') does not pay (see the header). Scalar operands that are variables
 * must be named `$s…` by the caller.
 */
export function coarsenMap(
  lam: Lam,
  actuals: readonly CoarseActual[],
  funs: ReadonlyMap<string, Fun>,
  mode: CoarsenMode = 'auto',
  width = COARSEN_WIDTH,
): Coarsened | undefined {
  if (mode === 'never' || actuals.filter((a) => a.kind === 'lane').length !== 1) return undefined;
  const t = new Table(funs, width);
  const results: Expr[] = [];
  const roots: number[][] = [];
  try {
    for (let j = 0; j < width; j++) {
      const r = t.operand(t.apply(lam, actuals, j), lam.ret);
      results.push(r.expr);
      roots.push(r.ids);
    }
  } catch (e) {
    if (e instanceof NotStraight) return undefined;
    throw e;
  }
  const all = t.reached(roots.flat());
  const loads = (ids: readonly number[]): number => ids.filter((id) => t.nodes[id]?.isLoad).length;
  const group = loads(all);
  const apart = width * loads(t.reached(roots[0] ?? []));
  if (mode === 'auto' && (apart === 0 || group > MAX_LOAD_SHARE * apart)) return undefined;
  const lets = all.flatMap((id) => {
    const n = t.nodes[id] as Node;
    return n.value === undefined ? [] : [{ name: n.name, ty: n.ty, value: n.value }];
  });
  return { width, divisor: t.divisor?.expr, lets, results, loads: { group, apart } };
}

// ---- the shader's loop ---------------------------------------------------------------------------

/** What `coarseLoop` needs of the WGSL emitter (wgsl.ts). */
export interface CoarseWriter {
  /** `e`'s WGSL, and the statements it needs first. */
  value(e: Expr): { readonly wgsl: string; readonly pre: readonly string[] };
  /** A name no other name of the shader has. */
  fresh(base: string): string;
  /** Makes `name` (a `$` name of the plan) stand for the WGSL scalar `wgsl`. */
  bind(name: string, wgsl: string): void;
}

/**
 * The grid-stride loop of a coarsened map over its groups (inside `main`, with `gid`, `stride`
 * and the output `out_0`): each group computes the plan's shared values once and writes the
 * elements that exist. With a divisor s (> 0 where this pass runs), a group is `width` columns of
 * one row of s: ceil(n / s) rows of ceil(s / width) groups.
 */
export function coarseLoop(plan: Coarsened, w: CoarseWriter): string[] {
  const width = plan.width;
  const [g, groups, k0] = [w.fresh('g'), w.fresh('groups'), w.fresh('k0')];
  w.bind(K0, k0);
  const ceil = (a: string, b: string): string => `${a} / ${b} + select(0u, 1u, ${a} % ${b} != 0u)`;
  const head: string[] = [];
  const first: string[] = [];
  const exists: string[] = [];
  if (plan.divisor) {
    const [sz, per, row, column] = [w.fresh('sz'), w.fresh('per'), w.fresh('row'), w.fresh('column')];
    w.bind(ROW, row);
    w.bind(COLUMN, column);
    const s = w.value(plan.divisor);
    head.push(...s.pre, `let ${sz} = u32(${s.wgsl});`, `let ${per} = ${ceil(sz, `${width}u`)};`);
    head.push(`let ${groups} = (${ceil('params.n', sz)}) * ${per};`);
    first.push(
      `let ${row} = i32(${g} / ${per});`,
      `let ${column} = i32(${g} % ${per}) * ${width}i;`,
      `let ${k0} = ${row} * i32(${sz}) + ${column};`,
    );
    for (let j = 0; j < width; j++)
      exists.push(`${column} + ${j}i < i32(${sz}) && u32(${k0} + ${j}i) < params.n`);
  } else {
    head.push(`let ${groups} = ${ceil('params.n', `${width}u`)};`);
    first.push(`let ${k0} = i32(${g} * ${width}u);`);
    for (let j = 0; j < width; j++) exists.push(`${g} * ${width}u + ${j}u < params.n`);
  }
  const body: string[] = [...first];
  for (const l of plan.lets) {
    const value = w.value(l.value);
    const name = w.fresh('c');
    w.bind(l.name, name);
    body.push(...value.pre, `let ${name}: ${wgslType(l.ty)} = ${value.wgsl};`);
  }
  plan.results.forEach((r, j) => {
    const value = w.value(r);
    body.push(...value.pre, `if (${exists[j]}) {`, `  out_0[u32(${k0} + ${j}i)] = ${value.wgsl};`, '}');
  });
  return [
    ...head,
    `for (var ${g} = gid.x; ${g} < ${groups}; ${g} = ${g} + stride) {`,
    ...body.map((l) => `  ${l}`),
    '}',
  ];
}
