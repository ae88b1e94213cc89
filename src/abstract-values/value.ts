/**
 * Abstract values: augmented regular tree expressions (SCF §3.3, Table 1), their canonical
 * forms, a total order, structural equality and hashing.
 *
 *   v ::= v'#id
 *   v' ::= 0 | 1 | c(v1 … vn) | v1 | … | vn | fix α. v | α
 *        | 'Int | 'Float | 'Str | {k1 … kn}              (base sets and finite constant sets)
 *        | map(must[(k, v)…], may[(v, v)…]) | set(must[k…], may v)
 *
 * Representation
 * - An immutable discriminated union on `kind`. Every node carries an identity tag (§3.3.1);
 *   the tag discipline is documented at `freshTag` below.
 * - Recursion uses de Bruijn indices: `{kind: 'rec', index: i}` names the i-th enclosing `fix`
 *   (0 = nearest). So alpha-equivalent values are structurally equal, and a closed value means
 *   the same wherever it is placed.
 * - `'Bool` is not a base set: it is the constant set {false, true}, so every set of booleans
 *   has exactly one form.
 *
 * Canonical-form invariants (established by the smart constructors, which every other module
 * uses; never build nodes by hand):
 * - `union.alts` has ≥ 2 members, sorted by `compare`, structurally distinct, none of them a
 *   union, `0` or `1`; its primitive members are merged: at most one `consts` node, no constant
 *   absorbed by a base set present ('Int absorbs int32 constants, 'Float all numbers, 'Str all
 *   strings), at most one of 'Int/'Float; at most one map node and one set node (joined).
 * - `consts.values` is non-empty, sorted by `comparePrim`, duplicate-free (SameValue: -0 and 0
 *   are different constants, as optimizers can tell them apart), and holds at most `CONST_CAP`
 *   numbers and `CONST_CAP` strings (past
 *   that the part is widened to its base set).
 * - A `con` has no `0` argument (it would denote the empty set: the node becomes `0`).
 * - `map.must` is sorted by key, keys distinct primitives (a -0 key is stored as 0, SameValueZero
 *   as in Immutable.js); no `0` value. `map.may` pairs are
 *   sorted, distinct, without `0` parts, at most `MAY_CAP` (past that they merge into one pair).
 * - `set.must` sorted distinct primitives (-0 stored as 0); `set.may` is `0` when no other element may occur.
 * - `fix` bodies mention their variable (else the fix is its body) and are inhabited (else the
 *   fix is `0`).
 *
 * Order, equality and hashing ignore tags: they decide whether two representations are the same
 * set description, which is what memo tables (specialization keys) want. `equalsWithTags` also
 * compares tags. All three are single linear traversals (SCF §3.3.3).
 *
 * Depth. Values are as deep as the inputs they describe (a list of 10^5 elements is a chain of
 * 10^5 `cons` nodes), so the traversals here (order, hashing, sizes, `inhabited`, variable
 * scans) take a node's last child (a list's tail) in a loop or fill the per-node caches along
 * that chain first, deepest node first (`warmSpine`): their stack grows with a value's nesting
 * off its last children, not with a list's length.
 */
import { assertNever } from '../common/index.js';

export type Prim = number | string | boolean;
export type BaseSet = 'Int' | 'Float' | 'Str';

export interface Bottom {
  readonly kind: 'bottom';
  readonly tag: number;
}
export interface Top {
  readonly kind: 'top';
  readonly tag: number;
}
export interface Con {
  readonly kind: 'con';
  readonly tag: number;
  readonly ctor: string;
  readonly args: readonly AbsValue[];
}
export interface Union {
  readonly kind: 'union';
  readonly tag: number;
  readonly alts: readonly AbsValue[];
}
export interface Base {
  readonly kind: 'base';
  readonly tag: number;
  readonly base: BaseSet;
}
export interface Consts {
  readonly kind: 'consts';
  readonly tag: number;
  readonly values: readonly Prim[];
}
export interface Fix {
  readonly kind: 'fix';
  readonly tag: number;
  readonly body: AbsValue;
}
export interface Rec {
  readonly kind: 'rec';
  readonly tag: number;
  /** de Bruijn index: 0 names the nearest enclosing `fix`. */
  readonly index: number;
}
export type MapBinding = readonly [key: Prim, value: AbsValue];
export type MayBinding = readonly [key: AbsValue, value: AbsValue];
export interface AbsMap {
  readonly kind: 'map';
  readonly tag: number;
  /** Keys certainly present, known exactly (Table 1's must list). */
  readonly must: readonly MapBinding[];
  /** Every other key of a member map lies in some pair's key set, its value in the pair's value set. */
  readonly may: readonly MayBinding[];
}
export interface AbsSet {
  readonly kind: 'set';
  readonly tag: number;
  /** Elements certainly present. */
  readonly must: readonly Prim[];
  /** Every other element of a member set lies in this set (`0`: there is none). */
  readonly may: AbsValue;
}

export type AbsValue = Bottom | Top | Con | Union | Base | Consts | Fix | Rec | AbsMap | AbsSet;
export type AbsKind = AbsValue['kind'];

/** Constant sets and may lists stay at most this long; past it they widen (bounded height). */
export const CONST_CAP = 16;
export const MAY_CAP = 8;

export { assertNever };

// ---- identity tags ---------------------------------------------------------------------------

/**
 * Identity tags (SCF §3.3.1). Invariant the partial evaluator maintains, and every operation
 * here preserves: two abstract values carrying the same tag at one program point denote the
 * same concrete value on every concrete execution reaching it. Consequences for this module:
 * - a node built from nothing (a literal, a primitive result) gets a fresh tag;
 * - a node extracted unchanged (projection, `map_find` on a must key) keeps its tag;
 * - a node combining values whose tags differ (join, union merge, widening) gets a fresh tag;
 *   only positions where both sides carry the same tag keep it.
 * Fresh tags come from one module-level counter; `resetTags` restarts it (tests only).
 */
