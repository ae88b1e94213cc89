/**
 * Constant propagation and folding with complete loop unrolling, in SCF-lang (the paper's CoP,
 * SCF §2.2.1: `CoP.optimize : Fun -> lattice_val list -> Fun`, the list giving the lattice
 * values of the formals).
 *
 * Algorithm. One forward pass over the structured AST threads a state — reachable or not, and an
 * environment `Env` (lattice.ts) — and rewrites as it goes. The environment binds every name of the
 * function from the entry on: the formals to their lattice values (an array formal without known
 * contents to `undef`), every local and every other name a command may write (`modifiedNames`:
 * combinator results are not locals) to `undef`, "no value yet". Commands only rebind names, and an
 * unreachable state keeps the environment it had, so every environment of a run binds the same
 * list `names`. Meets and comparisons go over the names a command may modify (`modifiedNames`):
 * the two branches of an `if` start from one environment, and every round of a loop from the
 * entry's values for the names the loop does not modify, so those names already agree (the
 * outputs are the same as meeting over all of `names`; a partial evaluator then never has to ask
 * whether two copies of a late value are equal). The rules:
 * - a variable whose value is `const` becomes a literal; an operator, cast, `!`/`~`/`-`, `?:`,
 *   `&&`/`||` or a load from a `constArray` at a constant index whose operands are constants is
 *   folded with exactly the reference evaluator's C semantics (int32 wrapping with `| 0` and
 *   `imul`, truncating `/` and `%`, binary32 floats rounded with `fround`). What C leaves undefined
 *   (division by zero, INT_MIN / -1, shifts outside 0..31, float→int out of range) is not folded;
 * - a builtin's call (C's math functions: kernel/builtins.ts) on constants is folded with the
 *   evaluator's value (the prelude's `cmath`) when C specifies it to the bit (`foldsExactly`:
 *   `sqrtf`, `floorf`, `fminf`, `abs`, …), and under finite math every builtin (`expf`, `powf`:
 *   the evaluator's value, which a back end computing the call may differ from within its bound);
 * - algebraic identities: int `x*1`, `1*x`, `x+0`, `0+x`, `x-0` => `x`; float `x*1`, `1*x`,
 *   `x+(-0)`, `(-0)+x`, `x-0` => `x` (exact in IEEE: `x+0` is not, since -0+0 = +0). `x*0` is
 *   not folded: SCF §2.2.2 (Fig. 6) specifies a constant propagator that turns `x*a` into
 *   `x*i` for every constant i other than 1 (and for floats it would be wrong: NaN*0 = NaN);
 * - a clone (below), once rewritten, has its int constant offsets gathered and more int identities
 *   folded (int-offsets.ts: `x + 1 - 1` => `x`, `x | 0` => `x`, `v - v` => 0); the function a
 *   pipeline optimizes keeps its offsets as written (int-offsets.ts says why);
 * - `if` with a constant condition becomes its taken branch; a `while` whose condition is
 *   constant false is dropped;
 * - combinators (`soac`, `hfused` members in order): constants replace the variables among their
 *   atoms (`int n = 4; int ix[] = iota(n);` => `iota(4)`); the `dest` then becomes nonConst (a
 *   reduce's scalar is not folded, an array result has no known contents). A loop whose body has
 *   a combinator is never unrolled (see `cpWhile`);
 * - specialization of the functions combinators apply (after the rewrite, `specCmd`): a lambda
 *   `(p…) => g(e…)` some of whose arguments are known — a literal operand, a `const` array formal
 *   bound to known contents passed whole — calls a clone of `g` (one of the function's `fns`, the
 *   program's functions the pipeline attached) optimized by this same pass for those values:
 *   loops over a known count unrolled (the limits below, per clone), branches on known values
 *   taken, loads of known arrays folded; the known parameters it no longer names are dropped with
 *   their operands (`map(g, xs, cs, 4)` => `map(g_1, xs)`). One clone per function and argument
 *   values, named `g_1`, `g_2`, … (the first name no function of the program has), appended to
 *   `fns` in the order made. Inside a clone, a call with known arguments calls a clone of its
 *   function in turn (`callsCmd`), at most CLONE_DEPTH levels deep (so a recursive function is
 *   cloned that far, then called as it is). Calls in the function itself are not specialized (it
 *   is the host: its calls run on the CPU), nor lambdas fusion composed;
 * - complete unrolling: a `while` is first simulated from the incoming state on states alone
 *   (`unrollState`): as long as its condition folds to a constant true, the state after one more
 *   run of the body. Only if the condition becomes constant false (or every path has returned)
 *   within UNROLL_LIMIT (64, as DyC) iterations, and the function's unrolling work stays within
 *   UNROLL_BUDGET nodes, is the loop unrolled (`unroll`): round after
 *   round the body is transformed from the state the previous copy left and the copy renumbered
 *   with fresh labels (not in a clone, which is renumbered whole once optimized: `RENUMBERED`);
 *   the sequence of copies replaces the loop. Otherwise nothing has been built,
 *   and the loop is analysed normally. (A loop that is unrolled has its states computed twice; one
 *   that runs too long costs UNROLL_LIMIT rounds of states, not copies.);
 * - otherwise a loop is iterated to a fixpoint on states alone: head = entry ⊓ (state after the
 *   body from head), starting from the entry state; it is then transformed once under the fixpoint
 *   state. The chain descends (each name goes undef → const → nonConst), so it stabilizes in at
 *   most 2·|names|+1 rounds; the fuel LOOP_FUEL (64 rounds) is a safety net: when it runs out every
 *   name the loop may modify is set to nonConst at the head, which is a post-fixpoint (sound, less
 *   precise).
 * `cpCmd` is the one transfer function: with `build` false it computes only the state after a
 * command (no rewritten command, no labels), which is all the fixpoints and the simulation need.
 *
 * Invariants. The output computes the same results and array contents as the input for every
 * execution of the input that succeeds (has no undefined behaviour): a scalar that is undef is an
 * uninitialized local, whose reads would fail. Calls may store into any array passed to them, so
 * such arrays lose their `constArray` value before the command evaluating the call; stores make the
 * stored-to array nonConst; a combinator writes only its `dest` (its lambdas cannot write arrays).
 * An expression is replaced by a literal only when it has a constant value, which implies it has no
 * calls left to evaluate. Labels stay unique: rewritten nodes reuse the label of the node they
 * replace; unrolled copies are renumbered from a counter that starts above the input's largest
 * label (its `fns` included) and is threaded through the pass (only by building: simulation and
 * fixpoints use none); each clone is renumbered whole from it, so labels are unique across the
 * function, its callees and the clones. A clone computes what its original computes on the known
 * values: it is this pass's output for them, and a parameter is dropped only when its body no
 * longer names it. tests/optimizers/const-prop-golden.test.ts pins the output, labels included.
 */
