/**
 * Finiteness analysis (SCF §3.4): which parameters of which functions only ever receive
 * finitely many abstract values during partial evaluation, so they may key specializations.
 *
 * Algorithm. The entry function's parameters are finite (partial evaluation binds them to one
 * abstract value each). A value obtained from finite values by projections is finite: along
 * any sequence of projections an abstract value has finitely many sub-values (a regular tree has
 * finitely many distinct subtrees). What is known of an expression is a *shape*: `true` (finite),
 * `false` (maybe not), or, for a tuple, the shape of each part (`daeCmd`'s `[command, live set]`:
 * the command is built, the live set is finite). An expression's shape is
 *   - `true` for a literal, a constructor test, and a primitive giving a boolean (finitely many
 *     values whatever its arguments);
 *   - its binding's for a variable (a parameter's finiteness, a `let`'s shape);
 *   - a projection: that part of a tuple's shape, or the shape of a finite value;
 *   - a tuple: its parts' shapes; any other constructor application: `false` (it may build ever
 *     larger values) — unless each argument is a literal, a constructor without fields or a
 *     strict part of a whole finite value (a projection out of it): then `true`. The reason is
 *     depth: a projection takes at least one constructor off a value and such a constructor puts
 *     exactly one on, so no finite value is deeper than the deepest entry input (or a literal
 *     under one constructor), and its leaves come from finitely many (inputs, literals,
 *     booleans, sets of those): bounded depth over finitely many leaves is finitely many values,
 *     however often the constructor runs (a chain that grows, `cons(h, xs)` with `xs` itself or
 *     a value built here, does not qualify);
 *   - a set primitive (`set_add`, `set_union`, …) of finite arguments: `true` (its elements are
 *     theirs, and a finite set of elements has finitely many sets);
 *   - a call: the callee's result shape — computed for its parameters' finiteness, or, when
 *     every argument here is finite, for all its parameters finite (so a helper called on the
 *     input by one caller and on built values by another still gives a finite result to the
 *     first: DAE's `mentionedCmd`, which computes the names a kernel reads and those its output
 *     mentions);
 *   - an `if`: what holds of both branches; a `let`: its body's.
 * A parameter is finite when the argument at every call site is whole finite (every part).
 * Parameters and both result shapes of each function start finite and only lose it (the greatest
 * fixpoint): each round that changes something lowers one parameter, or one node of a result
 * shape (a tuple part from `true` to parts to `false`; shapes only have the tuple nesting of the
 * program's constructor applications), so the rounds are bounded by `roundBound`, which the loop
 * asserts.
 *
 * Invariant. A parameter marked finite must be: the call-chain bound k (context.ts) only limits
 * repeats of one key, and a parameter that receives ever new values makes a new key each time.
 * What still stops the partial evaluator then is its specialization and visit budgets (limits.ts,
 * `maxSpecs`), so a wrongly "finite" parameter costs size — but keys that deepen on every call
 * can also exhaust the stack in the recursive walks over values before a budget is reached
 * (`retag` overflows on such keys), so the rules above must stay sound.
 */
import { assertNever } from '../common/index.js';
import { tupleArity } from '../abstract-values/index.js';
import { BOOL_PRIMS, type CoreExpr, forEachExpr, type CoreProgram } from '../scf-lang/index.js';

/** Function name → per-parameter finiteness. */
export type Finiteness = ReadonlyMap<string, readonly boolean[]>;

/** What is known finite of a value: all of it, maybe not, or per part of a tuple. */
type Shape = boolean | readonly Shape[];

/** Set primitives whose result holds only elements of their arguments. */
const SET_PRIMS: ReadonlySet<string> = new Set([
  'set_empty',
  'set_singleton',
  'set_add',
  'set_delete',
  'set_union',
  'set_intersect',
  'set_diff',
]);

