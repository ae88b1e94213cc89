/**
 * Constant propagation inside the functions combinators apply (const-prop.ts, `specCmd`): a
 * function mapped with known arguments is cloned and optimized for them.
 * - one-line rules: loops over a known count unrolled, branches on known op codes taken, loads of
 *   known arrays folded, the parameters that became known dropped with their operands; one clone
 *   per function and arguments, fresh deterministic names, nothing cloned without known arguments;
 *   calls with known arguments inside a clone call clones in turn, to a bounded depth; staged ≡
 *   unstaged on such a kernel;
 * - differential: on the shipped suite kernels (benchmarks/inputs/kernel) the reference evaluator
 *   gives the same results before and after the whole pipeline, for random bindings and arguments,
 *   and labels stay unique across the function, its callees and the clones;
 * - what is left: for every shipped kernel config (configs/kernel) with its `sample` bound, what
 *   `scf opt` prints — the clones included — has no dead assignment, no self-copy and no int
 *   constant offsets left to gather, and another round of copy propagation and DAE changes nothing;
 *   the clones' structure (loops, loads, calls by callee, assignments) is pinned in
 *   tests/fixtures/kernel-clones, and none keeps a loop.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  type ArgValue,
  type EvalResult,
  type Fun,
  findFun,
  listToArray,
  loadKernelParser,
  type Program,
  printFun,
  printOptimized,
  printProgram,
} from '../../src/kernel/index.js';
import {
  type Bindings,
  runPipeline,
  specializationNotes,
  validateLabels,
  withMath,
} from '../../src/optimizers/index.js';
import { importStub, loadConfig, stageConfig, writeStaged } from '../../src/pipeline/index.js';
import { cli } from '../cli/helpers.js';
import { expectGolden } from '../golden.js';
import { INPUTS, leftovers, optimizeC, parseC, passes, ROOT, tryEval } from './helpers.js';

beforeAll(loadKernelParser);

const PIPELINE = 'const-prop,copy-prop,dae,fusion';

/** The function names of the optimized program, in order. */
const names = (p: Program) => listToArray(p).map((f) => f.name);

describe('clones of mapped functions', () => {
  it('a loop over a known degree is unrolled and the known array loads folded; known parameters go', () => {
    const src = `
      float h(float x, const float cs[], int deg) {
        float acc = 0.0f;
        for (int i = 0; i <= deg; i++) acc = acc * x + cs[deg - i];
        return acc;
      }
      float *f(const float xs[], const float cs[], int deg) { float ys[] = map(h, xs, cs, deg); return ys; }`;
    const out = optimizeC('const-prop', src, { cs: [1, 2, 3], deg: 2 });
    const clone = findFun(out.program, 'h_1') as Fun;
    expect(names(out.program)).toEqual(['h', 'h_1', 'f']);
    expect(listToArray(clone.params).map((p) => p.name)).toEqual(['x']);
    expect(printFun(clone)).not.toContain('for (');
    expect(printFun(clone)).not.toContain('cs[');
    expect(printFun(clone)).toContain('acc * x + 2.0f');
    expect(printOptimized(out.fun, parseC(src))).toContain('map(h_1, xs)');
  });

  it('a branch per op code is taken at each unrolled step', () => {
    const src = `
      float g(float v, const int ops[], int n) {
        float x = v;
        for (int i = 0; i < n; i++) { if (ops[i] == 0) x = x + 1.0f; else x = x * 2.0f; }
        return x;
      }
      float *f(const float xs[], const int ops[], int n) { float ys[] = map(g, xs, ops, n); return ys; }`;
    const out = optimizeC('const-prop,copy-prop,dae', src, { ops: [1, 0, 1], n: 3 });
    const text = printProgram(out.program);
    const clone = text.slice(text.indexOf('float g_1'), text.indexOf('float *f'));
    expect(clone).not.toContain('if (');
    expect(clone).not.toContain('ops');
    // the first step reads the parameter itself (copy propagation inside the clone)
    expect(clone.match(/x \*= 2\.0f|x = [xv] \* 2\.0f/g)?.length).toBe(2);
  });

  it('one clone per function and known arguments; names avoid the program’s functions', () => {
    const src = `
      float s(float x, float c) { return x * c; }
      float s_1(float x) { return x; }
      float *f(const float xs[], float a, float b) {
        float ys[] = map(s, xs, a);
        float zs[] = map(s, ys, b);
        float ws[] = map(s, zs, a);
        return ws;
      }`;
    const same = optimizeC('const-prop', src, { a: 2, b: 2 });
    expect(names(same.program)).toEqual(['s', 's_1', 's_2', 'f']);
    const two = optimizeC('const-prop', src, { a: 2, b: 3 });
    expect(names(two.program)).toEqual(['s', 's_1', 's_2', 's_3', 'f']);
    expect(printOptimized(two.fun, parseC(src))).toContain('map(s_2, zs)');
  });

  it('a function without known arguments is not cloned, nor one whose lambda fusion composed', () => {
    const src = `
      float s(float x, float c) { return x * c; }
      float *f(const float xs[], float c) { float ys[] = map(s, xs, c); float zs[] = map(s, ys, c); return zs; }`;
    expect(names(optimizeC('const-prop', src).program)).toEqual(['s', 'f']);
    const fusedFirst = runPipeline(parseC(src), 'f', passes('fusion,const-prop'), { c: 2 });
    expect(names(fusedFirst.program)).toEqual(['s', 'f']);
  });

  it('a known parameter the clone still assigns is kept and still passed', () => {
    const src = `
      float g(float x, int n) { n = n + 1; return x * (float)n; }
      float *f(const float xs[], int n) { float ys[] = map(g, xs, n); return ys; }`;
    const out = optimizeC('const-prop', src, { n: 3 });
    expect(listToArray((findFun(out.program, 'g_1') as Fun).params).map((p) => p.name)).toEqual(['x', 'n']);
    expect(printOptimized(out.fun, parseC(src))).toContain('map(g_1, xs, 3)');
  });
});

