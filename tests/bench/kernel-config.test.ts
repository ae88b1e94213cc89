/**
 * `scf bench --kernel CONFIG` (src/bench/kernel-config.ts) on a small copy of the shipped
 * op-code config: the report has every figure for the JS back end, and for WebGPU when there is an
 * adapter (required in CI; there with the template kernel's run time too), the outputs equal the
 * reference evaluator's (a GPU's within its tolerance, whose rule is tested on its own);
 * `--backend webgpu` times WebGPU alone with a calibrated R; a config without the kernel's
 * arguments is a positioned config error; the CLI prints the JSON report.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { type BackendReport, balancedOrder, runKernelConfigBench } from '../../src/bench/index.js';
import {
  compareResults,
  dataScale,
  GPU_ULPS,
  GpuRuntime,
  SOFTWARE_DRIVER_HINT,
} from '../../src/target/index.js';
import { cli } from '../cli/helpers.js';
import { ROOT } from '../optimizers/helpers.js';
import { openTestGpu } from '../target/gpu-setup.js';

const gpu = await openTestGpu();
const TMP = mkdtempSync(path.join(os.tmpdir(), 'scf-bench-kernel-test-'));
afterAll(() => rmSync(TMP, { recursive: true, force: true }));

/** configs/kernel/03-ops.json with a small image, written beside the shipped kernel's path. */
function smallConfig(name: string, change: (c: Record<string, unknown>) => void): string {
  const c = JSON.parse(readFileSync(path.join(ROOT, 'configs/kernel/03-ops.json'), 'utf8'));
  c.input = path.join(ROOT, 'benchmarks/inputs/kernel/ops.c');
  c.args = { img: { random: 512, seed: 5 } };
  change(c);
  const file = path.join(TMP, name);
  writeFileSync(file, JSON.stringify(c, null, 2));
  return file;
}

function checkBackend(b: BackendReport | undefined, gpuTolerance = false): void {
  expect(b).toBeDefined();
  const r = b as BackendReport;
  expect(gpuTolerance ? r.withinTolerance : r.equal).toBe(true);
  for (const t of [r.runMs, r.roundTripMs, r.firstResultMs])
    for (const v of Object.values(t)) expect(Number.isFinite(v) && v >= 0).toBe(true);
  expect(r.firstResultMs.tiered).toBeGreaterThan(0);
  expect(r.firstResultMs.newShape).toBeGreaterThan(0);
  expect(r.speedup.run).toBeGreaterThan(0);
}

const FAST = { rounds: 3, samples: 2, repeat: 3 } as const;

