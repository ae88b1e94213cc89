/**
 * The lattice structure of abstract values: `leq`, `join`, `widen`, `meet` (SCF §3.3.3).
 *
 * Every operation is a structural traversal, as in SCF: no leaf-linear systems, so some
 * inclusions that hold are not recognised, but every answer is sound:
 * - `leq(a, b)` true ⇒ γ(a) ⊆ γ(b). Recursive values are compared by unfolding `fix` nodes,
 *   with a coinductive assumption set keyed by structural equality (finitely many distinct
 *   unfoldings of a regular tree, so it terminates); assumptions made on a failed branch are
 *   rolled back. Its last step in each case (a list's tail) is a loop, so long lists take no
 *   stack.
 * - `join(a, b)` ⊇ γ(a) ∪ γ(b), reports `changed` = "not known to be ⊆ γ(a)"; when unchanged the
 *   result has `a`'s structure (tags agreed per `agreeTags`), so fixpoint loops stabilise.
 * - `widen(a, b)` ⊇ γ(a) ∪ γ(b) with bounded height, after Aiken & Murphy's heuristics:
 *   (1) union members with the same constructor merge argument-wise; (2) a constructor set that
 *   reappears beneath itself folds into a recursive value (`fix`): every node whose constructor
 *   set is within the outer one becomes the variable, and the body is the join of all their
 *   one-level skeletons (sound by induction on the member's height); (3) constructor nesting
 *   past `DEPTH_CAP` becomes `1`, unions wider than `WIDTH_CAP` become `1`; constant sets and
 *   may lists are capped by the constructors (`CONST_CAP`, `MAY_CAP`). So every ascending
 *   widening chain stabilises.
 * - `meet(a, b)` ⊇ γ(a) ∩ γ(b) (an over-approximation; it refines `a`, so it keeps `a`'s tags).
 * - Growth in steps, for the partial evaluator's growing specializations (no cliff to `1`):
 *   `shapeJoin(old, next)` ⊇ γ(old) ∪ γ(next) keeps the constructor skeleton where both agree
 *   (pointwise joins under one constructor, unions keeping different constructors — and records
 *   of one constructor told apart by a known field, like two labelled commands — apart, maps
 *   with equal must-keys keeping them) and sends numeric leaves that changed to their base set;
 *   `boundedSkeleton(v, cap)` ⊇ γ(v) is a cut of `v` with at most `cap` open nodes that keeps
 *   constructors, unions and must-keys and replaces the biggest parts by `1` first (the budget
 *   is shared among siblings smallest first, so small precise parts survive a big one's cut);
 *   `foldSpines(v)` ⊇ γ(v) folds each long chain of cells of one shape (a list, a right-nested
 *   `seq` of unrolled copies) into `fix α. z | C(h, α)`, the cells' heads joined, where a cut
 *   would lose the chain past its budget; `shapeJoin` keeps a chain's cells apart from its end
 *   (`nestsApart`), so a growing chain stays a chain that folds.
 *   Termination of a growing sequence does not rest on these two (`shapeJoin` alone need not stabilise: a list can grow a cell per
 *   step): the partial evaluator counts changes and switches, after a bounded number, to
 *   `widen`, then to skeletons with numeric leaves `1`, then to `1`, each a bounded number of
 *   times (src/partial-eval/growth.ts, `grow`).
 */
import { mustIndex, primIn, primMember } from './member.js';
import {
  type AbsMap,
  type AbsSet,
  type AbsValue,
  absMap,
  absSet,
  agreeTags,
  assertNever,
  type Base,
  base,
  bottom,
  comparePrim,
  type Prim,
  samePrim,
  con,
  consts,
  equals,
  fix,
  freshTag,
  freshen,
  hash,
  hasFreeRec,
  inBase,
  isConcrete,
  openSize,
  type MapBinding,
  mapChildren,
  primIndex,
  rec,
  size,
  childrenOf,
  top,
  union,
  unfold,
} from './value.js';

/** Constructor nesting kept by `widen`; deeper parts become `1`. */
export const DEPTH_CAP = 64;
/** Widest union kept by `widen`; wider ones become `1`. */
export const WIDTH_CAP = 32;

// ---- leq ----------------------------------------------------------------------------------

class Assumptions {
  private readonly byHash = new Map<number, [AbsValue, AbsValue][]>();
  private readonly log: number[] = [];

  has(a: AbsValue, b: AbsValue): boolean {
    const list = this.byHash.get(key(a, b));
    return list?.some(([x, y]) => equals(x, a) && equals(y, b)) === true;
  }
  add(a: AbsValue, b: AbsValue): void {
    const k = key(a, b);
    let list = this.byHash.get(k);
    if (list === undefined) {
      list = [];
      this.byHash.set(k, list);
    }
    list.push([a, b]);
    this.log.push(k);
  }
  mark(): number {
    return this.log.length;
  }
  rollback(m: number): void {
    while (this.log.length > m) {
      const k = this.log.pop() as number;
      this.byHash.get(k)?.pop();
    }
  }
}

function key(a: AbsValue, b: AbsValue): number {
  return (Math.imul(hash(a), 31) + hash(b)) | 0;
}

/** Sound inclusion test: `true` only if γ(a) ⊆ γ(b). Both values closed. */
export function leq(a: AbsValue, b: AbsValue): boolean {
  return leqA(a, b, new Assumptions());
}

function tryBranch(asm: Assumptions, f: () => boolean): boolean {
  const m = asm.mark();
  if (f()) return true;
  asm.rollback(m);
  return false;
}

