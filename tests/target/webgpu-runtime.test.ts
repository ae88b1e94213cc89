/**
 * The WebGPU runtime (src/target/webgpu.ts) beyond "results equal the JS back end's"
 * (wgsl-differential.test.ts) and "every shader validates" (wgsl-validate.test.ts):
 * - without a device: the no-adapter text says exactly what to install, and a process whose Vulkan
 *   loader finds no driver gets a NoAdapter (never a crash), an error with that text from
 *   `runKernel(…, { backend: 'webgpu' })` and the JS back end with a note from 'auto';
 * - with a device: the pipeline cache (preparing a plan twice creates no new pipelines; 'override'
 *   pipelines per set of values), GpuRunError naming the function (mapped arrays of different
 *   lengths), a fold whose ne has ⊕(ne, ne) ≠ ne giving the in-order result, GpuUnsupported for a function without a combinator, scalar operands that change between runs in
 *   both scalar modes (an 'override' pipeline is made per value, never reused for another), runs of
 *   one prepared kernel in parallel, 'auto' choosing WebGPU, and a destroyed runtime refusing work.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadKernelParser, type Program } from '../../src/kernel/index.js';
import {
  compileKernelJs,
  GpuRunError,
  GpuRuntime,
  GpuUnsupported,
  type NoAdapter,
  planKernelWgsl,
  runKernel,
  SOFTWARE_DRIVER_HINT,
  SOFTWARE_ELEMENT_GROUPS,
} from '../../src/target/index.js';
import { parseClean } from '../fusion/harness.js';
import { noAdapterMessage, openTestGpu } from './gpu-setup.js';

const gpu = await openTestGpu();
const ROOT = path.join(import.meta.dirname, '..', '..');

const SOURCE = `
float sq(float x) { return x * x; }
float add(float a, float b) { return a + b; }
float scale(float x, float s) { return x * s; }
float tof(int i) { return (float)i; }
float* squares(const float xs[]) { return map(sq, xs); }
float* sums(const float xs[], const float ys[]) { return map(add, xs, ys); }
float total(const float xs[], float z) { return reduce(add, z, xs); }
float total1(const float xs[]) { return reduce(add, 1.0f, xs); }
float* scaled(const float xs[], float s) { return map(scale, xs, s); }
float* ramp(int n, float s) { return map(scale, map(tof, iota(n)), s); }
float nogpu(float x) { return x * 2.0f; }
int* io(int n) { return iota(n); }
float* rewritten(float w[], const float xs[]) {
  float a[] = map(add, xs, w);
  w[0] = 100.0f;
  float b[] = map(add, a, w);
  return b;
}
float* chain(const float xs[], float s) {
  float a[] = map(sq, xs);
  float b[] = map(scale, a, s);
  return map(add, b, a);
}
float* peek(const float xs[], float s) {
  float a[] = map(sq, xs);
  float b[] = map(scale, a, a[0]);
  return map(scale, b, s);
}
float accumulate(float w[], int n) {
  float s = 0.0f;
  for (int i = 0; i < n; i++) {
    w[i] = 1.0f;
    float t = reduce(add, 0.0f, w);
    s = s + t;
  }
  return s;
}
`;
let program: Program;

beforeAll(async () => {
  await loadKernelParser();
  program = parseClean(SOURCE, 'runtime.c');
});

// ---- without a device ------------------------------------------------------------------------

describe('what to install when there is no adapter (no device needed)', () => {
  it('SOFTWARE_DRIVER_HINT names the packages, the apt command and the environment', () => {
    expect(SOFTWARE_DRIVER_HINT).toContain('apt-get install');
    expect(SOFTWARE_DRIVER_HINT).toContain('chromium');
    expect(SOFTWARE_DRIVER_HINT).toContain('libvulkan1');
    expect(SOFTWARE_DRIVER_HINT).toContain('SwiftShader');
    expect(SOFTWARE_DRIVER_HINT).toContain('VK_ICD_FILENAMES=/usr/lib/chromium/vk_swiftshader_icd.json');
    expect(SOFTWARE_DRIVER_HINT).toContain('LD_LIBRARY_PATH=/usr/lib/chromium');
  });

  it("the tests' no-adapter message gives the reason and the install hint", () => {
    const na: NoAdapter = {
      kind: 'no-adapter',
      reason: 'no WebGPU adapter (Vulkan found no driver)',
      install: SOFTWARE_DRIVER_HINT,
    };
    const m = noAdapterMessage(na);
    expect(m).toContain(na.reason);
    expect(m).toContain(SOFTWARE_DRIVER_HINT);
  });

  it('in a process whose Vulkan loader finds no driver: NoAdapter, an error with the hint, the JS fallback', () => {
    // A child process with a driver list naming a file that does not exist: the loader finds no
    // driver, as on a machine without SwiftShader (a user's explicit VK_ICD_FILENAMES wins).
    const dir = mkdtempSync(path.join(tmpdir(), 'scf-noadapter-'));
    try {
      const script = path.join(dir, 'no-adapter.mts');
      const target = pathToFileURL(path.join(ROOT, 'src', 'target', 'index.ts')).href;
      const kernel = pathToFileURL(path.join(ROOT, 'src', 'kernel', 'index.ts')).href;
      writeFileSync(
        script,
        `import { GpuRuntime, runKernel, SOFTWARE_DRIVER_HINT } from ${JSON.stringify(target)};
import { parseKernel } from ${JSON.stringify(kernel)};
const out = {};
const opened = await GpuRuntime.open();
out.opened = opened instanceof GpuRuntime ? 'runtime' : opened;
if (opened instanceof GpuRuntime) opened.destroy();
const { program } = await parseKernel('float sq(float x) { return x * x; } float* f(const float xs[]) { return map(sq, xs); }');
try {
  const r = await runKernel(program, 'f', [[1, 2, 3]], { backend: 'webgpu' });
  out.webgpu = { ok: r };
} catch (e) {
  out.webgpu = { error: String(e && e.message) };
}
const auto = await runKernel(program, 'f', [[1, 2, 3]], { backend: 'auto' });
out.auto = auto;
out.hint = SOFTWARE_DRIVER_HINT;
process.stdout.write('RESULT ' + JSON.stringify(out) + '\\n');
`,
      );
      const env: NodeJS.ProcessEnv = { ...process.env };
      env.VK_ICD_FILENAMES = path.join(dir, 'no-such-driver.json');
      env.VK_DRIVER_FILES = path.join(dir, 'no-such-driver.json');
      delete env.LD_LIBRARY_PATH;
      const r = spawnSync(process.execPath, ['--import', 'tsx', script], {
        cwd: ROOT,
        env,
        encoding: 'utf8',
        timeout: 60_000,
      });
      const line = r.stdout.split('\n').find((l) => l.startsWith('RESULT '));
      expect(line, `exit ${r.status} ${r.signal ?? ''}\n${r.stdout}\n${r.stderr}`).toBeDefined();
      const out = JSON.parse((line as string).slice('RESULT '.length)) as {
        opened: NoAdapter | 'runtime';
        webgpu: { error?: string };
        auto: { backend: string; result: number[]; note?: string };
        hint: string;
      };
      expect(r.status, r.stderr).toBe(0);
      expect(out.opened, 'a driver list naming a missing file must give no adapter').not.toBe('runtime');
      const na = out.opened as NoAdapter;
      expect(na.kind).toBe('no-adapter');
      expect(na.reason.length).toBeGreaterThan(0);
      expect(na.install).toBe(out.hint);
      // backend 'webgpu': an error that says why and what to install
      expect(out.webgpu.error, 'runKernel(webgpu) without an adapter must throw').toBeDefined();
      expect(out.webgpu.error).toContain(out.hint);
      // backend 'auto': the JS back end, with a note saying so
      expect(out.auto.backend).toBe('js');
      expect(out.auto.result).toEqual([1, 4, 9]);
      expect(out.auto.note ?? '').toMatch(/adapter|WebGPU|GPU/i);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);
});

// ---- with a device ---------------------------------------------------------------------------

async function thrown(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => undefined,
    (e: unknown) => e,
  );
}

describe.skipIf(gpu.skip)(gpu.title('the WebGPU runtime (GPU)'), () => {
  it('names its adapter', () => {
    expect(gpu.runtime().adapterName.length).toBeGreaterThan(0);
  });

  it('caches pipelines by shader text: preparing a plan twice creates no new pipelines', async () => {
    const rt = gpu.runtime();
    const plan = planKernelWgsl(program, 'total', {});
    await rt.prepare(plan);
    const before = { ...rt.stats };
    // a new plan object with the same shaders: every pass found in the cache
    const again = await rt.prepare(planKernelWgsl(program, 'total', {}));
    const passes = plan.sites.reduce((k, s) => k + s.passes.length, 0);
    expect(rt.stats.pipelinesCreated).toBe(before.pipelinesCreated);
    expect(rt.stats.modulesCreated).toBe(before.modulesCreated);
    expect(rt.stats.pipelineCacheHits).toBe(before.pipelineCacheHits + passes);
    expect((await again.run([[1, 2, 3], 0])).result).toBe(6);
    // running creates no pipelines either ('uniform' mode: one pipeline serves every value)
    const created = rt.stats.pipelinesCreated;
    await again.run([[4, 5], 0]);
    expect(rt.stats.pipelinesCreated).toBe(created);
  });

  it('repeat k: each dispatch of an elementwise launch k times in a row, the outputs of one run; timing on the device clock', async () => {
    const rt = gpu.runtime();
    const xs = [0.5, -2, 3, 1.25, 7];
    for (const [fn, args] of [
      ['chain', [xs, 1.5]],
      ['squares', [xs]],
    ] as const) {
      const kernel = await rt.prepare(planKernelWgsl(program, fn, {}));
      const d0 = rt.stats.dispatches;
      const once = await kernel.run(args);
      const d1 = rt.stats.dispatches;
      const five = await kernel.run(args, { repeat: 5 });
      expect(five).toEqual(once);
      // every launch of these functions is elementwise: five dispatches for each of one run's
      expect(rt.stats.dispatches - d1).toBe(5 * (d1 - d0));
    }
    // timing: the device's time in the passes, where the adapter has timestamps (enough elements
    // that the time is well above a clock's resolution)
    const many = Array.from({ length: 1 << 17 }, (_, i) => i / 4096);
    const chain = await rt.prepare(planKernelWgsl(program, 'chain', {}));
    const timed = await chain.run([many, 1.5], { timing: true });
    if (rt.timestamps) {
      expect(timed.gpuMs).toBeGreaterThan(0);
      // the clock unrounded: Dawn's default rounds every reading to a multiple of 2^16 ns
      const ns: number[] = [];
      for (let k = 0; k < 4; k++)
        ns.push(Math.round(((await chain.run([many, 1.5], { timing: true })).gpuMs as number) * 1e6));
      expect(ns.some((t) => t % 65536 !== 0)).toBe(true);
    } else expect(timed.gpuMs).toBeUndefined();
    expect({ ...timed, gpuMs: undefined }).toEqual({ ...(await chain.run([many, 1.5])), gpuMs: undefined });
    // a launch that reads what an earlier one wrote, and an array the host writes between them
    const kernel = await rt.prepare(planKernelWgsl(program, 'rewritten', {}));
    const args = [[1, 2, 3], xs.slice(0, 3)];
    expect(await kernel.run(args, { repeat: 4 })).toEqual(await kernel.run(args));
  });

  it('an element-wise pass strides over the elements beyond its workgroups (fewer on a software adapter)', async () => {
    const rt = gpu.runtime();
    expect(rt.elementGroups).toBe(rt.isSoftware ? SOFTWARE_ELEMENT_GROUPS : 65535);
    // more elements than elementGroups · 256 invocations on a software adapter, and not a multiple
    const n = SOFTWARE_ELEMENT_GROUPS * 256 * 3 + 17;
    const xs = Array.from({ length: n }, (_, i) => (i % 97) / 8 - 6);
    const kernel = await rt.prepare(planKernelWgsl(program, 'squares', {}));
    expect((await kernel.run([xs])).result).toEqual(xs.map((x) => Math.fround(x * x)));
  });

  it("'override' mode: one pipeline per distinct set of values, found again for a value seen before", async () => {
    const rt = gpu.runtime();
    const kernel = await rt.prepare(planKernelWgsl(program, 'scaled', { scalars: 'override' }));
    await kernel.run([[1, 2], 7]);
    const created = rt.stats.pipelinesCreated;
    await kernel.run([[3, 4], 7]);
    expect(rt.stats.pipelinesCreated).toBe(created);
    expect((await kernel.run([[3, 4], 9])).result).toEqual([27, 36]);
    expect(rt.stats.pipelinesCreated).toBe(created + 1);
  });

  it('mapped arrays of different lengths: GpuRunError naming the function', async () => {
    const rt = gpu.runtime();
    const e = await thrown(runKernel(program, 'sums', [[1, 2], [3]], { backend: 'webgpu', gpu: rt }));
    expect(e).toBeInstanceOf(GpuRunError);
    expect((e as GpuRunError).fn).toBe('sums');
    expect((e as GpuRunError).message).toContain("'sums'");
  });

  it('a neutral element with ⊕(ne, ne) ≠ ne: the fold runs in order and gives the sequential result', async () => {
    const rt = gpu.runtime();
    const xs = Array.from({ length: 1000 }, (_, i) => (i % 9) - 4);
    for (const z of [1, 0, -2.5]) {
      const r = await runKernel(program, 'total', [xs, z], { backend: 'webgpu', gpu: rt });
      expect(r.result).toBe(compileKernelJs(program, 'total').run([xs, z]).result);
    }
    const lit = await runKernel(program, 'total1', [[1, 2, 3]], { backend: 'webgpu', gpu: rt });
    expect(lit.result).toBe(7);
  });

  it('iota of a negative length: GpuRunError naming the function', async () => {
    const e = await thrown(runKernel(program, 'io', [-1], { backend: 'webgpu', gpu: gpu.runtime() }));
    expect(e).toBeInstanceOf(GpuRunError);
    expect((e as GpuRunError).fn).toBe('io');
  });

  it('an array the host writes between two launches reaches the second launch as written', async () => {
    const rt = gpu.runtime();
    for (const [fn, args] of [
      // map reads w, the host sets w[0], a second map reads w again
      [
        'rewritten',
        [
          [1, 2, 3],
          [10, 20, 30],
        ],
      ],
      // a reduction over w in a loop whose body writes w[i] before each launch
      ['accumulate', [[0, 0, 0, 0], 4]],
    ] as const) {
      const expected = compileKernelJs(program, fn).run(structuredClone(args) as never);
      const actual = await runKernel(program, fn, structuredClone(args) as never, {
        backend: 'webgpu',
        gpu: rt,
      });
      expect({ result: actual.result, outputs: actual.outputs }, fn).toEqual(expected);
    }
  });

  it('arrays the host only passes on stay on the device; those it reads or returns come back', async () => {
    const rt = gpu.runtime();
    const chain = planKernelWgsl(program, 'chain');
    expect(chain.sites.map((s) => s.members.map((m) => m.readBack))).toEqual([[false], [false], [true]]);
    const peek = planKernelWgsl(program, 'peek');
    expect(peek.sites.map((s) => s.members.map((m) => m.readBack))).toEqual([[true], [false], [true]]);
    const xs = [1.5, -2, 3, 0.25, 7];
    for (const [fn, plan] of [
      ['chain', chain],
      ['peek', peek],
    ] as const) {
      const kernel = await rt.prepare(plan);
      const before = rt.stats.bytesRead;
      const actual = await kernel.run([xs, 0.5]);
      const read = rt.stats.bytesRead - before;
      // 4 bytes per element of each array read back (the returned one; for peek also a)
      expect(read, fn).toBe(4 * xs.length * (fn === 'chain' ? 1 : 2));
      expect(actual).toEqual(compileKernelJs(program, fn).run([xs, 0.5]));
    }
  });

  it("'override' mode: -0 and +0 are different values (not one cached pipeline)", async () => {
    const rt = gpu.runtime();
    for (const s of [0, -0, 0]) {
      const r = await runKernel(program, 'scaled', [[1, 2], s], {
        backend: 'webgpu',
        gpu: rt,
        wgsl: { scalars: 'override' },
      });
      const expected = compileKernelJs(program, 'scaled').run([[1, 2], s]).result as number[];
      expect(
        (r.result as number[]).map((x, i) => Object.is(x, expected[i])),
        `s = ${Object.is(s, -0) ? '-0' : s}: ${JSON.stringify(r.result)} vs ${expected.map((x) => (Object.is(x, -0) ? '-0' : x))}`,
      ).toEqual([true, true]);
    }
  });

  it("'override' mode, a non-finite scalar: the JS back end's result or a GpuRunError, not a rejected shader", async () => {
    const rt = gpu.runtime();
    for (const s of [Number.POSITIVE_INFINITY, Number.NaN]) {
      const expected = compileKernelJs(program, 'scaled').run([[1, 2], s]).result;
      const r = await runKernel(program, 'scaled', [[1, 2], s], {
        backend: 'webgpu',
        gpu: rt,
        wgsl: { scalars: 'override' },
      }).then(
        (k) => k.result,
        (e: unknown) => e,
      );
      if (r instanceof Error) expect(r, `s = ${s}: ${r.message}`).toBeInstanceOf(GpuRunError);
      else expect(r, `s = ${s}`).toEqual(expected);
    }
  });

  it('a function without a combinator: GpuUnsupported naming it', async () => {
    const rt = gpu.runtime();
    let e: unknown;
    try {
      planKernelWgsl(program, 'nogpu');
    } catch (err) {
      e = err;
    }
    expect(e).toBeInstanceOf(GpuUnsupported);
    expect((e as GpuUnsupported).fn).toBe('nogpu');
    expect((e as GpuUnsupported).message).toContain("'nogpu'");
    const r = await thrown(runKernel(program, 'nogpu', [2], { backend: 'webgpu', gpu: rt }));
    expect(r).toBeInstanceOf(GpuUnsupported);
  });

  for (const scalars of ['uniform', 'override'] as const) {
    it(`scalar operands that change between runs ('${scalars}')`, async () => {
      const rt = gpu.runtime();
      for (const s of [2, 3, 2, -0.5]) {
        const r = await runKernel(program, 'scaled', [[1, 2, 4], s], {
          backend: 'webgpu',
          gpu: rt,
          wgsl: { scalars },
        });
        expect(r.result).toEqual([s, 2 * s, 4 * s]);
      }
      const kernel = await rt.prepare(planKernelWgsl(program, 'ramp', { scalars }));
      for (const [n, s] of [
        [3, 1],
        [5, 2],
        [0, 2],
        [300, 0.5],
      ] as const) {
        const r = await kernel.run([n, s]);
        expect(r.result).toEqual(compileKernelJs(program, 'ramp').run([n, s]).result);
      }
    });
  }

  it('runs of one prepared kernel in parallel do not mix', async () => {
    const rt = gpu.runtime();
    const kernel = await rt.prepare(planKernelWgsl(program, 'scaled', { scalars: 'uniform' }));
    const inputs = Array.from({ length: 8 }, (_, k) => [
      Array.from({ length: 50 + k * 40 }, (_, i) => i % 7),
      k + 1,
    ]);
    const results = await Promise.all(inputs.map((a) => kernel.run(a as [number[], number])));
    results.forEach((r, k) => {
      expect(r.result).toEqual(
        compileKernelJs(program, 'scaled').run(inputs[k] as [number[], number]).result,
      );
    });
  });

  it("'auto' runs on the GPU when there is one; 'js' on the JS back end", async () => {
    const rt = gpu.runtime();
    const a = await runKernel(program, 'squares', [[1, 2, 3]], { backend: 'auto', gpu: rt });
    expect(a.backend).toBe('webgpu');
    expect(a.result).toEqual([1, 4, 9]);
    const j = await runKernel(program, 'squares', [[1, 2, 3]], { backend: 'js' });
    expect(j.backend).toBe('js');
    expect(j.result).toEqual([1, 4, 9]);
  });

  it('a destroyed runtime refuses work', async () => {
    const other = await GpuRuntime.open();
    expect(other).toBeInstanceOf(GpuRuntime);
    const rt = other as GpuRuntime;
    const plan = planKernelWgsl(program, 'squares');
    const kernel = await rt.prepare(plan);
    expect((await kernel.run([[3]])).result).toEqual([9]);
    rt.destroy();
    expect(await thrown(rt.prepare(plan))).toBeInstanceOf(Error);
    // the file's own runtime is unaffected
    const r = await runKernel(program, 'squares', [[5]], { backend: 'webgpu', gpu: gpu.runtime() });
    expect(r.result).toEqual([25]);
  });
});
