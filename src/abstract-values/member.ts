/**
 * Concrete membership: `conforms(t, v)` decides t ∈ Ψ(v, []) (SCF §3.3, Table 1), and the
 * reverse direction for small sets: the single member of a singleton abstract value, or all
 * members of a small finite one.
 *
 * Concrete values are SCF-lang's native values (`scf-lang/values.ts`): primitives, constructor
 * objects `{ kind, …fields }` (field order from the constructor table), tuples as arrays (Core
 * constructor `#n`), Immutable.js maps and sets with primitive keys.
 *
 * Algorithm: one recursive walk over the concrete value, choosing union alternatives by trial.
 * A `fix` is entered with its node pushed on an environment; a variable jumps back to its fix.
 * A fix re-entered without consuming a constructor is an unproductive cycle and fails (least
 * fixpoint), so the walk always terminates: every other step descends into the finite value.
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
  return conf(t, v, [], new Set(), withPrelude(ctors));
}

/** Whether the constant `p` itself (SameValue: -0 is not 0) is a member of `v`. */
export function primMember(p: Prim, v: AbsValue): boolean {
  return conf(p, v, [], new Set(), PRELUDE_CTORS);
}

/**
 * Whether primitive `p` may equal a member of `v` as a map key or set element (SameValueZero: 0
 * and -0 are one key).
 */
export function primIn(p: Prim, v: AbsValue): boolean {
  if (p === 0) return conf(0, v, [], new Set(), PRELUDE_CTORS) || conf(-0, v, [], new Set(), PRELUDE_CTORS);
  return conf(p, v, [], new Set(), PRELUDE_CTORS);
}

function conf(t: unknown, v: AbsValue, env: readonly Fix[], guard: Set<Fix>, ctors: CtorTable): boolean {
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
      return v.alts.some((a) => conf(t, a, env, guard, ctors));
    case 'fix': {
      if (guard.has(v)) return false;
      const g = new Set(guard);
      g.add(v);
      return conf(t, v.body, [...env, v], g, ctors);
    }
    case 'rec': {
      const at = env.length - 1 - v.index;
      const f = env[at];
      if (f === undefined) throw new Error('conforms: abstract value has a free variable');
      return conf(t, f, env.slice(0, at), guard, ctors);
    }
    case 'con': {
      const n = tupleArity(v.ctor);
      const fresh = new Set<Fix>();
      if (n !== undefined) {
        if (!Array.isArray(t) || t.length !== n || v.args.length !== n) return false;
        return v.args.every((a, i) => conf(t[i], a, env, fresh, ctors));
      }
      if (!isCtorObject(t) || t.kind !== v.ctor) return false;
      const fields = fieldsOf(v.ctor, ctors, t) as readonly string[];
      if (fields.length !== v.args.length) return false;
      return v.args.every((a, i) => conf(t[fields[i] as string], a, env, fresh, ctors));
    }
    case 'map': {
      if (!IMap.isMap(t)) return false;
      const m = t as IMap<unknown, unknown>;
      const fresh = new Set<Fix>();
      for (const [k, x] of v.must) {
        if (!m.has(k) || !conf(m.get(k), x, env, fresh, ctors)) return false;
      }
      for (const [k, x] of m) {
        if (isPrimValue(k) && v.must.length > 0 && mustIndex(v.must, k) >= 0) continue;
        if (!v.may.some(([kv, xv]) => conf(k, kv, env, fresh, ctors) && conf(x, xv, env, fresh, ctors))) {
          return false;
        }
      }
      return true;
    }
    case 'set': {
      if (!ISet.isSet(t)) return false;
      const s = t as ISet<unknown>;
      for (const p of v.must) if (!s.has(p)) return false;
      const fresh = new Set<Fix>();
      for (const x of s) {
        if (isPrimValue(x) && primIndex(v.must, normPrim(x)) >= 0) continue;
        if (!conf(x, v.may, env, fresh, ctors)) return false;
      }
      return true;
    }
    default:
      return assertNever(v);
  }
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

/** The only member of `v`, when `v` denotes exactly one value (PE folds such values, §3.1). */
export function singleton(v: AbsValue, ctors?: CtorTable): { readonly value: unknown } | undefined {
  const tbl = withPrelude(ctors);
  const go = (x: AbsValue): { value: unknown } | undefined => {
    switch (x.kind) {
      case 'consts':
        return x.values.length === 1 ? { value: x.values[0] } : undefined;
      case 'con': {
        const vals: unknown[] = [];
        for (const a of x.args) {
          const s = go(a);
          if (s === undefined) return undefined;
          vals.push(s.value);
        }
        return { value: buildCtor(x.ctor, vals, tbl) };
      }
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
        return undefined;
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
 */
export function fromConcrete(t: unknown, ctors?: CtorTable): AbsValue {
  const tbl = withPrelude(ctors);
  const go = (x: unknown): AbsValue => {
    if (isPrimValue(x)) return constant(x);
    if (Array.isArray(x)) return con(`#${x.length}`, x.map(go));
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
    if (isCtorObject(x)) {
      const fields = fieldsOf(x.kind, tbl, x) as readonly string[];
      return con(
        x.kind,
        fields.map((f) => go(x[f])),
      );
    }
    throw new Error(`not an SCF-lang value: ${String(x)}`);
  };
  return go(t);
}
