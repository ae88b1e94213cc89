/**
 * `scf bench --kernel CONFIG` (src/bench/kernel-config.ts) on a small copy of the shipped
 * op-code config: the report has every figure for the JS back end, and for WebGPU when there is an
 * adapter (required in CI), the outputs equal the reference evaluator's; a config without the
 * kernel's arguments is a positioned config error; the CLI prints the JSON report.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type BackendReport, runKernelConfigBench } from '../../src/bench/index.js';
import { ConfigError } from '../../src/pipeline/index.js';
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

function checkBackend(b: BackendReport | undefined): void {
  expect(b).toBeDefined();
  const r = b as BackendReport;
  expect(r.equal).toBe(true);
  for (const t of [r.runMs, r.roundTripMs, r.firstResultMs])
    for (const v of Object.values(t)) expect(Number.isFinite(v) && v >= 0).toBe(true);
  expect(r.firstResultMs.tiered).toBeGreaterThan(0);
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
      checkBackend(r.backends.webgpu);
      expect(r.backends.webgpu?.device).toBe(gpu.runtime().adapterName);
    },
    120_000,
  );

  it('a config that misses a run-time argument, or the late values, is a config error', async () => {
    const noArgs = smallConfig('no-args.json', (c) => {
      delete c.args;
    });
    await expect(runKernelConfigBench(noArgs, { ...FAST, backend: 'js' })).rejects.toThrow(
      /error C10\d\d: 'args' has no value for 'img'/,
    );
    const noSample = smallConfig('no-sample.json', (c) => {
      delete c.sample;
    });
    await expect(runKernelConfigBench(noSample, { ...FAST, backend: 'js' })).rejects.toBeInstanceOf(
      ConfigError,
    );
    const unknown = smallConfig('unknown.json', (c) => {
      c.args = { img: [1], nope: 1 };
    });
    await expect(runKernelConfigBench(unknown, { ...FAST, backend: 'js' })).rejects.toThrow(
      /'ops_program' has no parameter 'nope'/,
    );
  }, 120_000);

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
