/**
 * Hostile inputs to the back ends, through the public interface: `scf kernel` (run
 * in-process, tests/cli/helpers.ts) and the exports of src/target/index.ts, always against the
 * reference evaluator.
 *
 * 1. Names. User identifiers that are exactly the names the back ends generate must not change a
 *    result. A fixed case (a user function `g__in_b` beside the helper the WGSL back end
 *    specialises from `g` for buffer `in_b`), then properties: random programs (tests/kernel/gen.ts
 *    for scalar code, tests/target/wgsl-gen.ts for combinators) whose identifiers are renamed,
 *    consistently, to names harvested from the code both back ends emit for them (`f_add`, `v_x`,
 *    `in_xs`, `out_0`, `acc`, `params`, `select`, `Math`, …), those names without their prefixes
 *    (`add__in_xs`: a user function that the helper naming would meet), and the templates' fixed
 *    names. The renamed program must give the evaluator's result on the JS back end (bit for bit)
 *    and on WebGPU (within the generator's derived tolerance, ints exactly).
 *
 * 2. Constants. Valid C constant expressions inside a combinator's function that WGSL would reject
 *    as const-expressions (`1.0f / 0.0f`, `1e38f * 10.0f`, `(1 << 30) * 2`, `-INT_MIN`, …): fixed
 *    kernels through `scf kernel --emit wgsl --run --backend webgpu` and `--emit js --run`, and a
 *    property over random constant expressions built from int32/binary32 edge values, where the
 *    evaluator's value must come back bit for bit from both back ends (WGSL runs them at run time
 *    or folds them exactly as C does). An expression with undefined behaviour must still give a
 *    shader the device accepts (any result: C gives the run no meaning).
 *
 * 3. Run-time errors. The JS back end (and the host code of a WebGPU run) reports what the
 *    evaluator reports — out-of-bounds loads and stores, division by zero, INT_MIN / -1, shift
 *    counts, float→int out of range, a missing return, call depth, a step budget — as the same
 *    KernelRuntimeError (message and node), never a silent NaN or wrong sum: fixed kernels through
 *    `scf kernel --emit js|wgsl --run` (exit 1, the evaluator's message), the API with spans (the
 *    evaluator's exact positioned message), and a property over random scalar programs (most with
 *    undefined behaviour somewhere): the same result, or the same error at the same node.
 * 4. Deep expressions: WGSL compilers bound their parsers' recursion (Tint: ~128 nested
 *    parentheses) where C does not; a 200-term sum and a 240-deep expression in a mapped function
 *    run on WebGPU (the back end holds every 16 levels in a `let`), and a short-circuit whose right
 *    operand calls a function that never returns for some elements still evaluates it only where C
 *    does.
 * 5. The command line's conventions on all of the above: no stack trace, exit 0/1/2 (never 3).
 *
 * GPU runs need an adapter (tests/target/gpu-setup.ts: skipped without one, failed in CI).
 * SCF_HOSTILE_RUNS (default 150) sets the JS properties' runs; the GPU property runs a fifth.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ArgValue,
  BUILTINS,
  evaluate,
  formatFloat32Magnitude,
  KernelRuntimeError,
  loadKernelParser,
  type Program,
  parseKernelSync,
} from '../../src/kernel/index.js';
import {
  compileKernelJs,
  emitKernelJs,
  emitKernelWgsl,
  GpuUnsupported,
  runKernel,
  ShaderRejected,
} from '../../src/target/index.js';
import { cli } from '../cli/helpers.js';
import { generate } from '../kernel/gen.js';
import { fuse, parseClean } from '../fusion/harness.js';
import { openTestGpu } from '../target/gpu-setup.js';
import { argList, argsArb, compareValue, wgslProgramArb } from '../target/wgsl-gen.js';

const RUNS = Number(process.env.SCF_HOSTILE_RUNS ?? 150);
const GPU_RUNS = Math.max(4, Math.round(RUNS / 5));

const gpu = await openTestGpu();

const TMP = mkdtempSync(path.join(tmpdir(), 'scf-hostile-backends-'));
afterAll(() => rmSync(TMP, { recursive: true, force: true }));
beforeAll(loadKernelParser);

function file(name: string, source: string): string {
  const f = path.join(TMP, name);
  writeFileSync(f, source);
  return f;
}

type Outcome = { result: number | number[] | undefined; outputs: Record<string, number[]> };

/** The evaluator's outcome, or the KernelRuntimeError it reports. */
function reference(program: Program, fn: string, args: readonly ArgValue[]): Outcome | KernelRuntimeError {
  try {
    const { result, outputs } = evaluate(program, fn, args);
    return { result, outputs };
  } catch (e) {
    if (e instanceof KernelRuntimeError) return e;
    throw e;
  }
}

