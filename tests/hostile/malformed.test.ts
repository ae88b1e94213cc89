/**
 * Malformed inputs to the commands: C sources, configurations, descriptions and command
 * lines broken at random, through the CLI in-process (tests/cli/helpers.ts).
 *
 * 1. C. The benchmark kernels, mutated by fast-check (a span deleted or repeated, a token or a byte
 *    inserted, the text cut short), through `scf eval`, `scf opt` and `scf kernel --emit js --run`.
 *    Bad input is exit 2 with FILE:LINE:COL (or, for the command line's arguments, a message
 *    naming the parameter); a mutant that still runs gives, optimized and on the JS back end, the
 *    result the evaluator gives it (or the evaluator's run-time error, exit 1).
 * 2. Configurations and descriptions. Table 2's mul_add config and its descriptions mutated the
 *    same way, and nested past any real one (10^4 brackets in the JSON, in a description): exit 2
 *    at a position of the config, or the config still stages (exit 0).
 * 3. Command lines. Random words from every command's flags, junk values and unknown flags: never
 *    an internal error, never a stack trace; exit 2 names the command.
 *
 * Every case: the exit status README states (2 bad input, 1 a run-time error found, never 3), no
 * stack trace, a time bound. SCF_HOSTILE_RUNS (default 150) sets the properties' runs; the suite
 * prints how many inputs it tried, per class.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { cli } from '../cli/helpers.js';

const RUNS = Number(process.env.SCF_HOSTILE_RUNS ?? 150);
const SEED = Number(process.env.SCF_HOSTILE_SEED ?? 17017);
const ROOT = path.resolve(import.meta.dirname, '../..');
const TMP = mkdtempSync(path.join(tmpdir(), 'scf-hostile-malformed-'));
const tried: Record<string, number> = {};
afterAll(() => {
  rmSync(TMP, { recursive: true, force: true });
  const total = Object.values(tried).reduce((a, b) => a + b, 0);
  console.log(`malformed inputs tried: ${total} (${JSON.stringify(tried)})`);
});

let files = 0;
function file(name: string, source: string): string {
  const f = path.join(TMP, `${files++}-${name}`);
  writeFileSync(f, source);
  return f;
}

type Run = { code: number; out: string; err: string };

/** Never an internal error, never a stack trace, never a crash of the command. */
function clean(r: Run, what: string): Run {
  expect(r.err, what).not.toMatch(/internal error|\n\s+at \S+ \(|RangeError|TypeError|Maximum call stack/);
  expect([0, 1, 2], `${what}\n${r.err}`).toContain(r.code);
  return r;
}

/** Runs `scf ARGV…` in-process within `ms`, counting it as one input of `kind`. */
async function run(kind: string, ms: number, ...argv: string[]): Promise<Run> {
  tried[kind] = (tried[kind] ?? 0) + 1;
  const start = performance.now();
  const r = clean(await cli(...argv), argv.join(' '));
  expect(performance.now() - start, argv.join(' ')).toBeLessThan(ms);
  return r;
}

const reEscape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Exit 2 is positioned in `file`, or, for what the command line gave (arguments, the function's
 * name), names what was wrong with it.
 */
function expectBadInputExplained(r: Run, file: string): void {
  const first = r.err.split('\n')[0] as string;
  const positioned = new RegExp(`^${reEscape(file)}:\\d+:\\d+: error`).test(first);
  const commandLine =
    /^scf \w+: (missing argument|.* has no function|parameter '|argument '|too many arguments|--args|--bind|.*function)/.test(
      first,
    );
  expect(positioned || commandLine, first).toBe(true);
}

// ---- mutation -------------------------------------------------------------------------------

/** Tokens and bytes that break C (and JSON, and descriptions) in interesting ways. */
const JUNK = [
  '(',
  ')',
  '{',
  '}',
  '[',
  ']',
  ';',
  ',',
  '*',
  '/*',
  '*/',
  '//',
  '"',
  "'",
  '\\',
  '#',
  '?',
  ':',
  '=',
  '==',
  '++',
  '--',
  '->',
  '.',
  '...',
  '0x',
  '1e',
  '1e99',
  '0.5f',
  '2147483648',
  '-',
  '!',
  '~',
  '<<',
  '&&',
  '||',
  'int',
  'float',
  'bool',
  'void',
  'return',
  'if',
  'else',
  'for',
  'while',
  'do',
  'break',
  'continue',
  'const',
  'struct',
  'goto',
  'switch',
  'static',
  'map',
  'reduce',
  'NULL',
  'true',
  '\u0000',
  '\u00e9',
  '\u{1F600}',
  '\r',
  '\t',
  '\n',
  ' ',
  'é',
  '$',
  '@',
  '`',
  'x',
  '_',
  "'Int",
  "'Float",
  "'Array",
  '|',
  'null',
];

type Mutation =
  | { kind: 'delete'; at: number; len: number }
  | { kind: 'repeat'; at: number; len: number }
  | { kind: 'insert'; at: number; junk: number }
  | { kind: 'byte'; at: number; code: number }
  | { kind: 'cut'; at: number };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('delete' as const), at: fc.nat(), len: fc.integer({ min: 1, max: 12 }) }),
  fc.record({ kind: fc.constant('repeat' as const), at: fc.nat(), len: fc.integer({ min: 1, max: 30 }) }),
  fc.record({ kind: fc.constant('insert' as const), at: fc.nat(), junk: fc.nat() }),
  fc.record({ kind: fc.constant('byte' as const), at: fc.nat(), code: fc.integer({ min: 0, max: 0xff }) }),
  fc.record({ kind: fc.constant('cut' as const), at: fc.nat() }),
);

