/**
 * Straight-line maps in WebAssembly SIMD (src/target/simd.ts, through the JS back end): random
 * element functions of int, float and bool operands — arithmetic, bitwise operations, shifts by
 * literals, integer division and remainder, comparisons, `&& || !`, conditionals, conversions
 * both ways, loads from a broadcast array, locals, `if`s (nested, with and without an else) —
 * mapped over float and int arrays, an iota and
 * scalars, compared with the reference evaluator element by element (Object.is: -0 and NaN count)
 * on lengths around multiples of four (from `SIMD_MIN_LENGTH`, and short ones the JS loop takes), with NaN, infinities, -0 and extreme ints among the inputs;
 * where the evaluator raises a run-time error (division by zero, a load out of bounds, a float→int
 * conversion out of range), the compiled code must raise the same. Some generated functions hold
 * what the SIMD path does not take (a `return` inside an `if`, an operation that may fail where
 * C may not evaluate it): those run as plain JS loops and agree all the same. Also: the suite's specialized kernels
 * take the SIMD path and their generic versions do not; no WebAssembly, a growing memory.
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
import { SIMD_MAX_COPY_RATIO, SIMD_MIN_LENGTH } from '../../src/target/simd.js';

const RUNS = Number(process.env.SCF_JS_RUNS ?? 200);

async function parse(source: string): Promise<Program> {
  const p = await parseKernel(source, 'k.c');
  expect(p.diagnostics.map((d) => formatDiagnostic(d, p.sources, false))).toEqual([]);
  return p.program;
}

/**
 * Where the compiled run differs from the evaluator's (Object.is per element), or undefined. When
 * the evaluator raises a run-time error (a load out of bounds, a division by zero, a float→int
 * conversion out of range), the compiled code must raise the same message.
 */
