/**
 * Staged folders under attack and under accident, through `scf stage` and the stub it writes:
 *
 * 1. Names that reach generated code: a pass file whose name holds a line break and JavaScript,
 *    a config in a folder whose path holds a comment's end. The folder stages, imports and runs;
 *    none of the name runs.
 * 2. Folders that could lie: modules edited by hand, cut short, deleted, or left by another stage
 *    (what a stage killed between its renames leaves). The stub never runs such a module: it
 *    warns once and gives the unstaged pipeline's result.
 * 3. Leftovers and concurrency: a lock and a temporary folder of a process that is gone are
 *    cleared; two stages into one folder, at once, leave one consistent folder.
 * 4. Nothing outside `--out` is written or removed: a link inside it is replaced, not written
 *    through; a failed stage removes only the empty folders it made.
 */
import { execFileSync, spawn } from 'node:child_process';
import {
  existsSync,
  lstatSync,
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
import { isDeepStrictEqual } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { prepareOutDir } from '../../src/cli/out-path.js';
import {
  importStub,
  LOCK_FILE,
  loadConfig,
  stageConfig,
  TEMP_PREFIX,
  writeStaged,
} from '../../src/pipeline/index.js';
import { cli } from '../cli/helpers.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const TMP = mkdtempSync(path.join(tmpdir(), 'scf-hostile-folders-'));
afterAll(() => rmSync(TMP, { recursive: true, force: true }));

const KERNEL = readFileSync(path.join(ROOT, 'tests/fixtures/optimizers/mul_add-a1/input.c'), 'utf8');
const IDENTITY_PASS =
  "import type { Fun } from 'scf/kernel';\nexport function optimize(f: Fun): Fun {\n  return f;\n}\n";

let n = 0;
/** A fresh folder with the kernel and a config `{ pipeline, bind }` in it; returns the config's path. */
function project(
  pipeline: readonly string[],
  bind: Record<string, unknown>,
  sub = '',
  extra: Record<string, unknown> = {},
): string {
  const dir = path.join(TMP, `p${n++}`, sub);
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'input.c'), KERNEL);
  const config = path.join(dir, 'c.json');
  writeFileSync(config, JSON.stringify({ input: 'input.c', function: 'mul_add', pipeline, bind, ...extra }));
  return config;
}

async function stage(config: string, out: string): Promise<void> {
  const r = await cli('stage', config, '--out', out, '-q');
  expect(r.err).not.toMatch(/internal error/);
  expect(r.code, r.err).toBe(0);
}

/** specialize(values) through the stub in `out`: its result, whether staged, and its warnings. */
async function specialize(out: string, values: Record<string, number>) {
  const stubFile = path.join(out, 'mul_add.stub.mjs');
  const stub = await importStub(stubFile);
  const warnings: string[] = [];
  const r = stub.specialize(values, (m) => warnings.push(m));
  const unstaged = stub.unstagedPipeline(stub.formalsOf(values));
  expect(isDeepStrictEqual(r.fun, unstaged)).toBe(true);
  return { ...r, warnings };
}

/** A copy of `out` under a new name, so the stub is imported afresh (module URLs are cached). */
function copyOf(out: string): string {
  const to = `${out}-${n++}`;
  execFileSync('cp', ['-R', out, to]);
  return to;
}

describe('names that reach generated code', () => {
  it('a pass named with a line break and JavaScript, a config under a folder named with */: nothing runs', async () => {
    const config = project(
      ['const-prop', './p\nglobalThis.PWNED = 1;\u2028globalThis.PWNED = 2;.ts'],
      { a: 1 },
      'x*',
    );
    writeFileSync(
      path.join(path.dirname(config), 'p\nglobalThis.PWNED = 1;\u2028globalThis.PWNED = 2;.ts'),
      IDENTITY_PASS,
    );
    expect(config).toContain('*/');
    const out = path.join(TMP, `out${n++}`);
    await stage(config, out);
    const r = await specialize(out, { a: 1 });
    expect(r.staged).toBe(true);
    expect((globalThis as { PWNED?: unknown }).PWNED).toBeUndefined();
    for (const f of readdirSync(out).filter((f) => f.endsWith('.mjs'))) {
      const text = readFileSync(path.join(out, f), 'utf8');
      expect(text, f).not.toMatch(/^\s*globalThis\.PWNED/m);
      expect(text, f).not.toMatch(/[\u2028\u2029]/);
    }
  });
});

