/**
 * Copy propagation, in SCF-lang (the paper's CyP, SCF §2.2.1: `CyP.optimize : Fun -> Fun`).
 *
 * Algorithm. A forward must-analysis over the structured AST threads a map of copy facts
 * `x -> y` ("x holds the same value as y") and rewrites every use of `x` into `y` while the fact
 * holds:  `u = x; w = u + y;` => `u = x; w = x + y;`.
 * The function and each function of its `fns` (the callees and constant propagation's clones) are
 * optimized alike, each on its own from no facts at its entry (a callee's parameters hold whatever
 * its callers pass); a function's `fns` are empty but for the host's.
 * - `x = e` first rewrites `e`, then kills every fact about `x` (`x -> _` and `_ -> x`), then, when
 *   the rewritten `e` is a variable `y` other than `x`, adds `x -> y`. Chains collapse because the
 *   right-hand side is rewritten first (`b = a; c = b;` records `c -> a`). An assignment that
 *   cannot change `x` becomes `skip` and keeps every fact: a self-copy (`acc = acc;`, also after
 *   the rewrite: `y = x; x = y;`) and a copy `x = y` where `x -> y` already holds.
 * - Stores and calls cannot change scalars (parameters are passed by value), so they keep facts.
 * - A combinator (`soac`, `hfused` members in order) has its atoms rewritten (its lambdas are
 *   closed) and kills the facts about its `dest`, the only name it assigns.
 * - `return` (any leaf tagged `@ends`; leaves go through one default case, leaf.generated.ts)
 *   makes the state unreachable; the meet at a join is the intersection of the facts of the
 *   reachable predecessors.
 * - Written to stage well: the facts map has one key per scalar of the function in every state
 *   (`x -> x` is "no fact"), so a partial evaluator holds it as a tuple of one value per variable
 *   even where the facts are late (keys that come and go made it a map of unknown keys, every
 *   lookup a map operation); kills, meets and comparisons go over that list of names, and a
 *   fact is written under the name that equals the assigned one (`record`; a name that is not a
 *   declared scalar gets none — the parser declares every name, a hand-built AST may not). The state counts
 *   its facts, so a kill or a meet with none to look at returns at once — most do: the natively
 *   run optimizer is faster than with maps of facts only, and the
 *   staged one has no per-variable code where the count is known to be 0.
 * - A loop iterates head = entry ∩ body(head) from the entry facts; the facts only shrink, so it
 *   stabilizes within |entry facts| + 1 rounds. The fuel COPY_FUEL (64 rounds) is a safety net:
 *   when it runs out the head gets no facts at all (trivially a post-fixpoint). The body is then
 *   rewritten once under the head facts.
 *
 * Invariants. A fact `x -> y` holds on every path reaching the point (both variables have the same
 * type, since the AST is elaborated: a differently typed copy has a cast and is not a copy), so the
 * rewrite preserves every successful execution; an assignment is removed only where its variable
 * already holds the value it assigns. No node is created except the renamed variables, which keep
 * the label of the use they replace, and the `skip` of a removed assignment, which keeps the
 * assignment's (and disappears from seqs, `mkSeq`); labels stay unique across the function and
 * its `fns`.
 */
import { type List, mapEmpty, mapFind, mapInsert, type PMap } from 'scf/prelude';
import type { Cmd, Decl, Expr, Fun, Param, Soac, SoacArg, While } from '../kernel/ast.js';
import { mkSeq } from './kernel-walk.js';
import { leafEnds, leafExprs, leafWith } from './leaf.generated.js';

/** Most rounds of a loop's fixpoint iteration before its head facts are dropped. */
export const COPY_FUEL = 64;

/**
 * Copy facts, one entry per scalar of the function: `x -> y` means x currently holds the value of
 * y; `x -> x` means no fact about x (trivially true). Every state of a function has the same keys,
 * so a partial evaluator keeps the facts as one value per variable even where they are late.
 */
export type Copies = PMap<string, string>;

