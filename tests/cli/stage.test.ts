/** `scf stage` and `scf opt --staged` through the CLI entry, in-process. */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ABBREVIATED_NOTE, loadConfig, stageConfig } from '../../src/pipeline/index.js';
import { cli } from './helpers.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const TMP = mkdtempSync(path.join(import.meta.dirname, '.tmp-cli-stage-'));
afterAll(() => rmSync(TMP, { recursive: true, force: true }));

function config(name: string, body: object): string {
  const file = path.join(TMP, name);
  writeFileSync(file, JSON.stringify(body, null, 2));
  return file;
}

const MUL_ADD = path.join(ROOT, 'benchmarks/inputs/mul_add.c');

describe('scf stage', () => {
  it('stages config 1, writes the modules and the stub, prints I2 and I3', async () => {
    const out = path.join(TMP, 'out1');
    const r = await cli('stage', path.join(ROOT, 'configs/table2/01-mul_add.json'), '--out', out);
    expect(r.code).toBe(0);
    expect(r.out).toContain("u = x | (x * 'Int);\n  w = (u | x) + y;");
    expect(r.err).toContain('[3/3] dae:');
    expect(readFileSync(path.join(out, 'mul_add.dae.staged.mjs'), 'utf8')).toContain(
      'export function optimize(',
    );
    expect(readFileSync(path.join(out, 'mul_add.stub.mjs'), 'utf8')).toContain('export const specialize');
    // the folder is portable: it imports nothing but scf/runtime and its own modules
    for (const f of readdirSync(out).filter((f) => f.endsWith('.mjs'))) {
      const specs = [
        ...readFileSync(path.join(out, f), 'utf8').matchAll(/^import .* from '([^']+)';$/gm),
      ].map((m) => m[1]);
      for (const s of specs) expect(s === 'scf/runtime' || /^\.\/[\w.-]+\.mjs$/.test(s as string)).toBe(true);
    }
    expect(readFileSync(path.join(out, 'mul_add.stub.d.mts'), 'utf8')).toContain("readonly 'a': number;");
    const manifest = JSON.parse(readFileSync(path.join(out, 'mul_add.manifest.json'), 'utf8'));
    expect(manifest.passes.map((p: { name: string }) => p.name)).toEqual(['const-prop', 'copy-prop', 'dae']);
    expect(manifest.passes[0].files[0].path).toBe('optimizers/const-prop.ts');

    const staged = await cli('opt', MUL_ADD, '--bind', 'a=1', '--staged', out);
    expect(staged.code).toBe(0);
    expect(staged.out).toBe('int mul_add(int x, int y, int a) {\n  int w;\n  w = x + y;\n  return w;\n}');
    const unstaged = await cli('opt', MUL_ADD, '--bind', 'a=1');
    expect(staged.out).toBe(unstaged.out);
  });

  it('--explain lists each loss of precision per pass; --json reports it', async () => {
    const config = path.join(ROOT, 'configs/table2/04-dotproduct.json');
    const r = await cli('stage', config, '--out', path.join(TMP, 'explain'), '-q', '--explain');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^const-prop: stop (fixpoint|widened|fuel)/m);
    expect(r.out).toMatch(/^copy-prop: stop /m);
    expect(r.out).toMatch(/^dae: stop /m);
    // dotproduct's unrolling of a loop with a late trip count outgrows the size cap: each such
    // event names the specialization, what it handled, the parameter or result and the reason
    expect(r.out).toMatch(
      /^ {2}const-prop\.unroll\$\d+ {2}const-prop\.unroll\(while #\d+, .*\) {2}param \d+ \(copies\): size-cap -> /m,
    );
    const j = await cli('stage', config, '--out', path.join(TMP, 'explain'), '--json');
    expect(j.code).toBe(0);
    const report = JSON.parse(j.out);
    expect(report.passes.map((p: { pass: string }) => p.pass)).toEqual(['const-prop', 'copy-prop', 'dae']);
    const cp = report.passes[0];
    expect(cp.stats.visits).toBeGreaterThan(0);
    const lines = r.out.split('\n');
    const section = lines.slice(
      lines.findIndex((l) => l.startsWith('const-prop: stop')) + 1,
      lines.findIndex((l) => l.startsWith('copy-prop: stop')),
    );
    expect(cp.events.length).toBe(section.filter((l) => /^ {2}\S+\$\d+ {2}/.test(l)).length);
    // counted by function, scf's helpers apart, with the setting that bounds each reason
    expect(r.out).toMatch(
      /^ {2}in const-prop's own functions:\n( {4}const-prop\.\w+: .*\n)+ {2}in functions it calls/m,
    );
    expect(r.out).toMatch(/^ {4}const-prop\.unroll: \d+ × size-cap$/m);
    expect(r.out).toMatch(/^ {4}kernel-walk\.reverseCmds: \d+ × size-cap$/m);
    expect(r.out).toMatch(
      /^ {4}size-cap: a value grew past growCap = 256 nodes.*"pe": \{ "growCap": 1024 \}/m,
    );
    expect(cp.events.length).toBeGreaterThan(0);
    for (const e of cp.events)
      expect(Object.keys(e).sort()).toEqual(['fn', 'key', 'reason', 'spec', 'to', 'what']);
  });

  it('big unions print cut short, with a note; --full prints them whole, as NAME.abstract.txt holds them', async () => {
    const cfg = path.join(ROOT, 'configs/table2/08-main_loop.json');
    const out = path.join(TMP, 'out8');
    const short = await cli('stage', cfg, '--out', out);
    expect(short.code, short.err).toBe(0);
    const longest = (s: string) => Math.max(...s.split('\n').map((l) => l.length));
    expect(longest(short.out)).toBeLessThan(1000);
    expect(short.out).toContain(ABBREVIATED_NOTE);
    expect(short.out).toMatch(/… \(\d+ more characters\)/);
    const full = await cli('stage', cfg, '--out', out, '--full');
    expect(full.code, full.err).toBe(0);
    expect(full.out).not.toContain(ABBREVIATED_NOTE);
    expect(full.out.length).toBeGreaterThan(short.out.length);
    expect(readFileSync(path.join(out, 'main_loop.abstract.txt'), 'utf8').trimEnd()).toBe(full.out);
  }, 60_000);

  it('a long pass reports its work as it goes (what scf stage shows on a terminal once a second)', async () => {
    const config = loadConfig(path.join(ROOT, 'configs/table2/08-main_loop.json'));
    const seen: { pass: string; visits: number }[] = [];
    await stageConfig(config, {
      onWork: (pass, _i, total, stats) => {
        expect(total).toBe(3);
        seen.push({ pass, visits: stats.visits });
      },
    });
    expect(seen.length).toBeGreaterThan(0);
    expect(seen[0]?.pass).toBe('const-prop');
    expect(seen[0]?.visits).toBeGreaterThan(0);
  }, 60_000);

  it('an input outside the description falls back to the unstaged pipeline with a warning', async () => {
    const out = path.join(TMP, 'out3');
    expect(
      (await cli('stage', path.join(ROOT, 'configs/table2/03-mul_add-3or1.json'), '--out', out, '-q')).code,
    ).toBe(0);
    const r = await cli('opt', MUL_ADD, '--bind', 'a=2', '--staged', out);
    expect(r.code).toBe(0);
    expect(r.err).toMatch(
      /formal 'a' = 2 is outside its early description 3\|1; running the unstaged pipeline/,
    );
    expect(r.out).toBe((await cli('opt', MUL_ADD, '--bind', 'a=2')).out);
  });

  it('bad input: unknown pass, description that does not fit, bad JSON — position, exit 2', async () => {
    const base = { input: MUL_ADD, function: 'mul_add', pipeline: ['const-prop'], bind: { a: "'Int" } };
    const unknown = config('unknown-pass.json', { ...base, pipeline: ['const-prop', 'inline'] });
    let r = await cli('stage', unknown, '--out', path.join(TMP, 'x'));
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/unknown-pass\.json:\d+:\d+: error C1007: .*inline/);
    const misfit = config('misfit.json', { ...base, bind: { a: '[1,2]' } });
    r = await cli('stage', misfit, '--out', path.join(TMP, 'x'));
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/misfit\.json:\d+:\d+: error D1003: /);
    const broken = path.join(TMP, 'broken.json');
    writeFileSync(broken, '{ "input": ');
    r = await cli('stage', broken, '--out', path.join(TMP, 'x'));
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/broken\.json:1:\d+: error C1002: /);
    expect(r.err).not.toMatch(/at .*\.ts:\d+/); // no stack trace
  });

  it('usage errors exit 2', async () => {
    expect((await cli('stage')).code).toBe(2);
    expect((await cli('stage', path.join(ROOT, 'configs/table2/01-mul_add.json'))).err).toMatch(
      /--out DIR is required/,
    );
    const r = await cli('opt', MUL_ADD, '--staged', path.join(TMP, 'nowhere'));
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/no staged pipeline for 'mul_add'/);
  });
});
