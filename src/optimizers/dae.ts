/**
 * Dead-assignment elimination for kernel functions, in SCF-lang, after SCF Fig. 3 (analysis by
 * a backward liveness pass threading a live set, a `fix` over loops, then the transformation),
 * with the analysis and the transformation fused into one backward walk.
 *
 * The function and each function of its `fns` (the callees and constant propagation's clones) are
 * optimized alike, each on its own: a function's outputs are its return value and the arrays it
 * stores into (stores stay, so a caller that passed an array reads what it read before), its
 * parameters are passed by value, so nothing is live at its exit; its `fns` are empty but for the
 * host's.
 *
 * Algorithm. `daeCmd(c, liveOut, all)` returns c rewritten and the scalars live before it (`all`:
 * every scalar of the function and, when it has combinators, every array something reads):
 * - `x = e` with x not live after it and `e` free of calls => `skip` (its operands are then not
 *   made live either: this is "strong" liveness, so chains of dead copies go at once). An
 *   assignment whose rhs calls a function is kept: the call may store into arrays.
 * - a reduce/redomap whose scalar `dest` is not live is removed like a dead assignment, and so is a
 *   combinator giving an array that nothing in the function reads (its `dest`, a fresh name only it
 *   defines, is not in `all`: no load, call or combinator argument, or `return` names it); lambdas
 *   cannot write arrays, so nothing else is lost. Other combinators make the variables among their
 *   atoms live and kill `dest`. A fused loop keeps the members left (one left is that combinator
 *   alone). A dead reduce's input array goes in the next run (`all` is computed before);
 * - stores are never removed (arrays are results); calls are kept; `return e` makes exactly the
 *   variables of `e` live (nothing after it runs); the function's exit has no live scalar. Leaves
 *   (`return`, `skip`, calls: leaf.generated.ts) share one default case: kept, their expressions'
 *   variables live, with those live after them unless tagged `@ends`.
 * - `if`: the union of both branches' live sets plus the condition's variables; an `if` whose
 *   branches both became `skip` and whose condition has no call becomes `skip`.
 * - `while`: head = vars(cond) ∪ liveOut ∪ live-before(body, head), iterated upward from
 *   vars(cond) ∪ liveOut (Fig. 3's `fix`). Live sets only grow and are bounded by the function's
 *   scalars, so it stabilizes within |scalars| + 1 rounds; the fuel DAE_FUEL (64 rounds) is a
 *   safety net: when it runs out the head is `all`, every name that can be live (a post-fixpoint).
 *   The body is then rewritten once, under the fixpoint.
 * Afterwards `seq`s drop their `skip`s (`mkSeq`) and locals no longer mentioned are dropped: the
 * names the output mentions are gathered by the final walk itself, from the commands it keeps
 * (`build`; a loop's fixpoint rounds do not gather), not by walking the output again — the same
 * set, and a partial evaluator builds it from input nodes, which are known early.
 *
 * Invariants. A removed assignment's value is never read before being overwritten on any path, so
 * every successful execution computes the same results and arrays. Labels are those of the input
 * (a removed assignment's `skip` keeps its label, and disappears from seqs), so they stay unique
 * across the function and its `fns`.
 */
import { equal, type List, type PSet, setAdd, setDelete, setEmpty, setHas, setUnion } from 'scf/prelude';
import type { Cmd, Decl, Expr, Fun, Param, Soac, SoacArg, While } from '../kernel/ast.js';
import { hasCall } from '../kernel/expr-info.js';
import { hasSoac, isScalarSoac, mkSeq } from './kernel-walk.js';
import { leafEnds, leafExprs } from './leaf.generated.js';

/** Most rounds of a loop's liveness fixpoint before every scalar is taken to be live. */
export const DAE_FUEL = 64;

/** Names of live scalar variables. */
export type LiveSet = PSet<string>;

export function optimize(f: Fun): Fun {
  return { ...optimizeOne(f), fns: optimizeFns(f.fns) };
}

/**
 * One function on its own (`fns` left as it is): nothing is live at its exit but what its
 * `return`s read; its stores stay, so a caller reads the arrays it was passed as before.
 */
function optimizeOne(f: Fun): Fun {
  const scalars = scalarNames(f.params, f.locals, setEmpty());
  // With combinators, arrays that something reads may be live too (one that nothing reads never is).
  const all = hasSoac(f.body) ? mentionedCmd(f.body, false, scalars) : scalars;
  const [body, , used] = daeCmd(f.body, setEmpty(), all, true, setEmpty());
  return { ...f, locals: usedLocals(f.locals, used), body };
}

