/**
 * Abstract operations: constructor test `c?`, projection `c⁻ᵏ`, tag-aware equality, and an
 * abstract version of every Core primitive (`ABS_PRIMS`, keyed like `PRIMS`). SCF §3.2–3.3.
 *
 * Soundness: for every primitive p and abstract arguments a⃗, γ(p#(a⃗)) ⊇ { p(t⃗) | t⃗ ∈ γ(a⃗) }
 * where the t⃗ respect identity tags (arguments with one tag are one value). Strategy:
 * 1. Exact: when every argument is a small finite set of primitives, run the concrete
 *    primitive on every combination (diagonal only for arguments sharing a tag) and collect.
 * 2. Otherwise a per-primitive rule: result-type bounds for arithmetic ('Int for bit operations
 *    and `imul`, 'Float otherwise; `add` and `concat` give `1` unless both sides are numbers /
 *    strings), tags and disjointness for comparisons, and the must/may bookkeeping of §3.3.2 for
 *    maps and sets: a must key is exact, so `map_find(map_insert(m, 1, 7), 1)` is `some(7)`.
 * Map and set primitives are abstracted for well-typed arguments, as SCF-lang's checker
 * guarantees: a member of an argument that is not a map (set) is one on which the concrete
 * primitive fails, and contributes no result; `1` there stands for "any map" ("any set").
 *
 * Tags: results are built fresh, except values extracted unchanged (projection of a single
 * alternative, `map_find` of a must key, `some(v)` of an inserted value), which keep theirs.
 */
import { type PrimOp, PRIMS } from '../scf-lang/index.js';
import { disjoint, leq } from './abstract-lattice.js';
import { boolsOf, finitePrims, fromConcrete, mustIndex, primIn, tupleArity } from './member.js';
import {
  type AbsMap,
  type AbsSet,
  type AbsValue,
  absMap,
  absSet,
  anyBool,
  base,
  bottom,
  con,
  constant,
  consts,
  fix,
  freshTag,
  type MapBinding,
  type MayBinding,
  type Prim,
  normPrim,
  primIndex,
  rec,
  samePrim,
  top,
  union,
  unfold,
} from './value.js';

export type AbsPrim = (...args: AbsValue[]) => AbsValue;

/** Largest number of argument combinations evaluated exactly. */
export const EXACT_LIMIT = 256;

const TRUE = () => constant(true);
const FALSE = () => constant(false);

// ---- helpers ------------------------------------------------------------------------------

/** Members of `v` after unfolding top-level fixes: its alternatives. */
export function alternatives(v: AbsValue): readonly AbsValue[] {
  if (v.kind === 'fix') return alternatives(unfold(v));
  if (v.kind === 'union') return v.alts.flatMap((a) => (a.kind === 'fix' ? alternatives(a) : [a]));
  if (v.kind === 'bottom') return [];
  return [v];
}

function isNumeric(v: AbsValue): boolean {
  return leq(v, base('Float'));
}
function isString(v: AbsValue): boolean {
  return leq(v, base('Str'));
}
function isPrimSet(v: AbsValue): boolean {
  return alternatives(v).every((a) => a.kind === 'consts' || a.kind === 'base');
}
function mayBeNaN(v: AbsValue): boolean {
  return alternatives(v).some(
    (a) =>
      a.kind === 'top' ||
      (a.kind === 'base' && a.base === 'Float') ||
      (a.kind === 'consts' && a.values.some((p) => Number.isNaN(p))),
  );
}

/** The single primitive of `v`, if it has exactly one member that is a primitive. */
function onePrim(v: AbsValue): Prim | undefined {
  return v.kind === 'consts' && v.values.length === 1 ? v.values[0] : undefined;
}

/**
 * Runs the concrete primitive on every combination of the arguments' members when they are
 * all small finite sets of primitives; `undefined` otherwise.
 */