/**
 * The last step of each case is taken by the loop, not a call (a fix's unfolding, the last
 * alternative, argument or may part), so comparing long lists takes no stack. The last
 * alternative of `b` needs no `tryBranch`: a `false` answer reaches an enclosing `tryBranch`,
 * which rolls back, or the top, which drops the assumptions.
 */
function leqA(a0: AbsValue, b0: AbsValue, asm: Assumptions): boolean {
  let a = a0;
  let b = b0;
  for (;;) {
    if (a === b || a.kind === 'bottom' || b.kind === 'top') return true;
    if (a.kind === 'top' || b.kind === 'bottom') return false;
    if (a.kind === 'fix' || b.kind === 'fix') {
      if (asm.has(a, b)) return true;
      asm.add(a, b);
      a = a.kind === 'fix' ? unfold(a) : a;
      b = b.kind === 'fix' ? unfold(b) : b;
      continue;
    }
    if (a.kind === 'union') {
      const bb = b;
      const last = a.alts.length - 1;
      if (!a.alts.slice(0, last).every((x) => leqA(x, bb, asm))) return false;
      a = a.alts[last] as AbsValue;
      continue;
    }
    if (b.kind === 'union') {
      if (a.kind === 'consts') return a.values.every((p) => primMember(p, b));
      if (a.kind === 'base') {
        const aa = a;
        return flatAlts(b).some((y) => y.kind === 'base' && baseLeq(aa, y));
      }
      if (equals(a, b)) return true;
      const aa = a;
      const last = b.alts.length - 1;
      if (b.alts.slice(0, last).some((y) => tryBranch(asm, () => leqA(aa, y, asm)))) return true;
      b = b.alts[last] as AbsValue;
      continue;
    }
    switch (a.kind) {
      case 'consts':
        return a.values.every((p) => primMember(p, b));
      case 'base':
        return b.kind === 'base' && baseLeq(a, b);
      case 'rec':
        return b.kind === 'rec' && b.index === a.index;
      case 'con': {
        if (b.kind !== 'con' || b.ctor !== a.ctor || b.args.length !== a.args.length) return false;
        const n = a.args.length;
        if (n === 0) return true;
        const bs = b.args;
        if (!a.args.slice(0, n - 1).every((x, i) => leqA(x, bs[i] as AbsValue, asm))) return false;
        a = a.args[n - 1] as AbsValue;
        b = bs[n - 1] as AbsValue;
        continue;
      }
      case 'map':
        return b.kind === 'map' && mapLeq(a, b, asm);
      case 'set':
        if (b.kind !== 'set' || !setLeqMust(a, b)) return false;
        a = a.may;
        b = b.may;
        continue;
      default:
        return assertNever(a);
    }
  }
}

/** Members of a union with fix members unfolded (each fix once). */
function flatAlts(v: AbsValue, seen: Set<AbsValue> = new Set()): AbsValue[] {
  if (v.kind === 'fix') {
    if (seen.has(v)) return [];
    seen.add(v);
    return flatAlts(unfold(v), seen);
  }
  if (v.kind === 'union') return v.alts.flatMap((a) => flatAlts(a, seen));
  return [v];
}

function baseLeq(a: Base, b: Base): boolean {
  return a.base === b.base || (a.base === 'Int' && b.base === 'Float');
}

function mapLeq(a: AbsMap, b: AbsMap, asm: Assumptions): boolean {
  // every key certain in b is certain in a, with a smaller value
  for (const [k, y] of b.must) {
    const i = mustIndex(a.must, k);
    if (i < 0 || !leqA((a.must[i] as MapBinding)[1], y, asm)) return false;
  }
  // a's other certain keys and a's may pairs are covered by b's may pairs
  for (const [k, x] of a.must) {
    if (mustIndex(b.must, k) >= 0) continue;
    if (!b.may.some(([kb, xb]) => primIn(k, kb) && tryBranch(asm, () => leqA(x, xb, asm)))) return false;
  }
  return a.may.every(([ka, xa]) =>
    b.may.some(([kb, xb]) => tryBranch(asm, () => leqA(ka, kb, asm) && leqA(xa, xb, asm))),
  );
}

/** Sets: whether `a`'s must elements and `b`'s agree (`leqA` then compares the may parts). */
function setLeqMust(a: AbsSet, b: AbsSet): boolean {
  for (const p of b.must) if (primIndex(a.must, p) < 0) return false;
  for (const p of a.must) if (primIndex(b.must, p) < 0 && !primIn(p, b.may)) return false;
  return true;
}

// ---- join ---------------------------------------------------------------------------------

export interface JoinResult {
  readonly value: AbsValue;
  /** Whether the result may denote more than `a` did (false ⇒ γ(result) = γ(a)). */
  readonly changed: boolean;
}

/** Upper bound of `a` and `b`; `changed` says whether it grew past `a`. */
export function join(a: AbsValue, b: AbsValue): JoinResult {
  if (a === b) return { value: a, changed: false };
  if (leq(b, a)) return { value: keepShape(a, b), changed: false };
  if (leq(a, b)) return { value: keepShape(b, a), changed: true };
  return { value: union([a, b], a.tag === b.tag ? a.tag : freshTag()), changed: true };
}

/** Join of many values (`0` for none). */
export function joinAll(vs: readonly AbsValue[]): AbsValue {
  return union(
    vs,
    vs.length > 0 && vs.every((v) => v.tag === (vs[0] as AbsValue).tag)
      ? (vs[0] as AbsValue).tag
      : freshTag(),
  );
}

