/**
 * Deep, long and growing inputs: no stack overflow, no crash, no hang, no runaway memory.
 *
 * - Kernels nested deeper than the parser's MAX_NESTING (10^4 parentheses, `if`s, `while`s, sums,
 *   unary chains, ternaries, calls, else-if chains) are one positioned K1014 error, exit 2, for
 *   eval, opt, kernel and stage; below it they run and give the right value. Generated shapes and
 *   depths on both sides of the limit: exit 0 with the known value, or exit 2 with K1014, never 3.
 * - Long straight-line code: 10^5 statements evaluate (the evaluator and printer iterate along seq
 *   chains); optimizing or compiling a function nested past MAX_TREE_DEPTH is K1014, exit 2, at the
 *   statement where it gets too deep; just below, the whole pipeline and the JS back end run, and
 *   900 statements stage (the partial evaluator's nesting is bounded, NEST_LIMIT) with the staged
 *   pipeline giving the unstaged result.
 * - SCF-lang: a `.ts` nested past MAX_SCF_NESTING (estimated on the raw text) is SCF1006, without
 *   calling oxc-parser, which would overflow the native stack (a segmentation fault: exit 139). Run in
 *   real processes, where a crash shows as an exit status.
 * - Growth: nested 64-trip loops unroll within UNROLL_BUDGET (seconds, under a 1 GB heap: node is
 *   run with --max-old-space-size=1024, so more would be a crash); 30,000 functions evaluate in
 *   seconds (which a parser quadratic in them would not); staging DAE on 20 nested loops (whose liveness
 *   fixpoints, run concretely for static calls, are exponential in the nesting) stops at the
 *   partial evaluator's static-work budget (STATIC_WORK); staging the whole pipeline on 30 nested
 *   loops writes descriptions of bounded size (PRINT_NODES: a value shared at many places printed
 *   as a tree is exponential).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { MAX_NESTING, MAX_TREE_DEPTH } from '../../src/kernel/index.js';
import { STATIC_WORK } from '../../src/partial-eval/index.js';
import { MAX_SCF_NESTING } from '../../src/scf-lang/nesting.js';
import { PRINT_NODES } from '../../src/pipeline/index.js';
import { cli } from '../cli/helpers.js';

const RUNS = Number(process.env.SCF_HOSTILE_RUNS ?? 150);
const ROOT = path.resolve(import.meta.dirname, '../..');
const BIN = path.join(ROOT, 'bin/scf.js');
const TMP = mkdtempSync(path.join(tmpdir(), 'scf-hostile-nesting-'));
afterAll(() => rmSync(TMP, { recursive: true, force: true }));

let files = 0;
function file(name: string, source: string): string {
  const f = path.join(TMP, `${files++}-${name}`);
  writeFileSync(f, source);
  return f;
}

type Run = { code: number; out: string; err: string };

function clean<R extends Run>(r: R): R {
  expect(r.err).not.toMatch(/internal error|\n\s+at \S+ \(|RangeError|Maximum call stack/);
  expect(r.code).not.toBe(3);
  return r;
}

/** A config staging const-prop → copy-prop → dae on `fn` of the kernel file `f`, with `m` late. */
function wholePipeline(name: string, f: string, fn: string): string {
  return file(
    name,
    JSON.stringify({
      input: f,
      function: fn,
      pipeline: ['const-prop', 'copy-prop', 'dae'],
      bind: { m: "'Int" },
    }),
  );
}

/** `scf ARGV…` in a real process, with node's own flags first. */
function spawnScf(nodeFlags: readonly string[], ...argv: string[]): Run & { ms: number } {
  const start = performance.now();
  const r = spawnSync(process.execPath, [...nodeFlags, BIN, ...argv], {
    encoding: 'utf8',
    timeout: 300_000,
    maxBuffer: 1 << 28,
  });
  return {
    code: r.status ?? (r.signal === 'SIGSEGV' ? 139 : r.signal === 'SIGABRT' ? 134 : 128),
    out: r.stdout,
    err: r.stderr,
    ms: performance.now() - start,
  };
}

const TOO_DEEP =
  /error K1014: nesting too deep \(limit 500\): statements and expressions here are nested more than 500 levels deep/;
