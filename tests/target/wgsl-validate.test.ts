/**
 * Every generated shader passes WebGPU validation. For every kernel program in the repo —
 * tests/fixtures/fusion/*.c, benchmarks/inputs/fusion/*.c, benchmarks/inputs/kernel/*.c — and every
 * function in it, unfused and after the fusion pass (run on every function that has a combinator),
 * in both scalar modes ('uniform', 'override'):
 * - a function with a combinator is planned with `planKernelWgsl` and `rt.prepare(plan)` must
 *   succeed: it runs getCompilationInfo and createComputePipelineAsync on every pass (with no
 *   compiler warnings either). Functions the planner rejects (GpuUnsupported) must be listed in
 *   EXPECTED_REJECTIONS, per variant, with a piece of the reason, so a new rejection fails the test
 *   (and a listed one that is planned now fails it too);
 * - a function without a combinator is rejected with GpuUnsupported naming it.
 * Plans are also checked without a device: one site per data-parallel loop, pass labels naming the
 * function, `emitKernelWgsl` giving the plan's text.
 *
 * Negative tests: a plan whose shader text was corrupted (a syntax error, a type error, a workgroup
 * size over the device's limit) makes `prepare` throw ShaderRejected with the function, the pass
 * label and (for compile errors) the line and column; the runtime stays usable afterwards.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  type Cmd,
  type Fun,
  listFromArray,
  listToArray,
  loadKernelParser,
  type Program,
  soacStructure,
} from '../../src/kernel/index.js';
import {
  emitKernelWgsl,
  type GpuPlan,
  GpuUnsupported,
  planKernelWgsl,
  type ScalarMode,
  ShaderRejected,
} from '../../src/target/index.js';
import { fuse, parseClean } from '../fusion/harness.js';
import { openTestGpu } from './gpu-setup.js';

const gpu = await openTestGpu();

const ROOT = path.join(import.meta.dirname, '..', '..');
const DIRS = ['tests/fixtures/fusion', 'benchmarks/inputs/fusion', 'benchmarks/inputs/kernel'];
const MODES: readonly ScalarMode[] = ['uniform', 'override'];

/**
 * `file:function (variant)` → a piece of the GpuUnsupported reason, for functions that have a
 * combinator and that the planner rejects on purpose (in both scalar modes).
 */
const EXPECTED_REJECTIONS: Readonly<Record<string, string>> = {
  // a map over iota(n*n) whose function runs map + reduce: a combinator inside a kernel; fused,
  // map → reduce is one redomap over iota, which runs inside the kernel
  'tests/fixtures/fusion/l0_matmul.c:matmul (unfused)':
    "'dot_at', called inside a kernel, runs 'map' into 'prods'",
  'tests/fixtures/fusion/l0_minplus.c:minplus (unfused)':
    "'relax_at', called inside a kernel, runs 'map' into 'sums'",
};

interface KernelFile {
  readonly file: string; // relative to the repo root
  readonly source: string;
}

function kernelFiles(): KernelFile[] {
  const out: KernelFile[] = [];
  for (const dir of DIRS) {
    const abs = path.join(ROOT, dir);
    if (!existsSync(abs)) continue;
    for (const f of readdirSync(abs).sort()) {
      if (f.endsWith('.c'))
        out.push({ file: `${dir}/${f}`, source: readFileSync(path.join(abs, f), 'utf8') });
    }
  }
  return out;
}

const FILES = kernelFiles();

function functions(program: Program): Fun[] {
  return listToArray(program);
}
function hasCombinator(f: Fun): boolean {
  return soacStructure(f).loops > 0;
}

/** The unfused program and the program with every combinator function fused. */
function variants(kf: KernelFile): { name: string; program: Program }[] {
  const program = parseClean(kf.source, kf.file);
  const withSoacs = functions(program)
    .filter(hasCombinator)
    .map((f) => f.name);
  return [
    { name: 'unfused', program },
    { name: 'fused', program: fuse(program, withSoacs) },
  ];
}

/** Plans `fn`, or returns the GpuUnsupported it throws (anything else is thrown on). */
function plan(program: Program, fn: string, scalars: ScalarMode): GpuPlan | GpuUnsupported {
  try {
    return planKernelWgsl(program, fn, { scalars });
  } catch (e) {
    if (e instanceof GpuUnsupported) return e;
    throw e;
  }
}

beforeAll(async () => {
  await loadKernelParser();
});

