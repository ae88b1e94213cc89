/**
 * Constant propagation and folding with complete loop unrolling, in SCF-lang (the paper's CoP,
 * SCF §2.2.1: `CoP.optimize : Fun -> lattice_val list -> Fun`, the list giving the lattice
 * values of the formals).
 *
 * Algorithm. One forward pass over the structured AST threads a state — reachable or not, and an
 * environment `Env` from names to lattice values (lattice.ts) — and rewrites as it goes:
 * - a variable whose value is `const` becomes a literal; an operator, cast, `!`/`~`/`-`, `?:`,
 *   `&&`/`||` or a load from a `constArray` at a constant index whose operands are constants is
 *   folded with exactly the reference evaluator's C semantics (int32 wrapping with `| 0` and
 *   `imul`, truncating `/` and `%`, binary32 floats rounded with `fround`). What C leaves undefined
 *   (division by zero, INT_MIN / -1, shifts outside 0..31, float→int out of range) is not folded;
 * - algebraic identities: int `x*1`, `1*x`, `x+0`, `0+x`, `x-0` => `x`; float `x*1`, `1*x`,
 *   `x+(-0)`, `(-0)+x`, `x-0` => `x` (exact in IEEE: `x+0` is not, since -0+0 = +0). `x*0` is
 *   not folded: SCF §2.2.2 (Fig. 6) specifies a constant propagator that turns `x*a` into
 *   `x*i` for every constant i other than 1 (and for floats it would be wrong: NaN*0 = NaN);
 * - `if` with a constant condition becomes its taken branch; a `while` whose condition is
 *   constant false is dropped;
 * - combinators (`soac`, `hfused` members in order): constants replace the variables among their
 *   atoms (`int n = 4; int ix[] = iota(n);` => `iota(4)`); lambdas are closed and not rewritten;
 *   the `dest` then becomes nonConst (a reduce's scalar is not folded, an array result has no
 *   known contents). A loop whose body has a combinator is never unrolled (see `cpWhile`);
 * - complete unrolling: a `while` is first simulated from the incoming state; as long as its
 *   condition folds to a constant true, the body is transformed once more (with the state the
 *   previous copy left) and the copy renumbered with fresh labels. If the condition becomes
 *   constant false within UNROLL_LIMIT (64, as DyC) iterations, the loop is replaced by the
 *   sequence of copies; otherwise the attempt is discarded and the loop is analysed normally;
 * - otherwise a loop is iterated to a fixpoint: head = entry ⊓ (state after the body from head),
 *   starting from the entry state, and transformed once under the fixpoint state. The chain
 *   descends (each name goes top → const → nonConst), so it stabilizes in at most 2·|names|+1
 *   rounds; the fuel LOOP_FUEL (64 rounds) is a safety net: when it runs out every name the loop
 *   may modify is set to nonConst at the head, which is a post-fixpoint (sound, less precise).
 *
 * Invariants. The output computes the same results and array contents as the input for every
 * execution of the input that succeeds (has no undefined behaviour): names absent from the
 * environment are uninitialized locals, whose reads would fail. Calls may store into any array
 * passed to them, so such arrays lose their `constArray` value before the command evaluating the
 * call; stores make the stored-to array nonConst; a combinator writes only its `dest` (its lambdas
 * cannot write arrays). An expression is replaced by a literal only when it has a constant value,
 * which implies it has no calls left to evaluate. Labels stay unique: rewritten nodes reuse the
 * label of the node they replace; unrolled copies are renumbered from a counter that starts above
 * the input's largest label and is threaded through the pass.
 */
import {
  dropNumbers,
  type Env,
  isNaNNumber,
  type LatticeVal,
  meetEnv,
  mkConst,
  nonConst,
  sameEnv,
  sameNumber,
} from './lattice.js';
import {
  fround,
  imul,
  type List,
  mapEmpty,
  mapFind,
  mapInsert,
  none,
  type Option,
  type PSet,
  setEmpty,
  setToList,
  some,
  trunc,
} from 'scf/prelude';
import type { Cmd, Expr, Fun, Param, Soac, SoacArg, While } from '../kernel/ast.js';
import { exprType } from '../kernel/expr-info.js';
import {
  arraysPassed,
  arraysPassedList,
  hasSoac,
  maxLabelFun,
  mkSeq,
  modifiedNames,
  relabelCmd,
  reverseCmds,
} from './kernel-walk.js';