const TOO_LONG =
  /error K1014: 'f' is too long or too deeply nested to (optimize|compile) \(limit 1000 levels\)/;

/**
 * Kernel shapes of depth d (`int f(int x)`, plus helpers), each with the value f(x) must return.
 * Ints wrap: x stays small, and the expected values are computed with int32 arithmetic.
 */
const SHAPES: Record<string, { source: (d: number) => string; value: (d: number, x: number) => number }> = {
  parens: {
    source: (d) => `int f(int x) {\n  return ${'('.repeat(d)}x${')'.repeat(d)};\n}\n`,
    value: (_, x) => x,
  },
  sum: {
    source: (d) => `int f(int x) {\n  return x${' + x'.repeat(d)};\n}\n`,
    value: (d, x) => Math.imul(d + 1, x),
  },
  rightSum: {
    source: (d) => `int f(int x) {\n  return ${'x + ('.repeat(d)}x${')'.repeat(d)};\n}\n`,
    value: (d, x) => Math.imul(d + 1, x),
  },
  negations: {
    source: (d) => `int f(int x) {\n  return ${'-('.repeat(d)}x${')'.repeat(d)};\n}\n`,
    value: (d, x) => (d % 2 === 0 ? x : -x | 0),
  },
  nots: {
    source: (d) => `int f(int x) {\n  return ${'!'.repeat(d)}x;\n}\n`,
    value: (d, x) => (d === 0 ? x : (x !== 0) === (d % 2 === 0) ? 1 : 0),
  },
  ifs: {
    source: (d) =>
      `int f(int x) {\n${Array.from({ length: d }, (_, i) => `if (x > ${-1 - i}) {\n`).join('')}x = x + 1;\n${'}\n'.repeat(d)}  return x;\n}\n`,
    value: (d, x) => (d === 0 || x > -1 ? x + 1 : x),
  },
  whiles: {
    source: (d) =>
      `int f(int x) {\n  int k = 0;\n${'while (k < 1) {\n'.repeat(d)}k = k + 1;\nx = x + 1;\n${'}\n'.repeat(d)}  return x;\n}\n`,
    value: (_, x) => x + 1,
  },
  elseIfs: {
    source: (d) =>
      `int f(int x) {\n  int y = -1;\n${Array.from({ length: d }, (_, i) => `if (x == ${i}) y = ${i * 3};\nelse `).join('')}y = -2;\n  return y;\n}\n`,
    value: (d, x) => (x >= 0 && x < d ? x * 3 : -2),
  },
  ternaries: {
    source: (d) =>
      `int f(int x) {\n  return ${Array.from({ length: d }, (_, i) => `x == ${i} ? ${i * 3} : `).join('')}-2;\n}\n`,
    value: (d, x) => (x >= 0 && x < d ? x * 3 : -2),
  },
  calls: {
    source: (d) =>
      `int g(int x) {\n  return x + 1;\n}\n\nint f(int x) {\n  return ${'g('.repeat(d)}x${')'.repeat(d)};\n}\n`,
    value: (d, x) => x + d,
  },
  straight: {
    source: (d) => `int f(int x) {\n${'  x = x * 3 + 1;\n'.repeat(d)}  return x;\n}\n`,
    value: (d, x) => {
      let v = x;
      for (let i = 0; i < d; i++) v = (Math.imul(v, 3) + 1) | 0;
      return v;
    },
  },
};

describe('kernels nested 10^4 deep', () => {
  for (const [name, shape] of Object.entries(SHAPES)) {
    if (name === 'straight') continue;
    it(`${name}: eval, opt, kernel and stage give K1014 at a position, exit 2`, async () => {
      const f = file(`${name}.c`, shape.source(10_000));
      for (const argv of [
        ['eval', f, '--function', 'f', '--args', '[1]'],
        ['opt', f, '--function', 'f'],
        ['kernel', f, '--function', 'f', '--emit', 'js'],
      ]) {
        const r = clean(await cli(...argv));
        expect(r.code).toBe(2);
        expect(r.err).toMatch(new RegExp(`^${f}:\\d+:\\d+: ${TOO_DEEP.source}$`));
      }
      const config = file(
        `${name}.json`,
        `{ "input": "${path.basename(f)}", "function": "f", "pipeline": ["dae"], "bind": {} }`,
      );
      const s = clean(await cli('stage', config, '--out', path.join(TMP, `never-${name}`)));
      expect(s.code).toBe(2);
      expect(s.err).toMatch(new RegExp(`^${f}:\\d+:\\d+: error K1014: nesting too deep`));
    }, 60_000);
  }

  it('the error points where the limit is passed: the 501st level', async () => {
    const f = file('where.c', `int f(int x) {\n  return ${'('.repeat(2000)}x${')'.repeat(2000)};\n}\n`);
    const r = clean(await cli('eval', f, '--args', '[1]'));
    // translation_unit (level 0) > function_definition > compound_statement > return_statement >
    // parentheses, each with its '(' token one level below: the 497th's '(' is level 501
    expect(r.err.split(':').slice(1, 3)).toEqual(['2', String('  return '.length + MAX_NESTING - 3)]);
  });

  it(`generated shapes on both sides of the limits: the right value, or K1014 (${RUNS} cases)`, async () => {
    const names = Object.keys(SHAPES);
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...names),
        fc.oneof(fc.integer({ min: 0, max: 1200 }), fc.integer({ min: 230, max: 520 })),
        fc.integer({ min: -3, max: 300 }),
        async (name, d, x) => {
          const shape = SHAPES[name] as (typeof SHAPES)[string];
          const f = file(`${name}-${d}.c`, shape.source(d));
          const want = shape.value(d, x);
          const r = clean(await cli('eval', f, '--function', 'f', '--args', `[${x}]`));
          if (r.code === 2) {
            expect(r.err).toMatch(TOO_DEEP);
            expect(d).toBeGreaterThan(MAX_NESTING / 4);
            return;
          }
          expect([r.code, r.out]).toEqual([0, `{"result":${want},"outputs":{}}`]);
          // optimized first, with x bound: the same value, or too long for the optimizers
          const o = clean(
            await cli(
              'eval',
              f,
              '--function',
              'f',
              '--bind',
              `x=${x}`,
              '--passes',
              'const-prop,copy-prop,dae',
            ),
          );
          if (o.code === 2) {
            expect(o.err).toMatch(TOO_LONG);
            expect(name === 'straight' || name === 'elseIfs' ? d : 0).toBeGreaterThan(MAX_TREE_DEPTH / 2);
          } else expect([o.code, o.out]).toEqual([0, `{"result":${want},"outputs":{}}`]);
          const js = clean(
            await cli('kernel', f, '--function', 'f', '--emit', 'js', '--run', '--args', `[${x}]`),
          );
          if (js.code === 2) expect(js.err).toMatch(TOO_LONG);
          else expect([js.code, js.out]).toEqual([0, `{"backend":"js","result":${want}}`]);
        },
      ),
      { numRuns: RUNS, seed: Number(process.env.SCF_HOSTILE_SEED ?? 17017) },
    );
  }, 600_000);
});

