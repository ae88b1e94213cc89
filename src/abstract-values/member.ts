/**
 * Concrete membership: `conforms(t, v)` decides t ∈ Ψ(v, []) (SCF §3.3, Table 1), and the
 * reverse direction for small sets: the single member of a singleton abstract value, or all
 * members of a small finite one.
 *
 * Concrete values are SCF-lang's native values (`scf-lang/values.ts`): primitives, constructor
 * objects `{ kind, …fields }` (field order from the constructor table), tuples as arrays (Core
 * constructor `#n`), Immutable.js maps and sets with primitive keys.
 *
 * Algorithm: one walk over the concrete value, choosing union alternatives by trial. A `fix` is
 * entered with its node pushed on an environment; a variable jumps back to its fix. A fix
 * re-entered without consuming a constructor is an unproductive cycle and fails (least
 * fixpoint), so the walk always terminates: every other step descends into the finite value.
 * The walk keeps its and/or frames in an array, not on the call stack, and the conversions
 * between concrete and abstract values follow a constructor's last field (a list's tail) by a
 * loop: values as deep as memory allows (a 10^6-element list) take linear time and no stack.
 */
import { Map as IMap, Set as ISet } from 'immutable';
import {
  type AbsValue,
  absMap,
  absSet,
  anyBool,
  assertNever,
  bottom,
  comparePrim,
  normPrim,
  constant,
  con,
  type Fix,
  inBase,
  isNeverOneMemberForm,
  type Prim,
  primIndex,
} from './value.js';

/** What the abstract domain needs to know about a constructor: its fields, in Core order. */
export interface CtorInfo {
  readonly fields: readonly string[];
  readonly repr?: 'object' | 'tuple';
}
/** Constructor name → fields; `ReadonlyMap<string, CtorDecl>` from a Core program fits. */
export type CtorTable = ReadonlyMap<string, CtorInfo>;

/** The prelude's constructors: options and cons lists. */
export const PRELUDE_CTORS: CtorTable = new Map<string, CtorInfo>([
  ['none', { fields: [] }],
  ['some', { fields: ['value'] }],
  ['nil', { fields: [] }],
  ['cons', { fields: ['head', 'tail'] }],
]);

/** `#n` is the tuple constructor of arity n. */
export function tupleArity(ctor: string): number | undefined {
  if (!ctor.startsWith('#')) return undefined;
  const n = Number(ctor.slice(1));
  return Number.isInteger(n) && n >= 0 ? n : undefined;
}

/** A table extended with the prelude constructors (a program's own table already has them). */
export function withPrelude(ctors: CtorTable | undefined): CtorTable {
  if (ctors === undefined) return PRELUDE_CTORS;
  if (ctors.has('cons') && ctors.has('some')) return ctors;
  const out = new Map<string, CtorInfo>(PRELUDE_CTORS);
  for (const [k, v] of ctors) out.set(k, v);
  return out;
}

export function isPrimValue(x: unknown): x is Prim {
  const t = typeof x;
  return t === 'number' || t === 'string' || t === 'boolean';
}

function isCtorObject(x: unknown): x is { readonly kind: string; readonly [f: string]: unknown } {
  return (
    typeof x === 'object' &&
    x !== null &&
    !Array.isArray(x) &&
    !IMap.isMap(x) &&
    !ISet.isSet(x) &&
    typeof (x as { kind?: unknown }).kind === 'string'
  );
}

/** Field names of a constructor value: from the table, else the object's own keys (minus `kind`). */
export function fieldsOf(ctor: string, ctors: CtorTable, obj?: object): readonly string[] | undefined {
  const info = ctors.get(ctor);
  if (info !== undefined) return info.fields;
  if (obj !== undefined) return Object.keys(obj).filter((k) => k !== 'kind');
  return undefined;
}

/** t ∈ Ψ(v): whether the concrete value `t` conforms to the closed abstract value `v`. */
export function conforms(t: unknown, v: AbsValue, ctors?: CtorTable): boolean {
  return conf(t, v, withPrelude(ctors));
}

/** Whether the constant `p` itself (SameValue: -0 is not 0) is a member of `v`. */
export function primMember(p: Prim, v: AbsValue): boolean {
  return conf(p, v, PRELUDE_CTORS);
}