describe('the repo has kernel programs to validate', () => {
  it('finds the fusion fixtures and the benchmark kernels', () => {
    expect(FILES.filter((f) => f.file.startsWith('tests/fixtures/fusion/')).length).toBeGreaterThan(20);
    expect(FILES.some((f) => f.file === 'benchmarks/inputs/fusion/smooth.c')).toBe(true);
    for (const key of Object.keys(EXPECTED_REJECTIONS)) {
      const file = key.slice(0, key.indexOf(':'));
      expect(key, 'keys are `file:function (unfused|fused)`').toMatch(/^[^:]+:\w+ \((unfused|fused)\)$/);
      expect(
        FILES.some((f) => f.file === file),
        `EXPECTED_REJECTIONS names ${key}`,
      ).toBe(true);
    }
  });
});

describe('a command kind the WGSL back end has no case for', () => {
  it('makes the function calling it unsupported inside a kernel (the host runs the loop), not an internal error', () => {
    const src = 'int sq(int x) { return x * x; }\nint* squares(int n) { return map(sq, iota(n)); }\n';
    const program = parseClean(src, 'squares.c');
    // sq's body replaced by a command of a kind ast.ts does not have (as a new kind would be)
    const mystery = { kind: 'mystery', lbl: 1000 } as unknown as Cmd;
    const patched: Program = listFromArray(
      functions(program).map((f) => (f.name === 'sq' ? { ...f, body: mystery } : f)),
    );
    expect(plan(program, 'squares', 'uniform')).not.toBeInstanceOf(GpuUnsupported);
    const p = plan(patched, 'squares', 'uniform');
    expect(p).toBeInstanceOf(GpuUnsupported);
    expect((p as GpuUnsupported).message).toContain(
      "'sq', called inside a kernel, has a command of kind 'mystery'",
    );
  });
});

describe('plans, without a device', () => {
  for (const kf of FILES) {
    it(`${kf.file}: plans every function with a combinator, rejects the others`, () => {
      for (const { name, program } of variants(kf)) {
        for (const f of functions(program)) {
          const key = `${kf.file}:${f.name} (${name})`;
          for (const scalars of MODES) {
            const what = `${key} (${scalars})`;
            const p = plan(program, f.name, scalars);
            if (!hasCombinator(f)) {
              expect(p, `${what} has no combinator`).toBeInstanceOf(GpuUnsupported);
              expect((p as GpuUnsupported).fn).toBe(f.name);
              continue;
            }
            const expected = EXPECTED_REJECTIONS[key];
            if (p instanceof GpuUnsupported) {
              expect(p.fn, what).toBe(f.name);
              expect(expected, `${what}: unexpected rejection: ${p.message}`).toBeDefined();
              expect(p.reason, what).toContain(expected);
              continue;
            }
            expect(expected, `${what} is listed in EXPECTED_REJECTIONS but was planned`).toBeUndefined();
            expect(p.fn, what).toBe(f.name);
            expect(p.sites.length, `${what}: one site per data-parallel loop`).toBe(soacStructure(f).loops);
            for (const site of p.sites) {
              expect(site.passes.length, `${what}: site ${site.index} has passes`).toBeGreaterThan(0);
              expect(site.scalarMode, what).toBe(scalars);
              for (const pass of site.passes) {
                expect(pass.label, `${what}: pass labels name the function`).toContain(f.name);
                expect(pass.wgsl.length, `${what}: ${pass.label}`).toBeGreaterThan(0);
                expect(p.wgsl.includes(pass.wgsl), `${what}: the plan's text holds ${pass.label}`).toBe(true);
              }
            }
            expect(emitKernelWgsl(program, f.name, { scalars }), what).toBe(p.wgsl);
          }
        }
      }
    });
  }
});

describe.skipIf(gpu.skip)(gpu.title('every shader passes WebGPU validation (GPU)'), () => {
  for (const kf of FILES) {
    it(`${kf.file}: prepare() validates every pass of every plan, unfused and fused, both scalar modes`, async () => {
      const rt = gpu.runtime();
      const failures: string[] = [];
      const warningsBefore = rt.warnings.length;
      let prepared = 0;
      for (const { name, program } of variants(kf)) {
        for (const f of functions(program).filter(hasCombinator)) {
          for (const scalars of MODES) {
            const p = plan(program, f.name, scalars);
            if (p instanceof GpuUnsupported) continue; // checked by 'plans, without a device'
            try {
              const kernel = await rt.prepare(p);
              expect(kernel.plan).toBe(p);
              prepared++;
            } catch (e) {
              failures.push(`${f.name} (${name}, ${scalars}): ${e instanceof Error ? e.message : String(e)}`);
            }
          }
        }
      }
      expect(failures).toEqual([]);
      // the generator aims at shaders the compiler has nothing to say about
      expect(rt.warnings.slice(warningsBefore), 'WGSL compiler warnings').toEqual([]);
      expect(prepared).toBeGreaterThan(0);
    }, 300_000);
  }
});