export interface CyState {
  readonly kind: 'cyState';
  readonly reach: boolean;
  readonly copies: Copies;
  /** How many names hold a fact (`x -> y`, y not x): with none, a kill or a meet has nothing to do. */
  readonly facts: number;
}

export function optimize(f: Fun): Fun {
  return { ...optimizeOne(f), fns: optimizeFns(f.fns) };
}

/** One function on its own: its body under no facts at the entry (`fns` left as it is). */
function optimizeOne(f: Fun): Fun {
  const names = scalarNames(f.params, f.locals);
  const [body] = cyCmd(f.body, reachable(noFacts(names, mapEmpty()), 0), names);
  return { ...f, body };
}

/** Each function of `fns` (the callees and clones; their own `fns` are empty), in order. */
function optimizeFns(fs: List<Fun>): List<Fun> {
  if (fs.kind === 'nil') return fs;
  return { kind: 'cons', head: optimizeOne(fs.head), tail: optimizeFns(fs.tail) };
}

/** The scalar formals and locals (the only names copy facts are about), in order. */
function scalarNames(ps: List<Param>, ds: List<Decl>): List<string> {
  if (ps.kind === 'cons') {
    const rest = scalarNames(ps.tail, ds);
    return ps.head.isArray ? rest : { kind: 'cons', head: ps.head.name, tail: rest };
  }
  if (ds.kind === 'cons') {
    const rest = scalarNames(ps, ds.tail);
    return ds.head.size.kind === 'some' ? rest : { kind: 'cons', head: ds.head.name, tail: rest };
  }
  return { kind: 'nil' };
}

/** `copies` with every name of `names` holding only itself. */
function noFacts(names: List<string>, copies: Copies): Copies {
  if (names.kind === 'nil') return copies;
  return noFacts(names.tail, mapInsert(copies, names.head, names.head));
}

function reachable(copies: Copies, facts: number): CyState {
  return { kind: 'cyState', reach: true, copies, facts };
}

/** No execution gets here; the facts keep their keys (no meet reads them). */
function unreachable(st: CyState): CyState {
  return { kind: 'cyState', reach: false, copies: st.copies, facts: st.facts };
}

/** The variable `x` holds the value of (itself when there is no fact, or `x` is not a scalar). */
export function copyOf(copies: Copies, x: string): string {
  const y = mapFind(copies, x);
  return y.kind === 'some' ? y.value : x;
}

/** Intersection of the facts of the reachable states. */
export function meetState(names: List<string>, a: CyState, b: CyState): CyState {
  if (!a.reach) return b;
  if (!b.reach) return a;
  // a side without facts is the meet (its map holds no fact either)
  if (a.facts === 0) return a;
  if (b.facts === 0) return b;
  const [copies, facts] = intersect(names, a.copies, b.copies, 0);
  return reachable(copies, facts);
}

/** `a` without the facts `b` does not share, and how many facts are left (counted from `n`). */
function intersect(names: List<string>, a: Copies, b: Copies, n: number): [Copies, number] {
  if (names.kind === 'nil') return [a, n];
  const x = names.head;
  const y = copyOf(a, x);
  if (y !== copyOf(b, x)) return intersect(names.tail, mapInsert(a, x, x), b, n);
  return intersect(names.tail, a, b, y === x ? n : n + 1);
}

/** Forgets every fact that mentions `x`; `facts` counts the facts, before and after. */
export function kill(names: List<string>, copies: Copies, facts: number, x: string): [Copies, number] {
  if (facts === 0 || names.kind === 'nil') return [copies, facts];
  const k = names.head;
  // k's fact mentions x: k is x and holds a fact, or k holds x (which is then not k itself)
  if (k === x ? copyOf(copies, k) !== k : copyOf(copies, k) === x)
    return kill(names.tail, mapInsert(copies, k, k), facts - 1, x);
  return kill(names.tail, copies, facts, x);
}