// the same lies told to a folder staged pass by pass and to one staged as one program (the
// composition of its passes, one module: what mul_add's pipeline stages to by default)
describe.each([
  ['per-pass', 'mul_add.const-prop.staged.mjs', 'mul_add.dae.staged.mjs'],
  ['whole', 'mul_add.whole.staged.mjs', 'mul_add.whole.staged.mjs'],
])('staged folders that could lie, staged %s', (staging, module, last) => {
  const pipeline = ['const-prop', 'copy-prop', 'dae'];
  const config = project(pipeline, { a: "'Int" }, '', { staging });
  const base = path.join(TMP, `base-${staging}`);

  it('an untouched folder runs staged', async () => {
    await stage(config, base);
    const r = await specialize(copyOf(base), { a: 3 });
    expect(r).toMatchObject({ staged: true, warnings: [] });
    expect(readdirSync(base).filter((f) => f.startsWith('.'))).toEqual([]);
  });

  it('a module edited by hand never runs: the stub warns and runs the unstaged pipeline', async () => {
    const out = copyOf(base);
    const file = path.join(out, module);
    writeFileSync(file, `globalThis.EDITED = 1;\n${readFileSync(file, 'utf8')}`);
    const r = await specialize(out, { a: 3 });
    expect(r.staged).toBe(false);
    expect((globalThis as { EDITED?: unknown }).EDITED).toBeUndefined();
    expect(r.warnings).toEqual([
      expect.stringContaining(`${module} is not the one staged with this stub); re-stage`),
    ]);
  });

  it('a module cut short or deleted: a warning and the unstaged result, no error', async () => {
    const cut = copyOf(base);
    const file = path.join(cut, module);
    writeFileSync(file, readFileSync(file, 'utf8').slice(0, 100));
    expect((await specialize(cut, { a: 3 })).staged).toBe(false);
    const gone = copyOf(base);
    rmSync(path.join(gone, last));
    const r = await specialize(gone, { a: 3 });
    expect(r.staged).toBe(false);
    expect(r.warnings[0]).toContain(`${last} is missing`);
  });

  it("another stage's modules under the old stub (a stage killed before its stub was renamed)", async () => {
    const other = path.join(TMP, 'other');
    await stage(project(pipeline, { a: 2 }, '', { staging }), other);
    const out = copyOf(base);
    for (const f of readdirSync(other).filter((f) => f.endsWith('.staged.mjs'))) {
      writeFileSync(path.join(out, f), readFileSync(path.join(other, f)));
    }
    const r = await specialize(out, { a: 3 });
    expect(r.staged).toBe(false);
    expect(r.warnings[0]).toMatch(/is not the one staged with this stub/);
  });

  it('a stub of the other staging over these modules (a folder mixing the two)', async () => {
    const other = path.join(TMP, `other-staging-${staging}`);
    await stage(
      project(pipeline, { a: "'Int" }, '', { staging: staging === 'whole' ? 'per-pass' : 'whole' }),
      other,
    );
    // the other stub, with these modules beside it and the other's too: its manifest's hashes
    // name its own modules, which are not these
    const out = copyOf(base);
    writeFileSync(path.join(out, 'mul_add.stub.mjs'), readFileSync(path.join(other, 'mul_add.stub.mjs')));
    const r = await specialize(out, { a: 3 });
    expect(r.staged).toBe(false);
    expect(r.warnings[0]).toMatch(/is missing|is not the one staged with this stub/);
    // its manifest's staging says how many modules it names: a whole stub naming per-pass modules
    // (or the reverse) is refused before any is read
    const mixed = copyOf(base);
    const stub = readFileSync(path.join(mixed, 'mul_add.stub.mjs'), 'utf8');
    const flipped =
      staging === 'whole'
        ? stub.replace('"staging":"whole",', '')
        : stub.replace('"kernel":', '"staging":"whole","kernel":');
    expect(flipped).not.toBe(stub);
    writeFileSync(path.join(mixed, 'mul_add.stub.mjs'), flipped);
    const m = await specialize(mixed, { a: 3 });
    expect(m.staged).toBe(false);
    expect(m.warnings[0]).toMatch(
      /the manifest names \d staged modules for 3 passes staged (as one program|pass by pass)/,
    );
  });

  it('re-staging a folder with a shorter pipeline removes the modules the stub no longer names', async () => {
    const out = copyOf(base);
    await stage(project(['const-prop'], { a: "'Int" }), out);
    // (a pipeline of one pass is staged pass by pass, however the longer one was)
    expect(readdirSync(out).filter((f) => f.endsWith('.staged.mjs'))).toEqual([
      'mul_add.const-prop.staged.mjs',
    ]);
    expect((await specialize(out, { a: 5 })).staged).toBe(true);
  });
});

