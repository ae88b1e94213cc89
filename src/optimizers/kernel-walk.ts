/**
 * Helpers over the kernel AST shared by the demo compiler's optimizers, written in SCF-lang
 * (checked by `scf check`, so that each optimizer importing them stays in the subset).
 *
 * (`exprType` and `hasCall` — calls may store into arrays, so an expression containing one is
 * never dropped — live in src/kernel/expr-info.ts, shared with the kernel's own tools.)
 * - `arraysPassed` / `modifiedNames`: the arrays a command's calls may modify and the names a
 *   command may assign, used to give up precision safely when a fixpoint runs out of fuel;
 * - `mkSeq`: the smart `seq` constructor that drops `skip`s (the AST invariant: no `skip` elements
 *   inside statement lists); `appendSeq` and `seqOf` build statement lists right-nested as the
 *   parser does, splicing the lists they are given and dropping their `skip`s;
 * - `maxLabelFun`/`freshLabel` and `relabelCmd`: fresh labels. Unrolling duplicates a loop body;
 *   every copy is renumbered from a threaded counter that starts above the input's largest label
 *   (`freshLabel`), so labels stay unique in the output (the AST invariant every optimizer keeps).
 *   Both cover every node of a combinator (`soac`, `hfused`): its arguments, atoms and lambdas with
 *   their parameters and bindings. `countNodes` counts a command's nodes the same way, through
 *   `relabelCmd` (the number of labels it hands out), for measuring what a pass does;
 * - `hasSoac`: whether a command contains a combinator.
 *
 * Leaf commands (the kinds ast.ts tags `@leaf`: `return`, `skip`, calls) go through each walk's
 * `default` case by their expressions
 * (`leafExprs`/`leafWith` of leaf.generated.ts, generated from ast.ts), so a new leaf kind needs no
 * case here or in the passes.
 *
 * Combinators (ast.ts): a `soac` assigns exactly its `dest` (a scalar for reduce/redomap, a fresh
 * array otherwise). Its lambdas are closed and may not write arrays (array parameters of the
 * functions given to combinators are `const`, which the parser checks), so a combinator modifies
 * no other variable or array, and its atoms (`var` or literals) pass no array to any call.
 *
 * Everything here is a pure function of its arguments; nothing is mutated.
 */
import { type List, max, type Option, type PSet, setAdd } from 'scf/prelude';
import type { Bind, Cmd, Decl, Expr, Fun, Lam, Param, Soac, SoacArg } from '../kernel/ast.js';
import { type LeafCmd, leafExprs, leafWith } from './leaf.generated.js';

/** Adds to `acc` the arrays passed by reference (`arrayRef`) to calls inside `e`. */
export function arraysPassed(e: Expr, acc: PSet<string>): PSet<string> {
  switch (e.kind) {
    case 'arrayRef':
      return setAdd(acc, e.name);
    case 'call':
      return arraysPassedList(e.args, acc);
    case 'binary':
      return arraysPassed(e.right, arraysPassed(e.left, acc));
    case 'unary':
    case 'cast':
      return arraysPassed(e.arg, acc);
    case 'load':
      return arraysPassed(e.index, acc);
    case 'ternary':
      return arraysPassed(e.elseExpr, arraysPassed(e.thenExpr, arraysPassed(e.cond, acc)));
    case 'var':
    case 'intLit':
    case 'floatLit':
    case 'boolLit':
      return acc;
  }
}

/** Adds to `acc` the arrays passed by reference to calls inside the expressions of `es`. */
export function arraysPassedList(es: List<Expr>, acc: PSet<string>): PSet<string> {
  switch (es.kind) {
    case 'nil':
      return acc;
    case 'cons':
      return arraysPassedList(es.tail, arraysPassed(es.head, acc));
  }
}

/** Adds to `acc` every scalar `c` may assign and every array it may store into (or pass to a call). */
export function modifiedNames(c: Cmd, acc: PSet<string>): PSet<string> {
  switch (c.kind) {
    case 'assign':
      return arraysPassed(c.rhs, setAdd(acc, c.name));
    case 'store':
      return arraysPassed(c.rhs, arraysPassed(c.index, setAdd(acc, c.array)));
    case 'seq':
      return modifiedNames(c.second, modifiedNames(c.first, acc));
    case 'if':
      return modifiedNames(c.elseCmd, modifiedNames(c.thenCmd, arraysPassed(c.cond, acc)));
    case 'while':
      return modifiedNames(c.body, arraysPassed(c.cond, acc));
    case 'soac':
      return setAdd(acc, c.dest);
    case 'hfused':
      return soacDests(c.members, acc);
    default: {
      // (a leaf without expressions: no walk over an empty list)
      const es = leafExprs(c);
      return es.kind === 'nil' ? acc : arraysPassedList(es, acc);
    }
  }
}