function exact(op: PrimOp, args: readonly AbsValue[]): AbsValue | undefined {
  const sets: (readonly Prim[])[] = [];
  let n = 1;
  for (const a of args) {
    const ps = finitePrims(a);
    if (ps === undefined) return undefined;
    n *= ps.length;
    if (n > EXACT_LIMIT) return undefined;
    sets.push(ps);
  }
  // arguments sharing a tag take the same member: enumerate one index per distinct tag
  const firstOfTag = args.map((a) => args.findIndex((b) => b.tag === a.tag));
  const impl = PRIMS[op].impl as (...xs: unknown[]) => unknown;
  const results: AbsValue[] = [];
  const pick: Prim[] = [];
  const go = (i: number): void => {
    if (i === args.length) {
      let r: unknown;
      try {
        r = impl(...pick);
      } catch {
        return;
      }
      results.push(fromConcrete(r));
      return;
    }
    const j = firstOfTag[i] as number;
    if (j < i) {
      pick[i] = pick[j] as Prim;
      go(i + 1);
      return;
    }
    for (const p of sets[i] as readonly Prim[]) {
      pick[i] = p;
      go(i + 1);
    }
  };
  go(0);
  return union(results);
}

function some(v: AbsValue): AbsValue {
  return con('some', [v]);
}
function none(): AbsValue {
  return con('none', []);
}

/** The map alternatives of `v` (`1` read as any map); other members contribute nothing. */
function mapsOf(v: AbsValue): AbsMap[] {
  const out: AbsMap[] = [];
  for (const a of alternatives(v)) {
    if (a.kind === 'map') out.push(a);
    else if (a.kind === 'top') out.push(absMap([], [[top(), top()]]) as AbsMap);
  }
  return out;
}
function setsOf(v: AbsValue): AbsSet[] {
  const out: AbsSet[] = [];
  for (const a of alternatives(v)) {
    if (a.kind === 'set') out.push(a);
    else if (a.kind === 'top') out.push(absSet([], top()));
  }
  return out;
}

function overMaps(m: AbsValue, f: (x: AbsMap) => AbsValue): AbsValue {
  return union(mapsOf(m).map(f));
}
function overSets(s: AbsValue, f: (x: AbsSet) => AbsValue): AbsValue {
  return union(setsOf(s).map(f));
}

/** Primitives of `k` when it is a small finite set of them. */
function keyChoices(k: AbsValue): readonly Prim[] | undefined {
  return finitePrims(k, 16);
}

// ---- constructor test and projection --------------------------------------------------------

function isCtor(a: AbsValue, ctor: string, arity?: number): boolean {
  return a.kind === 'con' && a.ctor === ctor && (arity === undefined || a.args.length === arity);
}

/** `c? v`: {true}, {false} or {true, false} (`0` for `0`). */
export function testCtor(ctor: string, v: AbsValue, arity?: number): AbsValue {
  let canT = false;
  let canF = false;
  for (const a of alternatives(v)) {
    if (a.kind === 'top') canT = canF = true;
    else if (isCtor(a, ctor, arity)) canT = true;
    else canF = true;
  }
  return boolsOf(canT, canF);
}

/** `v` narrowed to the members built (outcome true) or not built (false) by `ctor`. */
export function refineCtor(v: AbsValue, ctor: string, outcome: boolean, arity?: number): AbsValue {
  const alts = alternatives(v).filter((a) => a.kind === 'top' || isCtor(a, ctor, arity) === outcome);
  if (alts.length === 1 && alts[0] === v) return v;
  return union(alts, v.tag);
}

/**
 * `v` narrowed by the knowledge that `c⁻ᵏ v` (a boolean field) evaluated to `outcome`: members
 * not built by `ctor` are dropped (the projection fails on them), and so are those whose field
 * cannot be `outcome`; a field that may be either becomes `outcome` (the member keeps its tag: it
 * is the same value, known better). What is not a finite set of constants is kept as it is.
 */
export function refineField(v: AbsValue, ctor: string, index: number, outcome: boolean): AbsValue {
  return refineFieldBy(v, ctor, index, (p) => typeof p !== 'boolean' || p === outcome);
}

/**
 * `v` narrowed by the knowledge that `c⁻ᵏ v` is (outcome true) or is not (false) the string `s`
 * (`e.op === '+'`), as `refineField` narrows on a boolean field.
 */