/** `big`'s structure (⊇ small), with tags agreed where `small` lines up with it. */
function keepShape(big: AbsValue, small: AbsValue): AbsValue {
  if (big.kind === 'union') {
    const smallAlts = small.kind === 'union' ? small.alts : [small];
    // small's members that are members of big's union line up by dedup
    if (smallAlts.every((x) => big.alts.some((y) => equals(x, y)))) {
      return union([big, small], big.tag === small.tag ? big.tag : freshTag());
    }
  }
  return agreeTags(big, small);
}

// ---- widen --------------------------------------------------------------------------------

/**
 * Widening: an upper bound of `a` and `b` whose height is bounded, so the chain
 * `w0 = a0, w(i+1) = widen(wi, a(i+1))` stabilises. `changed` as for `join`.
 */
export function widen(a: AbsValue, b: AbsValue): JoinResult {
  if (a === b) return { value: a, changed: false };
  if (leq(b, a)) return { value: keepShape(a, b), changed: false };
  const j = union([a, b], a.tag === b.tag ? a.tag : freshTag());
  return { value: bound(mergeAlts(fold(mergeAlts(j)))), changed: true };
}

/**
 * Constructor names of a con, of the con members of a union, or of a fix's body (empty for
 * anything else): the "shape" that recursion folding compares.
 */
function ctorSet(v: AbsValue): Set<string> {
  const s = new Set<string>();
  const add = (x: AbsValue) => {
    if (x.kind === 'con') s.add(`${x.ctor}/${x.args.length}`);
    else if (x.kind === 'fix') add(x.body);
    else if (x.kind === 'union') for (const y of x.alts) if (y.kind === 'con' || y.kind === 'fix') add(y);
  };
  add(v);
  return s;
}

function subsetOf(a: Set<string>, b: Set<string>): boolean {
  if (a.size === 0) return false;
  for (const x of a) if (!b.has(x)) return false;
  return true;
}

/** Union members with the same constructor merge argument-wise (recursively). Fixes are opaque. */
export function mergeAlts(v: AbsValue): AbsValue {
  switch (v.kind) {
    case 'fix':
      return v;
    case 'union': {
      const alts = v.alts.map(mergeAlts);
      const groups = new Map<string, AbsValue[]>();
      const rest: AbsValue[] = [];
      for (const x of alts) {
        if (x.kind === 'con') {
          const k = `${x.ctor}/${x.args.length}`;
          const g = groups.get(k);
          if (g === undefined) groups.set(k, [x]);
          else g.push(x);
        } else rest.push(x);
      }
      for (const g of groups.values()) {
        const first = g[0] as AbsValue & { kind: 'con' };
        if (g.length === 1) rest.push(first);
        else {
          const args = first.args.map((_, i) =>
            mergeAlts(union(g.map((c) => (c as AbsValue & { kind: 'con' }).args[i] as AbsValue))),
          );
          rest.push(con(first.ctor, args));
        }
      }
      return union(rest, v.tag);
    }
    case 'bottom':
    case 'top':
    case 'con':
    case 'base':
    case 'consts':
    case 'rec':
    case 'map':
    case 'set':
      return mapChildren(v, mergeAlts);
    default:
      return assertNever(v);
  }
}

/**
 * Folds a constructor set that recurs beneath itself into a `fix` (top-down, outermost first).
 * Recursive values already present take part: a fix whose shape matches is unfolded once into
 * the worklist and its inner occurrences become the new variable, so repeated widening does
 * not nest fixes.
 */
function fold(v: AbsValue): AbsValue {
  if (v.kind === 'fix') return v;
  const s = ctorSet(v);
  if (s.size > 0 && hasMatch(v, s)) {
    const skeletons: AbsValue[] = [];
    const work: AbsValue[] = [v];
    const seen = new Set<AbsValue>();
    while (work.length > 0) {
      const n = work.pop() as AbsValue;
      skeletons.push(skeleton(n, s, work, seen));
    }
    return fix(mergeAlts(union(skeletons)));
  }
  return mapChildren(v, fold);
}

function isShape(x: AbsValue): boolean {
  return x.kind === 'con' || x.kind === 'union' || x.kind === 'fix';
}

/** Whether some proper descendant (through constructor arguments and unions) matches `s`. */
function hasMatch(v: AbsValue, s: Set<string>): boolean {
  const below = (x: AbsValue): boolean => {
    if (!isShape(x)) return false;
    if (subsetOf(ctorSet(x), s)) return true;
    return inside(x);
  };
  const inside = (x: AbsValue): boolean => {
    if (x.kind === 'con') return x.args.some(below);
    if (x.kind === 'union') {
      return x.alts.some(
        (a) => (a.kind === 'con' && a.args.some(below)) || (a.kind === 'fix' && subsetOf(ctorSet(a), s)),
      );
    }
    return false;
  };
  return inside(v);
}

/**
 * `n` with its outermost matching descendants replaced by the variable; matching values are
 * pushed on `work` (a matching fix once, unfolded, remembered in `seen`).
 */