/** Each function of `fns` (the callees and clones; their own `fns` are empty), in order. */
function optimizeFns(fs: List<Fun>): List<Fun> {
  if (fs.kind === 'nil') return fs;
  return { kind: 'cons', head: optimizeOne(fs.head), tail: optimizeFns(fs.tail) };
}

/** Every scalar parameter and local (the fuel fallback's live set, with the arrays read). */
export function scalarNames(ps: List<Param>, ds: List<Decl>, acc: LiveSet): LiveSet {
  if (ps.kind === 'cons') return scalarNames(ps.tail, ds, ps.head.isArray ? acc : setAdd(acc, ps.head.name));
  if (ds.kind === 'cons') {
    return scalarNames(ps, ds.tail, ds.head.size.kind === 'none' ? setAdd(acc, ds.head.name) : acc);
  }
  return acc;
}

/**
 * `c` with dead assignments removed, the scalars live before it (given those live after it), and
 * `names` with, when `build`, every name the rewritten command mentions (the locals still used;
 * gathered here from the commands kept rather than by walking the output afterwards). A loop's
 * rounds pass `build` false and get `names` back as it is.
 */
export function daeCmd(
  c: Cmd,
  live: LiveSet,
  all: LiveSet,
  build: boolean,
  names: PSet<string>,
): [Cmd, LiveSet, PSet<string>] {
  switch (c.kind) {
    case 'assign':
      // x = e;  => skip  when x is dead here and e has no call
      if (!setHas(live, c.name) && !hasCall(c.rhs)) return [{ kind: 'skip', lbl: c.lbl }, live, names];
      return [c, usesExpr(c.rhs, setDelete(live, c.name)), kept(c, build, names)];
    case 'store':
      return [c, usesExpr(c.rhs, usesExpr(c.index, live)), kept(c, build, names)];
    case 'seq': {
      const [second, l2, n2] = daeCmd(c.second, live, all, build, names);
      const [first, l1, n1] = daeCmd(c.first, l2, all, build, n2);
      return [mkSeq(first, second, c.lbl), l1, n1];
    }
    case 'if': {
      const [thenCmd, lt, nt] = daeCmd(c.thenCmd, live, all, build, names);
      const [elseCmd, le, ne] = daeCmd(c.elseCmd, live, all, build, nt);
      // if (e) {} else {}  => skip  when e has no call
      if (thenCmd.kind === 'skip' && elseCmd.kind === 'skip' && !hasCall(c.cond)) {
        return [{ kind: 'skip', lbl: c.lbl }, live, names];
      }
      return [
        { kind: 'if', cond: c.cond, thenCmd, elseCmd, lbl: c.lbl },
        usesExpr(c.cond, setUnion(lt, le)),
        build ? namesExpr(c.cond, ne) : ne,
      ];
    }
    case 'while': {
      const head = loopFix(c, live, usesExpr(c.cond, live), all, DAE_FUEL);
      const [body, , nb] = daeCmd(c.body, head, all, build, names);
      return [
        { kind: 'while', cond: c.cond, body, isFor: c.isFor, lbl: c.lbl },
        head,
        build ? namesExpr(c.cond, nb) : nb,
      ];
    }
    case 'soac': {
      const [s, before] = daeSoac(c, live, all);
      return [s, before, kept(s, build, names)];
    }
    case 'hfused': {
      const [members, before] = daeMembers(c.members, live, all);
      const fused = fusedOf(members, c.lbl);
      return [fused, before, kept(fused, build, names)];
    }
    default: {
      // a leaf (`return`, `skip`, a call; leaf.generated.ts): kept; live before it are the
      // variables its expressions read, with those live after it unless control ends there (one
      // without expressions passes the live set on, with no walk over an empty list)
      const es = leafExprs(c);
      const after: LiveSet = leafEnds(c) ? setEmpty() : live;
      if (es.kind === 'nil') return [c, after, names];
      return [c, usesExprs(es, after), build ? namesExprs(es, names) : names];
    }
  }
}

/** `names` with those a command kept as it is mentions, when building. */
function kept(c: Cmd, build: boolean, names: PSet<string>): PSet<string> {
  return build ? mentionedCmd(c, true, names) : names;
}

/**
 * A combinator: a reduce/redomap whose scalar `dest` is dead is removed like a dead assignment, and
 * so is a combinator giving an array that nothing in the function reads (`dest` not in `all`); its
 * lambdas cannot write arrays, so dropping it loses no effect. Otherwise `dest` is killed and the
 * variables among its atoms become live.
 */
