/**
 * `scf bench --dir` on a user's own configs, in-process: a folder of configs without `"id"`
 * (named by their files), one giving its kernel's run-time arguments in `"args"` and one not.
 * The kernel sums `m[0..n)`, so arguments made up from parameter names (`m` of 16 elements, `n`
 * of 256) fail: that config is named in a note and its code × is left out, while the other's
 * kernel is timed on its own arguments. A kernel that fails on its config's own `args` is the
 * config's error (exit 1, the config named), `args` that do not fit the kernel and a config
 * without `sample` are bad input (exit 2); none of them is an internal error.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cli } from '../cli/helpers.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'scf-bench-dir-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const KERNEL = `float total(const float m[], int n, float k) {
  float s = 0.0f;
  for (int i = 0; i < n; i++) {
    s = s + m[i] * k;
  }
  return s;
}
`;

/** A folder `name` holding total.c and one config per entry of `configs` (file name → extra keys). */
function folder(name: string, configs: Record<string, Record<string, unknown>>): string {
  const dir = path.join(tmp, name);
  mkdirSync(dir);
  writeFileSync(path.join(dir, 'total.c'), KERNEL);
  for (const [file, extra] of Object.entries(configs))
    writeFileSync(
      path.join(dir, `${file}.json`),
      JSON.stringify({
        input: './total.c',
        function: 'total',
        pipeline: ['const-prop', 'copy-prop', 'dae'],
        bind: { k: "'Float" },
        sample: { k: 2 },
        ...extra,
      }),
    );
  return dir;
}

const user = folder('user', {
  'with-args': { args: { m: { random: 64, seed: 1 }, n: 64 } },
  'no-args': {},
});
// an app's own JSON files beside the configs are no configs: --dir skips them
writeFileSync(path.join(user, 'package.json'), JSON.stringify({ name: 'app', type: 'module' }));
writeFileSync(path.join(user, 'package-lock.json'), JSON.stringify({ name: 'app', lockfileVersion: 3 }));
// as `tsc --init` writes it: comments and a trailing comma
writeFileSync(
  path.join(user, 'tsconfig.json'),
  '{\n  // Visit https://aka.ms/tsconfig\n  "compilerOptions": {\n    "strict": true, /* all checks */\n  }\n}\n',
);

describe('scf bench --dir on configs of ones own', () => {
  it("times a config's kernel on its args, and names the config without args", async () => {
    const r = await cli('bench', '--dir', user, '--budget', '5', '--json');
    expect(r.err).not.toMatch(/internal error/);
    expect(r.code, r.err).toBe(0);
    const rows = JSON.parse(r.out).configs;
    expect(rows.map((c: { id: string }) => c.id)).toEqual(['no-args', 'with-args']);
    const [none, given] = rows;
    expect(given).toMatchObject({ id: 'with-args', config: 'with-args', codeArgs: 'config', equal: true });
    expect(given.codeSpeedup).toBeGreaterThan(0);
    expect(given.codeSkipped).toBeUndefined();
    expect(none).toMatchObject({ id: 'no-args', codeArgs: 'made-up', codeSpeedup: null, equal: true });
    expect(none.codeSkipped).toMatch(/index 16 is out of bounds for array 'm' of length 16/);
    expect(none.compilerSpeedup).toBeGreaterThan(0);
    // one note before the run names the config without args, one after it says what was left out
    expect(r.err).toMatch(/^scf bench: no "args" in no-args: code × runs its kernel on arguments made up/m);
    expect(r.err).toMatch(/^scf bench: no-args: code × left out: 'total' fails on arguments made up/m);
  }, 120_000);

  it('--config takes the file name as the id, and lists the ids it knows', async () => {
    const r = await cli('bench', '--dir', user, '--budget', '5', '--config', 'with-args');
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/^with-args total +[\d.]+/m);
    expect(r.out).not.toMatch(/^no-args/m);
    expect(r.err).not.toMatch(/no "args"/);
    // a user's configs are not scored against SCF's Table 3
    expect(r.out).not.toMatch(/In parentheses|Targets:|MISSED/);
    expect(r.out).toMatch(
      /^Summary: median compiler speed-up [\d.]+×; staged output equal on every config$/m,
    );
    const bad = await cli('bench', '--dir', user, '--config', '1');
    expect(bad.code).toBe(2);
    expect(bad.err).toBe('scf bench: --config 1: no such configuration (known: no-args, with-args)');
  }, 60_000);

  it("a kernel failing on its config's args is the config's error; args that do not fit, or no sample, are bad input", async () => {
    const fails = folder('fails', { short: { args: { m: { random: 16, seed: 1 }, n: 64 } } });
    const a = await cli('bench', '--dir', fails, '--budget', '5');
    expect(a.code).toBe(1);
    expect(a.err).toContain(
      `scf bench: short (${path.join(fails, 'short.json')}): 'total' fails on the config's "args": index 16 is out of bounds for array 'm' of length 16`,
    );
    const k = await cli('bench', '--kernel', path.join(fails, 'short.json'), '--backend', 'js');
    expect(k.code).toBe(1);
    expect(k.err).toMatch(/short\.json: the kernel fails on the config's "args": index 16 is out of bounds/);

    const misfit = folder('misfit', { scalar: { args: { m: { random: 64, seed: 1 }, n: [64] } } });
    const b = await cli('bench', '--dir', misfit, '--budget', '5');
    expect(b.code).toBe(2);
    expect(b.err).toMatch(
      /scalar\.json:1:\d+: error C1011: 'args' do not fit 'total': parameter 'n' is a scalar int/,
    );

    const nosample = folder('nosample', { late: { sample: undefined } });
    const c = await cli('bench', '--dir', nosample, '--budget', '5');
    expect(c.code).toBe(2);
    expect(c.err).toMatch(/late\.json:1:1: error C1009: a benchmark needs 'sample'/);
    for (const r of [a, k, b, c]) expect(r.err).not.toMatch(/internal error/);
  }, 120_000);
});
