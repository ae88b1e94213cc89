/**
 * Tiered kernels (src/target/tiers.ts), through a stub staged from the shipped suite: the first run
 * goes to the generic kernel, the specialized one takes over once `ready`; both give the reference
 * evaluator's outputs, on the JS back end and on WebGPU; handles are cached by values (least
 * recently used out); a specialization that fails leaves the handle generic, with the reason.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ArgValue, evaluate, loadKernelParser } from '../../src/kernel/index.js';
import {
  argValue,
  importStub,
  type LoadedStub,
  loadConfig,
  stageConfig,
  writeStaged,
} from '../../src/pipeline/index.js';
import { type KernelBackend, programOf, TieredKernels, tieredKernels } from '../../src/target/index.js';
import { ROOT } from '../optimizers/helpers.js';
import { openTestGpu } from './gpu-setup.js';

const gpu = await openTestGpu();
const TMP = mkdtempSync(path.join(os.tmpdir(), 'scf-tiers-'));
afterAll(() => rmSync(TMP, { recursive: true, force: true }));

let stub: LoadedStub;
beforeAll(async () => {
  await loadKernelParser();
  const config = loadConfig(path.join(ROOT, 'configs/kernel/03-ops.json'));
  const staged = await stageConfig(config);
  const written = writeStaged(staged.stages, { outDir: TMP, fun: staged.fun, bind: config.bind });
  stub = await importStub(written.stub);
}, 60_000);

const IMG = argValue({ random: 300, seed: 7 }) as number[];
const PROGRAMS: readonly Record<string, ArgValue>[] = [
  { ops: [1, 0, 2, 4], ps: [1.5, -0.25, 0, 0.8], nops: 4 },
  { ops: [3], ps: [0.5], nops: 1 },
  { ops: [4, 4, 0], ps: [2, 0.5, -1], nops: 3 },
];

/** The reference: the original kernel on the evaluator. */
function reference(values: Record<string, ArgValue>): unknown {
  return evaluate(programOf(stub.FUN), 'ops_program', { img: IMG, ...values }).result;
}

async function checkTiers(backend: KernelBackend): Promise<void> {
  const kernels = await tieredKernels(stub, { backend });
  for (const values of PROGRAMS) {
    const h = kernels.forValues(values);
    expect(h.tier).toBe('generic');
    const first = await h.run({ img: IMG });
    expect(Array.from(first.result as number[])).toEqual(reference(values));
    await h.ready;
    expect(h.failure).toBeUndefined();
    expect(h.tier).toBe('specialized');
    const second = await h.run({ img: IMG });
    expect(Array.from(second.result as number[])).toEqual(reference(values));
  }
}

describe('tiered kernels', () => {
  it('JS back end: generic first, specialized when ready, the same outputs', async () => {
    await checkTiers('js');
  });

  it('handles are cached by values, least recently used out', async () => {
    const kernels = await tieredKernels(stub, { backend: 'js', cacheSize: 2 });
    const [a, b, c] = PROGRAMS as [
      Record<string, ArgValue>,
      Record<string, ArgValue>,
      Record<string, ArgValue>,
    ];
    const ha = kernels.forValues(a);
    expect(kernels.forValues({ ...a })).toBe(ha);
    kernels.forValues(b);
    kernels.forValues(a); // a is now the most recently used
    kernels.forValues(c); // b goes
    expect(kernels.forValues(a)).toBe(ha);
    await ha.ready;
    expect(kernels.forValues(a).tier).toBe('specialized');
  });

  it('a specialization that fails leaves the handle generic and says why', async () => {
    const kernels = await TieredKernels.create(
      {
        fun: stub.FUN,
        generic: stub.unstagedPipeline(stub.formalsOf({})),
        specialize: () => {
          throw new Error('no specialization today');
        },
      },
      { backend: 'js' },
    );
    const values = PROGRAMS[0] as Record<string, ArgValue>;
    const h = kernels.forValues(values);
    await h.ready;
    expect(h.tier).toBe('generic');
    expect(h.failure).toBe('no specialization today');
    expect(Array.from((await h.run({ img: IMG })).result as number[])).toEqual(reference(values));
  });
});

describe('tiered kernels on bad input', () => {
  it('values outside the staged description: the stub falls back to the unstaged pipeline, same outputs', async () => {
    const kernels = await tieredKernels(stub, { backend: 'js' });
    // nine ops: the description admits at most eight
    const values = { ops: [0, 1, 2, 3, 4, 0, 1, 2, 3], ps: [1, 2, 0.5, 3, 0.5, -1, 0.5, 0, 4], nops: 9 };
    const warned: string[] = [];
    const original = console.warn;
    console.warn = (m: string) => warned.push(m);
    try {
      const h = kernels.forValues(values);
      expect(Array.from((await h.run({ img: IMG })).result as number[])).toEqual(reference(values));
      await h.ready;
      expect(h.tier).toBe('specialized');
      expect(Array.from((await h.run({ img: IMG })).result as number[])).toEqual(reference(values));
    } finally {
      console.warn = original;
    }
    expect(warned.join('\n')).toMatch(/not admitted|running the unstaged pipeline/);
  });

  it('a program too long to unroll: the specialized kernel keeps its loop, says so, and gives the same outputs', async () => {
    const kernels = await tieredKernels(stub, { backend: 'js' });
    const n = 70; // past UNROLL_LIMIT (64), and outside the staged description: the unstaged pipeline runs
    const values = {
      ops: Array.from({ length: n }, (_, i) => i % 4),
      ps: Array.from({ length: n }, () => 1.001),
      nops: n,
    };
    const original = console.warn;
    console.warn = () => {};
    try {
      const h = kernels.forValues(values);
      await h.run({ img: IMG });
      await h.ready;
      expect(h.tier).toBe('specialized');
      expect(h.notes.join('\n')).toMatch(
        /run_ops_1, the clone of run_ops for the known values, keeps 1 loop/,
      );
      expect(Array.from((await h.run({ img: IMG })).result as number[])).toEqual(reference(values));
    } finally {
      console.warn = original;
    }
  });

  it('an op-code array shorter than its length: both tiers report the out-of-bounds load, never a result', async () => {
    const kernels = await tieredKernels(stub, { backend: 'js' });
    const h = kernels.forValues({ ops: [1, 0], ps: [2, 0.5], nops: 3 });
    await expect(h.run({ img: IMG })).rejects.toThrow(/out of bounds/);
    await h.ready;
    expect(h.tier).toBe('specialized');
    await expect(h.run({ img: IMG })).rejects.toThrow(/out of bounds/);
  });
});

describe.skipIf(gpu.skip)(gpu.title('tiered kernels on WebGPU'), () => {
  it('generic first, specialized when its pipeline is created, the same outputs', async () => {
    await checkTiers(gpu.runtime());
  });
});