/** Adds the destination of every combinator of `ss`. */
export function soacDests(ss: List<Soac>, acc: PSet<string>): PSet<string> {
  switch (ss.kind) {
    case 'nil':
      return acc;
    case 'cons':
      return soacDests(ss.tail, setAdd(acc, ss.head.dest));
  }
}

/** Whether `c` contains a combinator (`soac` or `hfused`). */
export function hasSoac(c: Cmd): boolean {
  switch (c.kind) {
    case 'seq':
      return hasSoac(c.first) || hasSoac(c.second);
    case 'if':
      return hasSoac(c.thenCmd) || hasSoac(c.elseCmd);
    case 'while':
      return hasSoac(c.body);
    case 'soac':
    case 'hfused':
      return true;
    case 'assign':
    case 'store':
      return false;
    default:
      return leafHasSoac(c);
  }
}

/** A leaf holds no combinator (typed, so that a kind that is no leaf needs a case in `hasSoac`). */
function leafHasSoac(_c: LeafCmd): boolean {
  return false;
}

/** Whether a combinator's result is a scalar (reduce/redomap) rather than a fresh array. */
export function isScalarSoac(s: Soac): boolean {
  return s.op === 'reduce' || s.op === 'redomap';
}

/** `first; second` without `skip`s: `skip; c` => `c`, `c; skip` => `c`. Reuses `lbl` for the seq. */
export function mkSeq(first: Cmd, second: Cmd, lbl: number): Cmd {
  if (first.kind === 'skip') return second;
  if (second.kind === 'skip') return first;
  return { kind: 'seq', first, second, lbl };
}

/** `xs` reversed, followed by `acc`. */
export function reverseCmds(xs: List<Cmd>, acc: List<Cmd>): List<Cmd> {
  switch (xs.kind) {
    case 'nil':
      return acc;
    case 'cons':
      return reverseCmds(xs.tail, { kind: 'cons', head: xs.head, tail: acc });
  }
}

/**
 * The statement list of `first`'s commands followed by `second`: `first`'s `seq` chain is spliced in
 * (left-nested parts too) and its `skip`s dropped, `second` is kept as it is (a `skip` dropped), so
 * the result is right-nested and free of `skip`s when `second` is. The `seq`s it builds are labelled
 * `n`, `n+1`, …; returns the list and the next free label.
 */
export function appendSeq(first: Cmd, second: Cmd, n: number): [Cmd, number] {
  switch (first.kind) {
    case 'skip':
      return [second, n];
    case 'seq': {
      const [rest, n1] = appendSeq(first.second, second, n);
      return appendSeq(first.first, rest, n1);
    }
    default:
      return second.kind === 'skip' ? [first, n] : [{ kind: 'seq', first, second, lbl: n }, n + 1];
  }
}

/**
 * The commands of `cs`, in order, as one right-nested statement list without `skip`s (`appendSeq`
 * of each onto the rest; a `skip` labelled `n` when nothing is left). The nodes it builds are
 * labelled `n`, `n+1`, …; returns the list and the next free label.
 */
export function seqOf(cs: List<Cmd>, n: number): [Cmd, number] {
  switch (cs.kind) {
    case 'nil':
      return [{ kind: 'skip', lbl: n }, n + 1];
    case 'cons': {
      const [rest, n1] = seqOf(cs.tail, n);
      return appendSeq(cs.head, rest, n1);
    }
  }
}

// ---- labels -----------------------------------------------------------------------------------

/** The largest label anywhere in `f`, its callees (`fns`) included (fresh labels start above it). */
export function maxLabelFun(f: Fun): number {
  const own = max(
    f.lbl,
    max(maxLabelParams(f.params, 0), max(maxLabelDecls(f.locals, 0), maxLabelCmd(f.body))),
  );
  return max(own, maxLabelFuns(f.fns, 0));
}