export function refineFieldIs(
  v: AbsValue,
  ctor: string,
  index: number,
  s: string,
  outcome: boolean,
): AbsValue {
  return refineFieldBy(v, ctor, index, (p) => typeof p !== 'string' || (p === s) === outcome);
}

/** Members of `v` built by `ctor` whose field `index` has a constant `keep` admits. */
function refineFieldBy(v: AbsValue, ctor: string, index: number, keep: (p: Prim) => boolean): AbsValue {
  let changed = false;
  const alts: AbsValue[] = [];
  for (const a of alternatives(v)) {
    if (a.kind === 'top') {
      alts.push(a);
      continue;
    }
    const f = a.kind === 'con' && a.ctor === ctor ? a.args[index] : undefined;
    if (a.kind !== 'con' || f === undefined) {
      changed = true;
      continue;
    }
    const fs = alternatives(f);
    const kept = fs.flatMap((x): AbsValue[] => {
      if (x.kind !== 'consts') return [x];
      const vs = x.values.filter(keep);
      if (vs.length === x.values.length) return [x];
      return vs.length === 0 ? [] : [consts(vs, x.tag)];
    });
    if (kept.length === 0) {
      changed = true;
      continue;
    }
    if (kept.length === fs.length && kept.every((x, j) => x === fs[j])) {
      alts.push(a);
      continue;
    }
    changed = true;
    const args = a.args.slice();
    args[index] = kept.length === 1 ? (kept[0] as AbsValue) : union(kept, f.tag);
    alts.push(con(a.ctor, args, a.tag));
  }
  if (!changed) return v;
  return union(alts, v.tag);
}

/**
 * `c⁻ᵏ v`: field `index` of the members built by `ctor` (members built otherwise are the ones
 * on which projection fails). A single such alternative yields its argument with its own tag.
 */
export function project(ctor: string, index: number, v: AbsValue): AbsValue {
  const parts: AbsValue[] = [];
  for (const a of alternatives(v)) {
    if (a.kind === 'top') parts.push(top());
    else if (a.kind === 'con' && a.ctor === ctor) {
      const x = a.args[index];
      if (x !== undefined) parts.push(x);
    }
  }
  if (parts.length === 1) return parts[0] as AbsValue;
  return union(
    parts,
    parts.length > 0 && parts.every((p) => p.tag === (parts[0] as AbsValue).tag)
      ? (parts[0] as AbsValue).tag
      : freshTag(),
  );
}

// ---- equality -------------------------------------------------------------------------------

/**
 * Tag-aware structural equality (SCF `=`, Core `equal`): {true} when both sides carry one tag
 * (the identity tag invariant: `1#i = 1#i` is {true}), exact on small finite sets, {false}
 * when the sets are disjoint or built differently, argument-wise for constructors, and on maps
 * when a certain key of one cannot be a key of the other.
 */
export function absEqual(a: AbsValue, b: AbsValue): AbsValue {
  const [t, f] = eqPossible(a, b);
  return boolsOf(t, f);
}

function eqPossible(a: AbsValue, b: AbsValue): [canTrue: boolean, canFalse: boolean] {
  if (a.kind === 'bottom' || b.kind === 'bottom') return [false, false];
  if (a.tag === b.tag) return [true, false];
  const pa = finitePrims(a, 16);
  const pb = finitePrims(b, 16);
  if (pa !== undefined && pb !== undefined) {
    let t = false;
    let f = false;
    for (const x of pa)
      for (const y of pb)
        if (samePrim(x, y)) t = true;
        else f = true;
    return [t, f];
  }
  if (disjoint(a, b)) return [false, true];
  if (a.kind === 'con' && b.kind === 'con') {
    if (a.ctor !== b.ctor || a.args.length !== b.args.length) return [false, true];
    let t = true;
    let f = false;
    for (let i = 0; i < a.args.length; i++) {
      const [ti, fi] = eqPossible(a.args[i] as AbsValue, b.args[i] as AbsValue);
      if (!ti) return [false, true];
      if (fi) f = true;
      t = t && ti;
    }
    return [t, f];
  }
  if (a.kind === 'map' && b.kind === 'map') {
    if (!keysCompatible(a, b) || !keysCompatible(b, a)) return [false, true];
    if (a.may.length === 0 && b.may.length === 0 && a.must.length === b.must.length) {
      let f = false;
      for (let i = 0; i < a.must.length; i++) {
        const [ti, fi] = eqPossible((a.must[i] as MapBinding)[1], (b.must[i] as MapBinding)[1]);
        if (!ti) return [false, true];
        if (fi) f = true;
      }
      return [true, f];
    }
  }
  return [true, true];
}