describe('clones of the functions clones call', () => {
  const NESTED = `
    float horner(float x, const float cs[], int deg) {
      float acc = 0.0f;
      for (int i = 0; i <= deg; i++) acc = acc * x + cs[deg - i];
      return acc;
    }
    float clampf(float v, float lo, float hi) { return v < lo ? lo : v > hi ? hi : v; }
    float tone(float v, const float cs[], int deg, float hi) { return clampf(horner(v, cs, deg), 0.0f, hi); }
    float *toned(const float xs[], const float cs[], int deg, float hi) { float ys[] = map(tone, xs, cs, deg, hi); return ys; }`;

  it('a call with known arguments inside a clone calls a clone too, callees first', () => {
    const out = optimizeC(PIPELINE, NESTED, { cs: [1, 2, 3], deg: 2, hi: 4 });
    expect(names(out.program)).toEqual([
      'horner',
      'clampf',
      'tone',
      'horner_1',
      'clampf_1',
      'tone_1',
      'toned',
    ]);
    expect(printFun(findFun(out.program, 'tone_1') as Fun)).toContain('return clampf_1(horner_1(v));');
    expect(printFun(findFun(out.program, 'horner_1') as Fun)).not.toContain('for (');
    expect(validateLabels(out.fun)).toBeUndefined();
  });

  it('a recursive function is cloned CLONE_DEPTH levels deep, then called as it is', () => {
    const src = `
      int down(int x, int n) { return n <= 0 ? x : down(x + 1, n - 1); }
      int *f(const int xs[], int n) { int ys[] = map(down, xs, n); return ys; }`;
    const program = parseC(src);
    const out = runPipeline(program, 'f', passes('const-prop'), { n: 9 });
    // the lambda's clone and CLONE_DEPTH (4) levels below it, the deepest made (and named) first
    expect(names(out.program)).toEqual(['down', 'down_1', 'down_2', 'down_3', 'down_4', 'down_5', 'f']);
    expect(printFun(findFun(out.program, 'down_1') as Fun)).toContain('return down(x + 1, 4);');
    for (const xs of [[0, 5, -3]]) {
      expect(tryEval(out.program, 'f', { xs, n: 9 })?.result).toEqual(
        tryEval(program, 'f', { xs, n: 9 })?.result,
      );
    }
  });

  it('staged ≡ unstaged on random late values (a stub staged from the kernel)', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'scf-clones-'));
    try {
      const input = path.join(dir, 'nested.c');
      writeFileSync(input, NESTED);
      const file = path.join(dir, 'nested.json');
      const bind = { cs: "'Array", deg: '0|1|2|3|4', hi: "'Float" };
      writeFileSync(
        file,
        JSON.stringify({ input: 'nested.c', function: 'toned', pipeline: PIPELINE.split(','), bind }),
      );
      const config = loadConfig(file);
      const staged = await stageConfig(config);
      const written = writeStaged(staged.stages, {
        outDir: path.join(dir, 'out'),
        fun: staged.fun,
        bind: config.bind,
      });
      const stub = await importStub(written.stub);
      const float = fc.float({ noNaN: true, noDefaultInfinity: true, min: -4, max: 4 });
      fc.assert(
        fc.property(
          fc.record({
            cs: fc.array(float, { maxLength: 6 }),
            deg: fc.integer({ min: 0, max: 4 }),
            hi: float,
          }),
          (values) => {
            const formals = stub.formalsOf(values);
            expect(isDeepStrictEqual(stub.stagedPipeline(formals), stub.unstagedPipeline(formals))).toBe(
              true,
            );
          },
        ),
        { numRuns: 200 },
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('what a specialization leaves generic', () => {
  const curve = () => parseC(readFileSync(path.join(INPUTS, 'kernel/curve.c'), 'utf8'), 'curve.c');
  const coefs = (n: number) => Array.from({ length: n }, (_, i) => i / 100);

  it('a clone that keeps a loop is named in a note: past UNROLL_LIMIT iterations here', () => {
    const program = curve();
    const long = runPipeline(program, 'curve', passes(PIPELINE), { cs: coefs(101), deg: 100 });
    const notes = specializationNotes(long.fun, program);
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatch(
      /^curve_at_1, the clone of curve_at for the known values, keeps 1 loop: .* 64 iterations/,
    );
    const short = runPipeline(program, 'curve', passes(PIPELINE), { cs: coefs(5), deg: 4 });
    expect(specializationNotes(short.fun, program)).toEqual([]);
  });

  it('scf opt prints the note on stderr and the kernel on stdout, exit 0', async () => {
    const file = path.join(INPUTS, 'kernel/curve.c');
    const r = await cli(
      'opt',
      file,
      '--function',
      'curve',
      '--bind',
      `cs=[${coefs(101).join(',')}]`,
      '--bind',
      'deg=100',
    );
    expect(r.code).toBe(0);
    expect(r.out).toContain('float curve_at_1(');
    expect(r.err).toMatch(/^scf opt: note: curve_at_1, the clone of curve_at .* keeps 1 loop/);
  });
});

describe('what the shipped kernel configs print with their samples bound', () => {
  const dir = path.join(ROOT, 'configs/kernel');
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()) {
    it(`${file}: no dead assignment, self-copy or int offset left in any function, clones included`, async () => {
      const c = JSON.parse(readFileSync(path.join(dir, file), 'utf8'));
      const bind = Object.entries(c.sample as Record<string, number | number[]>).flatMap(([k, v]) => [
        '--bind',
        `${k}=${Array.isArray(v) ? `[${v.join(',')}]` : v}`,
      ]);
      const pipeline = (c.pipeline as string[]).join(',');
      const input = path.resolve(dir, c.input);
      const math = c.math ?? 'exact';
      const r = await cli(
        'opt',
        input,
        '--function',
        c.function,
        '--passes',
        pipeline,
        '--math',
        math,
        ...bind,
      );
      expect(r.code, r.err).toBe(0);
      // what it printed is the pipeline's function and clones (the program's other functions,
      // rewritten in `fns` too, it leaves out): the same pipeline here gives their trees
      const program = parseC(readFileSync(input, 'utf8'), input);
      const out = runPipeline(program, c.function, withMath(passes(pipeline), math), c.sample);
      expect(r.out).toBe(printOptimized(out.fun, program));
      const all = [out.fun, ...listToArray(out.fun.fns)];
      expect(all.filter((g) => /_\d+$/.test(g.name)).length).toBeGreaterThan(0);
      for (const g of all)
        expect(leftovers(g), `${g.name} in\n${printProgram(out.program)}`).toEqual({
          dead: [],
          selfCopies: [],
        });
      // x + 1 - 1, (k + 2) - 1: gathered into one offset
      expect(r.out).not.toMatch(/[+-] \d+ [+-] \d+(?![\d.f])/);
      // no copy chain left either: copy propagation and DAE, run again, find nothing to do
      const again = runPipeline(out.program, c.function, passes('copy-prop,dae'));
      expect(printProgram(again.program)).toBe(printProgram(out.program));
      // the structure of the clones (Futhark-style): loops, loads, calls, assignments
      const clones = all.filter((g) => /_\d+$/.test(g.name)).map(structureOf);
      expectGolden(
        path.join(ROOT, 'tests/fixtures/kernel-clones'),
        `expected.${file}`,
        `${JSON.stringify(clones, null, 2)}\n`,
      );
      for (const k of clones) expect(k.loops, k.name).toBe(0);
    });
  }
});

/** What a clone does, counted: its loops, loads, calls by callee and assignments. */
function structureOf(g: Fun): {
  name: string;
  loops: number;
  loads: number;
  calls: Record<string, number>;
  assignments: number;
} {
  let loops = 0;
  let loads = 0;
  let assignments = 0;
  const calls: Record<string, number> = {};
  const stack: unknown[] = [g.body];
  for (let x = stack.pop(); x !== undefined; x = stack.pop()) {
    if (typeof x !== 'object' || x === null) continue;
    const n = x as { kind?: string; name?: string };
    if (n.kind === 'while') loops++;
    if (n.kind === 'load') loads++;
    if (n.kind === 'assign' || n.kind === 'store') assignments++;
    if ((n.kind === 'call' || n.kind === 'callCmd') && n.name !== undefined)
      calls[n.name] = (calls[n.name] ?? 0) + 1;
    for (const v of Object.values(x)) if (typeof v === 'object' && v !== null) stack.push(v);
  }
  return { name: g.name, loops, loads, calls, assignments };
}

// ---- differential -------------------------------------------------------------------------------

const float = fc.float({ noNaN: true, noDefaultInfinity: true, min: -4, max: 4 });
const floats = (n: number) => fc.array(float, { minLength: n, maxLength: n });

function sameEval(a: EvalResult, b: EvalResult): boolean {
  const same = (x: unknown, y: unknown): boolean =>
    Array.isArray(x) && Array.isArray(y)
      ? x.length === y.length && x.every((v, i) => Object.is(v, y[i]))
      : Object.is(x, y);
  return same(a.result, b.result);
}

interface SuiteCase {
  readonly file: string;
  readonly fn: string;
  /** Random bindings of the late formals, and arguments for every formal consistent with them. */
  readonly draw: fc.Arbitrary<{ binds: Bindings; args: Record<string, ArgValue> }>;
}

const SUITE: readonly SuiteCase[] = [
  {
    file: 'curve.c',
    fn: 'curve',
    draw: fc
      .record({ deg: fc.integer({ min: 0, max: 7 }), xs: floats(5) })
      .chain(({ deg, xs }) => floats(deg + 1).map((cs) => ({ binds: { cs, deg }, args: { xs, cs, deg } }))),
  },
  {
    file: 'ops.c',
    fn: 'ops_program',
    draw: fc.record({ nops: fc.integer({ min: 0, max: 8 }), img: floats(6) }).chain(({ nops, img }) =>
      fc
        .record({
          ops: fc.array(fc.integer({ min: 0, max: 5 }), { minLength: nops, maxLength: nops }),
          ps: floats(nops),
        })
        .map(({ ops, ps }) => ({ binds: { ops, ps, nops }, args: { img, ops, ps, nops } })),
    ),
  },
  {
    file: 'conv-r.c',
    fn: 'conv_r',
    draw: fc
      .record({
        r: fc.integer({ min: 0, max: 2 }),
        w: fc.integer({ min: 1, max: 4 }),
        h: fc.integer({ min: 1, max: 3 }),
      })
      .chain(({ r, w, h }) =>
        fc.record({ taps: floats((2 * r + 1) ** 2), img: floats(w * h) }).map(({ taps, img }) => ({
          binds: { taps, r },
          args: { img, w, h, taps, r },
        })),
      ),
  },
];

describe('the suite kernels keep their results when specialized', () => {
  for (const c of SUITE) {
    it(`${c.file}: the pipeline with the late formals bound gives the evaluator’s results`, () => {
      const program = parseC(readFileSync(path.join(INPUTS, 'kernel', c.file), 'utf8'), c.file);
      fc.assert(
        fc.property(c.draw, ({ binds, args }) => {
          const before = tryEval(program, c.fn, args);
          if (before === undefined) return;
          const out = runPipeline(program, c.fn, passes(PIPELINE), binds);
          expect(validateLabels(out.fun)).toBeUndefined();
          const after = tryEval(out.program, c.fn, args);
          expect(after).toBeDefined();
          expect(sameEval(before, after as EvalResult)).toBe(true);
          // the clone has no loop left
          const clones = listToArray(out.program).filter((g) => /_\d+$/.test(g.name));
          expect(clones.length).toBe(1);
          for (const g of clones) expect(printFun(g)).not.toMatch(/\bfor \(|\bwhile \(/);
        }),
        { numRuns: 60 },
      );
    });
  }
});