/** Most iterations a loop is completely unrolled to (DyC's default). */
export const UNROLL_LIMIT = 64;
/** Most rounds of a loop's fixpoint iteration before precision is given up. */
export const LOOP_FUEL = 64;

const INT_MIN = -2147483648;
const INT_MAX = 2147483647;

/** The dataflow state before or after a command: `reach` false means no execution gets there. */
export interface CpState {
  readonly kind: 'cpState';
  readonly reach: boolean;
  readonly env: Env;
}

/** A command's rewrite, the state after it, and the next free label. */
export type CpResult = [Cmd, CpState, number];

export function optimize(f: Fun, formals: List<LatticeVal>): Fun {
  const entry: CpState = { kind: 'cpState', reach: true, env: bindFormals(f.params, formals, mapEmpty()) };
  const [body] = cpCmd(f.body, entry, maxLabelFun(f) + 1);
  return { kind: 'fun', name: f.name, ret: f.ret, params: f.params, locals: f.locals, body, lbl: f.lbl };
}

/**
 * The entry environment: each formal gets its lattice value (missing ones are nonConst); array
 * formals are only entered when they are constArray (an array absent from `Env` is unknown).
 */
export function bindFormals(params: List<Param>, vals: List<LatticeVal>, env: Env): Env {
  if (params.kind === 'nil') return env;
  const p = params.head;
  const v: LatticeVal = vals.kind === 'cons' ? vals.head : nonConst();
  const rest: List<LatticeVal> = vals.kind === 'cons' ? vals.tail : vals;
  if (p.isArray) {
    return bindFormals(params.tail, rest, v.kind === 'constArray' ? mapInsert(env, p.name, v) : env);
  }
  return bindFormals(params.tail, rest, mapInsert(env, p.name, v.kind === 'const' ? v : nonConst()));
}

// ---- states --------------------------------------------------------------------------------

function reachable(env: Env): CpState {
  return { kind: 'cpState', reach: true, env };
}

function unreachable(): CpState {
  return { kind: 'cpState', reach: false, env: mapEmpty() };
}

export function meetState(a: CpState, b: CpState): CpState {
  if (!a.reach) return b;
  if (!b.reach) return a;
  return reachable(meetEnv(a.env, b.env));
}

export function sameState(a: CpState, b: CpState): boolean {
  return a.reach === b.reach && (!a.reach || sameEnv(a.env, b.env));
}

/** Every name in `names` becomes nonConst. */
export function setNonConst(names: List<string>, env: Env): Env {
  if (names.kind === 'nil') return env;
  return setNonConst(names.tail, mapInsert(env, names.head, nonConst()));
}

/** Before a command evaluates calls, the arrays they are passed to lose their known contents. */
function killPassed(env: Env, passed: PSet<string>): Env {
  return setNonConst(setToList(passed), env);
}

// ---- commands ------------------------------------------------------------------------------