export function finitenessAnalysis(program: CoreProgram): Finiteness {
  const fin = new Map<string, boolean[]>();
  /** Result shape for the parameters' finiteness, and for all parameters finite. */
  const res = new Map<string, Shape>();
  const resAll = new Map<string, Shape>();
  for (const f of program.funs.values()) {
    fin.set(
      f.name,
      f.params.map(() => true),
    );
    res.set(f.name, true);
    resAll.set(f.name, true);
  }

  const shapeOf = (e: CoreExpr, env: ReadonlyMap<string, Shape>): Shape => {
    switch (e.kind) {
      case 'lit':
      case 'test':
        return true;
      case 'var':
        return env.get(e.name) ?? false;
      case 'proj': {
        const s = shapeOf(e.arg, env);
        return typeof s === 'boolean' ? s : (s[e.index] ?? false);
      }
      case 'if':
        return meet(shapeOf(e.then, env), shapeOf(e.else, env));
      case 'let': {
        const inner = new Map(env);
        inner.set(e.name, shapeOf(e.value, env));
        return shapeOf(e.body, inner);
      }
      case 'con':
        if (tupleArity(e.ctor) !== undefined) return e.args.map((a) => shapeOf(a, env));
        return e.args.every((a) => oneLevel(a, (x) => shapeOf(x, env)));
      case 'call': {
        const all = e.args.every((a) => whole(shapeOf(a, env)));
        return (all ? resAll : res).get(e.fn) ?? false;
      }
      case 'prim':
        if (BOOL_PRIMS.has(e.op)) return true;
        return SET_PRIMS.has(e.op) && e.args.every((a) => whole(shapeOf(a, env)));
      default:
        return assertNever(e);
    }
  };

  const bound = roundBound(program);
  let changed = true;
  let rounds = 0;
  while (changed) {
    changed = false;
    if (rounds++ > bound) throw new Error('internal error: finiteness analysis did not converge');
    for (const f of program.funs.values()) {
      const own = fin.get(f.name) as boolean[];
      const scope = new Map<string, Shape>(f.params.map((p, i) => [p, own[i] as boolean]));
      const visit = (e: CoreExpr, env: ReadonlyMap<string, Shape>): void => {
        switch (e.kind) {
          case 'var':
          case 'lit':
            return;
          case 'con':
          case 'prim':
            for (const a of e.args) visit(a, env);
            return;
          case 'call': {
            for (const a of e.args) visit(a, env);
            const callee = fin.get(e.fn);
            if (!callee) return;
            e.args.forEach((a, i) => {
              if (callee[i] && !whole(shapeOf(a, env))) {
                callee[i] = false;
                changed = true;
              }
            });
            return;
          }
          case 'test':
          case 'proj':
            visit(e.arg, env);
            return;
          case 'if':
            visit(e.cond, env);
            visit(e.then, env);
            visit(e.else, env);
            return;
          case 'let': {
            visit(e.value, env);
            const inner = new Map(env);
            inner.set(e.name, shapeOf(e.value, env));
            visit(e.body, inner);
            return;
          }
          default:
            assertNever(e);
        }
      };
      visit(f.body, scope);
      const allFinite = new Map<string, Shape>(f.params.map((p) => [p, true]));
      for (const [table, env] of [
        [res, scope],
        [resAll, allFinite],
      ] as const) {
        const before = table.get(f.name) as Shape;
        const after = meet(before, shapeOf(f.body, env));
        if (!sameShape(before, after)) {
          table.set(f.name, after);
          changed = true;
        }
      }
    }
  }
  return fin;
}

/**
 * Whether `a`, an argument of a constructor, is a literal, a constructor without fields, or a
 * strict part of a finite value (a projection out of a whole finite non-tuple value, by `shape`):
 * such a constructor builds one level over sub-values of finite values (`cons(c.value, nil)`, a
 * leaf command's expressions as a list), never a chain that grows (`cons(h, xs)` with `xs` itself).
 */
function oneLevel(a: CoreExpr, shape: (e: CoreExpr) => Shape): boolean {
  if (a.kind === 'lit') return true;
  if (a.kind === 'con') return a.args.length === 0 && tupleArity(a.ctor) === undefined;
  return a.kind === 'proj' && tupleArity(a.ctor) === undefined && shape(a.arg) === true;
}

/** Whether every part of a value of this shape is finite. */
function whole(s: Shape): boolean {
  return s === true || (Array.isArray(s) && s.every(whole));
}

/** What holds of both. */
function meet(a: Shape, b: Shape): Shape {
  if (a === false || b === false) return false;
  if (a === true) return b;
  if (b === true) return a;
  if (a.length !== b.length) return false;
  return a.map((x, i) => meet(x, b[i] as Shape));
}

function sameShape(a: Shape, b: Shape): boolean {
  if (typeof a === 'boolean' || typeof b === 'boolean') return a === b;
  return a.length === b.length && a.every((x, i) => sameShape(x, b[i] as Shape));
}

/**
 * Rounds after which nothing can change: one per parameter, and per result shape two per node it
 * can have (a node goes from `true` to parts to `false`; a shape has at most one node per tuple
 * argument in the program, and one for the whole), plus the last round that changes nothing.
 */
function roundBound(program: CoreProgram): number {
  let tupleArgs = 0;
  let params = 0;
  for (const f of program.funs.values()) {
    params += f.params.length;
    forEachExpr(f.body, (e) => {
      if (e.kind === 'con' && tupleArity(e.ctor) !== undefined) tupleArgs += e.args.length;
    });
  }
  return params + 2 * program.funs.size * 2 * (tupleArgs + 1) + 1;
}
