/**
 * Test helpers for the stager's DAE: a builder for Core expressions with chosen or fresh labels,
 * a small Core evaluator that records every value each label takes (the exact collecting
 * semantics of a set of runs), and the sound abstract `cs` built from such records.
 */
import { Map as IMap, Set as ISet } from 'immutable';
import {
  type AbsValue,
  bottom,
  con,
  consts,
  type Prim as AbsPrim,
  top,
  union,
} from '../../src/abstract-values/index.js';
import type { CollectingSemantics } from '../../src/dae/index.js';
import type { CtorDecl, Expr, FunDef, Label, Program, Span } from '../../src/scf-lang/core.js';
import { tupleCtor } from '../../src/scf-lang/core.js';
import { type PrimOp, primInfo } from '../../src/scf-lang/prims.js';

export const SPAN: Span = { file: '<dae-test>', start: 0, end: 0 };

/** Builds Core expressions; a label may be given (`[n]` in the paper), else a fresh one is used. */
export class Builder {
  private next: number;
  constructor(first = 1000) {
    this.next = first;
  }
  private lab(l?: Label): Label {
    return l ?? this.next++;
  }
  v(name: string, label?: Label): Expr {
    return { kind: 'var', name, label: this.lab(label), span: SPAN };
  }
  lit(value: number | string | boolean, label?: Label): Expr {
    return { kind: 'lit', value, label: this.lab(label), span: SPAN };
  }
  con(ctor: string, args: readonly Expr[], label?: Label): Expr {
    return { kind: 'con', ctor, args, label: this.lab(label), span: SPAN };
  }
  test(ctor: string, arg: Expr, label?: Label): Expr {
    return { kind: 'test', ctor, arg, label: this.lab(label), span: SPAN };
  }
  proj(ctor: string, index: number, arg: Expr, label?: Label): Expr {
    return { kind: 'proj', ctor, index, arg, label: this.lab(label), span: SPAN };
  }
  if(cond: Expr, then: Expr, els: Expr, label?: Label): Expr {
    return { kind: 'if', cond, then, else: els, label: this.lab(label), span: SPAN };
  }
  let(name: string, value: Expr, body: Expr, label?: Label): Expr {
    return { kind: 'let', name, value, body, label: this.lab(label), span: SPAN };
  }
  call(fn: string, args: readonly Expr[], label?: Label): Expr {
    return { kind: 'call', fn, args, label: this.lab(label), span: SPAN };
  }
  prim(op: PrimOp, args: readonly Expr[], label?: Label): Expr {
    return { kind: 'prim', op, args, label: this.lab(label), span: SPAN };
  }
}

export function fun(name: string, params: readonly string[], body: Expr): FunDef {
  return { name, params, body, span: SPAN, exported: true };
}

const PRELUDE_CTORS: CtorDecl[] = [
  { name: 'none', fields: [], repr: 'object' },
  { name: 'some', fields: ['value'], repr: 'object' },
  { name: 'nil', fields: [], repr: 'object' },
  { name: 'cons', fields: ['head', 'tail'], repr: 'object' },
];

/** A program of `funs` with the prelude constructors, tuples up to 4 and `extra` constructors. */
export function program(funs: readonly FunDef[], extra: readonly CtorDecl[] = []): Program {
  const ctors = new Map<string, CtorDecl>();
  for (const c of [...PRELUDE_CTORS, ...extra]) ctors.set(c.name, c);
  for (let n = 0; n <= 4; n++) ctors.set(tupleCtor(n).name, tupleCtor(n));
  return { funs: new Map(funs.map((f) => [f.name, f])), ctors, sources: new Map() };
}

export function ctor(name: string, ...fields: string[]): CtorDecl {
  return { name, fields, repr: 'object' };
}

// ---- a recording evaluator ------------------------------------------------------------------

/** What one label's values looked like over the recorded runs. */
interface Seen {
  readonly prims: Set<AbsPrim>;
  readonly ctors: Map<string, number>;
  other: boolean;
}

/** Records the values every label takes; `cs()` abstracts them soundly. */
export class Recorder {
  private readonly seen = new Map<Label, Seen>();

  record(label: Label, v: unknown): void {
    let s = this.seen.get(label);
    if (s === undefined) {
      s = { prims: new Set(), ctors: new Map(), other: false };
      this.seen.set(label, s);
    }
    if (typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean') s.prims.add(v);
    else if (Array.isArray(v)) s.ctors.set(`#${v.length}`, v.length);
    else if (IMap.isMap(v) || ISet.isSet(v)) s.other = true;
    else if (typeof v === 'object' && v !== null && typeof (v as { kind?: unknown }).kind === 'string') {
      const o = v as { kind: string };
      s.ctors.set(o.kind, Object.keys(o).length - 1);
    } else s.other = true;
  }