export function cpCmd(c: Cmd, st: CpState, n: number): CpResult {
  if (!st.reach) return [c, st, n];
  switch (c.kind) {
    case 'assign': {
      const env = killPassed(st.env, arraysPassed(c.rhs, setEmpty()));
      const [rhs, v] = cpExpr(c.rhs, env);
      const kept: LatticeVal = v.kind === 'const' ? v : nonConst();
      return [{ kind: 'assign', name: c.name, rhs, lbl: c.lbl }, reachable(mapInsert(env, c.name, kept)), n];
    }
    case 'store': {
      const env = killPassed(st.env, arraysPassed(c.rhs, arraysPassed(c.index, setEmpty())));
      const [index] = cpExpr(c.index, env);
      const [rhs] = cpExpr(c.rhs, env);
      const after = mapInsert(env, c.array, nonConst());
      return [{ kind: 'store', array: c.array, index, rhs, lbl: c.lbl }, reachable(after), n];
    }
    case 'seq': {
      const [first, st1, n1] = cpCmd(c.first, st, n);
      const [second, st2, n2] = cpCmd(c.second, st1, n1);
      return [mkSeq(first, second, c.lbl), st2, n2];
    }
    case 'if': {
      const env = killPassed(st.env, arraysPassed(c.cond, setEmpty()));
      const [cond, cv] = cpExpr(c.cond, env);
      // if (1) A else B => A;  if (0) A else B => B
      if (cv.kind === 'const') return cpCmd(cv.value !== 0 ? c.thenCmd : c.elseCmd, reachable(env), n);
      const [thenCmd, st1, n1] = cpCmd(c.thenCmd, reachable(env), n);
      const [elseCmd, st2, n2] = cpCmd(c.elseCmd, reachable(env), n1);
      return [{ kind: 'if', cond, thenCmd, elseCmd, lbl: c.lbl }, meetState(st1, st2), n2];
    }
    case 'while':
      return cpWhile(c, st, n);
    case 'return': {
      if (c.value.kind === 'none') return [c, unreachable(), n];
      const env = killPassed(st.env, arraysPassed(c.value.value, setEmpty()));
      const [value] = cpExpr(c.value.value, env);
      return [{ kind: 'return', value: some(value), lbl: c.lbl }, unreachable(), n];
    }
    case 'skip':
      return [c, st, n];
    case 'callCmd': {
      const env = killPassed(st.env, arraysPassedList(c.args, setEmpty()));
      return [{ kind: 'callCmd', name: c.name, args: cpExprs(c.args, env), lbl: c.lbl }, reachable(env), n];
    }
    case 'soac': {
      const [s, env] = cpSoac(c, st.env);
      return [s, reachable(env), n];
    }
    case 'hfused': {
      const [members, env] = cpSoacs(c.members, st.env);
      return [{ kind: 'hfused', members, lbl: c.lbl }, reachable(env), n];
    }
  }
}

// ---- combinators ---------------------------------------------------------------------------

/**
 * A combinator: known constants replace the variables among its atoms (`ne`, iota lengths, scalar
 * arguments; a variable becomes a literal of its own type, so atoms stay atoms); its lambdas are
 * closed and left alone. Afterwards its `dest` is nonConst: a reduce's scalar is not computed, and
 * an array result is a fresh array with no known contents (nonConst also hides any other value a
 * name equal to `dest` had). It writes no other variable or array (kernel-walk.ts).
 */
export function cpSoac(s: Soac, env: Env): [Soac, Env] {
  const rewritten: Soac = {
    kind: 'soac',
    op: s.op,
    dest: s.dest,
    ty: s.ty,
    fn: s.fn,
    comb: s.comb,
    ne: s.ne.kind === 'some' ? some(cpAtom(s.ne.value, env)) : s.ne,
    args: cpArgs(s.args, env),
    lbl: s.lbl,
  };
  return [rewritten, mapInsert(env, s.dest, nonConst())];
}

/** Horizontally fused members, in order (none reads another's result). */
export function cpSoacs(ss: List<Soac>, env: Env): [List<Soac>, Env] {
  if (ss.kind === 'nil') return [ss, env];
  const [head, env1] = cpSoac(ss.head, env);
  const [tail, env2] = cpSoacs(ss.tail, env1);
  return [{ kind: 'cons', head, tail }, env2];
}

function cpArgs(xs: List<SoacArg>, env: Env): List<SoacArg> {
  if (xs.kind === 'nil') return xs;
  return { kind: 'cons', head: cpArg(xs.head, env), tail: cpArgs(xs.tail, env) };
}

function cpArg(a: SoacArg, env: Env): SoacArg {
  switch (a.kind) {
    case 'argArray':
      return a;
    case 'argIota':
      return { kind: 'argIota', len: cpAtom(a.len, env), lbl: a.lbl };
    case 'argScalar':
      return { kind: 'argScalar', value: cpAtom(a.value, env), lbl: a.lbl };
  }
}

/** An atom with a known variable replaced by its literal (`n` => 4); anything else unchanged. */
function cpAtom(e: Expr, env: Env): Expr {
  if (e.kind !== 'var') return e;
  const found = mapFind(env, e.name);
  if (found.kind === 'some' && found.value.kind === 'const') return literal(found.value.value, e.ty, e.lbl);
  return e;
}

/**
 * A loop: completely unrolled when its trip count is known and small, else a fixpoint. A loop whose
 * body contains a combinator is not unrolled: the copies would define the same `dest` array and
 * lambda names more than once (ast.ts: both are unique in a function; printed C would redeclare).
 */
