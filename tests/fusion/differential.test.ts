/**
 * Fusion ≡ original on random combinator programs (gen.ts): the reference evaluator gives the same
 * result bit for bit, or an error of the same class, before and after the 'fusion' pass; the fused
 * entry never has more combinators or more data-parallel loops than the original; the fused program,
 * printed, parses again and agrees.
 *
 * The first block checks the generator alone (no fusion pass needed): its programs parse without
 * diagnostics, run without errors, contain the number of combinators it says, and together cover
 * every situation it is meant to produce.
 *
 * SCF_FUSION_SEED and SCF_FUSION_RUNS override the seed and the number of runs.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadKernelParser, printProgram } from '../../src/kernel/index.js';
import { FEATURES, type Feature, type FusionProgram, fusionProgram } from './gen.js';
import { expectSameOutcome, fuse, parseClean, run, soacCount, structureOf } from './harness.js';

const SEED = Number(process.env.SCF_FUSION_SEED ?? 2014);
const RUNS = Number(process.env.SCF_FUSION_RUNS ?? 200);

beforeAll(async () => {
  await loadKernelParser();
});

describe('fusion program generator', () => {
  it('makes programs that parse, run without errors and hold the combinators it counts', () => {
    const seen = new Map<Feature, number>();
    const samples: FusionProgram[] = fc.sample(fusionProgram, { seed: SEED, numRuns: 300 });
    for (const g of samples) {
      for (const f of g.features) seen.set(f, (seen.get(f) ?? 0) + 1);
      const program = parseClean(g.source, 'generated.c');
      const st = structureOf(program, g.entry);
      expect(soacCount(st), g.source).toBe(g.soacs);
      expect(g.soacs, g.source).toBeGreaterThanOrEqual(2);
      for (const args of g.argSets) {
        const o = run(program, g.entry, args);
        expect(o.ok, `${g.source}\n${JSON.stringify(args)}: ${o.ok ? '' : o.error}`).toBe(true);
      }
    }
    // every situation shows up, most of them often
    const missing = FEATURES.filter((f) => (seen.get(f) ?? 0) < 5);
    expect(missing, JSON.stringify(Object.fromEntries(seen))).toEqual([]);
  });
});

describe('fusion: differential', () => {
  it('never changes results, never adds combinators or loops', () => {
    fc.assert(
      fc.property(fusionProgram, (g) => {
        const program = parseClean(g.source, 'generated.c');
        const fused = fuse(program, [g.entry]);
        const before = structureOf(program, g.entry);
        const after = structureOf(fused, g.entry);
        const printed = printProgram(fused);
        const why = `${g.source}\n--- fused ---\n${printed}`;
        expect(soacCount(after), `combinators ${JSON.stringify(after)}\n${why}`).toBeLessThanOrEqual(
          soacCount(before),
        );
        expect(after.loops, `loops ${JSON.stringify(after)}\n${why}`).toBeLessThanOrEqual(before.loops);
        const again = parseClean(printed, 'fused.c');
        for (const args of g.argSets) {
          const expected = run(program, g.entry, args);
          const what = `on ${JSON.stringify(args)}\n${why}`;
          expectSameOutcome(expected, run(fused, g.entry, args), `fused ${what}`);
          expectSameOutcome(expected, run(again, g.entry, args), `fused, printed, parsed ${what}`);
        }
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });
});
