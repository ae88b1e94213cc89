/** `scf check` through the CLI entry, in-process and as a real process (the bin shim). */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from './helpers.js';

/** `source` written as `name` in a folder of its own, outside the repository (a user's file). */
const userDir = mkdtempSync(path.join(tmpdir(), 'scf-check-user-'));
const passFile = (name: string, source: string): string => {
  const f = path.join(userDir, name);
  writeFileSync(f, source);
  return f;
};

describe('scf check', () => {
  it('accepts the Fig. 3 optimizer', async () => {
    const r = await cli('check', 'src/optimizers/fig3/fig3-dae.ts');
    expect(r.code).toBe(0);
    expect(r.out).toBe('src/optimizers/fig3/fig3-dae.ts: ok (9 functions in 2 modules)');
  });
  it("counts a user's own modules and functions, not those of scf it imports", async () => {
    const f = passFile(
      'pass.ts',
      "import type { Fun } from 'scf/kernel';\nimport { none } from 'scf/prelude';\n\nfunction keep(f: Fun): Fun {\n  return f;\n}\n\nexport function optimize(f: Fun): Fun {\n  return none<number>().kind === 'none' ? keep(f) : f;\n}\n",
    );
    const r = await cli('check', f);
    expect(r.err).toBe('');
    expect(r.out).toBe(`${f}: ok (2 functions in 1 module)`);
    // a pass that is its optimize alone: one function
    const one = passFile(
      'one.ts',
      "import type { Fun } from 'scf/kernel';\n\nexport function optimize(f: Fun): Fun {\n  return f;\n}\n",
    );
    expect((await cli('check', one)).out).toBe(`${one}: ok (1 function in 1 module)`);
  });

  it("notes an export named like 'optimize' in a file that exports no optimize", async () => {
    const f = passFile(
      'entry.ts',
      "import type { Fun } from 'scf/kernel';\n\nexport function optimise(f: Fun): Fun {\n  return f;\n}\n",
    );
    const r = await cli('check', f);
    expect(r.code).toBe(0);
    expect(r.err).toBe(`${f}: note: it exports 'optimise', not 'optimize': as a pass it has no entry`);
  });
  it('names the spread that copies the fields a constructor lacks from the input of its kind', async () => {
    // a pass rebuilding the function field by field misses the fields it does not know of
    const f = passFile(
      'rebuild.ts',
      "import type { Fun } from 'scf/kernel';\n\nexport function optimize(f: Fun): Fun {\n  const body = f.body;\n  return { kind: 'fun', name: f.name, ret: f.ret, params: f.params, locals: f.locals, body, lbl: f.lbl };\n}\n",
    );
    const r = await cli('check', f, '--no-frame');
    expect(r.code).toBe(1);
    const shown = path.relative(process.cwd(), f);
    expect(r.err.split('\n')).toEqual([
      `${shown}:5:10: error SCF3006: bad constructor: kind 'fun' needs field 'fns': copy it from the input, \`{ ...f, body }\``,
      '1 error',
    ]);
    // with no value of the kind in scope there is nothing to copy from
    const g = passFile(
      'fresh.ts',
      "import type { Cmd } from 'scf/kernel';\n\nexport function skip(lbl: number): Cmd {\n  return { kind: 'skip' };\n}\n",
    );
    expect((await cli('check', g, '--no-frame')).err.split('\n')[0]).toBe(
      `${path.relative(process.cwd(), g)}:4:10: error SCF3006: bad constructor: kind 'skip' needs field 'lbl'`,
    );
  });
  it('prints Core with --core', async () => {
    const r = await cli('check', 'src/optimizers/fig3/fig3-dae.ts', '--core');
    expect(r.out).toContain('fun fig3-dae.meet(live1, live2) =\n  Set.union(live1, live2)');
  });
  it('reports FILE:LINE:COL: error SCFnnnn and exits 1', async () => {
    const r = await cli('check', 'tests/fixtures/scf-lang/reject/many-errors/input.ts', '--no-frame');
    expect(r.code).toBe(1);
    expect(r.err.split('\n')).toEqual([
      "tests/fixtures/scf-lang/reject/many-errors/input.ts:2:3: error SCF2001: 'let' declarations are not allowed: bindings are immutable, use 'const'",
      "tests/fixtures/scf-lang/reject/many-errors/input.ts:3:3: error SCF2003: 'for' loops are not allowed: use recursion",
      'tests/fixtures/scf-lang/reject/many-errors/input.ts:4:13: error SCF2004: arrow functions are not allowed: SCF-lang is first-order (no closures)',
      "tests/fixtures/scf-lang/reject/many-errors/input.ts:5:3: error SCF2009: 'throw' is not allowed: return an Option or a result variant instead",
      '4 errors',
    ]);
  });
  it('a missing file, a binary file and bad flags get messages, not stack traces', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'scf-'));
    const bin = path.join(dir, 'b.ts');
    writeFileSync(bin, Buffer.from([0, 255, 254, 1, 2, 3, 0x7b, 0x7b]));
    for (const [code, ...argv] of [
      [2, 'check', 'nope.ts'], // bad input: a file that cannot be read
      [1, 'check', bin], // examined and found wanting: syntax errors
      [2, 'check', '--bogus', 'x.ts'],
      [2, 'check'],
      [2, 'frobnicate'],
    ] as const) {
      const r = await cli(...argv);
      expect(r.code, argv.join(' ')).toBe(code);
      expect(r.err).not.toMatch(/\n\s+at /);
      expect(r.err.length).toBeGreaterThan(0);
    }
  });
  it('--help', async () => {
    const r = await cli('check', '--help');
    expect(r.code).toBe(0);
    expect(r.out).toContain('Usage: scf check FILE.ts');
  });
  it('runs as the scf binary', () => {
    const ok = execFileSync('node', ['bin/scf.js', 'check', 'src/optimizers/fig3/fig3-dae.ts'], {
      encoding: 'utf8',
    });
    expect(ok.trim()).toBe('src/optimizers/fig3/fig3-dae.ts: ok (9 functions in 2 modules)');
    const bad = spawnSync(
      'node',
      ['bin/scf.js', 'check', 'tests/fixtures/scf-lang/reject/for-loop/input.ts'],
      { encoding: 'utf8' },
    );
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain('input.ts:3:3: error SCF2003');
  });
});
