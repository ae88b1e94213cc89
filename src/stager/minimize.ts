/**
 * Merging residual functions that compute the same thing (a step after DAE, before emission).
 *
 * Why. The partial evaluator specializes per call chain (SCF §3.4), so one function analysed with
 * the same (or widened-to-`1`) arguments in many chains yields many residual copies whose code is
 * identical but for the names of the copies they call. Emitting them all makes the staged
 * optimizer large for nothing (SCF Table 3 reports compiler size as a cost).
 *
 * Algorithm. Partition refinement, as in DFA minimization. Each function gets a skeleton: its
 * parameters and body printed exactly (constants included, `-0` apart from `0`), labels and spans
 * left out, each call's target replaced by a placeholder. Functions start in one class per
 * skeleton; a class is then split by the classes of the callees, position by position, until no
 * class splits (at most one round per function: each round that changes anything adds a class).
 * One function per class is kept (the entry keeps its own name) and calls are redirected to it.
 *
 * Invariants. Two functions end in one class only if their bodies are equal up to callee renaming
 * with callees in equal classes, so (by induction on any run) they return the same results:
 * merging preserves the program's meaning exactly. Labels stay unique (functions are only dropped).
 */
import { assertNever } from '../common/index.js';
import { List as IList, Map as IMap, Set as ISet } from 'immutable';
import type { CoreExpr, FunDef, CoreProgram } from '../scf-lang/index.js';
import { mapCoreChildren } from '../scf-lang/index.js';

export interface MinimizeResult {
  readonly program: CoreProgram;
  /** Kept function → the functions merged into it (itself excluded). */
  readonly merged: ReadonlyMap<string, readonly string[]>;
  /** Refinement rounds until stable. */
  readonly rounds: number;
}

/** Merges the functions of `program` that are equal up to the names of equal callees. */
export function mergeEqualFunctions(program: CoreProgram, entry: string): MinimizeResult {
  const names = [...program.funs.keys()];
  const keys = new ValueKeys();
  const skeleton = new Map<string, string>();
  const callees = new Map<string, string[]>();
  for (const name of names) {
    const f = program.funs.get(name) as FunDef;
    const calls: string[] = [];
    const text = `${f.params.join(',')}=${printSkeleton(f.body, calls, keys)}`;
    skeleton.set(name, text);
    callees.set(name, calls);
  }
  let cls = classify(names, (n) => skeleton.get(n) as string);
  let count = new Set(cls.values()).size;
  let rounds = 0;
  for (; rounds <= names.length; rounds++) {
    const current = cls;
    const next = classify(names, (n) => {
      const cs = (callees.get(n) as string[]).map((c) => current.get(c) ?? `?${c}`);
      return `${current.get(n)}|${cs.join(',')}`;
    });
    const nextCount = new Set(next.values()).size;
    cls = next;
    if (nextCount === count) break;
    count = nextCount;
  }
  // one representative per class: the entry where it is in the class, else the first by order
  const rep = new Map<number, string>();
  rep.set(cls.get(entry) as number, entry);
  for (const n of names) if (!rep.has(cls.get(n) as number)) rep.set(cls.get(n) as number, n);
  const target = (n: string): string => {
    const c = cls.get(n);
    return c === undefined ? n : (rep.get(c) as string);
  };
  const funs = new Map<string, FunDef>();
  const merged = new Map<string, string[]>();
  for (const n of names) {
    const r = target(n);
    if (r !== n) {
      const list = merged.get(r) ?? [];
      list.push(n);
      merged.set(r, list);
      continue;
    }
    const f = program.funs.get(n) as FunDef;
    funs.set(n, { ...f, body: redirect(f.body, target) });
  }
  return { program: { ...program, funs }, merged, rounds };
}

function classify(names: readonly string[], sig: (n: string) => string): Map<string, number> {
  const ids = new Map<string, number>();
  const out = new Map<string, number>();
  for (const n of names) {
    const s = sig(n);
    let id = ids.get(s);
    if (id === undefined) {
      id = ids.size;
      ids.set(s, id);
    }
    out.set(n, id);
  }
  return out;
}

function redirect(e: CoreExpr, target: (n: string) => string): CoreExpr {
  const inner = mapCoreChildren(e, (c) => redirect(c, target));
  if (inner.kind !== 'call') return inner;
  const fn = target(inner.fn);
  return fn === inner.fn ? inner : { ...inner, fn };
}

function printSkeleton(e: CoreExpr, calls: string[], keys: ValueKeys): string {
  const sub = (x: CoreExpr) => printSkeleton(x, calls, keys);
  switch (e.kind) {
    case 'var':
      return e.name;
    case 'lit':
      return `#${keys.of(e.value)}`;
    case 'con':
      return `${e.ctor}(${e.args.map(sub).join(',')})`;
    case 'test':
      return `${e.ctor}?(${sub(e.arg)})`;
    case 'proj':
      return `${e.ctor}-${e.index}(${sub(e.arg)})`;
    case 'if':
      return `if(${sub(e.cond)},${sub(e.then)},${sub(e.else)})`;
    case 'let':
      return `let ${e.name}=${sub(e.value)} in ${sub(e.body)}`;
    case 'call':
      calls.push(e.fn);
      return `@(${e.args.map(sub).join(',')})`;
    case 'prim':
      return `${e.op}!(${e.args.map(sub).join(',')})`;
    default:
      return assertNever(e);
  }
}

/**
 * Exact keys for constants: equal keys only for equal values (numbers by `Object.is`, so `-0`
 * and `0` differ; maps and sets by their entries in iteration order, which may only fail to merge
 * equal values, never merge different ones). Object keys are memoized per object.
 */
class ValueKeys {
  private readonly ids = new Map<string, number>();
  private readonly memo = new WeakMap<object, number>();

  of(v: unknown): number {
    if (typeof v === 'object' && v !== null) {
      const m = this.memo.get(v);
      if (m !== undefined) return m;
    }
    const text = this.text(v);
    let id = this.ids.get(text);
    if (id === undefined) {
      id = this.ids.size;
      this.ids.set(text, id);
    }
    if (typeof v === 'object' && v !== null) this.memo.set(v, id);
    return id;
  }

  private text(v: unknown): string {
    if (typeof v === 'number') return Object.is(v, -0) ? 'n-0' : `n${String(v)}`;
    if (typeof v === 'string') return `s${JSON.stringify(v)}`;
    if (typeof v === 'boolean') return v ? 'T' : 'F';
    if (v === null || v === undefined) return String(v);
    if (IMap.isMap(v)) {
      const parts = [...(v as IMap<unknown, unknown>)].map(([k, x]) => `${this.of(k)}:${this.of(x)}`);
      return `M{${parts.join(',')}}`;
    }
    if (ISet.isSet(v)) return `S{${[...(v as ISet<unknown>)].map((x) => this.of(x)).join(',')}}`;
    if (IList.isList(v)) return `L[${[...(v as IList<unknown>)].map((x) => this.of(x)).join(',')}]`;
    if (Array.isArray(v)) return `A[${v.map((x) => this.of(x)).join(',')}]`;
    if (typeof v === 'object') {
      const o = v as Record<string, unknown>;
      const fields = Object.keys(o).sort();
      return `O{${fields.map((k) => `${JSON.stringify(k)}:${this.of(o[k])}`).join(',')}}`;
    }
    // functions or symbols never occur in Core constants; keep them apart from everything
    return `?${String(v)}${this.ids.size}`;
  }
}
