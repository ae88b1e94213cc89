/**
 * Hostile inputs to the commands: names and files, through the CLI in-process
 * (tests/cli/helpers.ts), except where a real process is the point.
 *
 * 1. Names. A kernel's identifiers are user names that end up as keys: formals in `--args` and
 *    `--bind`, outputs in the printed JSON, bindings in configs. Names that are Object.prototype
 *    keys (`constructor`, `toString`, `__proto__`, …), JavaScript and WGSL keywords and builtins,
 *    and the parser's own fresh names (`tmp`, `x_1`) must behave like any other name: random
 *    programs (tests/kernel/gen.ts) renamed to such names give, through `scf eval` (arguments by
 *    name), `scf eval --passes … --bind` and `scf kernel --emit js --run`, the result the original
 *    program gives under `scf eval`. Identifiers outside the subset's ASCII ones (Unicode letters,
 *    `$`) are rejected by the parser with a positioned K1015 error, exit 2.
 * 2. Files and folders. An input that is a folder says so (exit 2) for every command; places a
 *    command cannot write (`--out` a file, /dev/null, /proc/x, a path through a file; `--save`,
 *    `--chart` likewise, and a symbolic link there) are exit 2 before any work, and leave nothing
 *    behind; a bench run that fails removes the folders it made for `--save` and `--chart` and its
 *    staging folder (in the OS's temporary folder); an absurd `--budget` is exit 2.
 *
 * Every case: the exit status README states (2 bad input, 1 a runtime error found, never 3), no
 * stack trace, and a generous time bound. SCF_HOSTILE_RUNS (default 150) sets the properties' runs.
 */
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { cli } from '../cli/helpers.js';
import { BUILTINS } from '../../src/kernel/index.js';
import { generate } from '../kernel/gen.js';

const RUNS = Number(process.env.SCF_HOSTILE_RUNS ?? 150);
const ROOT = path.resolve(import.meta.dirname, '../..');
const BIN = path.join(ROOT, 'bin/scf.js');
const TMP = mkdtempSync(path.join(tmpdir(), 'scf-hostile-inputs-'));
afterAll(() => rmSync(TMP, { recursive: true, force: true }));

let files = 0;
function file(name: string, source: string): string {
  const f = path.join(TMP, `${files++}-${name}`);
  writeFileSync(f, source);
  return f;
}

type Run = { code: number; out: string; err: string };