let nextTag = 1;
/** No tag above this is issued (`withTagCeiling`): the unit of a budget on the nodes built. */
let ceiling = Number.POSITIVE_INFINITY;

/** Thrown by `freshTag` past the ceiling `withTagCeiling` set. */
export class TagCeilingReached extends Error {
  override readonly name = 'TagCeilingReached';
}

export function freshTag(): number {
  if (nextTag >= ceiling)
    throw new TagCeilingReached(`the abstract node ceiling (tag ${ceiling}) is reached`);
  return nextTag++;
}

/**
 * Runs `f` with at most `count` more tags issued (nested ceilings keep the lower one): every
 * abstract node is built with a fresh tag, so this bounds the nodes `f` builds, in one place,
 * whichever operation builds them (a conversion of a large concrete value as much as a join).
 */
export function withTagCeiling<T>(count: number, f: () => T): T {
  const outer = ceiling;
  ceiling = Math.min(outer, nextTag + count);
  try {
    return f();
  } finally {
    ceiling = outer;
  }
}

/** How many tags have been issued so far (a count of the abstract nodes built: a budget's unit). */
export function tagsIssued(): number {
  return nextTag;
}

/** Restart the tag counter (for reproducible tests and printouts). */
export function resetTags(start = 1): void {
  nextTag = start;
}

// ---- primitives --------------------------------------------------------------------------

const INT_MIN = -2147483648;
const INT_MAX = 2147483647;

/** `'Int`: integers in the int32 range (C `int`); -0 counts as the integer 0. */
export function isInt32(x: unknown): x is number {
  return typeof x === 'number' && Number.isInteger(x) && x >= INT_MIN && x <= INT_MAX;
}

/**
 * Primitive equality as SCF-lang's `===`/`equal` and map keys see it: SameValueZero (NaN equals
 * NaN, -0 equals 0). Constants themselves are kept apart by `identicalPrim`.
 */
export function samePrim(a: Prim, b: Prim): boolean {
  return a === b || (typeof a === 'number' && typeof b === 'number' && Number.isNaN(a) && Number.isNaN(b));
}

/**
 * Primitive identity of constants: SameValue (NaN equals NaN, -0 differs from 0). Optimizers can
 * tell -0 from 0 (`1 / x`), so a constant set that merged them would let the partial evaluator
 * fold a -0 into a 0.
 */
export function identicalPrim(a: Prim, b: Prim): boolean {
  return Object.is(a, b);
}

function primRank(p: Prim): number {
  return typeof p === 'boolean' ? 0 : typeof p === 'number' ? 1 : 2;
}

/**
 * Total order on primitives, 0 only for identical ones (`identicalPrim`): booleans < numbers <
 * strings; numbers ascending with -0 just before 0 and NaN last.
 */
export function comparePrim(a: Prim, b: Prim): number {
  if (identicalPrim(a, b)) return 0;
  const ra = primRank(a);
  const rb = primRank(b);
  if (ra !== rb) return ra - rb;
  if (typeof a === 'number' && typeof b === 'number') {
    if (Number.isNaN(a)) return 1;
    if (Number.isNaN(b)) return -1;
    if (a === b) return Object.is(a, -0) ? -1 : 1; // -0 and 0
  }
  return a < b ? -1 : 1;
}

/** -0 → 0: map keys and set elements follow SameValueZero, as Immutable.js does. */
export function normPrim(p: Prim): Prim {
  return p === 0 ? 0 : p;
}

/** Whether primitive `p` lies in base set `b`. */
export function inBase(p: Prim, b: BaseSet): boolean {
  switch (b) {
    case 'Int':
      return isInt32(p);
    case 'Float':
      return typeof p === 'number';
    case 'Str':
      return typeof p === 'string';
    default:
      return assertNever(b);
  }
}

