/**
 * Liveness patterns (LPs): the domain of the stager's dead-assignment elimination (SCF §4,
 * Figs. 11 and 12).
 *
 *   l ::= 1 | 0 | c(l1 … ln) | {l1|…|ln} | [lk, lv] | set[lk] | {p1|…|pn}
 *
 * A pattern describes which parts of an expression's value may be observed downstream. Read
 * `v' ⊒ₗ v` as "the pruned program may produce v' where the original produced v":
 *
 * - `1`: v' = v.  `0`: anything (the value is dead).
 * - `c(l1 … ln)`: if v = c(v1 … vn) then v' = c(v1' … vn') with vi' ⊒ₗᵢ vi; a value built by
 *   another constructor is not needed at all.
 * - `{l1|…|ln}`: every alternative's requirement holds (the union of the requirements; it
 *   matches the union of the values each li matches — the paper's `meetLP`).
 * - `[lk, lv]` (maps): for every key k matching lk, k ∈ dom v ⟺ k ∈ dom v', and then
 *   v'(k) ⊒ₗᵥ v(k). Keys are primitives, so lk is `1` or a constant pattern.
 * - `set[lk]`: for every element x matching lk, x ∈ v ⟺ x ∈ v' (a set is a map to booleans).
 * - `{p1|…|pn}` with primitives pᵢ (constant patterns): if v is one of the pᵢ then v' = v. They
 *   come from the collecting semantics (`toLivenessPattern`): a map lookup key that only ever
 *   takes the values 44 and 46 needs only the bindings of 44 and 46.
 *
 * Invariants (canonical forms, established by the smart constructors; never build nodes by
 * hand, so structural equality is semantic equality of descriptions):
 * - `0` and `1` are the singletons `DEAD` and `ALL`.
 * - A constant pattern is non-empty, sorted by `comparePrim`, duplicate-free (-0 stored as 0) and
 *   holds at most `LP_CONST_CAP` constants; past the cap it becomes `1`.
 * - A map's key pattern is `1` or constant; `[0, lv]` is `0` (no key is observed, and nothing
 *   inspects a map without a key). Likewise `set[0]` is `0`.
 * - A union has ≥ 2 alternatives, none `0`, `1` or a union; at most one constructor pattern per
 *   constructor, one constant pattern, one map pattern and one set pattern (alternatives of
 *   one shape are joined), sorted by shape.
 *
 * Order: `a ⊑ b` (`leqLP`) when b requires at least what a requires; `0` is the least element,
 * `1` the greatest, `joinLP` the least upper bound. Constant sets are capped and `capLP` cuts
 * patterns deeper (or larger) than a bound to `1`, so with finitely many constructors every ascending
 * chain of capped patterns is finite (the interprocedural fixpoint in `core-dae.ts` relies on it
 * and on widening besides).
 */
import { assertNever } from '../common/index.js';
import {
  type AbsValue,
  alternatives,
  comparePrim,
  finitePrims,
  inhabited,
  type Prim,
  primIn,
} from '../abstract-values/index.js';

export interface LPAll {
  readonly kind: 'all';
}
export interface LPDead {
  readonly kind: 'dead';
}
export interface LPCon {
  readonly kind: 'con';
  readonly ctor: string;
  readonly fields: readonly LP[];
}
export interface LPConsts {
  readonly kind: 'consts';
  readonly values: readonly Prim[];
}
export interface LPMapPattern {
  readonly kind: 'map';
  readonly key: KeyLP;
  readonly value: LP;
}
export interface LPSetPattern {
  readonly kind: 'set';
  readonly elem: KeyLP;
}
export interface LPUnion {
  readonly kind: 'union';
  readonly alts: readonly LPAlt[];
}

/** A liveness pattern. */
export type LP = LPAll | LPDead | LPCon | LPConsts | LPMapPattern | LPSetPattern | LPUnion;
/** What may stand in a union. */
export type LPAlt = LPCon | LPConsts | LPMapPattern | LPSetPattern;
/** What may stand for the keys of a map or the elements of a set. */
export type KeyLP = LPAll | LPConsts;

/** Constant patterns hold at most this many constants; a larger one is `1`. */
export const LP_CONST_CAP = 16;
/** Default depth bound of `capLP` (the fixpoint's patterns are cut there). */
export const LP_DEPTH_CAP = 8;
/** Default size bound (pattern nodes) of `capLP`. */
export const LP_SIZE_CAP = 256;

