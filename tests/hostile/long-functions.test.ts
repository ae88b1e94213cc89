/**
 * Generated and unrolled kernels get long: a straight-line function of 100,000 statements (a
 * `seq` chain 100,000 levels deep) goes through the `scf` command as a user runs it (bin/scf.js,
 * whose kernel-walking commands run on a thread with a large stack, cli/thread.ts): parsed,
 * optimized (`scf opt`), run on the reference evaluator and the JS back end with equal results,
 * and compiled to WGSL. A run that may use WebGPU stays on the main thread (cli/main.ts's
 * `mayRunOnGpu`), so there 2,000 statements are K1014 at their place, and run with `--backend js`.
 * Staging such a function is refused with K1014 at its place
 * (the stager specializes to the whole function: its cost grows with it), never a crash.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MAX_TREE_DEPTH } from '../../src/kernel/index.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const TMP = mkdtempSync(path.join(tmpdir(), 'scf-long-'));
afterAll(() => rmSync(TMP, { recursive: true, force: true }));

/** A map kernel whose element function is `n` statements in a row. */
function longKernel(n: number): string {
  const body = Array.from({ length: n }, (_, i) => `  a = a * g + ${i % 7}.0f;`);
  return [
    'float step(float x, float g) {',
    '  float a;',
    '  a = x;',
    ...body,
    '  return a;',
    '}',
    'float *deep(const float img[], float g) {',
    '  float out[] = map(step, img, g);',
    '  return out;',
    '}',
    '',
  ].join('\n');
}

/** `step(x, g)` of `longKernel(n)` in binary32, as C computes it. */
function stepOf(x: number, g: number, n: number): number {
  let a = Math.fround(x);
  for (let i = 0; i < n; i++) a = Math.fround(Math.fround(a * g) + (i % 7));
  return a;
}

function scf(...args: string[]): { code: number; out: string; err: string } {
  const r = spawnSync(process.execPath, [path.join(ROOT, 'bin/scf.js'), ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    maxBuffer: 256 * 2 ** 20,
    timeout: 240_000,
  });
  return { code: r.status ?? -1, out: r.stdout, err: r.stderr };
}

const N = 100_000;
const ARGS = JSON.stringify({ img: [1, 2, 3, 4], g: 0.5 });

describe('a function of 100,000 statements', () => {
  const file = path.join(TMP, 'long.c');
  writeFileSync(file, longKernel(N));

  it('scf opt prints it optimized: the copy propagated, every other statement kept', {
    timeout: 300_000,
  }, () => {
    const r = scf('opt', file, '--function', 'step');
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toContain('  a = x * g + 0.0f;\n  a = a * g + 1.0f;\n');
    expect(r.out.match(/^ {2}a = [ax] \* g \+ \d\.0f;$/gm)?.length).toBe(N);
  });

  it('the evaluator and the JS back end agree on it; it compiles to WGSL', { timeout: 600_000 }, () => {
    const evaluated = scf('eval', file, '--function', 'deep', '--args', ARGS);
    expect(evaluated.err).toBe('');
    const js = scf('kernel', file, '--function', 'deep', '--emit', 'js', '--run', '--args', ARGS);
    expect(js.code, js.err).toBe(0);
    const want = (JSON.parse(evaluated.out) as { result: number[] }).result;
    expect((JSON.parse(js.out) as { result: number[] }).result).toEqual(want);
    // binary32, each operation rounded, as C computes it
    expect(want).toEqual([1, 2, 3, 4].map((x) => stepOf(x, 0.5, N)));

    const wgsl = scf('kernel', file, '--function', 'deep', '--emit', 'wgsl');
    expect(wgsl.code, wgsl.err).toBe(0);
    expect(wgsl.out.match(/a = /g)?.length ?? 0).toBeGreaterThanOrEqual(N);
  });

  it('staging it is refused with K1014 at its place', { timeout: 120_000 }, () => {
    const config = path.join(TMP, 'long.json');
    writeFileSync(
      config,
      JSON.stringify({
        input: './long.c',
        function: 'deep',
        pipeline: ['const-prop'],
        bind: { g: "'Float" },
      }),
    );
    const r = scf('stage', config, '--out', path.join(TMP, 'staged'));
    expect(r.code).toBe(2);
    expect(r.err).toMatch(
      new RegExp(
        `long\\.c:\\d+:\\d+: error K1014: 'deep' is too long or too deeply nested to stage \\(limit ${MAX_TREE_DEPTH} levels\\)`,
      ),
    );
    expect(r.err).not.toMatch(/\n\s+at /);
  });
});

describe('a run that may use WebGPU', () => {
  it("keeps node's default stack: 2,000 statements is K1014 at its place; on the JS back end it runs", {
    timeout: 300_000,
  }, () => {
    const file = path.join(TMP, 'mid.c');
    writeFileSync(file, longKernel(2000));
    const gpu = scf('kernel', file, '--function', 'deep', '--emit', 'wgsl', '--run', '--args', ARGS);
    expect(gpu.code).toBe(2);
    expect(gpu.err).toMatch(
      /mid\.c:\d+:\d+: error K1014: 'step' is too long or too deeply nested to compile \(limit 1000 levels\)/,
    );
    const js = scf(
      'kernel',
      file,
      '--function',
      'deep',
      '--emit',
      'wgsl',
      '--run',
      '--backend',
      'js',
      '--args',
      ARGS,
    );
    expect(js.code, js.err).toBe(0);
    expect((JSON.parse(js.out) as { result: number[] }).result).toEqual(
      [1, 2, 3, 4].map((x) => stepOf(x, 0.5, 2000)),
    );
  });
});
