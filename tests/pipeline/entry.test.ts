/**
 * Entry configs: a writer's own SCF-lang function over their own types, staged for what its
 * config says is known early, its stub equal to the function run natively — on members drawn from
 * the description itself, on arguments outside it (the unstaged run, with a warning through the
 * hook), after its source changed (stale: the current source runs), and with its staged module
 * tampered with. Descriptions that do not fit the entry's types are positioned errors.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { arbMember, testEntry } from '../../src/testing.js';
import { benchEntryConfig, entryConfigsIn } from '../../src/bench/index.js';
import {
  ConfigError,
  importStub,
  loadEntry,
  loadEntryConfig,
  readEntryConfig,
  stageEntry,
  writeStagedEntry,
} from '../../src/pipeline/index.js';
import { ROOT } from '../optimizers/helpers.js';

const TMP = mkdtempSync(path.join(tmpdir(), 'scf-entry-'));
afterAll(() => rmSync(TMP, { recursive: true, force: true }));

/** The example folder copied (so a test may change its source), staged into `out`. */
async function stagedCopy(
  name: string,
  config: (c: Record<string, unknown>) => Record<string, unknown> = (c) => c,
  before: (dir: string) => void = () => {},
) {
  const dir = path.join(TMP, name);
  cpSync(path.join(ROOT, 'examples/own-ir'), dir, { recursive: true });
  const file = path.join(dir, 'interp.json');
  writeFileSync(file, JSON.stringify(config(JSON.parse(readFileSync(file, 'utf8')))));
  const loaded = loadEntry(loadEntryConfig(file));
  const out = path.join(dir, 'staged');
  writeStagedEntry(stageEntry(loaded), out);
  before(dir);
  // a fresh URL per folder: each stub is its own module instance
  const stub = (await importStub(path.join(out, 'run.stub.mjs'))) as unknown as {
    run: (program: unknown, input: number) => number;
    SCF: {
      staged: (...a: unknown[]) => unknown;
      staleness: () => string | undefined;
      onFallback: (w: (m: string) => void) => (m: string) => void;
    };
  };
  const native = (await import(path.join(dir, 'interp.ts'))) as { run: (p: unknown, i: number) => number };
  return { dir, out, loaded, stub, native };
}

const cons = (xs: readonly unknown[]): unknown =>
  xs.reduceRight((tail: unknown, head) => ({ kind: 'cons', head, tail }), { kind: 'nil' });

