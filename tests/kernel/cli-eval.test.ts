/** `scf eval` (src/cli/eval.ts), called directly: output JSON, argument forms, and one-line errors. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { evalCommand } from '../../src/cli/eval.js';

const dir = mkdtempSync(join(tmpdir(), 'scf-cli-eval-'));

function file(name: string, text: string): string {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
}

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await evalCommand(argv, { out: (s) => out.push(s), err: (s) => err.push(s) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

const MUL_ADD = join(import.meta.dirname, '../../benchmarks/inputs/mul_add.c');
const SCALE = file(
  'scale.c',
  'void scale(float a[], int n, float k) {\n  for (int i = 0; i < n; i++) a[i] = a[i] * k;\n}\n' +
    'bool pos(float u) { return u > 0.0f; }\nint div(int x, int y) {\n  return x / y;\n}\n',
);

describe('scf eval', () => {
  it('runs a function with --args as an object or an array', async () => {
    expect(await cli(MUL_ADD, '--function', 'mul_add', '--args', '{"x":6,"y":7,"a":3}')).toEqual({
      code: 0,
      out: '{"result":25,"outputs":{}}',
      err: '',
    });
    expect((await cli(MUL_ADD, '--args', '[6,7,3]')).out).toBe('{"result":25,"outputs":{}}');
  });

  it('accepts --bind for scalars, alone or on top of --args', async () => {
    expect((await cli(MUL_ADD, '-f', 'mul_add', '--bind', 'x=2', '--bind', 'y=1', '--bind', 'a=5')).out).toBe(
      '{"result":11,"outputs":{}}',
    );
    expect((await cli(MUL_ADD, '--args', '{"x":6,"y":7}', '--bind', 'a=0')).out).toBe(
      '{"result":7,"outputs":{}}',
    );
  });

  it('prints array outputs, booleans, and non-finite floats', async () => {
    expect((await cli(SCALE, '-f', 'scale', '--args', '{"a":[1,2.5,"NaN"],"n":3,"k":2}')).out).toBe(
      '{"result":null,"outputs":{"a":[2,5,"NaN"]}}',
    );
    expect((await cli(SCALE, '-f', 'pos', '--args', '{"u":"-Infinity"}')).out).toBe(
      '{"result":false,"outputs":{}}',
    );
  });

  it('reports bad input on one line with exit code 2, a runtime error with 1', async () => {
    const missing = await cli(join(dir, 'nope.c'), '--args', '{}');
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(/^scf eval: cannot read '.*nope\.c': no such file$/);

    const bad = file('bad.c', 'int f(int x) {\n  return x +;\n}\n');
    expect(await cli(bad, '--args', '[1]')).toEqual({
      code: 2,
      out: '',
      err: `${bad}:2:13: error K1002: syntax error: expected 'identifier'`,
    });

    const runtime = await cli(SCALE, '-f', 'div', '--args', '[1, 0]');
    expect(runtime).toEqual({ code: 1, out: '', err: `${SCALE}:6:10: error: integer division by zero` });

    for (const [args, message] of [
      [['--args', '{"x":1'], /--args is not valid JSON/],
      [['--args', '[1]'], /'mul_add' takes 3 argument\(s\), --args gives 1/],
      [['--args', '{"x":1,"y":2}'], /missing argument for parameter 'a'/],
      [['--args', '{"x":1.5,"y":2,"a":3}'], /argument 'x' must be an int/],
      [['--bind', 'x'], /--bind expects NAME=VALUE/],
      [['-f', 'nope', '--args', '[]'], /has no function 'nope'/],
    ] as const) {
      const r = await cli(MUL_ADD, ...args);
      expect(r.code).toBe(2);
      expect(r.err).toMatch(message);
      expect(r.err.split('\n')).toHaveLength(1);
    }
    expect((await cli(SCALE, '--args', '{}')).err).toMatch(/defines 3 functions; choose one with --function/);
  });

  it('--passes optimizes with the bindings first, and gives the same result', async () => {
    const plain = await cli(MUL_ADD, '--args', '{"x":6,"y":2}', '--bind', 'a=1');
    const opt = await cli(
      MUL_ADD,
      '--args',
      '{"x":6,"y":2}',
      '--bind',
      'a=1',
      '--passes',
      'const-prop,copy-prop,dae',
    );
    expect(opt).toEqual(plain);
    expect(JSON.parse(opt.out).result).toBe(8);
    expect((await cli(MUL_ADD, '--args', '[1,2,3]', '--passes', 'nope')).code).toBe(2);
  });

  it('has --help', async () => {
    const r = await cli('--help');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^Usage: scf eval FILE\.c/);
  });
});