function mutate(text: string, ms: readonly Mutation[]): string {
  let s = text;
  for (const m of ms) {
    const at = m.at % (s.length + 1);
    switch (m.kind) {
      case 'delete':
        s = s.slice(0, at) + s.slice(at + m.len);
        break;
      case 'repeat':
        s = s.slice(0, at + m.len) + s.slice(at, at + m.len) + s.slice(at + m.len);
        break;
      case 'insert':
        s = `${s.slice(0, at)}${JUNK[m.junk % JUNK.length]}${s.slice(at)}`;
        break;
      case 'byte':
        s = `${s.slice(0, at)}${String.fromCharCode(m.code)}${s.slice(at + 1)}`;
        break;
      case 'cut':
        s = s.slice(0, at);
        break;
    }
  }
  return s;
}

// ---- 1. C -----------------------------------------------------------------------------------

const KERNELS = ['mul_add', 'dotproduct', 'doconvol', 'doconvol_1d', 'main_loop'].map((name) => ({
  name,
  source: readFileSync(path.join(ROOT, 'benchmarks/inputs', `${name}.c`), 'utf8'),
  args: readFileSync(path.join(ROOT, 'benchmarks/inputs', `${name}.args.json`), 'utf8'),
}));

/**
 * A command's answer for one run: its printed result and outputs, or its run-time error.
 * `scf kernel --run` prints the result only, so `resultOnly` compares that much.
 */
function answer(r: Run, resultOnly = false): string {
  if (r.code !== 0) {
    // positioned alike, but for the call depth and the step budget (the JS back end counts them at a function's entry and a loop's head)
    const first = r.err.split('\n')[0] as string;
    return /call depth|step budget/.test(first) ? first.replace(/^.*?: error: /, '') : first;
  }
  const j = JSON.parse(r.out) as { result: unknown; outputs?: unknown };
  return JSON.stringify(resultOnly ? j.result : [j.result, j.outputs]);
}

