/**
 * Hostile passes of a user's: a pass is the user's code run inside scf, so how it fails is the
 * user's to hear — exit 2 and a message naming the pass, never an internal error (exit 3).
 *
 * - Bounds (src/optimizers/user.ts): a recursion without end, and a recursion 100,000 calls deep
 *   (a count written as recursion, its call not in tail position), exhaust the JavaScript stack; an
 *   exponential one, and a loop without end written as a tail call (which the emitter makes a loop),
 *   spend their fuel (SCF_PASS_FUEL, made small here so that they stop at once); a tail-recursive
 *   count 100,000 deep runs. Through `scf opt`,
 *   `scf kernel`, the staged pipeline's `scf opt --staged`, and staging itself (run in a process
 *   with a small stack, so that the partial evaluator is the one to exhaust it).
 * - The pass contract (src/scf-lang/contract.ts): an `optimize` whose signature is not
 *   `(f: Fun) => Fun` or `(f: Fun, formals: List<LatticeVal>) => Fun` is SCF3017 at FILE:LINE:COL
 *   for `scf check` (exit 1, as every other diagnostic), and refused by `scf opt` and `scf stage`
 *   (exit 2); a result that is no `Fun` at run time is a user error too.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Fun } from '../../src/kernel/index.js';
import { DEFAULT_PASS_FUEL, loadUserPass, PassError } from '../../src/optimizers/index.js';
import { importStub } from '../../src/pipeline/index.js';
import { cli } from '../cli/helpers.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const BIN = path.join(ROOT, 'bin/scf.js');
const TMP = mkdtempSync(path.join(tmpdir(), 'scf-hostile-passes-'));
afterAll(() => rmSync(TMP, { recursive: true, force: true }));

function file(name: string, source: string): string {
  const f = path.join(TMP, name);
  writeFileSync(f, source);
  return f;
}

type Run = { code: number; out: string; err: string };

/** Never an internal error, never a stack trace. */
function clean(r: Run): Run {
  expect(r.err).not.toMatch(/internal error|\n\s+at \S+ \(|RangeError|TypeError|Maximum call stack/);
  expect(r.code).not.toBe(3);
  return r;
}

const KERNEL = file('k.c', 'int f(int x, int a) {\n  int y;\n  y = x + a;\n  return y;\n}\n');

/** A pass whose result depends on `test(f)`: it keeps `f` when the test is 0, else relabels it. */
function pass(name: string, helpers: string, test: string): string {
  return file(
    name,
    `import type { Fun } from 'scf/kernel';

${helpers}

export function optimize(f: Fun): Fun {
  if (${test} === 0) return f;
  return { kind: 'fun', name: f.name, ret: f.ret, params: f.params, locals: f.locals, body: f.body, fns: f.fns, lbl: f.lbl + 1 };
}
`,
  );
}

const FOREVER = pass(
  'forever.ts',
  'function spin(n: number): number {\n  return 1 + spin(n + 1);\n}',
  'spin(f.lbl)',
);
const DEEP = pass(
  'deep.ts',
  'function count(n: number): number {\n  if (n === 0) return 0;\n  return 1 + count(n - 1);\n}',
  'count(100000 + f.lbl)',
);
/** DEEP with its call in tail position: a loop, in constant stack. */
const DEEP_TAIL = pass(
  'deep-tail.ts',
  'function count(n: number, acc: number): number {\n  if (n === 0) return acc;\n  return count(n - 1, acc + 1);\n}',
  '(count(100000 + f.lbl, 0) - 100000 - f.lbl)',
);
/** A loop without end as a tail call: it spends its fuel rather than the stack. */
const SPIN_TAIL = pass(
  'spin-tail.ts',
  'function spin(n: number): number {\n  return spin(n + 1);\n}',
  'spin(f.lbl)',
);
/**
 * DEEP once a formal is known: with nothing known (the run before staging, without a sample) it
 * returns `f`, so the pass stages, and its staged version recurses for known values.
 */
const DEEP_LATE = file(
  'deep-late.ts',
  `import type { Fun, LatticeVal } from 'scf/kernel';
import type { List } from 'scf/prelude';

function count(n: number): number {
  if (n === 0) return 0;
  return 1 + count(n - 1);
}

function known(fs: List<LatticeVal>): boolean {
  return fs.kind === 'cons' && (fs.head.kind === 'const' || known(fs.tail));
}

export function optimize(f: Fun, formals: List<LatticeVal>): Fun {
  if (!known(formals) || count(100000 + f.lbl) === 0) return f;
  return { ...f, lbl: f.lbl + 1 };
}
`,
);
const EXPONENTIAL = pass(
  'fib.ts',
  'function fib(n: number): number {\n  if (n < 2) return n;\n  return fib(n - 1) + fib(n - 2);\n}',
  'fib(60 + f.lbl)',
);

function config(name: string, passFile: string): string {
  return file(
    name,
    JSON.stringify({
      input: './k.c',
      function: 'f',
      pipeline: [`./${path.basename(passFile)}`, 'dae'],
      bind: { a: "'Int" },
    }),
  );
}

const rel = (f: string): string => path.relative(process.cwd(), f);

describe("a user's pass runs with bounds", () => {
  it('a recursion without end: scf opt and scf kernel say the pass recursed too deeply, exit 2', async () => {
    for (const cmd of [
      ['opt', KERNEL, '--passes', FOREVER],
      ['kernel', KERNEL, '--passes', FOREVER, '--emit', 'js'],
    ]) {
      const r = clean(await cli(...cmd));
      expect(r.code).toBe(2);
      expect(r.err).toBe(
        `scf ${cmd[0]}: pass '${rel(FOREVER)}' recursed deeper than the JavaScript stack allows (some thousands of nested calls): a recursion without end, or one call deep per step of a long count or list; recurse over the kernel's tree, whose depth scf bounds`,
      );
    }
  });

  it('a recursion 100,000 calls deep is the same user error', async () => {
    const r = clean(await cli('opt', KERNEL, '--passes', `${DEEP},dae`));
    expect(r.code).toBe(2);
    expect(r.err).toMatch(
      new RegExp(`^scf opt: pass '${rel(DEEP)}' recursed deeper than the JavaScript stack`),
    );
  });

  it('an exponential recursion runs out of fuel (SCF_PASS_FUEL), in work, and says so', async () => {
    const saved = process.env.SCF_PASS_FUEL;
    try {
      process.env.SCF_PASS_FUEL = '100000';
      const start = performance.now();
      const r = clean(await cli('opt', KERNEL, '--passes', EXPONENTIAL));
      expect(performance.now() - start).toBeLessThan(5000);
      expect(r.code).toBe(2);
      expect(r.err).toBe(
        `scf opt: pass '${rel(EXPONENTIAL)}' did not terminate within 100000 calls of fuel (SCF_PASS_FUEL, default ${DEFAULT_PASS_FUEL}, sets how many a run may make)`,
      );
      process.env.SCF_PASS_FUEL = 'lots';
      const bad = clean(await cli('opt', KERNEL, '--passes', EXPONENTIAL));
      expect([bad.code, bad.err]).toEqual([
        2,
        "scf opt: SCF_PASS_FUEL must be a positive integer (calls a pass may make), not 'lots'",
      ]);
    } finally {
      if (saved === undefined) delete process.env.SCF_PASS_FUEL;
      else process.env.SCF_PASS_FUEL = saved;
    }
  });

  it('a tail-recursive count 100,000 deep runs as a loop; one without end spends its fuel', async () => {
    const r = clean(await cli('opt', KERNEL, '--passes', `${DEEP_TAIL},dae`));
    expect([r.code, r.out]).toEqual([0, 'int f(int x, int a) {\n  int y;\n  y = x + a;\n  return y;\n}']);
    const saved = process.env.SCF_PASS_FUEL;
    try {
      process.env.SCF_PASS_FUEL = '100000';
      const spin = clean(await cli('opt', KERNEL, '--passes', SPIN_TAIL));
      expect([spin.code, spin.err]).toEqual([
        2,
        `scf opt: pass '${rel(SPIN_TAIL)}' did not terminate within 100000 calls of fuel (SCF_PASS_FUEL, default ${DEFAULT_PASS_FUEL}, sets how many a run may make)`,
      ]);
      // each round of the loop is a call of fuel: the count's 100,001 rounds do not fit in 100,000
      const short = clean(await cli('opt', KERNEL, '--passes', `${DEEP_TAIL},dae`));
      expect(short.code).toBe(2);
      expect(short.err).toMatch(/did not terminate within 100000 calls of fuel/);
    } finally {
      if (saved === undefined) delete process.env.SCF_PASS_FUEL;
      else process.env.SCF_PASS_FUEL = saved;
    }
  });

  it('the fuel is generous: a terminating pass that makes many calls runs', async () => {
    const busy = pass(
      'busy.ts',
      'function fib(n: number): number {\n  if (n < 2) return n;\n  return fib(n - 1) + fib(n - 2);\n}',
      '(fib(20) - 6765) * f.lbl',
    );
    const r = clean(await cli('opt', KERNEL, '--passes', busy));
    expect([r.code, r.out]).toEqual([0, 'int f(int x, int a) {\n  int y;\n  y = x + a;\n  return y;\n}']);
  });

  it('a result that is no Fun is a PassError naming the pass', () => {
    const id = loadUserPass(
      file(
        'id.ts',
        "import type { Fun } from 'scf/kernel';\nexport function optimize(f: Fun): Fun {\n  return f;\n}\n",
      ),
    );
    const notFun = { kind: 'seq' } as unknown as Fun;
    expect(() => id.run(notFun, { formals: [] })).toThrow(PassError);
    expect(() => id.run(notFun, { formals: [] })).toThrow(
      `pass '${rel(path.join(TMP, 'id.ts'))}' returned a value of kind 'seq', not a Fun`,
    );
  });

  it("the staged pipeline keeps the pass's deep recursion: scf opt --staged names the pass, exit 2", async () => {
    const out = path.join(TMP, 'deep-out');
    const s = clean(await cli('stage', config('deep-late.json', DEEP_LATE), '--out', out, '--quiet'));
    expect(s.code, s.err).toBe(0);
    const r = clean(await cli('opt', KERNEL, '--staged', out, '--bind', 'a=1'));
    expect(r.code).toBe(2);
    expect(r.err).toMatch(
      /^scf opt: pass 'deep-late' \(staged\) recursed deeper than the JavaScript stack allows/,
    );
  });

  it('a pass that cannot run on the kernel is refused before staging, at its pipeline entry, exit 2', async () => {
    const cfg = config('deep.json', DEEP);
    const out = path.join(TMP, 'deep-refused');
    const s = clean(await cli('stage', cfg, '--out', out, '--quiet'));
    expect(s.code).toBe(2);
    expect(s.err).toMatch(
      new RegExp(
        `^${reEscape(cfg)}:1:\\d+: error C1007: pass '[^']*deep\\.ts' recursed deeper than the JavaScript stack allows`,
      ),
    );
    expect(s.err).toContain(
      '(the pipeline run once, unstaged, on the kernel with nothing known before staging; nothing was staged)',
    );
    expect(existsSync(path.join(out, 'f.stub.mjs'))).toBe(false);
  });

  it('a pass relying on a bound formal being known still stages without a sample: the stub always knows it', async () => {
    // with 'a' unknown it recurses without end; the stub and `scf opt --bind` always give 'a'
    file(
      'needs-a.ts',
      `import type { Cmd, Fun, LatticeVal } from 'scf/kernel';
import type { List } from 'scf/prelude';

function valueOfA(fs: List<LatticeVal>): number {
  if (fs.kind !== 'cons' || fs.tail.kind !== 'cons') return -1;
  const a = fs.tail.head;
  return a.kind === 'const' ? a.value : -1;
}

function rep(c: Cmd, n: number): Cmd {
  return n === 1 ? c : { kind: 'seq', first: c, second: rep(c, n - 1), lbl: 1000 + n };
}

export function optimize(f: Fun, formals: List<LatticeVal>): Fun {
  const n = valueOfA(formals);
  return n === 0 ? f : { ...f, body: rep(f.body, n) };
}
`,
    );
    const cfg = file(
      'needs-a.json',
      JSON.stringify({
        input: './k.c',
        function: 'f',
        pipeline: ['./needs-a.ts', 'dae'],
        bind: { a: '0|1' },
      }),
    );
    const out = path.join(TMP, 'needs-a-out');
    const s = clean(await cli('stage', cfg, '--out', out, '--quiet'));
    expect(s.code, s.err).toBe(0);
    const r = clean(await cli('opt', KERNEL, '--staged', out, '--bind', 'a=1'));
    expect(r.code, r.err).toBe(0);
    // nothing bound: nothing known is what the stub gives it, so the run before staging refuses it
    const generic = file(
      'needs-a-generic.json',
      JSON.stringify({ input: './k.c', function: 'f', pipeline: ['./needs-a.ts', 'dae'] }),
    );
    const g = clean(await cli('stage', generic, '--out', path.join(TMP, 'needs-a-generic'), '--quiet'));
    expect(g.code, g.err).toBe(2);
    expect(g.err).toMatch(
      /needs-a-generic\.json:1:\d+: error C1007: pass '[^']*needs-a\.ts' recursed deeper/,
    );
  });

  it("a config's bind and sample are checked before the run before staging: errors at their entries, exit 2", async () => {
    for (const [name, extra, where] of [
      ['bind-zz.json', { bind: { zz: "'Int" }, sample: { zz: 1 } }, "D1003: 'f' has no parameter 'zz'"],
      [
        'sample-array.json',
        { bind: { a: "'Int" }, sample: { a: [1, 2] } },
        "C1009: parameter 'a' is a scalar int",
      ],
      [
        'sample-outside.json',
        { bind: { a: '0|1' }, sample: { a: 2 } },
        "C1009: the stage-2 value of 'a' is not admitted",
      ],
    ] as const) {
      const cfg = file(
        name,
        JSON.stringify({ input: './k.c', function: 'f', pipeline: ['./deep.ts', 'dae'], ...extra }),
      );
      const r = clean(await cli('stage', cfg, '--out', path.join(TMP, `${name}-out`), '--quiet'));
      expect(r.code, r.err).toBe(2);
      expect(r.err).toMatch(new RegExp(`^${reEscape(cfg)}:1:\\d+: error ${reEscape(where)}`));
    }
  });

  it('staging a pass whose partial evaluation exhausts the stack is an error at its pipeline entry, exit 2', () => {
    // A small stack (in KiB), so the partial evaluator exhausts it following the deep recursion;
    // the first size at which staging gets that far decides (smaller ones stop earlier, in scf).
    const cfg = config('deep-stage.json', DEEP_LATE);
    const tried: string[] = [];
    for (const kib of [100, 120, 90, 150, 80]) {
      const r = spawnSync(
        process.execPath,
        [`--stack-size=${kib}`, BIN, 'stage', cfg, '--out', path.join(TMP, `s${kib}`), '-q'],
        {
          encoding: 'utf8',
          timeout: 120_000,
        },
      );
      tried.push(`${kib}: exit ${r.status}: ${r.stderr.split('\n').slice(-3).join(' | ')}`);
      if (r.status !== 2) continue;
      expect(r.stderr).toContain(`${cfg}:1:`);
      expect(r.stderr).toMatch(
        /error C1007: staging pass '\.\/deep-late\.ts' exhausted the JavaScript stack: the partial evaluator followed its recursion too deep/,
      );
      expect(r.stderr).not.toMatch(/internal error|RangeError/);
      return;
    }
    expect.fail(`no stack size reached the partial evaluator:\n${tried.join('\n')}`);
  }, 300_000);
});

