/**
 * The reports of a stage, made from its `PipelineStage`s: `describeStages` (I1, I2, … in the
 * Fig. 6 notation, print-abstract.ts: what `scf stage` prints, and the staged folder's
 * `NAME.abstract.txt`, staged-text.ts), `explainStages` (`scf stage --explain`: per pass its stop
 * reason, every loss of precision and the config setting that bounds it) and `stageReport`
 * (`scf stage --json`).
 *
 * Invariant: each is a pure function of the stages (and, for the advice, the config's `"pe"`
 * settings), so the same stage reports the same text.
 */
import type { AbsValue } from '../abstract-values/index.js';
import { assertNever } from '../common/index.js';
import { GROW_CAP, type PeEvent, SPEC_FUEL, UNFOLD_DEPTH } from '../partial-eval/index.js';
import { baseName } from './config.js';
import { type PipelineStage, WHOLE_TRIAL_BUDGET } from './pipeline.js';
import { kernelLanguage } from './languages.js';
/**
 * I1, I2, … in Fig. 6 notation, one block per stage; big unions cut short unless `full`
 * (`printAbstractFun`). The staged folder's `NAME.abstract.txt` holds them in full.
 */
export function describeStages(stages: readonly PipelineStage[], full = false): string {
  const out: string[] = [];
  const print = (v: AbsValue): string => kernelLanguage.printAbstract(v, full);
  stages.forEach((s, i) => {
    const of = s.composed
      ? `the whole pipeline ${s.composed.map((p) => p.name).join(' → ')}, staged as one program (the kernels between its passes stay inside the staging)`
      : s.pass.name;
    out.push(`(* I${i + 1}: input of ${of} *)\n${print(s.input[0] as AbsValue)}`);
  });
  const last = stages[stages.length - 1];
  if (last) {
    const of = (last.composed?.[last.composed.length - 1] ?? last.pass).name;
    out.push(`(* I${stages.length + 1}: output of ${of} *)\n${print(last.result.output)}`);
  }
  return `${out.join('\n\n')}\n`;
}

/**
 * `scf stage --explain`: per pass, why partial evaluation stopped and every loss of precision it
 * made — each parameter or result widened to a skeleton or to `1`, each specialization given up.
 * The losses are counted by the optimizer function they happened in, the pass's own functions
 * apart from scf's helpers (`scf/kernel`, the prelude) that it calls; then, per reason, the
 * setting of the config's `"pe"` that bounds it (with its default) or the rewrite that avoids it;
 * then each loss: the specialization, what it handled (its key: the input node), what was cut and
 * how. This is where a compiler writer looks when their optimizer stages poorly.
 */
export function explainStages(stages: readonly PipelineStage[], pe: PeSettings = {}): string {
  const out: string[] = [];
  const trial = stages[0]?.wholeTrial;
  if (trial)
    out.push(
      `staged pass by pass: the composition of the passes, tried as one program with a budget of ${WHOLE_TRIAL_BUDGET} visits, stopped on ${trial.stop} (${trial.reason}); so each intermediate kernel (I2, I3, …) is built, as its pass's output, and walked again by the next pass`,
    );
  for (const s of stages) {
    const r = s.result;
    const what = s.composed
      ? `${s.pass.name} (${s.composed.map((p) => p.name).join(' → ')}, staged as one program)`
      : s.pass.name;
    out.push(
      `${what}: stop ${r.stop}${r.stop === 'fixpoint' ? '' : ` (${r.reason})`}; ${r.peStats.visits} visits, ${r.peStats.specs} specializations, ${r.peStats.residualFuns} residual functions; ${r.events.length} loss(es) of precision`,
    );
    if (s.composed) out.push(...explainComposition(s));
    if (r.events.length === 0) continue;
    const own = ownModule(s);
    const byFn = new Map<string, Map<string, number>>();
    for (const e of r.events) {
      const counts = byFn.get(e.fn) ?? new Map<string, number>();
      counts.set(e.reason, (counts.get(e.reason) ?? 0) + 1);
      byFn.set(e.fn, counts);
    }
    const line = (fn: string, counts: Map<string, number>): string =>
      `    ${fn}: ${[...counts].map(([reason, n]) => `${n} × ${reason}`).join(', ')}`;
    const mine = [...byFn].filter(([fn]) => own(fn));
    const theirs = [...byFn].filter(([fn]) => !own(fn));
    const whose = s.composed ? 'the passes' : `${baseName(s.pass.file).replace(/\.[cm]?ts$/, '')}'s`;
    if (mine.length > 0) out.push(`  in ${whose} own functions:`, ...mine.map(([fn, c]) => line(fn, c)));
    if (theirs.length > 0)
      out.push(
        `  in functions it calls (scf's helpers: scf/kernel, the prelude):`,
        ...theirs.map(([fn, c]) => line(fn, c)),
      );
    out.push('  what may help:');
    for (const reason of new Set(r.events.map((e) => e.reason)))
      out.push(`    ${reason}: ${lossAdvice(reason, pe)}`);
    out.push('  each loss (specialization, what it handled, what was cut: why -> what it became):');
    for (const e of r.events) {
      out.push(`  ${e.spec}  ${e.key}  ${e.what}: ${e.reason} -> ${e.to}`);
    }
  }
  return `${out.join('\n')}\n`;
}