/** Where two outcomes differ (Object.is on every number), or undefined when they are the same. */
function difference(actual: Outcome, expected: Outcome): string | undefined {
  const nums = (v: number | number[] | undefined): (number | undefined)[] => (Array.isArray(v) ? v : [v]);
  const same = (a: readonly (number | undefined)[], b: readonly (number | undefined)[]): boolean =>
    a.length === b.length && a.every((x, i) => Object.is(x, b[i]));
  if (
    Array.isArray(actual.result) !== Array.isArray(expected.result) ||
    !same(nums(actual.result), nums(expected.result))
  )
    return `result ${JSON.stringify(actual.result)} ≠ ${JSON.stringify(expected.result)}`;
  const ka = Object.keys(actual.outputs).sort();
  const ke = Object.keys(expected.outputs).sort();
  if (ka.join() !== ke.join()) return `outputs ${ka.join()} ≠ ${ke.join()}`;
  for (const k of ke)
    if (!same(actual.outputs[k] as number[], expected.outputs[k] as number[]))
      return `output ${k}: ${JSON.stringify(actual.outputs[k])} ≠ ${JSON.stringify(expected.outputs[k])}`;
  return undefined;
}

// ---- renaming ----------------------------------------------------------------------------------

/**
 * Words of C and of the kernel language that are not identifiers a program may choose, and the C
 * library's functions (the builtins and their double twins) it may not define.
 */
const C_WORDS = new Set([
  ...(
    'auto break case char const continue default do double else enum extern float for goto if inline int ' +
    'long register restrict return short signed sizeof static struct switch typedef union unsigned void ' +
    'volatile while bool true false _Bool _Complex _Imaginary _Alignas _Alignof _Atomic _Generic ' +
    '_Noreturn _Static_assert _Thread_local map reduce scan filter iota redomap scanomap'
  ).split(' '),
  ...BUILTINS.flatMap((b) => [b.name, ...(b.double === undefined ? [] : [b.double])]),
]);

/**
 * Prototype keys are left out: the evaluator's own handling of them is tested with the
 * commands' hostile names (inputs.test.ts), and the back ends never generate them.
 */
const PROTOTYPE_KEYS = new Set(Object.getOwnPropertyNames(Object.prototype));

const IDENT = /\b[A-Za-z_][A-Za-z0-9_]*\b/g;

function usable(name: string): boolean {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) && !C_WORDS.has(name) && !PROTOTYPE_KEYS.has(name);
}

/** The identifiers a C source chooses (not keywords, types or combinators), in order of appearance. */
function identifiersOf(source: string): string[] {
  return [...new Set(source.match(IDENT) ?? [])].filter((w) => !C_WORDS.has(w));
}

/** Every name the back ends' templates use as they are (wgsl.ts's TEMPLATE_LOCALS and module names). */
const TEMPLATE_NAMES = [
  'main params Params n chunk zero sh counts e i stride start end s d k run left tmp first kept acc gid',
  'lid wid nwg out_0 out_1 res_0 res_1 partials_0 partials_1 sh_0 sh_1 acc_0 acc_1 t ne_ne old_x',
  'Math fround imul Int32Array Float32Array Uint8Array subarray length undefined NaN Infinity arguments',
  'eval select bitcast workgroupBarrier arrayLength f32 i32 u32 vec3 array fn let var loop override',
  'alias struct storage uniform private workgroup filter target smooth',
]
  .join(' ')
  .split(' ');

/** Prefixes the back ends put before user identifiers. */
const PREFIXES = ['f_', 'v_', 'a_', 'l_', 'in_', 's_', 'old_'];

/**
 * Names to rename a program's identifiers to: every identifier in the JS and WGSL the back ends
 * emit for it, the same without a user prefix (a user name that the prefix turns into the
 * generated one: `add__in_xs` becomes `f_add__in_xs`), and the templates' names.
 */
function hostileNames(program: Program, entry: string, source: string): string[] {
  const emitted = [emitKernelJs(program, entry)];
  try {
    emitted.push(emitKernelWgsl(program, entry));
  } catch (e) {
    if (!(e instanceof GpuUnsupported)) throw e;
  }
  const names = new Set<string>(TEMPLATE_NAMES);
  for (const code of emitted) {
    for (const w of code.replace(/\/\/.*$/gm, '').match(IDENT) ?? []) {
      names.add(w);
      for (const p of PREFIXES) if (w.startsWith(p) && w.length > p.length) names.add(w.slice(p.length));
    }
  }
  for (const w of identifiersOf(source)) for (const p of PREFIXES) names.add(p + w);
  return [...names].filter(usable).sort();
}

/** `source` with its identifiers renamed by `map` (whole tokens only). */
function renameSource(source: string, map: ReadonlyMap<string, string>): string {
  return source.replace(IDENT, (w) => map.get(w) ?? w);
}

/**
 * An injective renaming of `ids` to names from `pool`, chosen by `picks`: id j takes
 * pool[picks[j] % pool.length] unless another id has it, else keeps a fresh variant of itself.
 */
function renaming(
  ids: readonly string[],
  pool: readonly string[],
  picks: readonly number[],
): Map<string, string> {
  const map = new Map<string, string>();
  const used = new Set<string>();
  ids.forEach((id, j) => {
    const want = pool[(picks[j] ?? 0) % pool.length] as string;
    let name = used.has(want) || ids.includes(want) ? id : want;
    for (let k = 2; used.has(name) || (name !== id && ids.includes(name)); k++) name = `${id}_${k}`;
    used.add(name);
    map.set(id, name);
  });
  return map;
}