/** Never an internal error, never a stack trace. */
function clean(r: Run): Run {
  expect(r.err).not.toMatch(/internal error|\n\s+at \S+ \(|RangeError|TypeError/);
  expect(r.code).not.toBe(3);
  return r;
}

/** `scf ARGV…` in a real process (a crash of the process is part of what is checked). */
function spawnScf(...argv: string[]): Run {
  const r = spawnSync(process.execPath, [BIN, ...argv], { encoding: 'utf8', timeout: 120_000 });
  return { code: r.status ?? (r.signal ? 128 : -1), out: r.stdout, err: r.stderr };
}

// ---- 1. names ------------------------------------------------------------------------------

/**
 * Words of C and of the kernel language that a program cannot choose as identifiers, and the C
 * library's functions (the builtins and their double twins) it cannot define.
 */
const C_WORDS = new Set([
  ...(
    'auto break case char const continue default do double else enum extern float for goto if inline int ' +
    'long register restrict return short signed sizeof static struct switch typedef union unsigned void ' +
    'volatile while bool true false NULL _Bool _Complex _Imaginary _Alignas _Alignof _Atomic _Generic ' +
    '_Noreturn _Static_assert _Thread_local map reduce scan filter iota redomap scanomap'
  ).split(' '),
  ...BUILTINS.flatMap((b) => [b.name, ...(b.double === undefined ? [] : [b.double])]),
]);

/** Keys every object inherits, and what functions inherit besides. */
const PROTOTYPE_KEYS = [
  ...Object.getOwnPropertyNames(Object.prototype),
  ...Object.getOwnPropertyNames(Function.prototype),
].filter((k) => /^[A-Za-z_]\w*$/.test(k));

/** JavaScript keywords and globals, WGSL keywords and builtins, the parser's fresh names. */
const KEYWORDS = (
  'this function var let new delete typeof instanceof in of class yield await null undefined NaN ' +
  'Infinity eval arguments Math Object Array Number String Symbol Proxy Reflect JSON super export ' +
  'import with debugger catch try throw finally async get set package interface implements private ' +
  'protected public process globalThis require module exports prototype ' +
  'fn loop array vec2 vec3 vec4 f32 i32 u32 f16 bitcast select workgroup storage uniform override ' +
  'alias const_assert discard enable requires diagnostic ptr atomic sampler texture_2d continuing ' +
  'fallthrough mat2x2 min max abs clamp dot arrayLength workgroupBarrier storageBarrier compute ' +
  'vertex fragment builtin location group binding main params Params ' +
  'tmp tmp_1 mapped reduced kept idx x_1 p_1 i_1 f_fused1'
).split(' ');

const HOSTILE_NAMES = [...new Set([...PROTOTYPE_KEYS, ...KEYWORDS])].filter((n) => !C_WORDS.has(n)).sort();

const IDENT = /\b[A-Za-z_][A-Za-z0-9_]*\b/g;

/** The identifiers a C source chooses, in order of appearance. */
function identifiersOf(source: string): string[] {
  return [...new Set(source.match(IDENT) ?? [])].filter((w) => !C_WORDS.has(w));
}

/** An injective renaming of `ids` into hostile names chosen by `picks` (kept when taken). */
function renaming(ids: readonly string[], picks: readonly number[]): Map<string, string> {
  const map = new Map<string, string>();
  const taken = new Set<string>();
  ids.forEach((id, j) => {
    const want = HOSTILE_NAMES[(picks[j] ?? 0) % HOSTILE_NAMES.length] as string;
    let name = taken.has(want) || ids.includes(want) ? id : want;
    for (let k = 2; taken.has(name) || (name !== id && ids.includes(name)); k++) name = `${id}_v${k}`;
    taken.add(name);
    map.set(id, name);
  });
  return map;
}

/** A float argument as `--args` JSON writes it ("NaN", "Infinity", "-Infinity"). */
function jsonScalar(x: number | boolean): unknown {
  if (typeof x === 'boolean' || Number.isFinite(x)) return x;
  return Number.isNaN(x) ? 'NaN' : x > 0 ? 'Infinity' : '-Infinity';
}

/** gen.ts's entry parameters, in order. */
const PARAMS = ['x', 'y', 'u', 'v', 'a', 'b'] as const;

function argsByName(args: readonly unknown[], names: ReadonlyMap<string, string>, skip?: string): string {
  const o: Record<string, unknown> = Object.create(null);
  PARAMS.forEach((p, i) => {
    const v = args[i] as number | boolean | readonly (number | boolean)[];
    if (p === skip) return;
    o[names.get(p) ?? p] = Array.isArray(v) ? v.map(jsonScalar) : jsonScalar(v as number);
  });
  return JSON.stringify(o);
}

/** A printed `scf eval` result with its output keys renamed back by `back`. */
function normalized(out: string, back: ReadonlyMap<string, string>): unknown {
  const j = JSON.parse(out) as { result: unknown; outputs: Record<string, unknown> };
  const outputs = Object.entries(j.outputs)
    .map(([k, v]) => [back.get(k) ?? k, v] as const)
    .sort(([a], [b]) => (a < b ? -1 : 1));
  return { result: j.result, outputs };
}

describe('names that are prototype keys, keywords or generated names', () => {
  const PROTO = file(
    'proto.c',
    'int f(int constructor, int toString, int valueOf, int hasOwnProperty) {\n' +
      '  return constructor * 1000 + toString * 100 + valueOf * 10 + hasOwnProperty;\n}\n',
  );
  const DUNDER = file(
    'dunder.c',
    'void g(int __proto__[], int constructor) {\n  __proto__[0] = constructor;\n  __proto__[1] = constructor + 1;\n}\n',
  );

  it('formals named constructor, toString, valueOf, hasOwnProperty: --args by name or in order, --bind', async () => {
    const want = '{"result":1234,"outputs":{}}';
    for (const argv of [
      ['--args', '{"constructor":1,"toString":2,"valueOf":3,"hasOwnProperty":4}'],
      ['--args', '[1,2,3,4]'],
      [
        '--bind',
        'constructor=1',
        '--bind',
        'toString=2',
        '--bind',
        'valueOf=3',
        '--bind',
        'hasOwnProperty=4',
      ],
      [
        '--args',
        '{"valueOf":3,"hasOwnProperty":4}',
        '--bind',
        'constructor=1',
        '--bind',
        'toString=2',
        '--passes',
        'const-prop,copy-prop,dae',
      ],
    ]) {
      const r = clean(await cli('eval', PROTO, ...argv));
      expect([r.code, r.out, r.err]).toEqual([0, want, '']);
    }
    const opt = clean(await cli('opt', PROTO, '--bind', 'constructor=1', '--bind', 'toString=2'));
    expect(opt.code).toBe(0);
    expect(opt.out).toContain('return 1200 + valueOf * 10 + hasOwnProperty;');
    const js = clean(await cli('kernel', PROTO, '--emit', 'js', '--run', '--args', '[1,2,3,4]'));
    expect([js.code, js.out]).toEqual([0, '{"backend":"js","result":1234}']);
  });

  it("'__proto__' in --args and --bind is a key like any other; outputs keep it", async () => {
    const r = clean(await cli('eval', DUNDER, '--args', '{"__proto__":[0,0,9],"constructor":7}'));
    expect([r.code, r.out]).toEqual([0, '{"result":null,"outputs":{"__proto__":[7,8,9]}}']);
    const missing = clean(await cli('eval', DUNDER, '--args', '{"constructor":7}'));
    expect([missing.code, missing.err]).toEqual([
      2,
      "scf eval: missing argument for parameter '__proto__' of 'g'",
    ]);
    const bound = clean(await cli('eval', DUNDER, '--bind', '__proto__=[1,2]', '--bind', 'constructor=5'));
    expect([bound.code, bound.out]).toEqual([0, '{"result":null,"outputs":{"__proto__":[5,6]}}']);
    const twice = clean(await cli('opt', DUNDER, '--bind', 'constructor=1', '--bind', 'constructor=2'));
    expect([twice.code, twice.err]).toEqual([2, "scf opt: 'constructor' is bound twice"]);
    const unknown = clean(
      await cli(
        'eval',
        PROTO,
        '--args',
        '{"__proto__":1,"constructor":1,"toString":2,"valueOf":3,"hasOwnProperty":4}',
      ),
    );
    expect([unknown.code, unknown.err]).toEqual([2, "scf eval: 'f' has no parameter '__proto__'"]);
  });

  it('values and commands that are prototype keys are bad input, exit 2', async () => {
    const v = clean(
      await cli(
        'eval',
        PROTO,
        '--args',
        '{"constructor":"constructor","toString":"toString","valueOf":1,"hasOwnProperty":1}',
      ),
    );
    expect([v.code, v.err]).toEqual([
      2,
      'scf eval: argument \'constructor\' must be a number or boolean, got "constructor"',
    ]);
    for (const name of ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf']) {
      const r = clean(spawnScf(name));
      expect([r.code, r.err.trim()]).toEqual([
        2,
        `scf: unknown command '${name}'\nRun 'scf --help' for the commands.`,
      ]);
      const flag = clean(await cli('eval', PROTO, `--${name}`));
      expect(flag.code).toBe(2);
      expect(flag.err).toContain(`unknown option '--${name}'`);
    }
  }, 60_000);

  it('scf stage binds formals named constructor and __proto__; the staged pipeline agrees', async () => {
    const dir = path.join(TMP, 'stage-proto');
    mkdirSync(dir);
    writeFileSync(
      path.join(dir, 'k.c'),
      'int f(int constructor, int __proto__, int toString) {\n  int s = 0;\n' +
        '  for (int i = 0; i < constructor; i++) s = s + __proto__ * toString;\n  return s;\n}\n',
    );
    const config = path.join(dir, 'c.json');
    // (as text: in an object literal `__proto__: …` would set the prototype, not a key)
    writeFileSync(
      config,
      `{ "input": "k.c", "function": "f", "pipeline": ["const-prop", "copy-prop", "dae"],
         "bind": { "constructor": "0|1|2", "__proto__": "'Int" }, "sample": { "constructor": 2, "__proto__": 3 } }`,
    );
    const staged = clean(await cli('stage', config, '--out', path.join(dir, 'out'), '--quiet'));
    expect(staged.code).toBe(0);
    const binds = ['--bind', 'constructor=2', '--bind', '__proto__=3'];
    const unstaged = clean(await cli('opt', path.join(dir, 'k.c'), ...binds));
    const viaStub = clean(
      await cli('opt', path.join(dir, 'k.c'), ...binds, '--staged', path.join(dir, 'out')),
    );
    expect(unstaged.code).toBe(0);
    expect([viaStub.code, viaStub.out, viaStub.err]).toEqual([0, unstaged.out, '']);
    expect(unstaged.out).toContain('s = 3 * toString;');
  }, 120_000);

  it(`random programs renamed to hostile names: eval, eval --passes --bind and the JS back end agree with eval of the original (${RUNS} programs)`, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.nat(), { minLength: 50, maxLength: 400 }),
        fc.array(fc.nat(), { minLength: 40, maxLength: 40 }),
        fc.integer({ min: -20, max: 20 }),
        async (tape, picks, bound) => {
          const g = generate(tape, '');
          const ids = identifiersOf(g.source);
          const names = renaming(ids, picks);
          const back = new Map([...names].map(([k, v]) => [v, k]));
          const renamed = g.source.replace(IDENT, (w) => names.get(w) ?? w);
          const fn = names.get(g.main) as string;
          const original = clean(
            await cli(
              'eval',
              file('o.c', g.source),
              '--function',
              g.main,
              '--args',
              argsByName(g.args, new Map()),
            ),
          );
          const twin = file('r.c', renamed);
          const r = clean(await cli('eval', twin, '--function', fn, '--args', argsByName(g.args, names)));
          expect(r.code).toBe(original.code);
          if (original.code !== 0) return;
          expect(normalized(r.out, back)).toEqual(normalized(original.out, new Map()));
          // x bound to a constant and the default pipeline first
          const withX = [...g.args];
          withX[0] = bound;
          const plain = clean(
            await cli(
              'eval',
              file('o.c', g.source),
              '--function',
              g.main,
              '--args',
              argsByName(withX, new Map()),
            ),
          );
          const xName = names.get('x') as string;
          const opt = clean(
            await cli(
              'eval',
              twin,
              '--function',
              fn,
              '--args',
              argsByName(withX, names, 'x'),
              '--bind',
              `${xName}=${bound}`,
              '--passes',
              'const-prop,copy-prop,dae',
            ),
          );
          if (plain.code === 0) {
            expect(opt.code).toBe(0);
            expect(normalized(opt.out, back)).toEqual(normalized(plain.out, new Map()));
          }
          const js = clean(
            await cli(
              'kernel',
              twin,
              '--function',
              fn,
              '--emit',
              'js',
              '--run',
              '--args',
              argsByName(g.args, names),
            ),
          );
          expect(js.code).toBe(0);
          expect((JSON.parse(js.out) as { result: unknown }).result).toEqual(
            (JSON.parse(original.out) as { result: unknown }).result,
          );
        },
      ),
      { numRuns: RUNS, seed: Number(process.env.SCF_HOSTILE_SEED ?? 17017) },
    );
  }, 600_000);
});

