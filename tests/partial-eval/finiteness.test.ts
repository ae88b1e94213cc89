/**
 * The finiteness analysis (src/partial-eval/finiteness.ts, SCF §3.4): which parameters only
 * ever receive finitely many abstract values, and so may key specializations.
 */
import { describe, expect, it } from 'vitest';
import { finitenessAnalysis } from '../../src/partial-eval/index.js';
import { compile } from './helpers.js';

describe('finiteness analysis', () => {
  it('finiteness: projections of finite values are finite, constructed values are not', () => {
    const q = compile(`
      type L = { readonly kind: 'end' } | { readonly kind: 'c'; readonly h: number; readonly t: L };
      export function walk(l: L, acc: L): number { return l.kind === 'end' ? 0 : walk(l.t, { kind: 'c', h: l.h, t: acc }); }
    `);
    expect(finitenessAnalysis(q).get('t.walk')).toEqual([true, false]);
  });
  it('finiteness: booleans, sets of finite elements, tuple parts, and calls on finite arguments', () => {
    const q = compile(`
      import { type PSet, setAdd, setEmpty, setHas } from 'scf/prelude';
      type L = { readonly kind: 'end' } | { readonly kind: 'c'; readonly h: string; readonly t: L };
      export function main(l: L): number {
        const all = names(l, setEmpty());
        const other = names({ kind: 'c', h: 'x', t: l }, setEmpty());
        const [rest, seen] = walk(l, all);
        return use(seen, rest) + use(other, rest);
      }
      function names(l: L, acc: PSet<string>): PSet<string> {
        return l.kind === 'end' ? acc : names(l.t, setAdd(acc, l.h));
      }
      function walk(l: L, acc: PSet<string>): [L, PSet<string>] {
        return l.kind === 'end' ? [l, acc] : walk(l.t, setAdd(acc, l.h));
      }
      function use(s: PSet<string>, l: L): number {
        return setHas(s, 'x') && l.kind === 'end' ? 1 : 0;
      }
    `);
    const fin = finitenessAnalysis(q);
    // names is also called on a built list, so its own parameters are not finite …
    expect(fin.get('t.names')).toEqual([false, false]);
    // … but on the input it gives a finite set, which walk threads and returns as a tuple part
    expect(fin.get('t.walk')).toEqual([true, true]);
    expect(fin.get('t.use')).toEqual([false, true]);
  });
  it('finiteness: a constructor over literals and strict parts of finite values is finite, over a value itself it is not', () => {
    const q = compile(`
      type L = { readonly kind: 'end' } | { readonly kind: 'c'; readonly h: number; readonly t: L };
      export function main(l: L): number {
        return len(first(l)) + grow(l, 3) + rot(l, 3);
      }
      // one level over a part of l (a leaf command's expressions as a list, say)
      function first(l: L): L {
        return l.kind === 'end' ? { kind: 'end' } : { kind: 'c', h: l.h, t: { kind: 'end' } };
      }
      function len(l: L): number {
        return l.kind === 'end' ? 0 : 1 + len(l.t);
      }
      // a chain that grows: l itself under a new cell
      function grow(l: L, n: number): number {
        return n === 0 ? 0 : grow({ kind: 'c', h: n, t: l }, n - 1);
      }
      // parts of l recombined: every value is a cell over sub-values of the input
      function rot(l: L, n: number): number {
        if (n === 0 || l.kind === 'end' || l.t.kind === 'end') return 0;
        return rot({ kind: 'c', h: l.t.h, t: l.t.t }, n - 1);
      }
    `);
    const fin = finitenessAnalysis(q);
    expect(fin.get('t.len')).toEqual([true]);
    expect(fin.get('t.grow')).toEqual([false, false]);
    expect(fin.get('t.rot')).toEqual([true, false]);
  });
});
