/**
 * Kernel templates (src/target/template.ts): a program's float literals lifted into parameters.
 * The template with its constants computes what the program computes (the reference evaluator and
 * the JS back end, element by element with Object.is, on random inputs with NaN, ±Inf and -0);
 * programs that differ only in liftable float literals share a key, and a changed int literal, a
 * kept constant (`keep`) or a literal of a combine operator makes another; the lifted program is
 * well formed; names stay fresh. Through the tiers: the suite's specialized kernels for fresh
 * float values share one template and give the evaluator's outputs.
 */
import fc from 'fast-check';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatDiagnostic } from '../../src/common/index.js';
import {
  type ArgValue,
  type Cmd,
  evaluate,
  type Fun,
  listToArray,
  loadKernelParser,
  listFromArray,
  mapChildren,
  type Program,
  parseKernel,
  type Seq,
  validateProgram,
} from '../../src/kernel/index.js';
import { allPasses, runPipeline } from '../../src/optimizers/index.js';
import { importStub, loadConfig, stageConfig, writeStaged } from '../../src/pipeline/index.js';
import {
  compareResults,
  compileKernelJs,
  dataScale,
  GpuUnsupported,
  type KernelResult,
  planKernelWgsl,
  programOf,
  TieredKernels,
  tieredKernels,
} from '../../src/target/index.js';
import { floatConstants, kernelTemplate, MAX_TEMPLATE_CONSTANTS } from '../../src/target/template.js';
import { ROOT } from '../optimizers/helpers.js';
import { openTestGpu } from './gpu-setup.js';

const gpu = await openTestGpu();
const RUNS = Number(process.env.SCF_JS_RUNS ?? 100);

beforeAll(() => loadKernelParser());

async function parse(source: string): Promise<Program> {
  const p = await parseKernel(source, 'k.c');
  expect(p.diagnostics.map((d) => formatDiagnostic(d, p.sources, false))).toEqual([]);
  return p.program;
}

/** C text of a float literal (binary32, exact as a decimal with enough digits). */
const lit = (x: number): string => (Object.is(x, -0) ? '-0.0f' : `${x.toPrecision(9)}f`);

/**
 * A kernel with float literals where templates lift them (`a`…`d`: in a function a map's lambda
 * calls, in the lambda's own function, in host code, in a map's scalar argument) and where they
 * stay (a reduce's ⊕ and its neutral element); `n` is an int literal.
 */
function kernelText(a: number, b: number, c: number, d: number, n = 3, reduce = true): string {
  const text = `
float shift(float x, float k) { return x * k + ${lit(a)}; }
float poly(float x, float k) { return shift(x, k) - ${lit(b)} * x; }
float add(float p, float q) { return p + q * 1.0f; }
float *kern(const float xs[], float s, int m) {
  float k = s * ${lit(c)};
  if (m > ${n}) { k = k + ${lit(d)}; }
  float ys[] = map(poly, xs, k);
  float t = reduce(add, 0.5f, ys);
  float zs[] = map(shift, ys, ${lit(d)});
  float ws[] = map(shift, zs, t);
  return ws;
}`;
  // without the reduce no function is frozen: the key is made from the first pass
  return reduce ? text : text.replace('float t = reduce(add, 0.5f, ys);', 'float t = s;');
}

/** `program` with each float literal of value `from` (Object.is) made `to`. */
function withLiteral(program: Program, from: number, to: number): Program {
  const go = (x: unknown): unknown => {
    if (typeof x !== 'object' || x === null) return x;
    const node = x as { kind?: string; value?: number };
    if (node.kind === 'floatLit' && Object.is(node.value, from)) return { ...node, value: to };
    return mapChildren(node, go);
  };
  return go(program) as Program;
}

const f32 = fc.float({ noDefaultInfinity: false, noNaN: false }).map(Math.fround);
const finiteF32 = fc.float({ noNaN: true, noDefaultInfinity: true, min: -100, max: 100 }).map(Math.fround);
const nonzeroF32 = finiteF32.filter((x) => x !== 0);