describe('an optimize that breaks the pass contract', () => {
  const bad: Record<string, [string, string]> = {
    'takes a number': [
      'export function optimize(f: number): Fun {\n  return optimize(f);\n}',
      "its first parameter 'f' is 'number', not Fun",
    ],
    'returns a number': [
      'export function optimize(f: Fun): number {\n  return f.lbl;\n}',
      "it returns 'number', not Fun",
    ],
    'takes three': [
      'export function optimize(f: Fun, x: Fun, y: number): Fun {\n  return y > 0 ? x : f;\n}',
      'it takes 3 parameters',
    ],
    'takes none': ['export function optimize(): Fun {\n  return optimize();\n}', 'it takes 0 parameters'],
    'takes other formals': [
      'export function optimize(f: Fun, formals: List<number>): Fun {\n  return f;\n}',
      "its second parameter 'formals' is 'List<number>', not List<LatticeVal>",
    ],
  };
  let n = 0;
  for (const [what, [source, why]] of Object.entries(bad)) {
    it(`${what}: scf check is SCF3017 at FILE:LINE:COL (exit 1); scf opt and scf stage refuse it (exit 2)`, async () => {
      const name = `bad${n++}.ts`;
      const f = file(
        name,
        `import type { Fun } from 'scf/kernel';\nimport type { List } from 'scf/prelude';\n\n${source}\n`,
      );
      const c = clean(await cli('check', '--no-frame', f));
      expect(c.code).toBe(1);
      expect(c.err).toMatch(
        new RegExp(
          `^${reEscape(rel(f))}:4:\\d+: error SCF3017: 'optimize' does not have the signature of a pass: ${reEscape(why)} \\(a pass is optimize\\(f: Fun\\): Fun, or optimize\\(f: Fun, formals: List<LatticeVal>\\): Fun\\)$`,
          'm',
        ),
      );
      const o = clean(await cli('opt', KERNEL, '--passes', f));
      expect(o.code).toBe(2);
      expect(o.err).toContain(`scf opt: ${rel(f)}: not a valid SCF-lang optimizer`);
      expect(o.err).toContain('error SCF3017');
      const s = clean(await cli('stage', config(`${name}.json`, f), '--out', path.join(TMP, `${name}-out`)));
      expect(s.code).toBe(2);
      expect(s.err).toMatch(/error C1007: .*not a valid SCF-lang optimizer/);
      // the pass's diagnostics name it from the working directory, as the command line does
      expect(s.err).toContain(`\n${rel(f)}:4:`);
      expect(s.err).toContain('error SCF3017');
    });
  }

  it('both forms of the contract check, and a module that is no pass is not held to it', async () => {
    const one = file(
      'one.ts',
      "import type { Fun } from 'scf/kernel';\nexport function optimize(f: Fun): Fun {\n  return f;\n}\n",
    );
    const two = file(
      'two.ts',
      "import type { Fun, LatticeVal } from 'scf/kernel';\nimport type { List } from 'scf/prelude';\nexport function optimize(f: Fun, formals: List<LatticeVal>): Fun {\n  return f;\n}\n",
    );
    const helper = file('helper.ts', 'export function optimize(x: number): number {\n  return x + 1;\n}\n');
    for (const f of [one, two, helper]) expect(clean(await cli('check', f)).code).toBe(0);
    const o = clean(await cli('opt', KERNEL, '--passes', `${two},${one}`, '--bind', 'a=2'));
    expect(o.code).toBe(0);
    // run as a pass, the module that does not use the kernel AST is held to the contract after all
    const h = clean(await cli('opt', KERNEL, '--passes', helper));
    expect(h.code).toBe(2);
    expect(h.err).toContain(
      "error SCF3017: 'optimize' does not have the signature of a pass: its first parameter 'x' is 'number', not Fun",
    );
  });
});