/**
 * The state with the fact `x -> y` (`facts` facts before), written under the key among `names`
 * that equals `x`, so the keys stay those of `names` even where `x` is late; unchanged when `x` is
 * not a declared scalar (no fact is kept about a name that is not a key).
 */
function record(names: List<string>, copies: Copies, facts: number, x: string, y: string): CyState {
  if (names.kind === 'nil') return reachable(copies, facts);
  if (names.head === x) return reachable(mapInsert(copies, names.head, y), facts + 1);
  return record(names.tail, copies, facts, x, y);
}

export function cyCmd(c: Cmd, st: CyState, names: List<string>): [Cmd, CyState] {
  if (!st.reach) return [c, st];
  const copies = st.copies;
  switch (c.kind) {
    case 'assign': {
      const rhs = cyExpr(c.rhs, copies);
      // x = x;  => skip, and  x = y;  => skip  where x already holds y: x keeps its value, so
      // every fact still holds
      if (rhs.kind === 'var' && (rhs.name === c.name || copyOf(copies, c.name) === rhs.name))
        return [{ kind: 'skip', lbl: c.lbl }, st];
      const [killed, left] = kill(names, copies, st.facts, c.name);
      const out: Cmd = { kind: 'assign', name: c.name, rhs, lbl: c.lbl };
      // x = y  records  x -> y
      if (rhs.kind === 'var' && rhs.name !== c.name)
        return [out, record(names, killed, left, c.name, rhs.name)];
      return [out, reachable(killed, left)];
    }
    case 'store':
      return [
        {
          kind: 'store',
          array: c.array,
          index: cyExpr(c.index, copies),
          rhs: cyExpr(c.rhs, copies),
          lbl: c.lbl,
        },
        st,
      ];
    case 'seq': {
      const [first, st1] = cyCmd(c.first, st, names);
      const [second, st2] = cyCmd(c.second, st1, names);
      return [mkSeq(first, second, c.lbl), st2];
    }
    case 'if': {
      const [thenCmd, st1] = cyCmd(c.thenCmd, st, names);
      const [elseCmd, st2] = cyCmd(c.elseCmd, st, names);
      return [
        { kind: 'if', cond: cyExpr(c.cond, copies), thenCmd, elseCmd, lbl: c.lbl },
        meetState(names, st1, st2),
      ];
    }
    case 'while': {
      const head = loopFix(c, st, st, names, COPY_FUEL);
      const [body] = cyCmd(c.body, head, names);
      return [{ kind: 'while', cond: cyExpr(c.cond, head.copies), body, isFor: c.isFor, lbl: c.lbl }, head];
    }
    case 'soac':
      return cySoac(c, st, names);
    case 'hfused': {
      const [members, after] = cySoacs(c.members, st, names);
      return [{ kind: 'hfused', members, lbl: c.lbl }, after];
    }
    default: {
      // a leaf (`return`, `skip`, a call; leaf.generated.ts): copies replace variables in its
      // expressions; it assigns no scalar (calls get scalars by value), so the facts stay (one
      // without expressions comes back as it is, with no walk over an empty list)
      const es = leafExprs(c);
      const out = es.kind === 'nil' ? c : leafWith(c, cyExprs(es, copies), c.lbl);
      return [out, leafEnds(c) ? unreachable(st) : st];
    }
  }
}

/**
 * A combinator: the variables among its atoms are renamed through the facts (a variable stays a
 * variable, so atoms stay atoms); its closed lambdas are left alone. It assigns only `dest`, whose
 * facts are then killed (for an array result there are none: facts are about scalars).
 */
export function cySoac(s: Soac, st: CyState, names: List<string>): [Soac, CyState] {
  const copies = st.copies;
  const rewritten: Soac = {
    kind: 'soac',
    op: s.op,
    dest: s.dest,
    ty: s.ty,
    fn: s.fn,
    comb: s.comb,
    ne: s.ne.kind === 'some' ? { kind: 'some', value: cyExpr(s.ne.value, copies) } : s.ne,
    args: cyArgs(s.args, copies),
    lbl: s.lbl,
  };
  const [killed, left] = kill(names, copies, st.facts, s.dest);
  return [rewritten, reachable(killed, left)];
}

