/**
 * `scf stage DIR --out OUT`: every config of a folder staged into OUT/<name>/ on worker threads,
 * each as `scf stage CONFIG` alone writes it; a second run finds them up to date and leaves every
 * byte as it was; a changed input, an edited output or record, `--force` and `--k` restage; a
 * failing config does not stop the others; bad folders are refused before anything is written;
 * `--deps` lists what each stage read.
 */
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cli } from './helpers.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const TMP = mkdtempSync(path.join(import.meta.dirname, '.tmp-cli-stage-dir-'));
afterAll(() => rmSync(TMP, { recursive: true, force: true }));

/** A project: two kernel configs on kernels of their own, an entry config, a non-config JSON. */
function project(name: string): { dir: string; configs: string; src: string } {
  const dir = path.join(TMP, name);
  const configs = path.join(dir, 'configs');
  const src = path.join(dir, 'src');
  mkdirSync(configs, { recursive: true });
  mkdirSync(src);
  for (const k of ['a', 'b']) {
    copyFileSync(path.join(ROOT, 'benchmarks/inputs/mul_add.c'), path.join(src, `${k}.c`));
    writeFileSync(
      path.join(configs, `${k}.json`),
      JSON.stringify({
        input: `../src/${k}.c`,
        function: 'mul_add',
        pipeline: ['const-prop', 'copy-prop', 'dae'],
        bind: { a: "'Int" },
      }),
    );
  }
  copyFileSync(path.join(ROOT, 'examples/own-ir/regex.ts'), path.join(src, 'regex.ts'));
  writeFileSync(
    path.join(configs, 're.json'),
    JSON.stringify({ entry: '../src/regex.ts#matches', bind: { re: '^ERROR .*ms$' } }),
  );
  writeFileSync(path.join(configs, 'tsconfig.json'), JSON.stringify({ compilerOptions: {} }));
  return { dir, configs, src };
}

/** Every file under `dir` with its SHA-256 and modification time. */
function tree(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (const e of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!e.isFile()) continue;
    const f = path.join(e.parentPath, e.name);
    files[path.relative(dir, f)] =
      `${createHash('sha256').update(readFileSync(f)).digest('hex')} ${statSync(f).mtimeMs}`;
  }
  return files;
}

