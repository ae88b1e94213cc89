/**
 * Straight-line maps in WebAssembly SIMD (src/target/simd.ts, through the JS back end): random
 * element functions of int, float and bool operands — arithmetic, bitwise operations, shifts by
 * literals, comparisons, `&& || !`, conditionals, conversions, locals — mapped over float and int
 * arrays, an iota and scalars, compared with the reference evaluator element by element
 * (Object.is: -0 and NaN count) on lengths around multiples of four, with NaN, infinities, -0 and
 * extreme ints among the inputs. Some generated functions hold what the SIMD path does not take
 * (integer division, float→int, calls from the called function, `if`): those must run as plain JS
 * loops and agree all the same. Also: the suite's specialized kernels take the SIMD path and their
 * generic versions do not; no WebAssembly, a large module, a growing memory.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { formatDiagnostic } from '../../src/common/index.js';
import {
  type ArgValue,
  evaluate,
  KernelRuntimeError,
  loadKernelParser,
  type Program,
  parseKernel,
} from '../../src/kernel/index.js';
import { allPasses, runPipeline } from '../../src/optimizers/index.js';
import { compileKernelJs, emitKernelJs } from '../../src/target/index.js';

const RUNS = Number(process.env.SCF_JS_RUNS ?? 200);

async function parse(source: string): Promise<Program> {
  const p = await parseKernel(source, 'k.c');
  expect(p.diagnostics.map((d) => formatDiagnostic(d, p.sources, false))).toEqual([]);
  return p.program;
}

/** Where the compiled result differs from the evaluator's (Object.is per element), or undefined; null when the run is UB. */
function compare(program: Program, fn: string, args: readonly ArgValue[]): string | undefined | null {
  let expected: number[];
  try {
    expected = evaluate(program, fn, args).result as number[];
  } catch (e) {
    if (e instanceof KernelRuntimeError) return null;
    throw e;
  }
  const actual = compileKernelJs(program, fn).run(args).result as number[];
  if (actual.length !== expected.length) return `length ${actual.length} ≠ ${expected.length}`;
  for (let i = 0; i < expected.length; i++)
    if (!Object.is(actual[i], expected[i])) return `[${i}]: ${actual[i]} ≠ ${expected[i]}`;
  return undefined;
}

// ---- random element functions --------------------------------------------------------------

/** Reads choices from a tape of random naturals (0 once it is used up, which ends recursion). */
class Tape {
  private at = 0;
  constructor(private readonly xs: readonly number[]) {}
  pick(n: number): number {
    const v = this.xs[this.at++];
    return v === undefined ? 0 : v % n;
  }
}

type Ty = 'int' | 'float' | 'bool';

const FLOAT_LITS = ['0.0f', '-0.0f', '1.5f', '-2.0f', '0.1f', '3.0e38f', '1.0e-40f', '7.0f'];
const INT_LITS = ['0', '1', '-1', '7', '2147483647', '(-2147483647 - 1)', '100'];

/** Generates one element function's body: locals, then a `return`. */
class Gen {
  /** Whether the function holds something the SIMD path leaves to JS. */
  plainJs = false;
  private readonly scope: { name: string; ty: Ty }[] = [
    { name: 'x', ty: 'float' },
    { name: 'k', ty: 'int' },
    { name: 'i', ty: 'int' },
    { name: 'c', ty: 'float' },
    { name: 'j', ty: 'int' },
    { name: 'b', ty: 'bool' },
  ];
  constructor(
    private readonly t: Tape,
    private readonly allowPlain: boolean,
  ) {}

  private leaf(ty: Ty): string {
    const vars = this.scope.filter((v) => v.ty === ty);
    if (ty !== 'bool' && this.t.pick(3) === 0) {
      const lits = ty === 'float' ? FLOAT_LITS : INT_LITS;
      return lits[this.t.pick(lits.length)] as string;
    }
    if (vars.length === 0) return ty === 'bool' ? 'true' : ty === 'float' ? '1.0f' : '1';
    return (vars[this.t.pick(vars.length)] as { name: string }).name;
  }

