/**
 * The combinator structure of a function, as Futhark's tests state it (`structure { … }`): how
 * many combinators of each kind its body contains. `iota` counts a standalone `iota(n)` (a map of
 * the identity over an iota argument); an iota argument of another combinator is not counted.
 * A horizontally fused group counts once under 'hfused' and its members under their own kinds;
 * `loops` is the number of data-parallel loops (kernels) the function runs: one per soac outside
 * a group plus one per group.
 */
import type { Cmd, Fun, Hfused, Soac } from './ast.js';
import { nodesOfType } from './fields.js';
import { listToArray } from './util.js';

/** The combinator ops whose result is an array (map/filter/scan/scanomap; reduce/redomap give a scalar). */
export const ARRAY_OPS: ReadonlySet<string> = new Set(['map', 'filter', 'scan', 'scanomap']);

/** The combinator ops that fold an accumulator from `ne` (their lambda's first parameter). */
export const FOLD_OPS: ReadonlySet<string> = new Set(['reduce', 'redomap', 'scan', 'scanomap']);

export type Structure = Readonly<Record<string, number>> & { readonly loops: number };

/** Whether `s` is `iota(n)`: a map of the identity over one iota argument. */
export function isIota(s: Soac): boolean {
  const p = s.fn.params;
  return (
    s.op === 'map' &&
    s.args.kind === 'cons' &&
    s.args.tail.kind === 'nil' &&
    s.args.head.kind === 'argIota' &&
    p.kind === 'cons' &&
    p.tail.kind === 'nil' &&
    s.fn.binds.kind === 'nil' &&
    s.fn.result.kind === 'var' &&
    s.fn.result.name === p.head.name
  );
}

/** The combinator's kind: 'iota' for `iota(n)`, else its `op`. */
export function soacKind(s: Soac): string {
  return isIota(s) ? 'iota' : s.op;
}

/**
 * The combinator commands (`soac`s and `hfused` groups) of `c`, at any depth, in source order: the
 * walk descends into every field of type `Cmd` (the field table's `nodesOfType`), so a new command
 * kind that holds commands is covered without a case here.
 */
export function soacCommands(c: Cmd): (Soac | Hfused)[] {
  const out: (Soac | Hfused)[] = [];
  const go = (c: Cmd): void => {
    if (c.kind === 'soac' || c.kind === 'hfused') out.push(c);
    else for (const d of nodesOfType(c, 'Cmd')) go(d as Cmd);
  };
  go(c);
  return out;
}

/** Counts of each combinator kind in `f`'s body (kinds absent from the body are absent). */
export function soacStructure(f: Fun): Structure {
  const counts: Record<string, number> = {};
  const bump = (k: string): void => {
    counts[k] = (counts[k] ?? 0) + 1;
  };
  const commands = soacCommands(f.body);
  for (const c of commands) {
    if (c.kind === 'soac') {
      bump(soacKind(c));
    } else {
      bump('hfused');
      for (const m of listToArray(c.members)) bump(soacKind(m));
    }
  }
  return { ...counts, loops: commands.length };
}
