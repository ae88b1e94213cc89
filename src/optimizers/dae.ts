/**
 * Dead-assignment elimination for kernel functions, in SCF-lang, after SCF Fig. 3 (analysis by
 * a backward liveness pass threading a live set, a `fix` over loops, then the transformation),
 * with the analysis and the transformation fused into one backward walk.
 *
 * Algorithm. `daeCmd(c, liveOut)` returns c rewritten and the scalars live before it:
 * - `x = e` with x not live after it and `e` free of calls => `skip` (its operands are then not
 *   made live either: this is "strong" liveness, so chains of dead copies go at once). An
 *   assignment whose rhs calls a function is kept: the call may store into arrays.
 * - stores are never removed (arrays are results); calls are kept; `return e` makes exactly the
 *   variables of `e` live (nothing after it runs); the function's exit has no live scalar.
 * - `if`: the union of both branches' live sets plus the condition's variables; an `if` whose
 *   branches both became `skip` and whose condition has no call becomes `skip`.
 * - `while`: head = vars(cond) ∪ liveOut ∪ live-before(body, head), iterated upward from
 *   vars(cond) ∪ liveOut (Fig. 3's `fix`). Live sets only grow and are bounded by the function's
 *   scalars, so it stabilizes within |scalars| + 1 rounds; the fuel DAE_FUEL (64 rounds) is a
 *   safety net: when it runs out the head is "every scalar of the function" (a post-fixpoint).
 *   The body is then rewritten once, under the fixpoint.
 * Afterwards `seq`s drop their `skip`s (`mkSeq`) and locals no longer mentioned are dropped.
 *
 * Invariants. A removed assignment's value is never read before being overwritten on any path, so
 * every successful execution computes the same results and arrays. Labels are those of the input
 * (a removed assignment's `skip` keeps its label, and disappears from seqs).
 */
import { equal, type List, type PSet, setAdd, setDelete, setEmpty, setHas, setUnion } from 'scf/prelude';
import type { Cmd, Decl, Expr, Fun, Param, While } from '../kernel/ast.js';
import { hasCall } from '../kernel/expr-info.js';
import { mkSeq } from './kernel-walk.js';

/** Most rounds of a loop's liveness fixpoint before every scalar is taken to be live. */
export const DAE_FUEL = 64;

/** Names of live scalar variables. */
export type LiveSet = PSet<string>;

export function optimize(f: Fun): Fun {
  const all = scalarNames(f.params, f.locals, setEmpty());
  const [body] = daeCmd(f.body, setEmpty(), all);
  const used = namesCmd(body, setEmpty());
  return {
    kind: 'fun',
    name: f.name,
    ret: f.ret,
    params: f.params,
    locals: usedLocals(f.locals, used),
    body,
    lbl: f.lbl,
  };
}

/** Every scalar parameter and local (the fuel fallback's live set). */
export function scalarNames(ps: List<Param>, ds: List<Decl>, acc: LiveSet): LiveSet {
  if (ps.kind === 'cons') return scalarNames(ps.tail, ds, ps.head.isArray ? acc : setAdd(acc, ps.head.name));
  if (ds.kind === 'cons') {
    return scalarNames(ps, ds.tail, ds.head.size.kind === 'none' ? setAdd(acc, ds.head.name) : acc);
  }
  return acc;
}

/** `c` with dead assignments removed, and the scalars live before it, given those live after it. */
export function daeCmd(c: Cmd, live: LiveSet, all: LiveSet): [Cmd, LiveSet] {
  switch (c.kind) {
    case 'assign':
      // x = e;  => skip  when x is dead here and e has no call
      if (!setHas(live, c.name) && !hasCall(c.rhs)) return [{ kind: 'skip', lbl: c.lbl }, live];
      return [c, usesExpr(c.rhs, setDelete(live, c.name))];
    case 'store':
      return [c, usesExpr(c.rhs, usesExpr(c.index, live))];
    case 'seq': {
      const [second, l2] = daeCmd(c.second, live, all);
      const [first, l1] = daeCmd(c.first, l2, all);
      return [mkSeq(first, second, c.lbl), l1];
    }
    case 'if': {
      const [thenCmd, lt] = daeCmd(c.thenCmd, live, all);
      const [elseCmd, le] = daeCmd(c.elseCmd, live, all);
      // if (e) {} else {}  => skip  when e has no call
      if (thenCmd.kind === 'skip' && elseCmd.kind === 'skip' && !hasCall(c.cond)) {
        return [{ kind: 'skip', lbl: c.lbl }, live];
      }
      return [{ kind: 'if', cond: c.cond, thenCmd, elseCmd, lbl: c.lbl }, usesExpr(c.cond, setUnion(lt, le))];
    }
    case 'while': {
      const head = loopFix(c, live, usesExpr(c.cond, live), all, DAE_FUEL);
      const [body] = daeCmd(c.body, head, all);
      return [{ kind: 'while', cond: c.cond, body, isFor: c.isFor, lbl: c.lbl }, head];
    }
    case 'return':
      return [c, c.value.kind === 'some' ? usesExpr(c.value.value, setEmpty()) : setEmpty()];
    case 'skip':
      return [c, live];
    case 'callCmd':
      return [c, usesExprs(c.args, live)];
  }
}