/**
 * Whether primitive `p` may equal a member of `v` as a map key or set element (SameValueZero: 0
 * and -0 are one key).
 */
export function primIn(p: Prim, v: AbsValue): boolean {
  if (p === 0) return conf(0, v, PRELUDE_CTORS) || conf(-0, v, PRELUDE_CTORS);
  return conf(p, v, PRELUDE_CTORS);
}

/**
 * A question of the walk: is `t` a member of `v` (under `env`, with `guard` the fixes entered
 * since the last constructor), or an `and` / `or` of such questions.
 */
type Goal =
  | {
      readonly t: unknown;
      readonly v: AbsValue;
      readonly env: readonly Fix[];
      readonly guard: ReadonlySet<Fix>;
    }
  | { readonly op: 'and' | 'or'; readonly goals: readonly Goal[] };

const NO_FIXES: ReadonlySet<Fix> = new Set();

/**
 * The walk of the module header, with an explicit stack of `and` / `or` frames instead of
 * recursion, so its depth is bounded by memory, not by the call stack. Each frame's last goal
 * replaces the frame (it decides the frame's answer), so walking a list takes one frame, not
 * one per cell. Goals are tried in the order a recursive walk tries them, with the same
 * short-circuits.
 */
function conf(t0: unknown, v0: AbsValue, ctors: CtorTable): boolean {
  const frames: { readonly and: boolean; readonly goals: readonly Goal[]; next: number }[] = [];
  let g: Goal = { t: t0, v: v0, env: [], guard: NO_FIXES };
  for (;;) {
    let r = false;
    let sub: Goal | undefined;
    if ('op' in g) {
      const n = g.goals.length;
      if (n === 0) r = g.op === 'and';
      else {
        if (n > 1) frames.push({ and: g.op === 'and', goals: g.goals, next: 1 });
        sub = g.goals[0];
      }
    } else {
      const step = expand(g, ctors);
      if (typeof step === 'boolean') r = step;
      else sub = step;
    }
    if (sub !== undefined) {
      g = sub;
      continue;
    }
    // answer `r` to the frames: an `and` that got false or an `or` that got true is decided
    // (it answers `r` in turn); otherwise its next goal, which replaces it when it is the last
    let resumed = false;
    while (frames.length > 0 && !resumed) {
      const f = frames[frames.length - 1] as {
        readonly and: boolean;
        readonly goals: readonly Goal[];
        next: number;
      };
      if (f.and !== r) {
        frames.pop();
        continue;
      }
      g = f.goals[f.next] as Goal;
      f.next++;
      if (f.next === f.goals.length) frames.pop();
      resumed = true;
    }
    if (!resumed) return r;
  }
}

type Leaf = Extract<Goal, { readonly t: unknown }>;

/** One goal `t ∈ v` of `conf`: its answer when a test decides it, or the goal it reduces to. */
function expand(g: Leaf, ctors: CtorTable): boolean | Goal {
  const { t, v, env, guard } = g;
  switch (v.kind) {
    case 'bottom':
      return false;
    case 'top':
      return true;
    case 'consts':
      return isPrimValue(t) && primIndex(v.values, t) >= 0;
    case 'base':
      return isPrimValue(t) && inBase(t, v.base);
    case 'union':
      return { op: 'or', goals: v.alts.map((a) => ({ t, v: a, env, guard })) };
    case 'fix': {
      if (guard.has(v)) return false;
      const next = new Set(guard);
      next.add(v);
      return { t, v: v.body, env: [...env, v], guard: next };
    }
    case 'rec': {
      const at = env.length - 1 - v.index;
      const f = env[at];
      if (f === undefined) throw new Error('conforms: abstract value has a free variable');
      return { t, v: f, env: env.slice(0, at), guard };
    }
    case 'con': {
      const n = tupleArity(v.ctor);
      let parts: readonly unknown[];
      if (n !== undefined) {
        if (!Array.isArray(t) || t.length !== n || v.args.length !== n) return false;
        parts = t;
      } else {
        if (!isCtorObject(t) || t.kind !== v.ctor) return false;
        const fields = fieldsOf(v.ctor, ctors, t) as readonly string[];
        if (fields.length !== v.args.length) return false;
        parts = fields.map((f) => t[f]);
      }
      return { op: 'and', goals: v.args.map((a, i) => ({ t: parts[i], v: a, env, guard: NO_FIXES })) };
    }
    case 'map':
      return mapGoal(t, v, env);
    case 'set': {
      if (!ISet.isSet(t)) return false;
      const s = t as ISet<unknown>;
      if (!v.must.every((p) => s.has(p))) return false;
      const goals: Goal[] = [];
      for (const x of s) {
        if (isPrimValue(x) && primIndex(v.must, normPrim(x)) >= 0) continue;
        goals.push({ t: x, v: v.may, env, guard: NO_FIXES });
      }
      return { op: 'and', goals };
    }
    default:
      return assertNever(v);
  }
}

