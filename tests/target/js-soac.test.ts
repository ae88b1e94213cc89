/**
 * The JavaScript back end (src/target/js.ts) on data-parallel combinators, against the reference
 * evaluator: map (with mapped, broadcast-array and scalar arguments), reduce, scan, filter (over an
 * array and over iota), redomap, scanomap, iota, combinators nested in helpers that map calls, in
 * loops and ifs, functions returning arrays, a lambda with bindings (as fusion builds them), and
 * horizontally fused loops (`hfused`, built by hand from parsed soacs). Inputs are random arrays of
 * random lengths (0 included), floats and ints; results and outputs are compared with Object.is per
 * element, so -0 and NaN count. Runs the evaluator rejects (undefined behaviour) are skipped. Lengths
 * that differ, and iotas of a negative length, raise in both.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  type ArgValue,
  type Cmd,
  type Expr,
  evaluate,
  type Fun,
  KernelArgumentError,
  KernelRuntimeError,
  type Lam,
  listFromArray,
  listToArray,
  maxLabel,
  type Program,
  parseKernel,
  type Soac,
} from '../../src/kernel/index.js';
import { formatDiagnostic } from '../../src/common/index.js';
import { compileKernelJs, emitKernelJs } from '../../src/target/index.js';
import { replaceFun } from '../optimizers/helpers.js';

type Args = readonly ArgValue[];
type Outcome = { result: number | number[] | undefined; outputs: Record<string, number[]> };

const RUNS = Number(process.env.SCF_JS_RUNS ?? 200);

async function parse(source: string): Promise<Program> {
  const p = await parseKernel(source, 'k.c');
  expect(p.diagnostics.map((d) => formatDiagnostic(d, p.sources, false))).toEqual([]);
  return p.program;
}

/** The evaluator's outcome, or undefined when the run has undefined behaviour. */
function reference(program: Program, fn: string, args: Args): Outcome | undefined {
  try {
    const { result, outputs } = evaluate(program, fn, args);
    return { result, outputs };
  } catch (e) {
    if (e instanceof KernelRuntimeError) return undefined;
    throw e;
  }
}

function sameNumbers(what: string, a: readonly number[], e: readonly number[]): string | undefined {
  if (a.length !== e.length) return `${what}: length ${a.length} ≠ ${e.length}`;
  for (let i = 0; i < e.length; i++) if (!Object.is(a[i], e[i])) return `${what}[${i}]: ${a[i]} ≠ ${e[i]}`;
  return undefined;
}

/** Where two outcomes differ (Object.is on every number), or undefined when they are the same. */
function difference(actual: Outcome, expected: Outcome): string | undefined {
  const ra = actual.result;
  const re = expected.result;
  if (Array.isArray(re) || Array.isArray(ra)) {
    if (!Array.isArray(re) || !Array.isArray(ra)) return `result ${ra} ≠ ${re}`;
    const d = sameNumbers('result', ra, re);
    if (d !== undefined) return d;
  } else if (!Object.is(ra, re)) {
    return `result ${ra} ≠ ${re}`;
  }
  const ka = Object.keys(actual.outputs);
  const ke = Object.keys(expected.outputs);
  if (ka.join() !== ke.join()) return `outputs ${ka.join()} ≠ ${ke.join()}`;
  for (const k of ke) {
    const d = sameNumbers(k, actual.outputs[k] as number[], expected.outputs[k] as number[]);
    if (d !== undefined) return d;
  }
  return undefined;
}

/** Compiled ≡ evaluator on `RUNS` argument sets; at least `minCompared` of them free of UB. */
function differential(program: Program, fn: string, args: fc.Arbitrary<Args>, minCompared = RUNS): void {
  const kernel = compileKernelJs(program, fn);
  let compared = 0;
  fc.assert(
    fc.property(args, (a) => {
      const expected = reference(program, fn, a);
      if (!expected) return;
      compared++;
      const diff = difference(kernel.run(a), expected);
      if (diff !== undefined) throw new Error(`${diff}\n${kernel.source}`);
    }),
    { numRuns: RUNS },
  );
  expect(compared).toBeGreaterThanOrEqual(minCompared);
}

