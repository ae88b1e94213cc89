/**
 * The builtins' meaning (the prelude's `cmath`, what the evaluator computes) against gcc with glibc's
 * libm, function by function, on edge cases (NaN, ±inf, ±0, subnormals, halves, integral and odd
 * exponents of negative bases, huge arguments) and on generated binary32 arguments: bit for bit for
 * the functions C specifies to the bit (`exact` in kernel/builtins.ts), within 2 ulp for the others
 * (the bound the docs give). NaN matches any NaN (payloads are not C's meaning).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { BUILTINS, float32Bits, float32FromBits } from '../../src/kernel/index.js';
import { cmath } from '../../src/scf-lang/prelude.js';
import { haveGcc } from './gcc-harness.js';

const SEED = Number(process.env.SCF_GCC_SEED ?? 20020116);
/** Generated argument tuples per function, besides the edge cases. */
const RUNS = Number(process.env.SCF_GCC_RUNS ?? 400);

const EDGES = [
  Number.NaN,
  Number.POSITIVE_INFINITY,
  Number.NEGATIVE_INFINITY,
  0,
  -0,
  1,
  -1,
  0.5,
  -0.5,
  1.5,
  -1.5,
  2.5,
  -2.5,
  2,
  -2,
  3,
  -3,
  0.1,
  -0.1,
  1e-40, // subnormal
  -1e-40,
  1.17549435e-38, // smallest normal
  3.4028234663852886e38, // largest
  -3.4028234663852886e38,
  8388607.5,
  8388609,
  -8388609,
  16777217,
  1e10,
  -1e10,
  88.7,
  -103.9,
  Math.PI,
  -Math.PI,
  100,
  1e6,
].map(Math.fround);

const INT_EDGES = [0, 1, -1, 7, -7, 2147483647, -2147483648, -2147483647];

/** Binary32 values from all of their bit patterns (so every exponent is as likely). */
const anyFloat = fc.integer({ min: 0, max: 0xffffffff }).map((u) => float32FromBits(u >>> 0));
/** Binary32 values of moderate magnitude, where the transcendental functions are defined and finite. */
const moderate = fc.double({ min: -60, max: 60, noNaN: true }).map(Math.fround);

function argTuples(arity: number, int: boolean): number[][] {
  if (int) {
    const gen = fc.sample(fc.integer({ min: -2147483648, max: 2147483647 }), { seed: SEED, numRuns: RUNS });
    return [...INT_EDGES, ...gen].map((x) => [x]);
  }
  const edges =
    arity === 1
      ? EDGES.map((x) => [x])
      : EDGES.flatMap((x) => EDGES.filter((_, i) => i % 3 === 0).map((y) => [x, y]));
  const arb = fc.tuple(...Array.from({ length: arity }, () => fc.oneof(anyFloat, moderate)));
  return [...edges, ...fc.sample(arb, { seed: SEED, numRuns: RUNS })];
}

function bitsText(x: number): string {
  return `0x${(float32Bits(x) >>> 0).toString(16)}u`;
}

/** The binary32 values' distance in ulps (via their ordered bit patterns). */
function ulpDistance(a: number, b: number): number {
  const ord = (x: number): number => {
    const u = float32Bits(x) >>> 0;
    return u >= 0x80000000 ? -(u - 0x80000000) : u;
  };
  return Math.abs(ord(a) - ord(b));
}

interface Row {
  readonly name: string;
  readonly args: number[];
}

/** gcc's results for every row, as binary32 values (ints for `abs`). */
function gccResults(rows: readonly Row[]): number[] {
  const lines = [
    '#include <math.h>',
    '#include <stdio.h>',
    '#include <stdlib.h>',
    '#include <string.h>',
    'static float f(unsigned u) { float x; memcpy(&x, &u, 4); return x; }',
    'static void pf(float x) { unsigned u; memcpy(&u, &x, 4); printf("%u\\n", u); }',
    'int main(void) {',
  ];
  for (const r of rows) {
    if (r.name === 'abs')
      lines.push(`  printf("%d\\n", abs(${r.args[0] === -2147483648 ? '(-2147483647 - 1)' : r.args[0]}));`);
    else lines.push(`  pf(${r.name}(${r.args.map((a) => `f(${bitsText(a)})`).join(', ')}));`);
  }
  lines.push('  return 0;', '}');
  const dir = mkdtempSync(join(tmpdir(), 'scf-libm-'));
  try {
    const src = join(dir, 'm.c');
    const exe = join(dir, 'm');
    writeFileSync(src, lines.join('\n'));
    execFileSync(
      'gcc',
      ['-O0', '-fwrapv', '-ffp-contract=off', '-std=c11', '-fno-builtin', '-o', exe, src, '-lm'],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const out = execFileSync(exe, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })
      .trim()
      .split('\n');
    return out.map((line, i) =>
      (rows[i] as Row).name === 'abs' ? Number(line) : float32FromBits(Number(line)),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe.skipIf(!haveGcc())('the builtins agree with glibc', () => {
  const rows: Row[] = BUILTINS.flatMap((b) =>
    argTuples(b.params.length, b.params[0] === 'int').map((args) => ({ name: b.name, args })),
  );
  let actual: number[] = [];
  const worst = new Map<string, number>();
  beforeAll(() => {
    actual = gccResults(rows);
    rows.forEach((r, i) => {
      const ours = cmath(r.name, r.args[0] ?? 0, r.args[1] ?? 0);
      const theirs = actual[i] as number;
      const d =
        Number.isNaN(ours) && Number.isNaN(theirs)
          ? 0
          : Object.is(ours, theirs)
            ? 0
            : ulpDistance(ours, theirs);
      worst.set(
        r.name,
        Math.max(worst.get(r.name) ?? 0, Number.isNaN(ours) !== Number.isNaN(theirs) ? Infinity : d),
      );
    });
  });

  for (const b of BUILTINS) {
    it(`${b.name}: ${b.exact ? 'bit for bit' : 'within 2 ulp'} on edge cases and ${RUNS} generated arguments`, () => {
      const mismatches = rows
        .map((r, i) => ({ r, theirs: actual[i] as number }))
        .filter(({ r }) => r.name === b.name)
        .map(({ r, theirs }) => ({
          args: r.args,
          ours: cmath(r.name, r.args[0] ?? 0, r.args[1] ?? 0),
          theirs,
        }))
        .filter(({ ours, theirs }) => {
          if (Number.isNaN(ours) || Number.isNaN(theirs)) return Number.isNaN(ours) !== Number.isNaN(theirs);
          return b.exact ? !Object.is(ours, theirs) : ulpDistance(ours, theirs) > 2;
        });
      expect(mismatches.slice(0, 5)).toEqual([]);
    });
  }

  it('reports the largest distance per function', () => {
    const text = [...worst].map(([n, d]) => `${n} ${d}`).join(', ');
    console.log(`builtins vs glibc, largest ulp distance: ${text}`);
    for (const b of BUILTINS) if (b.exact) expect(worst.get(b.name), b.name).toBe(0);
  });
});
