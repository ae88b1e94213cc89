/** The paper's examples: §3.3.1 (identity tags), §3.3.2 (abstract maps), Fig. 6, Fig. 10(a). */
import { describe, expect, it } from 'vitest';
import {
  ABS_PRIMS as P,
  absMap,
  base,
  type Con,
  type Consts,
  type CtorTable,
  con,
  conforms,
  constant,
  join,
  parseDescription,
  printAbs,
  printDebug,
  top,
  union,
} from '../../src/abstract-values/index.js';

describe('§3.3.1 identity tags: fun foo x = (x = x)', () => {
  it('is {true} for x = 1#i, and {true, false} without a shared tag', () => {
    const x = top();
    expect(printAbs(P.equal(x, x))).toBe('true');
    expect(printAbs(P.equal(top(), top()))).toBe("'Bool");
  });
  it('a join of values with different tags gets a fresh tag; same tags survive', () => {
    const x = base('Int');
    const y = base('Int');
    const j = join(x, y).value;
    expect(j.tag).not.toBe(x.tag);
    expect(j.tag).not.toBe(y.tag);
    expect(join(x, x).value.tag).toBe(x.tag);
    expect(printAbs(P.eq(j, x))).toBe("'Bool");
  });
});

describe('§3.3.2 abstract maps: map_find(map_insert(m, 1, 7), 1)', () => {
  it('is SOME 7 for any incoming map m', () => {
    const m = absMap([], [[base('Int'), base('Int')]]);
    expect(printAbs(P.map_find(P.map_insert(m, constant(1), constant(7)), constant(1)))).toBe('some(7)');
    expect(printAbs(P.map_find(P.map_insert(top(), constant(1), constant(7)), constant(1)))).toBe('some(7)');
  });
  it('keeps must keys exact and may keys approximate', () => {
    const m0 = P.map_insert(P.map_empty(), constant(1), constant(7));
    const m1 = P.map_insert(m0, base('Int'), constant(8));
    expect(printAbs(m1)).toBe("{1: 7 | 8, 'Int: 8}");
    expect(printDebug(m0)).toMatch(/^map\(must\[1 ↦ \{7\}#\d+\], may\[\]\)#\d+$/);
    expect(printAbs(P.map_find(m1, constant(1)))).toBe('some(7 | 8)');
    expect(printAbs(P.map_find(m1, constant(2)))).toBe('none | some(8)');
    expect(printAbs(P.map_find(m0, constant(2)))).toBe('none');
    expect(printAbs(P.map_has(m0, constant(1)))).toBe('true');
    expect(printAbs(P.map_delete(m1, constant(1)))).toBe("{'Int: 8}");
    expect(printAbs(P.map_size(m0))).toBe('1');
  });
  it('map equality: a certain key the other map cannot have makes maps unequal', () => {
    const a = P.map_insert(P.map_empty(), constant(1), top());
    const b = P.map_insert(P.map_empty(), constant(2), top());
    expect(printAbs(P.equal(a, b))).toBe('false');
    expect(printAbs(P.equal(a, a))).toBe('true');
  });
});

const FIG10: CtorTable = new Map([
  ['assign', { fields: ['v', 'e', 'lbl'] }],
  ['primop', { fields: ['op', 'args', 'lbl'] }],
  ['exprs', { fields: ['e', 'rest', 'lbl'] }],
  ['exprs_none', { fields: ['lbl'] }],
  ['var', { fields: ['v', 'lbl'] }],
]);

describe('Fig. 10(a)', () => {
  const text = 'assign("x", primop("-", exprs(var("y", 4) | var("z", 5), exprs_none(6), 3), 2), 1)';
  const v = parseDescription(text, { ctors: FIG10 });
  const cmd = (w: string, l: number) => ({
    kind: 'assign',
    v: 'x',
    e: {
      kind: 'primop',
      op: '-',
      args: { kind: 'exprs', e: { kind: 'var', v: w, lbl: l }, rest: { kind: 'exprs_none', lbl: 6 }, lbl: 3 },
      lbl: 2,
    },
    lbl: 1,
  });
  it('denotes exactly the two commands of the paper', () => {
    expect(conforms(cmd('z', 5), v, FIG10)).toBe(true);
    expect(conforms(cmd('y', 4), v, FIG10)).toBe(true);
    expect(conforms(cmd('y', 5), v, FIG10)).toBe(false);
    expect(conforms(cmd('w', 4), v, FIG10)).toBe(false);
  });
  it('prints back in the paper’s notation', () => {
    expect(printAbs(v)).toBe(text);
  });
});

describe('Fig. 6 notation with a constructor hook', () => {
  it("prints int u = x | (x * 'Int);", () => {
    const varRef = (n: string) => con('var_ref', [constant(n)]);
    const mul = con('primop', [constant('*'), varRef('x'), base('Int')]);
    const u = union([varRef('x'), mul]);
    const hooks = {
      var_ref: (c: Con) => String((c.args[0] as Consts).values[0]),
      primop: (c: Con, print: (v: typeof u, ctx?: 'top' | 'operand') => string) => ({
        text: `${print(c.args[1] as typeof u, 'operand')} ${(c.args[0] as Consts).values[0]} ${print(c.args[2] as typeof u, 'operand')}`,
        atomic: false,
      }),
    };
    expect(`int u = ${printAbs(u, { ctors: hooks })};`).toBe("int u = x | (x * 'Int);");
    // copy propagation's (u | x) + y
    const plus = con('primop', [constant('+'), union([varRef('u'), varRef('x')]), varRef('y')]);
    expect(printAbs(plus, { ctors: hooks })).toBe('(u | x) + y');
  });
});