describe('scf stage DIR', () => {
  it('stages each config as alone, in parallel; a second run is up to date and changes no byte', async () => {
    const p = project('p1');
    const out = path.join(p.dir, 'staged');
    const first = await cli('stage', p.configs, '--out', out, '-j', '2');
    expect(first.code, first.err).toBe(0);
    expect(first.err).toContain('tsconfig.json: skipped (not a config');
    expect(first.err).toContain('3 config(s): 3 staged, 0 up to date');
    expect(readdirSync(out).sort()).toEqual(['a', 'b', 're']);
    expect(readdirSync(path.join(out, 're'))).toContain('matches.stub.mjs');
    expect(readdirSync(path.join(out, 'a'))).toContain('mul_add.build.json');

    // the same files as `scf stage CONFIG --out DIR` writes, at the same depth
    const alone = path.join(p.dir, 'alone', 'a');
    expect((await cli('stage', path.join(p.configs, 'a.json'), '--out', alone, '-q')).code).toBe(0);
    for (const f of readdirSync(alone))
      expect(readFileSync(path.join(out, 'a', f), 'utf8'), f).toBe(readFileSync(path.join(alone, f), 'utf8'));

    const before = tree(out);
    const second = await cli('stage', p.configs, '--out', out);
    expect(second.code, second.err).toBe(0);
    expect(second.err).toContain('3 config(s): 0 staged, 3 up to date');
    expect(tree(out)).toEqual(before);
  });

  it('restages what changed: an input, an output, the record, --k; --force restages all', async () => {
    const p = project('p2');
    const out = path.join(p.dir, 'staged');
    expect((await cli('stage', p.configs, '--out', out, '-j', '1')).code).toBe(0);
    const stage = () => cli('stage', p.configs, '--out', out, '-j', '1');

    writeFileSync(path.join(p.src, 'b.c'), `${readFileSync(path.join(p.src, 'b.c'), 'utf8')}\n`);
    let r = await stage();
    expect(r.err).toContain('[2/3] b: stale (../../src/b.c changed)');
    expect(r.err).toContain('[1/3] a: up to date');
    expect(r.err).toContain('1 staged, 2 up to date');

    writeFileSync(path.join(out, 'a', 'mul_add.stub.mjs'), '// edited\n');
    r = await stage();
    expect(r.err).toContain('[1/3] a: stale (mul_add.stub.mjs was edited)');
    expect(readFileSync(path.join(out, 'a', 'mul_add.stub.mjs'), 'utf8')).toContain(
      'export const specialize',
    );

    const record = path.join(out, 're', 'matches.build.json');
    writeFileSync(record, readFileSync(record, 'utf8').slice(0, 40));
    r = await stage();
    expect(r.err).toContain("[3/3] re: stale (matches.build.json is not a build record of scf's)");
    expect(r.err).toContain('1 staged, 2 up to date');

    rmSync(path.join(out, 'b', 'mul_add.abstract.txt'));
    r = await stage();
    expect(r.err).toContain('[2/3] b: stale (mul_add.abstract.txt is missing)');

    r = await cli('stage', p.configs, '--out', out, '--k', '3');
    expect(r.err).toContain('[1/3] a: stale (--k was 2)');
    expect(r.err).toContain('3 staged, 0 up to date');

    r = await cli('stage', p.configs, '--out', out, '--k', '3', '--force', '-j', '2');
    expect(r.err).toContain('3 staged, 0 up to date');
  });

  it('a failing config is reported with its position; the others stage; exit 1', async () => {
    const p = project('p3');
    writeFileSync(
      path.join(p.configs, 'bad.json'),
      '{ "input": "../src/a.c", "function": "mul_add",\n  "pipeline": ["nope"] }',
    );
    const out = path.join(p.dir, 'staged');
    const r = await cli('stage', p.configs, '--out', out, '-j', '2');
    expect(r.code).toBe(1);
    expect(r.err).toContain('[3/4] bad: failed');
    expect(r.err).toMatch(/bad\.json:2:\d+: error C\d{4}: .*nope/);
    expect(r.err).toContain('4 config(s): 3 staged, 0 up to date, 1 failed');
    expect(existsSync(path.join(out, 'a', 'mul_add.stub.mjs'))).toBe(true);
    expect(r.err).not.toMatch(/\n\s+at /); // no stack trace
  });

  it('--deps writes a make rule per config: the config, the kernel, the passes', async () => {
    const p = project('p4');
    const out = path.join(p.dir, 'staged');
    const deps = path.join(p.dir, 'stage.d');
    expect((await cli('stage', p.configs, '--out', out, '--deps', deps)).code).toBe(0);
    const first = readFileSync(deps, 'utf8');
    const rel = (f: string) => path.relative(process.cwd(), f);
    expect(first).toContain(
      `${rel(path.join(out, 'a', 'mul_add.stub.mjs'))}: ${rel(path.join(p.configs, 'a.json'))}`,
    );
    expect(first).toContain(rel(path.join(p.src, 'a.c')));
    expect(first).toContain(rel(path.join(p.src, 'regex.ts')));
    expect(first).toContain('optimizers/const-prop.ts');
    // up to date, the rules come from the records: the same file
    expect((await cli('stage', p.configs, '--out', out, '--deps', deps)).code).toBe(0);
    expect(readFileSync(deps, 'utf8')).toBe(first);
    // one config
    const one = path.join(p.dir, 'one.d');
    expect(
      (
        await cli(
          'stage',
          path.join(p.configs, 'b.json'),
          '--out',
          path.join(p.dir, 'one'),
          '-q',
          '--deps',
          one,
        )
      ).code,
    ).toBe(0);
    expect(readFileSync(one, 'utf8')).toContain(rel(path.join(p.src, 'b.c')));
  });

  it('bad folders are refused before anything is written', async () => {
    const p = project('p5');
    const inside = await cli('stage', p.configs, '--out', path.join(p.configs, 'out'));
    expect(inside.code).toBe(2);
    expect(inside.err).toContain('is inside the config folder');
    expect(existsSync(path.join(p.configs, 'out'))).toBe(false);

    writeFileSync(path.join(p.configs, 'A.json'), readFileSync(path.join(p.configs, 'a.json')));
    const twice = await cli('stage', p.configs, '--out', path.join(p.dir, 'staged'));
    expect(twice.code).toBe(2);
    expect(twice.err).toContain('would write the same output folder on a file system that ignores case');
    expect(existsSync(path.join(p.dir, 'staged'))).toBe(false);
    rmSync(path.join(p.configs, 'A.json'));

    writeFileSync(path.join(p.configs, 'configs.json'), readFileSync(path.join(p.configs, 'a.json')));
    const holds = await cli('stage', p.configs, '--out', p.dir);
    expect(holds.code).toBe(2);
    expect(holds.err).toContain('which holds the config folder itself');
    rmSync(path.join(p.configs, 'configs.json'));

    const empty = path.join(p.dir, 'empty');
    mkdirSync(empty);
    const none = await cli('stage', empty, '--out', path.join(p.dir, 'x'));
    expect(none.code).toBe(2);
    expect(none.err).toContain('has no config');

    const jobs = await cli('stage', p.configs, '--out', path.join(p.dir, 'x'), '-j', '0');
    expect(jobs.code).toBe(2);
    expect(jobs.err).toContain('-j must be an integer from 1 to 256');
    const force = await cli(
      'stage',
      path.join(p.configs, 'a.json'),
      '--out',
      path.join(p.dir, 'x'),
      '--force',
    );
    expect(force.code).toBe(2);
    expect(force.err).toContain('--force applies to a folder of configs');
    expect(existsSync(path.join(p.dir, 'x'))).toBe(false);
  });
});
