/**
 * Optimized ≡ original: for every benchmark kernel and for random programs, with random arguments
 * and a random subset of the formals bound to the values passed, the reference evaluator gives the
 * same result and output arrays (bit for bit) on the original and on the optimized function — for
 * each pass alone and for the whole pipeline. Cases where the original has undefined behaviour are
 * skipped (an optimizer may then do anything); the optimized program must never fail where the
 * original succeeds. The random programs also run as the function a host maps over an array, with
 * some of its operands bound: constant propagation clones it and the functions it calls, and copy
 * propagation and DAE rewrite the originals and the clones in `fns` (random code is full of dead
 * assignments and copies), which must keep no dead assignment or self-copy and unique labels.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  type ArgValue,
  type Fun,
  findFun,
  listToArray,
  loadKernelParser,
  parseKernelSync,
  type Program,
  printProgram,
} from '../../src/kernel/index.js';
import { formatDiagnostic } from '../../src/common/index.js';
import { type Bindings, type BindValue, runPipeline, validateLabels } from '../../src/optimizers/index.js';
import { type Generated, generate } from '../kernel/gen.js';
import { type Kernel, leftovers, loadKernels, parseC, passes, sameResults, tryEval } from './helpers.js';

const CONFIGS = ['const-prop', 'copy-prop', 'dae', 'const-prop,copy-prop,dae'];
const SEED = Number(process.env.SCF_OPT_SEED ?? 2002);
const RUNS = Number(process.env.SCF_OPT_RUNS ?? 40);

/** Checks one case; returns false when the original fails (skipped). */
function check(
  program: Program,
  fn: string,
  args: Record<string, ArgValue>,
  bound: readonly string[],
): boolean {
  const expected = tryEval(program, fn, args);
  if (!expected) return false;
  const binds: Record<string, BindValue> = {};
  for (const b of bound) binds[b] = args[b] as BindValue;
  for (const config of CONFIGS) {
    const optimized = runPipeline(program, fn, passes(config), binds as Bindings).program;
    const actual = tryEval(optimized, fn, args);
    const what = `${config} with ${JSON.stringify(binds)} on ${JSON.stringify(args)}`;
    expect(actual, `optimized program fails: ${what}`).toBeDefined();
    expect(sameResults(expected, actual as NonNullable<typeof actual>), what).toBe(true);
  }
  return true;
}

const smallInt = fc.integer({ min: -2, max: 12 });
const anyFloat = fc.oneof(
  fc.constantFrom(0, -0, 1, -1, 0.5, 2, 3.25, 1e30, Number.NaN),
  fc.float({ noDefaultInfinity: true, min: -1000, max: 1000 }),
);

function argArb(p: { ty: string; isArray: boolean }, sample: ArgValue): fc.Arbitrary<ArgValue> {
  const elem = (s: number | boolean): fc.Arbitrary<number | boolean> =>
    p.ty === 'float'
      ? fc.oneof({ arbitrary: fc.constant(s), weight: 3 }, { arbitrary: anyFloat, weight: 1 })
      : fc.oneof({ arbitrary: fc.constant(s), weight: 3 }, { arbitrary: smallInt, weight: 1 });
  if (Array.isArray(sample)) {
    const arr = sample as readonly (number | boolean)[];
    return fc.oneof(
      { arbitrary: fc.constant(arr), weight: 1 },
      { arbitrary: fc.tuple(...arr.map(elem)), weight: 2 },
    );
  }
  const s = sample as number | boolean;
  if (p.ty === 'int') {
    return fc.oneof(
      { arbitrary: fc.constant(s), weight: 6 },
      { arbitrary: smallInt, weight: 2 },
      { arbitrary: fc.integer({ min: -2147483648, max: 2147483647 }), weight: 1 },
    );
  }
  return elem(s);
}

describe('optimized ≡ original on the benchmark kernels', () => {
  let kernels: Kernel[] = [];
  beforeAll(async () => {
    await loadKernelParser();
    kernels = loadKernels();
  });

  for (const name of [
    'mul_add',
    'dotproduct',
    'doconvol',
    'doconvol_1d',
    'main_loop',
    'main_loop_f',
    'main_loop_f_u',
    'main_loop_f_u_f',
  ]) {
    it(name, () => {
      const k = kernels.find((x) => x.name === name);
      if (!k) throw new Error(`no kernel ${name}`);
      const params = listToArray((findFun(k.program, k.fn) as Fun).params);
      const arb = fc.record(
        Object.fromEntries(params.map((p) => [p.name, argArb(p, k.args[p.name] as ArgValue)])),
      ) as fc.Arbitrary<Record<string, ArgValue>>;
      const bound = fc.subarray(params.map((p) => p.name));
      let checked = 0;
      fc.assert(
        fc.property(arb, bound, (args, names) => {
          if (check(k.program, k.fn, args, names)) checked++;
        }),
        { seed: SEED, numRuns: name.startsWith('main_loop') ? RUNS / 2 : RUNS },
      );
      // The sample arguments themselves, with everything bound and nothing bound.
      const all = params.map((p) => p.name);
      expect(check(k.program, k.fn, k.args, all)).toBe(true);
      expect(check(k.program, k.fn, k.args, [])).toBe(true);
      expect(checked).toBeGreaterThan(0);
    });
  }
});

