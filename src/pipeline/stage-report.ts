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
import type { PipelineStage } from './pipeline.js';
import { kernelLanguage } from './languages.js';
/**
 * I1, I2, … in Fig. 6 notation, one block per stage; big unions cut short unless `full`
 * (`printAbstractFun`). The staged folder's `NAME.abstract.txt` holds them in full.
 */
export function describeStages(stages: readonly PipelineStage[], full = false): string {
  const out: string[] = [];
  const print = (v: AbsValue): string => kernelLanguage.printAbstract(v, full);
  stages.forEach((s, i) => {
    out.push(`(* I${i + 1}: input of ${s.pass.name} *)\n${print(s.input[0] as AbsValue)}`);
  });
  const last = stages[stages.length - 1];
  if (last)
    out.push(`(* I${stages.length + 1}: output of ${last.pass.name} *)\n${print(last.result.output)}`);
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
  for (const s of stages) {
    const r = s.result;
    out.push(
      `${s.pass.name}: stop ${r.stop}${r.stop === 'fixpoint' ? '' : ` (${r.reason})`}; ${r.peStats.visits} visits, ${r.peStats.specs} specializations, ${r.peStats.residualFuns} residual functions; ${r.events.length} loss(es) of precision`,
    );
    if (r.events.length === 0) continue;
    const own = baseName(s.pass.file).replace(/\.[cm]?ts$/, '');
    const byFn = new Map<string, Map<string, number>>();
    for (const e of r.events) {
      const counts = byFn.get(e.fn) ?? new Map<string, number>();
      counts.set(e.reason, (counts.get(e.reason) ?? 0) + 1);
      byFn.set(e.fn, counts);
    }
    const line = (fn: string, counts: Map<string, number>): string =>
      `    ${fn}: ${[...counts].map(([reason, n]) => `${n} × ${reason}`).join(', ')}`;
    const mine = [...byFn].filter(([fn]) => fn.split('.')[0] === own);
    const theirs = [...byFn].filter(([fn]) => fn.split('.')[0] !== own);
    if (mine.length > 0) out.push(`  in ${own}'s own functions:`, ...mine.map(([fn, c]) => line(fn, c)));
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