export const ALL: LPAll = { kind: 'all' };
export const DEAD: LPDead = { kind: 'dead' };

// ---- smart constructors -------------------------------------------------------------------

/** `c(l1 … ln)`. */
export function conLP(ctor: string, fields: readonly LP[]): LPCon {
  return { kind: 'con', ctor, fields };
}

/** `c(0, …, 0)`: only the constructor of the value is observed (what a test `c?` needs). */
export function ctorOnlyLP(ctor: string, arity: number): LPCon {
  return conLP(
    ctor,
    Array.from({ length: arity }, () => DEAD),
  );
}

/** `c(0, …, l, …, 0)` with `l` at field `index`: what a projection `c⁻ᵏ` needs of its argument. */
export function projLP(ctor: string, arity: number, index: number, lp: LP): LPCon {
  return conLP(
    ctor,
    Array.from({ length: arity }, (_, i) => (i === index ? lp : DEAD)),
  );
}

/** The constant pattern `{p1|…|pn}`: `0` when empty, `1` past `LP_CONST_CAP`. */
export function constsLP(values: Iterable<Prim>): LPDead | LPAll | LPConsts {
  const sorted = [...values].map((p) => (p === 0 ? 0 : p)).sort(comparePrim);
  const out: Prim[] = [];
  for (const p of sorted)
    if (out.length === 0 || comparePrim(out[out.length - 1] as Prim, p) !== 0) out.push(p);
  if (out.length === 0) return DEAD;
  if (out.length > LP_CONST_CAP) return ALL;
  return { kind: 'consts', values: out };
}

/** Keys and elements are primitives: anything but `0` or a constant pattern needs them all. */
function keyPart(lp: LP): LPDead | KeyLP {
  if (lp.kind === 'dead' || lp.kind === 'consts') return lp;
  if (lp.kind === 'union') {
    // constructor, map and set alternatives match no primitive
    const c = lp.alts.find((a) => a.kind === 'consts');
    return c ?? DEAD;
  }
  if (lp.kind === 'all') return ALL;
  // a constructor, map or set pattern on a primitive: matches none of them
  return DEAD;
}

/** `[lk, lv]`; `0` when no key is needed. */
export function mapLP(key: LP, value: LP): LPMapPattern | LPDead {
  const k = keyPart(key);
  return k.kind === 'dead' ? DEAD : { kind: 'map', key: k, value };
}

/** `set[lk]`; `0` when no element is needed. */
export function setLP(elem: LP): LPSetPattern | LPDead {
  const k = keyPart(elem);
  return k.kind === 'dead' ? DEAD : { kind: 'set', elem: k };
}

// ---- join and order -----------------------------------------------------------------------

function altsOf(lp: LP): readonly LPAlt[] {
  switch (lp.kind) {
    case 'all':
    case 'dead':
      return [];
    case 'union':
      return lp.alts;
    case 'con':
    case 'consts':
    case 'map':
    case 'set':
      return [lp];
    default:
      return assertNever(lp);
  }
}

/** Sort key of an alternative's shape: at most one alternative per key in a union. */
function shapeKey(a: LPAlt): string {
  switch (a.kind) {
    case 'consts':
      return '0';
    case 'con':
      return `1${a.ctor}`;
    case 'map':
      return '2';
    case 'set':
      return '3';
    default:
      return assertNever(a);
  }
}

function joinKey(a: KeyLP, b: KeyLP): KeyLP {
  if (leqLP(b, a)) return a;
  if (leqLP(a, b)) return b;
  const j = joinLP(a, b);
  return j.kind === 'consts' ? j : ALL;
}

/** Joins two alternatives of the same shape. */
function joinSameShape(a: LPAlt, b: LPAlt): LP {
  switch (a.kind) {
    case 'consts':
      return b.kind === 'consts' ? constsLP([...a.values, ...b.values]) : ALL;
    case 'con': {
      if (b.kind !== 'con' || b.ctor !== a.ctor || b.fields.length !== a.fields.length) return ALL;
      const fields = a.fields.map((f, i) => joinLP(f, b.fields[i] as LP));
      if (fields.every((f, i) => f === a.fields[i])) return a;
      if (fields.every((f, i) => f === b.fields[i])) return b;
      return conLP(a.ctor, fields);
    }
    case 'map':
      return b.kind === 'map'
        ? { kind: 'map', key: joinKey(a.key, b.key), value: joinLP(a.value, b.value) }
        : ALL;
    case 'set':
      return b.kind === 'set' ? { kind: 'set', elem: joinKey(a.elem, b.elem) } : ALL;
    default:
      return assertNever(a);
  }
}