// ---- corrupted shaders -----------------------------------------------------------------------

const SMOOTH = 'benchmarks/inputs/fusion/smooth.c';

/** `plan` with pass `k` of site `s`'s shader replaced by `edit(wgsl)`. */
function corrupt(p: GpuPlan, s: number, k: number, edit: (wgsl: string) => string): GpuPlan {
  return {
    ...p,
    sites: p.sites.map((site, i) =>
      i !== s
        ? site
        : {
            ...site,
            passes: site.passes.map((pass, j) => (j !== k ? pass : { ...pass, wgsl: edit(pass.wgsl) })),
          },
    ),
  };
}

/** A plan with a reduction (a site with more than one pass when the back end splits it), from smooth.c. */
function samplePlan(): GpuPlan {
  const kf = FILES.find((f) => f.file === SMOOTH) as KernelFile;
  const program = parseClean(kf.source, kf.file);
  return planKernelWgsl(program, 'brightness', { scalars: 'uniform' });
}

async function rejection(promise: Promise<unknown>): Promise<ShaderRejected> {
  const e = await promise.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(ShaderRejected);
  return e as ShaderRejected;
}

describe.skipIf(gpu.skip)(
  gpu.title('a rejected shader is reported with function, pass and position (GPU)'),
  () => {
    it('a syntax error: ShaderRejected with the function, the pass label, the line and the column', async () => {
      const rt = gpu.runtime();
      const p = samplePlan();
      const site = p.sites.length - 1;
      const pass = (p.sites[site] as GpuPlan['sites'][number])
        .passes[0] as GpuPlan['sites'][number]['passes'][number];
      // insert `const broken: i32 = ;` as line 2 (global scope): a parse error at 2:21, the `;`
      const bad = corrupt(p, site, 0, (w) => {
        const lines = w.split('\n');
        lines.splice(1, 0, 'const broken: i32 = ;');
        return lines.join('\n');
      });
      const e = await rejection(rt.prepare(bad));
      expect(e.fn).toBe('brightness');
      expect(e.pass).toBe(pass.label);
      expect(e.line).toBe(2);
      expect(e.col).toBe(21);
      expect(e.detail.length).toBeGreaterThan(0);
      expect(e.message).toContain("function 'brightness'");
      expect(e.message).toContain(pass.label);
      expect(e.message).toContain('2:21');
    });

    it('a type error in a later pass: the position is that of the offending token', async () => {
      const rt = gpu.runtime();
      const p = samplePlan();
      // the last pass of the last site: append a declaration whose initializer has the wrong type
      const site = p.sites.length - 1;
      const passes = (p.sites[site] as GpuPlan['sites'][number]).passes;
      const k = passes.length - 1;
      const label = (passes[k] as GpuPlan['sites'][number]['passes'][number]).label;
      let line = 0;
      const bad = corrupt(p, site, k, (w) => {
        const text = w.endsWith('\n') ? w : `${w}\n`;
        line = text.split('\n').length; // the new line's number (1-based)
        return `${text}const wrong: i32 = 1.5;\n`;
      });
      const e = await rejection(rt.prepare(bad));
      expect(e.fn).toBe('brightness');
      expect(e.pass).toBe(label);
      expect(e.line).toBe(line);
      expect(e.col).toBeGreaterThanOrEqual(1);
      expect(e.detail).toMatch(/i32|f32|abstract/);
    });

    it('a pipeline the device cannot create (workgroup size over its limit): ShaderRejected naming the pass', async () => {
      const rt = gpu.runtime();
      const p = samplePlan();
      const site = p.sites.length - 1;
      const pass = (p.sites[site] as GpuPlan['sites'][number])
        .passes[0] as GpuPlan['sites'][number]['passes'][number];
      expect(pass.wgsl).toMatch(/@workgroup_size\(/);
      const bad = corrupt(p, site, 0, (w) => w.replace(/@workgroup_size\([^)]*\)/, '@workgroup_size(1024)'));
      const e = await rejection(rt.prepare(bad));
      expect(e.fn).toBe('brightness');
      expect(e.pass).toBe(pass.label);
      expect(e.detail.length).toBeGreaterThan(0);
    });

    it('the runtime stays usable: the intact plan prepares and runs after the rejections', async () => {
      const rt = gpu.runtime();
      const kernel = await rt.prepare(samplePlan());
      const r = await kernel.run([[0.5, 0.25, 1, 0], 2, 2, 1]);
      expect(typeof r.result).toBe('number');
    });
  },
);