/** Every certain key of `a` can be a key of `b`. */
function keysCompatible(a: AbsMap, b: AbsMap): boolean {
  return a.must.every(([k]) => mustIndex(b.must, k) >= 0 || b.may.some(([kb]) => primIn(k, kb)));
}

/** Core `eq` (`===` on primitives): tags and disjointness, else both. */
function absEq(a: AbsValue, b: AbsValue): AbsValue {
  const ex = exact('eq', [a, b]);
  if (ex !== undefined) return ex;
  if (a.tag === b.tag && isPrimSet(a) && !mayBeNaN(a)) return TRUE();
  if (disjoint(a, b)) return FALSE();
  return anyBool();
}

function negate(v: AbsValue): AbsValue {
  if (v.kind !== 'consts') return v;
  return consts(v.values.map((p) => (typeof p === 'boolean' ? !p : p)));
}

/** Orderings: exact on finite sets; `x < x` is false and `x <= x` true for one tag (no NaN). */
function ordering(op: 'lt' | 'le' | 'gt' | 'ge'): AbsPrim {
  return (a, b) => {
    const ex = exact(op, [a, b]);
    if (ex !== undefined) return ex;
    if (a.tag === b.tag && (isNumeric(a) || isString(a)) && !mayBeNaN(a)) {
      return constant(op === 'le' || op === 'ge');
    }
    return anyBool();
  };
}

// ---- the table ------------------------------------------------------------------------------

/** Exact when possible, else `fallback`. */
function withExact(op: PrimOp, fallback: AbsPrim): AbsPrim {
  return (...args) => {
    for (const a of args) if (a.kind === 'bottom') return bottom();
    return exact(op, args) ?? fallback(...args);
  };
}

const float = () => base('Float');
const int = () => base('Int');

function numeric(op: PrimOp, ifInts?: (...xs: AbsValue[]) => AbsValue): AbsPrim {
  return withExact(op, (...xs) => {
    if (ifInts !== undefined && xs.every((x) => leq(x, base('Int')))) return ifInts(...xs);
    return float();
  });
}

/**
 * `tuple_with(t, i, x)`: each tuple alternative of `t` with element `i` replaced by `x`, when `i`
 * is one known index within every alternative's arity; `1` otherwise (sound: the concrete
 * primitive only ever sees a tuple and an index the partial evaluator emitted it for).
 */
function tupleWithAbs(t: AbsValue, i: AbsValue, x: AbsValue): AbsValue {
  const k = finitePrims(i, 1)?.[0];
  if (typeof k !== 'number' || !Number.isInteger(k) || k < 0) return top();
  const out: AbsValue[] = [];
  for (const a of t.kind === 'union' ? t.alts : [t]) {
    if (a.kind === 'bottom') continue;
    const n = a.kind === 'con' ? tupleArity(a.ctor) : undefined;
    if (a.kind !== 'con' || n === undefined || k >= n) return top();
    out.push(
      con(
        a.ctor,
        a.args.map((y, j) => (j === k ? x : y)),
      ),
    );
  }
  return union(out);
}