export function cpWhile(c: While, st: CpState, n: number): CpResult {
  const unrolled: Option<CpResult> = hasSoac(c.body) ? none() : unroll(c, st, n, 0, { kind: 'nil' });
  if (unrolled.kind === 'some') return unrolled.value;
  const head = loopFix(c, st, st, n, LOOP_FUEL);
  const env = killPassed(head.env, arraysPassed(c.cond, setEmpty()));
  const [cond, cv] = cpExpr(c.cond, env);
  // while (0) B => skip  (the head state is at most as precise as the entry, so this is rare)
  if (cv.kind === 'const' && cv.value === 0) return [{ kind: 'skip', lbl: c.lbl }, reachable(env), n];
  const [body, , n1] = cpCmd(c.body, reachable(env), n);
  // A loop whose condition is constant true only exits through `return`.
  const after: CpState = cv.kind === 'const' ? unreachable() : reachable(env);
  return [{ kind: 'while', cond, body, isFor: c.isFor, lbl: c.lbl }, after, n1];
}

/**
 * The loop-head state: the greatest fixpoint of head = entry ⊓ body(head) below `entry`, found by
 * iterating from `entry`; after `fuel` rounds, every name the loop may modify becomes nonConst.
 */
export function loopFix(c: While, entry: CpState, head: CpState, n: number, fuel: number): CpState {
  if (fuel <= 0) return reachable(setNonConst(setToList(modifiedNames(c, setEmpty())), entry.env));
  const env = killPassed(head.env, arraysPassed(c.cond, setEmpty()));
  const [, cv] = cpExpr(c.cond, env);
  const out: CpState =
    cv.kind === 'const' && cv.value === 0 ? unreachable() : bodyState(cpCmd(c.body, reachable(env), n));
  const next = meetState(entry, out);
  if (sameState(next, head)) return head;
  return loopFix(c, entry, next, n, fuel - 1);
}

function bodyState(r: CpResult): CpState {
  const [, st] = r;
  return st;
}

/**
 * Complete unrolling: `copies` holds the (relabelled) body copies made so far, last first. Gives
 * `none` when the condition stops being constant, or stays true for more than UNROLL_LIMIT rounds.
 */
export function unroll(c: While, st: CpState, n: number, count: number, copies: List<Cmd>): Option<CpResult> {
  // Every path through the last copy returned: the copies so far are the whole loop.
  if (!st.reach) return some(seqCopies(reverseCmds(copies, { kind: 'nil' }), st, n, c.lbl));
  const env = killPassed(st.env, arraysPassed(c.cond, setEmpty()));
  const [, cv] = cpExpr(c.cond, env);
  if (cv.kind !== 'const') return none();
  if (cv.value === 0) return some(seqCopies(reverseCmds(copies, { kind: 'nil' }), reachable(env), n, c.lbl));
  if (count >= UNROLL_LIMIT) return none();
  const [body, st1, n1] = cpCmd(c.body, reachable(env), n);
  const [copy, n2] = relabelCmd(body, n1);
  return unroll(c, st1, n2, count + 1, { kind: 'cons', head: copy, tail: copies });
}

/** The copies in order as one right-nested seq (fresh labels); `skip` labelled `lbl` when empty. */
function seqCopies(cs: List<Cmd>, st: CpState, n: number, lbl: number): CpResult {
  if (cs.kind === 'nil') return [{ kind: 'skip', lbl }, st, n];
  const [rest, , n1] = seqCopies(cs.tail, st, n, lbl);
  if (cs.head.kind === 'skip') return [rest, st, n1];
  if (rest.kind === 'skip') return [cs.head, st, n1];
  return [mkSeq(cs.head, rest, n1), st, n1 + 1];
}

// ---- expressions ---------------------------------------------------------------------------