/** Whether two outputs agree element for element (Object.is: NaN equals NaN, -0 differs from 0). */
function same(a: unknown, b: unknown): boolean {
  const xs = Array.from(a as ArrayLike<number>);
  const ys = Array.from(b as ArrayLike<number>);
  return xs.length === ys.length && xs.every((x, i) => Object.is(x, ys[i]));
}

describe('kernelTemplate', () => {
  it('the template with its constants computes what the program does (evaluator and JS back end)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.tuple(finiteF32, finiteF32, finiteF32, finiteF32),
        fc.array(f32, { minLength: 1, maxLength: 9 }),
        f32,
        fc.integer({ min: 0, max: 6 }),
        async ([a, b, c, d], xs, s, m) => {
          const program = await parse(kernelText(a, b, c, d));
          const t = kernelTemplate(program, 'kern');
          expect(t).toBeDefined();
          if (t === undefined) return;
          expect(validateProgram(t.lifted() as Program, { seqs: 'skip-free' })).toEqual([]);
          const args = { xs, s, m };
          const want = evaluate(program, 'kern', args).result;
          expect(
            same(evaluate(t.lifted() as Program, 'kern', { ...args, ...t.constants }).result, want),
          ).toBe(true);
          expect(
            same(
              compileKernelJs(t.lifted() as Program, 'kern').run({ ...args, ...t.constants }).result,
              want,
            ),
          ).toBe(true);
        },
      ),
      { numRuns: Math.max(10, RUNS / 5) },
    );
  });

  it.each([true, false])(
    'programs differing only in liftable float literals share a key; the constants hold their values (reduce: %s)',
    async (reduce) => {
      const base = kernelTemplate(await parse(kernelText(0.5, 2, 3, -1, 3, reduce)), 'kern');
      await fc.assert(
        fc.asyncProperty(fc.tuple(finiteF32, finiteF32, finiteF32, finiteF32), async ([a, b, c, d]) => {
          const t = kernelTemplate(await parse(kernelText(a, b, c, d, 3, reduce)), 'kern');
          expect(t?.key).toBe(base?.key);
          expect(Object.values(t?.constants ?? {}).sort()).toEqual([a, b, c, d, d].map(Math.fround).sort());
        }),
        { numRuns: 20 },
      );
    },
  );

  it.each([true, false])(
    'an int literal, a kept constant, NaN against ±Infinity, another entry make another key (reduce: %s)',
    async (reduce) => {
      const program = await parse(kernelText(0.5, 2, 3, -1, 3, reduce));
      const base = kernelTemplate(program, 'kern');
      expect(kernelTemplate(await parse(kernelText(0.5, 2, 3, -1, 4, reduce)), 'kern')?.key).not.toBe(
        base?.key,
      );
      expect(kernelTemplate(program, 'poly')?.key).not.toBe(base?.key);
      // kept literals JSON prints alike (null): NaN, Infinity, -Infinity in place of the kept 2
      const keys = [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY].map(
        (v) => kernelTemplate(withLiteral(program, 2, v), 'kern', new Set([v]))?.key,
      );
      expect(new Set(keys).size).toBe(3);
      const keptZero = kernelTemplate(await parse(kernelText(0, 2, 3, -1, 3, reduce)), 'kern', new Set([0]));
      const keptMinus = kernelTemplate(
        await parse(kernelText(-0, 2, 3, -1, 3, reduce)),
        'kern',
        new Set([0]),
      );
      expect(keptZero?.key).not.toBe(keptMinus?.key);
      expect(Object.values(keptMinus?.constants ?? {}).some((v) => Object.is(v, -0))).toBe(true);
      const kept = kernelTemplate(program, 'kern', new Set([2]));
      expect(kept?.key).not.toBe(base?.key);
      expect(Object.values(kept?.constants ?? {})).not.toContain(2);
    },
  );

  it('an int bound as -0 is the int 0 in the specialized program; an int literal -0 makes another key', async () => {
    const text =
      'float kern(float x, int n, float c) {\n  int k = n;\n  if (x > 1.0f) { k = 1; }\n  return x * c + (float)k;\n}';
    const program = await parse(text);
    const fun = runPipeline(program, 'kern', allPasses, { n: -0, c: 2.5 }).fun;
    const ints: number[] = [];
    const visit = (x: unknown): void => {
      if (typeof x !== 'object' || x === null) return;
      const node = x as { kind?: string; value?: number };
      if (node.kind === 'intLit') ints.push(node.value as number);
      for (const c of Object.values(node)) visit(c);
    };
    visit(fun);
    expect(ints.some((v) => Object.is(v, -0))).toBe(false);
    const args = { x: -0, n: 0, c: 2.5 };
    expect(
      Object.is(evaluate(programOf(fun), 'kern', args).result, evaluate(program, 'kern', args).result),
    ).toBe(true);
    // a program holding an int literal -0 (no pass makes one) and its twin with 0
    const withInt = (v: number): Program => {
      const go = (x: unknown): unknown => {
        if (typeof x !== 'object' || x === null) return x;
        const node = x as { kind?: string; value?: number };
        if (node.kind === 'intLit' && node.value === 1) return { ...node, value: v };
        return mapChildren(node, go);
      };
      return go(program) as Program;
    };
    expect(kernelTemplate(withInt(0), 'kern')?.key).not.toBe(kernelTemplate(withInt(-0), 'kern')?.key);
  });

  it('a literal of ⊕ or of a neutral element makes another key', async () => {
    const program = await parse(kernelText(0.5, 2, 3, -1));
    const base = kernelTemplate(program, 'kern');
    const otherAdd = (await parse(kernelText(0.5, 2, 3, -1).replace('q * 1.0f', 'q * 2.0f'))) as Program;
    expect(kernelTemplate(otherAdd, 'kern')?.key).not.toBe(base?.key);
    const otherNe = await parse(kernelText(0.5, 2, 3, -1).replace('0.5f, ys', '1.5f, ys'));
    expect(kernelTemplate(otherNe, 'kern')?.key).not.toBe(base?.key);
    // kept literals JSON would print alike: 0 and -0 (a neutral element, a kept constant)
    const zero = await parse(kernelText(0.5, 2, 3, -1).replace('0.5f, ys', '0.0f, ys'));
    const minusZero = await parse(kernelText(0.5, 2, 3, -1).replace('0.5f, ys', '-0.0f, ys'));
    expect(kernelTemplate(zero, 'kern')?.key).not.toBe(kernelTemplate(minusZero, 'kern')?.key);
  });

  it('the lifted parameters do not take names the program uses', async () => {
    const text = kernelText(0.5, 2, 3, -1).replace(/\bk\b/g, 'scf_k0');
    const program = await parse(text);
    const t = kernelTemplate(program, 'kern');
    expect(Object.keys(t?.constants ?? {}).every((n) => n.startsWith('scf_k_'))).toBe(true);
    const args = { xs: [1, -2, 3.5], s: 0.25, m: 5 };
    expect(
      same(
        evaluate(t?.lifted() as Program, 'kern', { ...args, ...t?.constants }).result,
        evaluate(program, 'kern', args).result,
      ),
    ).toBe(true);
  });

  it('literal-only subexpressions, recursive functions and their callees keep their literals', async () => {
    // a back end folds 1e-40f * 1e10f exactly; a device computing it from arguments may flush it
    const folded = await parse(
      'float g(float x) { return x * 2.5f + (1e-40f * 1e10f > 0.0f ? 100.0f : 0.0f); }\n' +
        'float *kern(const float xs[]) { float ys[] = map(g, xs); return ys; }',
    );
    const t = kernelTemplate(folded, 'kern');
    expect(Object.values(t?.constants ?? {})).toEqual([2.5]);
    const rec = await parse(
      'float half(float x) { return x * 0.5f; }\n' +
        'float rec(float x, int n) { if (n <= 0) { return x; } return rec(half(x) + 1.5f, n - 1); }\n' +
        'float kern(float x, int n) { return rec(x, n) * 3.0f; }',
    );
    const r = kernelTemplate(rec, 'kern');
    expect(Object.values(r?.constants ?? {})).toEqual([3]);
    const args = { x: 1, n: 30 };
    expect(evaluate(r?.lifted() as Program, 'kern', { ...args, ...r?.constants }).result).toBe(
      evaluate(rec, 'kern', args).result,
    );
  });

  it('no lifted program where a function would take more parameters than WGSL allows, no template for a program too deep to walk', async () => {
    const params = Array.from({ length: 250 }, (_, i) => `float p${i}`).join(', ');
    const terms = Array.from({ length: 6 }, (_, i) => `p${i} * ${lit(i + 0.25)}`).join(' + ');
    const wide = kernelTemplate(await parse(`float f(${params}) { return ${terms}; }`), 'f');
    expect(wide?.lifted()).toBeUndefined();
    // a statement list 100,000 commands long, built directly: past any stack the walks could use
    const small = await parse(
      'float kern(float x) {\n  int i = 0;\n  i = i + 1;\n  return x * 1.5f + (float)i;\n}',
    );
    const f = listToArray(small)[0] as Fun;
    const body = f.body as Seq;
    const step = (body.second as Seq).first;
    let chain: Cmd = body.second;
    for (let k = 0; k < 100_000; k++) chain = { kind: 'seq', first: step, second: chain, lbl: 0 };
    const deep = listFromArray([{ ...f, body: { ...body, second: chain } }]);
    expect(kernelTemplate(deep, 'kern')).toBeUndefined();
  });

  it('no template for a program without float literals, or with more than the bound', async () => {
    expect(kernelTemplate(await parse('int f(int x) { return x + 1; }'), 'f')).toBeUndefined();
    const terms = Array.from({ length: MAX_TEMPLATE_CONSTANTS + 1 }, (_, i) => `x * ${lit(i + 0.5)}`);
    const big = await parse(`float f(float x) { return ${terms.join(' + ')}; }`);
    expect(kernelTemplate(big, 'f')).toBeUndefined();
    expect(kernelTemplate(big, 'nowhere')).toBeUndefined();
  });
});

