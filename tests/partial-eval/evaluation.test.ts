/**
 * The partial evaluator end to end on small SCF-lang programs (src/partial-eval/pe.ts): folding
 * of singletons and constructor tests, static calls, specialization of an interpreter to its
 * program, exactness on unions, and -0 kept apart from 0.
 */
import { describe, expect, it } from 'vitest';
import { type AbsValue, base, con, constant, printAbs, union } from '../../src/abstract-values/index.js';
import { partialEvaluate } from '../../src/partial-eval/index.js';
import { Interpreter } from '../../src/scf-lang/index.js';
import { checkExact, compile, fixtureProgram } from './helpers.js';

describe('partial evaluation', () => {
  const p = fixtureProgram('interpreter');
  const num = (n: AbsValue) => con('num', [n]);
  const add = (l: AbsValue, r: AbsValue) => con('add', [l, r]);
  const v = (name: string) => con('v', [constant(name)]);

  it('folds a fully known computation to a constant (static calls)', () => {
    const res = partialEvaluate(p, 't.run', [add(num(constant(2)), num(constant(3))), constant(7)]);
    expect(printAbs(res.output)).toBe('5');
    expect(res.stop).toBe('fixpoint');
  });

  it('specializes the interpreter to the expression: no constructor tests left', () => {
    const e = add(v('x'), add(num(constant(1)), v('y')));
    const res = partialEvaluate(p, 't.run', [e, base('Int')]);
    expect(res.stop).toBe('fixpoint');
    let tests = 0;
    for (const f of res.residual.funs.values()) {
      const walk = (x: import('../../src/scf-lang/index.js').CoreExpr): void => {
        if (x.kind === 'test') tests++;
        for (const c of 'args' in x ? x.args : []) walk(c);
      };
      walk(f.body);
    }
    expect(tests).toBe(0);
    checkExact(p, 't.run', [e, base('Int')]);
  });

  it('is exact on unions of expressions', () => {
    const e = union([add(v('x'), num(base('Int'))), num(constant(4)), v('z')]);
    checkExact(p, 't.run', [e, base('Int')]);
  });
});

describe('-0 is a constant of its own', () => {
  // 1 / x tells -0 from 0, so folding a * 0 must not merge them (a = -1 gives -0)
  const p = compile(`
export function negative(x: number): boolean { return 1 / x < 0; }
export function run(a: number): boolean { return negative(a * 0); }
`);
  it('the residual is exact when a value may be -0 or 0', () => {
    const input = [union([constant(-1), constant(1)])];
    checkExact(p, 't.run', input, 50);
    const res = partialEvaluate(p, 't.run', input);
    const s = new Interpreter(res.residual);
    expect(s.run(res.entry, [-1]).value).toBe(true);
    expect(s.run(res.entry, [1]).value).toBe(false);
  });

  it('a known -0 folds to -0', () => {
    const res = partialEvaluate(p, 't.run', [constant(-1)]);
    expect(new Interpreter(res.residual).run(res.entry, [-1]).value).toBe(true);
    expect(printAbs(res.output)).toBe('true');
  });
});
