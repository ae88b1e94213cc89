/**
 * Finite math (`withMath(passes, 'finite')`, config `"math": "finite"`, `--math finite`): constant
 * propagation folds `x * 0` => 0 and `x + 0` => x for floats, and only then.
 * - one-line rules: folded under finite math, kept under exact math (today's results bit for bit),
 *   never dropping a call;
 * - differential: the radius-r convolution with sparse random taps gives the reference
 *   evaluator's results on finite inputs, up to the sign of zeros, and loads only the nonzero taps.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { findFun, type Fun, loadKernelParser, printFun } from '../../src/kernel/index.js';
import { runPipeline, withMath } from '../../src/optimizers/index.js';
import { expectOpt, INPUTS, parseC, passes, tryEval } from './helpers.js';

beforeAll(loadKernelParser);

const finite = (names: string) => withMath(passes(names), 'finite');

describe('finite math in const-prop', () => {
  const src = (body: string) => `float f(float x, float z) { float y = ${body}; return y; }`;
  const run = (body: string, math: 'exact' | 'finite') =>
    printFun(runPipeline(parseC(src(body)), 'f', withMath(passes('const-prop'), math), { z: 0 }).fun);

  it('x * 0 => 0, 0 * x => 0, x + 0 => x, 0 + x => x under finite math only', () => {
    for (const [body, folded] of [
      ['x * z', '0.0f'],
      ['z * x', '0.0f'],
      ['x + z', 'x'],
      ['z + x', 'x'],
    ] as const) {
      expect(run(body, 'finite')).toContain(`y = ${folded};`);
      expect(run(body, 'exact')).toContain(`y = ${body.replace('z', '0.0f')};`);
    }
  });

  it('a product with a call is kept (the call may store or fail)', () => {
    const prog = `float g(float x) { return x; } float f(float x, float z) { float y = g(x) * z; return y; }`;
    const out = printFun(runPipeline(parseC(prog), 'f', finite('const-prop'), { z: 0 }).fun);
    expect(out).toContain('g(x) * 0.0f');
  });

  it('exact math is the default: the pipeline without withMath folds nothing new', () => {
    expectOpt('const-prop', src('x * z'), src('x * 0.0f'), { z: 0 });
  });
});

describe('finite math on the radius-r convolution', () => {
  const float = fc.float({ noNaN: true, noDefaultInfinity: true, min: -4, max: 4 });

  it('gives the evaluator’s results on finite inputs (zeros of either sign) and loads only the nonzero taps', () => {
    const draw = fc
      .record({
        r: fc.integer({ min: 0, max: 2 }),
        w: fc.integer({ min: 1, max: 4 }),
        h: fc.integer({ min: 1, max: 3 }),
      })
      .chain(({ r, w, h }) =>
        fc
          .record({
            taps: fc.array(fc.oneof(fc.constant(0), float), {
              minLength: (2 * r + 1) ** 2,
              maxLength: (2 * r + 1) ** 2,
            }),
            img: fc.array(float, { minLength: w * h, maxLength: w * h }),
          })
          .map(({ taps, img }) => ({ r, w, h, taps, img })),
      );
    const program = parseC(readFileSync(path.join(INPUTS, 'kernel/conv-r.c'), 'utf8'), 'conv-r.c');
    fc.assert(
      fc.property(draw, ({ r, w, h, taps, img }) => {
        const args = { img, w, h, taps, r };
        const before = tryEval(program, 'conv_r', args);
        if (before === undefined) return;
        const out = runPipeline(program, 'conv_r', finite('const-prop,copy-prop,dae,fusion'), { taps, r });
        const after = tryEval(out.program, 'conv_r', args);
        expect(after).toBeDefined();
        const a = before.result as number[];
        const b = after?.result as number[];
        expect(b.length).toBe(a.length);
        // == and not Object.is: finite math does not keep the sign of a zero
        for (let i = 0; i < a.length; i++) expect(b[i] === a[i] || (b[i] === 0 && a[i] === 0)).toBe(true);
        const clone = findFun(out.program, 'conv_r_at_1') as Fun;
        const loads = printFun(clone).match(/img\[[^\]]/g)?.length ?? 0;
        expect(loads).toBe(taps.filter((t) => t !== 0).length);
      }),
      { numRuns: 60 },
    );
  });
});