describe('leftovers and concurrency', () => {
  /** The pid of a process that has exited (and been reaped). */
  function deadPid(): number {
    return Number(
      execFileSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
        encoding: 'utf8',
      }),
    );
  }

  it('a lock and a temporary folder left by a killed stage are cleared', async () => {
    const out = path.join(TMP, `left${n++}`);
    mkdirSync(out);
    const pid = deadPid();
    writeFileSync(path.join(out, LOCK_FILE), String(pid));
    mkdirSync(path.join(out, `${TEMP_PREFIX}${pid}-abc`));
    writeFileSync(path.join(out, `${TEMP_PREFIX}${pid}-abc`, 'mul_add.stub.mjs'), 'half');
    await stage(project(['const-prop'], { a: 1 }), out);
    expect(readdirSync(out).filter((f) => f.startsWith('.'))).toEqual([]);
    expect((await specialize(out, { a: 1 })).staged).toBe(true);
  });

  it('two stages into one folder at once leave one consistent folder', async () => {
    const out = path.join(TMP, `both${n++}`);
    const bin = path.join(ROOT, 'bin/scf.js');
    const run = (config: string): Promise<number> =>
      new Promise((resolve) => {
        const child = spawn(process.execPath, [bin, 'stage', config, '--out', out, '-q'], {
          stdio: 'ignore',
        });
        child.on('exit', (code) => resolve(code ?? -1));
      });
    const codes = await Promise.all([
      run(project(['const-prop', 'copy-prop', 'dae'], { a: 1 })),
      run(project(['const-prop', 'dae'], { a: "'Int" })),
    ]);
    expect(codes).toEqual([0, 0]);
    expect(readdirSync(out).filter((f) => f.startsWith('.'))).toEqual([]);
    const r = await specialize(out, { a: 1 });
    expect(r).toMatchObject({ staged: true, warnings: [] });
  }, 60_000);
});

describe('nothing outside --out', () => {
  it('a link inside --out is replaced, not written through', async () => {
    const out = path.join(TMP, `links${n++}`);
    mkdirSync(out);
    const victim = path.join(TMP, `victim${n++}.txt`);
    writeFileSync(victim, 'keep me');
    symlinkSync(victim, path.join(out, 'mul_add.stub.mjs'));
    symlinkSync(victim, path.join(out, 'mul_add.const-prop.staged.mjs'));
    await stage(project(['const-prop'], { a: 1 }), out);
    expect(readFileSync(victim, 'utf8')).toBe('keep me');
    expect(lstatSync(path.join(out, 'mul_add.stub.mjs')).isSymbolicLink()).toBe(false);
    expect((await specialize(out, { a: 1 })).staged).toBe(true);
  });

  it('a failed stage removes the empty folders it made and nothing else', async () => {
    const top = path.join(TMP, `made${n++}`);
    const config = project(['const-prop', './no-such-pass.ts'], { a: 1 });
    const r = await cli('stage', config, '--out', path.join(top, 'a', 'b'), '-q');
    expect(r.code).toBe(2);
    expect(existsSync(top)).toBe(false);
    // a file put beside the folders while the stage ran stays, with the folder that holds it
    const made = prepareOutDir(path.join(top, 'a', 'b'), '--out');
    writeFileSync(path.join(top, 'user.txt'), 'mine');
    made.removeCreated();
    expect(existsSync(path.join(top, 'a'))).toBe(false);
    expect(readFileSync(path.join(top, 'user.txt'), 'utf8')).toBe('mine');
  });
});

