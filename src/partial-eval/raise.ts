/**
 * Arity raising of maps with known keys: how the partial evaluator represents, in the residual
 * program, a map whose keys are all known at the early stage.
 *
 * Why. An optimizer's environment (`PMap<string, LatticeVal>`) usually has keys the early stage
 * knows exactly — the kernel's variable names — and values it does not. Residualized as a map,
 * every lookup and update stays a hashing map operation at the late stage (SCF Table 3 counts
 * those: they are most of an optimizer's time). Raised, the map is a tuple of its values in key
 * order: `map_find(env, 'i')` becomes `some(#n⁻³(env))` and `map_insert(env, 'i', v)` a new tuple
 * with one slot replaced — what the paper's staged code does with its per-variable locals.
 *
 * Representation (`Rep`), tracked with every residual value in the partial evaluator:
 * - `undefined` (plain): the value is represented as the optimizer itself represents it;
 * - `tuple(K)`: the value is a map with exactly the keys K (sorted), held as a `#|K|` tuple of
 *   its values, each plain;
 * - `con(c, reps)`: the value is a constructor `c` (certainly `c`) whose fields are represented
 *   by `reps` (some field, at some depth, holds a raised map).
 * Invariant: a residual expression with rep R evaluates, on every admitted input, to the value
 * the original expression computes, represented per R. Representations are decided where values
 * are made (a map insert on a raised map or a map literal with a known key; a constructor of
 * represented fields) and flow through variables, projections, lets and calls. Wherever two reps
 * meet (the branches of an `if` or of a dispatch, a call's argument against the callee's
 * parameter, a body's result against the specialization's result) one rule decides
 * (`Raiser.meeting`, applied by `meet` and `meetAll`): where they differ both sides become plain,
 * which is always possible (`plainCode`) — except that a side whose parts under the other's
 * raised positions are constants takes the other side's representation (those constants as
 * literals of their view, through constructors, `if` and `let`; not among a dispatch's branches),
 * and a constant argument counts as represented the way its value naturally is (`literalRep`: a
 * map raised), so a fully known environment does not make plain the helpers it is passed to; a
 * specialization's first result that is plain with constant maps decides that natural
 * representation too. A specialization's parameter and result
 * reps only ever change to plain, so this adds a bounded number of re-analyses to the partial
 * evaluator's fixpoint.
 *
 * Operations on a raised map `m` with keys K (`Raiser.raisedPrim`): `map_find(m, k)` with k known
 * is `some(#n⁻ⁱ m)`, with k late a chain of comparisons of k with the keys it may be
 * (`findByCases`: string keys, at most FIND_CASES of them; building the map again to look one key
 * up would cost a map insert per key); `map_insert(m, k, x)` of a key of K is a tuple literal with
 * slot i replaced (straight-line updates stay literals, which the JS engine keeps out of the
 * heap), or, under a late test, `tuple_with(m, i, x)` (one element replaced: a chain of
 * conditional updates — a dataflow pass's kill over all its variables — stays linear in code
 * size, where literals of every slot would make it quadratic); of a new key, a literal of the
 * wider tuple; `map_has`, `map_size` and `map_keys` are constants.
 *
 * Specialization. Which arguments are raised maps (and their keys) is part of a call's
 * specialization key (`repSignature`), so a helper called with a raised map at one place and a
 * plain one at another is specialized for each: one plain caller does not make the parameter
 * plain for every caller (through the helpers shared by all the commands of a kernel, that made
 * most environments plain). Only a map passed as itself counts, not one inside a constructor:
 * keying on those too (a dataflow state holding an environment) doubled whole trees of
 * specializations and staging time. A specialization's first analysis decides its result's
 * representation; a plain first result whose maps are constants decides the one those constants
 * naturally have (raised), since a first analysis often sees only constants (no facts yet) and a
 * plain decision would make every later, raised, result plain. The entry's parameters and result
 * are plain (the staged code's interface).
 *
 * The collecting semantics records, for an expression with a non-plain rep, the value *as
 * represented* (`viewOf`: the tuple of the map's slot values), so that dead-assignment
 * elimination reasons about the code as it is.
 */