/**
 * The least pattern requiring what both `a` and `b` require (the paper's `meetLP`: it matches
 * the union of the values either matches). Commutative, associative, idempotent; `0` is its
 * unit and `1` absorbs.
 */
export function joinLP(a: LP, b: LP): LP {
  if (a === b || b.kind === 'dead') return a;
  if (a.kind === 'dead') return b;
  if (a.kind === 'all' || b.kind === 'all') return ALL;
  const byShape = new Map<string, LP>();
  for (const x of [...altsOf(a), ...altsOf(b)]) {
    const k = shapeKey(x);
    const prev = byShape.get(k);
    const next = prev === undefined ? x : joinSameShape(prev as LPAlt, x);
    if (next.kind === 'all') return ALL;
    byShape.set(k, next);
  }
  const alts = [...byShape.entries()]
    .sort((x, y) => (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0))
    .map(([, x]) => x as LPAlt);
  if (alts.length === 1) return alts[0] as LPAlt;
  // keep an operand when the join is it, so unchanged patterns stay identical (cheap equality)
  const as = altsOf(a);
  if (as.length === alts.length && alts.every((x, i) => x === as[i])) return a;
  const bs = altsOf(b);
  if (bs.length === alts.length && alts.every((x, i) => x === bs[i])) return b;
  return { kind: 'union', alts };
}

/** Join of any number of patterns (`0` for none). */
export function joinAllLP(lps: Iterable<LP>): LP {
  let out: LP = DEAD;
  for (const l of lps) out = joinLP(out, l);
  return out;
}

/** `a ⊑ b`: every requirement of `a` is one of `b` (`joinLP(a, b)` equals `b`). */
export function leqLP(a: LP, b: LP): boolean {
  if (a === b || a.kind === 'dead' || b.kind === 'all') return true;
  if (a.kind === 'all' || b.kind === 'dead') return false;
  if (a.kind === 'union') return a.alts.every((x) => leqLP(x, b));
  const bs = altsOf(b);
  const k = shapeKey(a);
  const same = bs.find((x) => shapeKey(x) === k);
  if (same === undefined) return false;
  switch (a.kind) {
    case 'consts': {
      const vs = (same as LPConsts).values;
      return a.values.every((p) => vs.some((q) => comparePrim(p, q) === 0));
    }
    case 'con': {
      const s = same as LPCon;
      return s.fields.length === a.fields.length && a.fields.every((f, i) => leqLP(f, s.fields[i] as LP));
    }
    case 'map': {
      const s = same as LPMapPattern;
      return leqLP(a.key, s.key) && leqLP(a.value, s.value);
    }
    case 'set':
      return leqLP(a.elem, (same as LPSetPattern).elem);
    default:
      return assertNever(a);
  }
}

/** Structural equality (semantic, thanks to the canonical forms). */
export function equalLP(a: LP, b: LP): boolean {
  if (a === b) return true;
  if (a.kind !== b.kind) return false;
  switch (a.kind) {
    case 'all':
    case 'dead':
      return true;
    case 'consts': {
      const vs = (b as LPConsts).values;
      return vs.length === a.values.length && a.values.every((p, i) => comparePrim(p, vs[i] as Prim) === 0);
    }
    case 'con': {
      const o = b as LPCon;
      return (
        o.ctor === a.ctor &&
        o.fields.length === a.fields.length &&
        a.fields.every((f, i) => equalLP(f, o.fields[i] as LP))
      );
    }
    case 'map': {
      const o = b as LPMapPattern;
      return equalLP(a.key, o.key) && equalLP(a.value, o.value);
    }
    case 'set':
      return equalLP(a.elem, (b as LPSetPattern).elem);
    case 'union': {
      const o = b as LPUnion;
      return o.alts.length === a.alts.length && a.alts.every((x, i) => equalLP(x, o.alts[i] as LP));
    }
    default:
      return assertNever(a);
  }
}

// ---- depth --------------------------------------------------------------------------------

/** Nesting depth: `0`, `1` and constant patterns have depth 1. */
export function depthLP(lp: LP): number {
  switch (lp.kind) {
    case 'all':
    case 'dead':
    case 'consts':
      return 1;
    case 'con':
      return 1 + Math.max(0, ...lp.fields.map(depthLP));
    case 'map':
      return 1 + Math.max(depthLP(lp.key), depthLP(lp.value));
    case 'set':
      return 1 + depthLP(lp.elem);
    case 'union':
      return Math.max(...lp.alts.map(depthLP));
    default:
      return assertNever(lp);
  }
}