  expr(ty: Ty, depth: number): string {
    if (depth <= 0 || this.t.pick(4) === 0) return this.leaf(ty);
    const d = depth - 1;
    if (ty === 'bool') return this.cond(d);
    if (ty === 'float') {
      switch (this.t.pick(this.allowPlain ? 10 : 9)) {
        case 0:
          return `(${this.expr('float', d)} + ${this.expr('float', d)})`;
        case 1:
          return `(${this.expr('float', d)} - ${this.expr('float', d)})`;
        case 2:
          return `(${this.expr('float', d)} * ${this.expr('float', d)})`;
        case 3:
          return `(${this.expr('float', d)} / ${this.expr('float', d)})`;
        case 4:
          return `(-(${this.expr('float', d)}))`;
        case 5:
          return `(${this.cond(d)} ? ${this.expr('float', d)} : ${this.expr('float', d)})`;
        case 6:
          return `((float)${this.expr('int', d)})`;
        case 7:
          return `((float)${this.cond(d)})`;
        case 8:
          return `(${this.cond(d)} ? ${this.expr('float', d)} : ${this.expr('float', d)})`;
        default:
          this.plainJs = true;
          return `((float)((int)${this.expr('float', d)}))`;
      }
    }
    switch (this.t.pick(this.allowPlain ? 13 : 12)) {
      case 0:
        return `(${this.expr('int', d)} + ${this.expr('int', d)})`;
      case 1:
        return `(${this.expr('int', d)} - ${this.expr('int', d)})`;
      case 2:
        return `(${this.expr('int', d)} * ${this.expr('int', d)})`;
      case 3:
        return `(${this.expr('int', d)} & ${this.expr('int', d)})`;
      case 4:
        return `(${this.expr('int', d)} | ${this.expr('int', d)})`;
      case 5:
        return `(${this.expr('int', d)} ^ ${this.expr('int', d)})`;
      case 6:
        return `(-(${this.expr('int', d)}))`;
      case 7:
        return `(~(${this.expr('int', d)}))`;
      case 8:
        return `(${this.expr('int', d)} << ${this.t.pick(32)})`;
      case 9:
        return `(${this.expr('int', d)} >> ${this.t.pick(32)})`;
      case 10:
        return `(${this.cond(d)} ? ${this.expr('int', d)} : ${this.expr('int', d)})`;
      case 11:
        return `((int)${this.cond(d)})`;
      default:
        this.plainJs = true;
        return `(${this.expr('int', d)} / 3)`;
    }
  }

  cond(depth: number): string {
    if (depth <= 0) return this.leaf('bool');
    const d = depth - 1;
    const ops = ['<', '<=', '>', '>=', '==', '!='];
    switch (this.t.pick(6)) {
      case 0:
        return `(${this.expr('float', d)} ${ops[this.t.pick(6)]} ${this.expr('float', d)})`;
      case 1:
        return `(${this.expr('int', d)} ${ops[this.t.pick(6)]} ${this.expr('int', d)})`;
      case 2:
        return `(${this.cond(d)} && ${this.cond(d)})`;
      case 3:
        return `(${this.cond(d)} || ${this.cond(d)})`;
      case 4:
        return `(!(${this.cond(d)}))`;
      default:
        return `((bool)${this.expr(this.t.pick(2) === 0 ? 'float' : 'int', d)})`;
    }
  }

  /** A function body: up to three locals assigned in turn (one reassigned), then the result. */
  body(ret: Ty): string {
    const lines: string[] = [];
    const n = this.t.pick(4);
    for (let v = 0; v < n; v++) {
      const ty: Ty = this.t.pick(2) === 0 ? 'float' : 'int';
      lines.push(`  ${ty} t${v} = ${this.expr(ty, 3)};`);
      this.scope.push({ name: `t${v}`, ty });
    }
    if (n > 0 && this.t.pick(2) === 0) {
      const v = this.scope[this.scope.length - 1] as { name: string; ty: Ty };
      lines.push(`  ${v.name} = ${this.expr(v.ty, 2)};`);
    }
    if (this.allowPlain && this.t.pick(8) === 0) {
      this.plainJs = true;
      lines.push(`  if (b) return ${this.expr(ret, 2)};`);
    }
    lines.push(`  return ${this.expr(ret, 4)};`);
    return lines.join('\n');
  }
}

