/**
 * Conditions in the partial evaluator (pe.ts, `evIf`): which outcomes a condition's value allows
 * (`truthValues`), and what each outcome tells about the variables it tests (`refine`).
 *
 * A known condition takes its branch; a late one evaluates both, each with the environment
 * narrowed by the outcome that leads there: `if (c? x)` narrows `x` to (or away from) the
 * constructor `c`; `if (x == k)` binds `x` to the constant `k` (both zeros for `0`, which `===`
 * does not tell apart); a boolean field, `if (c⁻ᵏ x)` (const-prop's `if (!st.reach)` on a union of
 * states), and a string field, `if (c⁻ᵏ x === 's')` (`e.op === '+'`, and `!==`), narrow `x` to
 * the members whose field can be the outcome, that field made the outcome (`refineField`,
 * `refineFieldIs`). `!` and `ne` flip the outcome.
 *
 * Invariant: a narrowed binding keeps its residual code and representation; only its value
 * shrinks, to a value that still holds every concrete value the variable can have when the
 * condition has that outcome.
 */
import type { SourceSpan } from '../common/index.js';
import {
  type AbsValue,
  alternatives,
  conforms,
  consts,
  fromConcrete,
  leq,
  refineCtor,
  refineField,
  refineFieldIs,
} from '../abstract-values/index.js';
import type { CoreExpr, Value } from '../scf-lang/index.js';
import { type Env, lookup, type ResidualBuilder } from './residual.js';

/** Which booleans a condition's value may be. */
export function truthValues(v: AbsValue): { t: boolean; f: boolean } {
  let t = false;
  let f = false;
  for (const a of alternatives(v)) {
    if (a.kind === 'top') return { t: true, f: true };
    if (a.kind === 'consts') {
      for (const x of a.values) {
        if (x === true) t = true;
        else if (x === false) f = true;
      }
    }
  }
  return { t, f };
}

/** `env` narrowed by the knowledge that `cond` evaluated to `outcome`. */
export function refine(
  code: ResidualBuilder,
  cond: CoreExpr,
  env: Env | undefined,
  outcome: boolean,
): Env | undefined {
  if (cond.kind === 'prim' && cond.op === 'not' && cond.args[0])
    return refine(code, cond.args[0], env, !outcome);
  if (cond.kind === 'prim' && cond.op === 'ne') return refine(code, { ...cond, op: 'eq' }, env, !outcome);
  if (cond.kind === 'test' && cond.arg.kind === 'var')
    return narrow(code, env, cond.arg.name, cond.span, (v) =>
      refineCtor(v, cond.ctor, outcome, code.ctors.get(cond.ctor)?.fields.length),
    );
  // `if (!st.reach)`: the members of `st` whose field can be what the test found
  if (cond.kind === 'proj' && cond.arg.kind === 'var')
    return narrow(code, env, cond.arg.name, cond.span, (v) => refineField(v, cond.ctor, cond.index, outcome));
  if (cond.kind === 'prim' && (cond.op === 'eq' || cond.op === 'equal')) {
    const [l, r] = cond.args;
    // `if (e.op === '+')`: the members of `e` whose field can be (or can be other than) that string
    const [p, k] =
      l?.kind === 'proj' && r?.kind === 'lit'
        ? [l, r]
        : r?.kind === 'proj' && l?.kind === 'lit'
          ? [r, l]
          : [];
    if (p?.arg.kind === 'var' && typeof k?.value === 'string') {
      const s = k.value;
      return narrow(code, env, p.arg.name, cond.span, (v) => refineFieldIs(v, p.ctor, p.index, s, outcome));
    }
    if (outcome && l?.kind === 'var' && r?.kind === 'lit') return bindConst(code, env, l.name, r.value);
    if (outcome && r?.kind === 'var' && l?.kind === 'lit') return bindConst(code, env, r.name, l.value);
  }
  return env;
}

/** `env` with `name` rebound to `by` of its value (same residual and representation), if that differs. */
function narrow(
  code: ResidualBuilder,
  env: Env | undefined,
  name: string,
  span: SourceSpan,
  by: (v: AbsValue) => AbsValue,
): Env | undefined {
  const b = lookup(env, name);
  if (!b) return env;
  const v = by(b.v);
  if (v === b.v) return env;
  return { name, b: code.bind(v, () => b.r, span, b.rep), next: env };
}

function bindConst(code: ResidualBuilder, env: Env | undefined, name: string, value: Value): Env | undefined {
  const b = lookup(env, name);
  if (!b || b.r.kind === 'lit') return env;
  // NaN is the one constant a variable can equal (`equal`) without being identical in JS terms;
  // it still prints and compares as itself, so narrowing to it is exact
  // `x === 0` also holds for x = -0, which is a different constant here: narrow to both zeros
  // the variable may hold
  const v =
    value === 0
      ? consts([0, -0].filter((z) => conforms(z, b.v, code.ctors)))
      : fromConcrete(value, code.ctors);
  if (v.kind === 'bottom' || !leq(v, b.v)) return env;
  return { name, b: code.bind(v, () => b.r, b.r.span, b.rep), next: env };
}