function skeleton(n: AbsValue, s: Set<string>, work: AbsValue[], seen: Set<AbsValue>): AbsValue {
  const matched = (x: AbsValue): AbsValue => {
    if (x.kind === 'fix') {
      if (!seen.has(x)) {
        seen.add(x);
        work.push(unfold(x));
      }
    } else work.push(x);
    return rec(0);
  };
  const below = (x: AbsValue): AbsValue => {
    if (!isShape(x)) return x;
    if (subsetOf(ctorSet(x), s)) return matched(x);
    return inside(x);
  };
  const inside = (x: AbsValue): AbsValue => {
    if (x.kind === 'con') return con(x.ctor, x.args.map(below), x.tag);
    if (x.kind === 'union') {
      return union(
        x.alts.map((a) =>
          a.kind === 'con' ? inside(a) : a.kind === 'fix' && subsetOf(ctorSet(a), s) ? matched(a) : a,
        ),
        x.tag,
      );
    }
    return x;
  };
  return inside(n);
}

/** Constructor nesting past `DEPTH_CAP` and unions wider than `WIDTH_CAP` become `1`. */
function bound(v: AbsValue, depth = 0): AbsValue {
  switch (v.kind) {
    case 'con':
      if (depth >= DEPTH_CAP) return top();
      return mapChildren(v, (c) => bound(c, depth + 1));
    case 'union':
      if (v.alts.length > WIDTH_CAP) return top();
      return mapChildren(v, (c) => bound(c, depth));
    case 'fix':
      return fix(bound(v.body, depth), v.tag);
    case 'map':
    case 'set':
      if (depth >= DEPTH_CAP) return top();
      return mapChildren(v, (c) => bound(c, depth + 1));
    case 'bottom':
    case 'top':
    case 'base':
    case 'consts':
    case 'rec':
      return v;
    default:
      return assertNever(v);
  }
}

// ---- meet ---------------------------------------------------------------------------------

/**
 * An over-approximation of γ(a) ∩ γ(b) that refines `a` (keeps `a`'s tags): used to narrow a
 * value after a test, and by the member generator for values that must be equal. Recursive
 * values are unfolded at most `fuel` times; past that `a` itself is the (sound) answer.
 */
export function meet(a: AbsValue, b: AbsValue, fuel = 32): AbsValue {
  if (a === b || b.kind === 'top' || a.kind === 'bottom') return a;
  if (a.kind === 'top') return b;
  if (b.kind === 'bottom') return bottom();
  if (equals(a, b)) return a;
  if (a.kind === 'fix' || b.kind === 'fix') {
    if (fuel <= 0) return a;
    return meet(a.kind === 'fix' ? unfold(a) : a, b.kind === 'fix' ? unfold(b) : b, fuel - 1);
  }
  if (a.kind === 'union')
    return union(
      a.alts.map((x) => meet(x, b, fuel)),
      a.tag,
    );
  if (b.kind === 'union')
    return union(
      b.alts.map((y) => meet(a, y, fuel)),
      a.tag,
    );
  switch (a.kind) {
    case 'consts': {
      const keep = a.values.filter((p) => primIn(p, b));
      return keep.length === a.values.length ? a : consts(keep, a.tag);
    }
    case 'base':
      if (b.kind === 'consts')
        return consts(
          b.values.filter((p) => inBase(p, a.base)),
          a.tag,
        );
      if (b.kind !== 'base') return bottom();
      if (baseLeq(a, b)) return a;
      if (baseLeq(b, a)) return { ...b, tag: a.tag };
      return bottom();
    case 'con':
      if (b.kind !== 'con' || b.ctor !== a.ctor || b.args.length !== a.args.length) return bottom();
      return con(
        a.ctor,
        a.args.map((x, i) => meet(x, b.args[i] as AbsValue, fuel)),
        a.tag,
      );
    case 'map': {
      if (b.kind !== 'map') return bottom();
      const must: MapBinding[] = a.must.map(([k, x]) => {
        const i = mustIndex(b.must, k);
        return [k, i < 0 ? x : meet(x, (b.must[i] as MapBinding)[1], fuel)];
      });
      for (const [k, y] of b.must) if (mustIndex(a.must, k) < 0) must.push([k, y]);
      return absMap(must, a.may, a.tag);
    }
    case 'set':
      if (b.kind !== 'set') return bottom();
      return absSet([...a.must, ...b.must], a.may, a.tag);
    case 'rec':
      return a;
    default:
      return assertNever(a);
  }
}

/** Whether γ(a) ∩ γ(b) is certainly empty. */
export function disjoint(a: AbsValue, b: AbsValue): boolean {
  return meet(a, b).kind === 'bottom';
}

// ---- stepwise growth: shape-preserving joins and skeletons --------------------------------

/**
 * A shape-preserving upper bound of `old` and `next`, for values that grow across the analyses
 * of one specialization (the partial evaluator's `grow`). Where both sides have the same
 * constructor the arguments join pointwise (the constructor skeleton is kept instead of a union
 * of two whole trees), unless they are records told apart by a known field (`tellApart`: two
 * commands with their own labels, with `apart`) or one nests the constructor where the other does
 * not (`nestsApart`: a chain's cell and its end), which stay apart as a union; members of a
 * union with different constructors stay apart; numeric
 * constant sets that grew become their base set (`{0} ⊔ {1}` = `'Int`), since a numeric leaf
 * that changes once (a counter, a label) usually keeps changing; maps with the same must-keys keep
 * them and join their values. Everything else falls back to `join`. Sound: the result contains
 * γ(old) ∪ γ(next) (pointwise joins of one constructor contain both products).
 *
 * Termination is not this function's business: the caller still widens after a bounded number
 * of changes and caps sizes with `boundedSkeleton`.
 */
