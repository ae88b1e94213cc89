/**
 * `scf kernel` through the CLI entry, in-process: the printed WGSL and JavaScript, runs on both
 * back ends agreeing with `scf eval`, optimization first with --bind/--passes, and every kind of
 * bad input as one message naming the function and the reason, exit 2.
 *
 * The WebGPU runs need an adapter (SwiftShader will do: the runtime finds it itself); without one
 * they are skipped (tests/target/gpu-setup.ts: failed in CI), and the no-adapter paths are
 * checked with `GpuRuntime.open` stubbed. GPU
 * inputs are kept tiny, and chosen so that float sums are exact whatever the reduction order.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { GpuRuntime, SOFTWARE_DRIVER_HINT } from '../../src/target/index.js';
import { openTestGpu } from '../target/gpu-setup.js';
import { cli } from './helpers.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const PROGRAMS = path.join(ROOT, 'tests/fixtures/fusion');
const MAP_MAP_REDUCE = path.join(PROGRAMS, 'map_map_reduce.c'); // float f(const float xs[])
const MAP_MAP = path.join(PROGRAMS, 'map_map.c'); // float *f(const float xs[], float c)
const DIFFERENT_LENGTHS = path.join(PROGRAMS, 'different_lengths.c'); // void f(xs, ws, a, b, n, m)
const SMOOTH = path.join(ROOT, 'benchmarks/inputs/fusion/smooth.c'); // smooth(img, w, h, g): 3 maps
const SMOOTH_ARGS = '[[0.25,0.5,1,0.75,0,0.5],3,2,1]';

const TMP = mkdtempSync(path.join(tmpdir(), 'scf-kernel-'));
afterAll(() => rmSync(TMP, { recursive: true, force: true }));
afterEach(() => {
  vi.restoreAllMocks();
});

function fixture(name: string, source: string): string {
  const file = path.join(TMP, name);
  writeFileSync(file, source);
  return file;
}

/** zs = map(add, xs, ys): the lengths must agree at run time. */
const ZIP = fixture(
  'zip.c',
  'float add(float a, float b) { return a + b; }\nfloat *zip(const float xs[], const float ys[]) {\n  float zs[] = map(add, xs, ys);\n  return zs;\n}\n',
);
/** No combinator: nothing for the GPU. */
const SCALAR = fixture('scalar.c', 'int plain(int a, int b) { return a * b + 1; }\n');

/** The file's WebGPU runtime: GPU tests skipped without an adapter (failing instead in CI). */
const GPU = await openTestGpu();

const NO_ADAPTER = {
  kind: 'no-adapter',
  reason: 'no WebGPU adapter (stubbed)',
  install: SOFTWARE_DRIVER_HINT,
} as const;

/** `scf eval`'s result for the same call. */
async function evalResult(...argv: string[]): Promise<unknown> {
  const r = await cli('eval', ...argv);
  expect(r.err).toBe('');
  expect(r.code).toBe(0);
  return (JSON.parse(r.out) as { result: unknown }).result;
}

/** `scf kernel …` that must succeed with one JSON line. */
async function kernelRun(...argv: string[]): Promise<{ backend: string; result: unknown; err: string }> {
  const r = await cli('kernel', ...argv);
  expect(r.err).not.toMatch(/internal error/);
  expect(r.code).toBe(0);
  expect(r.out.split('\n')).toHaveLength(1);
  return { ...(JSON.parse(r.out) as { backend: string; result: unknown }), err: r.err };
}

describe('scf kernel: usage', () => {
  it('--help prints the options, exit 0', async () => {
    const r = await cli('kernel', '--help');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^Usage: scf kernel FILE\.c/);
    expect(r.out).toContain('--emit TARGET');
    expect(r.out).toContain('--backend');
  });

  it('is listed in scf --help', async () => {
    const r = await cli('--help');
    expect(r.out).toMatch(/^ {2}kernel FILE\.c --function F --emit wgsl\|js/m);
  });

  it.each([
    ['no --emit', ['--function', 'f'], /--emit wgsl\|js is required/],
    ['a bad --emit', ['--function', 'f', '--emit', 'spirv'], /--emit must be wgsl or js, got 'spirv'/],
    ['--args without --run', ['--function', 'f', '--emit', 'js', '--args', '[[1]]'], /--args needs --run/],
    [
      '--backend webgpu with --emit js',
      ['--function', 'f', '--emit', 'js', '--run', '--args', '[[1]]', '--backend', 'webgpu'],
      /--backend webgpu needs --emit wgsl/,
    ],
  ])('%s is a usage error with the help, exit 2', async (_what, flags, message) => {
    const r = await cli('kernel', MAP_MAP_REDUCE, ...flags);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(message);
    expect(r.err).toContain('Usage: scf kernel');
    expect(r.out).toBe('');
  });
});

