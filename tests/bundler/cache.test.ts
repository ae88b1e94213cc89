/**
 * The bundler plugins' staging cache (src/bundler/cache.ts), from the sources: an entry per config,
 * staged once and reused while fresh, staged again when an input changes; stages of one entry in
 * one process run one after the other, and across processes wait for the entry's lock; JSON that
 * is no config is refused before anything is written; a config error reports its position as
 * bundlers count it. The real builds are tests/package/bundlers.test.ts's.
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { NotAConfig, stageCached, stageErrorReport } from '../../src/bundler/index.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const DIR = mkdtempSync(path.join(tmpdir(), 'scf-cache-'));
const CACHE = path.join(DIR, 'cache');

function config(name: string, bind: string = "'Int"): string {
  const file = path.join(DIR, `${name}.json`);
  writeFileSync(
    file,
    `{\n  "input": "./mul_add.c",\n  "function": "mul_add",\n  "pipeline": ["const-prop", "dae"],\n  "bind": { "a": "${bind}" }\n}\n`,
  );
  return file;
}

copyFileSync(path.join(ROOT, 'benchmarks/inputs/mul_add.c'), path.join(DIR, 'mul_add.c'));

afterAll(() => rmSync(DIR, { recursive: true, force: true }));

describe('the staging cache', () => {
  it('stages a config once, however many imports ask at once, reuses it while fresh, and stages it again on a change', async () => {
    const file = config('once');
    const [a, b] = await Promise.all([
      stageCached(file, { cacheDir: CACHE }),
      stageCached(file, { cacheDir: CACHE }),
    ]);
    expect([a?.staged, b?.staged]).toEqual(['not staged yet', undefined]);
    expect(a?.stub).toBe(b?.stub);
    expect(path.basename(a?.stub ?? '')).toBe('mul_add.stub.mjs');
    expect(a?.inputs).toContain(file);
    expect(a?.inputs).toContain(path.join(DIR, 'mul_add.c'));
    expect((await stageCached(file, { cacheDir: CACHE })).staged).toBeUndefined();
    expect((await stageCached(file, { cacheDir: CACHE, k: 3 })).staged).toBe('--k was 2');
    config('once', '0|1');
    expect((await stageCached(file, { cacheDir: CACHE, k: 3 })).staged).toBe('../../once.json changed');
  });

  it("waits for another process's lock on the entry, and stages when it is released", async () => {
    const file = config('locked');
    mkdirSync(CACHE, { recursive: true });
    const first = await stageCached(file, { cacheDir: CACHE });
    const lock = `${first.dir}.lock`;
    config('locked', '0|1');
    writeFileSync(lock, String(process.pid)); // a live holder
    let done = false;
    const staged = stageCached(file, { cacheDir: CACHE }).then((s) => {
      done = true;
      return s;
    });
    await new Promise((r) => setTimeout(r, 400));
    expect(done).toBe(false);
    rmSync(lock);
    expect((await staged).staged).toBe('../../locked.json changed');
    expect(existsSync(lock)).toBe(false);
  });

  it('refuses JSON that is no config, writing nothing', async () => {
    const file = path.join(DIR, 'package.json');
    writeFileSync(file, '{ "name": "app", "version": "1.0.0" }\n');
    const cache = path.join(DIR, 'untouched');
    await expect(stageCached(file, { cacheDir: cache })).rejects.toThrow(NotAConfig);
    await expect(stageCached(file, { cacheDir: cache })).rejects.toThrow(/package\.json: not an scf config/);
    expect(existsSync(cache)).toBe(false);
  });

  it('refuses a config that is not there, with the reason', async () => {
    const file = path.join(DIR, 'missing.json');
    await expect(stageCached(file, { cacheDir: CACHE })).rejects.toThrow(
      `${file}: no such file or directory`,
    );
  });

  it("reports a config error at the config's line and column (columns from 0)", async () => {
    const file = config('bad', 'Intt');
    const e = await stageCached(file, { cacheDir: CACHE }).catch((x: unknown) => x);
    expect(stageErrorReport(e)).toEqual({
      text: "D1001: bad description: unknown constructor 'Intt'",
      file,
      line: 5,
      column: 18,
    });
  });
});
