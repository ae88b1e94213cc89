// A user's small pass, run between constant propagation and copy propagation: a float product
// with the literal 1 as a factor becomes its other factor (`1.0f * x` is `x` for every float x,
// -0 and NaN included), in the function and in every function it applies (`fns`, where constant
// propagation puts its clones). It imports only scf/kernel and scf/prelude.
import type { Cmd, Expr, Fun } from 'scf/kernel';
import type { List } from 'scf/prelude';

function isOne(e: Expr): boolean {
  return e.kind === 'floatLit' && e.value === 1;
}

function expr(e: Expr): Expr {
  switch (e.kind) {
    case 'binary': {
      const l = expr(e.left);
      const r = expr(e.right);
      if (e.op === '*' && e.ty === 'float' && isOne(l)) return r;
      if (e.op === '*' && e.ty === 'float' && isOne(r)) return l;
      return { kind: 'binary', op: e.op, ty: e.ty, left: l, right: r, lbl: e.lbl };
    }
    case 'ternary':
      return {
        kind: 'ternary',
        cond: expr(e.cond),
        thenExpr: expr(e.thenExpr),
        elseExpr: expr(e.elseExpr),
        ty: e.ty,
        lbl: e.lbl,
      };
    default:
      return e;
  }
}

function cmd(c: Cmd): Cmd {
  switch (c.kind) {
    case 'assign':
      return { kind: 'assign', name: c.name, rhs: expr(c.rhs), lbl: c.lbl };
    case 'seq':
      return { kind: 'seq', first: cmd(c.first), second: cmd(c.second), lbl: c.lbl };
    case 'if':
      return { kind: 'if', cond: expr(c.cond), thenCmd: cmd(c.thenCmd), elseCmd: cmd(c.elseCmd), lbl: c.lbl };
    case 'while':
      return { kind: 'while', cond: c.cond, body: cmd(c.body), isFor: c.isFor, lbl: c.lbl };
    default:
      return c;
  }
}

function funs(fs: List<Fun>): List<Fun> {
  if (fs.kind === 'nil') return fs;
  return { kind: 'cons', head: fun(fs.head), tail: funs(fs.tail) };
}

function fun(f: Fun): Fun {
  return {
    kind: 'fun',
    name: f.name,
    ret: f.ret,
    params: f.params,
    locals: f.locals,
    body: cmd(f.body),
    fns: funs(f.fns),
    lbl: f.lbl,
  };
}

export function optimize(f: Fun): Fun {
  return fun(f);
}
