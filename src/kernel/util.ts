/**
 * Small helpers over the kernel AST that are not SCF-lang: cons-list conversion, the type of an
 * expression, exhaustiveness checks, node counts (over the field table's `children`, fields.ts).
 * Pure functions; nothing here mutates a node.
 */
import { assertNever } from '../common/index.js';
import type { List } from '../scf-lang/prelude.js';
import type { Fun, Program } from './ast.js';
import { children } from './fields.js';
import { builtin } from './builtins.js';

export { assertNever };

export function listFromArray<T>(xs: readonly T[]): List<T> {
  let out: List<T> = { kind: 'nil' };
  for (let i = xs.length - 1; i >= 0; i--) out = { kind: 'cons', head: xs[i] as T, tail: out };
  return out;
}

export function listToArray<T>(xs: List<T>): T[] {
  const out: T[] = [];
  for (let l = xs; l.kind === 'cons'; l = l.tail) out.push(l.head);
  return out;
}

export { exprType } from './expr-info.js';

/**
 * An empty record without a prototype, for records keyed by user names (formals, bindings, outputs):
 * on `{}` a key such as `constructor` or `toString` reads an inherited function and `__proto__`
 * assigns the prototype instead of adding a key. Read such records with `Object.hasOwn`.
 */
export function emptyRecord<T>(): Record<string, T> {
  return Object.create(null) as Record<string, T>;
}

/** A type name with its indefinite article, for messages: 'an int', 'a float'. */
export function article(ty: string): string {
  return ty === 'int' ? 'an int' : `a ${ty}`;
}

/** The function called `name`, if the program defines it. */
export function findFun(program: Program, name: string): Fun | undefined {
  for (let l = program; l.kind === 'cons'; l = l.tail) if (l.head.name === name) return l.head;
  return undefined;
}

/** AST nodes in a kernel value (a function, command, expression…): every object carrying a label. */
export function astNodes(x: unknown): number {
  if (typeof x !== 'object' || x === null) return 0;
  let n = 'lbl' in x ? 1 : 0;
  for (const v of children(x)) n += astNodes(v);
  return n;
}

/**
 * Function `name` of `program` with its callees attached (`Fun.fns`, program order): what a pipeline
 * optimizes, so that constant propagation can specialize the functions its combinators apply. The
 * callees are the functions its lambdas call and those these call, transitively, and every other
 * function named like a clone of one of them (`g_…`), so that clone names can avoid them.
 * Undefined when the program has no such function.
 */
export function withFns(program: Program, name: string): Fun | undefined {
  const host = findFun(program, name);
  if (!host) return undefined;
  const reached = new Set<string>();
  const pending: string[] = [];
  // an explicit stack: a parsed body may be a seq chain 10^5 deep
  const visit = (root: unknown, inLam: boolean): void => {
    const stack: [unknown, boolean][] = [[root, inLam]];
    for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
      const [node, within] = top;
      if (typeof node !== 'object' || node === null) continue;
      const n = node as { kind?: string; name?: string };
      const lam = within || n.kind === 'lam';
      if (
        lam &&
        n.kind === 'call' &&
        typeof n.name === 'string' &&
        !reached.has(n.name) &&
        !builtin(n.name)
      ) {
        reached.add(n.name);
        pending.push(n.name);
      }
      for (const c of children(node)) stack.push([c, lam]);
    }
  };
  visit(host.body, false);
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const callee = findFun(program, next);
    if (callee && callee !== host) visit(callee.body, true);
  }
  if (reached.size === 0) return host;
  const prefixes = [...reached].map((r) => `${r}_`);
  const fns = listToArray(program).filter(
    (g) => g !== host && (reached.has(g.name) || prefixes.some((p) => g.name.startsWith(p))),
  );
  return { ...host, fns: listFromArray(fns) };
}

/**
 * `program` with the optimized `fun` in place of the function of its name (without its `fns`), and
 * `fun`'s callees: those of the program's names replace them (a pass may have rewritten them), the
 * others (constant propagation's clones) come just before `fun`, in order. What the back ends and
 * the evaluator take.
 */
export function programWith(program: Program, fun: Fun): Program {
  const extra = new Map(listToArray(fun.fns).map((g) => [g.name, g] as const));
  const out: Fun[] = [];
  const known = new Set(listToArray(program).map((g) => g.name));
  const clones = listToArray(fun.fns).filter((g) => !known.has(g.name));
  for (const g of listToArray(program)) {
    if (g.name === fun.name) out.push(...clones, { ...fun, fns: { kind: 'nil' } });
    else out.push(extra.get(g.name) ?? g);
  }
  return listFromArray(out);
}