import { Map as IMap } from 'immutable';
import type { SourceSpan } from '../common/index.js';
import {
  type AbsValue,
  ABS_PRIMS,
  con,
  constant,
  comparePrim,
  fromConcrete,
  mustIndex,
  normPrim,
  type Prim,
  primIndex,
  project,
  sortPrims,
  top,
} from '../abstract-values/index.js';
import { type PMap, setAdd, setEmpty } from '../scf-lang/prelude.js';
import { type CoreExpr, isPrim, type Value } from '../scf-lang/index.js';
import { FIND_CASES, RAISE_CAP } from './limits.js';
import { truthValues } from './narrow.js';
import { type Binding, type ResidualBuilder, View } from './residual.js';
import type { PeStats } from './types.js';

export type Rep =
  | undefined
  | { readonly kind: 'tuple'; readonly keys: readonly Prim[] }
  | { readonly kind: 'con'; readonly ctor: string; readonly args: readonly Rep[] };

export function tupleRep(keys: readonly Prim[]): Rep {
  return { kind: 'tuple', keys };
}

/** The rep of a constructor built from fields with `args` reps: plain when every field is. */
export function conRep(ctor: string, args: readonly Rep[]): Rep {
  return args.some((a) => a !== undefined) ? { kind: 'con', ctor, args } : undefined;
}

export function sameRep(a: Rep, b: Rep): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined) return false;
  if (a.kind === 'tuple')
    return (
      b.kind === 'tuple' &&
      a.keys.length === b.keys.length &&
      a.keys.every((k, i) => comparePrim(k, b.keys[i] as Prim) === 0)
    );
  return (
    b.kind === 'con' &&
    a.ctor === b.ctor &&
    a.args.length === b.args.length &&
    a.args.every((x, i) => sameRep(x, b.args[i]))
  );
}

/** The position of `key` in sorted `keys`, or -1. */
export function keyIndex(keys: readonly Prim[], key: Prim): number {
  return primIndex(keys, normPrim(key));
}

/** `keys` with `key` added (sorted, no duplicate). */
export function withKey(keys: readonly Prim[], key: Prim): Prim[] {
  return sortPrims([...keys, normPrim(key)]);
}

/** The abstract value of the map `v`'s entry for `key` (`1` when `v` does not say). */
export function slotValue(v: AbsValue, key: Prim): AbsValue {
  // the common case, a map that certainly has `key`, without building `some(…)` to take it apart
  if (v.kind === 'map') {
    const i = mustIndex(v.must, normPrim(key));
    if (i >= 0) return (v.must[i] as readonly [Prim, AbsValue])[1];
  }
  // values are immutable and the same environment is viewed at many bindings: remember slots
  let slots = SLOTS.get(v);
  if (slots === undefined) {
    slots = new Map();
    SLOTS.set(v, slots);
  }
  const k = normPrim(key);
  let out = slots.get(k);
  if (out === undefined) {
    const found = ABS_PRIMS.map_find(v, constant(key));
    out = found.kind === 'con' && found.ctor === 'some' ? (found.args[0] as AbsValue) : top();
    slots.set(k, out);
  }
  return out;
}

/** `slotValue`'s answers per value and key. */
const SLOTS = new WeakMap<AbsValue, Map<Prim, AbsValue>>();

/** The value `v` as `rep` represents it: what the residual code computes. */
export function viewOf(v: AbsValue, rep: Rep): AbsValue {
  if (rep === undefined) return v;
  if (rep.kind === 'tuple') {
    return con(
      `#${rep.keys.length}`,
      rep.keys.map((k) => slotValue(v, k)),
    );
  }
  return con(
    rep.ctor,
    rep.args.map((r, i) => viewOf(project(rep.ctor, i, v), r)),
  );
}

