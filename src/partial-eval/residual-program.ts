/**
 * The partial evaluator's residual program (SCF Fig. 8's output), assembled when the table's
 * worklist is empty (table.ts, pe.ts): the specializations reachable from the entry by residual calls, each a
 * function named `fn$N` commented with what it was specialized for (Fig. 7's comments,
 * `describeSpec`), the original functions that calls left generic need (and everything they
 * call), the constructors of the tuples raised maps became (raise.ts), the collecting semantics
 * `cs` for the residual's labels only, and why the run stopped.
 *
 * Invariants
 * - The residual code is taken from the last analysis of each specialization: when the worklist
 *   is empty, every specialization was last analysed with its final parameters and the final
 *   results of its callees, so the residual program is consistent.
 * - `cs` holds values as the residual code represents them (`viewOf`, raise.ts), so dead-assignment
 *   elimination reasons about the code as it is.
 * - `stop` is 'fuel' when anything was widened to `1`, cut to a skeleton, given up or a budget ran
 *   out; else 'widened' when widening (or a fold) was needed; else 'fixpoint'.
 */
import { type AbsValue, alternatives, type CtorTable, printAbs } from '../abstract-values/index.js';
import { type CoreExpr, type CoreProgram, forEachExpr, type FunDef, type Label } from '../scf-lang/index.js';
import { viewOf } from './raise.js';
import { type ResidualCode, View } from './residual.js';
import type { PeEvent, PeResult, PeStats, PeStop, Spec } from './types.js';

/** What the run leaves for its residual program. */
export interface RunOutcome {
  readonly program: CoreProgram;
  /** Every specialization made, in order of creation. */
  readonly specs: readonly Spec[];
  /** Original functions called generically (their callees are added here). */
  readonly genericFns: Set<string>;
  readonly code: ResidualCode;
  readonly stats: PeStats;
  readonly events: readonly PeEvent[];
  /** Why no new specialization was made from some point on, if that happened. */
  readonly exhaustedBy: string | undefined;
  /** Whether widening (or a fold) was needed. */
  readonly widened: boolean;
  readonly specFuel: number;
  readonly growCap: number;
}

export function residualProgram(root: Spec, run: RunOutcome): PeResult {
  const byName = new Map<string, Spec>();
  for (const s of run.specs) byName.set(s.name, s);
  const funs = new Map<string, FunDef>();
  const cs = new Map<Label, AbsValue>();
  const comments = new Map<string, string>();
  const todo: Spec[] = [root];
  const seen = new Set<Spec>([root]);
  while (todo.length > 0) {
    const s = todo.pop() as Spec;
    const body = s.body as CoreExpr;
    forEachExpr(body, (x) => {
      const v = s.cs.get(x.label);
      if (v) cs.set(x.label, v instanceof View ? viewOf(v.v, v.rep) : v);
      if (x.kind !== 'call') return;
      const callee = byName.get(x.fn);
      if (callee && !seen.has(callee)) {
        seen.add(callee);
        todo.push(callee);
      }
    });
    funs.set(s.name, { name: s.name, params: s.fn.params, body, span: s.fn.span, exported: s === root });
    comments.set(s.name, describeSpec(s, run.code.ctors));
  }
  // generic calls need the original functions, and everything those call
  const generic = [...run.genericFns];
  for (let i = 0; i < generic.length; i++) {
    const f = run.program.funs.get(generic[i] as string) as FunDef;
    funs.set(f.name, f);
    forEachExpr(f.body, (x) => {
      if (x.kind === 'call' && !run.genericFns.has(x.fn)) {
        run.genericFns.add(x.fn);
        generic.push(x.fn);
      }
    });
  }
  let generalized = 0;
  for (const s of run.specs) if (s.generalized) generalized++;
  const topped = run.stats.widenedToTop;
  const cut = run.stats.skeletons;
  const stop: PeStop =
    generalized > 0 || topped > 0 || cut > 0 || run.exhaustedBy !== undefined
      ? 'fuel'
      : run.widened
        ? 'widened'
        : 'fixpoint';
  const reasons: string[] = [];
  if (run.exhaustedBy !== undefined) reasons.push(`${run.exhaustedBy} (later calls stayed generic)`);
  if (topped > 0)
    reasons.push(
      `${topped} specialization parameter(s) or result(s) were widened to 1 (changed more than ${run.specFuel} times, or grew past ${run.growCap} nodes)`,
    );
  if (cut > 0)
    reasons.push(
      `${cut} specialization parameter(s) or result(s) were cut to a skeleton (constructors and must-keys kept; changed more than ${run.specFuel} times, or grew past ${run.growCap} nodes)`,
    );
  if (generalized > 0)
    reasons.push(`${generalized} specialization(s) were given up after the budget ran out`);
  const reason =
    stop === 'fuel'
      ? reasons.join('; ')
      : stop === 'widened'
        ? `converged after widening${run.stats.folded > 0 ? ` (${run.stats.folded} growing chain(s) folded into recursive values)` : ''}`
        : 'converged';
  run.stats.residualFuns = funs.size;
  const output = run.code.retag(root.result.value);
  return {
    residual: { funs, ctors: run.code.residualCtors(run.program.ctors), sources: run.program.sources },
    entry: root.name,
    cs,
    output,
    stop,
    reason,
    stats: { ...run.stats },
    comments,
    events: run.events,
  };
}

/** What a specialization handles, for the emitted comment: `daeCmd(assign #12, _)`. */
export function describeSpec(s: Spec, ctors: CtorTable): string {
  const parts = s.ctx.key.values
    .slice(0, s.fn.params.length)
    .map((v) => (v === undefined ? '_' : describeValue(v, ctors)));
  return `${s.fn.name}(${parts.join(', ')})`;
}

function describeValue(v: AbsValue, ctors: CtorTable): string {
  if (v.kind === 'con') {
    const fields = ctors.get(v.ctor)?.fields ?? [];
    const li = fields.indexOf('lbl');
    const lbl = li >= 0 ? v.args[li] : undefined;
    if (lbl?.kind === 'consts' && lbl.values.length === 1) return `${v.ctor} #${String(lbl.values[0])}`;
  }
  if (v.kind === 'union') {
    const alts = alternatives(v)
      .slice(0, 3)
      .map((a) => describeValue(a, ctors));
    return alts.join(' | ') + (alternatives(v).length > 3 ? ' | …' : '');
  }
  const text = printAbs(v);
  return text.length > 48 ? `${text.slice(0, 45)}…` : text;
}
