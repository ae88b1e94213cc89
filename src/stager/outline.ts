/**
 * Outlining parts of large residual functions into functions of their own (the stager's step
 * `outline`, after merging, before emission).
 *
 * Why. Unfolding (src/partial-eval) evaluates whole call trees in place, so one residual function
 * can hold thousands of Core nodes (configuration 6's staged const-prop would be one function of
 * over 100 KB of JavaScript). V8 never optimizes a function whose bytecode exceeds
 * `--max-optimized-bytecode-size` (60 KB), so such a function would run in the interpreter for
 * ever, several times slower than compiled code. A staged module is only as fast as its largest
 * hot function is compiled, so no function is emitted larger than `maxNodes` Core nodes.
 *
 * Algorithm. Outlining, bottom-up over each function whose body is over the limit: a node's
 * children are reduced first; while the node's reduced size is still over `maxNodes`, its child
 * that saves the most (its size less the size of a call passing its free variables) is moved into
 * a new function of its free variables (in order of first occurrence) and replaced by a call of
 * it. Each child is at most `maxNodes` already, so every outlined function fits, and what is left
 * fits once enough children are out (a node with more children than `maxNodes` is the only
 * exception, and none is built). A long `let` chain becomes a chain of calls, each chunk calling
 * the rest in tail position. Outlined functions are named after their parent (`f$part1`, …) and
 * take fresh labels above the program's largest.
 *
 * Invariants. Core is strict, pure and first-order: evaluating `e` in an environment equals
 * calling a function whose body is `e` with `e`'s free variables as arguments, at the same point
 * (an `if` branch that is outlined is still only evaluated when taken), so the program's meaning,
 * errors included, is unchanged. The output is a pure function of the input program (no
 * counters shared across runs); functions within the limit are returned as they are.
 */
import { assertNever } from '../common/index.js';
import type { CoreExpr, FunDef, CoreProgram } from '../scf-lang/index.js';
import { coreChildren, forEachExpr, mapCoreChildren } from '../scf-lang/index.js';

/** Largest residual function emitted, in Core nodes (well under V8's optimization limit). */
export const MAX_FUN_NODES = 2000;

export interface OutlineResult {
  readonly program: CoreProgram;
  /** Function → the functions outlined from it, in order. */
  readonly parts: ReadonlyMap<string, readonly string[]>;
}

/** Splits every function of `program` over `maxNodes` Core nodes into functions within it. */
export function outlineLargeFunctions(program: CoreProgram, maxNodes = MAX_FUN_NODES): OutlineResult {
  const sizes = new Map<string, number>();
  let maxLabel = 0;
  for (const f of program.funs.values()) {
    let n = 0;
    forEachExpr(f.body, (e) => {
      n++;
      if (e.label > maxLabel) maxLabel = e.label;
    });
    sizes.set(f.name, n);
  }
  if ([...sizes.values()].every((n) => n <= maxNodes)) return { program, parts: new Map() };
  const state = { nextLabel: maxLabel + 1 };
  const funs = new Map<string, FunDef>();
  const parts = new Map<string, string[]>();
  for (const f of program.funs.values()) {
    if ((sizes.get(f.name) as number) <= maxNodes) {
      funs.set(f.name, f);
      continue;
    }
    const outlined: FunDef[] = [];
    const fresh = (): string => {
      for (let k = outlined.length + 1; ; k++) {
        const name = `${f.name}$part${k}`;
        if (!program.funs.has(name)) return name;
      }
    };
    const [body] = reduce(f.body, maxNodes, (e, params) => {
      const name = fresh();
      outlined.push({ name, params, body: e, span: e.span, exported: false });
      return {
        kind: 'call',
        fn: name,
        args: params.map((p) => ({ kind: 'var', name: p, label: state.nextLabel++, span: e.span })),
        label: state.nextLabel++,
        span: e.span,
      };
    });
    funs.set(f.name, { ...f, body });
    for (const o of outlined) funs.set(o.name, o);
    parts.set(
      f.name,
      outlined.map((o) => o.name),
    );
  }
  return { program: { ...program, funs }, parts };
}

/**
 * `e` with coreChildren outlined (by `outline`, given the child's free variables) until it has at
 * most `max` nodes where possible; with its size after.
 */
function reduce(
  e: CoreExpr,
  max: number,
  outline: (e: CoreExpr, params: string[]) => CoreExpr,
): [CoreExpr, number] {
  const kids: [CoreExpr, number][] = [];
  const reduced = mapCoreChildren(e, (c) => {
    const r = reduce(c, max, outline);
    kids.push(r);
    return r[0];
  });
  let size = 1 + kids.reduce((n, [, s]) => n + s, 0);
  if (size <= max) return [reduced, size];
  // the children in `reduced`'s order (mapCoreChildren visits them in `coreChildren` order)
  const cs = [...coreChildren(reduced)];
  const fvs = cs.map(freeVars);
  const cost = cs.map((_, i) => (kids[i] as [CoreExpr, number])[1] - (1 + (fvs[i] as string[]).length));
  const done = new Set<number>();
  while (size > max) {
    let best = -1;
    for (let i = 0; i < cs.length; i++) {
      if (
        !done.has(i) &&
        (cost[i] as number) > 0 &&
        (best < 0 || (cost[i] as number) > (cost[best] as number))
      )
        best = i;
    }
    if (best < 0) break;
    done.add(best);
    cs[best] = outline(cs[best] as CoreExpr, fvs[best] as string[]);
    size -= cost[best] as number;
  }
  let i = 0;
  return [mapCoreChildren(reduced, () => cs[i++] as CoreExpr), size];
}

/** The variables `e` reads that it does not bind, in order of first occurrence. */
export function freeVars(e: CoreExpr): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  // how many enclosing lets (within `e`) bind each name
  const bound = new Map<string, number>();
  const walk = (x: CoreExpr): void => {
    switch (x.kind) {
      case 'var':
        if (!bound.has(x.name) && !seen.has(x.name)) {
          seen.add(x.name);
          out.push(x.name);
        }
        return;
      case 'let': {
        walk(x.value);
        bound.set(x.name, (bound.get(x.name) ?? 0) + 1);
        walk(x.body);
        const n = bound.get(x.name) as number;
        if (n === 1) bound.delete(x.name);
        else bound.set(x.name, n - 1);
        return;
      }
      case 'lit':
      case 'con':
      case 'call':
      case 'prim':
      case 'test':
      case 'proj':
      case 'if':
        for (const c of coreChildren(x)) walk(c);
        return;
      default:
        assertNever(x);
    }
  };
  walk(e);
  return out;
}