/** The live set at the loop head: least fixpoint of vars(cond) ∪ liveOut ∪ before(body, head). */
export function loopFix(c: While, liveOut: LiveSet, head: LiveSet, all: LiveSet, fuel: number): LiveSet {
  if (fuel <= 0) return all;
  const [, beforeBody] = daeCmd(c.body, head, all);
  const next = usesExpr(c.cond, setUnion(liveOut, beforeBody));
  if (equal(next, head)) return head;
  return loopFix(c, liveOut, setUnion(head, next), all, fuel - 1);
}

/** Adds the scalar variables `e` reads. */
export function usesExpr(e: Expr, live: LiveSet): LiveSet {
  switch (e.kind) {
    case 'var':
      return setAdd(live, e.name);
    case 'intLit':
    case 'floatLit':
    case 'boolLit':
    case 'arrayRef':
      return live;
    case 'binary':
      return usesExpr(e.right, usesExpr(e.left, live));
    case 'unary':
    case 'cast':
      return usesExpr(e.arg, live);
    case 'load':
      return usesExpr(e.index, live);
    case 'call':
      return usesExprs(e.args, live);
    case 'ternary':
      return usesExpr(e.elseExpr, usesExpr(e.thenExpr, usesExpr(e.cond, live)));
  }
}

export function usesExprs(es: List<Expr>, live: LiveSet): LiveSet {
  if (es.kind === 'nil') return live;
  return usesExprs(es.tail, usesExpr(es.head, live));
}

// ---- unused locals ---------------------------------------------------------------------------

/** Adds every variable and array name `c` mentions. */
export function namesCmd(c: Cmd, acc: PSet<string>): PSet<string> {
  switch (c.kind) {
    case 'assign':
      return namesExpr(c.rhs, setAdd(acc, c.name));
    case 'store':
      return namesExpr(c.rhs, namesExpr(c.index, setAdd(acc, c.array)));
    case 'seq':
      return namesCmd(c.second, namesCmd(c.first, acc));
    case 'if':
      return namesCmd(c.elseCmd, namesCmd(c.thenCmd, namesExpr(c.cond, acc)));
    case 'while':
      return namesCmd(c.body, namesExpr(c.cond, acc));
    case 'return':
      return c.value.kind === 'some' ? namesExpr(c.value.value, acc) : acc;
    case 'skip':
      return acc;
    case 'callCmd':
      return namesExprs(c.args, acc);
  }
}

function namesExpr(e: Expr, acc: PSet<string>): PSet<string> {
  switch (e.kind) {
    case 'var':
    case 'arrayRef':
      return setAdd(acc, e.name);
    case 'load':
      return namesExpr(e.index, setAdd(acc, e.array));
    default:
      return usesNames(e, acc);
  }
}

/** The names in operands of an expression other than a variable, array reference or load. */
function usesNames(e: Expr, acc: PSet<string>): PSet<string> {
  switch (e.kind) {
    case 'binary':
      return namesExpr(e.right, namesExpr(e.left, acc));
    case 'unary':
    case 'cast':
      return namesExpr(e.arg, acc);
    case 'call':
      return namesExprs(e.args, acc);
    case 'ternary':
      return namesExpr(e.elseExpr, namesExpr(e.thenExpr, namesExpr(e.cond, acc)));
    default:
      return acc;
  }
}

function namesExprs(es: List<Expr>, acc: PSet<string>): PSet<string> {
  if (es.kind === 'nil') return acc;
  return namesExprs(es.tail, namesExpr(es.head, acc));
}

/** The locals that `used` mentions, in their order. */
export function usedLocals(ds: List<Decl>, used: PSet<string>): List<Decl> {
  if (ds.kind === 'nil') return ds;
  const tail = usedLocals(ds.tail, used);
  return setHas(used, ds.head.name) ? { kind: 'cons', head: ds.head, tail } : tail;
}
