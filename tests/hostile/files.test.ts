/**
 * Files that are not sources, named as sources: devices, FIFOs, folders, links out of the
 * project, files of /proc; configs with a byte-order mark; names a megabyte long. Through the CLI
 * in-process: a clear exit 2 at once (no hang: a FIFO no one writes to, /dev/zero), nothing left
 * in `--out`, and no message that prints what such a file holds or echoes a name whole.
 */
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cli } from '../cli/helpers.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const TMP = mkdtempSync(path.join(tmpdir(), 'scf-hostile-files-'));
afterAll(() => rmSync(TMP, { recursive: true, force: true }));

const KERNEL = readFileSync(path.join(ROOT, 'tests/fixtures/optimizers/mul_add-a1/input.c'), 'utf8');
writeFileSync(path.join(TMP, 'input.c'), KERNEL);
const FIFO = path.join(TMP, 'fifo');
execFileSync('mkfifo', [FIFO, `${FIFO}.ts`, `${FIFO}.c`, `${FIFO}.json`]);
/** A secret only a file outside the project holds. */
const SECRET = 'SCF_SECRET_7f3a';
const OUTSIDE = mkdtempSync(path.join(tmpdir(), 'scf-hostile-outside-'));
afterAll(() => rmSync(OUTSIDE, { recursive: true, force: true }));
writeFileSync(path.join(OUTSIDE, 'secret.txt'), `${SECRET} = 1;\n`);

type Run = { code: number; out: string; err: string };