/** Number of pattern nodes (a constant pattern counts one per constant). */
export function sizeLP(lp: LP): number {
  switch (lp.kind) {
    case 'all':
    case 'dead':
      return 1;
    case 'consts':
      return lp.values.length;
    case 'con':
      return lp.fields.reduce((n, f) => n + sizeLP(f), 1);
    case 'map':
      return 1 + sizeLP(lp.key) + sizeLP(lp.value);
    case 'set':
      return 1 + sizeLP(lp.elem);
    case 'union':
      return lp.alts.reduce((n, a) => n + sizeLP(a), 0);
    default:
      return assertNever(lp);
  }
}

/**
 * `lp` with every sub-pattern that would lie deeper than `depth` replaced by `1`, cut shallower
 * still while it has more than `size` nodes (so the result is ⊒ lp, has depth ≤ max(depth, 1)
 * and, unless it is a flat pattern, at most `size` nodes). Bounding depth bounds the ascending
 * chains of the interprocedural fixpoint: `f(x) = c⁻¹(f(x))`-style recursion would otherwise grow
 * its return pattern `c(c(c(…)))` forever. Bounding size keeps patterns over wide recursive
 * types (an AST with several recursive constructors) from growing exponentially with the depth.
 */
export function capLP(lp: LP, depth: number, size = LP_SIZE_CAP): LP {
  const full = depthLP(lp);
  if (full <= depth && sizeLP(lp) <= size) return lp;
  for (let d = Math.min(full, Math.max(1, depth)); ; d--) {
    const out = cut(lp, d);
    if (d <= 1 || sizeLP(out) <= size) return out;
  }
}

function cut(lp: LP, depth: number): LP {
  switch (lp.kind) {
    case 'all':
    case 'dead':
    case 'consts':
      return lp;
    case 'con':
      return depth <= 1
        ? ALL
        : conLP(
            lp.ctor,
            lp.fields.map((f) => cut(f, depth - 1)),
          );
    case 'map':
      return depth <= 1 ? ALL : mapLP(lp.key, cut(lp.value, depth - 1));
    case 'set':
      return depth <= 1 ? ALL : lp;
    case 'union':
      return joinAllLP(lp.alts.map((a) => cut(a, depth)));
    default:
      return assertNever(lp);
  }
}

// ---- views used by the DAE rules ------------------------------------------------------------

/**
 * The pattern of field `index` of values built by `ctor`, given the pattern `lp` of the whole
 * value: `c(l1 … ln)` gives lᵢ; a pattern matching no `ctor` value (another constructor,
 * constants, maps, sets) gives `0`.
 */
export function fieldLP(lp: LP, ctor: string, index: number): LP {
  switch (lp.kind) {
    case 'all':
    case 'dead':
      return lp;
    case 'con':
      return lp.ctor === ctor ? (lp.fields[index] ?? ALL) : DEAD;
    case 'consts':
    case 'map':
    case 'set':
      return DEAD;
    case 'union': {
      const c = lp.alts.find((a) => a.kind === 'con' && a.ctor === ctor);
      return c === undefined ? DEAD : fieldLP(c, ctor, index);
    }
    default:
      return assertNever(lp);
  }
}

/**
 * The map requirement `[lk, lv]` of a non-dead pattern on a map-valued expression. `1` is
 * `[1, 1]`. A pattern with no map alternative only arises where the types are confused; we
 * answer `[1, 1]` there rather than trust it.
 */
export function asMapLP(lp: LP): LPMapPattern {
  if (lp.kind === 'map') return lp;
  if (lp.kind === 'union') {
    const m = lp.alts.find((a) => a.kind === 'map');
    if (m !== undefined) return m as LPMapPattern;
  }
  return { kind: 'map', key: ALL, value: ALL };
}

/** The set requirement `set[lk]` of a non-dead pattern on a set-valued expression (cf. `asMapLP`). */
export function asSetLP(lp: LP): LPSetPattern {
  if (lp.kind === 'set') return lp;
  if (lp.kind === 'union') {
    const s = lp.alts.find((a) => a.kind === 'set');
    if (s !== undefined) return s as LPSetPattern;
  }
  return { kind: 'set', elem: ALL };
}