describe('malformed C', () => {
  it(`mutated benchmark kernels through eval, opt and kernel --emit js --run (${RUNS} sources)`, async () => {
    let ran = 0;
    let rejected = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.nat({ max: KERNELS.length - 1 }),
        fc.array(mutation, { minLength: 1, maxLength: 3 }),
        async (k, ms) => {
          const kernel = KERNELS[k] as (typeof KERNELS)[number];
          const f = file(`${kernel.name}.c`, mutate(kernel.source, ms));
          const fuel = ['--fuel', '2000000'];
          const e = await run(
            'C',
            20_000,
            'eval',
            f,
            '--function',
            kernel.name,
            '--args',
            kernel.args,
            ...fuel,
          );
          if (e.code === 2) {
            rejected++;
            expectBadInputExplained(e, f);
            return;
          }
          ran++;
          const want = answer(e);
          // scf opt prints F alone; eval --passes runs the optimized F with the rest of the file
          const o = await run('C', 20_000, 'opt', f, '--function', kernel.name);
          if (o.code === 2)
            expectBadInputExplained(o, f); // a limit of the optimizers, positioned
          else expect(o.code).toBe(0);
          const passes = ['--passes', 'const-prop,copy-prop,dae'];
          const eo = await run(
            'C',
            20_000,
            'eval',
            f,
            '--function',
            kernel.name,
            '--args',
            kernel.args,
            ...passes,
            ...fuel,
          );
          expect(eo.code === 2, eo.err).toBe(o.code === 2);
          // the optimizers may remove a loop that never ends or an error whose value is unused
          if (e.code === 0 && eo.code !== 2) expect(answer(eo), o.out).toBe(want);
          const j = await run(
            'C',
            20_000,
            'kernel',
            f,
            '--function',
            kernel.name,
            '--emit',
            'js',
            '--run',
            '--args',
            kernel.args,
          );
          if (j.code === 2) expectBadInputExplained(j, f);
          else if (!/step budget/.test(want))
            expect(answer(j, true)).toBe(e.code === 0 ? answer(e, true) : want);
        },
      ),
      { numRuns: RUNS, seed: SEED },
    );
    // the mutations reached both sides: programs rejected, and programs that still run
    expect(rejected).toBeGreaterThan(RUNS / 4);
    expect(ran).toBeGreaterThan(RUNS / 20);
  }, 600_000);
});

// ---- 2. configurations and descriptions -----------------------------------------------------

const MUL_ADD = path.join(ROOT, 'benchmarks/inputs/mul_add.c');
const CONFIG = JSON.stringify(
  {
    id: 1,
    input: MUL_ADD,
    function: 'mul_add',
    pipeline: ['const-prop', 'copy-prop', 'dae'],
    bind: { a: "'Int" },
    sample: { a: 1 },
  },
  null,
  2,
);

/** Descriptions of every form the config reference lists. */
const DESCRIPTIONS = [
  "'Int",
  "'Float",
  "'Bool",
  '3',
  '1.5',
  '0|1',
  '(3|1)',
  "[0,1,'Int]",
  "'Array",
  "'Array[3]",
];

describe('malformed configurations and descriptions', () => {
  it(`mutated config text: exit 2 at a position of the config, or it stages (${RUNS} configs)`, async () => {
    let staged = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(mutation, { minLength: 1, maxLength: 3 }), async (ms) => {
        const f = file('config.json', mutate(CONFIG, ms));
        const r = await run('config', 20_000, 'stage', f, '--out', path.join(TMP, `out-${files}`), '--quiet');
        if (r.code === 0) staged++;
        else {
          expect(r.code).toBe(2);
          const first = r.err.split('\n')[0] as string;
          expect(first, first).toMatch(new RegExp(`^(${reEscape(f)}|${reEscape(MUL_ADD)}):\\d+:\\d+: error`));
        }
      }),
      { numRuns: RUNS, seed: SEED },
    );
    expect(staged).toBeLessThan(RUNS);
  }, 600_000);

  it(`mutated descriptions in bind: exit 2 at the description's position in the config, or it stages (${RUNS} descriptions)`, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.nat({ max: DESCRIPTIONS.length - 1 }),
        fc.array(mutation, { minLength: 1, maxLength: 2 }),
        async (d, ms) => {
          const description = mutate(DESCRIPTIONS[d] as string, ms);
          const text = CONFIG.replace(`"a": "'Int"`, `"a": ${JSON.stringify(description)}`);
          const f = file('described.json', text);
          const r = await run(
            'description',
            20_000,
            'stage',
            f,
            '--out',
            path.join(TMP, `out-${files}`),
            '--quiet',
          );
          if (r.code !== 0) {
            expect(r.code).toBe(2);
            const line = text.split('\n').findIndex((l) => l.includes('"a": ')) + 1;
            expect(r.err.split('\n')[0], description).toMatch(
              new RegExp(`^${reEscape(f)}:(${line}|\\d+):\\d+: error`),
            );
          }
        },
      ),
      { numRuns: RUNS, seed: SEED },
    );
  }, 600_000);

  const DEEP = 10_000;
  // the JSON's own nesting is the config's (C1002); a description's is the description
  // language's (D1001: syntax)
  for (const [name, text, code] of [
    [
      'JSON arrays',
      CONFIG.replace(`"sample"`, `"extra": ${'['.repeat(DEEP)}${']'.repeat(DEEP)}, "sample"`),
      'C1002',
    ],
    [
      'JSON objects',
      CONFIG.replace(`"sample"`, `"extra": ${'{"a":'.repeat(DEEP)}1${'}'.repeat(DEEP)}, "sample"`),
      'C1002',
    ],
    ['an unclosed JSON array', CONFIG.replace(`"sample"`, `"extra": ${'['.repeat(DEEP)}`), 'C1002'],
    ['a description', CONFIG.replace(`"'Int"`, `"${'('.repeat(DEEP)}'Int${')'.repeat(DEEP)}"`), 'D1001'],
    [
      'a description of arrays',
      CONFIG.replace(`"'Int"`, `"${'['.repeat(DEEP)}1${']'.repeat(DEEP)}"`),
      'D1001',
    ],
    ['a bound JSON array', CONFIG.replace(`"'Int"`, `${'['.repeat(DEEP)}1${']'.repeat(DEEP)}`), 'C1002'],
  ] as const) {
    it(`nested ${DEEP} deep in ${name}: exit 2, 'nesting too deep' at a position`, async () => {
      const f = file('deep.json', text);
      const r = await run('config', 10_000, 'stage', f, '--out', path.join(TMP, 'never'), '--quiet');
      expect(r.code).toBe(2);
      expect(r.err.split('\n')[0]).toMatch(
        new RegExp(`^${reEscape(f)}:\\d+:\\d+: error ${code}: .*nesting too deep`),
      );
    });
  }

  it('nested just within the limit, a description still parses and stages', async () => {
    const text = CONFIG.replace(`"'Int"`, `"${'('.repeat(60)}'Int${')'.repeat(60)}"`);
    const r = await run(
      'config',
      20_000,
      'stage',
      file('nested.json', text),
      '--out',
      path.join(TMP, 'nested'),
      '--quiet',
    );
    expect(r.code, r.err).toBe(0);
  });
});