/**
 * A program and its renamed twin (parsed), with the renaming (original → final name) and the
 * entry's new name. Two rounds: every identifier is renamed to a hostile name, then a few of them
 * again to names the back ends generate *for the once-renamed program* — the names an identifier
 * must have to meet a generated one (a function `stencil__in_xs` beside the helper made from
 * `stencil` for buffer `in_xs`), which the first round only hits by luck.
 */
function renamedTwin(
  source: string,
  entry: string,
  picks: readonly number[],
  again: readonly (readonly [number, number])[],
): { program: Program; source: string; entry: string; map: Map<string, string> } {
  const original = parseClean(source, 'original.c');
  const ids = identifiersOf(source);
  const first = renaming(ids, hostileNames(original, entry, source), picks);
  const once = renameSource(source, first);
  const onceEntry = first.get(entry) ?? entry;
  const onceIds = identifiersOf(once);
  const pool = hostileNames(parseClean(once, 'renamed-once.c'), onceEntry, once).filter(
    (n) => !onceIds.includes(n),
  );
  const second = new Map(onceIds.map((id) => [id, id]));
  const taken = new Set(onceIds);
  for (const [which, name] of again) {
    const id = onceIds[which % onceIds.length] as string;
    const to = pool[name % pool.length];
    if (to === undefined || taken.has(to) || second.get(id) !== id) continue;
    second.set(id, to);
    taken.add(to);
  }
  const renamed = renameSource(once, second);
  const map = new Map(ids.map((id) => [id, second.get(first.get(id) as string) as string]));
  return { program: parseClean(renamed, 'renamed.c'), source: renamed, entry: map.get(entry) as string, map };
}

/** The second round's choices: up to three (identifier, name) index pairs. */
const againArb = fc.array(fc.tuple(fc.nat(), fc.nat()), { minLength: 1, maxLength: 3 });

// ---- 1. names ----------------------------------------------------------------------------------

/** A collision: `g` specialised for buffer `in_b` and a user function `g__in_b`. */
const COLLIDE = `int g(const int a[], int x) { return a[0] * x; }
int g__in_b(int x) { return x + 100; }
int h(const int b[], int x) { return g(b, x) + g__in_b(x); }
int *f(const int b[], const int xs[]) {
  int ys[] = map(h, b, xs);
  return ys;
}
`;
const COLLIDE_ARGS = '{"b":[2,0,0,0],"xs":[1,2,3,4]}';

