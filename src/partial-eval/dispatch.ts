/**
 * Dispatch: which calls the partial evaluator (pe.ts) makes a residual test of a field instead
 * of one specialization (SCF's "helpers are replicated per input node", kept when an earlier
 * pass's output is one of several programs), and the residual test itself.
 *
 * A key (finite) argument of a call past a late test that is a union of a few records of one
 * constructor, told apart by the known value of one primitive field — the commands of a program
 * after a loop that may or may not have been emitted, each with its label — is split into groups
 * of records by that value (`splitKey`); the evaluator specializes the call to each group, and
 * the call becomes a chain of tests of that field, each choosing its group's call
 * (`dispatchTests`). The abstract domain keeps such records apart when it joins (`tellApart`,
 * abstract-values). Specialized to the union instead, the callee's projections would mix the
 * programs (the first command of one with the first of the other) in everything below it.
 *
 * Invariants: a split has at least two groups and at most SPLIT_MAX (limits.ts) records; the
 * groups partition the union's alternatives, in order of first occurrence, and each group's
 * field value is one primitive that `eq` tells apart from the others (not a boolean, -0 or NaN).
 */
import type { SourceSpan } from '../common/index.js';
import { type AbsValue, consts, join, type Prim, project } from '../abstract-values/index.js';
import { SPLIT_MAX } from './limits.js';
import type { Rep } from './raise.js';
import { type Binding, type ResidualBuilder, View } from './residual.js';

export type ConValue = AbsValue & { kind: 'con' };

/** Records whose field has one known value. */
export interface SplitGroup {
  readonly value: Prim;
  readonly alts: readonly ConValue[];
}

/** A dispatch: argument `index`, told apart by field `field` of constructor `ctor`. */
export interface Split {
  readonly index: number;
  readonly ctor: string;
  readonly field: number;
  readonly groups: readonly SplitGroup[];
}

/**
 * The one primitive a value denotes, if any — not a boolean (a flag is narrowed by `refine`, not
 * dispatched on), nor -0 or NaN, which `eq` does not tell apart as values are told apart here.
 */
function singlePrim(v: AbsValue): Prim | undefined {
  if (v.kind !== 'consts' || v.values.length !== 1) return undefined;
  const p = v.values[0] as Prim;
  if (typeof p === 'boolean' || Object.is(p, -0) || Number.isNaN(p)) return undefined;
  return p;
}

function primKey(p: Prim): string {
  return `${typeof p}:${String(p)}`;
}

/** `xs` in groups of equal `key`, in order of first occurrence. */
function groupBy<T>(xs: readonly T[], key: (x: T) => string): T[][] {
  const at = new Map<string, T[]>();
  for (const x of xs) {
    const k = key(x);
    const g = at.get(k);
    if (g) g.push(x);
    else at.set(k, [x]);
  }
  return [...at.values()];
}

/**
 * A key argument whose value is a union of a few records of one constructor that the known
 * value of one primitive field tells apart (the label of a command: the spine of a program
 * after a loop that may or may not have been emitted, `tellApart`), and the groups of records
 * by that value. The call is then dispatched on the field (`dispatchTests`) rather than specialized
 * to the union, which would mix the records' parts (the first command of one with the first of
 * the other) in everything it calls.
 */
export function splitKey(
  finite: readonly boolean[],
  args: readonly { readonly v: AbsValue }[],
): Split | undefined {
  for (let i = 0; i < args.length; i++) {
    const v = (args[i] as { readonly v: AbsValue }).v;
    if (!finite[i] || v.kind !== 'union' || v.alts.length > SPLIT_MAX) continue;
    const first = v.alts[0] as AbsValue;
    if (first.kind !== 'con') continue;
    if (
      !v.alts.every((a) => a.kind === 'con' && a.ctor === first.ctor && a.args.length === first.args.length)
    )
      continue;
    const cons = v.alts as readonly ConValue[];
    for (let f = 0; f < first.args.length; f++) {
      if (cons.some((a) => singlePrim(a.args[f] as AbsValue) === undefined)) continue;
      const groups = groupBy(cons, (a) => primKey(singlePrim(a.args[f] as AbsValue) as Prim));
      if (groups.length < 2) continue;
      return {
        index: i,
        ctor: first.ctor,
        field: f,
        groups: groups.map((g) => ({
          value: singlePrim((g[0] as ConValue).args[f] as AbsValue) as Prim,
          alts: g,
        })),
      };
    }
  }
  return undefined;
}

/**
 * The residual dispatch of `split` on the atom `x` (the split argument, let-bound): a chain of
 * tests of its field, `x.f === v0 ? b0 : x.f === v1 ? b1 : … : bn`, where `branches[j]` is the
 * call specialized to group `j`, all of them represented per `rep` (`Raiser.meetAll`).
 */
export function dispatchTests(
  code: ResidualBuilder,
  split: Split,
  x: Binding,
  branches: readonly Binding[],
  rep: Rep,
  span: SourceSpan,
): Binding {
  let out = branches[branches.length - 1] as Binding;
  for (let j = branches.length - 2; j >= 0; j--) {
    const proj = code.node({ kind: 'proj', ctor: split.ctor, index: split.field, arg: x.r }, span);
    code.cs.set(proj.label, project(split.ctor, split.field, x.v));
    const value = (split.groups[j] as SplitGroup).value;
    const cond = code.node({ kind: 'prim', op: 'eq', args: [proj, code.litNode(value, span)] }, span);
    code.cs.set(cond.label, consts([true, false]));
    const b = branches[j] as Binding;
    const v = join(b.v, out.v).value;
    const r = code.node(
      // biome-ignore lint/suspicious/noThenProperty: Core's `if` node has a `then` field
      { kind: 'if', cond, then: b.r, else: out.r },
      span,
    );
    code.cs.set(r.label, rep === undefined ? v : new View(v, rep));
    out = rep === undefined ? { v, r } : { v, r, rep };
  }
  return out;
}