/** The first free label of `f`: the labels a pass adds to `f` start here (`maxLabelFun(f) + 1`). */
export function freshLabel(f: Fun): number {
  return maxLabelFun(f) + 1;
}

/**
 * The nodes of `c`: every labelled one (commands, expressions, and a combinator's lambdas with
 * their parameters and bindings, its arguments and atoms), as `relabelCmd` numbers them.
 */
export function countNodes(c: Cmd): number {
  const [, n] = relabelCmd(c, 0);
  return n;
}

function maxLabelFuns(fs: List<Fun>, acc: number): number {
  switch (fs.kind) {
    case 'nil':
      return acc;
    case 'cons':
      return maxLabelFuns(fs.tail, max(acc, maxLabelFun(fs.head)));
  }
}

function maxLabelParams(ps: List<Param>, acc: number): number {
  switch (ps.kind) {
    case 'nil':
      return acc;
    case 'cons':
      return maxLabelParams(ps.tail, max(acc, ps.head.lbl));
  }
}

function maxLabelDecls(ds: List<Decl>, acc: number): number {
  switch (ds.kind) {
    case 'nil':
      return acc;
    case 'cons':
      return maxLabelDecls(ds.tail, max(acc, ds.head.lbl));
  }
}

/** The largest label anywhere in `c`, combinators' lambdas included. */
export function maxLabelCmd(c: Cmd): number {
  switch (c.kind) {
    case 'assign':
      return max(c.lbl, maxLabelExpr(c.rhs));
    case 'store':
      return max(c.lbl, max(maxLabelExpr(c.index), maxLabelExpr(c.rhs)));
    case 'seq':
      return max(c.lbl, max(maxLabelCmd(c.first), maxLabelCmd(c.second)));
    case 'if':
      return max(c.lbl, max(maxLabelExpr(c.cond), max(maxLabelCmd(c.thenCmd), maxLabelCmd(c.elseCmd))));
    case 'while':
      return max(c.lbl, max(maxLabelExpr(c.cond), maxLabelCmd(c.body)));
    case 'soac':
      return maxLabelSoac(c);
    case 'hfused':
      return max(c.lbl, maxLabelSoacs(c.members, 0));
    default:
      return max(c.lbl, maxLabelExprs(leafExprs(c), 0));
  }
}

function maxLabelSoac(s: Soac): number {
  const inner = max(maxLabelOptLam(s.comb), max(maxLabelOptExpr(s.ne), maxLabelArgs(s.args, 0)));
  return max(s.lbl, max(maxLabelLam(s.fn), inner));
}

function maxLabelSoacs(ss: List<Soac>, acc: number): number {
  switch (ss.kind) {
    case 'nil':
      return acc;
    case 'cons':
      return maxLabelSoacs(ss.tail, max(acc, maxLabelSoac(ss.head)));
  }
}

function maxLabelLam(l: Lam): number {
  return max(l.lbl, max(maxLabelParams(l.params, 0), max(maxLabelBinds(l.binds, 0), maxLabelExpr(l.result))));
}

function maxLabelOptLam(o: Option<Lam>): number {
  return o.kind === 'some' ? maxLabelLam(o.value) : 0;
}

function maxLabelOptExpr(o: Option<Expr>): number {
  return o.kind === 'some' ? maxLabelExpr(o.value) : 0;
}

function maxLabelBinds(bs: List<Bind>, acc: number): number {
  switch (bs.kind) {
    case 'nil':
      return acc;
    case 'cons':
      return maxLabelBinds(bs.tail, max(acc, max(bs.head.lbl, maxLabelExpr(bs.head.rhs))));
  }
}

function maxLabelArgs(xs: List<SoacArg>, acc: number): number {
  switch (xs.kind) {
    case 'nil':
      return acc;
    case 'cons':
      return maxLabelArgs(xs.tail, max(acc, maxLabelArg(xs.head)));
  }
}

function maxLabelArg(a: SoacArg): number {
  switch (a.kind) {
    case 'argArray':
      return a.lbl;
    case 'argIota':
      return max(a.lbl, maxLabelExpr(a.len));
    case 'argScalar':
      return max(a.lbl, maxLabelExpr(a.value));
  }
}