// ---- raising in the partial evaluator ----------------------------------------------------------

/** How a binding meets a representation it must take (`Raiser.meeting`). */
export type Meeting = 'same' | 'takes' | 'differs';

/**
 * Arity raising as the partial evaluator (pe.ts) does it: map operations on raised maps as
 * tuple operations (`raisedPrim`), and where representations meet (`meeting`, the one rule;
 * `meet` for one binding and the representation it flows into, `meetAll` for bindings that flow
 * to one place), with the conversions they take (`literalAs`, `plain`). Code is made with the
 * evaluator's `ResidualBuilder`.
 */
export class Raiser {
  constructor(
    private readonly code: ResidualBuilder,
    private readonly stats: PeStats,
    private readonly raiseMaps: boolean,
  ) {}

  /**
   * Where binding `b` meets representation `rep` — a parameter's, a result's, another branch's:
   * `same` when `b` has it; `takes` when `b` is plain and `rep` can represent it without building
   * anything at the late stage (`representable`: constants, through constructors, `if` and
   * `let`); else `differs`: `b` must be plain, and so must whatever has `rep`.
   */
  meeting(b: Binding, rep: Rep): Meeting {
    if (sameRep(b.rep, rep)) return 'same';
    return this.representable(b, rep) ? 'takes' : 'differs';
  }

  /** `b` where it meets `rep` (`meeting`): as it is, taking `rep`, or plain. */
  meet(b: Binding, rep: Rep, span: SourceSpan): Binding {
    const m = this.meeting(b, rep);
    return m === 'same' ? b : m === 'takes' ? this.literalAs(b, rep, span) : this.plain(b, span);
  }

  /**
   * Bindings that flow to one place (the branches of an `if` or of a dispatch), with the one
   * representation they then share. Only those that return count (a binding with no value, `0`,
   * is left as it is): the representation they all have; else, where `constantsTake`, the first
   * one's that every other meets without differing (`meeting`: the others, constants, take it);
   * else plain, all of them. A dispatch's branches (calls, each of its own specialization) do
   * not take: there a differing representation makes them all plain.
   */
  meetAll(
    bs: readonly Binding[],
    span: SourceSpan,
    constantsTake: boolean,
  ): { readonly bs: readonly Binding[]; readonly rep: Rep } {
    const live = bs.filter((b) => b.v.kind !== 'bottom');
    if (live.length === 0) return { bs, rep: (bs[bs.length - 1] as Binding).rep };
    const rep0 = (live[0] as Binding).rep;
    if (live.every((b) => sameRep(b.rep, rep0))) return { bs, rep: rep0 };
    if (constantsTake)
      for (const c of live) {
        if (c.rep === undefined || !live.every((b) => this.meeting(b, c.rep) !== 'differs')) continue;
        return { bs: bs.map((b) => (b.v.kind === 'bottom' ? b : this.meet(b, c.rep, span))), rep: c.rep };
      }
    return { bs: bs.map((b) => this.plain(b, span)), rep: undefined };
  }

  /**
   * Whether `b`, held plainly, can take representation `rep` without building anything at the late
   * stage (`literalAs`): a constant that `rep` can represent, or a constructor whose fields that
   * `rep` raises are such constants, at any depth (a state `cyState(false, K)` with a known map K,
   * beside states whose maps are raised).
   */
  representable(b: Binding, rep: Rep): boolean {
    return rep !== undefined && b.rep === undefined && this.canTake(b.r, b.v, rep);
  }

  private canTake(r: CoreExpr, v: AbsValue, rep: Rep): boolean {
    if (rep === undefined || v.kind === 'bottom') return true;
    if (r.kind === 'lit') return fitsRep(v, rep);
    if (r.kind === 'if') return this.canTakeAt(r.then, rep) && this.canTakeAt(r.else, rep);
    if (r.kind === 'let') return this.canTakeAt(r.body, rep);
    if (rep.kind !== 'con' || r.kind !== 'con' || r.ctor !== rep.ctor || r.args.length !== rep.args.length)
      return false;
    return r.args.every((a, i) => this.canTakeAt(a, rep.args[i]));
  }