describe('identifiers outside the subset: Unicode letters and $', () => {
  const TEMPLATE = 'int NAME1(int NAME2) {\n  int NAME3 = NAME2 * 2;\n  return NAME3 + 1;\n}\n';
  const LETTERS = ['é', 'ß', 'π', 'λ', 'ж', 'Ω', '中', 'ä', 'ñ', '$', 'µ', 'ǅ', '𝑥'];
  const hostile = fc
    .tuple(
      fc.stringMatching(/^[a-z_][a-z0-9_]{0,4}$/),
      fc.constantFrom(...LETTERS),
      fc.stringMatching(/^[a-z0-9_]{0,4}$/),
    )
    .map(([a, b, c]) => a + b + c);

  it(`eval, opt, kernel and stage: exit 2 and K1015 at the identifier, in every position (${RUNS} cases)`, async () => {
    await fc.assert(
      fc.asyncProperty(
        hostile,
        fc.integer({ min: 1, max: 3 }),
        fc.constantFrom('eval', 'opt', 'kernel'),
        async (name, which, command) => {
          const names = ['f', 'x', 'y'];
          names[which - 1] = name;
          const source = TEMPLATE.replace(/NAME(\d)/g, (_, k: string) => names[Number(k) - 1] as string);
          const f = file('u.c', source);
          const argv = command === 'eval' ? ['--args', '[1]'] : command === 'kernel' ? ['--emit', 'js'] : [];
          const r = clean(await cli(command, f, ...argv));
          expect(r.code).toBe(2);
          const first = source.split('\n').findIndex((l) => l.includes(name));
          const col = (source.split('\n')[first] as string).indexOf(name) + 1;
          expect(r.err.split('\n')[0]).toBe(
            `${f}:${first + 1}:${col}: error K1015: '${name}' is not an identifier of the kernel subset (ASCII letters, digits and '_', not starting with a digit)`,
          );
        },
      ),
      { numRuns: RUNS, seed: Number(process.env.SCF_HOSTILE_SEED ?? 17017) },
    );
  }, 300_000);

  it('a config whose kernel has one: positioned in the kernel, exit 2', async () => {
    const dir = path.join(TMP, 'stage-unicode');
    mkdirSync(dir);
    writeFileSync(path.join(dir, 'k.c'), 'int f(int été) {\n  return été;\n}\n');
    writeFileSync(
      path.join(dir, 'c.json'),
      '{ "input": "k.c", "function": "f", "pipeline": ["const-prop"], "bind": {} }',
    );
    const r = clean(await cli('stage', path.join(dir, 'c.json'), '--out', path.join(dir, 'out')));
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/k\.c:1:11: error K1015: 'été' is not an identifier/);
    expect(existsSync(path.join(dir, 'out'))).toBe(false);
  });
});