/** An evaluator run's outcome: its result and outputs, or its error's message. */
function outcome(program: Program, fn: string, args: Readonly<Record<string, ArgValue>>): string {
  try {
    const r = evaluate(program, fn, args);
    return JSON.stringify([r.result, r.outputs], (_, v) =>
      Object.is(v, -0) ? '-0' : Number.isNaN(v) ? 'NaN' : v,
    );
  } catch (e) {
    return `error: ${(e as Error).message}`;
  }
}

/** The same through the JS back end. */
function outcomeJs(program: Program, fn: string, args: Readonly<Record<string, ArgValue>>): string {
  try {
    const r = compileKernelJs(program, fn).run(args);
    const plain = (v: unknown) => (ArrayBuffer.isView(v) ? Array.from(v as unknown as ArrayLike<number>) : v);
    const outputs = Object.fromEntries(Object.entries(r.outputs).map(([k, v]) => [k, plain(v)]));
    return JSON.stringify([plain(r.result), outputs], (_, v) =>
      Object.is(v, -0) ? '-0' : Number.isNaN(v) ? 'NaN' : v,
    );
  } catch (e) {
    return `error: ${(e as Error).message}`;
  }
}

describe('templates of the fusion fixtures after the whole pipeline', () => {
  const DIR = path.join(ROOT, 'tests/fixtures/fusion');
  const files = readdirSync(DIR).filter((f) => f.endsWith('.c'));

  it('every fixture: the template with its constants gives the program’s outcome, evaluator and JS back end', async () => {
    let lifted = 0;
    for (const file of files) {
      const text = readFileSync(path.join(DIR, file), 'utf8');
      const entry = /^\/\/ entry: (\w+)/m.exec(text)?.[1] as string;
      const argLines = [...text.matchAll(/^\/\/ args: (.*)$/gm)].map(
        (m) => JSON.parse(m[1] as string) as ArgValue[],
      );
      const parsed = await parse(text);
      const fun = runPipeline(parsed, entry, allPasses).fun;
      const program = programOf(fun);
      const t = kernelTemplate(program, entry);
      if (t === undefined) continue;
      lifted++;
      expect(validateProgram(t.lifted() as Program, { seqs: 'skip-free' }), file).toEqual([]);
      const formals = listToArray(fun.params).map((p) => p.name);
      for (const line of argLines) {
        const args = Object.fromEntries(formals.map((n, i) => [n, line[i] as ArgValue]));
        const want = outcome(program, entry, args);
        expect(outcome(t.lifted() as Program, entry, { ...args, ...t.constants }), file).toBe(want);
        expect(outcomeJs(t.lifted() as Program, entry, { ...args, ...t.constants }), file).toBe(
          outcomeJs(program, entry, args),
        );
      }
    }
    expect(lifted).toBeGreaterThan(10);
  });

  it.skipIf(gpu.skip)(
    gpu.title('on WebGPU: each template the planner takes gives the evaluator’s outputs within tolerance'),
    async () => {
      let ran = 0;
      for (const file of files) {
        const text = readFileSync(path.join(DIR, file), 'utf8');
        const entry = /^\/\/ entry: (\w+)/m.exec(text)?.[1] as string;
        const line = [...text.matchAll(/^\/\/ args: (.*)$/gm)]
          .map((m) => JSON.parse(m[1] as string) as ArgValue[])
          .find((a) => a.every((x) => !Array.isArray(x) || x.length > 0));
        const fun = runPipeline(await parse(text), entry, allPasses).fun;
        const program = programOf(fun);
        const t = kernelTemplate(program, entry);
        if (t === undefined || line === undefined) continue;
        let plan: ReturnType<typeof planKernelWgsl>;
        try {
          planKernelWgsl(program, entry);
          plan = planKernelWgsl(t.lifted() as Program, entry);
        } catch (e) {
          if (e instanceof GpuUnsupported) continue;
          throw e;
        }
        const formals = listToArray(fun.params).map((p) => p.name);
        const args = Object.fromEntries(formals.map((n, i) => [n, line[i] as ArgValue]));
        let reference: KernelResult;
        try {
          reference = evaluate(program, entry, args);
        } catch {
          continue; // run-time errors on the GPU are the runtime's tests
        }
        const k = await gpu.runtime().prepare(plan);
        const got = await k.run({ ...args, ...t.constants });
        const scale = dataScale(
          ...Object.values(args),
          reference.result,
          ...Object.values(reference.outputs),
        );
        expect(compareResults(got, reference, scale).withinTolerance, file).toBe(true);
        ran++;
      }
      expect(ran).toBeGreaterThan(5);
    },
    120_000,
  );
});