export function shapeJoin(old: AbsValue, next: AbsValue, apart = true): AbsValue {
  if (old === next || leq(next, old)) return old;
  if (old.kind === 'bottom') return next;
  if (
    old.kind === 'con' &&
    next.kind === 'con' &&
    old.ctor === next.ctor &&
    old.args.length === next.args.length
  ) {
    if (apart && tellApart(old, next)) return union([old, next]);
    return con(
      old.ctor,
      old.args.map((a, i) => shapeJoin(a, next.args[i] as AbsValue)),
    );
  }
  if (old.kind === 'consts' && next.kind === 'consts') {
    const all = [...old.values, ...next.values];
    if (all.every((p) => typeof p === 'number'))
      return base(all.every((p) => inBase(p, 'Int')) ? 'Int' : 'Float');
    return union([old, next]);
  }
  if (
    old.kind === 'base' &&
    old.base !== 'Str' &&
    next.kind === 'consts' &&
    next.values.every((p) => typeof p === 'number')
  ) {
    return old.base === 'Float' || next.values.every((p) => inBase(p, 'Int')) ? old : base('Float');
  }
  if (old.kind === 'map' && next.kind === 'map' && sameMustKeys(old, next)) {
    return absMap(
      old.must.map(([k, x], i) => [k, shapeJoin(x, (next.must[i] as MapBinding)[1])] as const),
      [...old.may, ...next.may],
    );
  }
  if (old.kind === 'union' || next.kind === 'union') {
    // members meet their counterparts (same constructor, or same kind for the one consts, map,
    // set or base member a canonical union has); the rest are added
    let alts = old.kind === 'union' ? [...old.alts] : [old];
    for (const n of next.kind === 'union' ? next.alts : [next]) {
      const i = alts.findIndex((a) => counterpart(a, n) && !(apart && tellApart(a, n)));
      if (i >= 0) alts[i] = shapeJoin(alts[i] as AbsValue, n);
      else alts = [...alts, n];
    }
    return union(alts);
  }
  return join(old, next).value;
}

/**
 * Whether, at some argument, one of two nodes of one constructor nests that constructor and the
 * other holds a different one: `seq(seq(a, b), c)` and `seq(x, y)` with `x` not a `seq`. Joined
 * pointwise they would mix a chain's cells with its end (the first command of a block of copies
 * with the first command of one copy), so `shapeJoin` keeps them apart; a chain that keeps
 * growing that way is then one `foldSpines` can fold.
 */
function nestsApart(a: AbsValue & { kind: 'con' }, b: AbsValue & { kind: 'con' }): boolean {
  return a.args.some((x, i) => {
    const y = b.args[i] as AbsValue;
    return x.kind === 'con' && y.kind === 'con' && (x.ctor === a.ctor) !== (y.ctor === a.ctor);
  });
}

/**
 * Whether two nodes of one constructor are records told apart by a field both know exactly —
 * say two commands of a program with their own labels — and hold structure besides (a leaf like
 * a literal, whose known field is its value, is not told apart: values that keep changing are
 * what a join should merge). `shapeJoin` keeps such records apart instead of joining them
 * pointwise, which would mix their parts (the first command after one with the first after the
 * other); the partial evaluator then dispatches on that field. With `nesting`, nodes that
 * `nestsApart` tells apart stay apart too — in `shapeJoin`, not in the size caps' merges, where
 * keeping them apart would only split the budget (a staged pipeline gets slower, none more
 * precise).
 */
function tellApart(a: AbsValue, b: AbsValue, nesting = true): boolean {
  if (a.kind !== 'con' || b.kind !== 'con' || a.ctor !== b.ctor) return false;
  if (nesting && nestsApart(a, b)) return true;
  if (!a.args.some((x) => x.kind === 'con' || x.kind === 'union' || x.kind === 'fix' || x.kind === 'map'))
    return false;
  return a.args.some((x, i) => {
    const y = b.args[i] as AbsValue;
    return (
      x.kind === 'consts' &&
      y.kind === 'consts' &&
      x.values.length === 1 &&
      y.values.length === 1 &&
      !samePrim(x.values[0] as Prim, y.values[0] as Prim)
    );
  });
}

function counterpart(a: AbsValue, b: AbsValue): boolean {
  if (a.kind === 'con') return b.kind === 'con' && a.ctor === b.ctor && a.args.length === b.args.length;
  if (a.kind === 'consts' || a.kind === 'base')
    return (b.kind === 'consts' || b.kind === 'base') && primKind(a) === primKind(b);
  return (a.kind === 'map' || a.kind === 'set') && a.kind === b.kind;
}

/** 'num', 'str', 'bool' or 'mixed' for a consts or base node. */
function primKind(v: AbsValue): string {
  if (v.kind === 'base') return v.base === 'Str' ? 'str' : 'num';
  if (v.kind !== 'consts') return 'mixed';
  const kinds = new Set(
    v.values.map((p) => (typeof p === 'number' ? 'num' : typeof p === 'string' ? 'str' : 'bool')),
  );
  return kinds.size === 1 ? ([...kinds][0] as string) : 'mixed';
}

function sameMustKeys(a: AbsMap, b: AbsMap): boolean {
  return (
    a.must.length === b.must.length &&
    a.must.every(([k], i) => comparePrim(k, (b.must[i] as MapBinding)[0]) === 0)
  );
}