describe('long straight-line code', () => {
  it('10^5 statements: eval gives the value; opt, kernel and stage say where it is too long', async () => {
    const n = 100_000;
    const f = file('long.c', SHAPES.straight?.source(n) as string);
    const start = performance.now();
    const r = clean(await cli('eval', f, '--args', '[1]'));
    expect([r.code, r.out]).toEqual([0, `{"result":${SHAPES.straight?.value(n, 1)},"outputs":{}}`]);
    expect(performance.now() - start).toBeLessThan(60_000);
    for (const argv of [
      ['opt', f],
      ['kernel', f, '--emit', 'js'],
      ['eval', f, '--args', '[1]', '--passes', 'dae'],
    ]) {
      const o = clean(await cli(...argv));
      expect(o.code).toBe(2);
      // at the statement about MAX_TREE_DEPTH down the seq chain (line 1 is the header)
      expect(o.err).toMatch(new RegExp(`^${f}:(99\\d):\\d+: ${TOO_LONG.source}`));
    }
    const config = file(
      'long.json',
      `{ "input": "${path.basename(f)}", "function": "f", "pipeline": ["const-prop"], "bind": { "x": "'Int" } }`,
    );
    const s = clean(await cli('stage', config, '--out', path.join(TMP, 'never-long')));
    expect(s.code).toBe(2);
    expect(s.err).toMatch(/long\.c:99\d:\d+: error K1014: 'f' is too long or too deeply nested to stage/);
  }, 120_000);

  it('10^4 locals, or a call with 2,000 arguments: too long to optimize, exit 2; eval runs', async () => {
    const locals = file(
      'locals.c',
      `int f(int x) {\n${Array.from({ length: 10_000 }, (_, i) => `  int v${i} = x + ${i};\n`).join('')}  return v9999;\n}\n`,
    );
    expect(clean(await cli('eval', locals, '--args', '[1]')).out).toBe('{"result":10000,"outputs":{}}');
    expect(clean(await cli('opt', locals)).err).toMatch(TOO_LONG);
    const params = Array.from({ length: 2000 }, (_, i) => `int p${i}`).join(', ');
    const args = Array.from({ length: 2000 }, () => 'x').join(', ');
    const call = file(
      'args.c',
      `int g(${params}) {\n  return p0 + p1999;\n}\n\nint f(int x) {\n  return g(${args});\n}\n`,
    );
    expect(clean(await cli('eval', call, '--function', 'f', '--args', '[21]')).out).toBe(
      '{"result":42,"outputs":{}}',
    );
    expect(clean(await cli('opt', call, '--function', 'g')).err).toMatch(
      /'g' is too long or too deeply nested to optimize/,
    );
    expect(clean(await cli('kernel', call, '--function', 'f', '--emit', 'js')).err).toMatch(
      /'g' is too long or too deeply nested to compile/,
    );
  }, 120_000);

  it('just below the limit: 900 statements optimize, compile and run in a real process', () => {
    const f = file('900.c', SHAPES.straight?.source(900) as string);
    const want = SHAPES.straight?.value(900, 2);
    const o = clean(spawnScf([], 'eval', f, '--args', '[2]', '--passes', 'const-prop,copy-prop,dae,fusion'));
    expect([o.code, o.out.trim()]).toEqual([0, `{"result":${want},"outputs":{}}`]);
    const k = clean(
      spawnScf(
        [],
        'kernel',
        f,
        '--emit',
        'js',
        '--run',
        '--args',
        '[2]',
        '--passes',
        'const-prop,copy-prop,dae',
      ),
    );
    expect([k.code, k.out.trim()]).toEqual([0, `{"backend":"js","result":${want}}`]);
  }, 120_000);

  it('900 statements stage in a real process (the partial evaluator nests at most NEST_LIMIT deep) and the staged pipeline gives the unstaged result', () => {
    const body = Array.from({ length: 900 }, (_, i) => `  x = x + m * ${i % 7};`).join('\n');
    const f = file('long.c', `int long_seq(int n, int m) {\n  int x;\n  x = n;\n${body}\n  return x;\n}\n`);
    const config = wholePipeline('long.json', f, 'long_seq');
    const out = path.join(TMP, 'staged-long');
    const st = clean(spawnScf([], 'stage', config, '--out', out, '--json'));
    expect(st.code).toBe(0);
    const report = JSON.parse(st.out) as { passes: { stats: { deferred: number } }[] };
    expect(report.passes[0]?.stats.deferred).toBeGreaterThan(0);
    for (const m of ['3', '-2']) {
      const staged = clean(spawnScf([], 'opt', f, '--bind', `m=${m}`, '--staged', out));
      const unstaged = clean(spawnScf([], 'opt', f, '--bind', `m=${m}`));
      expect([staged.code, staged.err]).toEqual([0, '']);
      expect(staged.out).toBe(unstaged.out);
    }
  }, 180_000);
});