describe('templates through the tiers', () => {
  const TMP = mkdtempSync(path.join(os.tmpdir(), 'scf-template-'));
  afterAll(() => rmSync(TMP, { recursive: true, force: true }));

  async function stubOf(name: string) {
    const config = loadConfig(path.join(ROOT, 'configs/kernel', name));
    const staged = await stageConfig(config);
    const dir = mkdtempSync(path.join(TMP, 'stub-'));
    const written = writeStaged(staged.stages, { outDir: dir, fun: staged.fun, bind: config.bind });
    return importStub(written.stub);
  }

  const XS = Array.from({ length: 300 }, (_, i) => Math.fround(Math.sin(i) * 1.5));

  it('curve: fresh coefficients of one degree share a template; every kernel gives the evaluator’s outputs', async () => {
    const stub = await stubOf('02-curve.json');
    const kernels = await tieredKernels(stub, { backend: 'js' });
    const keep = floatConstants(programOf(stub.unstagedPipeline(stub.formalsOf({}))));
    const keys = new Set<string | undefined>();
    await fc.assert(
      // nonzero: a zero coefficient is another shape (0 stays a literal, -0 folds away)
      fc.asyncProperty(fc.array(nonzeroF32, { minLength: 5, maxLength: 5 }), async (cs) => {
        const values = { cs, deg: 4 };
        const fun = stub.specialize(values).fun;
        keys.add(kernelTemplate(programOf(fun), fun.name, keep)?.key);
        const want = evaluate(programOf(stub.FUN), 'curve', { xs: XS, ...values }).result;
        const k = await kernels.specializedKernel(values);
        expect(same((await k.run({ xs: XS, ...values })).result, want)).toBe(true);
        // an argument named like a lifted constant is refused, as the program refuses it
        const stray = Object.fromEntries(
          Object.keys(kernelTemplate(programOf(fun), fun.name, keep)?.constants ?? {}).map((n) => [n, 1]),
        );
        await expect(k.run({ xs: XS, ...values, ...stray })).rejects.toThrow(
          /'curve' has no parameter 'scf_k/,
        );
        const h = kernels.forValues(values);
        expect(same((await h.run({ xs: XS })).result, want)).toBe(true);
        await h.ready;
        expect(same((await h.run({ xs: XS })).result, want)).toBe(true);
      }),
      { numRuns: 12 },
    );
    expect(keys.size).toBe(1);
    expect(keys.has(undefined)).toBe(false);
  }, 60_000);

  it('templates: false compiles each set of values on its own, with the same outputs', async () => {
    const stub = await stubOf('01-conv.json');
    const generic = stub.unstagedPipeline(stub.formalsOf({}));
    const source = {
      fun: stub.FUN,
      generic,
      specialize: (v: Record<string, ArgValue>) => stub.specialize(v).fun,
    };
    const on = await TieredKernels.create(source, { backend: 'js' });
    const off = await TieredKernels.create(source, { backend: 'js', templates: false });
    const img = Array.from({ length: 64 }, (_, i) => Math.fround(Math.cos(i)));
    const taps = { c0: 0, c1: -1, c2: 0.5, c3: -1, c4: 5, c5: -1, c6: 0, c7: -1.25, c8: 0 };
    const want = evaluate(programOf(stub.FUN), 'conv3x3', { img, w: 8, h: 8, ...taps }).result;
    for (const tiers of [on, off])
      expect(
        same((await (await tiers.specializedKernel(taps)).run({ img, w: 8, h: 8, ...taps })).result, want),
      ).toBe(true);
  }, 60_000);

  describe.skipIf(gpu.skip)(gpu.title('on WebGPU'), () => {
    it('a literal-only subexpression is folded as in the program, not computed on the device', async () => {
      const program = await parse(
        'float g(float x) { return x * 2.5f + (1e-40f * 1e10f > 0.0f ? 100.0f : 0.0f); }\n' +
          'float *kern(const float xs[]) { float ys[] = map(g, xs); return ys; }',
      );
      const t = kernelTemplate(program, 'kern');
      expect(t).toBeDefined();
      const k = await gpu.runtime().prepare(planKernelWgsl(t?.lifted() as Program, 'kern'));
      const got = await k.run({ xs: [0, 1, 2, 3], ...t?.constants });
      expect(Array.from(got.result as number[])).toEqual([100, 102.5, 105, 107.5]);
    });

    it('a known shape runs its template, then the kernel with literals; outputs within tolerance of each other', async () => {
      const stub = await stubOf('02-curve.json');
      const kernels = await tieredKernels(stub, { backend: gpu.runtime() });
      const a = { cs: [0.02, 1.4, -0.9, 0.6, -0.15], deg: 4 };
      const h = kernels.forValues(a);
      await h.run({ xs: XS });
      await h.ready;
      expect(h.tier).toBe('specialized');
      const want = evaluate(programOf(stub.FUN), 'curve', { xs: XS, ...a }).result as number[];
      const got = (await h.run({ xs: XS })).result as number[];
      expect(
        got.every((x, i) => Math.abs(x - (want[i] as number)) <= 1e-5 * (1 + Math.abs(want[i] as number))),
      ).toBe(true);
      // the same degree, other coefficients: the template is there at once, before the literals' kernel
      const b = { cs: [0.5, -1, 0.25, 2, 0.125], deg: 4 };
      const hb = kernels.forValues(b);
      const seen: string[] = [hb.tier];
      await hb.run({ xs: XS });
      const k = await kernels.specializedKernel(b);
      const wantB = evaluate(programOf(stub.FUN), 'curve', { xs: XS, ...b }).result as number[];
      const gotB = (await k.run({ xs: XS, ...b })).result as number[];
      expect(
        gotB.every((x, i) => Math.abs(x - (wantB[i] as number)) <= 1e-5 * (1 + Math.abs(wantB[i] as number))),
      ).toBe(true);
      while (hb.tier !== 'specialized') {
        seen.push(hb.tier);
        await new Promise((r) => setTimeout(r, 1));
      }
      seen.push(hb.tier);
      // tiers only move forward
      const order = ['generic', 'template', 'specialized'];
      expect(seen.map((t) => order.indexOf(t))).toEqual([...seen.map((t) => order.indexOf(t))].sort());
    }, 60_000);
  });
});