/** The largest label anywhere in `e`. */
export function maxLabelExpr(e: Expr): number {
  switch (e.kind) {
    case 'binary':
      return max(e.lbl, max(maxLabelExpr(e.left), maxLabelExpr(e.right)));
    case 'unary':
    case 'cast':
      return max(e.lbl, maxLabelExpr(e.arg));
    case 'load':
      return max(e.lbl, maxLabelExpr(e.index));
    case 'call':
      return max(e.lbl, maxLabelExprs(e.args, 0));
    case 'ternary':
      return max(e.lbl, max(maxLabelExpr(e.cond), max(maxLabelExpr(e.thenExpr), maxLabelExpr(e.elseExpr))));
    case 'var':
    case 'intLit':
    case 'floatLit':
    case 'boolLit':
    case 'arrayRef':
      return e.lbl;
  }
}

function maxLabelExprs(es: List<Expr>, acc: number): number {
  switch (es.kind) {
    case 'nil':
      return acc;
    case 'cons':
      return maxLabelExprs(es.tail, max(acc, maxLabelExpr(es.head)));
  }
}

/** A copy of `c` whose labels are renumbered n, n+1, … (pre-order); returns the next free label. */
export function relabelCmd(c: Cmd, n: number): [Cmd, number] {
  switch (c.kind) {
    case 'assign': {
      const [rhs, n1] = relabelExpr(c.rhs, n + 1);
      return [{ kind: 'assign', name: c.name, rhs, lbl: n }, n1];
    }
    case 'store': {
      const [index, n1] = relabelExpr(c.index, n + 1);
      const [rhs, n2] = relabelExpr(c.rhs, n1);
      return [{ kind: 'store', array: c.array, index, rhs, lbl: n }, n2];
    }
    case 'seq': {
      const [first, n1] = relabelCmd(c.first, n + 1);
      const [second, n2] = relabelCmd(c.second, n1);
      return [{ kind: 'seq', first, second, lbl: n }, n2];
    }
    case 'if': {
      const [cond, n1] = relabelExpr(c.cond, n + 1);
      const [thenCmd, n2] = relabelCmd(c.thenCmd, n1);
      const [elseCmd, n3] = relabelCmd(c.elseCmd, n2);
      return [{ kind: 'if', cond, thenCmd, elseCmd, lbl: n }, n3];
    }
    case 'while': {
      const [cond, n1] = relabelExpr(c.cond, n + 1);
      const [body, n2] = relabelCmd(c.body, n1);
      return [{ kind: 'while', cond, body, isFor: c.isFor, lbl: n }, n2];
    }
    case 'soac':
      return relabelSoac(c, n);
    case 'hfused': {
      const [members, n1] = relabelSoacs(c.members, n + 1);
      return [{ kind: 'hfused', members, lbl: n }, n1];
    }
    default: {
      // (a leaf without expressions: no walk over an empty list)
      const es = leafExprs(c);
      if (es.kind === 'nil') return [leafWith(c, es, n), n + 1];
      const [out, n1] = relabelExprs(es, n + 1);
      return [leafWith(c, out, n), n1];
    }
  }
}

/** A copy of combinator `s` relabelled from `n` (pre-order: fn, comb, ne, args); the next free label. */
export function relabelSoac(s: Soac, n: number): [Soac, number] {
  const [fn, n1] = relabelLam(s.fn, n + 1);
  const [comb, n2] = relabelOptLam(s.comb, n1);
  const [ne, n3] = relabelOptExpr(s.ne, n2);
  const [args, n4] = relabelArgs(s.args, n3);
  return [{ kind: 'soac', op: s.op, dest: s.dest, ty: s.ty, fn, comb, ne, args, lbl: n }, n4];
}

function relabelSoacs(ss: List<Soac>, n: number): [List<Soac>, number] {
  switch (ss.kind) {
    case 'nil':
      return [ss, n];
    case 'cons': {
      const [head, n1] = relabelSoac(ss.head, n);
      const [tail, n2] = relabelSoacs(ss.tail, n1);
      return [{ kind: 'cons', head, tail }, n2];
    }
  }
}

/** A copy of lambda `l` relabelled from `n` (pre-order); the next free label. */
export function relabelLam(l: Lam, n: number): [Lam, number] {
  const [params, n1] = relabelParams(l.params, n + 1);
  const [binds, n2] = relabelBinds(l.binds, n1);
  const [result, n3] = relabelExpr(l.result, n2);
  return [{ kind: 'lam', params, binds, result, ret: l.ret, lbl: n }, n3];
}