import {
  dropNumbers,
  type Env,
  type EnvVal,
  FINITE_MATH,
  isNaNNumber,
  type LatticeVal,
  lookup,
  meetEnv,
  mkConst,
  nonConst,
  sameEnv,
  sameNumber,
  sameVal,
  undef,
} from './lattice.js';
import {
  cmath,
  fround,
  imul,
  type List,
  mapEmpty,
  mapInsert,
  none,
  numToString,
  type Option,
  type PSet,
  setAdd,
  setEmpty,
  setToList,
  some,
  trunc,
} from 'scf/prelude';
import type { Call, Cmd, Decl, Expr, Fun, Lam, Param, Soac, SoacArg, While } from '../kernel/ast.js';
import { exprType, hasCall } from '../kernel/expr-info.js';
import { foldsExactly, isBuiltin } from '../kernel/builtins.generated.js';
import {
  arraysPassed,
  arraysPassedList,
  hasSoac,
  maxLabelFun,
  mkSeq,
  exprNames,
  modifiedNames,
  namesIn,
  relabelCmd,
  relabelFun,
  reverseCmds,
} from './kernel-walk.js';
import { gatherCmd } from './int-offsets.js';
import { type LeafCmd, leafEnds, leafExprs, leafWith } from './leaf.generated.js';

/** Most iterations a loop is completely unrolled to (DyC's default). */
export const UNROLL_LIMIT = 64;
/**
 * Most unrolling work per function, in AST nodes. Each round of a loop that is unrolled, or whose
 * unrolling is tried, costs the nodes of the loop's body; the rounds of loops inside it are
 * counted as they are tried, so nested loops multiply. Once a round would take the function past
 * the budget, no loop is unrolled any more (it is analysed as a loop). The per-loop UNROLL_LIMIT
 * alone let four nested 64-trip loops build 64^4 copies (out of memory after minutes), and four
 * nested 65-trip loops simulate 64^4 rounds before giving up. Since a copy is never larger than
 * the body it copies, the budget also bounds the nodes unrolling creates (2^21 nodes: a few
 * hundred MB). The largest unrolling of the benchmark kernels (a cache simulator with every int
 * formal bound to 64) builds about a million nodes; the budget changes none of the outputs that
 * tests/optimizers/const-prop-golden.test.ts pins (it only cuts short attempts that fail anyway,
 * such as doconvol's with every int formal 65: 19.7 million nodes of rounds tried, 2.5 s).
 */
export const UNROLL_BUDGET = 2097152;
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

/**
 * A command's rewrite, the state after it, the next free label, and the unrolling work spent in
 * the function so far (UNROLL_BUDGET).
 */
export type CpResult = [Cmd, CpState, number, number];

/**
 * `f` optimized, given the lattice values of its formals (in order; missing ones are nonConst); a
 * function its combinators apply to known arguments is specialized in a clone (`specCmd`).
 */
export function optimize(f: Fun, formals: List<LatticeVal>): Fun {
  // The entry points hold the pass's first steps themselves rather than calling one shared
  // function: a partial evaluator that runs out of fuel inside `cpCmd` still sees the function
  // built here, where behind one more call a long loop nest would stage to 'Any.
  const names = setToList(modifiedNames(f.body, declared(f.params, f.locals, setEmpty())));
  const env = bindFormals(f.params, formals, undefAll(names, mapEmpty()));
  const [body, , n] = cpCmd(f.body, reachable(env), maxLabelFun(f) + 1, 0, names, true);
  // (decided on the input, which a partial evaluator knows early, not on the rewritten body)
  if (f.fns.kind === 'nil' || !hasSoac(f.body)) return { ...f, body };
  return withClones(f, body, knownArrays(f.params, formals, mapEmpty()), n);
}

/**
 * `optimize` under finite math (config `"math": "finite"`, `--math finite`): float operands are
 * taken to be finite and the sign of a zero not to matter, so `x * 0` => 0 (when `x` calls nothing),
 * `x + 0` and `0 + x` => `x` too (see `cpBinary`). The mode is an option in the entry environment
 * (`FINITE_MATH`): every rule that reads an environment sees it, the known arrays' environment
 * starts from it too (so clones are made in the same mode), and the environments of an exact run
 * bind no option at all.
 */
export function optimizeFinite(f: Fun, formals: List<LatticeVal>): Fun {
  const opts: Env = mapInsert(mapEmpty(), FINITE_MATH, mkConst(1, 'int'));
  const names = setToList(modifiedNames(f.body, declared(f.params, f.locals, setEmpty())));
  const env = bindFormals(f.params, formals, undefAll(names, opts));
  const [body, , n] = cpCmd(f.body, reachable(env), maxLabelFun(f) + 1, 0, names, true);
  if (f.fns.kind === 'nil' || !hasSoac(f.body)) return { ...f, body };
  return withClones(f, body, knownArrays(f.params, formals, opts), n);
}

/** `f` with the rewritten `body`, its combinators' functions specialized (`specCmd`, clones from `n`). */
function withClones(f: Fun, body: Cmd, arrays: Env, n: number): Fun {
  const [specialized, clones] = specCmd(body, arrays, f, { kind: 'nil' }, n);
  const fns = appendFuns(f.fns, cloneFuns(clones, { kind: 'nil' }));
  return { ...f, body: specialized, fns };
}

/**
 * Optimizes a clone in the mode `opts` (the known arrays' environment) carries, then gathers its
 * int offsets and folds the int identities of int-offsets.ts (`gatherCmd`). A clone is a program
 * function, whose `fns` are empty: nothing to specialize in turn here (`cloneFor` clones its calls).
 */
function optimizeIn(f: Fun, formals: List<LatticeVal>, opts: Env): Fun {
  const names = setToList(modifiedNames(f.body, declared(f.params, f.locals, setEmpty())));
  const entry = mapInsert(optionsOf(opts), RENUMBERED, mkConst(1, 'int'));
  const env = bindFormals(f.params, formals, undefAll(names, entry));
  const [body] = cpCmd(f.body, reachable(env), maxLabelFun(f) + 1, 0, names, true);
  return { ...f, body: gatherCmd(body) };
}

/** `acc` with the names of the formals and of the locals added (see `optimize` for the others). */
function declared(ps: List<Param>, ds: List<Decl>, acc: PSet<string>): PSet<string> {
  if (ps.kind === 'cons') return declared(ps.tail, ds, setAdd(acc, ps.head.name));
  if (ds.kind === 'cons') return declared(ps, ds.tail, setAdd(acc, ds.head.name));
  return acc;
}