describe("a staged folder of a user's pass, moved or deployed", () => {
  it('moved within the app it runs staged, and falls back to the pass where it was staged from', async () => {
    const config = project(['const-prop', './mine.ts'], { a: '1|2' });
    writeFileSync(path.join(path.dirname(config), 'mine.ts'), IDENTITY_PASS);
    const out = path.join(path.dirname(config), 'generated');
    await stage(config, out);
    const moved = path.join(path.dirname(config), 'src', 'deep', 'er', 'staged');
    mkdirSync(path.dirname(moved), { recursive: true });
    execFileSync('cp', ['-R', out, moved]);
    expect(await specialize(moved, { a: 2 })).toMatchObject({ staged: true, warnings: [] });
    const outside = await specialize(copyOf(moved), { a: 5 });
    expect(outside.staged).toBe(false);
    expect(outside.warnings[0]).toMatch(/formal 'a' = 5 is outside its early description 1\|2/);
  });

  it("deployed without the pass's source it runs staged; only the fallback needs the source, and says so", async () => {
    const config = project(['const-prop', './gone.ts'], { a: '1|2' });
    const pass = path.join(path.dirname(config), 'gone.ts');
    writeFileSync(pass, IDENTITY_PASS);
    const out = path.join(TMP, `deployed${n++}`);
    await stage(config, out);
    rmSync(pass);
    const stub = await importStub(path.join(out, 'mul_add.stub.mjs'));
    const warnings: string[] = [];
    expect(stub.specialize({ a: 1 }, (m) => warnings.push(m)).staged).toBe(true);
    expect(warnings).toEqual([]);
    expect(() => stub.specialize({ a: 7 }, () => {})).toThrow(
      /gone: its source is neither at .* the unstaged pipeline .* needs it/,
    );
  });

  it('a value for a formal the config did not bind is named as such', async () => {
    const out = path.join(TMP, `unbound${n++}`);
    await stage(project(['const-prop'], { a: '1|2' }), out);
    const stub = await importStub(path.join(out, 'mul_add.stub.mjs'));
    const warnings: string[] = [];
    const r = stub.specialize({ a: 1, x: 3 }, (m) => warnings.push(m));
    expect(r.staged).toBe(false);
    expect(warnings[0]).toMatch(/formal 'x' = 3 was not bound early \(the config binds 'a'\)/);
  });
});

describe('the formals are admitted whichever pass takes them first', () => {
  it.each([
    [['dae', 'const-prop'], 1],
    [['copy-prop', 'dae', 'const-prop'], '0|3'],
  ] as const)(
    'pipeline %j, bind a = %j: values outside the description run unstaged',
    async (pipeline, a) => {
      const out = path.join(TMP, `late-formals${n++}`);
      await stage(project(pipeline, { a }), out);
      const inside = a === 1 ? [1] : [0, 3];
      for (const v of inside) expect((await specialize(copyOf(out), { a: v })).staged, `a = ${v}`).toBe(true);
      for (const v of [2, -5, 7]) {
        const r = await specialize(copyOf(out), { a: v });
        expect(r.staged, `a = ${v}`).toBe(false);
        expect(r.warnings[0]).toMatch(new RegExp(`formal 'a' = ${v} is outside its early description`));
      }
    },
  );
});

