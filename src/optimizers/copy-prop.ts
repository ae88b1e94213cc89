/**
 * Copy propagation, in SCF-lang (the paper's CyP, SCF §2.2.1: `CyP.optimize : Fun -> Fun`).
 *
 * Algorithm. A forward must-analysis over the structured AST threads a map of copy facts
 * `x -> y` ("x holds the same value as y") and rewrites every use of `x` into `y` while the fact
 * holds:  `u = x; w = u + y;` => `u = x; w = x + y;`.
 * - `x = e` first rewrites `e`, then kills every fact about `x` (`x -> _` and `_ -> x`), then, when
 *   the rewritten `e` is a variable `y` other than `x`, adds `x -> y`. Chains collapse because the
 *   right-hand side is rewritten first (`b = a; c = b;` records `c -> a`).
 * - Stores and calls cannot change scalars (parameters are passed by value), so they keep facts.
 * - A combinator (`soac`, `hfused` members in order) has its atoms rewritten (its lambdas are
 *   closed) and kills the facts about its `dest`, the only name it assigns.
 * - `return` makes the state unreachable; the meet at a join is the intersection of the facts of
 *   the reachable predecessors.
 * - A loop iterates head = entry ∩ body(head) from the entry facts; the facts only shrink, so it
 *   stabilizes within |entry facts| + 1 rounds. The fuel COPY_FUEL (64 rounds) is a safety net:
 *   when it runs out the head gets no facts at all (trivially a post-fixpoint). The body is then
 *   rewritten once under the head facts.
 *
 * Invariants. A fact `x -> y` holds on every path reaching the point (both variables have the same
 * type, since the AST is elaborated: a differently typed copy has a cast and is not a copy), so the
 * rewrite preserves every successful execution. No node is created except the renamed variables,
 * which keep the label of the use they replace; labels stay unique.
 */
import {
  equal,
  type List,
  mapDelete,
  mapEmpty,
  mapFind,
  mapInsert,
  mapKeys,
  type PMap,
  setToList,
} from 'scf/prelude';
import type { Cmd, Expr, Fun, Soac, SoacArg, While } from '../kernel/ast.js';
import { mkSeq } from './kernel-walk.js';

/** Most rounds of a loop's fixpoint iteration before its head facts are dropped. */
export const COPY_FUEL = 64;

/** Copy facts: `x -> y` means x currently holds the value of y. */
export type Copies = PMap<string, string>;

export interface CyState {
  readonly kind: 'cyState';
  readonly reach: boolean;
  readonly copies: Copies;
}

export function optimize(f: Fun): Fun {
  const [body] = cyCmd(f.body, reachable(mapEmpty()));
  return { kind: 'fun', name: f.name, ret: f.ret, params: f.params, locals: f.locals, body, lbl: f.lbl };
}

function reachable(copies: Copies): CyState {
  return { kind: 'cyState', reach: true, copies };
}

function unreachable(): CyState {
  return { kind: 'cyState', reach: false, copies: mapEmpty() };
}

/** Intersection of the facts of the reachable states. */
export function meetState(a: CyState, b: CyState): CyState {
  if (!a.reach) return b;
  if (!b.reach) return a;
  return reachable(intersect(setToList(mapKeys(a.copies)), a.copies, b.copies));
}

function intersect(keys: List<string>, a: Copies, b: Copies): Copies {
  if (keys.kind === 'nil') return a;
  const va = mapFind(a, keys.head);
  const vb = mapFind(b, keys.head);
  const keep = va.kind === 'some' && vb.kind === 'some' && va.value === vb.value;
  return intersect(keys.tail, keep ? a : mapDelete(a, keys.head), b);
}

/** Forgets every fact that mentions `x`. */
export function kill(copies: Copies, x: string): Copies {
  return killTargets(setToList(mapKeys(copies)), mapDelete(copies, x), x);
}