describe('names: user identifiers that are the back ends’ generated names', () => {
  it("a user function named like a WGSL helper (g__in_b): scf kernel --emit js --run gives the evaluator's result", async () => {
    const f = file('collide.c', COLLIDE);
    const expected = await cli('eval', f, '--function', 'f', '--args', COLLIDE_ARGS);
    expect(expected.code).toBe(0);
    expect(JSON.parse(expected.out).result).toEqual([103, 106, 109, 112]);
    const js = await cli('kernel', f, '--function', 'f', '--emit', 'js', '--run', '--args', COLLIDE_ARGS);
    expect(js.code, js.err).toBe(0);
    expect(JSON.parse(js.out)).toEqual({ backend: 'js', result: [103, 106, 109, 112] });
  });

  it('a user function named like a WGSL helper (g__in_b): the WGSL has two functions for g (with in_b) and g__in_b, and no name twice', async () => {
    const f = file('collide.c', COLLIDE);
    const r = await cli('kernel', f, '--function', 'f', '--emit', 'wgsl');
    expect(r.code, r.err).toBe(0);
    const fns = [...r.out.matchAll(/^fn (\w+)\(/gm)].map((m) => m[1]);
    expect(new Set(fns).size).toBe(fns.length);
    expect(fns).toHaveLength(4); // g with in_b, g__in_b, h with in_b, main
  });

  describe.skipIf(gpu.skip)(gpu.title('on WebGPU'), () => {
    it("a user function named like a WGSL helper (g__in_b): scf kernel --emit wgsl --run --backend webgpu gives the evaluator's result", async () => {
      gpu.runtime();
      const f = file('collide.c', COLLIDE);
      const r = await cli(
        'kernel',
        f,
        '--function',
        'f',
        '--emit',
        'wgsl',
        '--run',
        '--backend',
        'webgpu',
        '--args',
        COLLIDE_ARGS,
      );
      expect(r.code, r.err).toBe(0);
      expect(JSON.parse(r.out)).toEqual({ backend: 'webgpu', result: [103, 106, 109, 112] });
    });
  });

  it('scalar programs (tests/kernel/gen.ts) renamed to generated names: JS back end ≡ evaluator', () => {
    let compared = 0;
    fc.assert(
      fc.property(
        fc.array(fc.nat({ max: 1_000_000 }), { minLength: 20, maxLength: 120 }),
        fc.array(fc.nat(), { minLength: 40, maxLength: 40 }),
        againArb,
        (tape, picks, again) => {
          const g = generate(tape, 'p');
          const twin = renamedTwin(g.source, g.main, picks, again);
          const expected = reference(twin.program, twin.entry, g.args);
          if (expected instanceof KernelRuntimeError) return; // undefined behaviour: class 3's tests
          compared++;
          const actual = compileKernelJs(twin.program, twin.entry).run(g.args);
          const diff = difference(actual, expected);
          if (diff !== undefined)
            throw new Error(`${diff}\n${twin.source}\n${emitKernelJs(twin.program, twin.entry)}`);
        },
      ),
      { numRuns: RUNS },
    );
    expect(compared).toBeGreaterThan(RUNS / 4);
  });

  it('combinator programs (tests/target/wgsl-gen.ts) renamed to generated names, unfused and fused: JS ≡ evaluator', () => {
    fc.assert(
      fc.property(
        wgslProgramArb,
        argsArb,
        fc.array(fc.nat(), { minLength: 80, maxLength: 80 }),
        againArb,
        (g, args, picks, again) => {
          const twin = renamedTwin(g.source, g.entry, picks, again);
          const list = argList(args);
          for (const p of [twin.program, fuse(twin.program, [twin.entry])]) {
            const expected = reference(p, twin.entry, list);
            if (expected instanceof KernelRuntimeError) throw expected;
            const diff = difference(compileKernelJs(p, twin.entry).run(list), expected);
            if (diff !== undefined)
              throw new Error(`${diff}\n${twin.source}\n${emitKernelJs(p, twin.entry)}`);
          }
        },
      ),
      { numRuns: Math.max(10, Math.round(RUNS / 3)) },
    );
  });

  describe.skipIf(gpu.skip)(gpu.title('on WebGPU'), () => {
    it(`combinator programs renamed to generated names, unfused and fused: WebGPU ≡ evaluator (${GPU_RUNS} programs)`, async () => {
      const rt = gpu.runtime();
      await fc.assert(
        fc.asyncProperty(
          wgslProgramArb,
          argsArb,
          fc.array(fc.nat(), { minLength: 80, maxLength: 80 }),
          againArb,
          fc.constantFrom<'uniform' | 'override'>('uniform', 'override'),
          async (g, args, picks, again, scalars) => {
            const twin = renamedTwin(g.source, g.entry, picks, again);
            const list = argList(args);
            const out = twin.map.get('out') ?? 'out';
            const outk = twin.map.get('outk') ?? 'outk';
            for (const p of [twin.program, fuse(twin.program, [twin.entry])]) {
              const expected = reference(p, twin.entry, list);
              if (expected instanceof KernelRuntimeError) throw expected;
              const actual = await runKernel(p, twin.entry, list, {
                backend: 'webgpu',
                gpu: rt,
                wgsl: { scalars },
              });
              const where = `\n${twin.source}\n${emitKernelWgsl(p, twin.entry, { scalars })}`;
              expect(actual.backend).toBe('webgpu');
              const diffs = [
                compareValue('result', g.result, args.n, actual.result, expected.result),
                ...g.out.map((c, j) =>
                  compareValue(
                    `${out}[${j}]`,
                    c,
                    args.n,
                    actual.outputs[out]?.[j],
                    expected.outputs[out]?.[j],
                  ),
                ),
                ...g.outk.map((c, j) =>
                  compareValue(
                    `${outk}[${j}]`,
                    c,
                    args.n,
                    actual.outputs[outk]?.[j],
                    expected.outputs[outk]?.[j],
                  ),
                ),
              ].filter((d) => d !== undefined);
              if (diffs.length > 0) throw new Error(`${diffs.join('\n')}${where}`);
            }
          },
        ),
        { numRuns: GPU_RUNS, endOnFailure: true }, // shrinking would run the GPU for minutes
      );
    }, 600_000);
  });
});

// ---- 2. constants ------------------------------------------------------------------------------

/** Kernels whose mapped function holds a constant WGSL would reject as a const-expression. */
const CONSTANTS = `float inf1(float x) { return x + 1.0f / 0.0f; }
float ovf(float x) { return x * 0.0f + 1e38f * 10.0f; }
float nan1(float x) { return x * 0.0f + 0.0f / 0.0f; }
float neginf(float x) { return x - 3.4028235e38f * 2.0f; }
int wrap(int x) { return x + (1 << 30) * 2; }
int wrap2(int x) { return x + (2147483647 + 1) + -(-2147483647 - 1) + 65536 * 65536; }
int cvt(float x) { return (int)x + (int)2147483520.0f + (int)(-2147483647.0f - 1.0f); }
float *f_inf(const float xs[]) { float ys[] = map(inf1, xs); return ys; }
float *f_ovf(const float xs[]) { float ys[] = map(ovf, xs); return ys; }
float *f_nan(const float xs[]) { float ys[] = map(nan1, xs); return ys; }
float *f_neginf(const float xs[]) { float ys[] = map(neginf, xs); return ys; }
int *f_wrap(const int xs[]) { int ys[] = map(wrap, xs); return ys; }
int *f_wrap2(const int xs[]) { int ys[] = map(wrap2, xs); return ys; }
int *f_cvt(const float xs[]) { int ys[] = map(cvt, xs); return ys; }
`;
const CONSTANT_CASES: readonly (readonly [string, string])[] = [
  ['f_inf', '[[1.5, -2]]'],
  ['f_ovf', '[[1, 2]]'],
  ['f_nan', '[[1, 2]]'],
  ['f_neginf', '[[1, 2]]'],
  ['f_wrap', '[[1, -5, 2147483647]]'],
  ['f_wrap2', '[[1, -5]]'],
  ['f_cvt', '[[1.5, -3.75]]'],
];

/** The shared check: `scf kernel … --run` prints the result `scf eval` prints, exit 0. */
async function expectKernelLikeEval(
  f: string,
  fn: string,
  args: string,
  ...backend: string[]
): Promise<void> {
  const expected = await cli('eval', f, '--function', fn, '--args', args);
  expect(expected.code, expected.err).toBe(0);
  const r = await cli('kernel', f, '--function', fn, ...backend, '--run', '--args', args);
  expect(r.err, `${fn} ${backend.join(' ')}`).not.toMatch(/rejected|internal error/);
  expect(r.code, `${fn} ${backend.join(' ')}: ${r.err}`).toBe(0);
  expect(JSON.parse(r.out).result, `${fn} ${backend.join(' ')}`).toEqual(JSON.parse(expected.out).result);
}

describe('constants WGSL would reject, inside a combinator’s function', () => {
  it('scf kernel --emit js --run equals scf eval', async () => {
    const f = file('constants.c', CONSTANTS);
    for (const [fn, args] of CONSTANT_CASES) await expectKernelLikeEval(f, fn, args, '--emit', 'js');
  });

  it('the WGSL holds no literal-only operation: folded values, inf and NaN from their bits at run time', async () => {
    const f = file('constants.c', CONSTANTS);
    const r = await cli('kernel', f, '--function', 'f_inf', '--emit', 'wgsl');
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain('bitcast<f32>(0x7f800000u | zero)');
    expect(r.out).not.toMatch(/1\.0f \/ 0\.0f/);
    const w = await cli('kernel', f, '--function', 'f_wrap', '--emit', 'wgsl');
    expect(w.out).toContain('(-2147483648)'); // (1 << 30) * 2, wrapped as the evaluator wraps
  });

  describe.skipIf(gpu.skip)(gpu.title('on WebGPU'), () => {
    it('scf kernel --emit wgsl --run --backend webgpu equals scf eval', async () => {
      gpu.runtime();
      const f = file('constants.c', CONSTANTS);
      for (const [fn, args] of CONSTANT_CASES)
        await expectKernelLikeEval(f, fn, args, '--emit', 'wgsl', '--backend', 'webgpu');
    });
  });

  /** Constant expressions (C text) of one type over the edges of int32 and binary32. */
  const INT_EDGES = [
    '0',
    '1',
    '-1',
    '2',
    '31',
    '32',
    '30',
    '65536',
    '2147483647',
    '(-2147483647 - 1)',
    '1000000',
  ];
  const FLOAT_EDGES = [
    0, 1, 0.5, 0.1, 3, 1e-45, 1.1754943508222875e-38, 3.4028234663852886e38, 1e38, 16777217, 1e10,
  ].map((v) => `${formatFloat32Magnitude(Math.fround(v))}f`);
  const { int: intExpr, float: floatExpr } = fc.letrec<{ int: string; float: string }>((tie) => ({
    int: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      fc.constantFrom(...INT_EDGES),
      fc
        .tuple(tie('int'), fc.constantFrom('+', '-', '*', '/', '%', '&', '|', '^', '<<', '>>'), tie('int'))
        .map(([a, op, b]) => `(${a} ${op} ${b})`),
      fc.tuple(fc.constantFrom('-', '~', '!'), tie('int')).map(([op, a]) => `(${op} ${a})`),
      tie('float').map((a) => `((int)${a})`),
      fc
        .tuple(tie('float'), fc.constantFrom('<', '==', '!='), tie('float'))
        .map(([a, op, b]) => `(${a} ${op} ${b})`),
    ),
    float: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      fc.constantFrom(...FLOAT_EDGES),
      fc
        .tuple(tie('float'), fc.constantFrom('+', '-', '*', '/'), tie('float'))
        .map(([a, op, b]) => `(${a} ${op} ${b})`),
      tie('float').map((a) => `(- ${a})`),
      tie('int').map((a) => `((float)${a})`),
      fc.tuple(tie('int'), tie('float'), tie('float')).map(([c, a, b]) => `(${c} ? ${a} : ${b})`),
    ),
  }));
  const constantKernel = fc.oneof(
    intExpr.map((e) => ({ ty: 'int', e })),
    floatExpr.map((e) => ({ ty: 'float', e })),
    // one binary32 operation on two edges, squared: overflows to inf, 0 / 0, underflow to 0
    fc
      .tuple(
        fc.constantFrom(...FLOAT_EDGES),
        fc.constantFrom('*', '/', '+', '-'),
        fc.constantFrom(...FLOAT_EDGES),
      )
      .map(([a, op, b]) => ({ ty: 'float', e: `(${a} ${op} ${b}) * (${a} ${op} ${b})` })),
  );
  /** `T k(T x) { return x * 0 + CONSTANT; }` mapped over xs: the constant is the whole result. */
  const kernelOf = (ty: string, e: string): string =>
    `${ty} k(${ty} x) { return x * ${ty === 'int' ? '0' : '0.0f'} + ${e}; }\n${ty} *f(const ${ty} xs[]) { ${ty} ys[] = map(k, xs); return ys; }\n`;

  it('random constant expressions at the edges of int32/binary32: the JS back end gives the evaluator’s value', () => {
    fc.assert(
      fc.property(constantKernel, ({ ty, e }) => {
        const program = parseClean(kernelOf(ty, e), 'constant.c');
        const expected = reference(program, 'f', [[1, 2]]);
        if (expected instanceof KernelRuntimeError) return; // undefined behaviour: class 3's tests
        const diff = difference(compileKernelJs(program, 'f').run([[1, 2]]), expected);
        if (diff !== undefined) throw new Error(`${diff}\n${e}`);
      }),
      { numRuns: RUNS },
    );
  });

  describe.skipIf(gpu.skip)(gpu.title('on WebGPU'), () => {
    it(`random constant expressions at the edges of int32/binary32: WebGPU accepts the shader and gives the evaluator’s value (${GPU_RUNS} programs)`, async () => {
      const rt = gpu.runtime();
      await fc.assert(
        fc.asyncProperty(constantKernel, async ({ ty, e }) => {
          const program = parseClean(kernelOf(ty, e), 'constant.c');
          const expected = reference(program, 'f', [[1, 2]]);
          let actual: Outcome;
          try {
            actual = await runKernel(program, 'f', [[1, 2]], { backend: 'webgpu', gpu: rt });
          } catch (err) {
            if (err instanceof ShaderRejected)
              throw new Error(`${err.message}\n${e}\n${emitKernelWgsl(program, 'f')}`);
            throw err;
          }
          if (expected instanceof KernelRuntimeError) return; // undefined behaviour: any result
          const diff = difference(actual, expected);
          if (diff !== undefined) throw new Error(`${diff}\n${e}\n${emitKernelWgsl(program, 'f')}`);
        }),
        { numRuns: GPU_RUNS, endOnFailure: true },
      );
    }, 600_000);
  });
});