// ---- 2. files and folders ------------------------------------------------------------------

describe('files and folders', () => {
  const DIR = path.join(TMP, 'a-folder');
  mkdirSync(DIR);
  const KERNEL = file('k.c', 'int f(int x) {\n  return x + 1;\n}\n');
  /** A config that stages in about a second (so a check after staging would show in the time). */
  const CONFIG = path.join(ROOT, 'configs/table2/06-doconvol.json');

  it('an input that is a folder: "is a directory", exit 2, for every command', async () => {
    const cases: [string[], string][] = [
      [['eval', DIR, '--args', '[1]'], `scf eval: cannot read '${DIR}': is a directory`],
      [['opt', DIR], `scf opt: cannot read '${DIR}': is a directory`],
      [['kernel', DIR, '--emit', 'js'], `scf kernel: cannot read '${DIR}': is a directory`],
      [['check', DIR], `scf check: cannot read '${DIR}': is a directory`],
      // a folder is a folder of configs to `scf stage` (cli/stage-dir.ts): this one holds none
      [
        ['stage', DIR, '--out', path.join(TMP, 'never')],
        `scf stage: '${DIR}' has no config (*.json with "input" or "entry")`,
      ],
      [['opt', KERNEL, '--passes', DIR], `scf opt: cannot read pass '${DIR}': is a directory`],
      [
        ['eval', KERNEL, '--args', '[1]', '--passes', `const-prop,${DIR}`],
        `scf eval: cannot read pass '${DIR}': is a directory`,
      ],
    ];
    for (const [argv, message] of cases) {
      const r = clean(await cli(...argv));
      expect([r.code, r.err]).toEqual([2, message]);
    }
    expect(existsSync(path.join(TMP, 'never'))).toBe(false);
  });

  it("a config's input or pass that is a folder: positioned, exit 2", async () => {
    const cfg = file(
      'dir-input.json',
      `{ "input": "${path.basename(DIR)}", "function": "f", "pipeline": ["dae"], "bind": {} }`,
    );
    const r = clean(await cli('stage', cfg, '--out', path.join(TMP, 'never')));
    expect([r.code, r.err]).toEqual([
      2,
      `${cfg}:1:12: error C1005: 'a-folder' is a directory, not a kernel C file`,
    ]);
    const pass = file(
      'dir-pass.json',
      `{ "input": "${path.basename(KERNEL)}", "function": "f", "pipeline": ["./a-folder"], "bind": {} }`,
    );
    const p = clean(await cli('stage', pass, '--out', path.join(TMP, 'never')));
    const col = readFileSync(pass, 'utf8').indexOf('"./a-folder"') + 1;
    expect([p.code, p.err]).toEqual([
      2,
      `${pass}:1:${col}: error C1007: './a-folder' is a directory, not an optimizer's .ts file`,
    ]);
  });

  it('--out that cannot be a folder to write: exit 2 before staging, nothing left behind', async () => {
    const aFile = file('not-a-folder.txt', 'x');
    const cases: [string, RegExp][] = [
      [aFile, /--out '.*not-a-folder\.txt' is not a directory$/],
      ['/dev/null', /--out '\/dev\/null' is not a directory$/],
      [
        path.join(aFile, 'sub'),
        /--out '.*not-a-folder\.txt\/sub' cannot be used: a part of the path is not a directory$/,
      ],
      [
        path.join(aFile, 'sub', 'deeper'),
        /--out '.*' cannot be used: a part of the path is not a directory$/,
      ],
    ];
    if (existsSync('/proc/self')) {
      cases.push(['/proc/scf-x', /--out '\/proc\/scf-x' cannot be created: /]);
      cases.push(['/proc/scf-x/y', /--out '\/proc\/scf-x\/y' cannot be created: /]);
      cases.push(['/proc', /--out '\/proc' cannot be written: /]);
    }
    if (existsSync('/sys/kernel'))
      cases.push(['/sys/scf-x', /--out '\/sys\/scf-x' cannot be (created|written): /]);
    for (const [out, message] of cases) {
      const start = performance.now();
      const r = clean(await cli('stage', CONFIG, '--out', out, '--quiet'));
      expect(r.code).toBe(2);
      expect(r.err).toMatch(new RegExp(`^scf stage: ${message.source}`));
      expect(performance.now() - start).toBeLessThan(800); // staging config 6 alone takes longer
    }
    expect(readFileSync(aFile, 'utf8')).toBe('x');
  });

  it('--out in a real process: /proc/x and /dev/null end at once (node’s recursive mkdir hangs under /proc)', () => {
    for (const out of ['/dev/null', ...(existsSync('/proc/self') ? ['/proc/scf-x'] : [])]) {
      const r = clean(spawnScf('stage', CONFIG, '--out', out, '--quiet'));
      expect(r.code).toBe(2);
      expect(r.err).toMatch(/^scf stage: --out '.*' (is not a directory|cannot be created: .*)\n$/);
    }
  }, 60_000);

  it('--out missing folders are made; a failed stage removes the ones it made', async () => {
    const bad = file(
      'bad.json',
      `{ "input": "${path.basename(KERNEL)}", "function": "nope", "pipeline": ["dae"], "bind": {} }`,
    );
    const out = path.join(TMP, 'made', 'by', 'stage');
    const r = clean(await cli('stage', bad, '--out', out));
    expect(r.code).toBe(2);
    expect(existsSync(path.join(TMP, 'made'))).toBe(false);
    const good = file(
      'good.json',
      `{ "input": "${path.basename(KERNEL)}", "function": "f", "pipeline": ["dae"], "bind": {} }`,
    );
    const ok = clean(await cli('stage', good, '--out', out, '--quiet'));
    expect(ok.code).toBe(0);
    expect(existsSync(path.join(out, 'f.stub.mjs'))).toBe(true);
  }, 60_000);

  it('bench --save and --chart where nothing can be written: exit 2 before the benchmark', async () => {
    const cases: [string[], RegExp][] = [
      [['--save', DIR], /^scf bench: --save '.*a-folder' is a directory$/],
      [
        ['--chart', '/dev/null/x.svg'],
        /^scf bench: --chart '\/dev\/null\/x\.svg': folder '\/dev\/null' is not a directory$/,
      ],
      [
        ['--save', path.join(KERNEL, 'r.json')],
        /^scf bench: --save '.*': folder '.*k\.c' is not a directory$/,
      ],
      [['--dir', KERNEL], /^scf bench: --dir .*k\.c: not a directory$/],
    ];
    if (existsSync('/proc/self'))
      cases.push([
        ['--save', '/proc/scf-x/r.json'],
        /^scf bench: --save '\/proc\/scf-x\/r\.json': folder '\/proc\/scf-x' cannot be created: /,
      ]);
    for (const [argv, message] of cases) {
      const start = performance.now();
      const r = clean(await cli('bench', ...argv));
      expect(r.code).toBe(2);
      expect(r.err).toMatch(message);
      expect(performance.now() - start).toBeLessThan(2000);
    }
  });
});

