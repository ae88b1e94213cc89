/**
 * Small helpers over the kernel AST that are not SCF-lang: cons-list conversion, the type of an
 * expression, exhaustiveness checks, node counts (over the field table's `children`, fields.ts).
 * Pure functions; nothing here mutates a node.
 */
import { assertNever } from '../common/index.js';
import type { List } from '../scf-lang/prelude.js';
import type { Fun, Program } from './ast.js';
import { children } from './fields.js';

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
