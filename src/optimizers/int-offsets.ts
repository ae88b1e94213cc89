/**
 * The int rules constant propagation applies to its clones after rewriting them (const-prop.ts,
 * `optimizeIn`), in SCF-lang: a walk over the clone's body that rebuilds every int `+`, `-`, `/`,
 * `|`, `^`, `&`, `<<`, `>>` bottom-up and
 * - gathers int constant offsets: `x + 1 - 1` => `x`, `(k + 2) - 1` => `k + 1`, `1 + x + 2` =>
 *   `x + 3`, `2 - (x + 1)` => `1 - x`, `(x + 1) - (y + 1)` => `x - y`;
 * - folds the identities `x / 1`, `x | 0`, `0 | x`, `x ^ 0`, `0 ^ x`, `x & -1`, `-1 & x`,
 *   `x << 0`, `x >> 0` => `x` (and `x + 0`, `x - 0` where gathering leaves them), and `v - v`,
 *   `v ^ v` => 0 for one variable `v`.
 *
 * Invariants. Ints wrap, so the sums are exact modulo 2^32; every operand is still evaluated, in
 * the same order (only literals are moved, and `v - v` drops a second read of a variable, which
 * has no effect); floats round, so float arithmetic is never touched. No node is created: a
 * rebuilt node takes the label of a node it replaces (the outer operator's, the left offset's, a
 * literal's), so labels stay unique. A clone calls no combinator (the functions combinators apply
 * have none), so `soac` and `hfused` are left as they are.
 *
 * Why after the rewrite and only in clones: in the function a pipeline optimizes, the output's
 * shape would depend on the late values constant propagation folded into it (`x + 0` or `x + k`),
 * which costs the staged passes after it their precision (SCF Table 2's cache simulators stage
 * copy propagation and DAE as their generic code then); inside constant propagation's transfer
 * function the rules took its staging past its fuel on a blur's clone. Clones are where
 * specialization exposes such offsets (an unrolled stencil's `x + dx - r`, `dx` and `r` known).
 */
import type { List } from 'scf/prelude';
import type { Cmd, Expr } from '../kernel/ast.js';
import { type LeafCmd, leafExprs, leafWith } from './leaf.generated.js';

const INT_MIN = -2147483648;

/** `c` with its int expressions gathered (see the file comment). */
export function gatherCmd(c: Cmd): Cmd {
  switch (c.kind) {
    case 'assign':
      return { kind: 'assign', name: c.name, rhs: gatherExpr(c.rhs), lbl: c.lbl };
    case 'store':
      return {
        kind: 'store',
        array: c.array,
        index: gatherExpr(c.index),
        rhs: gatherExpr(c.rhs),
        lbl: c.lbl,
      };
    case 'seq':
      return { kind: 'seq', first: gatherCmd(c.first), second: gatherCmd(c.second), lbl: c.lbl };
    case 'if':
      return {
        kind: 'if',
        cond: gatherExpr(c.cond),
        thenCmd: gatherCmd(c.thenCmd),
        elseCmd: gatherCmd(c.elseCmd),
        lbl: c.lbl,
      };
    case 'while':
      return { kind: 'while', cond: gatherExpr(c.cond), body: gatherCmd(c.body), isFor: c.isFor, lbl: c.lbl };
    case 'soac':
    case 'hfused':
      return c;
    default:
      return gatherLeaf(c);
  }
}

function gatherLeaf(c: LeafCmd): Cmd {
  return leafWith(c, gatherExprs(leafExprs(c)), c.lbl);
}

function gatherExprs(es: List<Expr>): List<Expr> {
  if (es.kind === 'nil') return es;
  return { kind: 'cons', head: gatherExpr(es.head), tail: gatherExprs(es.tail) };
}

/** `e` with its int operators rebuilt bottom-up by `gatherBinary`. */
export function gatherExpr(e: Expr): Expr {
  switch (e.kind) {
    case 'binary': {
      const left = gatherExpr(e.left);
      const right = gatherExpr(e.right);
      if (e.ty !== 'int') return { kind: 'binary', op: e.op, ty: e.ty, left, right, lbl: e.lbl };
      return gatherBinary(e.op, left, right, e.lbl);
    }
    case 'unary':
      return { kind: 'unary', op: e.op, ty: e.ty, arg: gatherExpr(e.arg), lbl: e.lbl };
    case 'cast':
      return { kind: 'cast', ty: e.ty, arg: gatherExpr(e.arg), implicit: e.implicit, lbl: e.lbl };
    case 'load':
      return { kind: 'load', array: e.array, index: gatherExpr(e.index), ty: e.ty, lbl: e.lbl };
    case 'call':
      return { kind: 'call', name: e.name, args: gatherExprs(e.args), ty: e.ty, lbl: e.lbl };
    case 'ternary':
      return {
        kind: 'ternary',
        cond: gatherExpr(e.cond),
        thenExpr: gatherExpr(e.thenExpr),
        elseExpr: gatherExpr(e.elseExpr),
        ty: e.ty,
        lbl: e.lbl,
      };
    case 'var':
    case 'intLit':
    case 'floatLit':
    case 'boolLit':
    case 'arrayRef':
      return e;
  }
}