/**
 * An upper bound of `v` of at most `cap` open nodes (`openSize`: fully known parts count as
 * one) that keeps as much of its shape as fits: the constructor skeleton, unions and map
 * must-keys, with the biggest parts cut first. The budget is shared among a node's children by
 * water-filling (smallest first: a child that fits its share is kept whole, what it leaves goes
 * to the bigger ones), so a value that grew in one place — say the first command of a sequence,
 * built by unrolling a loop a late number of times — loses that part and keeps its small,
 * precise siblings, instead of losing everything below a uniform depth. With `numbersToTop`
 * numeric leaves become `1` first (a part that keeps changing after the fuel is spent is
 * usually a counter or a label). Fully known parts are kept whole. This replaces the cliff
 * from "too big" straight to `1`: a specialization that outgrew its fuel or size cap still
 * knows which constructors and which must-keys it handles, so the code working on them stays
 * specialized.
 */
export function boundedSkeleton(v: AbsValue, cap: number, numbersToTop = false): AbsValue {
  const start = numbersToTop ? cut(v, DEPTH_CAP * 4, true) : v;
  return fitWithin(start, Math.max(1, cap));
}

/**
 * The largest value with `v`'s constructors and map must-keys: every other part (numbers,
 * strings, map values, may-entries, sets, recursive values) becomes `1`. An upper bound of `v`
 * no larger than it. The partial evaluator pins a specialization's parameters or result to it
 * when their fuel is spent (rather than to `1`): a map whose keys are all known stays a map with
 * those keys — an environment keeps its slots, so code built from it stays arity-raised — and
 * one further change is still answered with `1`, so growth stays bounded.
 */
export function shapeTop(v: AbsValue): AbsValue {
  switch (v.kind) {
    case 'bottom':
    case 'top':
      return v;
    case 'rec':
    case 'fix':
    case 'base':
    case 'consts':
    case 'set':
      return top();
    case 'union': {
      const alts = mergeSameCtor(v.alts).map(shapeTop);
      return alts.some((a) => a.kind === 'top') ? top() : union(alts);
    }
    case 'con':
      return con(v.ctor, v.args.map(shapeTop));
    case 'map':
      return absMap(
        v.must.map(([k]) => [k, top()] as const),
        v.may.length > 0 ? [[top(), top()] as const] : [],
      );
    default:
      return assertNever(v);
  }
}

/** `v` cut to at most `budget` open nodes, its biggest children cut first (see `boundedSkeleton`). */
function fitWithin(v: AbsValue, budget: number): AbsValue {
  if (openSize(v) <= budget) return v;
  switch (v.kind) {
    case 'bottom':
    case 'top':
    case 'rec':
    case 'base':
    case 'consts':
      return v;
    case 'fix':
    case 'set':
      return top();
    case 'union': {
      // alternatives with one constructor merge argument-wise first (as `widen` does): the
      // constructor stays known, and the budget is not split among many copies of one shape;
      // records told apart by a known field (a command's label) stay apart
      const merged = mergeSameCtor(v.alts, undefined, true);
      if (merged.length < v.alts.length) return fitWithin(union(merged), budget);
      const alts = share(v.alts, budget - 1);
      return alts === undefined ? top() : union(alts);
    }
    case 'con': {
      const args = share(v.args, budget - 1);
      return args === undefined ? top() : con(v.ctor, args);
    }
    case 'map': {
      const parts = share(childrenOf(v), budget - 1);
      if (parts === undefined) return top();
      const must = v.must.map(([k], i) => [k, parts[i] as AbsValue] as const);
      const off = v.must.length;
      const may = v.may.map(
        (_, i) => [parts[off + 2 * i] as AbsValue, parts[off + 2 * i + 1] as AbsValue] as const,
      );
      return absMap(must, may);
    }
    default:
      return assertNever(v);
  }
}

/**
 * `alts` with the constructor alternatives of one constructor and arity (among those `which`
 * accepts) joined pointwise (`shapeJoin`, one level, unlike `mergeAlts`), each where its
 * constructor first occurs; with `apart`, records told apart by a known field (`tellApart`, not
 * by nesting) from the first of their constructor stay apart. An upper bound of the union of
 * `alts`.
 */
export function mergeSameCtor(
  alts: readonly AbsValue[],
  which: (ctor: string) => boolean = () => true,
  apart = false,
): AbsValue[] {
  const out: AbsValue[] = [];
  const at = new Map<string, number>();
  for (const a of alts) {
    if (a.kind !== 'con' || !which(a.ctor)) {
      out.push(a);
      continue;
    }
    const key = `${a.ctor}/${a.args.length}`;
    const i = at.get(key);
    if (apart && i !== undefined && tellApart(out[i] as AbsValue, a, false)) {
      out.push(a);
      continue;
    }
    if (i === undefined) {
      at.set(key, out.length);
      out.push(a);
    } else out[i] = shapeJoin(out[i] as AbsValue, a, false);
  }
  return out;
}

/**
 * `xs`, each cut to its share of `budget` open nodes: smallest first, each gets at most an equal
 * part of what is left (so the sum stays within `budget`); `undefined` when the budget cannot
 * give every child at least one node.
 */
function share(xs: readonly AbsValue[], budget: number): AbsValue[] | undefined {
  if (budget < xs.length) return undefined;
  const order = xs.map((x, i) => [openSize(x), i] as const).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const out: AbsValue[] = new Array(xs.length);
  let left = budget;
  order.forEach(([n, i], rank) => {
    const part = Math.min(n, Math.floor(left / (order.length - rank)));
    out[i] = fitWithin(xs[i] as AbsValue, part);
    left -= part;
  });
  return out;
}