describe('the kernel benchmark of a config', () => {
  it('JS back end: every figure, outputs equal', async () => {
    const r = await runKernelConfigBench(
      smallConfig('ops.json', () => {}),
      { ...FAST, backend: 'js' },
    );
    expect(r.function).toBe('ops_program');
    checkBackend(r.backends.js);
    // on the JS back end the template is the kernel a tiered handle ends with: one run time
    expect(r.backends.js?.templateRunMs).toBeUndefined();
    expect(r.backends.webgpu).toBeUndefined();
    expect(r.noWebgpu).toMatch(/--backend js/);
    expect(r.equal).toBe(true);
    expect(r.notes).toEqual([]); // the sample's program is short enough to unroll
    expect(r.specializeUs.staged).toBeGreaterThan(0);
  }, 120_000);

  it.skipIf(gpu.skip)(
    gpu.title('WebGPU too, on the adapter there is'),
    async () => {
      const r = await runKernelConfigBench(
        smallConfig('ops-gpu.json', () => {}),
        { ...FAST, gpu: gpu.runtime() },
      );
      checkBackend(r.backends.webgpu, true);
      expect(r.backends.webgpu?.templateRunMs).toBeGreaterThan(0);
      expect(r.backends.webgpu?.device).toBe(gpu.runtime().adapterName);
      expect(r.backends.webgpu?.runTimer).toBe(gpu.runtime().timestamps ? 'timestamps' : 'repeat');
    },
    120_000,
  );

  it.skipIf(gpu.skip)(
    gpu.title("backend 'webgpu': WebGPU alone; runMs on the device's clock, or by calibrated repeats"),
    async () => {
      const file = smallConfig('ops-webgpu.json', () => {});
      const rt = gpu.runtime();
      const r = await runKernelConfigBench(file, { ...FAST, gpu: rt, backend: 'webgpu' });
      expect(Object.keys(r.backends)).toEqual(['webgpu']);
      const b = r.backends.webgpu as BackendReport;
      checkBackend(b, true);
      expect(r.equal).toBe(b.withinTolerance);
      expect(b.runTimer).toBe(rt.timestamps ? 'timestamps' : 'repeat');
      if (rt.timestamps) expect(b.repeat).toBeUndefined();
      const byRepeat = await runKernelConfigBench(file, {
        ...FAST,
        gpu: rt,
        backend: 'webgpu',
        timestamps: false,
      });
      const rb = byRepeat.backends.webgpu as BackendReport;
      expect(rb.runTimer).toBe('repeat');
      // R is the first one tried times a power of 4
      const R = rb.repeat as number;
      expect((Math.log(R / FAST.repeat) / Math.log(4)) % 1).toBeCloseTo(0, 9);
    },
    180_000,
  );

  it('first results are taken in a carry-over balanced order: each way right after each other once per 4 rounds', () => {
    for (const n of [2, 4, 6]) {
      const after = new Map<string, number>();
      for (let k = 0; k < n; k++) {
        const row = balancedOrder(n, k);
        expect([...row].sort((a, b) => a - b)).toEqual([...Array(n).keys()]);
        for (let j = 1; j < n; j++)
          after.set(`${row[j - 1]}>${row[j]}`, (after.get(`${row[j - 1]}>${row[j]}`) ?? 0) + 1);
      }
      // every ordered pair of two ways once, so no way always follows the same one
      expect(after.size).toBe(n * (n - 1));
      expect([...after.values()].every((c) => c === 1)).toBe(true);
    }
  });

  it('a GPU output is within tolerance up to GPU_ULPS ulps of its value or of the data scale', () => {
    const ref = { result: undefined, outputs: { out: [1, 0.5, 2 ** -20, 0] } };
    const same = compareResults(ref, ref, 5);
    expect(same).toEqual({ equal: true, withinTolerance: true, diff: 0, ulps: 0 });
    // 3 ulps of the value 1
    const near = compareResults(
      { result: undefined, outputs: { out: [1 + 3 * 2 ** -23, 0.5, 2 ** -20, 0] } },
      ref,
      1,
    );
    expect(near).toMatchObject({ equal: false, withinTolerance: true, ulps: 3 });
    // a result near zero after cancellation: many ulps of itself, within 4 ulps of the scale 5
    const cancel = compareResults(
      { result: undefined, outputs: { out: [1, 0.5, 2 ** -20 + 2 ** -21, 0] } },
      ref,
      5,
    );
    expect(cancel.ulps).toBeGreaterThan(1000);
    expect(cancel.withinTolerance).toBe(true);
    // the same difference at scale 1 (ulp 2^-23): 2^-21 is 4 ulps, at the edge; 2^-20 is 8
    const atEdge = compareResults(
      { result: undefined, outputs: { out: [1, 0.5, 2 ** -20, 2 ** -21] } },
      ref,
      1,
    );
    expect(atEdge.withinTolerance).toBe(GPU_ULPS >= 4);
    const over = compareResults(
      { result: undefined, outputs: { out: [1, 0.5, 2 ** -20, 2 ** -20] } },
      ref,
      1,
    );
    expect(over.withinTolerance).toBe(false);
    // NaN where a number is due, a shorter output, a result where none is due: never within
    expect(
      compareResults({ result: undefined, outputs: { out: [Number.NaN, 0.5, 2 ** -20, 0] } }, ref, 1)
        .withinTolerance,
    ).toBe(false);
    expect(compareResults({ result: undefined, outputs: { out: [1, 0.5] } }, ref, 1)).toMatchObject({
      withinTolerance: false,
      diff: Number.POSITIVE_INFINITY,
    });
    expect(compareResults({ result: 3, outputs: ref.outputs }, ref, 1).withinTolerance).toBe(false);
    expect(dataScale([0.25, -7, Number.POSITIVE_INFINITY], 3, true, undefined, { a: 99 })).toBe(7);
  });

  describe('--backend webgpu where there is no adapter', () => {
    afterEach(() => vi.restoreAllMocks());
    it('is a usage error naming the flag and what to install (exit 2)', async () => {
      vi.spyOn(GpuRuntime, 'open').mockResolvedValue({
        kind: 'no-adapter',
        reason: 'no WebGPU adapter (stubbed)',
        install: SOFTWARE_DRIVER_HINT,
      });
      const r = await cli(
        'bench',
        '--kernel',
        smallConfig('no-gpu.json', () => {}),
        '--backend',
        'webgpu',
      );
      expect(r.code).toBe(2);
      expect(r.err).toMatch(/--backend webgpu: no WebGPU adapter \(stubbed\); /);
      expect(r.err).not.toMatch(/\n\s+at /);
      const bad = await cli(
        'bench',
        '--kernel',
        smallConfig('no-gpu.json', () => {}),
        '--backend',
        'cuda',
      );
      expect(bad.code).toBe(2);
      expect(bad.err).toMatch(/--backend must be auto, js or webgpu, not 'cuda'/);
    });
  });

  it('scf bench --kernel CONFIG --json --backend js prints the report', async () => {
    const r = await cli(
      'bench',
      '--kernel',
      smallConfig('cli.json', () => {}),
      '--json',
      '--backend',
      'js',
    );
    expect(r.code).toBe(0);
    const report = JSON.parse(r.out);
    expect(Object.keys(report.backends)).toEqual(['js']);
    expect(report.backends.js.equal).toBe(true);
    expect(report.backends.js.runMs).toEqual({
      generic: expect.any(Number),
      specialized: expect.any(Number),
    });
    // more configs may follow --kernel as arguments (a shell glob): one report each, in order
    const two = await cli(
      'bench',
      '--kernel',
      smallConfig('cli.json', () => {}),
      smallConfig('cli-2.json', () => {}),
      '--json',
      '--backend',
      'js',
    );
    expect(two.code).toBe(0);
    expect((JSON.parse(two.out) as { config: string }[]).map((r) => path.basename(r.config))).toEqual([
      'cli.json',
      'cli-2.json',
    ]);
    const bad = await cli(
      'bench',
      '--kernel',
      smallConfig('cli.json', () => {}),
      '--config',
      '1',
    );
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/--config does not go with --kernel/);
  }, 120_000);
});