function relabelOptLam(o: Option<Lam>, n: number): [Option<Lam>, number] {
  if (o.kind === 'none') return [o, n];
  const [value, n1] = relabelLam(o.value, n);
  return [{ kind: 'some', value }, n1];
}

function relabelOptExpr(o: Option<Expr>, n: number): [Option<Expr>, number] {
  if (o.kind === 'none') return [o, n];
  const [value, n1] = relabelExpr(o.value, n);
  return [{ kind: 'some', value }, n1];
}

function relabelParams(ps: List<Param>, n: number): [List<Param>, number] {
  switch (ps.kind) {
    case 'nil':
      return [ps, n];
    case 'cons': {
      const p = ps.head;
      const head: Param = {
        kind: 'param',
        name: p.name,
        ty: p.ty,
        isArray: p.isArray,
        isConst: p.isConst,
        lbl: n,
      };
      const [tail, n1] = relabelParams(ps.tail, n + 1);
      return [{ kind: 'cons', head, tail }, n1];
    }
  }
}

function relabelBinds(bs: List<Bind>, n: number): [List<Bind>, number] {
  switch (bs.kind) {
    case 'nil':
      return [bs, n];
    case 'cons': {
      const b = bs.head;
      const [rhs, n1] = relabelExpr(b.rhs, n + 1);
      const [tail, n2] = relabelBinds(bs.tail, n1);
      return [{ kind: 'cons', head: { kind: 'bind', name: b.name, ty: b.ty, rhs, lbl: n }, tail }, n2];
    }
  }
}

function relabelArgs(xs: List<SoacArg>, n: number): [List<SoacArg>, number] {
  switch (xs.kind) {
    case 'nil':
      return [xs, n];
    case 'cons': {
      const [head, n1] = relabelArg(xs.head, n);
      const [tail, n2] = relabelArgs(xs.tail, n1);
      return [{ kind: 'cons', head, tail }, n2];
    }
  }
}

function relabelArg(a: SoacArg, n: number): [SoacArg, number] {
  switch (a.kind) {
    case 'argArray':
      return [{ kind: 'argArray', name: a.name, ty: a.ty, lbl: n }, n + 1];
    case 'argIota': {
      const [len, n1] = relabelExpr(a.len, n + 1);
      return [{ kind: 'argIota', len, lbl: n }, n1];
    }
    case 'argScalar': {
      const [value, n1] = relabelExpr(a.value, n + 1);
      return [{ kind: 'argScalar', value, lbl: n }, n1];
    }
  }
}

/** A copy of `e` whose labels are renumbered n, n+1, … (pre-order); returns the next free label. */
export function relabelExpr(e: Expr, n: number): [Expr, number] {
  switch (e.kind) {
    case 'var':
      return [{ kind: 'var', name: e.name, ty: e.ty, lbl: n }, n + 1];
    case 'intLit':
      return [{ kind: 'intLit', value: e.value, lbl: n }, n + 1];
    case 'floatLit':
      return [{ kind: 'floatLit', value: e.value, lbl: n }, n + 1];
    case 'boolLit':
      return [{ kind: 'boolLit', value: e.value, lbl: n }, n + 1];
    case 'arrayRef':
      return [{ kind: 'arrayRef', name: e.name, ty: e.ty, lbl: n }, n + 1];
    case 'binary': {
      const [left, n1] = relabelExpr(e.left, n + 1);
      const [right, n2] = relabelExpr(e.right, n1);
      return [{ kind: 'binary', op: e.op, ty: e.ty, left, right, lbl: n }, n2];
    }
    case 'unary': {
      const [arg, n1] = relabelExpr(e.arg, n + 1);
      return [{ kind: 'unary', op: e.op, ty: e.ty, arg, lbl: n }, n1];
    }
    case 'cast': {
      const [arg, n1] = relabelExpr(e.arg, n + 1);
      return [{ kind: 'cast', ty: e.ty, arg, implicit: e.implicit, lbl: n }, n1];
    }
    case 'load': {
      const [index, n1] = relabelExpr(e.index, n + 1);
      return [{ kind: 'load', array: e.array, index, ty: e.ty, lbl: n }, n1];
    }
    case 'call': {
      const [args, n1] = relabelExprs(e.args, n + 1);
      return [{ kind: 'call', name: e.name, args, ty: e.ty, lbl: n }, n1];
    }
    case 'ternary': {
      const [cond, n1] = relabelExpr(e.cond, n + 1);
      const [thenExpr, n2] = relabelExpr(e.thenExpr, n1);
      const [elseExpr, n3] = relabelExpr(e.elseExpr, n2);
      return [{ kind: 'ternary', cond, thenExpr, elseExpr, ty: e.ty, lbl: n }, n3];
    }
  }
}