// ---- 3. command lines -----------------------------------------------------------------------

const SMALL = file('small.c', 'int f(int a, int b[]) {\n  b[0] = a;\n  return a * 2;\n}\n');
const SMALL_CONFIG = file('small.json', CONFIG);
const COMMANDS = ['eval', 'opt', 'kernel', 'check', 'stage'];
const WORDS = [
  SMALL,
  SMALL,
  SMALL_CONFIG,
  path.join(ROOT, 'src/optimizers/dae.ts'),
  TMP,
  '/nonexistent/x.c',
  '-',
  '--function',
  '-f',
  'f',
  'g',
  '--args',
  '[1,[2]]',
  '{"a":1,"b":[0]}',
  '[',
  '{"__proto__":1}',
  '[1e999]',
  '--bind',
  'a=3',
  'a=',
  '=3',
  'b=[1,2]',
  'a=NaN',
  '--passes',
  'const-prop,dae',
  'fusion',
  ',,',
  './nosuch.ts',
  '--emit',
  'js',
  'wgsl',
  'c',
  '--run',
  '--backend',
  'js',
  'webgpu',
  '--staged',
  TMP,
  '--out',
  path.join(TMP, 'cl-out'),
  '/dev/null',
  '--fuel',
  '0',
  '-1',
  '1e3',
  '--k',
  '99',
  '--quiet',
  '--explain',
  '--json',
  '--help',
  '-h',
  '--version',
  '--frob',
  '-z',
  '--',
  '--args=1',
  '--function=f',
  '',
];

describe('malformed command lines', () => {
  it(`random words after each command: exit 0, 1 or 2, never a stack trace (${RUNS * 2} command lines)`, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...COMMANDS),
        fc.array(fc.constantFrom(...WORDS), { maxLength: 7 }),
        async (command, words) => {
          // staging a valid config is slow and checked elsewhere; --help and --version are not bad input
          const argv = command === 'stage' ? words.filter((w) => w !== SMALL_CONFIG) : words;
          const r = await run('command line', 30_000, command, ...argv);
          if (r.code === 2)
            expect(r.err.split('\n')[0], argv.join(' ')).toMatch(/^(scf \w+: |\S+:\d+:\d+: error)/);
        },
      ),
      { numRuns: RUNS * 2, seed: SEED },
    );
  }, 600_000);
});