/**
 * `v` with everything deeper than `depth` constructor, map or set levels replaced by `1`; numeric
 * leaves become their base set, or `1` with `numbersToTop`.
 */
function cut(v: AbsValue, depth: number, numbersToTop: boolean): AbsValue {
  // a fully known part is kept whole at any depth (unless its numbers are to go: a part that
  // keeps changing after the fuel is spent is usually a counter or a label)
  if (!numbersToTop && isConcrete(v)) return v;
  switch (v.kind) {
    case 'bottom':
    case 'top':
    case 'rec':
      return v;
    case 'base':
      return numbersToTop && v.base !== 'Str' ? top() : v;
    case 'consts': {
      const numeric = v.values.every((p) => typeof p === 'number');
      if (numeric && numbersToTop) return top();
      return numeric && v.values.length > 1
        ? base(v.values.every((p) => inBase(p, 'Int')) ? 'Int' : 'Float')
        : v;
    }
    case 'union':
      return union(v.alts.map((a) => cut(a, depth, numbersToTop)));
    case 'fix':
      // a recursive value is kept whole when it fits, else dropped (its variables are bound inside)
      return depth > 0 && !hasFreeRec(v) ? v : top();
    case 'con':
      if (depth <= 0) return top();
      return con(
        v.ctor,
        v.args.map((a) => cut(a, depth - 1, numbersToTop)),
      );
    case 'map':
      if (depth <= 0) return top();
      return absMap(
        v.must.map(([k, x]) => [k, cut(x, depth - 1, numbersToTop)] as const),
        v.may.map(([k, x]) => [cut(k, depth - 1, numbersToTop), cut(x, depth - 1, numbersToTop)] as const),
      );
    case 'set':
      return depth <= 0 ? top() : v;
    default:
      return assertNever(v);
  }
}

// ---- spines ---------------------------------------------------------------------------------

/** Shortest chain of one constructor through one argument that `foldSpines` folds. */
export const SPINE_MIN = 3;

/**
 * `v` with every long spine folded into a recursive value: a chain `C(h₁, C(h₂, … C(hₙ, z)))` of
 * one constructor through one argument (a list, or a right-nested `seq` of commands), n ≥
 * SPINE_MIN, becomes `fix α. z | C(h₁ ⊔ … ⊔ hₙ, α)` (heads joined pointwise by `shapeJoin`,
 * alternatives of the chain's tail among the `z`s; a tail that is itself such a fold is unfolded
 * into the chain). Folded only where the joined head is no bigger than twice the biggest head:
 * a chain of copies of one shape (the rounds of an unrolled loop) folds, a program's sequence of
 * different commands does not; not where an end is `1` (the fold would be `1`); fully known
 * parts are kept whole. The joined head gets fresh identity tags (it stands for several cells'
 * heads, which are not one value). Sound: every member of `v` is a member of the fold (induction
 * on the chain's length). Work: each node once per chain context (memoized), chains measured up
 * to SPINE_MEASURE cells, no recursion along a chain's length except through unions. What it is
 * for: a value that grows a cell per step is bounded by its fold, which keeps every constructor
 * of every cell, where `boundedSkeleton` would cut the chain to `1` past its budget (and
 * `widen`'s folding merges the cells with the chain itself).
 */
export function foldSpines(v: AbsValue): AbsValue {
  return foldIn(v, '', new Map());
}

/** A chain's kind: its constructor, arity, the argument it continues through, its cells' shape. */
interface Chain {
  readonly ctor: string;
  readonly arity: number;
  readonly p: number;
  readonly shape: string;
  /** The four as one string (a key in the `tried` lists). */
  readonly key: string;
}

function chainOf(v: AbsValue & { kind: 'con' }, p: number): Chain {
  const shape = cellShape(v, p);
  // delimited, so one key is never part of another in a `tried` list
  return {
    ctor: v.ctor,
    arity: v.args.length,
    p,
    shape,
    key: `\u0001${v.ctor}/${v.args.length}/${p}/${shape}\u0001`,
  };
}

/**
 * `foldSpines` below one node. `tried` lists the chains whose fold was already tried from a cell
 * above that `v` continues (their keys, concatenated): a chain is not tried again from each of
 * its later cells (that made a chain that does not fold cost its length cubed). Memoized per node
 * and `tried` (values share sub-values). Fully known parts are kept whole: the size caps count
 * them as one node, and folding would forget them.
 */
