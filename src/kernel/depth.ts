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
 *
 * The limit scales with the stack: a thread started with a larger one (the `scf` command runs its
 * commands on a thread of `CLI_STACK_MB`, cli/thread.ts) says so with `useStackOf`, and
 * `maxTreeDepth()` is then MAX_TREE_DEPTH per MiB: the same margin, so a generated or unrolled
 * function of hundreds of thousands of statements optimizes and compiles there. Staging keeps
 * MAX_TREE_DEPTH whatever the stack (pipeline/config.ts): the stager specializes the optimizers to
 * the whole function, and its time and memory grow with it (2,000 statements: 27 s and 1.3 GB).
 */
import type { SourceSpan } from '../common/index.js';
import { codes, type Diagnostic, diag } from './diagnostics.js';
import { children } from './fields.js';

/**
 * Most levels of nested objects (nodes, seq links, list cells) a function may have to be optimized
 * or compiled on node's default stack (about 1 MiB).
 */
export const MAX_TREE_DEPTH = 1000;

let limit = MAX_TREE_DEPTH;

/** The depth limit of this thread: MAX_TREE_DEPTH, or more after `useStackOf`. */
export function maxTreeDepth(): number {
  return limit;
}

/**
 * Tells the walks that this thread's stack holds `mib` MiB (a worker's `resourceLimits.stackSizeMb`):
 * the limit becomes MAX_TREE_DEPTH per MiB, never less than MAX_TREE_DEPTH.
 */
export function useStackOf(mib: number): void {
  limit = Math.max(MAX_TREE_DEPTH, Math.floor(mib) * MAX_TREE_DEPTH);
}

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
 * A diagnostic when function `fun` (any AST value) nests more than `max` levels (this thread's
 * `maxTreeDepth()` unless said), at the source position of the place where it does (from the
 * parser's `spans`, else 1:1); `what` says what cannot be done (`optimize`, `compile`, `stage`).
 */
export function treeDepthDiagnostic(
  fun: { readonly name: string },
  spans: ReadonlyMap<number, SourceSpan>,
  file: string,
  what: string,
  max = limit,
): Diagnostic | undefined {
  const deep = firstTooDeep(fun, max);
  if (deep === undefined) return undefined;
  const span = (deep.lbl === undefined ? undefined : spans.get(deep.lbl)) ?? { file, start: 0, end: 0 };
  return diag(codes.tooDeep, 'tree', span, fun.name, what, max);
}