  /** `canTake` for a sub-expression, whose value is what the collecting semantics recorded. */
  private canTakeAt(r: CoreExpr, rep: Rep): boolean {
    const v = this.code.cs.get(r.label);
    return v !== undefined && !(v instanceof View) && this.canTake(r, v, rep);
  }

  /** `b` represented per `rep` (which it is `representable` as): constants as literals of their view. */
  literalAs(b: Binding, rep: Rep, span: SourceSpan): Binding {
    return { v: b.v, r: this.retake(b.r, b.v, rep, span), rep };
  }

  private retake(r: CoreExpr, v: AbsValue, rep: Rep, span: SourceSpan): CoreExpr {
    if (rep === undefined || v.kind === 'bottom') return r;
    const at = (x: CoreExpr, xrep: Rep) => this.retake(x, this.code.cs.get(x.label) as AbsValue, xrep, span);
    let made: CoreExpr | undefined;
    if (r.kind === 'con') {
      const reps = (rep as Extract<Rep, { kind: 'con' }>).args;
      made = this.code.node({ kind: 'con', ctor: r.ctor, args: r.args.map((a, i) => at(a, reps[i])) }, span);
    } else if (r.kind === 'if') {
      // biome-ignore lint/suspicious/noThenProperty: Core's `if` node has a `then` field
      made = this.code.node({ kind: 'if', cond: r.cond, then: at(r.then, rep), else: at(r.else, rep) }, span);
    } else if (r.kind === 'let') {
      made = this.code.node({ kind: 'let', name: r.name, value: r.value, body: at(r.body, rep) }, span);
    }
    if (made !== undefined) {
      this.code.cs.set(made.label, new View(v, rep));
      return made;
    }
    const s = this.code.single(viewOf(v, rep));
    if (s === undefined) throw new Error('internal error: a constant whose view is not constant');
    const l = this.code.node({ kind: 'lit', value: s.value as Value }, span);
    this.code.cs.set(l.label, new View(v, rep));
    return l;
  }

  /** `b` represented plainly: raised maps inside it are built as maps again. */
  plain(b: Binding, span: SourceSpan): Binding {
    if (b.rep === undefined) return b;
    this.stats.materialized++;
    return { v: b.v, r: this.plainCode(b.r, b.v, b.rep, span) };
  }

  private plainCode(r: CoreExpr, v: AbsValue, rep: Rep, span: SourceSpan): CoreExpr {
    if (rep === undefined) return r;
    return this.withVar(r, v, rep, span, (x) => {
      if (rep.kind === 'tuple') {
        // map_insert(…map_insert(map_empty(), k0, #n⁻⁰ x)…, kn, #n⁻ⁿ x)
        let m: Binding = {
          v: ABS_PRIMS.map_empty(),
          r: this.code.node({ kind: 'prim', op: 'map_empty', args: [] }, span),
        };
        this.code.cs.set(m.r.label, m.v);
        rep.keys.forEach((k, i) => {
          const slot = this.slot(x, v, rep.keys, i, span);
          const mv = ABS_PRIMS.map_insert(m.v, constant(k), slot.v);
          m = {
            v: mv,
            r: this.code.node(
              { kind: 'prim', op: 'map_insert', args: [m.r, this.code.litNode(k, span), slot.r] },
              span,
            ),
          };
          this.code.cs.set(m.r.label, mv);
        });
        return m.r;
      }
      // c(plain(c⁻⁰ x), …)
      const fields = rep.args.map((fr, i) => {
        const fv = project(rep.ctor, i, v);
        const p = this.code.node({ kind: 'proj', ctor: rep.ctor, index: i, arg: x }, span);
        this.code.cs.set(p.label, new View(fv, fr));
        return this.plainCode(p, fv, fr, span);
      });
      const c = this.code.node({ kind: 'con', ctor: rep.ctor, args: fields }, span);
      this.code.cs.set(c.label, v);
      return c;
    });
  }