/** The rewritten expression and its lattice value (const or nonConst). */
export function cpExpr(e: Expr, env: Env): [Expr, LatticeVal] {
  switch (e.kind) {
    case 'var': {
      const found = mapFind(env, e.name);
      // x => 3 when x is known to hold 3
      if (found.kind === 'some' && found.value.kind === 'const') {
        return [literal(found.value.value, e.ty, e.lbl), found.value];
      }
      return [e, nonConst()];
    }
    case 'intLit':
      return [e, mkConst(e.value, 'int')];
    case 'floatLit':
      return [e, mkConst(e.value, 'float')];
    case 'boolLit':
      return [e, mkConst(e.value ? 1 : 0, 'bool')];
    case 'arrayRef':
      return [e, nonConst()];
    case 'binary':
      return cpBinary(e.op, e.ty, e.left, e.right, e.lbl, env);
    case 'unary': {
      const [arg, v] = cpExpr(e.arg, env);
      const rebuilt: Expr = { kind: 'unary', op: e.op, ty: e.ty, arg, lbl: e.lbl };
      return v.kind === 'const'
        ? finish(rebuilt, foldUnary(e.op, e.ty, v.value), e.ty)
        : [rebuilt, nonConst()];
    }
    case 'cast': {
      const [arg, v] = cpExpr(e.arg, env);
      const rebuilt: Expr = { kind: 'cast', ty: e.ty, arg, implicit: e.implicit, lbl: e.lbl };
      if (v.kind !== 'const') return [rebuilt, nonConst()];
      return finish(rebuilt, foldCast(v.value, exprType(e.arg), e.ty), e.ty);
    }
    case 'load': {
      const [index, iv] = cpExpr(e.index, env);
      const rebuilt: Expr = { kind: 'load', array: e.array, index, ty: e.ty, lbl: e.lbl };
      const arr = mapFind(env, e.array);
      // k[1] => 2.0f when k is known to be {1.0f, 2.0f, 1.0f}
      if (arr.kind === 'some' && arr.value.kind === 'constArray' && iv.kind === 'const' && iv.value >= 0) {
        const from = dropNumbers(arr.value.elems, iv.value);
        if (from.kind === 'cons') return [literal(from.head, e.ty, e.lbl), mkConst(from.head, e.ty)];
      }
      return [rebuilt, nonConst()];
    }
    case 'call':
      return [{ kind: 'call', name: e.name, args: cpExprs(e.args, env), ty: e.ty, lbl: e.lbl }, nonConst()];
    case 'ternary': {
      const [cond, cv] = cpExpr(e.cond, env);
      // 1 ? a : b => a
      if (cv.kind === 'const') return cpExpr(cv.value !== 0 ? e.thenExpr : e.elseExpr, env);
      const [thenExpr] = cpExpr(e.thenExpr, env);
      const [elseExpr] = cpExpr(e.elseExpr, env);
      return [{ kind: 'ternary', cond, thenExpr, elseExpr, ty: e.ty, lbl: e.lbl }, nonConst()];
    }
  }
}

export function cpExprs(es: List<Expr>, env: Env): List<Expr> {
  if (es.kind === 'nil') return es;
  const [head] = cpExpr(es.head, env);
  return { kind: 'cons', head, tail: cpExprs(es.tail, env) };
}

/** A literal of C type `ty` holding `value`. */
export function literal(value: number, ty: string, lbl: number): Expr {
  if (ty === 'float') return { kind: 'floatLit', value, lbl };
  if (ty === 'bool') return { kind: 'boolLit', value: value !== 0, lbl };
  return { kind: 'intLit', value, lbl };
}

/** The folded literal when `folded` has a value, else the rebuilt expression. */
function finish(rebuilt: Expr, folded: Option<number>, ty: string): [Expr, LatticeVal] {
  if (folded.kind === 'some') return [literal(folded.value, ty, rebuilt.lbl), mkConst(folded.value, ty)];
  return [rebuilt, nonConst()];
}

function isConstNum(v: LatticeVal, k: number): boolean {
  return v.kind === 'const' && sameNumber(v.value, k);
}

export function cpBinary(
  op: string,
  ty: string,
  left: Expr,
  right: Expr,
  lbl: number,
  env: Env,
): [Expr, LatticeVal] {
  const [l, lv] = cpExpr(left, env);
  if (op === '&&' || op === '||') return cpLogical(op, ty, l, lv, right, lbl, env);
  const [r, rv] = cpExpr(right, env);
  const rebuilt: Expr = { kind: 'binary', op, ty, left: l, right: r, lbl };
  if (lv.kind === 'const' && rv.kind === 'const')
    return finish(rebuilt, foldBinary(op, ty, lv.value, rv.value), ty);
  if (ty === 'int') {
    if (op === '*') {
      if (isConstNum(rv, 1)) return [l, lv]; // x * 1 => x
      if (isConstNum(lv, 1)) return [r, rv]; // 1 * x => x
    }
    if (op === '+') {
      if (isConstNum(rv, 0)) return [l, lv]; // x + 0 => x
      if (isConstNum(lv, 0)) return [r, rv]; // 0 + x => x
    }
    if (op === '-' && isConstNum(rv, 0)) return [l, lv]; // x - 0 => x
  }
  if (ty === 'float') {
    if (op === '*') {
      if (isConstNum(rv, 1)) return [l, lv]; // x * 1.0f => x
      if (isConstNum(lv, 1)) return [r, rv]; // 1.0f * x => x
    }
    if (op === '+') {
      if (isConstNum(rv, -0)) return [l, lv]; // x + -0.0f => x
      if (isConstNum(lv, -0)) return [r, rv]; // -0.0f + x => x
    }
    if (op === '-' && isConstNum(rv, 0)) return [l, lv]; // x - 0.0f => x
  }
  return [rebuilt, nonConst()];
}