// ---- 3. run-time errors --------------------------------------------------------------------------

/** Kernels whose runs (with the arguments below) the evaluator rejects. */
const FAULTS = `int sum(const int a[], int n) { int s = 0; for (int i = 0; i <= n; i++) s += a[i]; return s; }
float at(const float a[], int i) { return a[i]; }
float *stencil(const float xs[], int n) { float ys[] = map(at, xs, iota(n)); return ys; }
int dv(int x, int y) { return x / y + x % (y + 1); }
int sh(int x, int y) { return x << y; }
int rec(int n) { return n == 0 ? 0 : 1 + rec(n - 1); }
int spin(int n) { while (n > 0) { n = n + 1; if (n < 0) n = 1; } return n; }
int noret(int x) { if (x > 0) return 1; }
void put(int a[], int i, int v) { a[i] = v; }
int cv(float x) { return (int)x; }
float sq(float x) { return x * x; }
float add(float a, float b) { return a + b; }
float *zip(const float xs[], const float ys[]) { float zs[] = map(add, xs, ys); return zs; }
float first(const float xs[]) { float ys[] = map(sq, xs); float s = reduce(add, 0.0f, ys); return s + ys[0]; }
`;
const FAULT_CASES: readonly (readonly [string, string, string])[] = [
  ['sum', '[[1,2,3],3]', "index 3 is out of bounds for array 'a' of length 3"],
  ['stencil', '[[1,2],3]', "index 2 is out of bounds for array 'a' of length 2"],
  ['zip', '[[1,2],[3]]', "'map' goes over"], // mapped lengths differ: an input error (exit 2)
  ['stencil', '[[1,2,3],3]', ''], // in bounds: a result
  ['dv', '[7,0]', 'integer division by zero'],
  ['dv', '[-2147483648,-1]', 'integer overflow in division (INT_MIN / -1)'],
  ['dv', '[7,-1]', 'integer remainder by zero'],
  ['sh', '[1,32]', 'shift count 32 is out of range 0..31'],
  ['sh', '[1,-1]', 'shift count -1 is out of range 0..31'],
  ['rec', '[1000]', 'call depth limit of 400 exceeded'],
  ['rec', '[300]', ''],
  ['spin', '[1]', 'step budget of 100000000 exceeded (the kernel may not terminate)'],
  ['noret', '[0]', "function 'noret' reached its end without returning a value"],
  ['put', '[[1,2],2,5]', "index 2 is out of bounds for array 'a' of length 2"],
  ['put', '[[1,2],-1,5]', "index -1 is out of bounds for array 'a' of length 2"],
  ['cv', '[1e10]', 'float value 10000000000 is out of range for int'],
  ['cv', '["NaN"]', 'float value NaN is out of range for int'],
  ['first', '[[]]', "index 0 is out of bounds for array 'ys' of length 0"],
];

