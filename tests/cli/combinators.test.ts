/**
 * The command line on combinator programs: `scf eval` prints a returned array as `result`,
 * `scf opt --passes fusion` prints the fused function (remaining combinators visible as calls,
 * composed functions as helper functions) that parses again and computes the same, and misuse of
 * a combinator is a positioned diagnostic with exit 2.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from './helpers.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const SMOOTH = path.join(ROOT, 'benchmarks/inputs/fusion/smooth.c');
const ARGS = '[[0.1,0.5,0.9,0.3,0.2,0.8],3,2,1.5]';

describe('scf eval with combinators', () => {
  it('prints a returned array as the result', async () => {
    const r = await cli('eval', SMOOTH, '--function', 'smooth', '--args', ARGS);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const out = JSON.parse(r.out) as { result: number[] };
    expect(out.result).toHaveLength(6);
    // (0.1 + 0.1 + 0.5) / 3 * 1.5 = 0.35, clamped values stay in [0, 1]
    expect(out.result[0]).toBeCloseTo(0.35, 6);
    expect(out.result.every((v) => v >= 0 && v <= 1)).toBe(true);
  });

  it('reports a length mismatch at the combinator as a runtime error (exit 1)', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'scf-comb-'));
    const file = path.join(dir, 'k.c');
    writeFileSync(
      file,
      'float add(float a, float b) { return a + b; }\nfloat *f(const float xs[], const float ys[]) {\n  float zs[] = map(add, xs, ys);\n  return zs;\n}\n',
    );
    const r = await cli('eval', file, '--function', 'f', '--args', '[[1,2],[1,2,3]]');
    expect(r.code).toBe(1);
    expect(r.err).toMatch(
      /k\.c:3:\d+: error: 'map' goes over 'xs' of length 2 and 'ys' of length 3: lengths differ/,
    );
  });
});

describe('scf opt --passes fusion', () => {
  it('prints one redomap for map→map→reduce, and the printed code runs the same', async () => {
    const r = await cli('opt', SMOOTH, '--function', 'brightness', '--passes', 'fusion');
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/total = redomap\(add, brightness_fused1, 0\.0f, iota\(tmp\), img, w, h, g\);/);
    expect(r.out).not.toMatch(/\bmap\(/);
    const dir = mkdtempSync(path.join(tmpdir(), 'scf-fused-'));
    const file = path.join(dir, 'fused.c');
    // the helpers the fused function calls come from the original file
    const original = (await import('node:fs')).readFileSync(SMOOTH, 'utf8');
    const helpers = original.slice(0, original.indexOf('float *smooth('));
    writeFileSync(file, `${helpers}\n${r.out}\n`);
    const before = await cli('eval', SMOOTH, '--function', 'brightness', '--args', ARGS);
    const after = await cli('eval', file, '--function', 'brightness', '--args', ARGS);
    expect(after.err).toBe('');
    expect(after.out).toBe(before.out);
  });

  it('rejects a combinator used inside an expression with its position', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'scf-comb-'));
    const file = path.join(dir, 'bad.c');
    writeFileSync(
      file,
      'float add(float a, float b) { return a + b; }\nfloat f(const float xs[]) {\n  return 1.0f + reduce(add, 0.0f, xs);\n}\n',
    );
    const r = await cli('opt', file, '--function', 'f', '--passes', 'fusion');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/bad\.c:3:17: error K1013: 'reduce' must be the whole initializer/);
  });
});

describe('staging and benchmarking fusion', () => {
  it('scf bench --dir names a missing folder, exit 2', async () => {
    const r = await cli('bench', '--dir', path.join(ROOT, 'no-such-folder'));
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--dir .*no-such-folder: no such folder/);
  });

  it('a pipeline without formals (fusion alone) stages; its formals are still described', async () => {
    const { loadConfig, stageConfig } = await import('../../src/pipeline/index.js');
    const dir = mkdtempSync(path.join(tmpdir(), 'scf-fuse-cfg-'));
    const file = path.join(dir, 'fuse.json');
    writeFileSync(
      file,
      JSON.stringify({
        input: SMOOTH,
        function: 'brightness',
        pipeline: ['fusion'],
        bind: { w: "'Int" },
        sample: { w: 4 },
      }),
    );
    const staged = await stageConfig(loadConfig(file));
    expect(staged.stages.map((s) => s.pass.name)).toEqual(['fusion']);
  }, 120_000);
});