describe('scf kernel --emit', () => {
  it('js prints the JS back end source of the function', async () => {
    const r = await cli('kernel', MAP_MAP_REDUCE, '--function', 'f', '--emit', 'js');
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toContain('// float f(const float xs[])');
    expect(r.out).toContain('function f_f(a_xs) {');
    expect(r.out).toContain('// ys = map(sq, xs)');
    expect(r.out).toMatch(/return f_f;$/);
  });

  it('wgsl prints compute shaders whose comments name the function', async () => {
    const r = await cli('kernel', SMOOTH, '--function', 'smooth', '--emit', 'wgsl');
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toContain('@compute');
    expect(r.out).toMatch(/\/\/.*\bsmooth\b/);
  });

  it('with --bind and --passes const-prop,fusion, the WGSL is that of the optimized function', async () => {
    const plain = await cli('kernel', SMOOTH, '--function', 'smooth', '--emit', 'wgsl');
    const r = await cli(
      'kernel',
      SMOOTH,
      '--function',
      'smooth',
      '--bind',
      'w=3',
      '--bind',
      'g=1.5',
      '--passes',
      'const-prop,fusion',
      '--emit',
      'wgsl',
    );
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toContain('@compute');
    expect(r.out).toMatch(/\/\/.*\bsmooth\b/);
    // the three maps fused into one shader, as `scf opt` fuses them
    const shaders = (s: string) => s.match(/@compute/g)?.length ?? 0;
    expect([shaders(plain.out), shaders(r.out)]).toEqual([3, 1]);
    // the bound values are constants: no uniform fields for w and g any more
    expect(plain.out).toMatch(/\bs_w: i32\b[\s\S]*\bs_g: f32\b/);
    expect(r.out).not.toMatch(/\bs_[wg]\b/);
    expect(r.out).toContain('1.5f');
  });

  it('with --bind and --passes, the JS is that of the optimized function', async () => {
    const plain = await cli('kernel', SMOOTH, '--function', 'smooth', '--emit', 'js');
    const r = await cli(
      'kernel',
      SMOOTH,
      '--function',
      'smooth',
      '--bind',
      'g=1.5',
      '--passes',
      'const-prop,fusion',
      '--emit',
      'js',
    );
    expect(r.code).toBe(0);
    const loops = (s: string) => s.match(/for \(let i = /g)?.length ?? 0;
    expect([loops(plain.out), loops(r.out)]).toEqual([3, 1]);
    // g's bound value is built into the clone of gain the fused loop calls
    expect(r.out).toContain('f_gain_1(l_v_2)');
    expect(r.out).toMatch(/function f_gain_1\(v_v\) \{[^}]*\b1\.5\b/);
  });
});

describe('scf kernel --run on the JS back end', () => {
  it.each([
    ['a map→map→reduce', MAP_MAP_REDUCE, 'f', '[[1.5,-2,3]]'],
    ['an empty reduce', MAP_MAP_REDUCE, 'f', '[[]]'],
    ['a NaN result', MAP_MAP_REDUCE, 'f', '[["NaN", 1]]'],
    ['a returned array', MAP_MAP, 'f', '[[1.5,-2,3],0.5]'],
    ['a void function', DIFFERENT_LENGTHS, 'f', '[[1.5,-2,3],[4,5],[0,0,0],[0,0],3,2]'],
    ['arguments by name', SMOOTH, 'smooth', '{"img":[0.25,0.5,1,0.75,0,0.5],"w":3,"h":2,"g":1}'],
  ])('%s: the result scf eval prints', async (_what, file, fn, args) => {
    const expected = await evalResult(file, '--function', fn, '--args', args);
    const r = await kernelRun(file, '--function', fn, '--emit', 'js', '--run', '--args', args);
    expect(r).toEqual({ backend: 'js', result: expected, err: '' });
  });

  it('a NaN is printed as "NaN", a void result as null', async () => {
    expect(
      (await kernelRun(MAP_MAP_REDUCE, '--function', 'f', '--emit', 'js', '--run', '--args', '[["NaN"]]'))
        .result,
    ).toBe('NaN');
    expect(
      (
        await kernelRun(
          DIFFERENT_LENGTHS,
          '--function',
          'f',
          '--emit',
          'js',
          '--run',
          '--args',
          '[[],[1],[],[0],0,1]',
        )
      ).result,
    ).toBe(null);
  });

  it('--emit wgsl --backend js runs the JS back end', async () => {
    const r = await kernelRun(
      MAP_MAP_REDUCE,
      '--function',
      'f',
      '--emit',
      'wgsl',
      '--run',
      '--backend',
      'js',
      '--args',
      '[[1.5,-2,3]]',
    );
    expect(r.backend).toBe('js');
    expect(r.result).toBe(18.25);
  });

  it('with --bind and --passes runs the optimized function, the bound values as arguments', async () => {
    const expected = await evalResult(SMOOTH, '--function', 'smooth', '--args', SMOOTH_ARGS);
    const r = await kernelRun(
      SMOOTH,
      '--function',
      'smooth',
      '--bind',
      'w=3',
      '--passes',
      'const-prop,fusion',
      '--emit',
      'js',
      '--run',
      '--args',
      '{"img":[0.25,0.5,1,0.75,0,0.5],"h":2,"g":1}',
    );
    expect(r.result).toEqual(expected);
  });
});

describe.skipIf(GPU.skip)(GPU.title('scf kernel --emit wgsl --run on WebGPU'), () => {
  it('a map→map→reduce gives scf eval’s result (--backend webgpu)', async () => {
    const args = '[[1.5,-2,3]]';
    const expected = await evalResult(MAP_MAP_REDUCE, '--function', 'f', '--args', args);
    const r = await kernelRun(
      MAP_MAP_REDUCE,
      '--function',
      'f',
      '--emit',
      'wgsl',
      '--run',
      '--backend',
      'webgpu',
      '--args',
      args,
    );
    expect(r).toEqual({ backend: 'webgpu', result: expected, err: '' });
  });

  it('a returned array, optimized first, gives scf eval’s result (default backend auto)', async () => {
    // (WGSL's f32 division is not correctly rounded, so no division here: smooth's blur divides by 3.)
    const args = '{"xs":[1.5,-2,3,0]}';
    const expected = await evalResult(MAP_MAP, '--function', 'f', '--args', '[[1.5,-2,3,0],0.5]');
    const r = await kernelRun(
      MAP_MAP,
      '--function',
      'f',
      '--bind',
      'c=0.5',
      '--passes',
      'const-prop,fusion',
      '--emit',
      'wgsl',
      '--run',
      '--args',
      args,
    );
    expect(r).toEqual({ backend: 'webgpu', result: expected, err: '' });
    expect(expected).toEqual([1.75, 0, 2.5, 1]);
  });

  it('an array where a scalar is expected: exit 2 naming the function', async () => {
    const r = await cli(
      'kernel',
      MAP_MAP,
      '--function',
      'f',
      '--emit',
      'wgsl',
      '--run',
      '--backend',
      'webgpu',
      '--args',
      '[[1],[2]]',
    );
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^scf kernel: function 'f': .*'c'/);
  });

  it('mapped arrays of different lengths: exit 2 naming the function', async () => {
    const r = await cli(
      'kernel',
      ZIP,
      '--function',
      'zip',
      '--emit',
      'wgsl',
      '--run',
      '--backend',
      'webgpu',
      '--args',
      '[[1,2],[1,2,3]]',
    );
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^scf kernel: function 'zip': .*length/);
    expect(r.err).not.toMatch(/internal error|\n\s+at /);
  });

  it('a kernel that never ends: exit 2 naming the function after the time limit, no hang', () => {
    // A separate process (bin/scf.js): the abandoned device keeps Dawn busy until process.exit.
    const spin = fixture(
      'spin.c',
      'int spin(int x) { while (x > 0) { x = x * 1; } return x; }\nint *f(const int xs[]) { return map(spin, xs); }\n',
    );
    const r = spawnSync(
      process.execPath,
      [
        path.join(ROOT, 'bin/scf.js'),
        'kernel',
        spin,
        '--function',
        'f',
        '--emit',
        'wgsl',
        '--run',
        '--args',
        '[[1,2]]',
      ],
      { encoding: 'utf8', timeout: 50_000, env: { ...process.env, SCF_GPU_TIMEOUT_MS: '1500' } },
    );
    expect(r.signal).toBeNull();
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/function 'f': .*map\(spin, xs\) did not finish within 1\.5 s/);
  });
});

