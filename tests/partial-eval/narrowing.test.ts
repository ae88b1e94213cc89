/**
 * Narrowing (src/partial-eval/narrow.ts): each branch of a late test sees only the members of
 * the tested variable that the outcome allows — a boolean field, a string field compared with a
 * literal — and what is not a finite set of constants stays as it is.
 */
import { describe, expect, it } from 'vitest';
import {
  type AbsValue,
  anyBool,
  base,
  con,
  constant,
  consts,
  printAbs,
  refineField,
  refineFieldIs,
  top,
  union,
} from '../../src/abstract-values/index.js';
import { partialEvaluate } from '../../src/partial-eval/index.js';
import { printCoreProgram } from '../../src/scf-lang/index.js';
import { checkExact, compile } from './helpers.js';

describe('narrowing on a boolean field test', () => {
  // const-prop's `if (!st.reach) return …` on a state that is one of several records
  const q = compile(`
    type St = { readonly kind: 'st'; readonly reach: boolean; readonly n: number };
    export function f(s: St): number {
      if (!s.reach) return s.n;
      return s.reach ? 7 : 99;
    }
    export function g(s: St): number {
      if (s.reach) return 1;
      return s.reach ? 5 : 6;
    }
  `);
  const st = (reach: AbsValue, n: AbsValue) => con('st', [reach, n]);

  it('each branch sees only the members whose field can be what the test found', () => {
    const input = union([st(constant(false), constant(1)), st(constant(true), constant(2))]);
    const res = partialEvaluate(q, 't.f', [input]);
    // unnarrowed: 1 | 2 | 7 | 99 (the then branch reads n of both, the else branch tests again)
    expect(printAbs(res.output)).toBe('1 | 7');
    const text = printCoreProgram(res.residual);
    expect(text).not.toContain('99');
    expect(text).not.toContain('st⁻²');
    checkExact(q, 't.f', [input]);
  });

  it('a field that may be either becomes the outcome; what is not a constant stays', () => {
    const res = partialEvaluate(q, 't.g', [st(anyBool(), base('Int'))]);
    expect(printAbs(res.output)).toBe('1 | 6');
    checkExact(q, 't.g', [st(anyBool(), base('Int'))]);
    // on the value itself: a record of another constructor is dropped (the projection fails on
    // it), a field that is not a finite set of constants is kept, top stays top
    const mixed = union([st(anyBool(), constant(3)), con('q', [base('Int')]), st(base('Int'), constant(4))]);
    expect(printAbs(refineField(mixed, 'st', 0, true))).toBe("st(true, 3) | st('Int, 4)");
    expect(printAbs(refineField(mixed, 'st', 0, false))).toBe("st(false, 3) | st('Int, 4)");
    expect(printAbs(refineField(union([top(), con('q', [base('Int')])]), 'st', 0, true))).toBe("'Any");
    expect(refineField(st(constant(true), constant(3)), 'st', 0, false).kind).toBe('bottom');
  });

  it('a string field compared with a literal (=== and !==) narrows the same way', () => {
    const b = compile(`
      type B = { readonly kind: 'bin'; readonly op: string; readonly n: number };
      export function f(e: B): number {
        if (e.op === '+') return e.op === '+' ? 1 : 99;
        if ('-' !== e.op) return e.op === '-' ? 98 : 3;
        return e.op === '-' ? 2 : 97;
      }
    `);
    const input = union([
      con('bin', [consts(['+', '-']), base('Int')]),
      con('bin', [consts(['*']), base('Int')]),
    ]);
    // unnarrowed: 1 | 2 | 3 | 97 | 98 | 99
    expect(printAbs(partialEvaluate(b, 't.f', [input]).output)).toBe('1 | 2 | 3');
    checkExact(b, 't.f', [input]);
    // a field that is not a finite set of constants stays as it is
    const open = con('bin', [base('Str'), base('Int')]);
    expect(printAbs(refineFieldIs(open, 'bin', 0, '+', true))).toBe(printAbs(open));
  });
});