function reEscape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

describe("a pass whose output breaks the kernel AST's invariants", () => {
  const DUP = file(
    'dup.ts',
    `import type { Fun } from 'scf/kernel';

export function optimize(f: Fun): Fun {
  return {
    kind: 'fun', name: f.name, ret: f.ret, params: f.params, locals: f.locals,
    body: { kind: 'seq', first: f.body, second: f.body, lbl: f.lbl },
    fns: f.fns, lbl: f.lbl,
  };
}
`,
  );

  it("is the user's error (exit 1) naming the pass, the function, the invariant and the node's place", async () => {
    for (const argv of [
      ['opt', KERNEL, '--passes', DUP],
      ['eval', KERNEL, '--passes', DUP, '--args', '[1,2]'],
      ['kernel', KERNEL, '--passes', DUP, '--emit', 'js'],
    ]) {
      const r = clean(await cli(...argv));
      expect(r.code, r.err).toBe(1);
      expect(r.err).toMatch(/pass 'dup' returned a function 'f' that breaks the kernel AST's invariants/);
      // the body put twice: one labelled node at two places, with its place in the source
      expect(r.err).toMatch(
        /label: a node \(label \d+\) stands at two places.* \(at label \d+, .*k\.c:\d+:\d+\)/,
      );
    }
  });

  it('under scf bench --dir too: exit 1, naming the pass', async () => {
    const dir = path.join(TMP, 'bench-dup');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      path.join(dir, 'dup.json'),
      JSON.stringify({
        input: KERNEL,
        function: 'f',
        pipeline: ['const-prop', DUP],
        bind: { a: "'Int" },
        sample: { a: 2 },
        args: { x: 1 },
      }),
    );
    const r = clean(await cli('bench', '--dir', dir, '--budget', '20'));
    expect(r.code, r.err).toBe(1);
    expect(r.err).toMatch(/pass 'dup' returned a function 'f' that breaks the kernel AST's invariants/);
  }, 60_000);

  it('scf stage refuses it before staging: exit 1 at its pipeline entry, naming the pass, nothing written', async () => {
    const cfg = config('dup.json', DUP);
    const out = path.join(TMP, 'dup-refused');
    const r = clean(await cli('stage', cfg, '--out', out, '--quiet'));
    expect(r.code, r.err).toBe(1);
    expect(r.err).toMatch(
      new RegExp(
        `^${reEscape(cfg)}:1:\\d+: error C1007: pass 'dup' returned a function 'f' that breaks the kernel AST's invariants`,
      ),
    );
    expect(r.err).toContain('nothing was staged');
    expect(existsSync(path.join(out, 'f.stub.mjs'))).toBe(false);
  });

  it('built-in passes are checked too under --check, and pass', async () => {
    const r = clean(await cli('opt', KERNEL, '--check', '--bind', 'a=0'));
    expect(r.code, r.err).toBe(0);
  });
});

describe('pass sources and outputs of unusual shapes', () => {
  it('a pass returning a function nested deeper than the tools walk: exit 1, naming the pass', async () => {
    const deep = file(
      'deep-out.ts',
      `import type { Cmd, Fun } from 'scf/kernel';

function wrap(c: Cmd, n: number): Cmd {
  return n === 0 ? c : wrap({ kind: 'seq', first: c, second: { kind: 'skip', lbl: 0 }, lbl: 0 }, n - 1);
}

export function optimize(f: Fun): Fun {
  return { kind: 'fun', name: f.name, ret: f.ret, params: f.params, locals: f.locals, body: wrap(f.body, 5000), fns: f.fns, lbl: f.lbl };
}
`,
    );
    const r = clean(await cli('opt', KERNEL, '--passes', deep));
    expect(r.code, r.err).toBe(1);
    expect(r.err).toMatch(
      /pass 'deep-out' returned a function 'f' .*\n {2}shape: the function nests more than 1000 levels deep/,
    );
  });

  it('a module that imports a name from itself: positioned diagnostics, not a stack overflow', async () => {
    const self = file(
      'self-import.ts',
      "import type { Fun } from 'scf/kernel';\nimport { q } from './self-import.js';\nexport function optimize(f: Fun): Fun {\n  return q ? f : f;\n}\n",
    );
    const r = clean(await cli('check', self, '--no-frame'));
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/self-import\.ts:2:10: error SCF1005: 'q' is not exported by that module/);
  });

  it('a chain of 3,000 modules, each importing the next: one diagnostic, not a stack overflow', async () => {
    for (let i = 0; i < 3000; i++)
      file(
        `m${i}.ts`,
        i < 2999
          ? `import type { Fun } from 'scf/kernel';\nimport { g${i + 1} } from './m${i + 1}.js';\nexport function g${i}(f: Fun): Fun {\n  return g${i + 1}(f);\n}\n`
          : `import type { Fun } from 'scf/kernel';\nexport function g${i}(f: Fun): Fun {\n  return f;\n}\n`,
      );
    const chain = file(
      'module-chain.ts',
      "import type { Fun } from 'scf/kernel';\nimport { g0 } from './m0.js';\nexport function optimize(f: Fun): Fun {\n  return g0(f);\n}\n",
    );
    const r = clean(await cli('check', chain, '--no-frame'));
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/error SCF1007: imports nest more than 200 modules deep/);
    const o = clean(await cli('opt', KERNEL, '--passes', chain));
    expect(o.code).toBe(2);
  }, 60_000);

  it('a pass of 20,000 functions loads and runs (the emitter is linear in them)', async () => {
    const n = 20_000;
    const chain = file(
      'chain.ts',
      `import type { Fun } from 'scf/kernel';\n${Array.from({ length: n }, (_, i) => `function f${i}(f: Fun, d: number): Fun {\n  return d === 0 ? f : ${i === 0 ? 'f' : `f${i - 1}(f, d - 1)`};\n}\n`).join('')}export function optimize(f: Fun): Fun {\n  return f${n - 1}(f, 100);\n}\n`,
    );
    const r = clean(await cli('opt', KERNEL, '--passes', chain));
    expect(r.code, r.err).toBe(0);
  }, 60_000);
});