describe('scf kernel without an adapter', () => {
  it('--backend webgpu is an error that says what to install, exit 2', async () => {
    vi.spyOn(GpuRuntime, 'open').mockResolvedValue(NO_ADAPTER);
    const r = await cli(
      'kernel',
      MAP_MAP_REDUCE,
      '--function',
      'f',
      '--emit',
      'wgsl',
      '--run',
      '--backend',
      'webgpu',
      '--args',
      '[[1]]',
    );
    expect(r.code).toBe(2);
    expect(r.err).toContain("function 'f'");
    expect(r.err).toContain('no WebGPU adapter (stubbed)');
    expect(r.err).toContain(SOFTWARE_DRIVER_HINT);
    expect(r.out).toBe('');
  });

  it('auto falls back to the JS back end with a note on stderr', async () => {
    vi.spyOn(GpuRuntime, 'open').mockResolvedValue(NO_ADAPTER);
    const r = await cli(
      'kernel',
      MAP_MAP_REDUCE,
      '--function',
      'f',
      '--emit',
      'wgsl',
      '--run',
      '--args',
      '[[1.5,-2,3]]',
    );
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toEqual({ backend: 'js', result: 18.25 });
    expect(r.err).toMatch(/^scf kernel: note: /);
  });
});

describe('scf kernel: bad input is one message naming the function and the reason, exit 2', () => {
  async function bad(...argv: string[]): Promise<string> {
    const r = await cli('kernel', ...argv);
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    expect(r.err).not.toMatch(/internal error|\n\s+at /);
    return r.err;
  }

  it('an unknown function', async () => {
    expect(await bad(MAP_MAP_REDUCE, '--function', 'nope', '--emit', 'wgsl')).toMatch(
      /has no function 'nope'/,
    );
  });

  it('a function without a combinator, emitted or run on the GPU', async () => {
    // planned before any adapter is looked for: the same message with or without one
    const reason = /^scf kernel: function 'plain' cannot run on the GPU: it has no combinator/;
    const scalar = [SCALAR, '--function', 'plain', '--emit', 'wgsl'];
    expect(await bad(...scalar)).toMatch(reason);
    expect(await bad(...scalar, '--run', '--args', '[2,3]')).toMatch(reason);
    expect(await bad(...scalar, '--run', '--backend', 'webgpu', '--args', '[2,3]')).toMatch(reason);
  });

  it('a function without a combinator still runs on the JS back end', async () => {
    expect(
      (await kernelRun(SCALAR, '--function', 'plain', '--emit', 'js', '--run', '--args', '[2,3]')).result,
    ).toBe(7);
  });

  it('the wrong number of arguments', async () => {
    expect(
      await bad(MAP_MAP_REDUCE, '--function', 'f', '--emit', 'js', '--run', '--args', '[[1],[2]]'),
    ).toMatch(/'f' takes 1 argument\(s\), --args gives 2/);
    expect(await bad(MAP_MAP_REDUCE, '--function', 'f', '--emit', 'js', '--run', '--args', '{}')).toMatch(
      /missing argument for parameter 'xs' of 'f'/,
    );
    expect(
      await bad(MAP_MAP_REDUCE, '--function', 'f', '--emit', 'js', '--run', '--args', '{"xs":[1],"ys":[2]}'),
    ).toMatch(/'f' has no parameter 'ys'/);
  });

  it('an array where a scalar is expected, a scalar where an array is', async () => {
    expect(await bad(MAP_MAP, '--function', 'f', '--emit', 'js', '--run', '--args', '[[1],[2]]')).toMatch(
      /^scf kernel: function 'f': parameter 'c' is a scalar float/,
    );
    expect(await bad(MAP_MAP, '--function', 'f', '--emit', 'js', '--run', '--args', '[1,2]')).toMatch(
      /^scf kernel: function 'f': parameter 'xs' is an array of float/,
    );
  });

  it('mapped arrays of different lengths (JS back end)', async () => {
    expect(await bad(ZIP, '--function', 'zip', '--emit', 'js', '--run', '--args', '[[1,2],[1,2,3]]')).toMatch(
      /^scf kernel: function 'zip': 'map' goes over .* of length 2 and .* of length 3: lengths differ$/,
    );
  });

  it('malformed JSON', async () => {
    expect(await bad(MAP_MAP_REDUCE, '--function', 'f', '--emit', 'js', '--run', '--args', '[[1,2]')).toMatch(
      /^scf kernel: function 'f': --args is not valid JSON: /,
    );
    expect(
      await bad(MAP_MAP_REDUCE, '--function', 'f', '--emit', 'js', '--run', '--args', '[{"x":1}]'),
    ).toMatch(/argument 'xs' must be a number or boolean/);
  });

  it('a binding that does not fit the function, positioned at the function', async () => {
    expect(await bad(MAP_MAP_REDUCE, '--function', 'f', '--bind', 'q=3', '--emit', 'wgsl')).toMatch(
      /map_map_reduce\.c:12:1: error: 'f' has no parameter 'q'/,
    );
  });

  it('a file that does not parse: positioned diagnostics', async () => {
    const file = fixture('broken.c', 'float f(const float xs[]) {\n  return xs[0] +;\n}\n');
    expect(await bad(file, '--emit', 'js')).toMatch(/broken\.c:2:\d+: error/);
  });

  it('a missing file', async () => {
    expect(await bad(path.join(TMP, 'absent.c'), '--emit', 'js')).toMatch(
      /cannot read .*absent\.c': no such file/,
    );
  });
});