/** The module of an optimizer's source file (`const-prop` for `optimizers/const-prop.ts`). */
function moduleOf(file: string): string {
  return baseName(file).replace(/\.[cm]?ts$/, '');
}

/**
 * Whether a function of the stage's program (`const-prop.cpExpr`; in a composition
 * `2:copy-prop.cyExpr`, pass 2's) is its pass's own rather than a helper it calls.
 */
function ownModule(s: PipelineStage): (fn: string) => boolean {
  if (!s.composed) {
    const own = moduleOf(s.pass.file);
    return (fn) => fn.split('.')[0] === own;
  }
  const passes = s.composed;
  return (fn) => {
    const m = /^(\d+):([^.]*)\./.exec(fn);
    const p = m ? passes[Number(m[1]) - 1] : undefined;
    return p !== undefined && moduleOf(p.file) === m?.[2];
  };
}

/**
 * `--explain` on a whole-pipeline stage: between each two passes, whether the intermediate kernel
 * is built at run time, where (the residual functions in which the earlier pass's code constructs
 * kernel nodes, `materialized`), and why (what each handles: its specialization key, whose `_`
 * parameters are not fixed at staging time); or that it is never built.
 */
function explainComposition(s: PipelineStage): string[] {
  const passes = s.composed ?? [];
  const out = ['  between the passes (each intermediate kernel is an abstract value inside the staging):'];
  for (let i = 0; i + 1 < passes.length; i++) {
    const here = (s.materialized ?? []).filter((m) => m.after === i);
    const between = `${passes[i]?.name} → ${passes[i + 1]?.name}`;
    if (here.length === 0) {
      out.push(
        `    ${between}: never built (what ${passes[i + 1]?.name} reads of it is decided at staging time)`,
      );
      continue;
    }
    const nodes = here.reduce((n, m) => n + m.nodes, 0);
    out.push(
      `    ${between}: materialized where late values reach it: ${nodes} kernel node construction(s) in ${here.length} residual function(s), each specialized to what it handles (a '_' is not fixed at staging time):`,
    );
    for (const m of here)
      out.push(`      ${m.fn}: ${m.nodes} × builds a kernel node; handles ${m.comment ?? '?'}`);
  }
  return out;
}

/** The partial evaluator's settings a config may give (`"pe"`, docs/config.md). */
export interface PeSettings {
  readonly growCap?: number;
  readonly specFuel?: number;
  readonly unfoldDepth?: number;
}

/**
 * Per reason of a loss of precision: the config setting that bounds it, at the value it had
 * (`pe`, else its default), with a higher one to try, or the rewrite that avoids it.
 */
function lossAdvice(reason: PeEvent['reason'], pe: PeSettings): string {
  const growCap = pe.growCap ?? GROW_CAP;
  const specFuel = pe.specFuel ?? SPEC_FUEL;
  switch (reason) {
    case 'size-cap':
      return `a value grew past growCap = ${growCap} nodes (it grows with the input: an accumulator, a list built across a loop). Raise the bound in the config, "pe": { "growCap": ${growCap * 4} } (staging takes longer and the staged code may grow), or keep such values small in the pass: look facts up in a map keyed by label rather than carry a growing list`;
    case 'spec-fuel':
      return `a parameter or result changed more than specFuel = ${specFuel} times (a value that changes at every iteration of a fixpoint). Raise it in the config, "pe": { "specFuel": ${specFuel * 2} }, or pass such values in a form that converges sooner (a set or map joined, not a list appended to)`;
    case 'budget':
      return `the partial evaluator's visit budget or its count of specializations ran out, so calls stayed generic. Narrow the early description (fewer 'Any or 'Array parts), or split the pipeline into smaller passes; "pe": { "unfoldDepth": 0 } (now ${pe.unfoldDepth ?? UNFOLD_DEPTH}) unfolds no calls on static paths`;
    default:
      return assertNever(reason);
  }
}

/** Machine-readable staging report (`scf stage --json`): per pass, stop, stats, sizes and events. */
export function stageReport(stages: readonly PipelineStage[]): object {
  return {
    passes: stages.map((s) => ({
      pass: s.pass.name,
      ...(s.composed ? { composes: s.composed.map((p) => p.name), materialized: s.materialized ?? [] } : {}),
      stop: s.result.stop,
      reason: s.result.reason,
      stats: s.result.peStats,
      sizes: s.result.sizes,
      dae: s.result.dae,
      ms: s.result.ms,
      events: s.result.events,
    })),
  };
}