  /** Slot `i` of the raised map held by the variable `x`: `#n⁻ⁱ x` (plain by the invariant). */
  private slot(x: CoreExpr, v: AbsValue, keys: readonly Prim[], i: number, span: SourceSpan): Binding {
    const sv = slotValue(v, keys[i] as Prim);
    const r = this.code.node(
      { kind: 'proj', ctor: this.code.tupleCtor(keys.length), index: i, arg: x },
      span,
    );
    this.code.cs.set(r.label, sv);
    return { v: sv, r };
  }

  /** `make(x)` where `x` is `r` itself when it is a variable, else a let-bound one. */
  private withVar(
    r: CoreExpr,
    v: AbsValue,
    rep: Rep,
    span: SourceSpan,
    make: (x: CoreExpr) => CoreExpr,
  ): CoreExpr {
    if (r.kind === 'var') return make(r);
    const name = this.code.temp();
    const x = this.code.node({ kind: 'var', name }, span);
    this.code.cs.set(x.label, new View(v, rep));
    const body = make(x);
    const l = this.code.node({ kind: 'let', name, value: r, body }, span);
    this.code.cs.set(l.label, this.code.cs.get(body.label) ?? top());
    return l;
  }

  /** A copy of an atom (`isAtom`) with fresh labels (labels are unique in the residual program). */
  copyAtom(r: CoreExpr): CoreExpr {
    const c =
      r.kind === 'proj'
        ? this.code.node({ kind: 'proj', ctor: r.ctor, index: r.index, arg: this.copyAtom(r.arg) }, r.span)
        : this.code.node({ ...(r as Extract<CoreExpr, { kind: 'var' | 'lit' }>) }, r.span);
    const v = this.code.cs.get(r.label);
    if (v !== undefined) this.code.cs.set(c.label, v);
    return c;
  }

  /** `b`, with a raised map at its top made plain (tests and projections need the map itself). */
  tupleFree(b: Binding, span: SourceSpan): Binding {
    return b.rep?.kind === 'tuple' ? this.plain(b, span) : b;
  }