/** Binary search for `p` in a sorted primitive array. */
export function primIndex(xs: readonly Prim[], p: Prim): number {
  let lo = 0;
  let hi = xs.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const c = comparePrim(xs[mid] as Prim, p);
    if (c === 0) return mid;
    if (c < 0) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

export function sortPrims(xs: Iterable<Prim>): Prim[] {
  const out = [...xs].sort(comparePrim);
  let w = 0;
  for (let i = 0; i < out.length; i++) {
    if (w === 0 || comparePrim(out[w - 1] as Prim, out[i] as Prim) !== 0) out[w++] = out[i] as Prim;
  }
  out.length = w;
  return out;
}

// ---- order, hashing, equality (tags ignored) ---------------------------------------------

const KIND_RANK: Readonly<Record<AbsKind, number>> = {
  bottom: 0,
  consts: 1,
  base: 2,
  con: 3,
  map: 4,
  set: 5,
  fix: 6,
  rec: 7,
  union: 8,
  top: 9,
};
const BASE_RANK: Readonly<Record<BaseSet, number>> = { Int: 0, Float: 1, Str: 2 };

function cmpStr(a: string, b: string): number {
  return a === b ? 0 : a < b ? -1 : 1;
}

function cmpList<T>(a: readonly T[], b: readonly T[], f: (x: T, y: T) => number): number {
  if (a.length !== b.length) return a.length - b.length;
  for (let i = 0; i < a.length; i++) {
    const c = f(a[i] as T, b[i] as T);
    if (c !== 0) return c;
  }
  return 0;
}

function cmpMust(a: MapBinding, b: MapBinding): number {
  return comparePrim(a[0], b[0]) || compare(a[1], b[1]);
}
function cmpMay(a: MayBinding, b: MayBinding): number {
  return compare(a[0], b[0]) || compare(a[1], b[1]);
}

/**
 * A total order on abstract values (tags ignored), used to keep unions and bindings sorted.
 * Cheap first: different kinds, arities and hashes decide before any deep traversal. Children
 * are compared in order and the last one in its parent's place (a loop, not a call), so
 * comparing two long lists takes no stack.
 */
export function compare(a0: AbsValue, b0: AbsValue): number {
  let a = a0;
  let b = b0;
  for (;;) {
    if (a === b) return 0;
    if (a.kind !== b.kind) return KIND_RANK[a.kind] - KIND_RANK[b.kind];
    switch (a.kind) {
      case 'bottom':
      case 'top':
        return 0;
      case 'base':
        return BASE_RANK[a.base] - BASE_RANK[(b as Base).base];
      case 'rec':
        return a.index - (b as Rec).index;
      case 'consts':
        return cmpList(a.values, (b as Consts).values, comparePrim);
      case 'con':
      case 'union':
      case 'fix':
      case 'map':
      case 'set':
        break;
      default:
        return assertNever(a);
    }
    let as: readonly AbsValue[];
    let bs: readonly AbsValue[];
    if (a.kind === 'con') {
      // readable order: smaller first, then by constructor, then argument-wise (Fig. 6 prints
      // `x | (x * 'Int)`, Fig. 10 `var(y, 4) | var(z, 5)`)
      const bb = b as Con;
      const c = size(a) - size(bb) || cmpStr(a.ctor, bb.ctor);
      if (c !== 0) return c;
      as = a.args;
      bs = bb.args;
    } else {
      const ha = hash(a);
      const hb = hash(b);
      if (ha !== hb) return ha < hb ? -1 : 1;
      switch (a.kind) {
        case 'union':
          as = a.alts;
          bs = (b as Union).alts;
          break;
        case 'fix':
          a = a.body;
          b = (b as Fix).body;
          continue;
        case 'map': {
          const bb = b as AbsMap;
          return cmpList(a.must, bb.must, cmpMust) || cmpList(a.may, bb.may, cmpMay);
        }
        case 'set': {
          const bb = b as AbsSet;
          const c = cmpList(a.must, bb.must, comparePrim);
          if (c !== 0) return c;
          a = a.may;
          b = bb.may;
          continue;
        }
        default:
          return assertNever(a);
      }
    }
    // `cmpList(as, bs, compare)`, the last pair compared by the loop
    if (as.length !== bs.length) return as.length - bs.length;
    if (as.length === 0) return 0;
    const last = as.length - 1;
    for (let i = 0; i < last; i++) {
      const c = compare(as[i] as AbsValue, bs[i] as AbsValue);
      if (c !== 0) return c;
    }
    a = as[last] as AbsValue;
    b = bs[last] as AbsValue;
  }
}

/** Structural equality (tags ignored): the same set description. */
export function equals(a: AbsValue, b: AbsValue): boolean {
  return a === b || (hash(a) === hash(b) && compare(a, b) === 0);
}

/** Structural equality including every node's tag. */
export function equalsWithTags(a: AbsValue, b: AbsValue): boolean {
  if (a === b) return true;
  if (a.tag !== b.tag || !equals(a, b)) return false;
  const ca = childrenOf(a);
  const cb = childrenOf(b);
  for (let i = 0; i < ca.length; i++) if (!equalsWithTags(ca[i] as AbsValue, cb[i] as AbsValue)) return false;
  return true;
}

// Lazily computed per-node caches live in symbol-keyed slots on the node itself (a WeakMap
// side table makes V8's garbage collector slow once it holds many entries). They are pure
// functions of the node's structure, so writing them does not break immutability, and copies
// made by spreading (`withTag`) may share them: hash and size ignore tags.
const HASH: unique symbol = Symbol('hash');
const SIZE: unique symbol = Symbol('size');
const CONCRETE: unique symbol = Symbol('concrete');
const OPEN_SIZE: unique symbol = Symbol('open size');
interface Cache {
  [HASH]?: number;
  [SIZE]?: number;
  [CONCRETE]?: boolean;
  [OPEN_SIZE]?: number;
}

/**
 * Gives `to` the structural caches (hash, size, concreteness) of `from`, whose structure it has
 * up to tags: re-tagging a big value then costs nothing later in hashing or measuring it.
 */
export function inheritCaches<T extends AbsValue>(from: AbsValue, to: T): T {
  const f = from as Cache;
  const t = to as Cache;
  if (f[HASH] !== undefined) t[HASH] = f[HASH];
  if (f[SIZE] !== undefined) t[SIZE] = f[SIZE];
  if (f[CONCRETE] !== undefined) t[CONCRETE] = f[CONCRETE];
  if (f[OPEN_SIZE] !== undefined) t[OPEN_SIZE] = f[OPEN_SIZE];
  return to;
}

/**
 * Whether `v` has exactly one member by its structure alone (one constant, constructors of such,
 * maps with only must bindings of such, sets with no may part); cached per node. Identity tags
 * do not matter to a value with one member.
 */
export function isConcrete(v: AbsValue): boolean {
  const cached = (v as Cache)[CONCRETE];
  if (cached !== undefined) return cached;
  warmSpine(v, CONCRETE, isConcrete);
  let r: boolean;
  if (isNeverOneMemberForm(v)) r = false;
  else
    switch (v.kind) {
      case 'consts':
        r = v.values.length === 1;
        break;
      case 'con':
        r = v.args.every(isConcrete);
        break;
      case 'map':
        r = v.may.length === 0 && v.must.every(([, x]) => isConcrete(x));
        break;
      case 'set':
        r = v.may.kind === 'bottom';
        break;
      default:
        return assertNever(v);
    }
  (v as Cache)[CONCRETE] = r;
  return r;
}

/** The forms whose kind alone says they do not denote exactly one member. */
export type NeverOneMemberForm = Bottom | Top | Union | Base | Fix | Rec;

const NEVER_ONE_MEMBER: Readonly<Record<AbsKind, boolean>> = {
  bottom: true,
  top: true,
  union: true,
  base: true,
  fix: true,
  rec: true,
  consts: false,
  con: false,
  map: false,
  set: false,
};

/**
 * Whether `v` is ⊥ (no member), ⊤, a union, a base type or a recursive form: by its kind alone not
 * one member, whatever its parts (a table over every kind, so a new form must say which it is).
 * The rest — constants, constructors, maps, sets — may be one member, depending on their parts.
 */
export function isNeverOneMemberForm(v: AbsValue): v is NeverOneMemberForm {
  return NEVER_ONE_MEMBER[v.kind];
}

function mix(h: number, x: number): number {
  return Math.imul(h ^ x, 0x01000193) >>> 0;
}

function hashString(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = mix(h, s.charCodeAt(i));
  return h;
}

export function hashPrim(p: Prim): number {
  if (typeof p === 'string') return hashString(p) ^ 0x5bd1e995;
  if (typeof p === 'boolean') return p ? 0x2545f491 : 0x9e3779b9;
  if (Number.isNaN(p)) return 0x7fc00000;
  if (isInt32(p)) return mix(0x3c6ef372, p | 0);
  return hashString(String(p));
}

/** Structural hash (tags ignored), cached per node: O(size) once, O(1) after. */
export function hash(v: AbsValue): number {
  const cached = (v as Cache)[HASH];
  if (cached !== undefined) return cached;
  warmSpine(v, HASH, hash);
  let h = mix(0x811c9dc5, KIND_RANK[v.kind]);
  switch (v.kind) {
    case 'bottom':
    case 'top':
      break;
    case 'base':
      h = mix(h, BASE_RANK[v.base]);
      break;
    case 'rec':
      h = mix(h, v.index);
      break;
    case 'consts':
      for (const p of v.values) h = mix(h, hashPrim(p));
      break;
    case 'con':
      h = mix(h, hashString(v.ctor));
      for (const x of v.args) h = mix(h, hash(x));
      break;
    case 'union':
    case 'fix':
      for (const x of childrenOf(v)) h = mix(h, hash(x));
      break;
    case 'map':
      for (const [k, x] of v.must) h = mix(mix(h, hashPrim(k)), hash(x));
      h = mix(h, 0xabcdef);
      for (const [k, x] of v.may) h = mix(mix(h, hash(k)), hash(x));
      break;
    case 'set':
      for (const p of v.must) h = mix(h, hashPrim(p));
      h = mix(h, hash(v.may));
      break;
    default:
      return assertNever(v);
  }
  (v as Cache)[HASH] = h;
  return h;
}

/**
 * Fills the cache slot `key` of the nodes below `v` on its spine (the chain of last children:
 * a list's tails) with `measure`, deepest first. A cached measure (hash, size, concreteness)
 * then recurses only into the other children, so the call stack grows with a value's nesting
 * off its spines, not with a list's length. Costs nothing when `v`'s last child is cached.
 */
function warmSpine(
  v: AbsValue,
  key: typeof HASH | typeof SIZE | typeof CONCRETE | typeof OPEN_SIZE,
  measure: (x: AbsValue) => unknown,
): void {
  let x = lastChild(v);
  if (x === undefined || (x as Cache)[key] !== undefined || lastChild(x) === undefined) return;
  const spine: AbsValue[] = [];
  while (x !== undefined && (x as Cache)[key] === undefined) {
    spine.push(x);
    x = lastChild(x);
  }
  for (let i = spine.length - 1; i >= 0; i--) measure(spine[i] as AbsValue);
}

/** The forms with no sub-values. */
export type LeafForm = Bottom | Top | Base | Consts | Rec;

const LEAF: Readonly<Record<AbsKind, boolean>> = {
  bottom: true,
  top: true,
  base: true,
  consts: true,
  rec: true,
  con: false,
  union: false,
  fix: false,
  map: false,
  set: false,
};

/**
 * Whether `v` has no sub-values (⊥, ⊤, a base type, constants, a recursion variable): what the
 * child walks (`lastChild`, `childrenOf`, `mapChildren`) return at once. A table over every kind,
 * so a new form must say which it is.
 */
export function isLeafForm(v: AbsValue): v is LeafForm {
  return LEAF[v.kind];
}

/** The last of `childrenOf(v)`, without building the array. */
function lastChild(v: AbsValue): AbsValue | undefined {
  if (isLeafForm(v)) return undefined;
  switch (v.kind) {
    case 'con':
      return v.args[v.args.length - 1];
    case 'union':
      return v.alts[v.alts.length - 1];
    case 'fix':
      return v.body;
    case 'map':
      return v.may.length > 0 ? (v.may[v.may.length - 1] as MayBinding)[1] : v.must[v.must.length - 1]?.[1];
    case 'set':
      return v.may;
    default:
      return assertNever(v);
  }
}

/** The direct sub-values of `v`, in a fixed order (children defined once). */
export function childrenOf(v: AbsValue): readonly AbsValue[] {
  if (isLeafForm(v)) return [];
  switch (v.kind) {
    case 'con':
      return v.args;
    case 'union':
      return v.alts;
    case 'fix':
      return [v.body];
    case 'map': {
      const out: AbsValue[] = [];
      for (const [, x] of v.must) out.push(x);
      for (const [k, x] of v.may) out.push(k, x);
      return out;
    }
    case 'set':
      return [v.may];
    default:
      return assertNever(v);
  }
}

/** One plus `measure` of each child of `v`, cached in `v`'s slot `key`. */
function countNodes(
  v: AbsValue,
  key: typeof SIZE | typeof OPEN_SIZE,
  measure: (c: AbsValue) => number,
): number {
  const cached = (v as Cache)[key];
  if (cached !== undefined) return cached;
  warmSpine(v, key, measure);
  let n = 1;
  for (const c of childrenOf(v)) n += measure(c);
  (v as Cache)[key] = n;
  return n;
}

/** Number of nodes (the size measure of the benchmarks), cached per node. */
export function size(v: AbsValue): number {
  return countNodes(v, SIZE, size);
}

/**
 * Nodes of `v` outside its fully known (concrete) parts, each of which counts as one node: the
 * measure of how much of a value is still abstract. A growing value's known parts — the input
 * program a pass passes through, say — cost nothing to keep, so size caps count this.
 */
export function openSize(v: AbsValue): number {
  return isConcrete(v) ? 1 : countNodes(v, OPEN_SIZE, openSize);
}

// ---- smart constructors (canonical forms) --------------------------------------------------

export function bottom(tag = freshTag()): Bottom {
  return { kind: 'bottom', tag };
}

export function top(tag = freshTag()): Top {
  return { kind: 'top', tag };
}

export function base(b: BaseSet, tag = freshTag()): Base {
  return { kind: 'base', tag, base: b };
}

/** A finite set of constants (`0` when empty); capped at `CONST_CAP` per type. */
export function consts(values: Iterable<Prim>, tag = freshTag()): AbsValue {
  const vs = sortPrims(values);
  if (vs.length === 0) return bottom(tag);
  return capConsts(vs, tag);
}

export function constant(p: Prim, tag = freshTag()): Consts {
  return { kind: 'consts', tag, values: [p] };
}

/** The abstract booleans. */
export function bool(b: boolean, tag = freshTag()): Consts {
  return constant(b, tag);
}
export function anyBool(tag = freshTag()): Consts {
  return { kind: 'consts', tag, values: [false, true] };
}

function capConsts(vs: Prim[], tag: number): AbsValue {
  let nums = 0;
  let strs = 0;
  for (const p of vs) {
    if (typeof p === 'number') nums++;
    else if (typeof p === 'string') strs++;
  }
  if (nums <= CONST_CAP && strs <= CONST_CAP) return { kind: 'consts', tag, values: vs };
  const alts: AbsValue[] = [];
  const keep: Prim[] = [];
  if (nums > CONST_CAP)
    alts.push(base(vs.every((p) => typeof p !== 'number' || isInt32(p)) ? 'Int' : 'Float'));
  if (strs > CONST_CAP) alts.push(base('Str'));
  for (const p of vs) {
    if ((typeof p === 'number' && nums > CONST_CAP) || (typeof p === 'string' && strs > CONST_CAP)) continue;
    keep.push(p);
  }
  if (keep.length > 0) alts.push({ kind: 'consts', tag: freshTag(), values: keep });
  return union(alts, tag);
}

/** Constructor value `c(v1 … vn)`; `0` when an argument is `0`. */
export function con(ctor: string, args: readonly AbsValue[], tag = freshTag()): AbsValue {
  for (const a of args) if (a.kind === 'bottom') return bottom(tag);
  return { kind: 'con', tag, ctor, args };
}

/** de Bruijn variable: the `index`-th enclosing fix. */
export function rec(index: number, tag = freshTag()): Rec {
  return { kind: 'rec', tag, index };
}

/**
 * Whether some variable of `v` passes `test(index, depth)`, where `depth` counts the binders
 * between the variable and `v`'s root plus the `depth` given.
 */
function someRec(v: AbsValue, depth: number, test: (index: number, depth: number) => boolean): boolean {
  // the last child is visited in its parent's place (a loop), so a list spine takes no stack
  let x = v;
  let d = depth;
  for (;;) {
    if (!isBinderForm(x)) {
      const last = lastChild(x);
      if (last === undefined) return false;
      const cs = childrenOf(x);
      for (let i = 0; i < cs.length - 1; i++) if (someRec(cs[i] as AbsValue, d, test)) return true;
      x = last;
      continue;
    }
    switch (x.kind) {
      case 'rec':
        return test(x.index, d);
      case 'fix':
        x = x.body;
        d++;
        continue;
      default:
        return assertNever(x);
    }
  }
}

/** Whether `v` mentions the variable bound `depth` binders above it. */
export function mentions(v: AbsValue, depth: number): boolean {
  return someRec(v, depth, (index, d) => index === d);
}

/** Whether `v` has a variable free (pointing outside `v`). */
export function hasFreeRec(v: AbsValue, depth = 0): boolean {
  return someRec(v, depth, (index, d) => index >= d);
}

/**
 * Whether `v` has a member when the variables in `empty` (de Bruijn depths counted from `v`,
 * shifted under binders) denote the empty set. A fix is inhabited iff its body is inhabited
 * with its own variable empty (first step of the least-fixpoint iteration).
 *
 * An and/or evaluation (constructors and must maps: all children; unions: some alternative)
 * with an explicit stack instead of recursion, so a value as deep as a 10^6-element list costs
 * linear time and no call stack. A node's last child is evaluated in its parent's place (the
 * parent's frame is popped first), so a list spine needs one frame, not one per cell.
 */
export function inhabited(v: AbsValue, emptyFrom = 0): boolean {
  // frames: a node whose children are being evaluated, its `emptyFrom`, its next child
  const nodes: (Con | Union | AbsMap)[] = [];
  const depths: number[] = [];
  const nexts: number[] = [];
  let x = v;
  let e = emptyFrom;
  for (;;) {
    let r: boolean;
    switch (x.kind) {
      case 'bottom':
        r = false;
        break;
      case 'rec':
        r = x.index < e;
        break;
      case 'fix':
        x = x.body;
        e++;
        continue;
      case 'con':
      case 'union':
      case 'map': {
        const n = andOrArity(x);
        if (n === 0) {
          r = x.kind !== 'union';
          break;
        }
        if (n > 1) {
          nodes.push(x);
          depths.push(e);
          nexts.push(1);
        }
        x = andOrChild(x, 0);
        continue;
      }
      case 'top':
      case 'base':
      case 'consts':
      case 'set':
        r = true;
        break;
      default:
        return assertNever(x);
    }
    // return `r` to the frames above: short-circuit, or go on with the next child
    let resumed = false;
    while (nodes.length > 0 && !resumed) {
      const top = nodes.length - 1;
      const p = nodes[top] as Con | Union | AbsMap;
      if (p.kind === 'union' ? r : !r) {
        nodes.pop();
        depths.pop();
        nexts.pop();
        continue;
      }
      const i = nexts[top] as number;
      x = andOrChild(p, i);
      e = depths[top] as number;
      if (i + 1 === andOrArity(p)) {
        nodes.pop();
        depths.pop();
        nexts.pop();
      } else nexts[top] = i + 1;
      resumed = true;
    }
    if (!resumed) return r;
  }
}

/** The children `inhabited` evaluates: constructor arguments, union alternatives, must values. */
function andOrArity(v: Con | Union | AbsMap): number {
  return v.kind === 'con' ? v.args.length : v.kind === 'union' ? v.alts.length : v.must.length;
}

function andOrChild(v: Con | Union | AbsMap, i: number): AbsValue {
  if (v.kind === 'con') return v.args[i] as AbsValue;
  if (v.kind === 'union') return v.alts[i] as AbsValue;
  return (v.must[i] as MapBinding)[1];
}

/**
 * `fix α. body` (body uses de Bruijn index 0 for α). Removes unguarded self-references
 * (`fix α. α | b` = `fix α. b`, least fixpoint); a body not mentioning α is returned as is;
 * an uninhabited fix is `0`.
 */
export function fix(body: AbsValue, tag = freshTag()): AbsValue {
  let b = body;
  if (b.kind === 'rec' && b.index === 0) return bottom(tag);
  if (b.kind === 'union' && b.alts.some((x) => x.kind === 'rec' && x.index === 0)) {
    b = union(
      b.alts.filter((x) => !(x.kind === 'rec' && x.index === 0)),
      b.tag,
    );
  }
  if (!mentions(b, 0)) return shift(b, -1, 0);
  if (!inhabited(b, 0)) return bottom(tag);
  return { kind: 'fix', tag, body: b };
}

/**
 * Rebuilds `v` with each variable free at `depth` or above (as seen from `v`) replaced by
 * `onRec(variable, depth)`, `depth` grown under binders; `v` itself when it has none.
 */
function mapFreeRecs(v: AbsValue, depth: number, onRec: (r: Rec, depth: number) => AbsValue): AbsValue {
  if (!hasFreeRec(v, depth)) return v;
  if (!isBinderForm(v)) return mapChildren(v, (c) => mapFreeRecs(c, depth, onRec));
  switch (v.kind) {
    case 'rec':
      return onRec(v, depth);
    case 'fix':
      return { kind: 'fix', tag: v.tag, body: mapFreeRecs(v.body, depth + 1, onRec) };
    default:
      return assertNever(v);
  }
}

const BINDER: Readonly<Record<AbsKind, boolean>> = {
  fix: true,
  rec: true,
  bottom: false,
  top: false,
  con: false,
  union: false,
  base: false,
  consts: false,
  map: false,
  set: false,
};

/**
 * Whether `v` is a form of the de Bruijn encoding (`fix` binds, `rec` refers); the walks over
 * free variables treat every other form alike, through its children (a table over every kind,
 * so a new form must say which it is).
 */
function isBinderForm(v: AbsValue): v is Fix | Rec {
  return BINDER[v.kind];
}

/** Adds `d` to every variable index ≥ `cutoff` (used when removing or adding binders). */
export function shift(v: AbsValue, d: number, cutoff: number): AbsValue {
  if (d === 0) return v;
  return mapFreeRecs(v, cutoff, (r, c) => (r.index >= c ? rec(r.index + d, r.tag) : r));
}

/**
 * Replaces variable `depth` (as seen from `v`) by the closed value `s`: `unfold` of a fix is
 * `subst(body, 0, fix)`. Indices above `depth` drop by one (their binder is gone).
 */
export function subst(v: AbsValue, depth: number, s: AbsValue): AbsValue {
  return mapFreeRecs(v, depth, (r, k) => (r.index === k ? s : r.index > k ? rec(r.index - 1, r.tag) : r));
}

const UNFOLD: unique symbol = Symbol('unfold');

/** One unfolding: `fix α. b` ↦ `b[α := fix α. b]` (cached per node). */
export function unfold(f: Fix): AbsValue {
  const slot = f as Fix & { [UNFOLD]?: AbsValue };
  let u = slot[UNFOLD];
  if (u === undefined) {
    u = subst(f.body, 0, f);
    slot[UNFOLD] = u;
  }
  return u;
}

/**
 * Rebuilds `v` with each direct child replaced by `f(child)`, through the smart constructors
 * (so the result is canonical); `v` itself when nothing changed. Not for `fix` (binders).
 */
export function mapChildren(v: AbsValue, f: (c: AbsValue) => AbsValue): AbsValue {
  if (isLeafForm(v)) return v;
  switch (v.kind) {
    case 'con': {
      const g = tracking(f);
      const args = v.args.map(g.f);
      return g.changed ? con(v.ctor, args, v.tag) : v;
    }
    case 'union': {
      const g = tracking(f);
      const alts = v.alts.map(g.f);
      return g.changed ? union(alts, v.tag) : v;
    }
    case 'fix':
      return fix(f(v.body), v.tag);
    case 'map': {
      const g = tracking(f);
      const must = v.must.map(([k, x]): MapBinding => [k, g.f(x)]);
      const may = v.may.map(([k, x]): MayBinding => [g.f(k), g.f(x)]);
      return g.changed ? absMap(must, may, v.tag) : v;
    }
    case 'set': {
      const may = f(v.may);
      return may === v.may ? v : absSet(v.must, may, v.tag);
    }
    default:
      return assertNever(v);
  }
}

/** `f` together with whether it has returned anything other than its argument so far. */
function tracking(f: (c: AbsValue) => AbsValue): { f: (c: AbsValue) => AbsValue; changed: boolean } {
  const t = {
    changed: false,
    f: (a: AbsValue): AbsValue => {
      const b = f(a);
      if (b !== a) t.changed = true;
      return b;
    },
  };
  return t;
}

/** Same structure, a given tag at the root. */
export function withTag<T extends AbsValue>(v: T, tag: number): T {
  return v.tag === tag ? v : { ...v, tag };
}

/** Same structure with every tag fresh: drops all identity claims (always sound). */
export function freshen(v: AbsValue): AbsValue {
  return inheritCaches(v, freshenNode(v));
}

function freshenNode(v: AbsValue): AbsValue {
  switch (v.kind) {
    case 'fix':
      return { kind: 'fix', tag: freshTag(), body: freshen(v.body) };
    case 'con':
      return { kind: 'con', tag: freshTag(), ctor: v.ctor, args: v.args.map(freshen) };
    case 'union':
      return { kind: 'union', tag: freshTag(), alts: v.alts.map(freshen) };
    case 'map':
      return {
        kind: 'map',
        tag: freshTag(),
        must: v.must.map(([k, x]): MapBinding => [k, freshen(x)]),
        may: v.may.map(([k, x]): MayBinding => [freshen(k), freshen(x)]),
      };
    case 'set':
      return { kind: 'set', tag: freshTag(), must: v.must, may: freshen(v.may) };
    case 'bottom':
    case 'top':
    case 'base':
    case 'consts':
    case 'rec':
      return withTag(v, freshTag());
    default:
      return assertNever(v);
  }
}

/**
 * Keeps `a`'s structure; a node keeps its tag only where `b` has, at the same position, a
 * structurally equal shape with the same tag. Used when two values from different paths merge
 * into one representation (dedup, join): identity claims survive only where both agree.
 */
export function agreeTags(a: AbsValue, b: AbsValue): AbsValue {
  if (a === b) return a;
  if (a.kind !== b.kind || !sameShape(a, b)) return freshen(a);
  return inheritCaches(a, agreeNode(a, b));
}

function agreeNode(a: AbsValue, b: AbsValue): AbsValue {
  const tag = a.tag === b.tag ? a.tag : freshTag();
  switch (a.kind) {
    case 'con': {
      const bb = b as Con;
      return {
        kind: 'con',
        tag,
        ctor: a.ctor,
        args: a.args.map((x, i) => agreeTags(x, bb.args[i] as AbsValue)),
      };
    }
    case 'union': {
      const bb = b as Union;
      return { kind: 'union', tag, alts: a.alts.map((x, i) => agreeTags(x, bb.alts[i] as AbsValue)) };
    }
    case 'fix':
      return { kind: 'fix', tag, body: agreeTags(a.body, (b as Fix).body) };
    case 'map': {
      const bb = b as AbsMap;
      return {
        kind: 'map',
        tag,
        must: a.must.map(([k, x], i): MapBinding => [k, agreeTags(x, (bb.must[i] as MapBinding)[1])]),
        may: a.may.map(([k, x], i): MayBinding => {
          const p = bb.may[i] as MayBinding;
          return [agreeTags(k, p[0]), agreeTags(x, p[1])];
        }),
      };
    }
    case 'set':
      return { kind: 'set', tag, must: a.must, may: agreeTags(a.may, (b as AbsSet).may) };
    case 'bottom':
    case 'top':
    case 'base':
    case 'consts':
    case 'rec':
      return withTag(a, tag);
    default:
      return assertNever(a);
  }
}

/** Same kind and same immediate shape, so children can be paired position by position. */
function sameShape(a: AbsValue, b: AbsValue): boolean {
  switch (a.kind) {
    case 'con':
      return a.ctor === (b as Con).ctor && a.args.length === (b as Con).args.length;
    case 'union':
      return equals(a, b);
    case 'map': {
      const bb = b as AbsMap;
      return (
        a.must.length === bb.must.length &&
        a.may.length === bb.may.length &&
        a.must.every(([k], i) => samePrim(k, (bb.must[i] as MapBinding)[0]))
      );
    }
    case 'set':
      return cmpList(a.must, (b as AbsSet).must, comparePrim) === 0;
    case 'bottom':
    case 'top':
    case 'base':
    case 'consts':
    case 'fix':
    case 'rec':
      return compare(a, b) === 0;
    default:
      return assertNever(a);
  }
}

/**
 * Union `v1 | … | vn` in canonical form: flattened, `0` dropped, `1` absorbing, primitives
 * merged, maps and sets joined into one node each, structurally equal members merged (their
 * tags agreed), sorted. The union node keeps `tag`; when there is a single member it is returned
 * with its own tag if all inputs agreed on it, else re-tagged `tag`.
 */
export function union(alts: readonly AbsValue[], tag = freshTag()): AbsValue {
  // fast path: all members structurally equal (common when joining a value with itself)
  const first = alts[0];
  if (first !== undefined && first.kind !== 'union' && alts.every((x) => equals(x, first))) {
    let out: AbsValue = first;
    for (let i = 1; i < alts.length; i++) out = agreeTags(out, alts[i] as AbsValue);
    return out.tag === first.tag ? out : withTag(out, tag);
  }
  const flat: AbsValue[] = [];
  const pushAll = (xs: readonly AbsValue[]) => {
    for (const x of xs) {
      if (x.kind === 'union') pushAll(x.alts);
      else flat.push(x);
    }
  };
  pushAll(alts);
  const tags = new Set<number>();
  for (const x of alts) tags.add(x.tag);
  const oneTag = tags.size === 1;
  let other: AbsValue[] = [];
  const constVals: Prim[] = [];
  let constTag: number | undefined;
  let constNodes = 0;
  const bases = new Set<BaseSet>();
  const maps: AbsMap[] = [];
  const sets: AbsSet[] = [];
  for (const x of flat) {
    switch (x.kind) {
      case 'bottom':
        break;
      case 'top':
        return top(oneTag ? x.tag : tag);
      case 'consts':
        constNodes++;
        constTag = constTag === undefined ? x.tag : constTag === x.tag ? constTag : freshTag();
        for (const p of x.values) constVals.push(p);
        break;
      case 'base':
        bases.add(x.base);
        break;
      case 'map':
        maps.push(x);
        break;
      case 'set':
        sets.push(x);
        break;
      case 'con':
      case 'union':
      case 'fix':
      case 'rec':
        other.push(x);
        break;
      default:
        return assertNever(x);
    }
  }
  // primitive part: a base set absorbs the constants (and 'Float the 'Int) it contains; it
  // keeps its tag only when it absorbed nothing and all its occurrences agree on the tag
  const absorbedBy = new Set<BaseSet>();
  if (bases.has('Float') && bases.has('Int')) {
    bases.delete('Int');
    absorbedBy.add('Float');
  }
  const kept = constVals.filter((p) => {
    for (const b of bases) {
      if (inBase(p, b)) {
        absorbedBy.add(b);
        return false;
      }
    }
    return true;
  });
  for (const b of bases) {
    const occ = flat.filter((x) => x.kind === 'base' && x.base === b);
    const t0 = (occ[0] as AbsValue).tag;
    const keepTag = !absorbedBy.has(b) && occ.every((x) => x.tag === t0);
    other.push(base(b, keepTag ? t0 : freshTag()));
  }
  let capped = false;
  if (kept.length > 0) {
    const sameNode = constNodes === 1 && kept.length === constVals.length && constTag !== undefined;
    const c = consts(kept, sameNode ? constTag : freshTag());
    if (c.kind === 'union') {
      capped = true;
      for (const x of c.alts) other.push(x);
    } else other.push(c);
  }
  if (maps.length > 0) other.push(maps.reduce((m, n) => joinMaps(m, n)));
  if (sets.length > 0) other.push(sets.reduce((m, n) => joinSets(m, n)));
  // capping may have produced a base set next to another one: merge once more (the constants
  // are now within the cap, so this recursion is one level deep)
  if (capped) return union(other, tag);
  other.sort(compare);
  const dedup: AbsValue[] = [];
  for (const x of other) {
    const last = dedup[dedup.length - 1];
    if (last !== undefined && compare(last, x) === 0) dedup[dedup.length - 1] = agreeTags(last, x);
    else dedup.push(x);
  }
  other = dedup;
  if (other.length === 0) return bottom(tag);
  if (other.length === 1) {
    const only = other[0] as AbsValue;
    return oneTag && only.tag === (alts[0] as AbsValue).tag ? only : withTag(only, tag);
  }
  return { kind: 'union', tag, alts: other };
}

// ---- maps and sets --------------------------------------------------------------------------

/** Abstract map in canonical form (see the module invariants). */
export function absMap(
  must: readonly (readonly [Prim, AbsValue])[],
  may: readonly (readonly [AbsValue, AbsValue])[],
  tag = freshTag(),
): AbsValue {
  const m: MapBinding[] = [];
  for (const [k, x] of must) {
    if (x.kind === 'bottom') return bottom(tag);
    m.push([normPrim(k), x]);
  }
  m.sort((a, b) => comparePrim(a[0], b[0]));
  for (let i = 1; i < m.length; i++) {
    if (comparePrim((m[i - 1] as MapBinding)[0], (m[i] as MapBinding)[0]) === 0) {
      throw new Error(`abstract map: duplicate must key ${String((m[i] as MapBinding)[0])}`);
    }
  }
  return { kind: 'map', tag, must: m, may: normMay(may) };
}

function normMay(may: readonly (readonly [AbsValue, AbsValue])[]): MayBinding[] {
  const ps: MayBinding[] = [];
  for (const [k, x] of may) if (k.kind !== 'bottom' && x.kind !== 'bottom') ps.push([k, x]);
  // pairs with equal keys merge their values
  ps.sort((a, b) => compare(a[0], b[0]));
  const merged: MayBinding[] = [];
  for (const p of ps) {
    const last = merged[merged.length - 1];
    if (last !== undefined && compare(last[0], p[0]) === 0) {
      merged[merged.length - 1] = [agreeTags(last[0], p[0]), union([last[1], p[1]])];
    } else merged.push(p);
  }
  if (merged.length > MAY_CAP) {
    return [[union(merged.map((p) => p[0])), union(merged.map((p) => p[1]))]];
  }
  merged.sort(cmpMay);
  return merged;
}

export function absSet(must: Iterable<Prim>, may: AbsValue, tag = freshTag()): AbsSet {
  return { kind: 'set', tag, must: sortPrims([...must].map(normPrim)), may };
}

/** Least upper bound of two maps as one map node: keys certain in both stay certain. */
export function joinMaps(a: AbsMap, b: AbsMap): AbsMap {
  if (a === b) return a;
  const must: MapBinding[] = [];
  const may: MayBinding[] = [...a.may, ...b.may];
  let i = 0;
  let j = 0;
  while (i < a.must.length || j < b.must.length) {
    const x = a.must[i];
    const y = b.must[j];
    const c = x === undefined ? 1 : y === undefined ? -1 : comparePrim(x[0], y[0]);
    if (c === 0 && x !== undefined && y !== undefined) {
      must.push([x[0], union([x[1], y[1]])]);
      i++;
      j++;
    } else if (c < 0 && x !== undefined) {
      may.push([constant(x[0]), x[1]]);
      i++;
    } else if (y !== undefined) {
      may.push([constant(y[0]), y[1]]);
      j++;
    }
  }
  const tag = a.tag === b.tag ? a.tag : freshTag();
  return { kind: 'map', tag, must, may: normMay(may) };
}

export function joinSets(a: AbsSet, b: AbsSet): AbsSet {
  if (a === b) return a;
  const must = a.must.filter((p) => primIndex(b.must, p) >= 0);
  const dropped = [...a.must, ...b.must].filter((p) => primIndex(must, p) < 0);
  const may = union([a.may, b.may, ...(dropped.length > 0 ? [consts(dropped)] : [])]);
  return { kind: 'set', tag: a.tag === b.tag ? a.tag : freshTag(), must, may };
}