export function daeSoac(s: Soac, live: LiveSet, all: LiveSet): [Cmd, LiveSet] {
  // s = reduce(op, ne, xs);  => skip  when s is dead here
  // ys = map(f, xs);  => skip  when nothing reads ys
  if (deadSoac(s, live, all)) return [{ kind: 'skip', lbl: s.lbl }, live];
  return [s, usesSoac(s, setDelete(live, s.dest))];
}

function deadSoac(s: Soac, live: LiveSet, all: LiveSet): boolean {
  return isScalarSoac(s) ? !setHas(live, s.dest) : !setHas(all, s.dest);
}

/** Horizontally fused members, backwards: the members kept and the live set before the first. */
export function daeMembers(ss: List<Soac>, live: LiveSet, all: LiveSet): [List<Soac>, LiveSet] {
  if (ss.kind === 'nil') return [ss, live];
  const [tail, after] = daeMembers(ss.tail, live, all);
  const s = ss.head;
  if (deadSoac(s, after, all)) return [tail, after];
  return [{ kind: 'cons', head: s, tail }, usesSoac(s, setDelete(after, s.dest))];
}

/** The members left of a fused loop: none is `skip`, one is that combinator alone. */
export function fusedOf(members: List<Soac>, lbl: number): Cmd {
  if (members.kind === 'nil') return { kind: 'skip', lbl };
  if (members.tail.kind === 'nil') return members.head;
  return { kind: 'hfused', members, lbl };
}

/** Adds the scalar variables a combinator reads: those among its atoms (its lambdas are closed). */
export function usesSoac(s: Soac, live: LiveSet): LiveSet {
  return usesArgs(s.args, s.ne.kind === 'some' ? usesExpr(s.ne.value, live) : live);
}

function usesArgs(xs: List<SoacArg>, live: LiveSet): LiveSet {
  if (xs.kind === 'nil') return live;
  return usesArgs(xs.tail, usesArg(xs.head, live));
}

function usesArg(a: SoacArg, live: LiveSet): LiveSet {
  switch (a.kind) {
    case 'argArray':
      return live;
    case 'argIota':
      return usesExpr(a.len, live);
    case 'argScalar':
      return usesExpr(a.value, live);
  }
}

/** The live set at the loop head: least fixpoint of vars(cond) ∪ liveOut ∪ before(body, head). */
export function loopFix(c: While, liveOut: LiveSet, head: LiveSet, all: LiveSet, fuel: number): LiveSet {
  if (fuel <= 0) return all;
  const [, beforeBody] = daeCmd(c.body, head, all, false, setEmpty());
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

/**
 * Adds every variable and array name `c` mentions; the destinations of combinators only when
 * `dests` (without them: every name `c` may read, or store into).
 */
export function mentionedCmd(c: Cmd, dests: boolean, acc: PSet<string>): PSet<string> {
  switch (c.kind) {
    case 'assign':
      return namesExpr(c.rhs, setAdd(acc, c.name));
    case 'store':
      return namesExpr(c.rhs, namesExpr(c.index, setAdd(acc, c.array)));
    case 'seq':
      return mentionedCmd(c.second, dests, mentionedCmd(c.first, dests, acc));
    case 'if':
      return mentionedCmd(c.elseCmd, dests, mentionedCmd(c.thenCmd, dests, namesExpr(c.cond, acc)));
    case 'while':
      return mentionedCmd(c.body, dests, namesExpr(c.cond, acc));
    case 'soac':
      return namesSoac(c, dests, acc);
    case 'hfused':
      return namesSoacs(c.members, dests, acc);
    default: {
      const es = leafExprs(c);
      return es.kind === 'nil' ? acc : namesExprs(es, acc);
    }
  }
}

/** The names a combinator mentions outside its (closed) lambdas: atoms, arrays, maybe `dest`. */
function namesSoac(s: Soac, dests: boolean, acc: PSet<string>): PSet<string> {
  const withDest = dests ? setAdd(acc, s.dest) : acc;
  return namesArgs(s.args, s.ne.kind === 'some' ? namesExpr(s.ne.value, withDest) : withDest);
}

function namesSoacs(ss: List<Soac>, dests: boolean, acc: PSet<string>): PSet<string> {
  if (ss.kind === 'nil') return acc;
  return namesSoacs(ss.tail, dests, namesSoac(ss.head, dests, acc));
}

function namesArgs(xs: List<SoacArg>, acc: PSet<string>): PSet<string> {
  if (xs.kind === 'nil') return acc;
  const a = xs.head;
  switch (a.kind) {
    case 'argArray':
      return namesArgs(xs.tail, setAdd(acc, a.name));
    case 'argIota':
      return namesArgs(xs.tail, namesExpr(a.len, acc));
    case 'argScalar':
      return namesArgs(xs.tail, namesExpr(a.value, acc));
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