describe('scf bench: what it writes, where it stages, its budget', () => {
  /** A folder with one config whose kernel divides by zero on its own "args": exit 1 after staging. */
  const failing = path.join(TMP, 'bench-fails');
  mkdirSync(failing);
  writeFileSync(path.join(failing, 'k.c'), 'int f(int x, int a) {\n  return x / (a - 2);\n}\n');
  writeFileSync(
    path.join(failing, 'div.json'),
    JSON.stringify({
      input: 'k.c',
      function: 'f',
      pipeline: ['const-prop'],
      bind: { a: "'Int" },
      sample: { a: 2 },
      args: { x: 1 },
    }),
  );

  it('a failed run removes the folders --save and --chart made, and only those', async () => {
    const kept = path.join(TMP, 'bench-kept');
    mkdirSync(kept);
    const save = path.join(kept, 'new', 'deeper', 'r.json');
    const chart = path.join(TMP, 'bench-chart-new', 'c.svg');
    const r = clean(await cli('bench', '--dir', failing, '--budget', '5', '--save', save, '--chart', chart));
    expect(r.code, r.err).toBe(1);
    expect(r.err).toMatch(/div\.json\): 'f' fails on the config's "args": integer division by zero/);
    expect(existsSync(kept)).toBe(true);
    expect(readdirSync(kept)).toEqual([]);
    expect(existsSync(path.join(TMP, 'bench-chart-new'))).toBe(false);
    // under --kernel too: the kernel fails on the config's "args" (exit 1, after the folder is made)
    const k = clean(
      await cli('bench', '--kernel', path.join(failing, 'div.json'), '--backend', 'js', '--save', save),
    );
    expect(k.code, k.err).toBe(1);
    expect(k.err).toMatch(/the kernel fails on the config's "args": integer division by zero/);
    expect(readdirSync(kept)).toEqual([]);
  }, 60_000);

  it('--save and --chart refuse a symbolic link, before the run, and leave its target alone', async () => {
    const target = path.join(TMP, 'link-target.json');
    writeFileSync(target, 'kept\n');
    const link = path.join(TMP, 'report-link.json');
    symlinkSync(target, link);
    const dangling = path.join(TMP, 'dangling-link.svg');
    symlinkSync(path.join(TMP, 'nowhere.svg'), dangling);
    for (const [flag, at] of [
      ['--save', link],
      ['--chart', dangling],
    ] as const) {
      const start = performance.now();
      const r = clean(await cli('bench', '--config', '1', '--budget', '5', flag, at));
      expect(r.code).toBe(2);
      expect(r.err).toBe(
        `scf bench: ${flag} '${at}' is a symbolic link: scf does not write through links (give the path of the file it points to, or remove the link)`,
      );
      expect(performance.now() - start).toBeLessThan(2000);
    }
    expect(readFileSync(target, 'utf8')).toBe('kept\n');
    expect(existsSync(path.join(TMP, 'nowhere.svg'))).toBe(false);
  });

  it('--budget outside 1 to 600000 milliseconds, or no number: exit 2, naming the flag and the range', async () => {
    for (const bad of ['1e308', 'Infinity', '-Infinity', 'NaN', '-1', '0', '0.5', '600001', '', ' ', 'ten']) {
      const r = clean(await cli('bench', `--budget=${bad}`));
      expect(r.code, bad).toBe(2);
      expect(r.err, bad).toBe(
        `scf bench: --budget must be a number of milliseconds from 1 to 600000, not '${bad}'`,
      );
    }
  });

  it("stages in the OS's temporary folder, not the package's, and removes it when the run fails", async () => {
    const temp = mkdtempSync(path.join(TMP, 'os-tmp-'));
    const before = process.env.TMPDIR;
    process.env.TMPDIR = temp;
    const during: string[][] = [];
    const err: string[] = [];
    let code: number;
    try {
      code = await main(['bench', '--dir', failing, '--budget', '5'], {
        out: () => {},
        err: (s) => {
          err.push(s);
          // the progress line of the first config: its staged folder is being written
          if (/staging/.test(s)) during.push(readdirSync(temp));
        },
      });
    } finally {
      if (before === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = before;
    }
    expect(code, err.join('\n')).toBe(1);
    expect(during).toHaveLength(1);
    expect(during[0]).toEqual([expect.stringMatching(/^scf-bench-/)]);
    expect(readdirSync(temp)).toEqual([]);
    expect(readdirSync(ROOT).filter((f) => f.startsWith('.tmp-bench'))).toEqual([]);
  }, 60_000);
});