  /**
   * Map operations with a known key on a raised map (or a map constant) as tuple operations:
   *   map_find(m, k)      => some(#n⁻ⁱ m)         (k the i-th key; `none` when k is not a key)
   *   map_insert(m, k, x) => #n'(…, x, …)         (slot replaced, or added in key order)
   *   map_delete(m, k)    => #n'(… without k …)
   *   map_has / map_size / map_keys                => constants (the keys are known)
   * `undefined` when the operation is not of that form (the caller residualizes it plainly). `late`:
   * whether a test with a late condition is open around the operation.
   */
  raisedPrim(op: string, args: readonly Binding[], span: SourceSpan, late: boolean): Binding | undefined {
    if (!this.raiseMaps) return undefined;
    const [m, k, x] = args as [Binding, Binding | undefined, Binding | undefined];
    if (m === undefined) return undefined;
    const key = k?.r.kind === 'lit' && isPrim(k.r.value) ? (k.r.value as Prim) : undefined;
    const keys = this.knownKeys(m);
    if (keys === undefined) return undefined;
    switch (op) {
      case 'map_find': {
        if (key === undefined) return this.findByCases(m, k as Binding, keys, span);
        if (m.rep === undefined) return undefined;
        const v = ABS_PRIMS.map_find(m.v, (k as Binding).v);
        const i = keyIndex(keys, key);
        this.stats.raisedOps++;
        let slot: Binding | undefined;
        const b = this.code.bind(
          v,
          () =>
            this.withVar(m.r, m.v, m.rep, span, (mx) => {
              if (i < 0) return this.code.node({ kind: 'con', ctor: 'none', args: [] }, span);
              slot = this.slot(mx, m.v, keys, i, span);
              return this.code.node({ kind: 'con', ctor: 'some', args: [slot.r] }, span);
            }),
          span,
          undefined,
        );
        // `some(#n⁻ⁱ m)`: its field is the slot, an atom when `m` is a variable
        return slot !== undefined && m.r.kind === 'var' && b.r.kind === 'con'
          ? { ...b, fields: { ctor: 'some', args: [slot] } }
          : b;
      }
      case 'map_insert':
      case 'map_delete': {
        if (key === undefined) return undefined;
        const next =
          op === 'map_insert' ? withKey(keys, key) : keys.filter((_, j) => j !== keyIndex(keys, key));
        if (next.length > RAISE_CAP) return undefined;
        const value = op === 'map_insert' ? this.plain(x as Binding, span) : undefined;
        const v =
          op === 'map_insert'
            ? ABS_PRIMS.map_insert(m.v, (k as Binding).v, (value as Binding).v)
            : ABS_PRIMS.map_delete(m.v, (k as Binding).v);
        this.stats.raisedOps++;
        const rep = tupleRep(next);
        const at = value === undefined || m.rep === undefined ? -1 : keyIndex(keys, key);
        if (at >= 0 && late) {
          // an existing key of a raised map: one element replaced (a tuple literal of every slot
          // would make a chain of updates, as a dataflow pass's kill over all variables is,
          // quadratic in code size)
          return this.code.bind(
            v,
            () =>
              this.code.node(
                {
                  kind: 'prim',
                  op: 'tuple_with',
                  args: [m.r, this.code.constNode(at, span), (value as Binding).r],
                },
                span,
              ),
            span,
            rep,
          );
        }
        return this.code.bind(
          v,
          () =>
            this.withVar(m.r, m.v, m.rep, span, (mx) => {
              const slots = next.map((kk) =>
                value !== undefined && keyIndex([kk], key) === 0
                  ? value.r
                  : this.entryCode(m, mx, keys, keyIndex(keys, kk), span),
              );
              return this.code.node(
                { kind: 'con', ctor: this.code.tupleCtor(next.length), args: slots },
                span,
              );
            }),
          span,
          rep,
        );
      }
      case 'map_has':
      case 'map_size':
      case 'map_keys': {
        // the keys are known: so is the answer
        if (m.rep === undefined || (op === 'map_has' && key === undefined)) return undefined;
        const value: Value =
          op === 'map_size'
            ? keys.length
            : op === 'map_has'
              ? keyIndex(keys, key as Prim) >= 0
              : keys.reduce((acc, kk) => setAdd(acc, kk), setEmpty<Prim>());
        this.stats.raisedOps++;
        return { v: fromConcrete(value, this.code.ctors), r: this.code.constNode(value, span) };
      }
      default:
        return undefined;
    }
  }

  /**
   * `map_find(m, k)` on a raised map with a late key: a chain of key comparisons, each giving its
   * slot (`k === k0 ? some(#n⁻⁰ m) : k === k1 ? … : none`), over the keys `k` may be, instead of
   * building the map again to look one key up (`plain`: a map insert per key). For string keys
   * only (`eq` is `===`, which agrees with the map's key equality on strings), and at most
   * FIND_CASES keys that `k` may be.
   */
  private findByCases(m: Binding, k: Binding, keys: readonly Prim[], span: SourceSpan): Binding | undefined {
    if (k.rep !== undefined || !keys.every((x) => typeof x === 'string')) return undefined;
    const cases: number[] = [];
    for (let i = 0; i < keys.length; i++) {
      if (truthValues(ABS_PRIMS.eq(k.v, constant(keys[i] as Prim))).t) cases.push(i);
    }
    if (cases.length > FIND_CASES) return undefined;
    const v = ABS_PRIMS.map_find(m.v, k.v);
    this.stats.raisedOps++;
    const chain = (mx: CoreExpr, kx: CoreExpr): CoreExpr => {
      let out = this.code.node({ kind: 'con', ctor: 'none', args: [] }, span);
      for (let j = cases.length - 1; j >= 0; j--) {
        const i = cases[j] as number;
        const cond = this.code.node(
          { kind: 'prim', op: 'eq', args: [this.copyAtom(kx), this.code.litNode(keys[i] as Prim, span)] },
          span,
        );
        const found = this.code.node(
          { kind: 'con', ctor: 'some', args: [this.entryCode(m, this.copyAtom(mx), keys, i, span)] },
          span,
        );
        // biome-ignore lint/suspicious/noThenProperty: Core's `if` node has a `then` field
        out = this.code.node({ kind: 'if', cond, then: found, else: out }, span);
        this.code.cs.set(out.label, v);
      }
      return out;
    };
    // (a map constant is not read by the chain: its entries are constants)
    const withMap = (make: (mx: CoreExpr) => CoreExpr) =>
      m.rep === undefined ? make(m.r) : this.withVar(m.r, m.v, m.rep, span, make);
    return this.code.bind(
      v,
      () => withMap((mx) => this.withVar(k.r, k.v, undefined, span, (kx) => chain(mx, kx))),
      span,
      undefined,
    );
  }

