/**
 * Merging residual functions that are equal up to the names of equal callees (minimize.ts):
 * copies merge, near copies (another constant, -0 against 0, a callee that differs) do not, and
 * the merged program computes what the original computes.
 */
import { describe, expect, it } from 'vitest';
import { mergeEqualFunctions } from '../../src/stager/index.js';
import { compileFile, Interpreter, type CoreProgram } from '../../src/scf-lang/index.js';

function compile(src: string): CoreProgram {
  const r = compileFile('/virtual/m.ts', { cwd: '/virtual', readFile: () => src });
  if (!r.program) throw new Error(r.diagnostics.map((d) => d.message).join('\n'));
  return r.program;
}

const SRC = `
export function inc1(x: number): number { return x + 1; }
export function inc2(x: number): number { return x + 1; }
export function incNeg(x: number): number { return x + 2; }
export function twice1(x: number): number { return inc1(inc1(x)); }
export function twice2(x: number): number { return inc2(inc2(x)); }
export function twiceOther(x: number): number { return incNeg(incNeg(x)); }
export function zero(x: number): number { return x * 0; }
export function negZero(x: number): number { return x * -0; }
export function loop1(n: number): number { return n <= 0 ? 0 : loop2(n - 1) + 1; }
export function loop2(n: number): number { return n <= 0 ? 0 : loop1(n - 1) + 1; }
export function main(x: number): number {
  return twice1(x) + twice2(x) + twiceOther(x) + zero(x) + negZero(x) + loop1(x) + loop2(x);
}
`;

describe('merging equal residual functions', () => {
  const p = compile(SRC);
  const r = mergeEqualFunctions(p, 'm.main');
  const kept = [...r.program.funs.keys()];

  it('merges copies, also mutually recursive ones, and keeps the entry', () => {
    expect(kept).toContain('m.main');
    expect(kept.filter((n) => n === 'm.inc1' || n === 'm.inc2')).toHaveLength(1);
    expect(kept.filter((n) => n === 'm.twice1' || n === 'm.twice2')).toHaveLength(1);
    expect(kept.filter((n) => n === 'm.loop1' || n === 'm.loop2')).toHaveLength(1);
  });

  it('keeps functions apart that differ in a constant (also -0 against 0) or a callee', () => {
    expect(kept).toContain('m.incNeg');
    expect(kept).toContain('m.twiceOther');
    expect(kept).toContain('m.zero');
    expect(kept).toContain('m.negZero');
  });

  it('computes what the original computes', () => {
    const a = new Interpreter(p);
    const b = new Interpreter(r.program);
    for (const x of [-3, 0, 1, 5, 17]) {
      expect(b.run('m.main', [x]).value).toBe(a.run('m.main', [x]).value);
    }
    expect(Object.is(b.run('m.negZero', [1]).value, -0)).toBe(true);
  });
});