/** `&&` / `||`: the right operand is only looked at when the left one does not decide. */
function cpLogical(
  op: string,
  ty: string,
  l: Expr,
  lv: LatticeVal,
  right: Expr,
  lbl: number,
  env: Env,
): [Expr, LatticeVal] {
  // 0 && b => 0;  1 || b => 1
  if (lv.kind === 'const' && (op === '&&' ? lv.value === 0 : lv.value !== 0)) {
    const v = op === '&&' ? 0 : 1;
    return [literal(v, ty, lbl), mkConst(v, ty)];
  }
  const [r, rv] = cpExpr(right, env);
  // 1 && 5 => 1;  0 || 0 => 0
  if (lv.kind === 'const' && rv.kind === 'const') {
    const v = rv.value !== 0 ? 1 : 0;
    return [literal(v, ty, lbl), mkConst(v, ty)];
  }
  return [{ kind: 'binary', op, ty, left: l, right: r, lbl }, nonConst()];
}

/** `l op r` as the reference evaluator computes it; `none` where C has no value (UB). */
export function foldBinary(op: string, ty: string, l: number, r: number): Option<number> {
  switch (op) {
    case '<':
      return some(l < r ? 1 : 0);
    case '<=':
      return some(l <= r ? 1 : 0);
    case '>':
      return some(l > r ? 1 : 0);
    case '>=':
      return some(l >= r ? 1 : 0);
    case '==':
      return some(l === r ? 1 : 0);
    case '!=':
      return some(l !== r ? 1 : 0);
    default:
      return ty === 'float' ? foldFloat(op, l, r) : foldInt(op, l, r);
  }
}

function foldFloat(op: string, l: number, r: number): Option<number> {
  switch (op) {
    case '+':
      return some(fround(l + r));
    case '-':
      return some(fround(l - r));
    case '*':
      return some(fround(l * r));
    case '/':
      return some(fround(l / r));
    default:
      return none();
  }
}

function foldInt(op: string, l: number, r: number): Option<number> {
  switch (op) {
    case '+':
      return some((l + r) | 0);
    case '-':
      return some((l - r) | 0);
    case '*':
      return some(imul(l, r));
    case '/':
      return r === 0 || (l === INT_MIN && r === -1) ? none() : some((l / r) | 0);
    case '%':
      return r === 0 || (l === INT_MIN && r === -1) ? none() : some((l % r) | 0);
    case '&':
      return some(l & r);
    case '|':
      return some(l | r);
    case '^':
      return some(l ^ r);
    case '<<':
      return r < 0 || r > 31 ? none() : some(l << r);
    case '>>':
      return r < 0 || r > 31 ? none() : some(l >> r);
    default:
      return none();
  }
}

export function foldUnary(op: string, ty: string, v: number): Option<number> {
  switch (op) {
    case '-':
      return some(ty === 'float' ? -v : -v | 0);
    case '~':
      return some(~v);
    case '!':
      return some(v === 0 ? 1 : 0);
    default:
      return none();
  }
}

/** The conversion of `v` from type `from` to `to`; `none` for a float out of int's range. */
export function foldCast(v: number, from: string, to: string): Option<number> {
  if (from === to) return some(v);
  if (to === 'bool') return some(v !== 0 ? 1 : 0);
  if (to === 'float') return some(fround(v));
  if (to !== 'int') return none();
  if (from !== 'float') return some(v);
  const t = trunc(v);
  return isNaNNumber(t) || t < INT_MIN || t > INT_MAX ? none() : some(t | 0);
}