/** Runs both on one argument set and expects the same, UB-free outcome; returns it. */
function same(program: Program, fn: string, args: Args): Outcome {
  const expected = reference(program, fn, args);
  if (!expected) throw new Error(`the evaluator rejects ${fn}(${JSON.stringify(args)})`);
  const actual = compileKernelJs(program, fn).run(args);
  expect(difference(actual, expected), emitKernelJs(program, fn)).toBeUndefined();
  return actual;
}

/** binary32 values: mostly moderate, sometimes anything (NaN, infinities, -0, huge, tiny). */
const float32 = fc.oneof(
  { weight: 4, arbitrary: fc.float({ min: -8, max: 8, noNaN: true }) },
  { weight: 1, arbitrary: fc.constantFrom(0, -0, Number.NaN, Number.POSITIVE_INFINITY, -1e-45) },
  { weight: 1, arbitrary: fc.float() },
);
const int32 = fc.oneof(
  { weight: 3, arbitrary: fc.integer({ min: -100, max: 100 }) },
  { weight: 1, arbitrary: fc.integer() },
);
const floats = fc.array(float32, { maxLength: 12 });
const ints = fc.array(int32, { maxLength: 12 });
/** Two float arrays of one random length (0 included). */
const floatPair = fc
  .nat({ max: 12 })
  .chain((n) =>
    fc.tuple(
      fc.array(float32, { minLength: n, maxLength: n }),
      fc.array(float32, { minLength: n, maxLength: n }),
    ),
  );

const HELPERS = `
float sq(float x) { return x * x; }
float neg(float x) { return -x; }
float add(float a, float b) { return a + b; }
float mul(float a, float b) { return a * b; }
float fmax2(float a, float b) { return a > b ? a : b; }
float fold(float acc, float x, float w) { return acc + x * w; }
int pos(float x) { return x > 0.0f; }
int iadd(int a, int b) { return a + b; }
int imul(int a, int b) { return a * b; }
int odd(int x) { return x & 1; }
int twice(int x) { return x * 2 + 1; }
bool isneg(float x) { return x < 0.0f; }
`;

// ---- fixed programs, random inputs -----------------------------------------------------------