/** Horizontally fused members, in order. */
export function cySoacs(ss: List<Soac>, st: CyState, names: List<string>): [List<Soac>, CyState] {
  if (ss.kind === 'nil') return [ss, st];
  const [head, st1] = cySoac(ss.head, st, names);
  const [tail, st2] = cySoacs(ss.tail, st1, names);
  return [{ kind: 'cons', head, tail }, st2];
}

function cyArgs(xs: List<SoacArg>, copies: Copies): List<SoacArg> {
  if (xs.kind === 'nil') return xs;
  return { kind: 'cons', head: cyArg(xs.head, copies), tail: cyArgs(xs.tail, copies) };
}

function cyArg(a: SoacArg, copies: Copies): SoacArg {
  switch (a.kind) {
    case 'argArray':
      return a;
    case 'argIota':
      return { kind: 'argIota', len: cyExpr(a.len, copies), lbl: a.lbl };
    case 'argScalar':
      return { kind: 'argScalar', value: cyExpr(a.value, copies), lbl: a.lbl };
  }
}

/** The facts at the loop head: the greatest fixpoint of head = entry ∩ body(head), with fuel. */
export function loopFix(c: While, entry: CyState, head: CyState, names: List<string>, fuel: number): CyState {
  if (fuel <= 0) return reachable(noFacts(names, entry.copies), 0);
  const [, out] = cyCmd(c.body, head, names);
  const next = meetState(names, entry, out);
  const same =
    next.reach === head.reach && next.facts === head.facts && sameCopies(names, next.copies, head.copies);
  if (same) return head;
  return loopFix(c, entry, next, names, fuel - 1);
}

/** Whether `a` and `b` hold the same fact for every name (they have the same keys). */
function sameCopies(names: List<string>, a: Copies, b: Copies): boolean {
  if (names.kind === 'nil') return true;
  return copyOf(a, names.head) === copyOf(b, names.head) && sameCopies(names.tail, a, b);
}

export function cyExpr(e: Expr, copies: Copies): Expr {
  switch (e.kind) {
    case 'var': {
      const y = copyOf(copies, e.name);
      // u => x  after  u = x
      return y !== e.name ? { kind: 'var', name: y, ty: e.ty, lbl: e.lbl } : e;
    }
    case 'intLit':
    case 'floatLit':
    case 'boolLit':
    case 'arrayRef':
      return e;
    case 'binary':
      return {
        kind: 'binary',
        op: e.op,
        ty: e.ty,
        left: cyExpr(e.left, copies),
        right: cyExpr(e.right, copies),
        lbl: e.lbl,
      };
    case 'unary':
      return { kind: 'unary', op: e.op, ty: e.ty, arg: cyExpr(e.arg, copies), lbl: e.lbl };
    case 'cast':
      return { kind: 'cast', ty: e.ty, arg: cyExpr(e.arg, copies), implicit: e.implicit, lbl: e.lbl };
    case 'load':
      return { kind: 'load', array: e.array, index: cyExpr(e.index, copies), ty: e.ty, lbl: e.lbl };
    case 'call':
      return { kind: 'call', name: e.name, args: cyExprs(e.args, copies), ty: e.ty, lbl: e.lbl };
    case 'ternary':
      return {
        kind: 'ternary',
        cond: cyExpr(e.cond, copies),
        thenExpr: cyExpr(e.thenExpr, copies),
        elseExpr: cyExpr(e.elseExpr, copies),
        ty: e.ty,
        lbl: e.lbl,
      };
  }
}

export function cyExprs(es: List<Expr>, copies: Copies): List<Expr> {
  if (es.kind === 'nil') return es;
  return { kind: 'cons', head: cyExpr(es.head, copies), tail: cyExprs(es.tail, copies) };
}
