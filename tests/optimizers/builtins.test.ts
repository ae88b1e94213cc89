/**
 * The optimizers and the builtins (C's math functions, src/kernel/builtins.ts): constant
 * propagation folds a call on known arguments with the evaluator's value, under exact math only
 * for the functions C specifies to the bit (so no back end can disagree), under finite math every
 * one; a builtin's call is pure, so DAE drops a dead one (a call of the program's functions it
 * keeps) and copy propagation moves values through one; and on random programs calling the
 * exact builtins the default pipeline gives the evaluator's results bit for bit.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  BUILTINS,
  evaluate,
  KernelRuntimeError,
  loadKernelParser,
  parseKernelSync,
  printFun,
} from '../../src/kernel/index.js';
import { defaultPipeline, runPipeline, withMath } from '../../src/optimizers/index.js';
import { cmath } from '../../src/scf-lang/prelude.js';
import { generate } from '../kernel/gen.js';
import { parseC, passes } from './helpers.js';

beforeAll(loadKernelParser);

const opt = (src: string, names: string, math: 'exact' | 'finite' = 'exact', bind = {}) =>
  printFun(runPipeline(parseC(src), 'f', withMath(passes(names), math), bind).fun);

describe('constant propagation folds builtins', () => {
  it('the exact ones under exact math, to the evaluator’s value; the others stay calls', () => {
    for (const b of BUILTINS) {
      const args = b.params.map((t) => (t === 'int' ? '-7' : '2.5f')).join(', ');
      const out = opt(`${b.ret} f(float z) { return ${b.name}(${args}); }`, 'const-prop');
      if (b.exact) expect(out, b.name).not.toContain(`${b.name}(`);
      else expect(out, b.name).toContain(`${b.name}(${args})`);
    }
    expect(opt('float f(float z) { return sqrtf(2.0f); }', 'const-prop')).toContain('return 1.4142135f;');
    expect(opt('float f(float z) { return fmodf(-7.5f, 2.0f) + roundf(-2.5f); }', 'const-prop')).toContain(
      'return -4.5f;',
    );
  });

  it('every one under finite math, to the evaluator’s value (expf(1) is cmath’s e)', () => {
    const folded = (src: string, bind: Record<string, number>) => {
      const { program, fun } = runPipeline(parseC(src), 'f', withMath(passes('const-prop'), 'finite'), bind);
      expect(printFun(fun)).not.toMatch(/expf|powf|sinf/);
      return evaluate(program, 'f', [bind.s ?? 0]).result;
    };
    expect(folded('float f(float s) { return expf(1.0f); }', {})).toBe(cmath('expf', 1, 0));
    expect(folded('float f(float s) { return powf(s, 0.5f) * sinf(s); }', { s: 4 })).toBe(
      Math.fround(2 * cmath('sinf', 4, 0)),
    );
  });

  it('folds C’s domain edges as the evaluator does: sqrtf(-1) is NaN, logf(0) not folded under exact math', () => {
    const out = opt(
      'float f(float x) { float u = sqrtf(-1.0f); float v = logf(0.0f); return x + u + v; }',
      'const-prop',
    );
    expect(out).toContain('u = (0.0f / 0.0f);');
    expect(out).toContain('v = logf(0.0f);');
  });

  it('folds through known arguments of a clone (a late gamma)', () => {
    const src =
      'float g(float x, float gamma) { return powf(x, 1.0f / gamma); }\nfloat* f(const float xs[], float gamma) { float ys[] = map(g, xs, gamma); return ys; }';
    const { program } = runPipeline(parseC(src), 'f', defaultPipeline, { gamma: 2 });
    const clone = printFun(
      [
        ...(function* () {
          for (let p = program; p.kind === 'cons'; p = p.tail) yield p.head;
        })(),
      ].find((g) => g.name === 'g_1') ??
        (() => {
          throw new Error('no clone');
        })(),
    );
    expect(clone).toContain('powf(x, 0.5f)');
  });
});

describe('a builtin’s call is pure', () => {
  it('DAE drops a dead assignment of one, and keeps a dead call of the program’s function', () => {
    const out = opt(
      'float g(float a[]) { a[0] = 1.0f; return 0.0f; }\nfloat f(float x, float a[]) { float t = expf(x) + sqrtf(x); float u = g(a); return x; }',
      'dae',
    );
    expect(out).not.toContain('expf');
    expect(out).toContain('g(a)');
  });

  it('copy propagation moves a copy across one', () => {
    const out = opt('float f(float x) { float y = x; float z = fabsf(y); return z + y; }', 'copy-prop');
    expect(out).toContain('fabsf(x)');
  });
});

describe('the default pipeline on random programs calling the exact builtins', () => {
  it('gives the evaluator’s results bit for bit (200 programs)', () => {
    let compared = 0;
    fc.assert(
      fc.property(fc.array(fc.nat(), { minLength: 600, maxLength: 600 }), (tape) => {
        const g = generate(tape, 'p_', true);
        const parsed = parseKernelSync(g.source, 'p.c');
        expect(parsed.diagnostics).toEqual([]);
        let want: unknown;
        try {
          want = evaluate(parsed.program, g.main, g.args, { fuel: 100_000 });
        } catch (e) {
          if (e instanceof KernelRuntimeError) return;
          throw e;
        }
        const { program } = runPipeline(parsed.program, g.main, defaultPipeline, { x: g.args[0] as number });
        const got = evaluate(program, g.main, g.args, { fuel: 1_000_000 });
        expect(
          Object.is(got.result, (want as { result: unknown }).result) ||
            got.result === (want as { result: unknown }).result,
        ).toBe(true);
        expect(got.outputs).toEqual((want as { outputs: unknown }).outputs);
        compared++;
      }),
      { numRuns: 200 },
    );
    expect(compared).toBeGreaterThan(80);
  });
});