// ---- links to the collecting semantics (Fig. 12) ---------------------------------------------

/**
 * Fig. 12's `toLivenessPattern`: a pattern matching every member of `v`. A finite set of at most
 * `LP_CONST_CAP` primitives gives a constant pattern, the empty set `0`, anything else (and an
 * unknown value, `undefined`) `1`.
 */
export function toLivenessPattern(v: AbsValue | undefined): LP {
  if (v === undefined) return ALL;
  if (!inhabited(v)) return DEAD;
  const ps = finitePrims(v, LP_CONST_CAP);
  return ps === undefined ? ALL : constsLP(ps);
}

/**
 * The pattern a constructor test `c? e` puts on `e`: `{c1(0…0)|…|cn(0…0)}` over the
 * constructors `v` (the collecting semantics of `e`) may build — every one is needed, so the
 * test's outcome is kept — or `1` when `v` is unknown or may hold something else.
 */
export function constructorsLP(v: AbsValue | undefined): LP {
  if (v === undefined) return ALL;
  let out: LP = DEAD;
  for (const a of alternatives(v)) {
    if (a.kind !== 'con') return ALL;
    out = joinLP(out, ctorOnlyLP(a.ctor, a.args.length));
  }
  return out;
}

/**
 * Fig. 12's `mustBeDisjoint`: true only when no member of `v` can match `lp`, i.e. when an
 * update keyed by a member of `v` cannot touch what `lp` observes. Conservative: false when
 * unsure (unknown `v`, `1` on a non-empty `v`, free recursion variables). `0` is disjoint from
 * everything.
 */
export function mustBeDisjoint(lp: LP, v: AbsValue | undefined): boolean {
  if (lp.kind === 'dead') return true;
  if (v === undefined) return false;
  switch (lp.kind) {
    case 'all':
      return !inhabited(v);
    case 'consts':
      return !lp.values.some((p) => primIn(p, v));
    case 'con':
    case 'map':
    case 'set':
    case 'union':
      return alternatives(v).every((a) => !mayMatchShape(lp, a));
    default:
      return assertNever(lp);
  }
}

/** Whether some member of the (non-union, non-fix) abstract value `a` may match `lp`. */
function mayMatchShape(lp: LPAlt | LPUnion, a: AbsValue): boolean {
  if (lp.kind === 'union') return lp.alts.some((x) => mayMatchShape(x, a));
  switch (a.kind) {
    case 'bottom':
      return false;
    case 'top':
    case 'fix':
    case 'rec':
      return true;
    case 'consts':
    case 'base':
      return lp.kind === 'consts' && lp.values.some((p) => primIn(p, a));
    case 'con':
      return lp.kind === 'con' && lp.ctor === a.ctor;
    case 'map':
      return lp.kind === 'map';
    case 'set':
      return lp.kind === 'set';
    case 'union':
      return a.alts.some((x) => mayMatchShape(lp, x));
    default:
      return assertNever(a);
  }
}

// ---- printing -----------------------------------------------------------------------------

function printPrimLP(p: Prim): string {
  return typeof p === 'string' ? JSON.stringify(p) : String(p);
}

/** The lattice's top and bottom as the paper writes them. */
const EXTREMES = { all: '1', dead: '0' } as const;

/**
 * The paper's notation: `1`, `0`, `c(l1, …)` (a nullary `c` prints bare, a tuple `(l1, …)`),
 * `{l1|l2}`, constants `{44|46}`, `[lk, lv]`, and `set[lk]` for sets.
 */
export function printLP(lp: LP): string {
  switch (lp.kind) {
    case 'all':
    case 'dead':
      return EXTREMES[lp.kind];
    case 'consts':
      return `{${lp.values.map(printPrimLP).join('|')}}`;
    case 'con': {
      const fs = lp.fields.map(printLP).join(', ');
      if (lp.ctor.startsWith('#')) return `(${fs})`;
      return lp.fields.length === 0 ? lp.ctor : `${lp.ctor}(${fs})`;
    }
    case 'map':
      return `[${printLP(lp.key)}, ${printLP(lp.value)}]`;
    case 'set':
      return `set[${printLP(lp.elem)}]`;
    case 'union':
      return `{${lp.alts.map((a) => (a.kind === 'consts' ? a.values.map(printPrimLP).join('|') : printLP(a))).join('|')}}`;
    default:
      return assertNever(lp);
  }
}