export const ABS_PRIMS: { readonly [K in PrimOp]: AbsPrim } = {
  add: withExact('add', (a, b) => (isNumeric(a) && isNumeric(b) ? float() : top())),
  sub: numeric('sub'),
  mul: numeric('mul'),
  div: numeric('div'),
  mod: numeric('mod'),
  neg: numeric('neg'),
  bitand: withExact('bitand', int),
  bitor: withExact('bitor', int),
  bitxor: withExact('bitxor', int),
  bitnot: withExact('bitnot', int),
  shl: withExact('shl', int),
  shr: withExact('shr', int),
  ushr: withExact('ushr', float),
  imul: withExact('imul', int),
  fround: numeric('fround'),
  trunc: numeric('trunc', int),
  floor: numeric('floor', int),
  sqrt: numeric('sqrt'),
  abs: numeric('abs'),
  min: numeric('min', int),
  max: numeric('max', int),
  cmath: withExact('cmath', (name, x, y) =>
    isString(name) && isNumeric(x) && isNumeric(y) ? float() : top(),
  ),
  eq: (a, b) => absEq(a, b),
  ne: (a, b) => negate(absEq(a, b)),
  lt: ordering('lt'),
  le: ordering('le'),
  gt: ordering('gt'),
  ge: ordering('ge'),
  not: withExact('not', () => anyBool()),
  concat: withExact('concat', (a, b) => (isString(a) && isString(b) ? base('Str') : top())),
  num_to_string: withExact('num_to_string', () => base('Str')),
  str_length: withExact('str_length', (s) => (isString(s) ? int() : top())),
  // NaN outside the string: a Float, not an Int
  char_code_at: withExact('char_code_at', (s, i) => (isString(s) && isNumeric(i) ? float() : top())),
  char_at: withExact('char_at', (s, i) => (isString(s) && isNumeric(i) ? base('Str') : top())),
  substring: withExact('substring', (s, a, b) =>
    isString(s) && isNumeric(a) && isNumeric(b) ? base('Str') : top(),
  ),
  equal: (a, b) => absEqual(a, b),
  tuple_with: (t, i, x) => tupleWithAbs(t, i, x),

  // maps (§3.3.2)
  map_empty: () => absMap([], []),
  map_insert: (m, k, v) => overMaps(m, (x) => mapInsert(x, k, v)),
  map_find: (m, k) => overMaps(m, (x) => mapFind(x, k)),
  map_delete: (m, k) => overMaps(m, (x) => mapDelete(x, k)),
  map_has: (m, k) => overMaps(m, (x) => mapHas(x, k)),
  map_size: (m) => overMaps(m, (x) => (x.may.length === 0 ? constant(x.must.length) : int())),
  map_keys: (m) =>
    overMaps(m, (x) =>
      absSet(
        x.must.map(([k]) => k),
        union(x.may.map(([k]) => k)),
      ),
    ),

  // sets: must = certainly present, may = what else may be
  set_empty: () => absSet([], bottom()),
  set_singleton: (x) => {
    const ps = keyChoices(x);
    if (ps !== undefined) return union(ps.map((p) => absSet([p], bottom())));
    return absSet([], x);
  },
  set_add: (s, x) =>
    overSets(s, (a) => {
      const p = onePrim(x);
      return p !== undefined ? absSet([...a.must, p], a.may) : absSet(a.must, union([a.may, x]));
    }),
  set_delete: (s, x) =>
    overSets(s, (a) => {
      const p = onePrim(x);
      if (p !== undefined)
        return absSet(
          a.must.filter((q) => !samePrim(q, p)),
          a.may,
        );
      const gone = a.must.filter((q) => primIn(q, x));
      return absSet(
        a.must.filter((q) => !primIn(q, x)),
        union([a.may, consts(gone)]),
      );
    }),
  set_has: (s, x) => overSets(s, (a) => setHas(a, x)),
  set_union: (s, t) =>
    overSets(s, (a) => overSets(t, (b) => absSet([...a.must, ...b.must], union([a.may, b.may])))),
  set_intersect: (s, t) =>
    overSets(s, (a) =>
      overSets(t, (b) => {
        const must = a.must.filter((p) => primIndex(b.must, p) >= 0);
        const maybe = [...a.must, ...b.must].filter((p) => primIndex(must, p) < 0);
        return absSet(must, union([a.may, b.may, consts(maybe)]));
      }),
    ),
  set_diff: (s, t) =>
    overSets(s, (a) =>
      overSets(t, (b) => {
        const must = a.must.filter((p) => primIndex(b.must, p) < 0 && !primIn(p, b.may));
        const maybe = a.must.filter((p) => primIndex(b.must, p) < 0 && primIn(p, b.may));
        return absSet(must, union([a.may, consts(maybe)]));
      }),
    ),
  set_size: (s) => overSets(s, (a) => (a.may.kind === 'bottom' ? constant(a.must.length) : int())),
  set_subset: (s, t) =>
    overSets(s, (a) =>
      overSets(t, (b) => {
        const canT = a.must.every((p) => primIndex(b.must, p) >= 0 || primIn(p, b.may));
        const canF = !(a.may.kind === 'bottom' && a.must.every((p) => primIndex(b.must, p) >= 0));
        return boolsOf(canT, canF);
      }),
    ),
  set_to_list: (s) =>
    overSets(s, (a) => {
      if (a.may.kind === 'bottom') {
        let out: AbsValue = con('nil', []);
        for (let i = a.must.length - 1; i >= 0; i--) out = con('cons', [constant(a.must[i] as Prim), out]);
        return out;
      }
      const elem = union([consts(a.must), a.may]);
      return fix(union([con('cons', [elem, rec(0)]), con('nil', [])]));
    }),
};

