/** `scf opt`, run in-process: output, bindings, pass selection, and one-line errors. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { optCommand, parseBind } from '../../src/cli/opt.js';
import { INPUTS } from './helpers.js';

async function run(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await optCommand(argv, { out: (s) => out.push(s), err: (s) => err.push(s) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

const MUL_ADD = path.join(INPUTS, 'mul_add.c');

describe('scf opt', () => {
  it('optimizes mul_add with a = 1 (the paper, §2.2)', async () => {
    const r = await run(MUL_ADD, '--function', 'mul_add', '--bind', 'a=1');
    expect(r).toEqual({
      code: 0,
      out: 'int mul_add(int x, int y, int a) {\n  int w;\n  w = x + y;\n  return w;\n}',
      err: '',
    });
  });
  it('runs the chosen passes only', async () => {
    const r = await run(MUL_ADD, '--bind', 'a=1', '--passes', 'const-prop');
    expect(r.code).toBe(0);
    expect(r.out).toContain('u = x;');
    expect(r.out).toContain('w = u + y;');
  });
  it('binds arrays and floats', async () => {
    const r = await run(path.join(INPUTS, 'doconvol_1d.c'), '-b', 'coef=[0.25, 0.5f, 0.25]', '-b', 'ccols=3');
    expect(r.code).toBe(0);
    expect(r.out).toContain('0.5f * (float)signal[col - 1 + 1]');
    expect(r.out.match(/for \(/g)?.length).toBe(1);
  });
  it('prints help', async () => {
    const r = await run('--help');
    expect(r.code).toBe(0);
    expect(r.out).toContain('--passes');
    expect(r.out).toContain('const-prop');
  });
  it('reports bad input in one line, exit 1', async () => {
    const cases: [string[], RegExp][] = [
      [[MUL_ADD, '--bind', 'q=1'], /mul_add\.c:2:1: error: 'mul_add' has no parameter 'q'$/],
      [[MUL_ADD, '--bind', 'a=1.5'], /error: 'a' is an int .*1\.5$/],
      [[MUL_ADD, '--bind', 'a=[1]'], /error: parameter 'a' is a scalar int/],
      [[MUL_ADD, '--bind', 'a=x'], /^scf opt: --bind a: 'x' is not an int or float literal$/],
      [[MUL_ADD, '--bind', 'a'], /^scf opt: --bind expects NAME=VALUE/],
      [[MUL_ADD, '--passes', 'fuse'], /^scf opt: unknown pass 'fuse'/],
      [[MUL_ADD, '--function', 'nope'], /^scf opt: .* has no function 'nope'$/],
      [[MUL_ADD, '--frobnicate'], /^scf opt: unknown option '--frobnicate'/],
      [['/nonexistent/x.c'], /^scf opt: cannot read '\/nonexistent\/x\.c': no such file$/],
      [[], /^scf opt: expected exactly one FILE\.c/],
      [[path.join(INPUTS, 'main_loop.c')], /defines 4 functions; choose one with --function$/],
    ];
    for (const [argv, re] of cases) {
      const r = await run(...argv);
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.err, argv.join(' ')).toMatch(re);
      // one line, plus the uniform pointer to the help after a bad flag
      const lines = r.err.split('\n');
      expect(lines.length === 1 || lines[1] === "Run 'scf opt --help' for its options.", r.err).toBe(true);
      expect(r.out).toBe('');
    }
  });
  it('reports parse errors as FILE:LINE:COL', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'scf-opt-'));
    const file = path.join(dir, 'bad.c');
    writeFileSync(file, 'int f(int x) {\n  return y;\n}\n');
    const r = await run(file);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/bad\.c:2:\d+: error.*'y'/);
  });
  it('parses bindings', () => {
    expect(parseBind('k=[1, 2,1]')).toEqual(['k', [1, 2, 1]]);
    expect(parseBind(' s = -1.5f')).toEqual(['s', -1.5]);
    expect(parseBind('b=true')).toEqual(['b', true]);
    expect(parseBind('e=[]')).toEqual(['e', []]);
  });
});