describe('optimized ≡ original on random programs', () => {
  beforeAll(async () => {
    await loadKernelParser();
  });

  it(`${RUNS * 4} random programs with random bindings`, () => {
    const samples = fc.sample(
      fc.tuple(
        fc.array(fc.nat(), { minLength: 600, maxLength: 600 }),
        fc.subarray(['x', 'y', 'u', 'v', 'a', 'b']),
      ),
      { seed: SEED, numRuns: RUNS * 4 },
    );
    let checked = 0;
    samples.forEach(([tape, bound], k) => {
      const g = generate(tape, `p${k}_`);
      const program = parseC(g.source);
      const fun = findFun(program, g.main) as Fun;
      const names = listToArray(fun.params).map((p) => p.name);
      const args = Object.fromEntries(names.map((n, i) => [n, g.args[i] as ArgValue]));
      if (check(program, g.main, args, bound)) checked++;
      // The optimized program prints as C that the kernel parser accepts.
      const out = runPipeline(program, g.main, passes(CONFIGS[3] as string), {}).program;
      const again = parseKernelSync(printProgram(out));
      expect(
        again.diagnostics.map((d) => formatDiagnostic(d, again.sources, false)),
        g.source,
      ).toEqual([]);
    });
    expect(checked).toBeGreaterThan(RUNS);
  });
});

/**
 * `g`'s entry as the function a host maps over `xs`, through a wrapper that copies the const
 * arrays it is passed into local ones (the entry stores into its arrays; a mapped function's array
 * parameters are const): `ys = map(w, xs, y, u, v, a0, b0)`. The host's arguments are `g`'s, `xs`
 * three ints around its `x`.
 */
function mappedProgram(
  g: Generated,
  prefix: string,
): { source: string; host: string; args: Record<string, ArgValue> } {
  const ret = /^(int|float|bool) /.exec(g.source.slice(g.source.indexOf(`${g.main}(`) - 6))?.[1] ?? 'int';
  const w = `${prefix}w`;
  const host = `${prefix}host`;
  const source = `${g.source}
${ret} ${w}(int x, int y, float u, float v, const int a0[], const float b0[]) {
  int a[8];
  float b[8];
  for (int i = 0; i < 8; i++) { a[i] = a0[i]; b[i] = b0[i]; }
  return ${g.main}(x, y, u, v, a, b);
}
${ret} *${host}(const int xs[], int y, float u, float v, const int a0[], const float b0[]) {
  ${ret} ys[] = map(${w}, xs, y, u, v, a0, b0);
  return ys;
}`;
  const [x, y, u, v, a0, b0] = g.args as [number, number, number, number, number[], number[]];
  return { source, host, args: { xs: [x, (x + 1) | 0, y], y, u, v, a0, b0 } };
}

describe('optimized ≡ original on random functions a host maps (cloned for bound operands)', () => {
  beforeAll(async () => {
    await loadKernelParser();
  });

  it(`${RUNS * 2} random mapped programs with random bindings`, () => {
    const samples = fc.sample(
      fc.tuple(
        fc.array(fc.nat(), { minLength: 600, maxLength: 600 }),
        fc.subarray(['y', 'u', 'v', 'a0', 'b0'], { minLength: 1 }),
      ),
      { seed: SEED + 1, numRuns: RUNS * 2 },
    );
    let checked = 0;
    let cloned = 0;
    samples.forEach(([tape, bound], k) => {
      const m = mappedProgram(generate(tape, `m${k}_`), `m${k}_`);
      const program = parseC(m.source);
      if (check(program, m.host, m.args, bound)) checked++;
      const binds: Record<string, BindValue> = {};
      for (const b of bound) binds[b] = m.args[b] as BindValue;
      const out = runPipeline(program, m.host, passes(CONFIGS[3] as string), binds as Bindings);
      expect(validateLabels(out.fun), m.source).toBeUndefined();
      const fns = listToArray(out.fun.fns);
      if (fns.some((f) => f.name === `${m.host.slice(0, -4)}w_1`)) cloned++;
      for (const f of fns)
        expect(leftovers(f), `${f.name} in\n${printProgram(out.program)}`).toEqual({
          dead: [],
          selfCopies: [],
        });
    });
    expect(checked).toBeGreaterThan(RUNS / 2);
    expect(cloned).toBeGreaterThan(RUNS);
  });
});