describe('a pass that recurses without end', () => {
  it('under scf bench: the pass is named at its pipeline entry before staging, exit 2', async () => {
    const down = file(
      'down.ts',
      `import type { Cmd, Fun } from 'scf/kernel';

function down(c: Cmd, n: number): Cmd {
  return { kind: 'seq', first: down(c, n + 1), second: c, lbl: n };
}

export function optimize(f: Fun): Fun {
  return { kind: 'fun', name: f.name, ret: f.ret, params: f.params, locals: f.locals, body: down(f.body, 1000), fns: f.fns, lbl: f.lbl };
}
`,
    );
    const dir = path.join(TMP, 'bench-down');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      path.join(dir, 'down.json'),
      JSON.stringify({
        input: KERNEL,
        function: 'f',
        pipeline: ['const-prop', down],
        bind: { a: "'Int" },
        sample: { a: 2 },
      }),
    );
    const r = clean(await cli('bench', '--dir', dir, '--budget', '20'));
    expect(r.code, r.err).toBe(2);
    expect(r.err).toMatch(
      /down\.json:1:\d+: error C1007: pass '[^']*down\.ts' recursed deeper than the JavaScript stack allows/,
    );
    expect(r.err).toContain("on the config's sample before staging; nothing was staged");
  }, 60_000);
});

