/**
 * Late trip counts at and past the bounds (issue's bad input for late shapes), on the radius-r
 * stencil staged with its radius any int and its taps any array:
 * - a radius whose loop runs more than UNROLL_LIMIT rounds keeps the loop, staged as unstaged;
 * - a late length of 10⁶ (a million and one taps) answers, equal to the unstaged pipeline, in
 *   bounded time and memory;
 * - on the late-shape config itself (radius 0 to 3), a radius outside that description falls back
 *   to the unstaged pipeline with the documented warning.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Fun, listToArray, loadKernelParser } from '../../src/kernel/index.js';
import type { LatticeVal } from '../../src/optimizers/index.js';
import { UNROLL_LIMIT } from '../../src/optimizers/const-prop.js';
import { loadConfig, stageConfig, writeStaged } from '../../src/pipeline/index.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const TMP = path.join(import.meta.dirname, `.tmp-late-bounds-${process.pid}`);

interface Stub {
  formalsOf(values: Record<string, unknown>): LatticeVal[];
  stagedPipeline(formals: readonly LatticeVal[]): Fun;
  unstagedPipeline(formals: readonly LatticeVal[]): Fun;
  specialize(values: Record<string, unknown>, warn?: (m: string) => void): { fun: Fun; staged: boolean };
}

beforeAll(async () => {
  await loadKernelParser();
  mkdirSync(TMP, { recursive: true });
});
afterAll(() => rmSync(TMP, { recursive: true, force: true }));

async function stub(configFile: string, name: string): Promise<Stub> {
  const config = loadConfig(configFile);
  const staged = await stageConfig(config);
  const written = writeStaged(staged.stages, {
    outDir: path.join(TMP, name),
    fun: staged.fun,
    bind: config.bind,
  });
  return (await import(written.stub)) as Stub;
}

/** The clone of `stencil_at` the pipeline made, and whether it still loops. */
function clone(f: Fun): Fun {
  const c = listToArray(f.fns).find((g) => g.name !== 'stencil_at');
  if (c === undefined) throw new Error('no clone');
  return c;
}
const loops = (f: Fun): boolean => JSON.stringify(f.body).includes('"kind":"while"');

const taps = (r: number): number[] => Array.from({ length: 2 * r + 1 }, (_, i) => (i % 3) * 0.25 + 0.125);

describe('a late trip count at and past the unrolling bound', () => {
  let s: Stub;
  beforeAll(async () => {
    const file = path.join(TMP, 'any-radius.json');
    writeFileSync(
      file,
      JSON.stringify({
        id: 399,
        description: 'the late-shape stencil with its radius any int',
        input: path.join(ROOT, 'benchmarks/inputs/late/stencil-r.c'),
        function: 'stencil_r',
        pipeline: ['const-prop', 'copy-prop', 'dae'],
        bind: { taps: "'Array", r: "'Int" },
        sample: { taps: taps(2), r: 2 },
      }),
    );
    s = await stub(file, 'any-radius');
  }, 300_000);

  it('unrolls a short loop and keeps one past UNROLL_LIMIT rounds, staged as unstaged', () => {
    const bound = Math.floor((UNROLL_LIMIT - 1) / 2); // 2r+1 rounds
    for (const r of [0, 2, bound, bound + 1, 40]) {
      const values = { taps: taps(r), r };
      const out = s.specialize(values, () => {});
      expect(out.staged, `r = ${r}`).toBe(true);
      expect(isDeepStrictEqual(out.fun, s.unstagedPipeline(s.formalsOf(values))), `r = ${r}`).toBe(true);
      expect(loops(clone(out.fun)), `r = ${r}`).toBe(2 * r + 1 > UNROLL_LIMIT);
    }
  });

  it('answers a late length of 10⁶ as the unstaged pipeline does, in bounded time and memory', () => {
    const values = { taps: taps(500_000), r: 500_000 };
    const before = process.memoryUsage().heapUsed;
    const t0 = performance.now();
    const out = s.specialize(values, () => {});
    const ms = performance.now() - t0;
    const grown = process.memoryUsage().heapUsed - before;
    expect(out.staged).toBe(true);
    expect(loops(clone(out.fun))).toBe(true);
    expect(isDeepStrictEqual(out.fun, s.unstagedPipeline(s.formalsOf(values)))).toBe(true);
    expect(ms).toBeLessThan(20_000);
    expect(grown).toBeLessThan(1024 * 1024 * 1024);
  }, 120_000);
});

describe('a late value outside the early description', () => {
  it('falls back to the unstaged pipeline with the documented warning', async () => {
    const s = await stub(path.join(ROOT, 'configs/late/01-stencil-r.json'), 'stencil-r');
    const warnings: string[] = [];
    const values = { taps: taps(5), r: 5 };
    const out = s.specialize(values, (m) => warnings.push(m));
    expect(out.staged).toBe(false);
    expect(warnings.join('\n')).toMatch(/formal 'r' = 5 is outside its early description 0\|1\|2\|3/);
    expect(isDeepStrictEqual(out.fun, s.unstagedPipeline(s.formalsOf(values)))).toBe(true);
    expect(loops(clone(out.fun))).toBe(false); // 11 rounds: unrolled by the unstaged pipeline
  }, 300_000);
});