describe('writeStaged through the API, and a pass source that stops being a file', () => {
  it('a name that is a path, or a folder in /proc, is refused before anything is written', async () => {
    const config = project(['const-prop'], { a: 1 });
    const staged = await stageConfig(loadConfig(config), {});
    const out = path.join(path.dirname(config), 'api-out');
    for (const name of ['../escaped', '../../escaped2', '..', 'a/b', 'a\\b']) {
      expect(
        () => writeStaged(staged.stages, { outDir: out, name, fun: staged.fun, bind: staged.config.bind }),
        name,
      ).toThrow(/is not a file name/);
    }
    expect(readdirSync(path.dirname(config)).some((f) => f.startsWith('escaped'))).toBe(false);
    expect(() =>
      writeStaged(staged.stages, { outDir: '/proc/x/y', fun: staged.fun, bind: staged.config.bind }),
    ).toThrow(/system file system/);
  });

  it("a user's pass source replaced by a FIFO: specialize neither hangs nor crashes", async () => {
    const config = project(['const-prop', './fifo-later.ts'], { a: '1|2' });
    const pass = path.join(path.dirname(config), 'fifo-later.ts');
    writeFileSync(pass, IDENTITY_PASS);
    const out = path.join(TMP, `fifo-pass${n++}`);
    await stage(config, out);
    rmSync(pass);
    execFileSync('mkfifo', [pass]);
    const stub = await importStub(path.join(out, 'mul_add.stub.mjs'));
    const warnings: string[] = [];
    // stale: the unstaged pipeline runs (its pass, loaded once per process, is this process's
    // own copy; a fresh process would be told the source is a FIFO)
    try {
      expect(stub.specialize({ a: 1 }, (m) => warnings.push(m)).staged).toBe(false);
    } catch (e) {
      expect(String(e)).toMatch(/FIFO/);
    }
    expect(warnings[0]).toMatch(/fifo-later's source .* cannot be read \(is a FIFO/);
  });
});

describe('odd things where the lock or a module should be', () => {
  it('a lock that is a link (dangling or not), garbage text or a folder: no hang', async () => {
    const victim = path.join(TMP, `lock-victim${n++}.txt`);
    writeFileSync(victim, 'keep me');
    const config = project(['const-prop'], { a: 1 });
    for (const make of [
      (lock: string) => symlinkSync(victim, lock),
      (lock: string) => symlinkSync(path.join(TMP, 'nowhere', 'x'), lock),
      (lock: string) => writeFileSync(lock, ' 1'),
      (lock: string) => writeFileSync(lock, '99999999999999999999'),
    ]) {
      const out = path.join(TMP, `odd-lock${n++}`);
      mkdirSync(out);
      make(path.join(out, LOCK_FILE));
      await stage(config, out);
      expect(readdirSync(out).filter((f) => f.startsWith('.'))).toEqual([]);
    }
    expect(readFileSync(victim, 'utf8')).toBe('keep me');
    const out = path.join(TMP, `odd-lock${n++}`);
    mkdirSync(path.join(out, LOCK_FILE), { recursive: true });
    const r = await cli('stage', config, '--out', out, '-q');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/is not a lock file of scf's/);
  });

  it('a module replaced by a FIFO or a link to /dev/zero is not imported: a warning, the unstaged result', async () => {
    const base = path.join(TMP, `odd-module${n++}`);
    await stage(project(['const-prop', 'dae'], { a: "'Int" }, '', { staging: 'per-pass' }), base);
    for (const make of [
      (m: string) => execFileSync('mkfifo', [m]),
      (m: string) => symlinkSync('/dev/zero', m),
    ]) {
      const out = copyOf(base);
      const m = path.join(out, 'mul_add.dae.staged.mjs');
      rmSync(m);
      make(m);
      const r = await specialize(out, { a: 3 });
      expect(r.staged).toBe(false);
      expect(r.warnings[0]).toMatch(/the staged module mul_add\.dae\.staged\.mjs cannot be read/);
    }
  });
});