describe('SCF-lang nested past the raw-text limit (real processes: oxc-parser overflows the native stack on such text)', () => {
  const big = 100_000;
  const deep: Record<string, string> = {
    parens: `export function f(x: number): number {\n  return ${'('.repeat(20_000)}x${')'.repeat(20_000)};\n}\n`,
    nots: `export function f(x: boolean): boolean {\n  return ${'!'.repeat(big)}x;\n}\n`,
    sum: `export function f(x: number): number {\n  return x${' + x'.repeat(big)};\n}\n`,
    ternaries: `export function f(x: number): number {\n  return ${Array.from({ length: big / 10 }, (_, i) => `x === ${i} ? ${i} : `).join('')}0;\n}\n`,
    elseIfs: `export function f(x: number): number {\n${Array.from({ length: big / 10 }, (_, i) => `  if (x === ${i}) return ${i};\n  else `).join('')}return 0;\n}\n`,
    consts: `export function f(x: number): number {\n${Array.from({ length: big / 10 }, (_, i) => `  const a${i} = x + ${i};\n`).join('')}  return x;\n}\n`,
    calls: `function g(x: number): number {\n  return x;\n}\nexport function f(x: number): number {\n  return ${'g('.repeat(20_000)}x${')'.repeat(20_000)};\n}\n`,
    arrays: `export function f(x: number): number {\n  return ${'[('.repeat(20_000)}x${')]'.repeat(20_000)};\n}\n`,
    template: `export function f(x: string): string {\n  return ${'`${'.repeat(20_000)}x${'}`'.repeat(20_000)};\n}\n`,
  };
  for (const [name, source] of Object.entries(deep)) {
    it(`${name}: scf check is SCF1006 at a position, exit 1; as a pass, exit 2`, () => {
      const f = file(`${name}.ts`, source);
      const r = clean(spawnScf([], 'check', f));
      expect(r.code).toBe(1);
      expect(r.err).toMatch(
        new RegExp(
          `^\\S*${name}\\.ts:\\d+:\\d+: error SCF1006: nesting too deep \\(limit ${MAX_SCF_NESTING}\\)`,
        ),
      );
      // the code frame shows a window of the line, not all of it
      expect(Math.max(...r.err.split('\n').map((l) => l.length))).toBeLessThan(400);
      const k = file('k.c', 'int f(int x) {\n  return x;\n}\n');
      const p = clean(spawnScf([], 'opt', k, '--passes', f));
      expect(p.code).toBe(2);
      expect(p.err).toMatch(/not a valid SCF-lang optimizer\n.*error SCF1006: nesting too deep/);
    }, 120_000);
  }

  it('just below the limit the front end, a user pass and the stager run', () => {
    const n = Math.floor(MAX_SCF_NESTING / 2) - 10; // two units per operator
    const pass = file(
      'near.ts',
      `import type { Fun } from 'scf/kernel';\nexport function optimize(f: Fun): Fun {\n  return f.lbl${' + f.lbl'.repeat(n)} >= 0 ? f : f;\n}\n`,
    );
    expect(clean(spawnScf([], 'check', '--core', pass)).code).toBe(0);
    const k = file('near.c', 'int f(int x) {\n  return x + 1;\n}\n');
    const o = clean(spawnScf([], 'opt', k, '--passes', pass));
    expect([o.code, o.out.trim()]).toEqual([0, 'int f(int x) {\n  return x + 1;\n}']);
    const config = file(
      'near.json',
      `{ "input": "${path.basename(k)}", "function": "f", "pipeline": ["./${path.basename(pass)}"], "bind": { "x": "0|1" } }`,
    );
    expect(clean(spawnScf([], 'stage', config, '--out', path.join(TMP, 'near-out'), '--quiet')).code).toBe(0);
  }, 180_000);
});