  /**
   * The code of the `i`-th entry (of `keys`) of a raised map held in the atom `mx`: its slot; of a
   * map constant (`m.r` a literal): the entry itself, a constant.
   */
  private entryCode(m: Binding, mx: CoreExpr, keys: readonly Prim[], i: number, span: SourceSpan): CoreExpr {
    if (m.rep !== undefined) return this.slot(mx, m.v, keys, i, span).r;
    const c = (m.r as Extract<CoreExpr, { kind: 'lit' }>).value as PMap<Prim, Value>;
    return this.code.constNode(c.get(keys[i] as Prim) as Value, span);
  }

  /** The keys of a raised map, or of a map constant small enough to raise; else `undefined`. */
  private knownKeys(m: Binding): readonly Prim[] | undefined {
    if (m.rep?.kind === 'tuple') return m.rep.keys;
    if (m.rep !== undefined || m.r.kind !== 'lit' || !IMap.isMap(m.r.value)) return undefined;
    const c = m.r.value as PMap<Prim, Value>;
    if (c.size > RAISE_CAP) return undefined;
    return [...c.keys()].map(normPrim).sort(comparePrim);
  }
}

/**
 * The arguments that are raised maps, as a string that is part of the call's specialization key;
 * `undefined` when none is. Only a map passed as itself counts (a tuple of its keys), not one
 * inside a constructor: keying on those too (a dataflow state holding an environment) doubled
 * whole trees of specializations and staging time, for little.
 */
export function repSignature(reps: readonly Rep[]): string | undefined {
  if (!reps.some((r) => r?.kind === 'tuple')) return undefined;
  return reps
    .map((r) => (r?.kind === 'tuple' ? `#(${r.keys.map((k) => JSON.stringify(k)).join(',')})` : '_'))
    .join(';');
}

/**
 * The representation a constant takes naturally: a map with at most RAISE_CAP keys is raised, a
 * constructor holding one is represented, anything else is plain.
 */
export function literalRep(v: AbsValue): Rep {
  if (v.kind === 'map')
    return v.may.length === 0 && v.must.length <= RAISE_CAP ? tupleRep(v.must.map(([k]) => k)) : undefined;
  if (v.kind === 'con') return conRep(v.ctor, v.args.map(literalRep));
  return undefined;
}

/** Whether every value `v` holds can be represented per `rep` (the maps have exactly its keys). */
function fitsRep(v: AbsValue, rep: Rep): boolean {
  if (rep === undefined) return true;
  if (rep.kind === 'tuple')
    return (
      v.kind === 'map' &&
      v.may.length === 0 &&
      v.must.length === rep.keys.length &&
      v.must.every(([k], i) => comparePrim(k, rep.keys[i] as Prim) === 0)
    );
  return v.kind === 'con' && v.ctor === rep.ctor && v.args.every((a, i) => fitsRep(a, rep.args[i]));
}
