/**
 * How deeply a kernel AST nests, found without recursion, and the limit the recursive tools need.
 *
 * The optimizers (SCF-lang: pure recursive functions, no loops), the staged optimizers emitted from
 * them and the back ends walk a function's AST recursively, one stack frame or more per level. A
 * block's statements are a right-nested `seq` chain, so a run of N statements is N levels deep, as
 * are a list of N locals or N arguments (cons lists). On node's default stack the deepest of these
 * walks (const-prop on a seq chain, or on a long `a + b + …` sum) fails at about 1,800 levels, so
 * MAX_TREE_DEPTH leaves them a margin of almost two. The evaluator and the printer iterate along
 * seq chains and are not limited by it; the parser's own limit (MAX_NESTING in parse.ts) bounds
 * nesting in the source.
 */
import type { SourceSpan } from '../common/index.js';
import { codes, type Diagnostic, diag } from './diagnostics.js';
import { children } from './fields.js';

/** Most levels of nested objects (nodes, seq links, list cells) a function may have to be optimized or compiled. */
export const MAX_TREE_DEPTH = 1000;

/**
 * The first object of `root`, in pre-order, nested more than `limit` levels deep (the root is level
 * 1), reported by the label of its nearest labelled ancestor; undefined when `root` is shallow
 * enough. `root` is a kernel value (nodes, cons lists, options: the field table's `children`).
 */
export function firstTooDeep(root: unknown, limit: number): { readonly lbl: number | undefined } | undefined {
  const stack: { node: object; depth: number; lbl: number | undefined }[] = [];
  if (typeof root === 'object' && root !== null) stack.push({ node: root, depth: 1, lbl: undefined });
  for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
    const own = (top.node as { lbl?: unknown }).lbl;
    const lbl = typeof own === 'number' ? own : top.lbl;
    if (top.depth > limit) return { lbl };
    const kids = children(top.node);
    for (let i = kids.length - 1; i >= 0; i--) {
      const c = kids[i];
      if (typeof c === 'object' && c !== null) stack.push({ node: c, depth: top.depth + 1, lbl });
    }
  }
  return undefined;
}

/**
 * A diagnostic when function `fun` (any AST value) nests more than MAX_TREE_DEPTH levels, at the
 * source position of the place where it does (from the parser's `spans`, else 1:1); `what` says
 * what cannot be done (`optimize`, `compile`).
 */
export function treeDepthDiagnostic(
  fun: { readonly name: string },
  spans: ReadonlyMap<number, SourceSpan>,
  file: string,
  what: string,
): Diagnostic | undefined {
  const deep = firstTooDeep(fun, MAX_TREE_DEPTH);
  if (deep === undefined) return undefined;
  const span = (deep.lbl === undefined ? undefined : spans.get(deep.lbl)) ?? { file, start: 0, end: 0 };
  return diag(codes.tooDeep, 'tree', span, fun.name, what, MAX_TREE_DEPTH);
}