/** `env` with every name in `names` bound to undef. */
function undefAll(names: List<string>, env: Env): Env {
  if (names.kind === 'nil') return env;
  return undefAll(names.tail, mapInsert(env, names.head, undef()));
}

/**
 * The entry environment: each formal gets its lattice value (missing ones are nonConst), bound over
 * `env`; an array formal that is not constArray is undef (not written yet, contents unknown).
 */
export function bindFormals(params: List<Param>, vals: List<LatticeVal>, env: Env): Env {
  if (params.kind === 'nil') return env;
  const p = params.head;
  const v: LatticeVal = vals.kind === 'cons' ? vals.head : nonConst();
  const rest: List<LatticeVal> = vals.kind === 'cons' ? vals.tail : vals;
  if (p.isArray) {
    return bindFormals(params.tail, rest, mapInsert(env, p.name, v.kind === 'constArray' ? v : undef()));
  }
  return bindFormals(params.tail, rest, mapInsert(env, p.name, v.kind === 'const' ? v : nonConst()));
}

// ---- states --------------------------------------------------------------------------------

function reachable(env: Env): CpState {
  return { kind: 'cpState', reach: true, env };
}

/** No execution gets here; the environment is kept (and never read) so all states bind the same names. */
function unreachable(env: Env): CpState {
  return { kind: 'cpState', reach: false, env };
}

export function meetState(names: List<string>, a: CpState, b: CpState): CpState {
  if (!a.reach) return b;
  if (!b.reach) return a;
  return reachable(meetEnv(names, a.env, b.env));
}