function killTargets(keys: List<string>, copies: Copies, x: string): Copies {
  if (keys.kind === 'nil') return copies;
  const v = mapFind(copies, keys.head);
  const next = v.kind === 'some' && v.value === x ? mapDelete(copies, keys.head) : copies;
  return killTargets(keys.tail, next, x);
}

export function cyCmd(c: Cmd, st: CyState): [Cmd, CyState] {
  if (!st.reach) return [c, st];
  const copies = st.copies;
  switch (c.kind) {
    case 'assign': {
      const rhs = cyExpr(c.rhs, copies);
      const killed = kill(copies, c.name);
      // x = y  records  x -> y
      const after = rhs.kind === 'var' && rhs.name !== c.name ? mapInsert(killed, c.name, rhs.name) : killed;
      return [{ kind: 'assign', name: c.name, rhs, lbl: c.lbl }, reachable(after)];
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
      const [first, st1] = cyCmd(c.first, st);
      const [second, st2] = cyCmd(c.second, st1);
      return [mkSeq(first, second, c.lbl), st2];
    }
    case 'if': {
      const [thenCmd, st1] = cyCmd(c.thenCmd, st);
      const [elseCmd, st2] = cyCmd(c.elseCmd, st);
      return [
        { kind: 'if', cond: cyExpr(c.cond, copies), thenCmd, elseCmd, lbl: c.lbl },
        meetState(st1, st2),
      ];
    }
    case 'while': {
      const head = loopFix(c, st, st, COPY_FUEL);
      const [body] = cyCmd(c.body, head);
      return [{ kind: 'while', cond: cyExpr(c.cond, head.copies), body, isFor: c.isFor, lbl: c.lbl }, head];
    }
    case 'return': {
      if (c.value.kind === 'none') return [c, unreachable()];
      const value = cyExpr(c.value.value, copies);
      return [{ kind: 'return', value: { kind: 'some', value }, lbl: c.lbl }, unreachable()];
    }
    case 'skip':
      return [c, st];
    case 'callCmd':
      return [{ kind: 'callCmd', name: c.name, args: cyExprs(c.args, copies), lbl: c.lbl }, st];
    case 'soac': {
      const [s, after] = cySoac(c, copies);
      return [s, reachable(after)];
    }
    case 'hfused': {
      const [members, after] = cySoacs(c.members, copies);
      return [{ kind: 'hfused', members, lbl: c.lbl }, reachable(after)];
    }
  }
}

/**
 * A combinator: the variables among its atoms are renamed through the facts (a variable stays a
 * variable, so atoms stay atoms); its closed lambdas are left alone. It assigns only `dest`, whose
 * facts are then killed (for an array result there are none: facts are about scalars).
 */
export function cySoac(s: Soac, copies: Copies): [Soac, Copies] {
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
  return [rewritten, kill(copies, s.dest)];
}

/** Horizontally fused members, in order. */
export function cySoacs(ss: List<Soac>, copies: Copies): [List<Soac>, Copies] {
  if (ss.kind === 'nil') return [ss, copies];
  const [head, c1] = cySoac(ss.head, copies);
  const [tail, c2] = cySoacs(ss.tail, c1);
  return [{ kind: 'cons', head, tail }, c2];
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
export function loopFix(c: While, entry: CyState, head: CyState, fuel: number): CyState {
  if (fuel <= 0) return reachable(mapEmpty());
  const [, out] = cyCmd(c.body, head);
  const next = meetState(entry, out);
  if (next.reach === head.reach && equal(next.copies, head.copies)) return head;
  return loopFix(c, entry, next, fuel - 1);
}

export function cyExpr(e: Expr, copies: Copies): Expr {
  switch (e.kind) {
    case 'var': {
      const y = mapFind(copies, e.name);
      // u => x  after  u = x
      return y.kind === 'some' ? { kind: 'var', name: y.value, ty: e.ty, lbl: e.lbl } : e;
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
