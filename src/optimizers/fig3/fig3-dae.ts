/**
 * Dead-assignment elimination, as SCF Fig. 3 writes it, in SCF-lang.
 *
 * Algorithm: a backward liveness analysis threads the set of live variables through the
 * commands (last command first) and records, in a map from assignment labels, whether each
 * assignment is live or dead; a loop iterates its body until the live set at its head stops
 * changing (`fix`). The transformation then replaces dead assignments by `skip`.
 *
 * Invariants: the analysis only adds variables that are read and removes the assigned one,
 * so the live sets grow monotonically around a loop and `fix` terminates (the variables of a
 * program are finite). Assignments inside a loop body are re-analysed on every iteration; the
 * last iteration's verdict (at the fixpoint) wins, because the map is overwritten.
 */
import {
  equal,
  mapEmpty,
  mapFind,
  mapInsert,
  type PMap,
  type PSet,
  setAdd,
  setDelete,
  setEmpty,
  setHas,
  setUnion,
} from 'scf/prelude';
import type { Cmd, Expr, Exprs, Func, Label, Var } from './ast.js';

export interface Dead {
  readonly kind: 'dead';
}
export interface Live {
  readonly kind: 'live';
}
export type Liveness = Dead | Live;

export type LiveSet = PSet<Var>;
export type AssignMap = PMap<Label, Liveness>;

export function optimize(f: Func): Func {
  return transformFun(f, analyzeFun(f));
}

export function analyzeFun(f: Func): AssignMap {
  const [, aMap] = analyzeCmd(f.body, setEmpty(), mapEmpty());
  return aMap;
}

export function analyzeCmd(c: Cmd, lSet: LiveSet, aMap: AssignMap): [LiveSet, AssignMap] {
  switch (c.kind) {
    case 'assign': {
      const lv: Liveness = setHas(lSet, c.v) ? { kind: 'live' } : { kind: 'dead' };
      return [analyzeExpr(c.e, setDelete(lSet, c.v)), mapInsert(aMap, c.lbl, lv)];
    }
    case 'seq': {
      const [lSet2, aMap2] = analyzeCmd(c.second, lSet, aMap);
      return analyzeCmd(c.first, lSet2, aMap2);
    }
    case 'return':
      return [analyzeExpr(c.e, lSet), aMap];
    case 'while_do': {
      const [lSet2, aMap2] = fix(lSet, lSet, aMap, c.test, c.body);
      return [analyzeExpr(c.test, lSet2), aMap2];
    }
    case 'if_then_else': {
      const [lThen, aThen] = analyzeCmd(c.thenC, lSet, aMap);
      const [lElse, aElse] = analyzeCmd(c.elseC, lSet, aThen);
      return [analyzeExpr(c.test, meet(lThen, lElse)), aElse];
    }
    case 'skip':
      return [lSet, aMap];
  }
}

export function analyzeExpr(e: Expr, lSet: LiveSet): LiveSet {
  switch (e.kind) {
    case 'var_ref':
      return setAdd(lSet, e.v);
    case 'int_const':
      return lSet;
    case 'primop':
      return analyzeExprs(e.args, lSet);
  }
}

export function analyzeExprs(es: Exprs, lSet: LiveSet): LiveSet {
  switch (es.kind) {
    case 'exprs':
      return analyzeExprs(es.rest, analyzeExpr(es.e, lSet));
    case 'exprs_none':
      return lSet;
  }
}

/**
 * Iterates the loop body from the live set `liveFix` assumed at the loop's exit/head until it
 * stops growing. `liveEntry` is what is live after the loop.
 */
export function fix(
  liveFix: LiveSet,
  liveEntry: LiveSet,
  assigns: AssignMap,
  test: Expr,
  body: Cmd,
): [LiveSet, AssignMap] {
  const liveHead = analyzeExpr(test, liveFix);
  const [liveBack, assigns1] = analyzeCmd(body, liveHead, assigns);
  const newLiveFix = meet(liveEntry, liveBack);
  if (equal(liveFix, newLiveFix)) return [liveHead, assigns1];
  return fix(newLiveFix, liveEntry, assigns, test, body);
}

export function meet(live1: LiveSet, live2: LiveSet): LiveSet {
  return setUnion(live1, live2);
}

export function transformFun(f: Func, aMap: AssignMap): Func {
  return { kind: 'func', name: f.name, formals: f.formals, body: transformCmd(f.body, aMap), lbl: f.lbl };
}

export function transformCmd(c: Cmd, assigns: AssignMap): Cmd {
  switch (c.kind) {
    case 'assign': {
      const found = mapFind(assigns, c.lbl);
      if (found.kind === 'some' && found.value.kind === 'dead') return { kind: 'skip', lbl: c.lbl };
      return c;
    }
    case 'seq':
      return {
        kind: 'seq',
        first: transformCmd(c.first, assigns),
        second: transformCmd(c.second, assigns),
        lbl: c.lbl,
      };
    case 'while_do':
      return { kind: 'while_do', test: c.test, body: transformCmd(c.body, assigns), lbl: c.lbl };
    case 'if_then_else':
      return {
        kind: 'if_then_else',
        test: c.test,
        thenC: transformCmd(c.thenC, assigns),
        elseC: transformCmd(c.elseC, assigns),
        lbl: c.lbl,
      };
    case 'return':
    case 'skip':
      return c;
  }
}