/** Exit 2, at once, with `why` in the message and no stack trace or internal error. */
async function refused(why: RegExp, ...argv: string[]): Promise<Run> {
  const start = performance.now();
  const r = await cli(...argv);
  expect(performance.now() - start, argv.join(' ')).toBeLessThan(10_000);
  expect(r.err, argv.join(' ')).not.toMatch(/internal error|\n\s+at \S+ \(/);
  expect(r.code, r.err).toBe(2);
  expect(r.err).toMatch(why);
  return r;
}

function config(name: string, fields: Record<string, unknown>, text?: string): string {
  const f = path.join(TMP, name);
  writeFileSync(
    f,
    text ??
      JSON.stringify({
        input: 'input.c',
        function: 'mul_add',
        pipeline: ['const-prop'],
        bind: { a: 1 },
        ...fields,
      }),
  );
  return f;
}

describe('only regular files are sources', () => {
  it('devices: scf check /dev/zero, scf eval /dev/zero, a config reading /dev/zero', async () => {
    await refused(/cannot read '\/dev\/zero': is a system file/, 'check', '/dev/zero');
    await refused(/cannot read '\/dev\/zero'/, 'eval', '/dev/zero', '--args', '[]');
    await refused(
      /cannot read the configuration: is a system file/,
      'stage',
      '/dev/zero',
      '--out',
      path.join(TMP, 'o'),
    );
    const c = config('dev.json', { input: '/dev/zero' });
    const out = path.join(TMP, 'out-dev', 'x');
    await refused(/error C1005: .*\/dev\/zero/, 'stage', c, '--out', out);
    expect(existsSync(path.join(TMP, 'out-dev'))).toBe(false);
  });

  it('FIFOs no one writes to, as a kernel, a pass, a config and a config input: refused, nothing left in --out', async () => {
    await refused(/is a FIFO/, 'check', `${FIFO}.ts`);
    await refused(/is a FIFO/, 'eval', `${FIFO}.c`, '--args', '[]');
    await refused(/is a FIFO/, 'opt', path.join(TMP, 'input.c'), '--passes', `${FIFO}.ts`);
    await refused(/is a FIFO/, 'stage', `${FIFO}.json`, '--out', path.join(TMP, 'o'));
    for (const [name, fields] of [
      ['fifo-input.json', { input: 'fifo.c' }],
      ['fifo-pass.json', { pipeline: ['const-prop', './fifo.ts'] }],
    ] as const) {
      const out = path.join(TMP, `out-${name}`, 'deep');
      await refused(/FIFO/, 'stage', config(name, fields), '--out', out);
      expect(existsSync(path.dirname(out)), name).toBe(false);
    }
  });

  it('a folder as a kernel or a pass', async () => {
    mkdirSync(path.join(TMP, 'folder.ts'), { recursive: true });
    await refused(/is a directory/, 'check', path.join(TMP, 'folder.ts'));
    await refused(/is a directory/, 'eval', TMP, '--args', '[]');
  });
});

describe('messages print only what the user named', () => {
  it('a link to a file outside the project: refused, its contents never printed', async () => {
    const dir = path.join(TMP, 'project');
    mkdirSync(dir, { recursive: true });
    symlinkSync(path.join(OUTSIDE, 'secret.txt'), path.join(dir, 'k.c'));
    symlinkSync(path.join(OUTSIDE, 'secret.txt'), path.join(dir, 'p.ts'));
    symlinkSync('/proc/self/environ', path.join(dir, 'env.ts'));
    for (const argv of [
      ['eval', path.join(dir, 'k.c'), '--args', '[]'],
      ['check', path.join(dir, 'p.ts')],
      ['check', path.join(dir, 'env.ts')],
      ['opt', path.join(TMP, 'input.c'), '--passes', path.join(dir, 'p.ts')],
    ]) {
      const r = await refused(/link to a file outside|system file/, ...argv);
      expect(`${r.out}${r.err}`).not.toContain(SECRET);
      expect(`${r.out}${r.err}`).not.toMatch(/PATH=|HOME=/);
    }
    // an import of the same link from a pass inside the project
    writeFileSync(path.join(dir, 'uses.ts'), "import { x } from './p.js';\nexport const y = x;\n");
    const r = await cli('check', path.join(dir, 'uses.ts'));
    expect(`${r.out}${r.err}`).not.toContain(SECRET);
    expect(r.err).toMatch(/link to a file outside/);
  });

  it('a link to a file in its own folder is a source like any other', async () => {
    const dir = path.join(TMP, 'linked');
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'real.c'), KERNEL);
    symlinkSync('real.c', path.join(dir, 'k.c'));
    const r = await cli('eval', path.join(dir, 'k.c'), '--args', '[2,3,4]');
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
  });

  it('a name a megabyte long is cut in messages', async () => {
    const long = `f${'x'.repeat(1_000_000)}`;
    const c = config('long.json', { function: long });
    const r = await cli('stage', c, '--out', path.join(TMP, 'o-long'));
    expect(r.code).toBe(2);
    expect(r.err.length).toBeLessThan(2000);
    const k = await cli('eval', path.join(TMP, 'input.c'), '--function', long, '--args', '[1,2,3]');
    expect(k.code).toBe(2);
    expect(k.err.length).toBeLessThan(2000);
    const p = await cli('opt', path.join(TMP, 'input.c'), '--passes', long);
    expect(p.code).toBe(2);
    expect(p.err.length).toBeLessThan(2000);
    // a kernel whose only function has that name, which no GPU kernel can run (no combinator)
    const named = path.join(TMP, 'long-name.c');
    writeFileSync(named, `int ${long}(int x) {\n  return x + 1;\n}\n`);
    for (const emit of ['wgsl', 'js']) {
      const g = await cli('kernel', named, '--emit', emit, '--run', '--backend', 'webgpu', '--args', '[1]');
      expect(g.code, g.err.slice(0, 200)).toBe(2);
      expect(Math.max(...g.err.split('\n').map((l) => l.length))).toBeLessThanOrEqual(1000);
    }
  });

  it('a config that starts with a UTF-8 byte-order mark is read as JSON', async () => {
    const text = `\ufeff${JSON.stringify({ input: 'input.c', function: 'mul_add', pipeline: ['const-prop'], bind: { a: 1 } })}`;
    const c = config('bom.json', {}, text);
    const r = await cli('stage', c, '--out', path.join(TMP, 'o-bom'), '-q');
    expect(r.err).not.toMatch(/error/);
    expect(r.code).toBe(0);
  });
});

describe('what a command writes, and names a megabyte long', () => {
  it('--save to a full device or a FIFO: exit 2 at once, not an internal error or a hang', async () => {
    await refused(
      /cannot write --save '\/dev\/full': no space left on the device/,
      'bench',
      '--config',
      '1',
      '--budget',
      '5',
      '--save',
      '/dev/full',
    );
    await refused(
      /--save '.*fifo' is a FIFO, not a file/,
      'bench',
      '--config',
      '1',
      '--budget',
      '5',
      '--save',
      FIFO,
    );
  }, 60_000);

  it('a command, a flag, a binding or a pass path a megabyte long is cut in the message', async () => {
    const long = 'x'.repeat(1_000_000);
    for (const argv of [
      [long],
      [`--${long}`],
      ['opt', path.join(TMP, 'input.c'), `--${long}`],
      ['opt', path.join(TMP, 'input.c'), '--bind', `a=${long}`],
      ['opt', path.join(TMP, 'input.c'), '--passes', `./${long}.ts`],
      ['stage', `${long}.json`, '--out', path.join(TMP, 'o-long2')],
    ]) {
      const r = await cli(...argv);
      expect(r.code, argv[0]?.slice(0, 20)).toBe(2);
      expect(r.err.length, argv[0]?.slice(0, 20)).toBeLessThan(3000);
    }
  });
});