function mapInsert(m: AbsMap, k: AbsValue, v: AbsValue): AbsValue {
  const p = onePrim(k);
  if (p !== undefined) {
    const i = mustIndex(m.must, p);
    const must: MapBinding[] = [...m.must];
    if (i >= 0) must[i] = [p, v];
    else must.push([p, v]);
    return absMap(must, m.may);
  }
  const must = m.must.map(([c, x]): MapBinding => (primIn(c, k) ? [c, union([x, v])] : [c, x]));
  return absMap(must, [...m.may, [k, v]]);
}

function mapFind(m: AbsMap, k: AbsValue): AbsValue {
  const p = onePrim(k);
  if (p !== undefined) {
    const i = mustIndex(m.must, p);
    if (i >= 0) return some((m.must[i] as MapBinding)[1]);
    const vals = m.may.filter(([kk]) => primIn(p, kk)).map(([, x]) => x);
    return vals.length === 0 ? none() : union([none(), some(union(vals))]);
  }
  const out: AbsValue[] = [];
  for (const [c, x] of m.must) if (primIn(c, k)) out.push(some(x));
  if (!allInMust(m, k)) {
    const vals = m.may.filter(([kk]) => !disjoint(kk, k)).map(([, x]) => x);
    out.push(none());
    if (vals.length > 0) out.push(some(union(vals)));
  }
  return union(out);
}

/** Whether every member of key set `k` is a certain key of `m`. */
function allInMust(m: AbsMap, k: AbsValue): boolean {
  const ps = finitePrims(k);
  return ps?.every((p) => mustIndex(m.must, p) >= 0) === true;
}

function mapDelete(m: AbsMap, k: AbsValue): AbsValue {
  const p = onePrim(k);
  if (p !== undefined) {
    return absMap(
      m.must.filter(([c]) => !samePrim(c, p)),
      m.may,
    );
  }
  const may: MayBinding[] = [...m.may];
  const must: MapBinding[] = [];
  for (const [c, x] of m.must) {
    if (primIn(c, k)) may.push([constant(c), x]);
    else must.push([c, x]);
  }
  return absMap(must, may);
}

function mapHas(m: AbsMap, k: AbsValue): AbsValue {
  const canT = m.must.some(([c]) => primIn(c, k)) || m.may.some(([kk]) => !disjoint(kk, k));
  const canF = !allInMust(m, k);
  return boolsOf(canT, canF);
}

function setHas(s: AbsSet, x: AbsValue): AbsValue {
  const ps = finitePrims(x);
  const allMust = ps?.every((p) => primIndex(s.must, normPrim(p)) >= 0) === true;
  const canT = s.must.some((p) => primIn(p, x)) || !disjoint(s.may, x);
  return boolsOf(canT, !allMust);
}
