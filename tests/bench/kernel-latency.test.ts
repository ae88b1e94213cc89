/**
 * `npm run bench:latency` (src/bench/kernel-latency.ts) on a tiny image and few coefficient sets:
 * every variant is measured, each specializing sample really created a pipeline (no cache hid
 * the work), the generic kernels none, and every output equals the original kernel's. Timings
 * are not asserted (DEVELOPERS: speed lives in benchmarks, not in tests).
 */
import { describe, expect, it } from 'vitest';
import { runKernelBench } from '../../src/bench/kernel-latency.js';
import { openTestGpu } from '../target/gpu-setup.js';

const GPU = await openTestGpu();

describe.skipIf(GPU.skip)(GPU.title('the kernel latency benchmark'), () => {
  it('measures staged, unstaged, uniform and override on WebGPU, outputs exact', async () => {
    GPU.runtime(); // fails here, with what to install, when an adapter is required and missing
    const r = await runKernelBench({ sets: 2, width: 8, height: 6, runs: 2 });
    expect(r.backend).toBe('webgpu');
    expect(r.latency.map((l) => l.variant)).toEqual(['staged', 'unstaged', 'uniform', 'override']);
    for (const row of r.latency) {
      expect(row.samples).toHaveLength(2);
      const made = row.variant === 'uniform' ? 0 : 1;
      for (const s of row.samples) expect(s.pipelinesCreated).toBe(made);
    }
    expect(r.runTimes.map((t) => t.kernel)).toEqual(
      expect.arrayContaining(['specialized', 'uniform', 'override', 'js-specialized', 'js-generic']),
    );
    expect(r.maxAbsDiff).toBe(0);
    expect(r.pipelines.speedup).toBeGreaterThan(0);
    expect(r.pipelines.admitFormalsUs).toBeGreaterThan(0);
  });
});

describe('the kernel latency benchmark without WebGPU', () => {
  it('measures the JS back end variants, outputs exact', async () => {
    const r = await runKernelBench({ sets: 2, width: 8, height: 6, runs: 2, backend: 'js' });
    expect(r.backend).toBe('js');
    expect(r.latency.length).toBeGreaterThan(0);
    expect(r.maxAbsDiff).toBe(0);
  });
});