/** `l op r` at int (operands gathered already): an identity, `v - v` => 0, or gathered offsets. */
function gatherBinary(op: string, l: Expr, r: Expr, lbl: number): Expr {
  const rebuilt: Expr = { kind: 'binary', op, ty: 'int', left: l, right: r, lbl };
  const which = intIdentity(op, l, r);
  if (which === 1) return l;
  if (which === 2) return r;
  // x - x => 0, x ^ x => 0 (one variable: reading it twice gives one value)
  const cancels = (op === '-' || op === '^') && sameVar(l, r);
  if (cancels) return { kind: 'intLit', value: 0, lbl };
  const offsets = op === '+' || op === '-';
  if (offsets) return reassociate(op, l, r, rebuilt, lbl);
  return rebuilt;
}

/** Whether `e` is the int literal `k`. */
function isLit(e: Expr, k: number): boolean {
  return e.kind === 'intLit' && e.value === k;
}

/**
 * The identities: which operand `l op r` is, whatever the other holds — 1 for the left, 2 for
 * the right, 0 for neither.
 */
function intIdentity(op: string, l: Expr, r: Expr): number {
  switch (op) {
    case '+':
    case '|':
    case '^':
      return isLit(r, 0) ? 1 : isLit(l, 0) ? 2 : 0;
    case '-':
    case '<<':
    case '>>':
      return isLit(r, 0) ? 1 : 0;
    case '*':
    case '/':
      return isLit(r, 1) ? 1 : 0;
    case '&':
      return isLit(r, -1) ? 1 : isLit(l, -1) ? 2 : 0;
    default:
      return 0;
  }
}

/** Whether `a` and `b` are both the variable of one name. */
function sameVar(a: Expr, b: Expr): boolean {
  return a.kind === 'var' && b.kind === 'var' && a.name === b.name;
}

/**
 * Int constant offsets gathered into one (ints wrap, so `(a + k1) + k2` = `a + (k1 + k2)` exactly):
 * `l op r` where an operand is a literal and the other an offset `a + k`, `k + a` or `a - k`, or
 * both operands are offsets. The result is `a`, `a + k` or `a - k` (`k - a` for a literal minus an
 * offset), rebuilt only when two constants met; otherwise `rebuilt` as it is. Its nodes take the
 * labels of nodes it drops (the outer operator's `lbl`, the left offset's, one literal's).
 */
function reassociate(op: string, l: Expr, r: Expr, rebuilt: Expr, lbl: number): Expr {
  const [lo, a, k1, lit1] = intOffset(l);
  const [ro, b, k2, lit2] = intOffset(r);
  const k = op === '+' ? (k1 + k2) | 0 : (k1 - k2) | 0;
  // (x + 2) - 1 => x + 1;  (x - 3) + 5 => x + 2;  x + 1 - 1 => x
  if (lo && r.kind === 'intLit') return offsetBy(a, k, lbl, lit1);
  // 1 + (x + 2) => x + 3
  if (ro && op === '+' && l.kind === 'intLit') return offsetBy(b, k, lbl, lit2);
  // 2 - (x + 1) => 1 - x
  if (ro && l.kind === 'intLit') {
    const diff: Expr = { kind: 'intLit', value: k, lbl: lit1 };
    return { kind: 'binary', op: '-', ty: 'int', left: diff, right: b, lbl: lbl };
  }
  // (x + 1) - (y + 1) => x - y;  (x + 1) + (y - 3) => x + y - 2
  if (lo && ro) {
    const base: Expr = { kind: 'binary', op, ty: 'int', left: a, right: b, lbl: l.lbl };
    return offsetBy(base, k, lbl, lit1);
  }
  return rebuilt;
}

/**
 * An int offset `a + k`, `k + a` or `a - k` (`k` a literal, `a` not) as [true, a, the constant
 * added (-k for `a - k`, wrapped), the literal's label]; [false, e, k, its label] for a literal
 * `k`, [false, e, 0, 0] for anything else.
 */
function intOffset(e: Expr): [boolean, Expr, number, number] {
  if (e.kind === 'intLit') return [false, e, e.value, e.lbl];
  if (e.kind !== 'binary' || e.ty !== 'int') return [false, e, 0, 0];
  const left = e.left;
  const right = e.right;
  if (right.kind === 'intLit' && left.kind !== 'intLit') {
    if (e.op === '+') return [true, left, right.value, right.lbl];
    if (e.op === '-') return [true, left, (0 - right.value) | 0, right.lbl];
  }
  if (e.op === '+' && left.kind === 'intLit' && right.kind !== 'intLit')
    return [true, right, left.value, left.lbl];
  return [false, e, 0, 0];
}

/** `a + k` as `a` (k = 0), `a + k` (k > 0, or the int minimum) or `a - (-k)`, labelled `lbl`, `litLbl`. */
function offsetBy(a: Expr, k: number, lbl: number, litLbl: number): Expr {
  if (k === 0) return a;
  if (k > 0 || k === INT_MIN)
    return {
      kind: 'binary',
      op: '+',
      ty: 'int',
      left: a,
      right: { kind: 'intLit', value: k, lbl: litLbl },
      lbl,
    };
  return {
    kind: 'binary',
    op: '-',
    ty: 'int',
    left: a,
    right: { kind: 'intLit', value: 0 - k, lbl: litLbl },
    lbl,
  };
}