describe('compiled combinators agree with the evaluator', () => {
  let program: Program;
  beforeAll(async () => {
    program = await parse(`${HELPERS}
float* squares(const float xs[]) { float ys[] = map(sq, xs); return ys; }
float total(const float xs[]) { float s = reduce(add, 0.0f, xs); return s; }
float total0(const float xs[]) { return reduce(add, -0.0f, xs); }
float* negated(const float xs[]) { return map(neg, xs); }
float* prefix(const float xs[]) { return scan(add, 0.0f, xs); }
float* positives(const float xs[]) { float ks[] = filter(pos, xs); return ks; }
float weighted(const float xs[], const float w[]) { float t = redomap(add, fold, 0.0f, xs, w); return t; }
float* running(const float xs[], const float w[]) { return scanomap(add, fold, 0.0f, xs, w); }
float biggest(const float xs[]) { return reduce(fmax2, -1e30f, map(sq, xs)); }
float* sums(const float xs[], const float ys[]) { return map(add, xs, ys); }
bool* negatives(const float xs[]) { return map(isneg, xs); }
int* ints(const int xs[]) { int ys[] = map(twice, xs); return scan(imul, 1, ys); }
int odd_sum(const int xs[]) { return reduce(iadd, 0, filter(odd, xs)); }
int* odd_indices(int n) { return filter(odd, iota(n)); }
int* range(int n) { int ix[] = iota(n); return ix; }
int* five() { return iota(5); }
void write_out(const float xs[], float out[], int n) {
  float ys[] = map(sq, xs);
  for (int i = 0; i < n; i++) out[i] = ys[i];
}
`);
  });

  it('map', () =>
    differential(
      program,
      'squares',
      floats.map((xs) => [xs]),
    ));
  it('map keeping signed zeros', () =>
    differential(
      program,
      'negated',
      floats.map((xs) => [xs]),
    ));
  it('map of two mapped arrays', () => differential(program, 'sums', floatPair));
  it('map to bool', () =>
    differential(
      program,
      'negatives',
      floats.map((xs) => [xs]),
    ));
  it('reduce', () =>
    differential(
      program,
      'total',
      floats.map((xs) => [xs]),
    ));
  it('reduce of a nested map', () =>
    differential(
      program,
      'biggest',
      floats.map((xs) => [xs]),
    ));
  it('scan (inclusive)', () =>
    differential(
      program,
      'prefix',
      floats.map((xs) => [xs]),
    ));
  it('filter over an array', () =>
    differential(
      program,
      'positives',
      floats.map((xs) => [xs]),
    ));
  it('redomap', () => differential(program, 'weighted', floatPair));
  it('scanomap', () => differential(program, 'running', floatPair));
  it('int map then scan, wrapping', () =>
    differential(
      program,
      'ints',
      ints.map((xs) => [xs]),
    ));
  it('reduce of a filter over ints', () =>
    differential(
      program,
      'odd_sum',
      ints.map((xs) => [xs]),
    ));
  it('filter over iota', () =>
    differential(
      program,
      'odd_indices',
      fc.nat({ max: 20 }).map((n) => [n]),
    ));
  it('iota', () =>
    differential(
      program,
      'range',
      fc.nat({ max: 20 }).map((n) => [n]),
    ));

  it('iota of a literal length, scalar results of combinators in a void function', () => {
    expect(same(program, 'five', []).result).toEqual([0, 1, 2, 3, 4]);
    differential(
      program,
      'write_out',
      floats.map((xs) => [xs, xs.map(() => 0), xs.length]),
    );
  });

  it('keeps -0, NaN and the fold order', () => {
    expect(same(program, 'total', [[-0, -0]]).result).toBe(0);
    expect(same(program, 'total0', [[]]).result).toBe(-0);
    expect(same(program, 'total0', [[-0, -0]]).result).toBe(-0);
    expect(same(program, 'negated', [[0, -0, Number.NaN]]).result).toEqual([-0, 0, Number.NaN]);
    expect(same(program, 'total', [[1e8, 1, -1e8, 1]]).result).toBe(1);
    expect(same(program, 'squares', [[Number.NaN, -0]]).result).toEqual([Number.NaN, 0]);
    expect(same(program, 'prefix', [[]]).result).toEqual([]);
    expect(same(program, 'positives', [[Number.NaN, 1, -0, 2]]).result).toEqual([1, 2]);
    expect(same(program, 'ints', [[2147483647, 3]]).result).toEqual([-1, -7]);
  });

  it('emits plain loops over typed arrays', () => {
    const js = emitKernelJs(program, 'squares', { simd: false });
    expect(js).toContain('// float* squares(const float xs[])');
    expect(js).toContain('a_ys = new Float32Array(a_xs.length);');
    expect(js).toContain('for (let i = 0; i < a_xs.length; i++) a_ys[i] = f_sq(a_xs[i]);');
    expect(js).toContain('return a_ys;');
    // a straight-line map: WebAssembly SIMD first, the JS loop for the rest (simd.ts)
    expect(emitKernelJs(program, 'squares')).toContain(
      'for (let i = $simd(0, a_ys, [a_xs], [], [], a_xs.length); i < a_xs.length; i++) a_ys[i] = f_sq(a_xs[i]);',
    );
  });
});

