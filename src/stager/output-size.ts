/**
 * How large a stage's abstract output is written out as a tree, and the bound `stage` holds it to.
 * The partial evaluator shares what it can, so an output can be small in memory and exponential
 * as a tree — the next stage's input, the printed descriptions and the residual code (merged,
 * split and emitted as text) all treat it as one; `treeSize` counts it in time linear in its
 * distinct nodes, before any of them runs.
 */
import type { AbsValue } from '../abstract-values/index.js';
import { assertNever } from '../common/index.js';

/**
 * The most nodes a stage's abstract output may have written out as a tree: the next stage's
 * input, what `scf stage` prints (I2, I3, …) and what the staged module returns are as large. A
 * pass that puts one node at several places (a DAG: `seq(c, c)` doubled 40 times) has a small
 * output as the partial evaluator shares it, and one of 2^40 nodes as a tree.
 */
export const MAX_OUTPUT_TREE = 2 ** 26;

/** A stage's abstract output over MAX_OUTPUT_TREE nodes as a tree (`stage`). */
export class OutputTooLarge extends Error {
  override readonly name = 'OutputTooLarge';
  constructor(readonly size: number) {
    super(
      `its abstract output has ${size > 1e15 ? size.toExponential(2) : size} nodes written out as a tree (at most ${MAX_OUTPUT_TREE}): an optimizer that returns one node at several places (a DAG; the kernel AST is a tree, docs/kernel-ast.md), or an output this large, cannot be staged`,
    );
  }
}

/** The values directly below `v` (each counted once per place it is at). */
function below(v: AbsValue): readonly AbsValue[] {
  switch (v.kind) {
    case 'bottom':
    case 'top':
    case 'base':
    case 'consts':
    case 'rec':
      return [];
    case 'con':
      return v.args;
    case 'union':
      return v.alts;
    case 'fix':
      return [v.body];
    case 'map':
      return [...v.must.map(([, x]) => x), ...v.may.flatMap(([k, x]) => [k, x])];
    case 'set':
      return [v.may];
    default:
      return assertNever(v);
  }
}

/**
 * The nodes of `v` written out as a tree, counted in time linear in its distinct nodes (a node
 * shared by several places counted at each), without recursion (an output may be deep).
 */
export function treeSize(v: AbsValue): number {
  const size = new Map<AbsValue, number>();
  const stack: { readonly v: AbsValue; expanded: boolean }[] = [{ v, expanded: false }];
  while (stack.length > 0) {
    const top = stack[stack.length - 1] as { readonly v: AbsValue; expanded: boolean };
    if (size.has(top.v)) {
      stack.pop();
      continue;
    }
    const kids = below(top.v);
    if (!top.expanded) {
      top.expanded = true;
      for (const k of kids) if (!size.has(k)) stack.push({ v: k, expanded: false });
      continue;
    }
    stack.pop();
    size.set(
      top.v,
      kids.reduce((n, k) => n + (size.get(k) as number), 1),
    );
  }
  return size.get(v) as number;
}