/** No line of a Node stack trace (`    at f (file:1:2)`). */
const STACK = /^\s+at .+:\d+:\d+\)?$/m;

describe('run-time errors: the evaluator’s, never a silent value', () => {
  it('scf kernel --emit js --run: exit 1 with the evaluator’s message where scf eval has one', async () => {
    const f = file('faults.c', FAULTS);
    for (const [fn, args, message] of FAULT_CASES) {
      const ev = await cli('eval', f, '--function', fn, '--args', args);
      const js = await cli('kernel', f, '--function', fn, '--emit', 'js', '--run', '--args', args);
      const what = `${fn}(${args}): eval ${ev.code} ${ev.err} / kernel ${js.code} ${js.err}`;
      expect(js.err, what).not.toMatch(STACK);
      if (message === '') {
        expect([ev.code, js.code], what).toEqual([0, 0]);
        expect(JSON.parse(js.out).result, what).toEqual(JSON.parse(ev.out).result);
      } else if (message.startsWith("'map'")) {
        expect(js.code, what).toBe(2); // scf kernel treats mapped lengths as bad input (src/cli/kernel.ts)
        expect(js.err, what).toContain(message);
      } else {
        expect(ev.code, what).toBe(1);
        expect(ev.err, what).toContain(`error: ${message}`);
        expect(js.code, what).toBe(1);
        expect(js.err, what).toContain(`error: ${message}`);
        // positioned alike, but for the call depth and the step budget (the JS back end counts them at a function's entry and a loop's head)
        if (!/call depth|step budget/.test(message))
          expect(js.err.split('\n')[0], what).toBe(ev.err.split('\n')[0]);
      }
    }
  });

  it('compileKernelJs with spans: the evaluator’s positioned message, FILE:LINE:COL', () => {
    const parsed = parseKernelSync(FAULTS, 'faults.c');
    expect(parsed.diagnostics).toEqual([]);
    // a smaller step budget, the same for both, so that `spin` fails fast
    const options = { spans: parsed.spans, source: FAULTS, fuel: 1_000_000 };
    for (const [fn, args, message] of FAULT_CASES) {
      if (message === '' || message.startsWith("'map'")) continue;
      const list = JSON.parse(args, (_, v) => (v === 'NaN' ? Number.NaN : v)) as ArgValue[];
      let expected: unknown;
      try {
        evaluate(parsed.program, fn, list, options);
      } catch (e) {
        expected = e;
      }
      if (!(expected instanceof KernelRuntimeError)) throw new Error(`${fn}: the evaluator accepts ${args}`);
      let thrown: unknown;
      try {
        compileKernelJs(parsed.program, fn, options).run(list);
      } catch (e) {
        thrown = e;
      }
      expect(thrown, fn).toBeInstanceOf(KernelRuntimeError);
      const e = thrown as KernelRuntimeError;
      expect(e.detail, fn).toBe(expected.detail);
      expect(e.message, fn).toMatch(/^faults\.c:\d+:\d+: error: /);
      // The depth check sits at the callee's definition (the evaluator's at the call), and the
      // step budget runs out at a loop (the evaluator's at whatever command it counts last).
      if (!/^call depth|^step budget/.test(e.detail)) expect(e.message, fn).toBe(expected.message);
    }
  });

  it('random scalar programs (tests/kernel/gen.ts), most with undefined behaviour on some path: same result or same error at the same node', () => {
    let errors = 0;
    fc.assert(
      fc.property(fc.array(fc.nat({ max: 1_000_000 }), { minLength: 20, maxLength: 160 }), (tape) => {
        const g = generate(tape, 'p');
        const program = parseClean(g.source, 'generated.c');
        const expected = reference(program, g.main, g.args);
        let actual: Outcome | KernelRuntimeError;
        try {
          actual = compileKernelJs(program, g.main).run(g.args);
        } catch (e) {
          if (!(e instanceof KernelRuntimeError)) throw e;
          actual = e;
        }
        if (expected instanceof KernelRuntimeError || actual instanceof KernelRuntimeError) {
          const show = (o: Outcome | KernelRuntimeError): string =>
            o instanceof KernelRuntimeError ? `error at ${o.lbl}: ${o.detail}` : JSON.stringify(o.result);
          if (
            !(expected instanceof KernelRuntimeError) ||
            !(actual instanceof KernelRuntimeError) ||
            actual.detail !== expected.detail ||
            actual.lbl !== expected.lbl
          )
            throw new Error(
              `JS ${show(actual)} ≠ evaluator ${show(expected)}\n${g.source}${JSON.stringify(g.args)}`,
            );
          errors++;
          return;
        }
        const diff = difference(actual, expected);
        if (diff !== undefined) throw new Error(`${diff}\n${g.source}`);
      }),
      { numRuns: RUNS * 2 },
    );
    expect(errors).toBeGreaterThan(RUNS / 10); // the property saw errors, not only results
  });

  describe.skipIf(gpu.skip)(gpu.title('on WebGPU'), () => {
    it('scf kernel --emit wgsl --run --backend webgpu: the host code’s out-of-bounds read is exit 1, the evaluator’s message', async () => {
      gpu.runtime();
      const f = file('faults.c', FAULTS);
      const r = await cli(
        'kernel',
        f,
        '--function',
        'first',
        '--emit',
        'wgsl',
        '--run',
        '--backend',
        'webgpu',
        '--args',
        '[[]]',
      );
      expect(r.err).not.toMatch(STACK);
      expect(r.code, r.err).toBe(1);
      expect(r.err).toContain("error: index 0 is out of bounds for array 'ys' of length 0");
    });
  });
});