  /**
   * The collecting semantics of the recorded runs: primitives exactly (up to the constant cap),
   * constructors by name with unknown fields, maps and sets as top; a label never evaluated is
   * bottom — sound for exactly these runs. Labels in `unknown` are left out (unknown).
   */
  cs(unknown: ReadonlySet<Label> = new Set()): Map<Label, AbsValue> {
    const out = new Map<Label, AbsValue>();
    for (const l of this.labels) {
      if (unknown.has(l)) continue;
      const s = this.seen.get(l);
      if (s === undefined) {
        out.set(l, bottom());
        continue;
      }
      const alts: AbsValue[] = [];
      if (s.prims.size > 0) alts.push(consts(s.prims));
      for (const [c, n] of s.ctors) {
        alts.push(
          con(
            c,
            Array.from({ length: n }, () => top()),
          ),
        );
      }
      if (s.other) alts.push(top());
      out.set(l, union(alts));
    }
    return out;
  }

  /** Every label of the program, so unevaluated ones get bottom. */
  labels: Label[] = [];
}

export class RunError extends Error {}

/** Evaluates `fn(args)` like the Core interpreter does, telling `rec` every node's value. */
export function evalRecording(
  p: Program,
  fn: string,
  args: readonly unknown[],
  rec: Recorder | undefined,
  maxSteps = 2_000_000,
): unknown {
  let steps = 0;
  const run = (name: string, vals: readonly unknown[], depth: number): unknown => {
    const f = p.funs.get(name);
    if (f === undefined) throw new RunError(`no function ${name}`);
    if (depth > 2000) throw new RunError('call depth');
    let env = new Map<string, unknown>();
    f.params.forEach((x, i) => {
      env.set(x, vals[i]);
    });
    const ev = (e: Expr): unknown => {
      if (++steps > maxSteps) throw new RunError('steps');
      const v = evalNode(e);
      rec?.record(e.label, v);
      return v;
    };
    const evalNode = (e: Expr): unknown => {
      switch (e.kind) {
        case 'var':
          if (!env.has(e.name)) throw new RunError(`unbound ${e.name}`);
          return env.get(e.name);
        case 'lit':
          return e.value;
        case 'con': {
          const d = p.ctors.get(e.ctor) as CtorDecl;
          const vs = e.args.map(ev);
          if (d.repr === 'tuple') return vs;
          const o: Record<string, unknown> = { kind: d.name };
          d.fields.forEach((fl, i) => {
            o[fl] = vs[i];
          });
          return o;
        }
        case 'test': {
          const d = p.ctors.get(e.ctor) as CtorDecl;
          const v = ev(e.arg);
          if (d.repr === 'tuple') return Array.isArray(v) && v.length === d.fields.length;
          return typeof v === 'object' && v !== null && (v as { kind?: unknown }).kind === d.name;
        }
        case 'proj': {
          const d = p.ctors.get(e.ctor) as CtorDecl;
          const v = ev(e.arg);
          if (d.repr === 'tuple') {
            if (!Array.isArray(v)) throw new RunError('projection');
            return v[e.index];
          }
          if (typeof v !== 'object' || v === null || (v as { kind?: unknown }).kind !== d.name) {
            throw new RunError('projection');
          }
          return (v as Record<string, unknown>)[d.fields[e.index] as string];
        }
        case 'if':
          return ev(e.cond) === true ? ev(e.then) : ev(e.else);
        case 'let': {
          const v = ev(e.value);
          const saved = env;
          env = new Map(env);
          env.set(e.name, v);
          try {
            return ev(e.body);
          } finally {
            env = saved;
          }
        }
        case 'call':
          return run(e.fn, e.args.map(ev), depth + 1);
        case 'prim': {
          const impl = primInfo(e.op).impl as (...a: unknown[]) => unknown;
          return impl(...(e.args as Expr[]).map(ev));
        }
      }
    };
    return ev(f.body);
  };
  return run(fn, args, 0);
}

/** All labels of a program. */
export function labelsOf(p: Program): Label[] {
  const out: Label[] = [];
  const walk = (e: Expr): void => {
    out.push(e.label);
    switch (e.kind) {
      case 'var':
      case 'lit':
        return;
      case 'con':
      case 'call':
      case 'prim':
        e.args.forEach(walk);
        return;
      case 'test':
      case 'proj':
        walk(e.arg);
        return;
      case 'if':
        walk(e.cond);
        walk(e.then);
        walk(e.else);
        return;
      case 'let':
        walk(e.value);
        walk(e.body);
        return;
    }
  };
  for (const f of p.funs.values()) walk(f.body);
  return out;
}

/** The collecting semantics of running `fn` on each argument list (failing runs still count). */
export function recordCs(
  p: Program,
  fn: string,
  inputs: readonly (readonly unknown[])[],
): CollectingSemantics {
  const rec = new Recorder();
  rec.labels = labelsOf(p);
  for (const args of inputs) {
    try {
      evalRecording(p, fn, args, rec);
    } catch (e) {
      if (!(e instanceof RunError) && !(e instanceof RangeError)) throw e;
    }
  }
  return rec.cs();
}