describe('an entry config: the stack-machine interpreter staged against a known program', () => {
  it('stages the loop into straight code and equals the interpreter on every input', async () => {
    const { loaded, stub, native, out } = await stagedCopy('known');
    const program = loaded.runArgs?.[0];
    expect(program).toBeDefined();
    // the staged module no longer dispatches on instructions: no `kind === 'push'` test is left
    const code = readFileSync(path.join(out, 'run.staged.mjs'), 'utf8');
    expect(code.split('export function admit_0')[0]).not.toMatch(/kind === 'push'/);
    const warnings: string[] = [];
    stub.SCF.onFallback((m) => warnings.push(m));
    fc.assert(
      fc.property(fc.integer({ min: -5, max: 120 }), (n) => stub.run(program, n) === native.run(program, n)),
    );
    expect(warnings).toEqual([]);
    expect(stub.SCF.staleness()).toBeUndefined();
    // an admitted argument is frozen, and not checked again
    expect(Object.isFrozen(program)).toBe(true);
  });

  it('runs every program the description admits as the interpreter does (members drawn from it)', async () => {
    // the loop bound and the constants are holes: any int
    const { loaded, stub, native } = await stagedCopy('holes', (c) => {
      const prog = (c.bind as { program: { kind: string; value?: unknown }[] }).program.map((ins) =>
        ins.kind === 'push' ? { kind: 'push', value: "'Int" } : ins,
      );
      return { ...c, bind: { program: prog } };
    });
    const warnings: string[] = [];
    stub.SCF.onFallback((m) => warnings.push(m));
    const desc = loaded.inputs[0];
    if (desc === undefined) throw new Error('no description');
    fc.assert(
      fc.property(
        arbMember(desc, { ctors: loaded.program.ctors }),
        fc.integer({ min: 0, max: 40 }),
        (program, n) => {
          // a drawn program may step by 0 or backwards: bound the loop as natively
          const want = (() => {
            try {
              return native.run(program, n);
            } catch {
              return undefined;
            }
          })();
          if (want === undefined) return true;
          return stub.run(program, n) === want;
        },
      ),
      { numRuns: 60 },
    );
    expect(warnings).toEqual([]);
  });

  it('runs arguments outside the description unstaged, with a warning through the hook', async () => {
    const { stub, native } = await stagedCopy('outside');
    const warnings: string[] = [];
    stub.SCF.onFallback((m) => warnings.push(m));
    const other = cons([
      { kind: 'push', value: 5 },
      { kind: 'load', slot: 0 },
      { kind: 'mul' },
      { kind: 'ret' },
    ]);
    expect(stub.run(other, 7)).toBe(native.run(other, 7));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(
      /^scf: \.\/interp\.ts#run: argument 'program' is outside its early description \[.*\(input not admitted at \$\[0\]\.head\.value: expected 0, got 5\); running the unstaged function$/,
    );
    expect(() => stub.SCF.staged(other, 7)).toThrow(/not admitted/);
    expect(() => (stub.run as (...a: unknown[]) => unknown)(other)).toThrow(
      /takes 2 argument\(s\) \(program, input\), not 1/,
    );
  });

  it('arguments not of their declared types are a TypeError naming the parameter and the place', async () => {
    const { stub, native, loaded } = await stagedCopy('types');
    const PROGRAM = loaded.runArgs?.[0];
    const warnings: string[] = [];
    stub.SCF.onFallback((m) => warnings.push(m));
    const run = stub.run as (...a: unknown[]) => unknown;
    // unknown early, and not a number
    for (const bad of ['7', null, { kind: 'push', value: 1 }])
      expect(() => run(PROGRAM, bad)).toThrow(
        /^scf: \.\/interp\.ts#run: argument 'input' is not a value of its declared type: at input: expected 'Float/,
      );
    // described early: a list whose element is no instruction, a kind the type lacks
    const odd = cons([{ kind: 'push', value: 'x' }, { kind: 'ret' }]);
    expect(() => run(odd, 1)).toThrow(
      /argument 'program' is not a value of its declared type: at program\.head\.value/,
    );
    expect(() => run(cons([{ kind: 'jump' }]), 1)).toThrow(
      /argument 'program' is not a value of its declared type/,
    );
    expect(() => run([1, 2], 1)).toThrow(/argument 'program' is not a value of its declared type/);
    expect(warnings).toEqual([]);
    // the right types still run, staged
    expect(run(PROGRAM, 3)).toBe(native.run(PROGRAM, 3));
  });

  it('a changed source makes the stub stale: it warns once and runs the current source', async () => {
    const { dir, loaded, stub } = await stagedCopy('stale');
    const program = loaded.runArgs?.[0];
    const src = path.join(dir, 'interp.ts');
    writeFileSync(
      src,
      readFileSync(src, 'utf8').replace(
        "if (op === 'add') return (a + b) | 0;",
        "if (op === 'add') return (a + b + 1) | 0;",
      ),
    );
    const warnings: string[] = [];
    stub.SCF.onFallback((m) => warnings.push(m));
    expect(stub.SCF.staleness()).toMatch(/the source .*interp\.ts changed/);
    const changed = (await import(`${src}?changed`)) as { run: (p: unknown, i: number) => number };
    expect(stub.run(program, 10)).toBe(changed.run(program, 10));
    stub.run(program, 11);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/changed; re-stage with 'scf stage'; running the unstaged function$/);
  });

  it('a tampered staged module never runs', async () => {
    const { loaded, native, stub } = await stagedCopy(
      'tampered',
      (c) => c,
      (dir) => {
        const mod = path.join(dir, 'staged/run.staged.mjs');
        writeFileSync(mod, readFileSync(mod, 'utf8').replace('| 0', '| 1'));
      },
    );
    const warnings: string[] = [];
    stub.SCF.onFallback((m) => warnings.push(m));
    expect(stub.SCF.staleness()).toMatch(/run\.staged\.mjs is not the one staged with this stub/);
    const program = loaded.runArgs?.[0];
    expect(stub.run(program, 9)).toBe(native.run(program, 9));
  });
});

