import fc from 'fast-check';
import { Map as IMap } from 'immutable';
import { describe, expect, it } from 'vitest';
import {
  type AbsValue,
  conforms,
  DescriptionError,
  equals,
  holes,
  parseDescription,
  printAbs,
  toAbsValue,
} from '../../src/abstract-values/index.js';
import { arbMember } from '../../src/testing.js';
import { anyAbs, CTORS } from './gen.js';

const list = (...xs: unknown[]): unknown =>
  xs.reduceRight((tail: unknown, head) => ({ kind: 'cons', head, tail }), { kind: 'nil' });

describe('toAbsValue', () => {
  it('turns holes into base sets, unions and arrays', () => {
    const v = toAbsValue(
      { kind: 'node', left: holes.int, right: [holes.oneOf(0, 1), holes.array(holes.int, 3)] },
      { ctors: CTORS },
    );
    expect(printAbs(v)).toBe("node('Int, (0 | 1, cons('Int, cons('Int, cons('Int, nil)))))");
    expect(conforms({ kind: 'node', left: 5, right: [1, list(1, 2, 3)] }, v, CTORS)).toBe(true);
    expect(conforms({ kind: 'node', left: 5, right: [2, list(1, 2, 3)] }, v, CTORS)).toBe(false);
    expect(conforms({ kind: 'node', left: 5, right: [1, list(1, 2)] }, v, CTORS)).toBe(false);
    expect(printAbs(toAbsValue(IMap([[1, holes.str]])))).toBe("{1: 'Str}");
  });

  it('names the position of an unknown constructor or a wrong field set', () => {
    expect(() => toAbsValue({ kind: 'node', left: 1, right: { kind: 'bogus' } }, { ctors: CTORS })).toThrow(
      "$.right: unknown constructor 'bogus'",
    );
    expect(() =>
      toAbsValue({ kind: 'wrap', inner: [1, { kind: 'node', left: 1 }] }, { ctors: CTORS }),
    ).toThrow(/^\$\.inner\[1\]: constructor 'node' has 2 field\(s\).*missing right/);
    expect(() => toAbsValue({ kind: 'wrap' }, { ctors: CTORS })).toThrow(DescriptionError);
  });
});

describe('parseDescription', () => {
  it('reads base sets, literals, unions, arrays, maps, sets and fixes', () => {
    const p = (s: string) => printAbs(parseDescription(s, { ctors: CTORS }));
    expect(p("'Int | 0 | 1")).toBe("'Int");
    expect(p('0|1')).toBe('0 | 1');
    expect(p('[0, 1, 7]')).toBe('cons(0, cons(1, cons(7, nil)))');
    expect(p("'Array[2]")).toBe("cons('Any, cons('Any, nil))");
    expect(p("'Array('Int)")).toBe("fix α. nil | cons('Int, α)");
    expect(p("{1: 7, 'Int: 'Str}")).toBe("{1: 7, 'Int: 'Str}");
    expect(p("#{1, 2, 'Int}")).toBe("#{1, 2, 'Int}");
    expect(p("fix t. leaf | node(t, 'Int)")).toBe("fix α. leaf | node(α, 'Int)");
    expect(p('(\'Bool, -1.5, "s", NaN)')).toBe('(\'Bool, -1.5, "s", NaN)');
  });

  it('describes exactly the values meant', () => {
    const v = parseDescription("'Array('Int | 'Str)", { ctors: CTORS });
    expect(conforms(list(1, 'a', 3), v, CTORS)).toBe(true);
    expect(conforms(list(1, true), v, CTORS)).toBe(false);
  });

  it('reports errors with line and column', () => {
    const bad = (s: string) => () => parseDescription(s, { ctors: CTORS });
    expect(bad('node(1, bogus(2))')).toThrow("1:9: unknown constructor 'bogus'");
    expect(bad('wrap(1,\n  node(1))')).toThrow("2:3: constructor 'node' takes 2 argument(s), got 1");
    expect(bad("'Integer")).toThrow(/^1:1: unknown base set/);
    expect(bad('(1, 2')).toThrow("1:6: expected ')'");
    expect(bad('1 2')).toThrow('1:3: unexpected text after the description');
  });

  it('round-trips the printer on random values', () => {
    fc.assert(
      fc.property(anyAbs, (v: AbsValue) => {
        const back = parseDescription(printAbs(v), { ctors: CTORS });
        if (!equals(back, v)) throw new Error(`${printAbs(v)} reparsed as ${printAbs(back)}`);
      }),
      { numRuns: 300 },
    );
  });

  it('members of a parsed description conform to it', () => {
    const v = parseDescription('node(\'Int | "a", \'Array(0 | 1)[3]) | leaf', { ctors: CTORS });
    fc.assert(fc.property(arbMember(v, { ctors: CTORS }), (t) => conforms(t, v, CTORS)));
  });
});