export function sameState(names: List<string>, a: CpState, b: CpState): boolean {
  return a.reach === b.reach && (!a.reach || sameEnv(names, a.env, b.env));
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

/**
 * The transfer function: the state after `c` from `st`, and, when `build`, `c` rewritten (labels of
 * unrolled copies from `n`; the next free label is returned). With `build` false nothing is built:
 * the command returned is `c` itself (or a part of it) and `n` comes back unchanged — the same
 * rules, for the fixpoints and for simulating unrolling, which only need states. `spent` is the
 * unrolling work done before `c`; the work after it is returned, the same with and without
 * `build`, so that both make the same unrolling decisions.
 */
export function cpCmd(
  c: Cmd,
  st: CpState,
  n: number,
  spent: number,
  names: List<string>,
  build: boolean,
): CpResult {
  if (!st.reach) return [c, st, n, spent];
  switch (c.kind) {
    case 'assign': {
      const env = killPassed(st.env, arraysPassed(c.rhs, setEmpty()));
      const [rhs, v] = cpExpr(c.rhs, env);
      const kept: LatticeVal = v.kind === 'const' ? v : nonConst();
      const out: Cmd = build ? { kind: 'assign', name: c.name, rhs, lbl: c.lbl } : c;
      return [out, reachable(mapInsert(env, c.name, kept)), n, spent];
    }
    case 'store': {
      const env = killPassed(st.env, arraysPassed(c.rhs, arraysPassed(c.index, setEmpty())));
      const after = reachable(mapInsert(env, c.array, nonConst()));
      if (!build) return [c, after, n, spent];
      const [index] = cpExpr(c.index, env);
      const [rhs] = cpExpr(c.rhs, env);
      return [{ kind: 'store', array: c.array, index, rhs, lbl: c.lbl }, after, n, spent];
    }
    case 'seq': {
      const [first, st1, n1, s1] = cpCmd(c.first, st, n, spent, names, build);
      const [second, st2, n2, s2] = cpCmd(c.second, st1, n1, s1, names, build);
      return [build ? mkSeq(first, second, c.lbl) : c, st2, n2, s2];
    }
    case 'if': {
      const env = killPassed(st.env, arraysPassed(c.cond, setEmpty()));
      const [cond, cv] = cpExpr(c.cond, env);
      // if (1) A else B => A;  if (0) A else B => B  (two calls, not one on `cv ? A : B`: a
      // partial evaluator that does not know the constant then still knows each command; scf's
      // splits such a call itself, but the optimizer should not depend on it)
      if (cv.kind === 'const') {
        if (cv.value !== 0) return cpCmd(c.thenCmd, reachable(env), n, spent, names, build);
        return cpCmd(c.elseCmd, reachable(env), n, spent, names, build);
      }
      const [thenCmd, st1, n1, s1] = cpCmd(c.thenCmd, reachable(env), n, spent, names, build);
      const [elseCmd, st2, n2, s2] = cpCmd(c.elseCmd, reachable(env), n1, s1, names, build);
      const out: Cmd = build ? { kind: 'if', cond, thenCmd, elseCmd, lbl: c.lbl } : c;
      // both branches start from `env`: only what they may modify can differ
      const mods = setToList(modifiedNames(c.elseCmd, modifiedNames(c.thenCmd, setEmpty())));
      return [out, meetState(mods, st1, st2), n2, s2];
    }
    case 'while':
      return cpWhile(c, st, n, spent, names, build);
    case 'soac': {
      const [s, env] = cpSoac(c, st.env, build);
      return [s, reachable(env), n, spent];
    }
    case 'hfused': {
      const [members, env] = cpSoacs(c.members, st.env, build);
      return [build ? { kind: 'hfused', members, lbl: c.lbl } : c, reachable(env), n, spent];
    }
    default: {
      // a leaf (`return`, `skip`, a call; leaf.generated.ts): the arrays its calls are passed lose
      // their contents, its expressions are folded, and after it comes the next command or nothing
      // (one without expressions comes back as it is, with no walk over an empty list: fewer
      // steps, natively and staged)
      const es = leafExprs(c);
      if (es.kind === 'nil') return [c, leafEnds(c) ? unreachable(st.env) : st, n, spent];
      const env = killPassed(st.env, arraysPassedList(es, setEmpty()));
      const out: Cmd = build ? leafWith(c, cpExprs(es, env), c.lbl) : c;
      return [out, leafEnds(c) ? unreachable(env) : reachable(env), n, spent];
    }
  }
}

/** The state after `c` from `st` and the unrolling work spent then (`cpCmd` without building). */
function stateAfter(c: Cmd, st: CpState, spent: number, names: List<string>): [CpState, number] {
  const [, after, , spentAfter] = cpCmd(c, st, 0, spent, names, false);
  return [after, spentAfter];
}

// ---- combinators ---------------------------------------------------------------------------

/**
 * A combinator: known constants replace the variables among its atoms (`ne`, iota lengths, scalar
 * arguments; a variable becomes a literal of its own type, so atoms stay atoms); its lambdas are
 * closed and left alone. Afterwards its `dest` is nonConst: a reduce's scalar is not computed, and
 * an array result is a fresh array with no known contents (nonConst also hides any other value a
 * name equal to `dest` had). It writes no other variable or array (kernel-walk.ts). With `build`
 * false, `s` itself is returned.
 */
export function cpSoac(s: Soac, env: Env, build: boolean): [Soac, Env] {
  const after = mapInsert(env, s.dest, nonConst());
  if (!build) return [s, after];
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
  return [rewritten, after];
}

/** Horizontally fused members, in order (none reads another's result). */
export function cpSoacs(ss: List<Soac>, env: Env, build: boolean): [List<Soac>, Env] {
  if (ss.kind === 'nil') return [ss, env];
  const [head, env1] = cpSoac(ss.head, env, build);
  const [tail, env2] = cpSoacs(ss.tail, env1, build);
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
  const v = lookup(env, e.name);
  if (v.kind === 'const') return literal(v.value, e.ty, e.lbl);
  return e;
}

// ---- specializing the functions combinators apply -------------------------------------------

/**
 * A function specialized for known arguments: the original's name, its arguments' lattice values
 * (nonConst where unknown) and the clone.
 */
export interface Clone {
  readonly kind: 'clone';
  readonly of: string;
  readonly args: List<LatticeVal>;
  readonly fun: Fun;
}

/**
 * The array formals whose contents are known at every combinator: `const` arrays (never written:
 * the parser rejects stores into them and passing them where a callee could write) bound to a
 * constArray.
 */
function knownArrays(ps: List<Param>, vals: List<LatticeVal>, acc: Env): Env {
  if (ps.kind === 'nil') return acc;
  const v: LatticeVal = vals.kind === 'cons' ? vals.head : nonConst();
  const rest: List<LatticeVal> = vals.kind === 'cons' ? vals.tail : vals;
  const p = ps.head;
  const known = p.isArray && p.isConst && v.kind === 'constArray';
  return knownArrays(ps.tail, rest, known ? mapInsert(acc, p.name, v) : acc);
}

/**
 * After the rewrite, each combinator whose lambda calls a function `g` of the program with some
 * arguments known — literals among its scalar operands, known const arrays passed whole — calls a
 * clone of `g` instead: `g` optimized by `optimize` with those arguments' values, the known
 * parameters it no longer names dropped (`map(g, xs, 4)`, `g(x, n)` => `g_1(x)` with n = 4 folded
 * in: loops over n unrolled, branches on it taken, loads from a known array folded). Clones are
 * made once per function and arguments (`findClone`, last made first in `clones`), named `g_1`,
 * `g_2`, … (the first free name: `freshName`) and renumbered from `n`, above every label of `host`.
 */
function specCmd(c: Cmd, arrays: Env, host: Fun, clones: List<Clone>, n: number): [Cmd, List<Clone>, number] {
  switch (c.kind) {
    case 'seq': {
      const [first, c1, n1] = specCmd(c.first, arrays, host, clones, n);
      const [second, c2, n2] = specCmd(c.second, arrays, host, c1, n1);
      return [{ kind: 'seq', first, second, lbl: c.lbl }, c2, n2];
    }
    case 'if': {
      const [thenCmd, c1, n1] = specCmd(c.thenCmd, arrays, host, clones, n);
      const [elseCmd, c2, n2] = specCmd(c.elseCmd, arrays, host, c1, n1);
      return [{ kind: 'if', cond: c.cond, thenCmd, elseCmd, lbl: c.lbl }, c2, n2];
    }
    case 'while': {
      if (!hasSoac(c.body)) return [c, clones, n];
      const [body, c1, n1] = specCmd(c.body, arrays, host, clones, n);
      return [{ kind: 'while', cond: c.cond, body, isFor: c.isFor, lbl: c.lbl }, c1, n1];
    }
    case 'soac':
      return specSoac(c, arrays, host, clones, n);
    case 'hfused': {
      const [members, c1, n1] = specSoacs(c.members, arrays, host, clones, n);
      return [{ kind: 'hfused', members, lbl: c.lbl }, c1, n1];
    }
    case 'assign':
    case 'store':
      return [c, clones, n];
    default:
      return [leafAsIs(c), clones, n];
  }
}

/** A leaf holds no combinator (typed, so that a kind that is no leaf needs a case in `specCmd`). */
function leafAsIs(c: LeafCmd): Cmd {
  return c;
}

function specSoacs(
  ss: List<Soac>,
  arrays: Env,
  host: Fun,
  clones: List<Clone>,
  n: number,
): [List<Soac>, List<Clone>, number] {
  if (ss.kind === 'nil') return [ss, clones, n];
  const [head, c1, n1] = specSoac(ss.head, arrays, host, clones, n);
  const [tail, c2, n2] = specSoacs(ss.tail, arrays, host, c1, n1);
  return [{ kind: 'cons', head, tail }, c2, n2];
}

/** One combinator: its lambda `(p…) => g(e…)` calls a clone of `g` when some `e` is known. */
function specSoac(
  s: Soac,
  arrays: Env,
  host: Fun,
  clones: List<Clone>,
  n: number,
): [Soac, List<Clone>, number] {
  const lam = s.fn;
  if (lam.binds.kind !== 'nil' || lam.result.kind !== 'call') return [s, clones, n];
  const call = lam.result;
  const found = findFn(host.fns, call.name);
  if (found.kind === 'none') return [s, clones, n];
  const g = found.value;
  const operands = s.op === 'map' || s.op === 'filter' ? lam.params : dropParam(lam.params);
  const vals = callVals(call.args, paramVals(operands, s.args, arrays, mapEmpty()));
  if (!anyKnown(vals)) return [s, clones, n];
  const [clone, c1, n1] = cloneFor(g, vals, arrays, host, clones, n, 0);
  const result: Expr = {
    kind: 'call',
    name: clone.name,
    args: keptArgs(g.params, clone.params, call.args),
    ty: call.ty,
    lbl: call.lbl,
  };
  const mapped = s.op === 'map' || s.op === 'filter';
  const [params, args] = mapped
    ? pruneOperands(lam.params, s.args, result)
    : pruneFoldOperands(lam.params, s.args, result);
  const fn: Lam = { kind: 'lam', params, binds: lam.binds, result, ret: lam.ret, lbl: lam.lbl };
  const out: Soac = {
    kind: 'soac',
    op: s.op,
    dest: s.dest,
    ty: s.ty,
    fn,
    comb: s.comb,
    ne: s.ne,
    args,
    lbl: s.lbl,
  };
  return [out, c1, n1];
}

/** A fold's accumulator parameter stays; its other parameters are pruned as a map's. */
function pruneFoldOperands(ps: List<Param>, as: List<SoacArg>, result: Expr): [List<Param>, List<SoacArg>] {
  if (ps.kind === 'nil') return [ps, as];
  const [params, args] = pruneOperands(ps.tail, as, result);
  return [{ kind: 'cons', head: ps.head, tail: params }, args];
}

/**
 * The lambda's parameters and the combinator's operands without those the new call no longer
 * names, where the operand is passed whole (a scalar, or an array for an array parameter): the
 * clone has the known values built in (`map(g_1 ∘ (x, cs, d) => g_1(x), xs, cs, 4)` =>
 * `map((x) => g_1(x), xs)`). Mapped operands stay, so the combinator keeps its length.
 */
function pruneOperands(ps: List<Param>, as: List<SoacArg>, result: Expr): [List<Param>, List<SoacArg>] {
  if (ps.kind === 'nil' || as.kind === 'nil') return [ps, as];
  const [params, args] = pruneOperands(ps.tail, as.tail, result);
  const a = as.head;
  const whole = a.kind === 'argScalar' || (a.kind === 'argArray' && ps.head.isArray);
  if (whole && !exprNames(result, ps.head.name)) return [params, args];
  return [
    { kind: 'cons', head: ps.head, tail: params },
    { kind: 'cons', head: a, tail: args },
  ];
}

function dropParam(ps: List<Param>): List<Param> {
  return ps.kind === 'cons' ? ps.tail : ps;
}

/** The function of `fns` called `name`. */
function findFn(fns: List<Fun>, name: string): Option<Fun> {
  if (fns.kind === 'nil') return none();
  if (fns.head.name === name) return some(fns.head);
  return findFn(fns.tail, name);
}

/**
 * What each lambda parameter is known to be, from the combinator's operands (in order): a literal
 * scalar is a constant, a known array passed whole its contents; anything else (a mapped element,
 * a variable) is left out (nonConst).
 */
function paramVals(ps: List<Param>, as: List<SoacArg>, arrays: Env, acc: Env): Env {
  if (ps.kind === 'nil' || as.kind === 'nil') return acc;
  const a = as.head;
  const p = ps.head;
  const v: EnvVal =
    a.kind === 'argScalar'
      ? literalVal(a.value)
      : a.kind === 'argArray' && p.isArray
        ? lookup(arrays, a.name)
        : nonConst();
  const known = v.kind === 'const' || v.kind === 'constArray';
  return paramVals(ps.tail, as.tail, arrays, known ? mapInsert(acc, p.name, v) : acc);
}

/** A literal's value (`1.5f` => const 1.5 float); nonConst for anything else. */
function literalVal(e: Expr): LatticeVal {
  switch (e.kind) {
    case 'intLit':
      return mkConst(e.value, 'int');
    case 'floatLit':
      return mkConst(e.value, 'float');
    case 'boolLit':
      return mkConst(e.value ? 1 : 0, 'bool');
    default:
      return nonConst();
  }
}

/** The values of a call's arguments: a lambda parameter's, a literal's, else nonConst. */
function callVals(es: List<Expr>, params: Env): List<LatticeVal> {
  if (es.kind === 'nil') return { kind: 'nil' };
  const e = es.head;
  const v: EnvVal = e.kind === 'var' || e.kind === 'arrayRef' ? lookup(params, e.name) : literalVal(e);
  const head: LatticeVal = v.kind === 'undef' ? nonConst() : v;
  return { kind: 'cons', head, tail: callVals(es.tail, params) };
}

function anyKnown(vs: List<LatticeVal>): boolean {
  if (vs.kind === 'nil') return false;
  return vs.head.kind !== 'nonConst' || anyKnown(vs.tail);
}

/**
 * The clone of `g` for `vals`: one made before, or a new one (added to `clones`), optimized with
 * the options `arrays` carries.
 */
function cloneFor(
  g: Fun,
  vals: List<LatticeVal>,
  arrays: Env,
  host: Fun,
  clones: List<Clone>,
  n: number,
  depth: number,
): [Fun, List<Clone>, number] {
  const old = findClone(clones, g.name, vals);
  if (old.kind === 'some') return [old.value, clones, n];
  const opt = optimizeIn(g, vals, arrays);
  // the calls it makes with known arguments call clones in turn, CLONE_DEPTH levels deep at most
  // (a recursive function is cloned that far and then called as it is); decided on `g` itself,
  // which a partial evaluator knows early
  const [body, c1, n1] =
    depth < CLONE_DEPTH && callsIn(g.body)
      ? callsCmd(opt.body, knownArrays(g.params, vals, optionsOf(arrays)), host, clones, n, depth + 1)
      : [opt.body, clones, n];
  const params = keptParams(g.params, vals, body);
  const name = freshName(g.name, 1, host, c1);
  const renamed: Fun = {
    kind: 'fun',
    name,
    ret: g.ret,
    params,
    locals: opt.locals,
    body,
    fns: { kind: 'nil' },
    lbl: g.lbl,
  };
  const [fun, n2] = relabelFun(renamed, n1);
  return [fun, { kind: 'cons', head: { kind: 'clone', of: g.name, args: vals, fun }, tail: c1 }, n2];
}

/** How deep clones of clones go: a call chain of known arguments through more functions is cut there. */
export const CLONE_DEPTH = 4;

/** The options `env` carries (`FINITE_MATH`), without its variables. */
function optionsOf(env: Env): Env {
  return finiteMath(env) ? mapInsert(mapEmpty(), FINITE_MATH, mkConst(1, 'int')) : mapEmpty();
}

/** Whether a command calls a function anywhere in its expressions. */
function callsIn(c: Cmd): boolean {
  switch (c.kind) {
    case 'assign':
      return hasCall(c.rhs);
    case 'store':
      return hasCall(c.index) || hasCall(c.rhs);
    case 'seq':
      return callsIn(c.first) || callsIn(c.second);
    case 'if':
      return hasCall(c.cond) || callsIn(c.thenCmd) || callsIn(c.elseCmd);
    case 'while':
      return hasCall(c.cond) || callsIn(c.body);
    case 'soac':
    case 'hfused':
      return false;
    default:
      return leafCalls(leafExprs(c));
  }
}

function leafCalls(es: List<Expr>): boolean {
  if (es.kind === 'nil') return false;
  return hasCall(es.head) || leafCalls(es.tail);
}

/**
 * Inside a clone: every call `h(e…)` of a function of the program some of whose arguments are
 * known (literals, known const arrays passed whole) calls a clone of `h` for them (`cloneFor`), as
 * a combinator's lambda does. Combinators do not occur here (the functions combinators apply have
 * none).
 */
function callsCmd(
  c: Cmd,
  arrays: Env,
  host: Fun,
  clones: List<Clone>,
  n: number,
  depth: number,
): [Cmd, List<Clone>, number] {
  switch (c.kind) {
    case 'assign': {
      const [rhs, c1, n1] = callsExpr(c.rhs, arrays, host, clones, n, depth);
      return [{ kind: 'assign', name: c.name, rhs, lbl: c.lbl }, c1, n1];
    }
    case 'store': {
      const [index, c1, n1] = callsExpr(c.index, arrays, host, clones, n, depth);
      const [rhs, c2, n2] = callsExpr(c.rhs, arrays, host, c1, n1, depth);
      return [{ kind: 'store', array: c.array, index, rhs, lbl: c.lbl }, c2, n2];
    }
    case 'seq': {
      const [first, c1, n1] = callsCmd(c.first, arrays, host, clones, n, depth);
      const [second, c2, n2] = callsCmd(c.second, arrays, host, c1, n1, depth);
      return [{ kind: 'seq', first, second, lbl: c.lbl }, c2, n2];
    }
    case 'if': {
      const [cond, c1, n1] = callsExpr(c.cond, arrays, host, clones, n, depth);
      const [thenCmd, c2, n2] = callsCmd(c.thenCmd, arrays, host, c1, n1, depth);
      const [elseCmd, c3, n3] = callsCmd(c.elseCmd, arrays, host, c2, n2, depth);
      return [{ kind: 'if', cond, thenCmd, elseCmd, lbl: c.lbl }, c3, n3];
    }
    case 'while': {
      const [cond, c1, n1] = callsExpr(c.cond, arrays, host, clones, n, depth);
      const [body, c2, n2] = callsCmd(c.body, arrays, host, c1, n1, depth);
      return [{ kind: 'while', cond, body, isFor: c.isFor, lbl: c.lbl }, c2, n2];
    }
    case 'soac':
    case 'hfused':
      return [c, clones, n];
    default: {
      const [es, c1, n1] = callsExprs(leafExprs(c), arrays, host, clones, n, depth);
      return [leafWith(c, es, c.lbl), c1, n1];
    }
  }
}

function callsExprs(
  es: List<Expr>,
  arrays: Env,
  host: Fun,
  clones: List<Clone>,
  n: number,
  depth: number,
): [List<Expr>, List<Clone>, number] {
  if (es.kind === 'nil') return [es, clones, n];
  const [head, c1, n1] = callsExpr(es.head, arrays, host, clones, n, depth);
  const [tail, c2, n2] = callsExprs(es.tail, arrays, host, c1, n1, depth);
  return [{ kind: 'cons', head, tail }, c2, n2];
}

function callsExpr(
  e: Expr,
  arrays: Env,
  host: Fun,
  clones: List<Clone>,
  n: number,
  depth: number,
): [Expr, List<Clone>, number] {
  if (!hasCall(e)) return [e, clones, n];
  switch (e.kind) {
    case 'binary': {
      const [left, c1, n1] = callsExpr(e.left, arrays, host, clones, n, depth);
      const [right, c2, n2] = callsExpr(e.right, arrays, host, c1, n1, depth);
      return [{ kind: 'binary', op: e.op, ty: e.ty, left, right, lbl: e.lbl }, c2, n2];
    }
    case 'unary': {
      const [arg, c1, n1] = callsExpr(e.arg, arrays, host, clones, n, depth);
      return [{ kind: 'unary', op: e.op, ty: e.ty, arg, lbl: e.lbl }, c1, n1];
    }
    case 'cast': {
      const [arg, c1, n1] = callsExpr(e.arg, arrays, host, clones, n, depth);
      return [{ kind: 'cast', ty: e.ty, arg, implicit: e.implicit, lbl: e.lbl }, c1, n1];
    }
    case 'load': {
      const [index, c1, n1] = callsExpr(e.index, arrays, host, clones, n, depth);
      return [{ kind: 'load', array: e.array, index, ty: e.ty, lbl: e.lbl }, c1, n1];
    }
    case 'ternary': {
      const [cond, c1, n1] = callsExpr(e.cond, arrays, host, clones, n, depth);
      const [thenExpr, c2, n2] = callsExpr(e.thenExpr, arrays, host, c1, n1, depth);
      const [elseExpr, c3, n3] = callsExpr(e.elseExpr, arrays, host, c2, n2, depth);
      return [{ kind: 'ternary', cond, thenExpr, elseExpr, ty: e.ty, lbl: e.lbl }, c3, n3];
    }
    case 'call':
      return callClone(e, arrays, host, clones, n, depth);
    default:
      return [e, clones, n];
  }
}

/** One call: its arguments first, then a clone of its function when some argument is known. */
function callClone(
  e: Call,
  arrays: Env,
  host: Fun,
  clones: List<Clone>,
  n: number,
  depth: number,
): [Expr, List<Clone>, number] {
  const [args, c1, n1] = callsExprs(e.args, arrays, host, clones, n, depth);
  const found = findFn(host.fns, e.name);
  if (found.kind === 'none') return [{ kind: 'call', name: e.name, args, ty: e.ty, lbl: e.lbl }, c1, n1];
  const vals = callVals(args, arrays);
  if (!anyKnown(vals)) return [{ kind: 'call', name: e.name, args, ty: e.ty, lbl: e.lbl }, c1, n1];
  const h = found.value;
  const [clone, c2, n2] = cloneFor(h, vals, arrays, host, c1, n1, depth);
  return [
    { kind: 'call', name: clone.name, args: keptArgs(h.params, clone.params, args), ty: e.ty, lbl: e.lbl },
    c2,
    n2,
  ];
}

/**
 * The option of a clone's entry environment (`optimizeIn`), beside FINITE_MATH: the function is
 * renumbered whole once optimized (`cloneFor`'s `relabelFun`), which gives every node of it a
 * fresh label whatever label it had, so its unrolled copies are not renumbered round by round
 * (`unroll`). A clone's environments only: `optionsOf` does not carry it on.
 */
const RENUMBERED = '#renumbered';

/** Whether the function being optimized is renumbered whole afterwards (a clone: `RENUMBERED`). */
function renumbered(env: Env): boolean {
  return lookup(env, RENUMBERED).kind === 'const';
}

/** Whether the pass runs under finite math (`optimizeFinite`). */
function finiteMath(env: Env): boolean {
  return lookup(env, FINITE_MATH).kind === 'const';
}

function findClone(cs: List<Clone>, of: string, vals: List<LatticeVal>): Option<Fun> {
  if (cs.kind === 'nil') return none();
  if (cs.head.of === of && sameVals(cs.head.args, vals)) return some(cs.head.fun);
  return findClone(cs.tail, of, vals);
}

function sameVals(a: List<LatticeVal>, b: List<LatticeVal>): boolean {
  if (a.kind === 'nil') return b.kind === 'nil';
  if (b.kind === 'nil') return false;
  return sameVal(a.head, b.head) && sameVals(a.tail, b.tail);
}

/** The parameters a clone keeps: those not known, and known ones its body still names. */
function keptParams(ps: List<Param>, vals: List<LatticeVal>, body: Cmd): List<Param> {
  if (ps.kind === 'nil') return ps;
  const v: LatticeVal = vals.kind === 'cons' ? vals.head : nonConst();
  const rest: List<LatticeVal> = vals.kind === 'cons' ? vals.tail : vals;
  const tail = keptParams(ps.tail, rest, body);
  if (v.kind !== 'nonConst' && !namesIn(body, ps.head.name)) return tail;
  return { kind: 'cons', head: ps.head, tail };
}

/** The arguments for the parameters `kept` keeps of `all` (a subsequence of it, by name). */
function keptArgs(all: List<Param>, kept: List<Param>, es: List<Expr>): List<Expr> {
  if (all.kind === 'nil' || es.kind === 'nil') return es;
  if (kept.kind === 'cons' && kept.head.name === all.head.name)
    return { kind: 'cons', head: es.head, tail: keptArgs(all.tail, kept.tail, es.tail) };
  return keptArgs(all.tail, kept, es.tail);
}

/** `base_k`, or the first `base_j` (j > k) that names no function of `host`'s program nor a clone. */
function freshName(base: string, k: number, host: Fun, clones: List<Clone>): string {
  const name = `${base}_${numToString(k)}`;
  if (name === host.name || findFn(host.fns, name).kind === 'some' || cloneNamed(clones, name))
    return freshName(base, k + 1, host, clones);
  return name;
}

function cloneNamed(cs: List<Clone>, name: string): boolean {
  if (cs.kind === 'nil') return false;
  return cs.head.fun.name === name || cloneNamed(cs.tail, name);
}

/** The clones' functions in the order they were made (`clones` has the last made first). */
function cloneFuns(cs: List<Clone>, acc: List<Fun>): List<Fun> {
  if (cs.kind === 'nil') return acc;
  return cloneFuns(cs.tail, { kind: 'cons', head: cs.head.fun, tail: acc });
}

function appendFuns(a: List<Fun>, b: List<Fun>): List<Fun> {
  if (a.kind === 'nil') return b;
  return { kind: 'cons', head: a.head, tail: appendFuns(a.tail, b) };
}

// ---- loops ---------------------------------------------------------------------------------

/**
 * A loop: completely unrolled when its trip count is known and small, else a fixpoint. A loop whose
 * body contains a combinator is not unrolled: the copies would define the same `dest` array and
 * lambda names more than once (ast.ts: both are unique in a function; printed C would redeclare).
 * Unrolling is first simulated on states alone; the copies are built only when it succeeds.
 */
export function cpWhile(
  c: While,
  st: CpState,
  n: number,
  spent: number,
  names: List<string>,
  build: boolean,
): CpResult {
  // What one round of unrolling costs: the nodes of the body (the labels a copy of it takes).
  const [, cost] = relabelCmd(c.body, 0);
  const [unrolls, unrolled, spentTrying] = hasSoac(c.body)
    ? [false, st, spent]
    : unrollState(c, st, 0, spent, cost, names);
  if (unrolls) {
    if (!build) return [c, unrolled, n, spentTrying];
    // the state and the work after the copies are those the simulation found (the same rules
    // applied to the same states): taking them from the simulation keeps them apart from the
    // built copies, which a partial evaluator may have to approximate
    const [copies, , n1] = unroll(c, st, n, spent, cost, names, { kind: 'nil' });
    return [copies, unrolled, n1, spentTrying];
  }
  const [head, spentFix] = loopFix(c, st, st, spentTrying, names, LOOP_FUEL);
  const [env, cv] = loopCond(c, head.env);
  // while (0) B => skip  (the head state is at most as precise as the entry, so this is rare)
  if (cv.kind === 'const' && cv.value === 0)
    return [{ kind: 'skip', lbl: c.lbl }, reachable(env), n, spentFix];
  // A loop whose condition is constant true only exits through `return`.
  const after: CpState = cv.kind === 'const' ? unreachable(env) : reachable(env);
  if (!build) return [c, after, n, spentFix];
  // The body under the fixpoint: the work of unrolling inside it is not counted (nor is it when
  // not building, where this step does not happen).
  const [body, , n1] = cpCmd(c.body, reachable(env), n, spentFix, names, true);
  const [cond] = cpExpr(c.cond, env);
  return [{ kind: 'while', cond, body, isFor: c.isFor, lbl: c.lbl }, after, n1, spentFix];
}

/** The environment in which the condition is evaluated (passed arrays killed), and its value. */
function loopCond(c: While, env: Env): [Env, LatticeVal] {
  const env1 = killPassed(env, arraysPassed(c.cond, setEmpty()));
  const [, cv] = cpExpr(c.cond, env1);
  return [env1, cv];
}

/**
 * The loop-head state: the greatest fixpoint of head = entry ⊓ body(head) below `entry`, found by
 * iterating from `entry` (states only); after `fuel` rounds, every name the loop may modify becomes
 * nonConst. With the unrolling work spent, which each round adds to (unrolling tried inside).
 */
export function loopFix(
  c: While,
  entry: CpState,
  head: CpState,
  spent: number,
  names: List<string>,
  fuel: number,
): [CpState, number] {
  // what the loop may modify; every other name keeps its entry value in every round
  const mods = setToList(modifiedNames(c, setEmpty()));
  if (fuel <= 0) return [reachable(setNonConst(mods, entry.env)), spent];
  const [env, cv] = loopCond(c, head.env);
  const [out, spent1] =
    cv.kind === 'const' && cv.value === 0
      ? [unreachable(env), spent]
      : stateAfter(c.body, reachable(env), spent, names);
  const next = meetState(mods, entry, out);
  if (sameState(mods, next, head)) return [head, spent1];
  return loopFix(c, entry, next, spent1, names, fuel - 1);
}

/**
 * Complete unrolling simulated on states: whether the loop's condition folds to a constant true
 * in each of at most UNROLL_LIMIT rounds and then to false (or every path through the body
 * returned), and then the state after the loop; false (with the state the simulation stopped
 * at, which no caller reads) when it stops being constant, stays true longer, or a round would
 * take the function's unrolling work past UNROLL_BUDGET. Each round costs `cost`, plus the work of
 * the body's own loops; the work spent comes back in both cases (what was tried counts too).
 * (A flag beside a state, not an `Option` of one: both outcomes then have the same shape, so a
 * partial evaluator keeps the state's environment as a tuple whichever outcome is late.)
 */
export function unrollState(
  c: While,
  st: CpState,
  count: number,
  spent: number,
  cost: number,
  names: List<string>,
): [boolean, CpState, number] {
  if (!st.reach) return [true, st, spent];
  const [env, cv] = loopCond(c, st.env);
  if (cv.kind !== 'const') return [false, st, spent];
  if (cv.value === 0) return [true, reachable(env), spent];
  if (count >= UNROLL_LIMIT || spent + cost > UNROLL_BUDGET) return [false, st, spent];
  const [after, spent1] = stateAfter(c.body, reachable(env), spent + cost, names);
  return unrollState(c, after, count + 1, spent1, cost, names);
}

/**
 * Complete unrolling, once `unrollState` has found that it succeeds (so the condition folds to a
 * constant in every round): each round transforms the body from the state the previous copy left
 * and renumbers the copy with fresh labels. `copies` holds the copies made so far, last first.
 * The work is counted round by round as `unrollState` counts it, so the body's own loops decide as
 * they did there, and the work spent after the loop is the same.
 */
function unroll(
  c: While,
  st: CpState,
  n: number,
  spent: number,
  cost: number,
  names: List<string>,
  copies: List<Cmd>,
): CpResult {
  // Every path through the last copy returned: the copies so far are the whole loop.
  if (!st.reach) return seqCopies(reverseCmds(copies, { kind: 'nil' }), st, n, spent, c.lbl);
  const [env, cv] = loopCond(c, st.env);
  if (cv.kind !== 'const' || cv.value === 0)
    return seqCopies(reverseCmds(copies, { kind: 'nil' }), reachable(env), n, spent, c.lbl);
  const [body, st1, n1, spent1] = cpCmd(c.body, reachable(env), n, spent + cost, names, true);
  // a clone is renumbered whole afterwards: its copies keep the labels of the rewrite until then
  if (renumbered(env))
    return unroll(c, st1, n1, spent1, cost, names, { kind: 'cons', head: body, tail: copies });
  const [copy, n2] = relabelCmd(body, n1);
  return unroll(c, st1, n2, spent1, cost, names, { kind: 'cons', head: copy, tail: copies });
}

/** The copies in order as one right-nested seq (fresh labels); `skip` labelled `lbl` when empty. */
function seqCopies(cs: List<Cmd>, st: CpState, n: number, spent: number, lbl: number): CpResult {
  if (cs.kind === 'nil') return [{ kind: 'skip', lbl }, st, n, spent];
  const [rest, , n1] = seqCopies(cs.tail, st, n, spent, lbl);
  if (cs.head.kind === 'skip') return [rest, st, n1, spent];
  if (rest.kind === 'skip') return [cs.head, st, n1, spent];
  return [mkSeq(cs.head, rest, n1), st, n1 + 1, spent];
}

// ---- expressions ---------------------------------------------------------------------------

/** The rewritten expression and its lattice value (const or nonConst). */
export function cpExpr(e: Expr, env: Env): [Expr, LatticeVal] {
  switch (e.kind) {
    case 'var': {
      const v = lookup(env, e.name);
      // x => 3 when x is known to hold 3
      if (v.kind === 'const') return [literal(v.value, e.ty, e.lbl), v];
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
      const arr = lookup(env, e.array);
      // k[1] => 2.0f when k is known to be {1.0f, 2.0f, 1.0f}
      if (arr.kind === 'constArray' && iv.kind === 'const' && iv.value >= 0) {
        const from = dropNumbers(arr.elems, iv.value);
        if (from.kind === 'cons') return [literal(from.head, e.ty, e.lbl), mkConst(from.head, e.ty)];
      }
      return [rebuilt, nonConst()];
    }
    case 'call': {
      const args = cpExprs(e.args, env);
      const rebuilt: Expr = { kind: 'call', name: e.name, args, ty: e.ty, lbl: e.lbl };
      // sqrtf(4.0f) => 2.0f; expf(1.0f) => 2.7182817f under finite math only
      if (isBuiltin(e.name) && (foldsExactly(e.name) || finiteMath(env)))
        return finish(rebuilt, foldBuiltin(e.name, args), e.ty);
      return [rebuilt, nonConst()];
    }
    case 'ternary': {
      const [cond, cv] = cpExpr(e.cond, env);
      // 1 ? a : b => a
      if (cv.kind === 'const') {
        if (cv.value !== 0) return cpExpr(e.thenExpr, env);
        return cpExpr(e.elseExpr, env);
      }
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

/** A constant +0 or -0 (finite math does not tell them apart). */
function isZero(v: LatticeVal): boolean {
  return v.kind === 'const' && v.value === 0;
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
      // finite math: x * 0.0f => 0.0f, 0.0f * x => 0.0f (x calls nothing, so nothing is lost)
      if (finiteMath(env) && isZero(rv) && !hasCall(l))
        return [literal(0, 'float', lbl), mkConst(0, 'float')];
      if (finiteMath(env) && isZero(lv) && !hasCall(r))
        return [literal(0, 'float', lbl), mkConst(0, 'float')];
    }
    if (op === '+' && finiteMath(env)) {
      if (isZero(rv)) return [l, lv]; // finite math: x + 0.0f => x
      if (isZero(lv)) return [r, rv]; // finite math: 0.0f + x => x
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

/** A builtin's call on literal arguments, as the reference evaluator computes it (`cmath`). */
export function foldBuiltin(name: string, args: List<Expr>): Option<number> {
  if (args.kind === 'nil') return none();
  const x = literalNumber(args.head);
  if (x.kind === 'none') return none();
  if (args.tail.kind === 'nil') return some(cmath(name, x.value, 0));
  const y = literalNumber(args.tail.head);
  if (y.kind === 'none' || args.tail.tail.kind !== 'nil') return none();
  return some(cmath(name, x.value, y.value));
}

/** A literal's value (a Boolean's 0 or 1). */
function literalNumber(e: Expr): Option<number> {
  switch (e.kind) {
    case 'intLit':
    case 'floatLit':
      return some(e.value);
    case 'boolLit':
      return some(e.value ? 1 : 0);
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
