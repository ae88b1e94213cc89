/**
 * Differential test of the reference evaluator against gcc (-O0 -fwrapv -ffp-contract=off): random
 * well-typed kernel programs (tests/kernel/gen.ts) with random arguments, all compiled into one C file
 * so that gcc runs once. Cases where the evaluator reports undefined behaviour are skipped (and
 * counted); all others must print identical lines, floats compared bit for bit.
 * SCF_GCC_SEED and SCF_GCC_RUNS change the seed and the number of programs.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  equalModuloLabels,
  evaluate,
  KernelRuntimeError,
  listToArray,
  loadKernelParser,
  parseKernelSync,
  printProgram,
} from '../../src/kernel/index.js';
import { formatDiagnostic } from '../../src/common/index.js';
import { expectedLines, type GccCase, haveGcc, runGcc } from './gcc-harness.js';
import { generate } from './gen.js';

const SEED = Number(process.env.SCF_GCC_SEED ?? 20020116);
const RUNS = Number(process.env.SCF_GCC_RUNS ?? 400);

describe.skipIf(!haveGcc())('evaluator agrees with gcc', () => {
  it(`on ${RUNS} random programs (seed ${SEED})`, async () => {
    await differential(RUNS, false);
  });
  it(`on ${RUNS / 2} random programs calling the exact builtins (sqrtf, fminf, roundf, fmodf, abs, …)`, async () => {
    await differential(RUNS / 2, true);
  });
});

async function differential(runs: number, builtins: boolean): Promise<void> {
  {
    await loadKernelParser();
    const tapes = fc.sample(fc.array(fc.nat(), { minLength: 600, maxLength: 600 }), {
      seed: SEED + (builtins ? 1 : 0),
      numRuns: runs,
    });
    const sources: string[] = [];
    const cases: (GccCase & { expected: string[]; source: string })[] = [];
    let skipped = 0;
    tapes.forEach((tape, k) => {
      const g = generate(tape, `p${k}_`, builtins);
      const parsed = parseKernelSync(g.source, `p${k}.c`);
      expect(
        parsed.diagnostics.map((d) => formatDiagnostic(d, parsed.sources, false)),
        g.source,
      ).toEqual([]);
      // The printer's output means the same program.
      const again = parseKernelSync(printProgram(parsed.program));
      expect(equalModuloLabels(again.program, parsed.program), g.source).toBe(true);
      const fun = listToArray(parsed.program).find((f) => f.name === g.main);
      if (!fun) throw new Error('generated program lacks its entry function');
      let expected: string[];
      try {
        const r = evaluate(parsed.program, g.main, g.args, { fuel: 100_000 });
        expected = expectedLines({ fun, args: g.args }, r);
      } catch (e) {
        if (!(e instanceof KernelRuntimeError)) throw e;
        skipped++;
        return;
      }
      sources.push(g.source);
      cases.push({ fun, args: g.args, expected, source: g.source });
    });
    // Most programs must be free of undefined behaviour, or the test would prove little.
    expect(cases.length).toBeGreaterThan(runs * 0.4);
    const actual = runGcc(`#include <stdbool.h>\n${sources.join('\n\n')}`, cases);
    cases.forEach((c, k) => {
      expect(actual[k], `${c.source}\nargs: ${JSON.stringify(c.args)}`).toEqual(c.expected);
    });
    console.log(
      `gcc differential${builtins ? ' (builtins)' : ''}: ${cases.length} programs compared, ${skipped} skipped for undefined behaviour`,
    );
  }
}