interface Case {
  readonly source: string;
  readonly plainJs: boolean;
}

function generate(tape: readonly number[], allowPlain: boolean): Case {
  const t = new Tape(tape);
  const ret: Ty = t.pick(2) === 0 ? 'float' : 'int';
  const g = new Gen(t, allowPlain);
  const body = g.body(ret);
  const source = `${ret} g(float x, int k, int i, float c, int j, bool b) {
${body}
}

${ret} *f(const float xs[], const int ks[], int n, float c, int j, bool b) {
  ${ret} ys[] = map(g, xs, ks, iota(n), c, j, b);
  return ys;
}
`;
  return { source, plainJs: g.plainJs };
}

const float32 = fc.oneof(
  { weight: 4, arbitrary: fc.float({ min: -8, max: 8, noNaN: true }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(0, -0, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY),
  },
  { weight: 1, arbitrary: fc.float() },
);
const int32 = fc.oneof(
  { weight: 3, arbitrary: fc.integer({ min: -100, max: 100 }) },
  { weight: 1, arbitrary: fc.constantFrom(-2147483648, 2147483647, 0, -1) },
  { weight: 1, arbitrary: fc.integer() },
);
const argsArb = fc
  .oneof(fc.nat({ max: 13 }), fc.constantFrom(37, 64, 101))
  .chain((n) =>
    fc.tuple(
      fc.array(float32, { minLength: n, maxLength: n }),
      fc.array(int32, { minLength: n, maxLength: n }),
      fc.constant(n),
      float32,
      int32,
      fc.boolean(),
    ),
  );
const tapeArb = fc.array(fc.nat({ max: 1_000_000 }), { minLength: 40, maxLength: 120 });

beforeAll(async () => {
  await loadKernelParser();
});

describe('straight-line maps in WebAssembly SIMD', () => {
  it('agree with the evaluator on random element functions, the SIMD path taken whenever it may be', async () => {
    let simd = 0;
    let compared = 0;
    await fc.assert(
      fc.asyncProperty(
        tapeArb,
        fc.boolean(),
        fc.array(argsArb, { minLength: 3, maxLength: 3 }),
        async (tape, plain, runs) => {
          const c = generate(tape, plain);
          const program = await parse(c.source);
          const js = emitKernelJs(program, 'f');
          // Every generated function without a construct left to JS takes the SIMD path.
          if (!c.plainJs) expect(js, c.source).toContain('$simd(0,');
          if (js.includes('$simd(0,')) simd++;
          for (const a of runs) {
            const d = compare(program, 'f', a);
            if (d === null) continue;
            compared++;
            if (d !== undefined) throw new Error(`${d}\n${c.source}\n${JSON.stringify(a)}`);
          }
        },
      ),
      { numRuns: RUNS },
    );
    expect(simd).toBeGreaterThan(RUNS / 3);
    expect(compared).toBeGreaterThan(RUNS);
  });

  it('leaves maps with integer division, float→int, calls from the called function or an if to JS', async () => {
    const src = (body: string) => `float h(float v) { return v + 1.0f; }
float g(float x, int k) { ${body} }
float *f(const float xs[], const int ks[]) { float ys[] = map(g, xs, ks); return ys; }`;
    for (const body of [
      'return (float)(k / 3);',
      'return (float)((int)x);',
      'return h(x);',
      'if (k > 0) return x; return -x;',
    ]) {
      const program = await parse(src(body));
      expect(emitKernelJs(program, 'f'), body).not.toContain('$simd(');
      const xs = [1.5, -2.5, 3, 0, -0, 7, 8, 9, 10];
      const ks = [1, -3, 4, 0, 5, 6, 7, 8, 9];
      expect(compare(program, 'f', [xs, ks])).toBeUndefined();
    }
  });

  it('inlines a function the lambda calls, with fusion putting two maps into one', async () => {
    const program = await parse(`float sq(float v) { float t = v * v; return t - 0.5f; }
float clamp01(float v) { return v < 0.0f ? 0.0f : v > 1.0f ? 1.0f : v; }
float *f(const float xs[]) { float ys[] = map(sq, xs); float zs[] = map(clamp01, ys); return zs; }`);
    const fused = runPipeline(program, 'f', allPasses).program;
    const js = emitKernelJs(fused, 'f');
    expect(js.match(/\$simd\(\d+,/g)).toHaveLength(1);
    const xs = Array.from({ length: 1031 }, (_, i) => (i % 17) / 8 - 1);
    xs[3] = Number.NaN;
    xs[4] = -0;
    expect(compare(fused, 'f', [xs])).toBeUndefined();
  });

  it('runs the suite’s specialized kernels in SIMD but not their generic versions', async () => {
    const cases: { file: string; fn: string; binds: Record<string, number | number[]> }[] = [
      { file: 'curve.c', fn: 'curve', binds: { cs: [0.02, 1.4, -0.9, 0.6, -0.15], deg: 4 } },
      {
        file: 'ops.c',
        fn: 'ops_program',
        binds: { ops: [1, 0, 2, 4, 3], ps: [1.5, -0.25, 0, 0.8, 1], nops: 5 },
      },
    ];
    for (const c of cases) {
      const program = await parse(readFileSync(`benchmarks/inputs/kernel/${c.file}`, 'utf8'));
      expect(emitKernelJs(program, c.fn)).not.toContain('$simd(');
      const specialized = runPipeline(program, c.fn, allPasses, c.binds).program;
      expect(emitKernelJs(specialized, c.fn)).toContain('$simd(0,');
      const xs = Array.from({ length: 4099 }, (_, i) => ((i * 7919) % 1000) / 500 - 0.5);
      xs[1] = Number.NaN;
      xs[2] = Number.POSITIVE_INFINITY;
      const args = Object.values(c.binds) as ArgValue[];
      const expected = evaluate(program, c.fn, [xs, ...args]).result as number[];
      const actual = compileKernelJs(specialized, c.fn).run([xs, ...args]).result as number[];
      expect(actual.every((v, i) => Object.is(v, expected[i]))).toBe(true);
    }
  });

  it('gives the same results without WebAssembly, and with SIMD turned off', async () => {
    const program = await parse(`float g(float x, float c) { return x * c + 1.0f; }
float *f(const float xs[], float c) { float ys[] = map(g, xs, c); return ys; }`);
    const xs = Array.from({ length: 23 }, (_, i) => i / 3 - 2);
    const expected = evaluate(program, 'f', [xs, 0.25]).result;
    expect(emitKernelJs(program, 'f', { simd: false })).not.toContain('$simd(');
    expect(compileKernelJs(program, 'f', { simd: false }).run([xs, 0.25]).result).toEqual(expected);
    const saved = Object.getOwnPropertyDescriptor(globalThis, 'WebAssembly') as PropertyDescriptor;
    const kernel = compileKernelJs(program, 'f');
    // biome-ignore lint/performance/noDelete: the global must be missing, not undefined-valued
    delete (globalThis as { WebAssembly?: unknown }).WebAssembly;
    try {
      expect(kernel.run([xs, 0.25]).result).toEqual(expected);
    } finally {
      Object.defineProperty(globalThis, 'WebAssembly', saved);
    }
  });

  it('grows its memory as the arrays grow, and leaves a function too large for one module to JS', async () => {
    const program = await parse(`int g(int k, int i) { return k * 3 + i; }
int *f(const int ks[], int n) { int ys[] = map(g, ks, iota(n)); return ys; }`);
    const kernel = compileKernelJs(program, 'f');
    for (const n of [4, 100, 70_000, 300_001, 5]) {
      const ks = Array.from({ length: n }, (_, i) => (i * 2654435761) | 0);
      const r = kernel.run([ks, n]).result as number[];
      expect(r.every((v, i) => v === ((Math.imul(ks[i] as number, 3) + i) | 0))).toBe(true);
    }
    const terms = Array.from({ length: 400 }, (_, i) => `x * ${i + 1}.0f`).join(' + ');
    const big = await parse(`float g(float x) { return ${terms}; }
float *f(const float xs[]) { float ys[] = map(g, xs); return ys; }`);
    expect(emitKernelJs(big, 'f')).not.toContain('$simd(');
  });
});