// ---- 4. deep expressions ----------------------------------------------------------------------

const DEEP = (() => {
  const sum = Array.from({ length: 200 }, (_, i) => `x * ${i}`).join(' + ');
  let nested = 'x';
  for (let i = 0; i < 240; i++) nested = i % 2 === 0 ? `(${nested} + ${i})` : `(${i} - ${nested})`;
  let guarded = 'spin(x)';
  for (let i = 0; i < 20; i++) guarded = `(${guarded} + 1)`;
  return `int sum(int x) { return ${sum}; }
int nested(int x) { return ${nested}; }
int spin(int x) { while (x <= 0) { x = x + 0; } return x; }
int guarded(int x) { return x > 0 && ${guarded} > 3 ? 1 : 0; }
int *f_sum(const int xs[]) { int ys[] = map(sum, xs); return ys; }
int *f_nested(const int xs[]) { int ys[] = map(nested, xs); return ys; }
int *f_guarded(const int xs[]) { int ys[] = map(guarded, xs); return ys; }
`;
})();
const DEEP_CASES = [
  ['f_sum', '[[1,5,-3]]'],
  ['f_nested', '[[1,5,-3]]'],
  ['f_guarded', '[[1,-1,2,0]]'],
] as const;

describe('deep expressions', () => {
  it('scf kernel --emit js --run equals scf eval', async () => {
    const f = file('deep.c', DEEP);
    for (const [fn, args] of DEEP_CASES) await expectKernelLikeEval(f, fn, args, '--emit', 'js');
  });

  describe.skipIf(gpu.skip)(gpu.title('on WebGPU'), () => {
    it('scf kernel --emit wgsl --run --backend webgpu equals scf eval (the device accepts the shaders)', async () => {
      gpu.runtime();
      const f = file('deep.c', DEEP);
      for (const [fn, args] of DEEP_CASES)
        await expectKernelLikeEval(f, fn, args, '--emit', 'wgsl', '--backend', 'webgpu');
    }, 180_000);
  });
});

