/**
 * `treeSize` (stager/output-size.ts): an abstract value's nodes written out as a tree, counted in
 * time linear in its distinct nodes — a value shared at 2^k places counted 2^k times — and the
 * bound `stage` holds a stage's output to (`OutputTooLarge`).
 */
import { describe, expect, it } from 'vitest';
import { type AbsValue, base, con, constant, union } from '../../src/abstract-values/index.js';
import { MAX_OUTPUT_TREE, OutputTooLarge, treeSize } from '../../src/stager/index.js';

describe('treeSize', () => {
  it('counts a tree node for node, and a shared node at each of its places', () => {
    const leaf = constant(1);
    expect(treeSize(leaf)).toBe(1);
    expect(treeSize(con('pair', [leaf, base('Int')]))).toBe(3);
    expect(treeSize(union([con('a', [leaf]), con('b', [leaf])]))).toBe(5);
    let v: AbsValue = leaf;
    for (let k = 0; k < 60; k++) v = con('seq', [v, v]);
    // 2^61 - 1 nodes as a tree, 61 in memory: counted at once
    expect(treeSize(v)).toBe(2 ** 61 - 1);
  });

  it('a deep value is counted without recursion', () => {
    let v: AbsValue = constant(0);
    for (let k = 0; k < 200_000; k++) v = con('cons', [constant(k), v]);
    expect(treeSize(v)).toBe(400_001);
  });

  it('OutputTooLarge names the size and the bound', () => {
    expect(new OutputTooLarge(2 ** 60).message).toMatch(
      new RegExp(`has 1\\.15e\\+18 nodes written out as a tree \\(at most ${MAX_OUTPUT_TREE}\\)`),
    );
  });
});