describe('outputs that are no kernel function', () => {
  const output = (name: string, body: string, helpers = '') =>
    file(
      `${name}.ts`,
      `import type { Cmd, Fun } from 'scf/kernel';
${helpers}
export function optimize(f: Fun): Fun {
  return { kind: 'fun', name: f.name, ret: f.ret, params: f.params, locals: f.locals, body: ${body}, fns: f.fns, lbl: f.lbl };
}
`,
    );

  it.each([
    [
      'dag',
      'dup(f.body, 60)',
      "function dup(c: Cmd, n: number): Cmd {\n  return n === 0 ? c : dup({ kind: 'seq', first: c, second: c, lbl: n }, n - 1);\n}\n",
      /stands at two places/,
    ],
    [
      'undeclared',
      "{ kind: 'seq', first: { kind: 'assign', name: 'zz', rhs: { kind: 'intLit', value: 1, lbl: 900 }, lbl: 901 }, second: f.body, lbl: 902 }",
      '',
      /'zz' is assigned but is no parameter or local/,
    ],
    [
      'undeclared-read',
      "{ kind: 'seq', first: { kind: 'assign', name: 'y', rhs: { kind: 'var', name: 'ghost', ty: 'int', lbl: 900 }, lbl: 901 }, second: f.body, lbl: 902 }",
      '',
      /'ghost' is read but is no parameter or local/,
    ],
    [
      'no-array',
      "{ kind: 'seq', first: { kind: 'assign', name: 'y', rhs: { kind: 'load', array: 'nope', index: { kind: 'intLit', value: 0, lbl: 900 }, ty: 'int', lbl: 903 }, lbl: 901 }, second: f.body, lbl: 902 }",
      '',
      /'nope' is loaded from but is no array/,
    ],
    [
      'bad-name',
      "{ kind: 'seq', first: { kind: 'assign', name: 'x; #include </etc/passwd>', rhs: { kind: 'intLit', value: 1, lbl: 900 }, lbl: 901 }, second: f.body, lbl: 902 }",
      '',
      /assign\.name 'x; #include <\/etc\/passwd>' is not an identifier/,
    ],
  ] as const)(
    '%s: exit 1 at once, naming the pass, under opt, eval and kernel',
    async (name, body, helpers, why) => {
      const pass = output(name, body, helpers);
      for (const argv of [
        ['opt', KERNEL, '--passes', pass],
        ['eval', KERNEL, '--passes', pass, '--args', '[1,2]'],
        ['kernel', KERNEL, '--passes', pass, '--emit', 'js', '--run', '--args', '[1,2]'],
      ]) {
        const r = clean(await cli(...argv));
        expect(r.code, `${argv[0]} ${r.err}`).toBe(1);
        expect(r.err).toMatch(new RegExp(`pass '${name}' returned a function 'f'`));
        expect(r.err).toMatch(why);
      }
    },
  );
});