describe('combinators with broadcast arguments, in helpers, loops and ifs', () => {
  let program: Program;
  beforeAll(async () => {
    program = await parse(`${HELPERS}
float conv_at(int k, const float img[], int n) {
  int l = k > 0 ? k - 1 : 0;
  int r = k < n - 1 ? k + 1 : n - 1;
  return 0.25f * img[l] + 0.5f * img[k] + 0.25f * img[r];
}
float* blur(const float img[], int n) { float cs[] = map(conv_at, iota(n), img, n); return cs; }

float mul_at(int j, const float m[], const float v[], int r, int cols) { return m[r * cols + j] * v[j]; }
float row_dot(int r, const float m[], const float v[], int cols) {
  float prods[] = map(mul_at, iota(cols), m, v, r, cols);
  return reduce(add, 0.0f, prods);
}
float* matvec(const float m[], const float v[], int rows, int cols) {
  return map(row_dot, iota(rows), m, v, cols);
}
float dot_step(float acc, int j, const float m[], const float v[], int r, int cols) {
  return acc + m[r * cols + j] * v[j];
}
float row_dot2(int r, const float m[], const float v[], int cols) {
  return redomap(add, dot_step, 0.0f, iota(cols), m, v, r, cols);
}
float* matvec2(const float m[], const float v[], int rows, int cols) {
  float ys[] = map(row_dot2, iota(rows), m, v, cols);
  return ys;
}

float scale(float x, float c) { return x * c; }
float step(float acc, float x, float s) { return acc + x * s; }
float loops(const float xs[], int reps) {
  float total = 0.0f;
  float s = 1.0f;
  for (int r = 0; r < reps; r++) {
    float ys[] = map(scale, xs, s);
    if (r % 2 == 0) {
      float a = reduce(add, 0.0f, ys);
      total = total + a;
    } else {
      float b = reduce(fmax2, total, ys);
      total = b;
    }
    s = redomap(add, step, 0.0f, xs, s);
  }
  return total;
}
int halve(int acc, int i) { return i % 2 == 0 ? acc + 1 : acc; }
int countdown(int n) {
  int k = n;
  int steps = 0;
  while (k > 1) {
    k = redomap(iadd, halve, 0, iota(k));
    steps = steps + 1;
  }
  return steps;
}
`);
  });

  const matrix = fc
    .record({ rows: fc.nat({ max: 5 }), cols: fc.nat({ max: 5 }) })
    .chain(({ rows, cols }) =>
      fc.tuple(
        fc.array(float32, { minLength: rows * cols, maxLength: rows * cols }),
        fc.array(float32, { minLength: cols, maxLength: cols }),
        fc.constant(rows),
        fc.constant(cols),
      ),
    );

  it('a stencil: map over iota with the image broadcast and a scalar', () => {
    differential(
      program,
      'blur',
      floats.map((img) => [img, img.length]),
    );
  });

  it('a dot product per row: map calling a helper that maps and reduces', () => {
    differential(program, 'matvec', matrix);
  });

  it('a dot product per row with redomap over iota and broadcast arrays', () => {
    differential(program, 'matvec2', matrix);
  });

  it('combinators in loops and ifs, a redomap reading the variable it writes', () => {
    differential(
      program,
      'loops',
      fc.tuple(floats, fc.nat({ max: 4 })).map(([xs, reps]) => [xs, reps]),
    );
    const js = emitKernelJs(program, 'loops');
    expect(js).toContain('const old_s = v_s;');
  });

  it('a redomap over iota of the variable it writes', () => {
    differential(
      program,
      'countdown',
      fc.integer({ min: -3, max: 5000 }).map((n) => [n]),
    );
    expect(same(program, 'countdown', [1000]).result).toBe(10);
    expect(emitKernelJs(program, 'countdown')).toContain('const old_k = v_k;');
  });
});

// ---- hand-built nodes: a lambda with bindings, fused loops ----------------------------------

/** The commands of a right-nested seq chain. */
function flatten(c: Cmd): Cmd[] {
  return c.kind === 'seq' ? [...flatten(c.first), ...flatten(c.second)] : [c];
}

function chain(cmds: readonly Cmd[], lbl: number): Cmd {
  const [head, ...rest] = cmds;
  if (!head) return { kind: 'skip', lbl };
  return rest.length === 0 ? head : { kind: 'seq', first: head, second: chain(rest, lbl), lbl };
}

function funNamed(program: Program, name: string): Fun {
  const f = listToArray(program).find((g) => g.name === name);
  if (!f) throw new Error(`no function ${name}`);
  return f;
}

/** `fn` with the soacs into `dests` (top level of its body) fused into one hfused command. */
function fuse(program: Program, fn: string, dests: readonly string[]): Program {
  const f = funNamed(program, fn);
  let lbl = maxLabel(program);
  const cmds = flatten(f.body);
  const members = dests.map((d) => {
    const s = cmds.find((c): c is Soac => c.kind === 'soac' && c.dest === d);
    if (!s) throw new Error(`no soac into ${d}`);
    return s;
  });
  const at = cmds.indexOf(members[0] as Soac);
  const rest = cmds.filter((c) => !members.includes(c as Soac));
  rest.splice(at, 0, { kind: 'hfused', members: listFromArray(members), lbl: ++lbl });
  return replaceFun(program, { ...f, body: chain(rest, ++lbl) });
}