describe('growth', () => {
  const nest = (trips: number, depth: number): string => {
    const vars = ['i', 'j', 'k', 'l', 'm'].slice(0, depth);
    return `int f(int x) {\n  int s = x;\n${vars.map((v) => `for (int ${v} = 0; ${v} < ${trips}; ${v}++)\n`).join('')}s = s + 1;\n  return s;\n}\n`;
  };

  for (const [trips, depth] of [
    [8, 4],
    [16, 3],
    [64, 4],
    [65, 4],
    [64, 5],
    [512, 3],
  ] as const) {
    it(`${depth} nested ${trips}-trip loops: scf opt within the unrolling budget, under a 1 GB heap, same result`, () => {
      const f = file(`nest-${trips}-${depth}.c`, nest(trips, depth));
      const o = clean(spawnScf(['--max-old-space-size=1024'], 'opt', f));
      expect(o.code).toBe(0);
      expect(o.ms).toBeLessThan(60_000);
      const optimized = file('optimized.c', o.out);
      const want = 7 + trips ** depth;
      if (trips ** depth < 1e6) {
        const e = clean(spawnScf([], 'eval', optimized, '--args', '[7]'));
        expect([e.code, e.out.trim()]).toEqual([0, `{"result":${want},"outputs":{}}`]);
      }
    }, 120_000);
  }

  it('20 nested loops: staging DAE stops within its static-work budget (the optimizer run concretely is exponential in the nesting)', () => {
    const vars = Array.from({ length: 20 }, (_, i) => `i${i}`);
    const f = file(
      'nest20.c',
      `int f(int n, int m) {\n  int x = n;\n${vars.map((v) => `for (int ${v} = 0; ${v} < 2; ${v}++)\n`).join('')}x = x + m;\n  return x;\n}\n`,
    );
    const config = file(
      'nest20.json',
      JSON.stringify({ input: f, function: 'f', pipeline: ['dae'], bind: { m: "'Int" } }),
    );
    const st = clean(spawnScf([], 'stage', config, '--out', path.join(TMP, 'staged-nest20'), '--json'));
    expect(st.code).toBe(0);
    const report = JSON.parse(st.out) as { passes: { stop: string; stats: { staticWork: number } }[] };
    const work = report.passes[0]?.stats.staticWork ?? 0;
    // the budget is checked before each static call, which is bounded by staticCallSteps itself
    expect(work).toBeGreaterThanOrEqual(STATIC_WORK);
    expect(work).toBeLessThan(STATIC_WORK + 4_000_000);
    expect(report.passes[0]?.stop).toBe('fuel');
  }, 120_000);

  it('30 nested loops, whole pipeline: staging writes small descriptions (a shared value prints as a tree only up to PRINT_NODES)', () => {
    const vars = Array.from({ length: 30 }, (_, i) => `i${i}`);
    const f = file(
      'nest30.c',
      `int f(int n, int m) {\n  int x = n;\n${vars.map((v) => `for (int ${v} = 0; ${v} < 2; ${v}++)\n`).join('')}x = x + m;\n  return x;\n}\n`,
    );
    const config = wholePipeline('nest30.json', f, 'f');
    const out = path.join(TMP, 'staged-nest30');
    // before the bound: 90 MB of descriptions for 20 loops, almost 5 minutes and 3 GB for 30
    const st = clean(spawnScf(['--max-old-space-size=1024'], 'stage', config, '--out', out, '-q'));
    expect(st.code).toBe(0);
    const text = readFileSync(path.join(out, 'f.abstract.txt'), 'utf8');
    expect(text.length).toBeLessThan(5_000_000);
    expect(text).toContain(`prints as more than ${PRINT_NODES} nodes`);
  }, 120_000);

  it('a single 64-trip loop is still unrolled completely', async () => {
    const f = file('one.c', nest(64, 1));
    const o = clean(await cli('opt', f, '--passes', 'const-prop'));
    expect(o.code).toBe(0);
    expect(o.out).not.toContain('for (');
    expect(o.out.match(/s\+\+;/g)?.length).toBe(64);
  });

  it('30,000 one-line functions: eval and opt take seconds (the parser was quadratic in them)', async () => {
    const n = 30_000;
    const source = `${Array.from({ length: n }, (_, i) => `int g${i}(int x) {\n  return x + ${i};\n}\n`).join('')}int f(int x) {\n  return g${n - 1}(x) + g0(x);\n}\n`;
    const f = file('many.c', source);
    let start = performance.now();
    const r = clean(await cli('eval', f, '--function', 'f', '--args', '[1]'));
    expect([r.code, r.out]).toEqual([0, `{"result":${n + 1},"outputs":{}}`]);
    expect(performance.now() - start).toBeLessThan(30_000);
    start = performance.now();
    const o = clean(await cli('opt', f, '--function', 'f', '--bind', 'x=1'));
    expect(o.code).toBe(0);
    expect(performance.now() - start).toBeLessThan(30_000);
  }, 120_000);
});