/** A copy of the expressions of `es`, relabelled from `n` in order; returns the next free label. */
export function relabelExprs(es: List<Expr>, n: number): [List<Expr>, number] {
  switch (es.kind) {
    case 'nil':
      return [es, n];
    case 'cons': {
      const [head, n1] = relabelExpr(es.head, n);
      const [tail, n2] = relabelExprs(es.tail, n1);
      return [{ kind: 'cons', head, tail }, n2];
    }
  }
}

/**
 * A copy of `f` whose own labels (parameters, locals, body; `fns` is kept as it is) are renumbered
 * from `n`; returns the next free label.
 */
export function relabelFun(f: Fun, n: number): [Fun, number] {
  const [params, n1] = relabelParams(f.params, n + 1);
  const [locals, n2] = relabelDecls(f.locals, n1);
  const [body, n3] = relabelCmd(f.body, n2);
  return [{ kind: 'fun', name: f.name, ret: f.ret, params, locals, body, fns: f.fns, lbl: n }, n3];
}

function relabelDecls(ds: List<Decl>, n: number): [List<Decl>, number] {
  switch (ds.kind) {
    case 'nil':
      return [ds, n];
    case 'cons': {
      const d = ds.head;
      const head: Decl = { kind: 'decl', name: d.name, ty: d.ty, size: d.size, lbl: n };
      const [tail, n1] = relabelDecls(ds.tail, n + 1);
      return [{ kind: 'cons', head, tail }, n1];
    }
  }
}

// ---- names ------------------------------------------------------------------------------------

/** Whether `c` names `x` anywhere: reads or writes it as a scalar, an array or a combinator's operand. */
export function namesIn(c: Cmd, x: string): boolean {
  switch (c.kind) {
    case 'assign':
      return c.name === x || exprNames(c.rhs, x);
    case 'store':
      return c.array === x || exprNames(c.index, x) || exprNames(c.rhs, x);
    case 'seq':
      return namesIn(c.first, x) || namesIn(c.second, x);
    case 'if':
      return exprNames(c.cond, x) || namesIn(c.thenCmd, x) || namesIn(c.elseCmd, x);
    case 'while':
      return exprNames(c.cond, x) || namesIn(c.body, x);
    case 'soac':
      return soacNames(c, x);
    case 'hfused':
      return soacsNames(c.members, x);
    default:
      return exprsNames(leafExprs(c), x);
  }
}

function soacNames(s: Soac, x: string): boolean {
  if (s.dest === x || argsNames(s.args, x)) return true;
  return s.ne.kind === 'some' && exprNames(s.ne.value, x);
}

function soacsNames(ss: List<Soac>, x: string): boolean {
  if (ss.kind === 'nil') return false;
  return soacNames(ss.head, x) || soacsNames(ss.tail, x);
}

function argsNames(as: List<SoacArg>, x: string): boolean {
  if (as.kind === 'nil') return false;
  const a = as.head;
  const here =
    a.kind === 'argArray' ? a.name === x : a.kind === 'argIota' ? exprNames(a.len, x) : exprNames(a.value, x);
  return here || argsNames(as.tail, x);
}

/** Whether `e` names `x` (a variable, a loaded or passed array). */
export function exprNames(e: Expr, x: string): boolean {
  switch (e.kind) {
    case 'var':
    case 'arrayRef':
      return e.name === x;
    case 'intLit':
    case 'floatLit':
    case 'boolLit':
      return false;
    case 'binary':
      return exprNames(e.left, x) || exprNames(e.right, x);
    case 'unary':
    case 'cast':
      return exprNames(e.arg, x);
    case 'load':
      return e.array === x || exprNames(e.index, x);
    case 'call':
      return exprsNames(e.args, x);
    case 'ternary':
      return exprNames(e.cond, x) || exprNames(e.thenExpr, x) || exprNames(e.elseExpr, x);
  }
}

function exprsNames(es: List<Expr>, x: string): boolean {
  if (es.kind === 'nil') return false;
  return exprNames(es.head, x) || exprsNames(es.tail, x);
}
