/**
 * Core SCF: the small first-order language every optimizer is desugared to (SCF Fig. 9).
 *
 *   P ::= g1 … gn                     programs: function definitions
 *   g ::= f(x1 … xn) = e
 *   e ::= x | lit | c(e1 … en) | c? e | c⁻ᵏ e | if e1 e2 e3 | let x = e1 in e2 | f(e…) | p(e…)
 *
 * Constructors are identified by their `kind` tag; tuples are constructors named `#n`
 * (the paper simulates untagged tuples with tagged ones). Literals stand for the paper's
 * 0-ary constructors (integers, booleans) plus strings.
 *
 * Invariants
 * - Trees are immutable: passes build new ones (every field is readonly).
 * - Every expression has a `label`, unique within a program; later stages key the collecting
 *   semantics `cs` and liveness facts by it.
 * - Every expression has a `span` into the SCF-lang source it came from, for diagnostics and
 *   runtime errors.
 * - Children are enumerated in exactly one place (`children` / `mapChildren` below).
 */
import { assertNever, type SourceSpan } from '../common/index.js';
import type { PrimOp } from './prims.js';
import type { Value } from './values.js';

export type Label = number;

/** Where a Core node came from: a half-open range of UTF-16 offsets in a file (common's). */
export type Span = SourceSpan;

interface Node {
  readonly label: Label;
  readonly span: Span;
}

export interface Var extends Node {
  readonly kind: 'var';
  readonly name: string;
}
/**
 * A constant. The front end only produces primitives (the paper's 0-ary constructors); the
 * partial evaluator also folds whole known values (constructor trees, maps) into one `lit`, which
 * the interpreter returns as is and emitted code hoists to a module-level constant.
 */
export interface Lit extends Node {
  readonly kind: 'lit';
  readonly value: Value;
}
/** Constructor application `c(e1 … en)`. */
export interface Con extends Node {
  readonly kind: 'con';
  readonly ctor: string;
  readonly args: readonly Expr[];
}
/** Constructor test `c? e`: true iff the value of `e` was built by `c`. */
export interface Test extends Node {
  readonly kind: 'test';
  readonly ctor: string;
  readonly arg: Expr;
}
/** Projection `c⁻ᵏ e`: field `index` (0-based) of a value built by `c`; an error on any other value. */
export interface Proj extends Node {
  readonly kind: 'proj';
  readonly ctor: string;
  readonly index: number;
  readonly arg: Expr;
}
export interface If extends Node {
  readonly kind: 'if';
  readonly cond: Expr;
  readonly then: Expr;
  readonly else: Expr;
}
export interface Let extends Node {
  readonly kind: 'let';
  readonly name: string;
  readonly value: Expr;
  readonly body: Expr;
}
export interface Call extends Node {
  readonly kind: 'call';
  readonly fn: string;
  readonly args: readonly Expr[];
}
export interface Prim extends Node {
  readonly kind: 'prim';
  readonly op: PrimOp;
  readonly args: readonly Expr[];
}

export type Expr = Var | Lit | Con | Test | Proj | If | Let | Call | Prim;
export type ExprKind = Expr['kind'];

export interface FunDef {
  /** Unique program-wide: `module.name`. */
  readonly name: string;
  readonly params: readonly string[];
  readonly body: Expr;
  readonly span: Span;
  readonly exported: boolean;
}

/** How values of a constructor look natively: an object `{ kind, ...fields }`, or an array (tuples). */
export type CtorRepr = 'object' | 'tuple';

export interface CtorDecl {
  readonly name: string;
  readonly fields: readonly string[];
  readonly repr: CtorRepr;
}

export interface Program {
  readonly funs: ReadonlyMap<string, FunDef>;
  readonly ctors: ReadonlyMap<string, CtorDecl>;
  /** Source texts by file name, for printing spans. */
  readonly sources: ReadonlyMap<string, string>;
}

export function tupleCtorName(n: number): string {
  return `#${n}`;
}

export function tupleCtor(n: number): CtorDecl {
  return { name: tupleCtorName(n), fields: Array.from({ length: n }, (_, i) => String(i)), repr: 'tuple' };
}

export { assertNever };

// ---- children, defined once ---------------------------------------------------------------

/** The direct subexpressions of `e`, in evaluation order. */
export function children(e: Expr): readonly Expr[] {
  switch (e.kind) {
    case 'var':
    case 'lit':
      return [];
    case 'con':
    case 'call':
    case 'prim':
      return e.args;
    case 'test':
    case 'proj':
      return [e.arg];
    case 'if':
      return [e.cond, e.then, e.else];
    case 'let':
      return [e.value, e.body];
    default:
      return assertNever(e);
  }
}

/** A copy of `e` with each direct child replaced by `f(child)`; `e` itself when nothing changed. */
export function mapChildren(e: Expr, f: (child: Expr) => Expr): Expr {
  switch (e.kind) {
    case 'var':
    case 'lit':
      return e;
    case 'con':
    case 'call':
    case 'prim': {
      const args = mapArray(e.args, f);
      return args === e.args ? e : { ...e, args };
    }
    case 'test':
    case 'proj': {
      const arg = f(e.arg);
      return arg === e.arg ? e : { ...e, arg };
    }
    case 'if': {
      const cond = f(e.cond);
      const then = f(e.then);
      const els = f(e.else);
      return cond === e.cond && then === e.then && els === e.else ? e : { ...e, cond, then, else: els };
    }
    case 'let': {
      const value = f(e.value);
      const body = f(e.body);
      return value === e.value && body === e.body ? e : { ...e, value, body };
    }
    default:
      return assertNever(e);
  }
}

function mapArray(xs: readonly Expr[], f: (x: Expr) => Expr): readonly Expr[] {
  let out: Expr[] | undefined;
  for (let i = 0; i < xs.length; i++) {
    const x = xs[i] as Expr;
    const y = f(x);
    if (y !== x && out === undefined) out = xs.slice(0, i);
    if (out !== undefined) out.push(y);
  }
  return out ?? xs;
}

/** Pre-order walk over `e` and all its subexpressions. */
export function forEachExpr(e: Expr, visit: (e: Expr) => void): void {
  const stack: Expr[] = [e];
  while (stack.length > 0) {
    const x = stack.pop() as Expr;
    visit(x);
    const cs = children(x);
    for (let i = cs.length - 1; i >= 0; i--) stack.push(cs[i] as Expr);
  }
}

/** Number of Core nodes in a program: the size measure of later benchmarks. */
export function programSize(p: Program): number {
  let n = 0;
  for (const f of p.funs.values()) forEachExpr(f.body, () => n++);
  return n;
}