describe('entry config errors, positioned', () => {
  const dir = path.join(TMP, 'errors');
  mkdirSync(dir, { recursive: true });
  cpSync(path.join(ROOT, 'examples/own-ir/interp.ts'), path.join(dir, 'interp.ts'), { recursive: true });
  const load = (text: string): string => {
    const file = path.join(dir, 'c.json');
    writeFileSync(file, text);
    try {
      loadEntry(readEntryConfig(text, file));
    } catch (e) {
      if (e instanceof ConfigError) return e.message.slice(file.length);
      throw e;
    }
    return 'accepted';
  };
  it.each([
    [
      '{ "entry": "./interp.ts#run", "bind": { "program": [{ "kind": "psh" }] } }',
      ":1:63: error D1002: type 'Instr' has no constructor 'psh' (expected 'push', 'load', 'store', 'add', 'sub', 'mul', 'lt', 'jmp', 'jz', 'ret')",
    ],
    [
      '{ "entry": "./interp.ts#run", "bind": { "program": [{ "kind": "push" }] } }',
      ":1:53: error D1002: constructor 'push' of type 'Instr' needs its field 'value'",
    ],
    [
      '{ "entry": "./interp.ts#run", "bind": { "program": [{ "kind": "push", "value": "x" }] } }',
      ":1:80: error D1002: the string \"x\" does not fit type 'number' (in field 'value' of 'push')",
    ],
    [
      '{ "entry": "./interp.ts#run", "bind": { "program": [{ "kind": "ret", "__proto__": 1 }] } }',
      ":1:70: error D1002: constructor 'ret' of type 'Instr' has no field '__proto__'",
    ],
    [
      `{ "entry": "./interp.ts#run", "bind": { "program": "'Instrs" } }`,
      ":1:52: error D1002: no type 'Instrs' is declared where type 'List<Instr>' is expected",
    ],
    [
      `{ "entry": "./interp.ts#run", "bind": { "input": "'Str" } }`,
      ":1:50: error D1002: 'Str does not fit type 'number'",
    ],
    [
      `{ "entry": "./interp.ts#run", "bind": { "prog": "'Any" } }`,
      ":1:41: error D1003: 'prog' is not a parameter of 'run' (its parameters: 'program', 'input')",
    ],
    [
      `{ "entry": "./interp.ts#run", "bind": { "input": "'Int" }, "sample": { "input": 2.5 } }`,
      ":1:81: error C1009: the sample of 'input' is outside its description in 'bind'",
    ],
    ['{ "entry": "./nofile.ts#run" }', ":1:12: error C1013: no file './nofile.ts'"],
    [
      '{ "entry": "./interp.ts" }',
      `:1:12: error C1013: 'entry' must be "./file.ts#exportName", not './interp.ts'`,
    ],
    [
      '{ "entry": "./interp.ts#run", "input": "x.c" }',
      ":1:31: error C1003: unknown key 'input' in an entry config (expected 'id', 'description', 'entry', 'bind', 'sample', 'args', 'pe')",
    ],
  ])('%s', (text, want) => {
    expect(load(text)).toBe(want);
  });

  it('an entry that is not exported, or not SCF-lang, is refused at the entry', () => {
    expect(load('{ "entry": "./interp.ts#nope" }')).toMatch(
      /^:1:12: error C1013: '.*interp\.ts' exports no function 'nope' \(it exports 'from', /,
    );
    writeFileSync(
      path.join(dir, 'bad.ts'),
      'export function f(x: number): number { let y = x; y++; return y; }\n',
    );
    expect(load('{ "entry": "./bad.ts#f" }')).toMatch(
      /^:1:12: error C1013: the entry's module is not valid SCF-lang:\n.*bad\.ts:1:/,
    );
  });
});

describe('scf test: staged ≡ unstaged on draws from the descriptions', () => {
  // the nightly run (npm run test:nightly sets SCF_STAGED_RUNS) draws 10^4 members per example
  const nightly = process.env.SCF_STAGED_RUNS !== undefined;
  it.each(['interp.json', 'regex.json'])(
    `%s: staged ≡ unstaged on ${nightly ? '10,000' : '100'} drawn members`,
    async (name) => {
      const loaded = loadEntry(loadEntryConfig(path.join(ROOT, 'examples/own-ir', name)));
      process.env.SCF_PASS_FUEL = '100000';
      try {
        const r = await testEntry(loaded, { runs: nightly ? 10_000 : 100, seed: 11 });
        expect(r.failure).toBeUndefined();
        expect(r.compared).toBeGreaterThan(r.runs / 2);
      } finally {
        delete process.env.SCF_PASS_FUEL;
      }
    },
    nightly ? 3_600_000 : 60_000,
  );

  it('compares the interpreter config on drawn inputs, reproducibly from its seed', async () => {
    const loaded = loadEntry(loadEntryConfig(path.join(ROOT, 'examples/own-ir/interp.json')));
    process.env.SCF_PASS_FUEL = '100000';
    try {
      const a = await testEntry(loaded, { runs: 40, seed: 7 });
      const b = await testEntry(loaded, { runs: 40, seed: 7 });
      expect(a.failure).toBeUndefined();
      expect(a.compared).toBeGreaterThan(20);
      expect(a.compared + a.skipped).toBe(40);
      expect(b).toEqual(a);
    } finally {
      delete process.env.SCF_PASS_FUEL;
    }
  });
});

describe('an entry config: the regex matcher staged against a known pattern', () => {
  it('compiles the pattern at staging time and matches every text as the matcher does', async () => {
    const dir = path.join(TMP, 'regex');
    cpSync(path.join(ROOT, 'examples/own-ir'), dir, { recursive: true });
    const loaded = loadEntry(loadEntryConfig(path.join(dir, 'regex.json')));
    const out = path.join(dir, 'staged');
    writeStagedEntry(stageEntry(loaded), out);
    const code = readFileSync(path.join(out, 'matches.staged.mjs'), 'utf8');
    // no token is looked at any more: the staged code tests characters of the text only
    expect(code.split('export function admit_0')[0]).not.toMatch(/\.kind === '(lit|star|any|end)'/);
    const stub = (await importStub(path.join(out, 'matches.stub.mjs'))) as unknown as {
      matches: (re: string, text: string) => boolean;
      SCF: { onFallback: (w: (m: string) => void) => unknown };
    };
    const native = (await import(path.join(ROOT, 'examples/own-ir/regex.ts'))) as {
      matches: (re: string, t: string) => boolean;
    };
    const warnings: string[] = [];
    stub.SCF.onFallback((m) => warnings.push(m));
    const re = '^ERROR .*timed out after .*ms$';
    const piece = fc.constantFrom('ERROR ', 'timed out after ', 'ms', 'm', 's', 'E', 'x', ' ', '3000');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 8 }), (parts) => {
        const text = parts.join('');
        return stub.matches(re, text) === native.matches(re, text);
      }),
      { numRuns: 400 },
    );
    expect(stub.matches(re, 'ERROR pool: timed out after 30ms')).toBe(true);
    expect(stub.matches(re, 'ERROR pool: timed out after 30m')).toBe(false);
    expect(warnings).toEqual([]);
    // another pattern runs unstaged
    expect(stub.matches('b*x', 'bbx')).toBe(true);
    expect(warnings).toHaveLength(1);
  });

  it('scf bench --dir times both examples: staged and unstaged equal', async () => {
    const rows = await Promise.all(
      entryConfigsIn(path.join(ROOT, 'examples/own-ir')).map((f) => benchEntryConfig(f, 20)),
    );
    expect(rows.map((r) => path.basename(r.config))).toEqual(['interp.json', 'regex.json']);
    for (const r of rows) {
      expect(r.equal).toBe(true);
      expect(r.stagedUs).toBeGreaterThan(0);
      expect(r.unstagedUs).toBeGreaterThan(0);
    }
  });
});