function compare(program: Program, fn: string, args: readonly ArgValue[]): string | undefined {
  let expected: number[];
  try {
    expected = evaluate(program, fn, args).result as number[];
  } catch (e) {
    if (!(e instanceof KernelRuntimeError)) throw e;
    try {
      compileKernelJs(program, fn).run(args);
    } catch (f) {
      return f instanceof KernelRuntimeError && f.message === e.message
        ? undefined
        : `error ${f} ≠ ${e.message}`;
    }
    return `no error, the evaluator raises ${e.message}`;
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
  /** Inside an arm of `?:` or the right operand of `&&`/`||` (C may not evaluate it). */
  private guarded = 0;
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

  /** Something that may fail at run time: in a guarded place the SIMD path leaves the map to JS. */
  private mayFail(text: string): string {
    if (this.guarded > 0) this.plainJs = true;
    return text;
  }

  private guard(f: () => string): string {
    this.guarded++;
    try {
      return f();
    } finally {
      this.guarded--;
    }
  }

  /** `c ? a : b` of type `ty`, the arms guarded. */
  private select(ty: Ty, d: number): string {
    const c = this.cond(d);
    return this.guard(() => `(${c} ? ${this.expr(ty, d)} : ${this.expr(ty, d)})`);
  }

  /** A load of ws (length 4..6): mostly at an index masked into 0..3, sometimes anywhere. */
  private load(d: number): string {
    const index = this.expr('int', d);
    return this.mayFail(this.t.pick(3) === 0 ? `ws[${index}]` : `ws[(${index}) & 3]`);
  }

  expr(ty: Ty, depth: number): string {
    if (depth <= 0 || this.t.pick(4) === 0) return this.leaf(ty);
    const d = depth - 1;
    if (ty === 'bool') return this.cond(d);
    if (ty === 'float') {
      switch (this.t.pick(10)) {
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
          return this.select('float', d);
        case 6:
          return `((float)${this.expr('int', d)})`;
        case 7:
          return `((float)${this.cond(d)})`;
        case 8:
          return this.load(d);
        default:
          return this.mayFail(`((float)((int)${this.expr('float', d)}))`);
      }
    }
    switch (this.t.pick(14)) {
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
        return this.select('int', d);
      case 11:
        return `((int)${this.cond(d)})`;
      case 12:
        return this.mayFail(
          `(${this.expr('int', d)} ${this.t.pick(2) === 0 ? '/' : '%'} ${this.expr('int', d)})`,
        );
      default:
        return this.mayFail(`((int)${this.expr('float', d)})`);
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
      case 3: {
        const left = this.cond(d);
        return this.guard(() => `(${left} ${this.t.pick(2) === 0 ? '&&' : '||'} ${this.cond(d)})`);
      }
      case 4:
        return `(!(${this.cond(d)}))`;
      default:
        return `((bool)${this.expr(this.t.pick(2) === 0 ? 'float' : 'int', d)})`;
    }
  }

  /** `if (c) { … } else { … }` assigning variables in scope; its branches are guarded. */
  private ifStatement(depth: number, indent: string): string {
    const c = this.cond(2);
    return this.guard(() => {
      const branch = (): string => {
        const out: string[] = [];
        for (let k = this.t.pick(3); k >= 0; k--) {
          if (depth > 0 && this.t.pick(4) === 0) {
            out.push(this.ifStatement(depth - 1, `${indent}  `));
            continue;
          }
          const targets = this.scope.filter((v) => v.ty !== 'bool');
          const v = targets[this.t.pick(targets.length)] as { name: string; ty: Ty };
          out.push(`${indent}  ${v.name} = ${this.expr(v.ty, 2)};`);
        }
        return out.join('\n');
      };
      const then = branch();
      const otherwise = this.t.pick(2) === 0 ? `\n${indent}} else {\n${branch()}` : '';
      return `${indent}if (${c}) {\n${then}${otherwise}\n${indent}}`;
    });
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
    // an if (maybe with an else, maybe nested) assigning locals and parameters: if-converted
    if (this.t.pick(2) === 0) lines.push(this.ifStatement(2, '  '));
    if (this.allowPlain && this.t.pick(6) === 0) {
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
  const source = `${ret} g(float x, int k, int i, float c, int j, bool b, const float ws[]) {
${body}
}

${ret} *f(const float xs[], const int ks[], int n, float c, int j, bool b, const float ws[]) {
  ${ret} ys[] = map(g, xs, ks, iota(n), c, j, b, ws);
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
  .oneof(
    { weight: 1, arbitrary: fc.nat({ max: 13 }) },
    { weight: 3, arbitrary: fc.integer({ min: SIMD_MIN_LENGTH, max: SIMD_MIN_LENGTH + 13 }) },
  )
  .chain((n) =>
    fc.tuple(
      fc.array(float32, { minLength: n, maxLength: n }),
      fc.array(int32, { minLength: n, maxLength: n }),
      fc.constant(n),
      float32,
      int32,
      fc.boolean(),
      fc.array(float32, { minLength: 4, maxLength: 6 }),
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

  it('leaves maps with a failing operation C may skip, calls from the called function or an if to JS', async () => {
    const src = (body: string) => `float h(float v) { return v + 1.0f; }
float g(float x, int k, const float ws[]) { ${body} }
float *f(const float xs[], const int ks[], const float ws[]) { float ys[] = map(g, xs, ks, ws); return ys; }`;
    for (const body of [
      'return k != 0 ? (float)(100 / k) : x;',
      'return k >= 0 && k < 3 && ws[k] > 0.0f ? x : -x;',
      'return x < 1000.0f ? (float)((int)x) : x;',
      'return h(x);',
      'if (k > 0) return x; return -x;',
      'if (k != 0) x = x / (float)(100 / k); return x;',
    ]) {
      const program = await parse(src(body));
      expect(emitKernelJs(program, 'f'), body).not.toContain('$simd(');
      const xs = [1.5, -2.5, 3, 0, -0, 7, 8, 9, 1e30];
      const ks = [1, -3, 4, 0, 5, 6, 7, 8, 9];
      expect(compare(program, 'f', [xs, ks, [1, 2, 3]])).toBeUndefined();
    }
  });

  it('gives up on what would be a run-time error, which the JS loop then raises as always', async () => {
    const program =
      await parse(`float g(float x, int k, const float ws[]) { int q = 100 / k; return ws[k] + (float)q + (float)((int)x); }
float *f(const float xs[], const int ks[], const float ws[]) { float ys[] = map(g, xs, ks, ws); return ys; }`);
    expect(emitKernelJs(program, 'f')).toContain('$simd(0,');
    const ws = [0.5, 1.5, 2.5, 3.5];
    const n = SIMD_MIN_LENGTH + 3;
    const ks = Array.from({ length: n }, (_, i) => (i % 3) + 1);
    const xs = Array.from({ length: n }, (_, i) => i / 7);
    expect(compare(program, 'f', [xs, ks, ws])).toBeUndefined();
    // in the part the module computes, and in the rest the JS loop computes
    for (const [at, k] of [
      [2, 0],
      [5, 4],
      [1, -1],
      [n - 1, 0],
    ] as const) {
      const bad = ks.map((v, i) => (i === at ? k : v));
      expect(compare(program, 'f', [xs, bad, ws]), `k = ${k} at ${at}`).toBeUndefined();
    }
    for (const x of [Number.NaN, 3e9, -3e9]) {
      const bad = xs.map((v, i) => (i === 70 ? x : v));
      expect(compare(program, 'f', [bad, ks, ws]), `x = ${x}`).toBeUndefined();
    }
  });

  it('if-converts an if without a return inside', async () => {
    const program = await parse(`float g(float x, int k) {
  float y = x;
  if (x < 0.0f) { y = -x; k = k + 1; } else if (k > 2) y = y * 2.0f;
  if (k == 3) y = 0.0f;
  return y + (float)k;
}
float *f(const float xs[], const int ks[]) { float ys[] = map(g, xs, ks); return ys; }`);
    expect(emitKernelJs(program, 'f')).toContain('$simd(0,');
    const n = SIMD_MIN_LENGTH + 9;
    const xs = Array.from({ length: n }, (_, i) => (i % 7) - 3 + (i % 2 ? -0 : 0.5));
    xs[9] = Number.NaN;
    const ks = Array.from({ length: n }, (_, i) => i % 5);
    expect(compare(program, 'f', [xs, ks])).toBeUndefined();
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
    const xs = Array.from({ length: SIMD_MIN_LENGTH + 23 }, (_, i) => i / 3 - 2);
    const expected = evaluate(program, 'f', [xs, 0.25]).result;
    expect(emitKernelJs(program, 'f', { simd: false })).not.toContain('$simd(');
    expect(compileKernelJs(program, 'f', { simd: false }).run([xs, 0.25]).result).toEqual(expected);
    const saved = Object.getOwnPropertyDescriptor(globalThis, 'WebAssembly') as PropertyDescriptor;
    const kernel = compileKernelJs(program, 'f');
    // deleted: the global must be missing, not undefined-valued
    delete (globalThis as { WebAssembly?: unknown }).WebAssembly;
    try {
      expect(kernel.run([xs, 0.25]).result).toEqual(expected);
    } finally {
      Object.defineProperty(globalThis, 'WebAssembly', saved);
    }
  });

  it('reads a table larger than SIMD_MAX_COPY_RATIO times the map as the JS loop does', async () => {
    const program = await parse(`float g(int k, const float t[]) { return t[k * 17] + 1.0f; }
float *f(const float t[], int n) { float ys[] = map(g, iota(n), t); return ys; }`);
    expect(emitKernelJs(program, 'f')).toContain('$simd(0,');
    const n = SIMD_MIN_LENGTH;
    for (const len of [17 * n, SIMD_MAX_COPY_RATIO * n + 1, 17 * n - 16]) {
      const t = Array.from({ length: len }, (_, i) => i / 8);
      expect(compare(program, 'f', [t, n]), `table of ${len}`).toBeUndefined();
    }
  });

  it('grows its memory as the arrays grow', async () => {
    const program = await parse(`int g(int k, int i) { return k * 3 + i; }
int *f(const int ks[], int n) { int ys[] = map(g, ks, iota(n)); return ys; }`);
    const kernel = compileKernelJs(program, 'f');
    for (const n of [4, SIMD_MIN_LENGTH, 70_000, 300_001, SIMD_MIN_LENGTH + 5]) {
      const ks = Array.from({ length: n }, (_, i) => (i * 2654435761) | 0);
      const r = kernel.run([ks, n]).result as number[];
      expect(r.every((v, i) => v === ((Math.imul(ks[i] as number, 3) + i) | 0))).toBe(true);
    }
  });
});