// ---- 5. the command line's conventions -----------------------------------------------------------

describe('scf kernel on hostile programs: no stack trace, exit 0, 1 or 2, never 3', () => {
  /** Programs the parser accepts with odd identifiers, and their run arguments. */
  const PROGRAMS: readonly (readonly [string, string, string])[] = [
    [
      'unicode.c',
      'float sq(float x) { return x * x; }\nfloat *f(const float café[]) { float ys[] = map(sq, café); return ys; }\n',
      '[[1,2]]',
    ],
    ['dollar.c', 'int f(int $x, int x$) { int $ = $x + x$; return $; }\n', '[1,2]'],
    [
      'proto.c',
      'int __proto__(int toString) { return toString + 1; }\nint f(int valueOf) { return __proto__(valueOf); }\n',
      '[41]',
    ],
    [
      'keywords.c',
      'int fn(int let) { int var = let * 2; return var; }\nint *f(const int loop[]) { int select[] = map(fn, loop); return select; }\n',
      '[[1,2,3]]',
    ],
    ['collide.c', COLLIDE, COLLIDE_ARGS],
    ['constants.c', `${CONSTANTS}float *f(const float xs[]) { return f_inf(xs); }\n`, '[[1]]'],
    ['faults.c', `${FAULTS}int f(int x) { return dv(x, 0); }\n`, '[1]'],
    ['deep.c', `${DEEP}int *f(const int xs[]) { return f_nested(xs); }\n`, '[[1,2]]'],
  ];

  it('--emit js|wgsl, and --run on each back end', async () => {
    for (const [name, source, args] of PROGRAMS) {
      const f = file(name, source);
      const runs: string[][] = [
        ['--emit', 'js'],
        ['--emit', 'wgsl'],
        ['--emit', 'js', '--run', '--args', args],
        ['--emit', 'wgsl', '--run', '--backend', 'auto', '--args', args],
      ];
      for (const extra of runs) {
        const r = await cli('kernel', f, '--function', 'f', ...extra);
        const what = `${name} ${extra.join(' ')}: exit ${r.code}\n${r.err}`;
        expect(r.err, what).not.toMatch(STACK);
        expect(r.err, what).not.toMatch(/internal error/);
        expect([0, 1, 2], what).toContain(r.code);
        if (extra.includes('--run') && r.code === 0) {
          const ev = await cli('eval', f, '--function', 'f', '--args', args);
          if (ev.code === 0) expect(JSON.parse(r.out).result, what).toEqual(JSON.parse(ev.out).result);
        }
      }
    }
  }, 120_000);
});