describe('staging a pass that returns one node at several places (a DAG)', () => {
  it('stages in bounded time and memory (the node budget), and its stub reports the pass at run time', async () => {
    const dag = file(
      'dag-stage.ts',
      // the DAG once a formal is known: the run before staging (nothing known) returns the kernel as it is
      "import type { Cmd, Fun, LatticeVal } from 'scf/kernel';\nimport type { List } from 'scf/prelude';\nfunction dup(c: Cmd, n: number): Cmd {\n  return n === 0 ? c : dup({ kind: 'seq', first: c, second: c, lbl: n }, n - 1);\n}\nfunction known(fs: List<LatticeVal>): boolean {\n  return fs.kind === 'cons' && (fs.head.kind === 'const' || known(fs.tail));\n}\nexport function optimize(f: Fun, formals: List<LatticeVal>): Fun {\n  return { ...f, body: dup(f.body, known(formals) ? 40 : 0) };\n}\n",
    );
    const out = path.join(TMP, 'dag-stage-out');
    // 2^40 copies of the body as a tree: without the node budget the partial evaluator ran out of memory
    const s = clean(await cli('stage', config('dag-stage.json', dag), '--out', out));
    expect(s.code, s.err).toBe(0);
    expect(s.out + s.err).toMatch(/dag-stage: .*stop: fuel/);
    const stub = await importStub(path.join(out, 'f.stub.mjs'));
    expect(() => stub.specialize({ a: 2 }, () => {})).toThrow(
      /^pass 'dag-stage' returned a function 'f' that breaks the kernel AST's invariants/,
    );
  }, 120_000);
});

describe('scf bench on a pipeline whose pass breaks the kernel at run time', () => {
  it('a kernel the pass left without its return: exit 1, naming the config, not an internal error', async () => {
    const noReturn = file(
      'no-return.ts',
      "import type { Fun } from 'scf/kernel';\nexport function optimize(f: Fun): Fun {\n  return { kind: 'fun', name: f.name, ret: f.ret, params: f.params, locals: f.locals, body: { kind: 'skip', lbl: f.lbl + 1000 }, fns: f.fns, lbl: f.lbl };\n}\n",
    );
    const dir = path.join(TMP, 'bench-no-return');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      path.join(dir, 'nr.json'),
      JSON.stringify({
        input: KERNEL,
        function: 'f',
        pipeline: ['const-prop', noReturn],
        bind: { a: "'Int" },
        sample: { a: 2 },
        args: { x: 1 },
      }),
    );
    const r = clean(await cli('bench', '--dir', dir, '--budget', '20'));
    expect(r.code, r.err).toBe(1);
    expect(r.err).toMatch(/'f' as the pipeline optimized it fails where the original runs/);
  }, 60_000);
});