describe('hand-built combinator nodes', () => {
  let program: Program;
  beforeAll(async () => {
    program = await parse(`${HELPERS}
float* two_maps(const float xs[]) {
  float ys[] = map(sq, xs);
  float zs[] = map(neg, xs);
  return map(add, ys, zs);
}
float two_folds(const float xs[], const float w[]) {
  float a = reduce(add, 0.0f, xs);
  float b = redomap(add, fold, a, xs, w);
  float c = reduce(fmax2, -1e30f, w);
  return a * 3.0f + b - c;
}
int* two_iotas(int n) {
  int a[] = map(twice, iota(n));
  int b[] = filter(odd, iota(n));
  int c[] = scan(iadd, 0, a);
  return c;
}
float* two_arrays(const float xs[], const float ws[]) {
  float ys[] = map(sq, xs);
  float zs[] = map(neg, ws);
  return ys;
}
float* composed(const float xs[]) { float ys[] = map(sq, xs); return ys; }
`);
  });

  it('fused maps agree with the evaluator and run as one loop', () => {
    const fused = fuse(program, 'two_maps', ['ys', 'zs']);
    differential(
      fused,
      'two_maps',
      floats.map((xs) => [xs]),
    );
    const js = emitKernelJs(fused, 'two_maps');
    expect(js).toContain('// one fused loop for:');
    expect(js).toMatch(
      /for \(let i = 0; i < a_xs\.length; i\+\+\) \{\n\s+a_ys\[i\] = f_sq\(a_xs\[i\]\);\n\s+a_zs\[i\] = f_neg\(a_xs\[i\]\);/,
    );
  });

  it('fused reductions agree with the evaluator', () => {
    // a and c fold over arrays of one length; b reads a, so it stays outside.
    const fused = fuse(program, 'two_folds', ['a', 'c']);
    differential(fused, 'two_folds', floatPair);
  });

  it('fused iota members (map, filter) agree with the evaluator', () => {
    const fused = fuse(program, 'two_iotas', ['a', 'b']);
    differential(
      fused,
      'two_iotas',
      fc.nat({ max: 20 }).map((n) => [n]),
    );
  });

  it('a fused loop whose members turn out to have different lengths raises', () => {
    const fused = fuse(program, 'two_arrays', ['ys', 'zs']);
    differential(fused, 'two_arrays', floatPair);
    expect(() => compileKernelJs(fused, 'two_arrays').run([[1, 2], [1]])).toThrow(
      /fused loop: 'map' into 'ys' goes over length 2 and 'map' into 'zs' over length 1/,
    );
  });

  it('a fused member reading another member`s result is refused at compile time', () => {
    const bad = fuse(program, 'two_folds', ['a', 'b']);
    expect(() => compileKernelJs(bad, 'two_folds')).toThrow(/internal error: fused/);
  });

  it('a lambda with bindings, as fusion composes them', () => {
    // ys = map((x) => { t = sq(x); u = add(t, x); return neg(u) * t; }, xs)
    const f = funNamed(program, 'composed');
    let lbl = maxLabel(program);
    const cmds = flatten(f.body);
    const s = cmds.find((c): c is Soac => c.kind === 'soac') as Soac;
    const x = listToArray(s.fn.params)[0]?.name as string;
    const v = (name: string): Expr => ({ kind: 'var', name, ty: 'float', lbl: ++lbl });
    const call = (name: string, ...args: Expr[]): Expr => ({
      kind: 'call',
      name,
      args: listFromArray(args),
      ty: 'float',
      lbl: ++lbl,
    });
    const fn: Lam = {
      ...s.fn,
      binds: listFromArray([
        { kind: 'bind', name: 't', ty: 'float', rhs: call('sq', v(x)), lbl: ++lbl },
        { kind: 'bind', name: 'u', ty: 'float', rhs: call('add', v('t'), v(x)), lbl: ++lbl },
      ]),
      result: {
        kind: 'binary',
        op: '*',
        ty: 'float',
        left: call('neg', v('u')),
        right: v('t'),
        lbl: ++lbl,
      },
    };
    const body = chain(
      cmds.map((c) => (c === s ? { ...s, fn } : c)),
      ++lbl,
    );
    const composed = replaceFun(program, { ...f, body });
    differential(
      composed,
      'composed',
      floats.map((xs) => [xs]),
    );
    const js = emitKernelJs(composed, 'composed');
    expect(js).toContain(`const l_${x} = a_xs[i];`);
    expect(js).toContain(`const l_t = f_sq(l_${x});`);
  });
});

// ---- lengths -----------------------------------------------------------------------------------

describe('mapped arrays of different lengths, and negative iotas, raise in both', () => {
  let program: Program;
  beforeAll(async () => {
    program = await parse(`${HELPERS}
float at(int i, float x) { return x * i; }
float* sums(const float xs[], const float ys[]) { return map(add, xs, ys); }
float weighted(const float xs[], const float w[]) { return redomap(add, fold, 0.0f, xs, w); }
float* running(const float xs[], const float w[]) { return scanomap(add, fold, 0.0f, xs, w); }
float* indexed(const float xs[], int n) { return map(at, iota(n), xs); }
int* range(int n) { return iota(n); }
int* odd_indices(int n) { return filter(odd, iota(n)); }
`);
  });

  /** The evaluator's runtime error detail, and the compiled code's error message (or 'none'). */
  function failures(fn: string, args: Args): { evaluator: string; compiled: string } {
    let evaluator = 'none';
    let compiled = 'none';
    try {
      evaluate(program, fn, args);
    } catch (e) {
      if (!(e instanceof KernelRuntimeError)) throw e;
      evaluator = e.detail;
    }
    try {
      compileKernelJs(program, fn).run(args);
    } catch (e) {
      if (!(e instanceof Error) || e instanceof KernelArgumentError) throw e;
      compiled = e.message;
    }
    return { evaluator, compiled };
  }

  it('names the combinator and the lengths', () => {
    expect(failures('sums', [[1, 2, 3], [1]])).toEqual({
      evaluator: "'map' goes over 'xs' of length 3 and 'ys' of length 1: lengths differ",
      compiled: "'map' goes over 'xs' of length 3 and 'ys' of length 1: lengths differ",
    });
    expect(failures('weighted', [[], [1]]).compiled).toBe(
      "'redomap' goes over 'xs' of length 0 and 'w' of length 1: lengths differ",
    );
    expect(failures('running', [[5], []]).compiled).toBe(
      "'scanomap' goes over 'xs' of length 1 and 'w' of length 0: lengths differ",
    );
    expect(failures('indexed', [[1, 2], 3])).toEqual({
      evaluator: "'map' goes over iota of length 3 and 'xs' of length 2: lengths differ",
      compiled: "'map' goes over iota of length 3 and 'xs' of length 2: lengths differ",
    });
    const neg = failures('range', [-4]);
    expect(neg.evaluator).toMatch(/negative length \(-4\)/);
    expect(neg.compiled).toBe("'iota' of a negative length (-4)");
    expect(failures('odd_indices', [-1]).compiled).toBe("'filter' over iota of a negative length (-1)");
    expect(failures('indexed', [[1], -1]).compiled).toBe("'map' over iota of a negative length (-1)");
  });

  it('on random lengths: both raise exactly when the lengths differ, and agree otherwise', () => {
    const pair = fc.tuple(floats, floats);
    fc.assert(
      fc.property(pair, ([xs, ys]) => {
        for (const fn of ['sums', 'weighted', 'running']) {
          const f = failures(fn, [xs, ys]);
          if (xs.length === ys.length) {
            expect(f).toEqual({ evaluator: 'none', compiled: 'none' });
            same(program, fn, [xs, ys]);
          } else {
            expect(f.compiled).toBe(f.evaluator);
            expect(f.compiled).toContain(`length ${xs.length} and`);
            expect(f.compiled).toContain(`length ${ys.length}: lengths differ`);
          }
        }
      }),
      { numRuns: RUNS },
    );
    fc.assert(
      fc.property(floats, fc.integer({ min: -5, max: 15 }), (xs, n) => {
        const f = failures('indexed', [xs, n]);
        expect(f.evaluator === 'none').toBe(f.compiled === 'none');
        if (n < 0) expect(f.compiled).toContain(`(${n})`);
        else if (n !== xs.length) expect(f.compiled).toBe(f.evaluator);
        else same(program, 'indexed', [xs, n]);
      }),
      { numRuns: RUNS },
    );
  });
});