/** `t ∈ v` for an abstract map `v`: every must key present, every other entry in some may part. */
function mapGoal(t: unknown, v: Extract<AbsValue, { kind: 'map' }>, env: Leaf['env']): boolean | Goal {
  if (!IMap.isMap(t)) return false;
  const m = t as IMap<unknown, unknown>;
  if (!v.must.every(([k]) => m.has(k))) return false;
  const goals: Goal[] = v.must.map(([k, x]) => ({ t: m.get(k), v: x, env, guard: NO_FIXES }));
  for (const [k, x] of m) {
    if (isPrimValue(k) && v.must.length > 0 && mustIndex(v.must, k) >= 0) continue;
    goals.push({
      op: 'or',
      goals: v.may.map(([kv, xv]) => ({
        op: 'and',
        goals: [
          { t: k, v: kv, env, guard: NO_FIXES },
          { t: x, v: xv, env, guard: NO_FIXES },
        ],
      })),
    });
  }
  return { op: 'and', goals };
}

/** Binary search for key `k` in a sorted must list. */
export function mustIndex(must: readonly (readonly [Prim, AbsValue])[], key: Prim): number {
  const k = normPrim(key); // keys are stored normalized
  let lo = 0;
  let hi = must.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const c = comparePrim((must[mid] as readonly [Prim, AbsValue])[0], k);
    if (c === 0) return mid;
    if (c < 0) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

// ---- from abstract to concrete ------------------------------------------------------------

/**
 * The only member of `v`, when `v` denotes exactly one value (PE folds such values, §3.1). A
 * constructor's last argument (a list's tail) is followed by a loop, so a long list takes no
 * stack.
 */
export function singleton(v: AbsValue, ctors?: CtorTable): { readonly value: unknown } | undefined {
  const tbl = withPrelude(ctors);
  const go = (x0: AbsValue): { value: unknown } | undefined => {
    // the constructors along the last arguments from `x0`, with their other arguments' members
    const spine: { readonly ctor: string; readonly init: readonly unknown[] }[] = [];
    let x = x0;
    let out: { value: unknown } | undefined;
    for (;;) {
      if (x.kind === 'con' && x.args.length > 0) {
        const init: unknown[] = [];
        for (let i = 0; i < x.args.length - 1; i++) {
          const s = go(x.args[i] as AbsValue);
          if (s === undefined) return undefined;
          init.push(s.value);
        }
        spine.push({ ctor: x.ctor, init });
        x = x.args[x.args.length - 1] as AbsValue;
        continue;
      }
      out = leaf(x);
      break;
    }
    if (out === undefined) return undefined;
    let value = out.value;
    for (let i = spine.length - 1; i >= 0; i--) {
      const s = spine[i] as { readonly ctor: string; readonly init: readonly unknown[] };
      value = buildCtor(s.ctor, [...s.init, value], tbl);
    }
    return { value };
  };
  const leaf = (x: AbsValue): { value: unknown } | undefined => {
    if (isNeverOneMemberForm(x)) return undefined;
    switch (x.kind) {
      case 'consts':
        return x.values.length === 1 ? { value: x.values[0] } : undefined;
      case 'con':
        return { value: buildCtor(x.ctor, [], tbl) };
      case 'map': {
        if (x.may.length > 0) return undefined;
        const entries: [Prim, unknown][] = [];
        for (const [k, a] of x.must) {
          const s = go(a);
          if (s === undefined) return undefined;
          entries.push([k, s.value]);
        }
        return { value: IMap(entries) };
      }
      case 'set':
        return x.may.kind === 'bottom' ? { value: ISet(x.must) } : undefined;
      default:
        return assertNever(x);
    }
  };
  return go(v);
}

/** Builds the native value of constructor `ctor` applied to `vals`. */
export function buildCtor(ctor: string, vals: readonly unknown[], ctors: CtorTable): unknown {
  if (tupleArity(ctor) !== undefined) return [...vals];
  const fields = fieldsOf(ctor, ctors);
  if (fields === undefined) throw new Error(`unknown constructor '${ctor}'`);
  const o: Record<string, unknown> = { kind: ctor };
  fields.forEach((f, i) => {
    o[f] = vals[i];
  });
  return o;
}

/**
 * All primitive members of `v` when `v` is a finite set of at most `limit` primitives
 * ('Bool counts as {false, true}); `undefined` otherwise.
 */
export function finitePrims(v: AbsValue, limit = 64): readonly Prim[] | undefined {
  if (v.kind === 'consts') return v.values.length <= limit ? v.values : undefined;
  if (v.kind === 'union') {
    const out: Prim[] = [];
    for (const a of v.alts) {
      if (a.kind !== 'consts') return undefined;
      out.push(...a.values);
    }
    return out.length <= limit ? out : undefined;
  }
  return undefined;
}

/** Abstract value of a boolean result set. */
export function boolsOf(canTrue: boolean, canFalse: boolean): AbsValue {
  if (canTrue && canFalse) return anyBool();
  if (!canTrue && !canFalse) return bottom();
  return constant(canTrue);
}

/**
 * The abstract value whose only member is the concrete value `t` (each node a fresh tag).
 * Throws on something that is not an SCF-lang value (functions, `null`, plain objects without
 * a string `kind`); constructor arity is checked against `ctors` when it lists the name.
 * A constructor's last field (a list's tail) is followed by a loop, not a call, so a long list
 * takes no stack; tags are drawn in the order a recursive walk would draw them (children first,
 * left to right).
 */
export function fromConcrete(t: unknown, ctors?: CtorTable): AbsValue {
  const tbl = withPrelude(ctors);
  const go = (x0: unknown): AbsValue => {
    // the constructors along the last fields from `x0`, with their other arguments converted
    const spine: { readonly ctor: string; readonly init: readonly AbsValue[] }[] = [];
    let x = x0;
    let out: AbsValue | undefined;
    while (out === undefined) {
      let ctor: string;
      let fieldValues: readonly unknown[];
      if (Array.isArray(x)) {
        ctor = `#${x.length}`;
        fieldValues = x;
      } else if (isCtorObject(x)) {
        const o = x;
        ctor = o.kind;
        fieldValues = (fieldsOf(o.kind, tbl, o) as readonly string[]).map((f) => o[f]);
      } else {
        out = leaf(x);
        break;
      }
      const n = fieldValues.length;
      if (n === 0) {
        out = con(ctor, []);
        break;
      }
      const init: AbsValue[] = [];
      for (let i = 0; i < n - 1; i++) init.push(go(fieldValues[i]));
      spine.push({ ctor, init });
      x = fieldValues[n - 1];
    }
    for (let i = spine.length - 1; i >= 0; i--) {
      const s = spine[i] as { readonly ctor: string; readonly init: readonly AbsValue[] };
      out = con(s.ctor, [...s.init, out]);
    }
    return out;
  };
  const leaf = (x: unknown): AbsValue => {
    if (isPrimValue(x)) return constant(x);
    if (IMap.isMap(x)) {
      const must: [Prim, AbsValue][] = [];
      for (const [k, y] of x as IMap<unknown, unknown>) {
        if (!isPrimValue(k)) throw new Error(`map key ${String(k)} is not a primitive`);
        must.push([k, go(y)]);
      }
      return absMap(must, []);
    }
    if (ISet.isSet(x)) {
      const els: Prim[] = [];
      for (const y of x as ISet<unknown>) {
        if (!isPrimValue(y)) throw new Error(`set element ${String(y)} is not a primitive`);
        els.push(y);
      }
      return absSet(els, bottom());
    }
    throw new Error(`not an SCF-lang value: ${String(x)}`);
  };
  return go(t);
}