function foldIn(root: AbsValue, rootTried: string, memo: Map<AbsValue, Map<string, AbsValue>>): AbsValue {
  // an explicit stack (a chain that does not fold is walked cell by cell, thousands deep)
  interface Frame {
    readonly v: AbsValue;
    readonly tried: string;
    /** The children still to fold and the `tried` list each continues; undefined before the visit. */
    kids?: readonly (readonly [AbsValue, string])[];
    readonly done: AbsValue[];
  }
  const remember = (v: AbsValue, tried: string, out: AbsValue): AbsValue => {
    let byTried = memo.get(v);
    if (byTried === undefined) {
      byTried = new Map();
      memo.set(v, byTried);
    }
    byTried.set(tried, out);
    return out;
  };
  const stack: Frame[] = [{ v: root, tried: rootTried, done: [] }];
  let result: AbsValue = root;
  while (stack.length > 0) {
    const fr = stack[stack.length - 1] as Frame;
    const { v, tried } = fr;
    if (fr.kids === undefined) {
      const known = isConcrete(v) ? v : memo.get(v)?.get(tried);
      if (known !== undefined) {
        result = known;
        stack.pop();
        stack[stack.length - 1]?.done.push(result);
        continue;
      }
      const [f, triedHere] = foldSpineAt(v, tried);
      if (f !== undefined || (v.kind !== 'con' && v.kind !== 'union')) {
        result = remember(v, tried, f ?? v);
        stack.pop();
        stack[stack.length - 1]?.done.push(result);
        continue;
      }
      // argument i of a cell continues the chain through i just tried from it; alternatives of a
      // union continue the chains tried here and above
      fr.kids =
        v.kind === 'con'
          ? v.args.map((a, i) => [a, chainOf(v, i).key] as const)
          : v.alts.map((a) => [a, tried + triedHere] as const);
    }
    const kids = fr.kids;
    const next = kids[fr.done.length];
    if (next !== undefined) {
      stack.push({ v: next[0], tried: next[1], done: [] });
      continue;
    }
    const parts = fr.done;
    const same = parts.every((x, i) => x === (kids[i] as readonly [AbsValue, string])[0]);
    const out = same ? v : v.kind === 'con' ? con(v.ctor, parts) : union(parts);
    result = remember(v, tried, out);
    stack.pop();
    stack[stack.length - 1]?.done.push(result);
  }
  return result;
}

/** The constructors at the top of a chain cell's arguments other than `p` (cells of one shape agree). */
function cellShape(v: AbsValue & { kind: 'con' }, p: number): string {
  return v.args.map((a, i) => (i === p ? '' : a.kind === 'con' ? a.ctor : a.kind)).join(',');
}

function isCell(v: AbsValue, c: Chain): v is AbsValue & { kind: 'con' } {
  return v.kind === 'con' && v.ctor === c.ctor && v.args.length === c.arity && cellShape(v, c.p) === c.shape;
}

/** Longest chain needed to decide (`SPINE_MIN`) and to compare candidates: the walk stops there. */
const SPINE_MEASURE = 64;

/** Length of the longest chain of `c`'s cells from `v`, through union alternatives, at most SPINE_MEASURE. */
function spineLength(v: AbsValue, c: Chain, depth = 0): number {
  let n = 0;
  let x = v;
  while (n + depth < SPINE_MEASURE) {
    if (isCell(x, c)) {
      n++;
      x = x.args[c.p] as AbsValue;
    } else if (x.kind === 'union') {
      let m = 0;
      for (const a of x.alts) m = Math.max(m, spineLength(a, c, depth + n + 1));
      return n + m;
    } else return n;
  }
  return n;
}

/**
 * The fold of the longest spine starting at `v` (or at its alternatives), if there is one, and
 * the keys of the chains tried here (for the alternatives below, which continue them).
 */
function foldSpineAt(v: AbsValue, tried: string): [AbsValue | undefined, string] {
  const cons = v.kind === 'con' ? [v] : v.kind === 'union' ? v.alts.filter((a) => a.kind === 'con') : [];
  let best: Chain | undefined;
  let bestLength = 0;
  let triedHere = '';
  for (const c of cons) {
    if (c.kind !== 'con') continue;
    for (let p = 0; p < c.args.length; p++) {
      const chain = chainOf(c, p);
      if (tried.includes(chain.key) || triedHere.includes(chain.key)) continue;
      triedHere += chain.key;
      const n = spineLength(v, chain);
      if (n >= SPINE_MIN && n > bestLength) [best, bestLength] = [chain, n];
    }
  }
  if (best === undefined || hasFreeRec(v)) return [undefined, triedHere];
  const chain = best;
  // the cells' heads and the chain's ends, in the order a recursive walk would meet them
  const heads: AbsValue[][] = [];
  const tails: AbsValue[] = [];
  const seen = new Set<AbsValue>();
  const todo: AbsValue[] = [v];
  while (todo.length > 0) {
    const x = todo.pop() as AbsValue;
    if (isCell(x, chain)) {
      heads.push(x.args.filter((_, i) => i !== chain.p));
      todo.push(x.args[chain.p] as AbsValue);
    } else if (x.kind === 'union')
      for (let i = x.alts.length - 1; i >= 0; i--) todo.push(x.alts[i] as AbsValue);
    else if (x.kind === 'fix' && !seen.has(x)) {
      seen.add(x);
      todo.push(unfold(x));
    } else tails.push(x);
  }
  // an end that is `1` would make the fold `1`: a skeleton keeps more
  if (tails.some((t) => t.kind === 'top')) return [undefined, triedHere];
  const first = heads[0] as AbsValue[];
  const biggest = Math.max(...heads.map((h) => h.reduce((n, x) => n + size(x), 0)));
  const joined = [...first];
  for (const h of heads) {
    for (let j = 0; j < joined.length; j++)
      joined[j] = shapeJoin(joined[j] as AbsValue, h[j] as AbsValue, false);
    // heads of different shapes (a program's different commands) do not fold
    if (joined.reduce((n, x) => n + size(x), 0) > 2 * biggest) return [undefined, triedHere];
  }
  // the joined head stands for every cell's head: its identity tags are its own (two cells'
  // heads are not the same value because one node now describes both)
  const args = joined.map((a) => foldSpines(freshen(a)));
  args.splice(chain.p, 0, rec(0));
  // tails and heads are closed (no free variable in `v`), so they need no shift under the binder
  return [fix(union([...tails.map(foldSpines), con(chain.ctor, args)])), triedHere];
}
