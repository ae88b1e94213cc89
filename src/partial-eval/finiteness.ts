/**
 * Finiteness analysis (SCF §3.4): which parameters of which functions only ever receive
 * finitely many abstract values during partial evaluation, so they may key specializations.
 *
 * Algorithm. The entry function's parameters are finite (partial evaluation binds them to one
 * abstract value each). A value obtained from finite values by projections is finite: along
 * any sequence of projections an abstract value has finitely many sub-values (a regular tree has
 * finitely many distinct subtrees). So an expression is finite when it is
 *   - a literal or a constructor test (finitely many booleans),
 *   - a variable bound to a finite parameter or to a finite `let` value,
 *   - a projection of a finite expression,
 *   - an `if` whose two branches are finite, or a `let` whose body is finite.
 * Constructor applications, calls and primitives are not (they may build ever larger values).
 * A parameter is finite when the argument at every call site is finite; this is the greatest
 * fixpoint of that condition, computed by starting from "all finite" and removing parameters
 * until nothing changes (at most one removal per parameter, so it terminates after at most
 * |parameters| + 1 rounds; no fuel needed beyond that bound, which the loop asserts).
 *
 * The entry function's parameters start finite like every other and stay so unless a recursive
 * call passes it something non-finite.
 *
 * Invariant. Soundness of using finite parameters in specialization keys does not depend on
 * this analysis alone: the call-chain bound k (context.ts) still limits recursion, so a wrongly
 * "finite" parameter costs size, never termination.
 */
import { assertNever, type Expr, type Program } from '../scf-lang/index.js';

/** Function name → per-parameter finiteness. */
export type Finiteness = ReadonlyMap<string, readonly boolean[]>;

export function finitenessAnalysis(program: Program): Finiteness {
  const fin = new Map<string, boolean[]>();
  for (const f of program.funs.values())
    fin.set(
      f.name,
      f.params.map(() => true),
    );
  const total = [...fin.values()].reduce((n, ps) => n + ps.length, 0);
  let changed = true;
  let rounds = 0;
  while (changed) {
    changed = false;
    if (rounds++ > total + 1) throw new Error('internal error: finiteness analysis did not converge');
    for (const f of program.funs.values()) {
      const own = fin.get(f.name) as boolean[];
      const scope = new Map<string, boolean>();
      f.params.forEach((p, i) => {
        scope.set(p, own[i] as boolean);
      });
      const visit = (e: Expr, env: ReadonlyMap<string, boolean>): void => {
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
              if (callee[i] && !finiteExpr(a, env)) {
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
            inner.set(e.name, finiteExpr(e.value, env));
            visit(e.body, inner);
            return;
          }
          default:
            assertNever(e);
        }
      };
      visit(f.body, scope);
    }
  }
  return fin;
}

function finiteExpr(e: Expr, env: ReadonlyMap<string, boolean>): boolean {
  switch (e.kind) {
    case 'lit':
    case 'test':
      return true;
    case 'var':
      return env.get(e.name) === true;
    case 'proj':
      return finiteExpr(e.arg, env);
    case 'if':
      return finiteExpr(e.then, env) && finiteExpr(e.else, env);
    case 'let': {
      const inner = new Map(env);
      inner.set(e.name, finiteExpr(e.value, env));
      return finiteExpr(e.body, inner);
    }
    case 'con':
    case 'call':
    case 'prim':
      return false;
    default:
      return assertNever(e);
  }
}
