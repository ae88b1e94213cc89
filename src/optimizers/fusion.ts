/**
 * Loop fusion of data-parallel combinators, in SCF-lang (L0 thesis ch. 7, with the corrections of
 * ../shared/papers/README.md; horizontal fusion after Delite's loop rules).
 *
 * Algorithm. Every statement list (a seq chain, at any nesting depth) is processed bottom-up, as
 * L0's gathering phase reduces a let-chain (§7.4): the rest of the list is fused first, then the
 * head, when it is a producer (map, filter, or iota = map of the identity), looks for the first
 * combinator of the *same list* that takes its result as a mapped input. It is fused into that
 * consumer when L0's four conditions hold, here:
 *  1./2. there is such a consumer and the composition rule exists for the pair (below);
 *  3.  no other use: the producer's array is used nowhere in the function but as mapped inputs of
 *      that one consumer, or of one consumer in each branch of the `if` that first uses it (L0's
 *      conditional rule: only one branch runs). Uses are counted once over the whole function: a
 *      use inside a loop, elsewhere in a branch, by indexing, as a whole (broadcast) argument, in a return, or by a second consumer
 *      keeps it apart — fusing would duplicate work or need the array). Inputs with consumers
 *      outside the fused set stay unfusible (README's "gathering gap");
 *  4.  nothing between producer and consumer assigns a scalar or writes an array the producer
 *      reads (L0's "consumed" set): its computation moves down to the consumer.
 * Composition rules (producer → consumer ⇒ result):
 *  - iota → any: the consumer's mapped slots of the array become the iota argument itself;
 *  - map → map ⇒ map; map → reduce/redomap ⇒ redomap; map → scan/scanomap ⇒ scanomap: the fused
 *    lambda takes the producer's arguments, binds the consumer's (first) slot parameter to the
 *    producer's result and any further slot parameters to that one, then runs the consumer's body. A reduce/scan operator ⊕ becomes the
 *    redomap/scanomap combine operator *unchanged*; the fused fold g(acc, x…) = acc ⊕ f(x…) is
 *    never used to combine (it is not associative; README's first error);
 *  - filter → filter ⇒ filter (p1 && p2); filter → reduce/redomap ⇒ redomap (g' = p(x) ? g(acc, x)
 *    : acc), only when every mapped input of the consumer is the filter's result. The consumer's
 *    bindings are guarded by the predicate (`keep ? e : 0`), so nothing is evaluated on elements
 *    the filter drops;
 *  - anything else (filter → map/scan, map → filter, scan/reduce as producers) is not fused.
 * Then duplicate mapped inputs of each combinator are merged (L0's "remove duplicate input
 * arrays": `map(g, iota(n), iota(n))` becomes `map(g', iota(n))`), and every list is scanned for
 * horizontal fusion: adjacent combinators over the same length
 * (their first mapped inputs are the same array, or iotas of the same atom), the later not reading
 * the earlier's result nor writing its destination, both maps or both reductions (reduce/redomap),
 * are grouped into one `hfused` loop.
 *
 * Invariants. Fusion never changes the result of a run that does not fail: each fused lambda
 * performs, per element, the operations the separate combinators performed, in the same order, on
 * the same values (inputs are unchanged between the two points by condition 4). A run that fails
 * (undefined behaviour, length mismatch) may fail elsewhere or, when an early return skipped the
 * consumer, not at all. Bindings reuse the consumer's parameter names; the only new names are
 * `keep_e<label>` (never `_digits`, the parser's lambda suffix), with fresh labels above the
 * function's largest, so names and labels stay unique.
 * A `comb` lambda may share names with its `fn` (it is the consumer's operator, copied; it is
 * never composed further).
 */
import {
  type List,
  mapFind,
  mapInsert,
  mapEmpty,
  type Option,
  type PMap,
  type PSet,
  setEmpty,
  setHas,
} from 'scf/prelude';
import type {
  Assign,
  Bind,
  Cmd,
  Expr,
  Fun,
  Hfused,
  If,
  Lam,
  Param,
  Soac,
  SoacArg,
  Store,
} from '../kernel/ast.js';
import { arraysPassed, maxLabelFun, mkSeq, modifiedNames, relabelLam, relabelSoac } from './kernel-walk.js';
import { type LeafCmd, leafExprs } from './leaf.generated.js';

/** How often each array name is used in the function, outside lambdas. */
export type Uses = PMap<string, number>;

export function optimize(f: Fun): Fun {
  const uses = usesCmd(f.body, mapEmpty());
  const [fused, n] = fuseCmd(f.body, uses, maxLabelFun(f) + 1);
  const [body] = horizontalCmd(fused, n);
  return { ...f, body };
}

// ---- uses ---------------------------------------------------------------------------------------

function bump(uses: Uses, name: string): Uses {
  const n = mapFind(uses, name);
  return mapInsert(uses, name, n.kind === 'some' ? n.value + 1 : 1);
}

function useCount(uses: Uses, name: string): number {
  const n = mapFind(uses, name);
  return n.kind === 'some' ? n.value : 0;
}

export function usesCmd(c: Cmd, acc: Uses): Uses {
  switch (c.kind) {
    case 'assign':
      return usesExpr(c.rhs, acc);
    case 'store':
      return usesExpr(c.rhs, usesExpr(c.index, bump(acc, c.array)));
    case 'seq':
      return usesCmd(c.second, usesCmd(c.first, acc));
    case 'if':
      return usesCmd(c.elseCmd, usesCmd(c.thenCmd, usesExpr(c.cond, acc)));
    case 'while':
      return usesCmd(c.body, usesExpr(c.cond, acc));
    case 'soac':
      return usesSoac(c, acc);
    case 'hfused':
      return usesSoacs(c.members, acc);
    default: {
      const es = leafExprs(c);
      return es.kind === 'nil' ? acc : usesExprs(es, acc);
    }
  }
}

function usesSoacs(ss: List<Soac>, acc: Uses): Uses {
  if (ss.kind === 'nil') return acc;
  return usesSoacs(ss.tail, usesSoac(ss.head, acc));
}

function usesSoac(s: Soac, acc: Uses): Uses {
  return usesArgs(s.args, s.ne.kind === 'some' ? usesExpr(s.ne.value, acc) : acc);
}

function usesArgs(as: List<SoacArg>, acc: Uses): Uses {
  if (as.kind === 'nil') return acc;
  const a = as.head;
  switch (a.kind) {
    case 'argArray':
      return usesArgs(as.tail, bump(acc, a.name));
    case 'argIota':
      return usesArgs(as.tail, usesExpr(a.len, acc));
    case 'argScalar':
      return usesArgs(as.tail, usesExpr(a.value, acc));
  }
}

export function usesExpr(e: Expr, acc: Uses): Uses {
  switch (e.kind) {
    case 'load':
      return usesExpr(e.index, bump(acc, e.array));
    case 'arrayRef':
      return bump(acc, e.name);
    case 'call':
      return usesExprs(e.args, acc);
    case 'binary':
      return usesExpr(e.right, usesExpr(e.left, acc));
    case 'unary':
    case 'cast':
      return usesExpr(e.arg, acc);
    case 'ternary':
      return usesExpr(e.elseExpr, usesExpr(e.thenExpr, usesExpr(e.cond, acc)));
    case 'var':
    case 'intLit':
    case 'floatLit':
    case 'boolLit':
      return acc;
  }
}

function usesExprs(es: List<Expr>, acc: Uses): Uses {
  if (es.kind === 'nil') return acc;
  return usesExprs(es.tail, usesExpr(es.head, acc));
}

// ---- vertical fusion (producer into consumer) -----------------------------------------------------

/** `c` with its statement lists fused, and the next fresh label. */
function fuseCmd(c: Cmd, uses: Uses, n: number): [Cmd, number] {
  switch (c.kind) {
    case 'seq': {
      const [cs, n1] = fuseList(flatten(c, { kind: 'nil' }), uses, n);
      return [seqOf(cs, seqLabels(c, { kind: 'nil' }), c.lbl), n1];
    }
    case 'if': {
      const [t, n1] = fuseCmd(c.thenCmd, uses, n);
      const [e, n2] = fuseCmd(c.elseCmd, uses, n1);
      return [{ kind: 'if', cond: c.cond, thenCmd: t, elseCmd: e, lbl: c.lbl }, n2];
    }
    case 'while': {
      const [b, n1] = fuseCmd(c.body, uses, n);
      return [{ kind: 'while', cond: c.cond, body: b, isFor: c.isFor, lbl: c.lbl }, n1];
    }
    default:
      return [unchanged(c), n];
  }
}

/** The commands of a seq chain, in order, prepended to `acc`... appended before `acc`. */
function flatten(c: Cmd, acc: List<Cmd>): List<Cmd> {
  if (c.kind === 'seq') return flatten(c.first, flatten(c.second, acc));
  return { kind: 'cons', head: c, tail: acc };
}

/** The labels of a chain's seq nodes (one fewer than its commands). */
function seqLabels(c: Cmd, acc: List<number>): List<number> {
  if (c.kind === 'seq')
    return { kind: 'cons', head: c.lbl, tail: seqLabels(c.first, seqLabels(c.second, acc)) };
  return acc;
}

/**
 * A right-nested seq of `cs`, labelled from `lbls` (the original chain's seq labels: fusion only
 * removes commands, so there are enough); `lbl` labels an empty chain's skip.
 */
function seqOf(cs: List<Cmd>, lbls: List<number>, lbl: number): Cmd {
  if (cs.kind === 'nil') return { kind: 'skip', lbl };
  if (cs.tail.kind === 'nil') return cs.head;
  const here = lbls.kind === 'cons' ? lbls.head : lbl;
  const rest = lbls.kind === 'cons' ? lbls.tail : lbls;
  return mkSeq(cs.head, seqOf(cs.tail, rest, lbl), here);
}

/** Bottom-up over a statement list: the rest first, then the head as a producer. */
function fuseList(cs: List<Cmd>, uses: Uses, n: number): [List<Cmd>, number] {
  if (cs.kind === 'nil') return [cs, n];
  const [rest, n1] = fuseList(cs.tail, uses, n);
  const [c, n2] = fuseCmd(cs.head, uses, n1);
  if (c.kind === 'soac' && isProducer(c)) {
    const [fused, n3] = intoConsumer(c, rest, uses, setEmpty(), n2);
    if (fused.kind === 'some') return [fused.value, n3];
  }
  return [{ kind: 'cons', head: c, tail: rest }, n2];
}

function isProducer(s: Soac): boolean {
  return s.op === 'map' || s.op === 'filter';
}

/**
 * The list with `p` fused into its consumer, when the four conditions hold; `between` collects
 * what the commands passed so far may modify.
 */
function intoConsumer(
  p: Soac,
  cs: List<Cmd>,
  uses: Uses,
  between: PSet<string>,
  n: number,
): [Option<List<Cmd>>, number] {
  if (cs.kind === 'nil') return [{ kind: 'none' }, n];
  const c = cs.head;
  if (c.kind === 'if') {
    const inThen = useCount(usesCmd(c.thenCmd, mapEmpty()), p.dest);
    const inElse = useCount(usesCmd(c.elseCmd, mapEmpty()), p.dest);
    if (inThen + inElse > 0) return intoBranches(p, c, cs.tail, uses, inThen, inElse, between, n);
  }
  if (c.kind === 'soac') {
    const slots = mappedSlots(p.dest, c.args, alignedParams(c));
    if (slots > 0) {
      const ok = useCount(uses, p.dest) === slots && !readsAny(p, between) && composable(p, c, slots);
      if (!ok) return [{ kind: 'none' }, n];
      const [fused, n1] = compose(p, c, n);
      return [{ kind: 'some', value: { kind: 'cons', head: fused, tail: cs.tail } }, n1];
    }
  }
  const [later, n1] = intoConsumer(p, cs.tail, uses, modifiedNames(c, between), n);
  if (later.kind === 'none') return [later, n1];
  return [{ kind: 'some', value: { kind: 'cons', head: c, tail: later.value } }, n1];
}

/**
 * L0 §7.4's conditional rule (Fig. 25): when the first command using the producer's array is an
 * `if` holding all its uses, the producer fuses into a consumer in each branch that uses it, as
 * if it were that branch's first command. Only one branch runs, so nothing is computed twice;
 * the copy for the else branch is relabelled.
 */
function intoBranches(
  p: Soac,
  c: If,
  rest: List<Cmd>,
  uses: Uses,
  inThen: number,
  inElse: number,
  between: PSet<string>,
  n: number,
): [Option<List<Cmd>>, number] {
  if (inThen + inElse !== useCount(uses, p.dest)) return [{ kind: 'none' }, n];
  const before = arraysPassed(c.cond, between);
  const [t, n1] = intoBranch(p, c.thenCmd, mapInsert(uses, p.dest, inThen), inThen, before, n);
  const [p2, n2] = relabelSoac(p, n1);
  const [e, n3] = intoBranch(p2, c.elseCmd, mapInsert(uses, p.dest, inElse), inElse, before, n2);
  if (t.kind === 'none' || e.kind === 'none') return [{ kind: 'none' }, n3];
  const fused: Cmd = { kind: 'if', cond: c.cond, thenCmd: t.value, elseCmd: e.value, lbl: c.lbl };
  return [{ kind: 'some', value: { kind: 'cons', head: fused, tail: rest } }, n3];
}

/** A branch with the producer fused into it (unchanged when it does not use the array). */
function intoBranch(
  p: Soac,
  branch: Cmd,
  uses: Uses,
  count: number,
  between: PSet<string>,
  n: number,
): [Option<Cmd>, number] {
  if (count === 0) return [{ kind: 'some', value: branch }, n];
  const [cs, n1] = intoConsumer(p, flatten(branch, { kind: 'nil' }), uses, between, n);
  if (cs.kind === 'none') return [{ kind: 'none' }, n1];
  return [{ kind: 'some', value: seqOf(cs.value, seqLabels(branch, { kind: 'nil' }), branch.lbl) }, n1];
}

/** The parameters `args` align with: all of fn's for map/filter, those after the accumulator otherwise. */
function alignedParams(s: Soac): List<Param> {
  if (s.op === 'map' || s.op === 'filter') return s.fn.params;
  return s.fn.params.kind === 'cons' ? s.fn.params.tail : s.fn.params;
}

/** How many of the arguments map over array `name`. */
function mappedSlots(name: string, as: List<SoacArg>, ps: List<Param>): number {
  if (as.kind === 'nil' || ps.kind === 'nil') return 0;
  const here = as.head.kind === 'argArray' && as.head.name === name && !ps.head.isArray ? 1 : 0;
  return here + mappedSlots(name, as.tail, ps.tail);
}

/** How many arguments are mapped (arrays for scalar parameters, and iotas). */
function mappedCount(as: List<SoacArg>, ps: List<Param>): number {
  if (as.kind === 'nil' || ps.kind === 'nil') return 0;
  const a = as.head;
  const here = a.kind === 'argIota' || (a.kind === 'argArray' && !ps.head.isArray) ? 1 : 0;
  return here + mappedCount(as.tail, ps.tail);
}

/** Whether the producer reads a name in `modified` (an input array or an atom's variable). */
function readsAny(p: Soac, modified: PSet<string>): boolean {
  return argsRead(p.args, modified);
}

function argsRead(as: List<SoacArg>, modified: PSet<string>): boolean {
  if (as.kind === 'nil') return false;
  const a = as.head;
  const here =
    a.kind === 'argArray'
      ? setHas(modified, a.name)
      : a.kind === 'argIota'
        ? atomRead(a.len, modified)
        : atomRead(a.value, modified);
  return here || argsRead(as.tail, modified);
}

function atomRead(e: Expr, modified: PSet<string>): boolean {
  return e.kind === 'var' && setHas(modified, e.name);
}

/** Whether the rules above fuse producer `p` into consumer `c` (which maps over p's result). */
function composable(p: Soac, c: Soac, slots: number): boolean {
  if (isIota(p)) return true;
  if (p.op === 'map') return c.op === 'map' || isFold(c.op);
  if (p.op === 'filter') {
    if (c.op === 'filter') return true;
    return (c.op === 'reduce' || c.op === 'redomap') && mappedCount(c.args, alignedParams(c)) === slots;
  }
  return false;
}

function isFold(op: string): boolean {
  return op === 'reduce' || op === 'scan' || op === 'redomap' || op === 'scanomap';
}

/** `iota(n)`: a map of the identity over one iota argument. */
export function isIota(s: Soac): boolean {
  const ps = s.fn.params;
  const as = s.args;
  return (
    s.op === 'map' &&
    as.kind === 'cons' &&
    as.tail.kind === 'nil' &&
    as.head.kind === 'argIota' &&
    ps.kind === 'cons' &&
    ps.tail.kind === 'nil' &&
    s.fn.binds.kind === 'nil' &&
    s.fn.result.kind === 'var' &&
    s.fn.result.name === ps.head.name
  );
}

function compose(p: Soac, c: Soac, n: number): [Soac, number] {
  if (isIota(p)) return [substituteIota(p, c), n];
  if (p.op === 'filter') return composeFilter(p, c, n);
  return composeMap(p, c, n);
}

/** A mapped argument's identity: the same array, or an iota of the same atom ('' otherwise). */
function mappedKey(a: SoacArg, p: Param): string {
  if (a.kind === 'argArray' && !p.isArray) return `array ${a.name}`;
  if (a.kind === 'argIota' && a.len.kind === 'var') return `iota ${a.len.name}`;
  if (a.kind === 'argIota' && a.len.kind === 'intLit') return `iota #${a.len.value}`;
  return '';
}

/**
 * L0's "remove duplicate input arrays": a mapped argument equal to an earlier one is dropped and
 * its parameter bound to the earlier one's parameter. Only after all vertical fusion: the use
 * counts of condition 3 count every slot, so merging earlier would hide uses.
 */
function dedupe(s: Soac, n: number): [Soac, number] {
  const folds = s.op !== 'map' && s.op !== 'filter';
  const [params, args, binds, n1] = dedupeSlots(alignedParams(s), s.args, mapEmpty(), n);
  if (binds.kind === 'nil') return [s, n];
  const fn: Lam = {
    kind: 'lam',
    params:
      folds && s.fn.params.kind === 'cons' ? { kind: 'cons', head: s.fn.params.head, tail: params } : params,
    binds: appendBinds(binds, s.fn.binds),
    result: s.fn.result,
    ret: s.fn.ret,
    lbl: s.fn.lbl,
  };
  return [
    { kind: 'soac', op: s.op, dest: s.dest, ty: s.ty, fn, comb: s.comb, ne: s.ne, args, lbl: s.lbl },
    n1,
  ];
}

function dedupeSlots(
  ps: List<Param>,
  as: List<SoacArg>,
  seen: PMap<string, string>,
  n: number,
): [List<Param>, List<SoacArg>, List<Bind>, number] {
  if (ps.kind === 'nil' || as.kind === 'nil') return [ps, as, { kind: 'nil' }, n];
  const key = mappedKey(as.head, ps.head);
  const earlier: Option<string> = key === '' ? { kind: 'none' } : mapFind(seen, key);
  if (earlier.kind === 'some') {
    const [params, args, binds, n1] = dedupeSlots(ps.tail, as.tail, seen, n + 2);
    const b: Bind = {
      kind: 'bind',
      name: ps.head.name,
      ty: ps.head.ty,
      rhs: varOf(earlier.value, ps.head.ty, n + 1),
      lbl: n,
    };
    return [params, args, { kind: 'cons', head: b, tail: binds }, n1];
  }
  const next = key === '' ? seen : mapInsert(seen, key, ps.head.name);
  const [params, args, binds, n1] = dedupeSlots(ps.tail, as.tail, next, n);
  return [
    { kind: 'cons', head: ps.head, tail: params },
    { kind: 'cons', head: as.head, tail: args },
    binds,
    n1,
  ];
}

/** iota → c: c's mapped slots of p's array become p's iota argument. */
function substituteIota(p: Soac, c: Soac): Soac {
  const iota: SoacArg =
    p.args.kind === 'cons' ? p.args.head : { kind: 'argIota', len: zero('int', p.lbl), lbl: p.lbl };
  return {
    kind: 'soac',
    op: c.op,
    dest: c.dest,
    ty: c.ty,
    fn: c.fn,
    comb: c.comb,
    ne: c.ne,
    args: replaceSlots(p.dest, iota, c.args, alignedParams(c)),
    lbl: c.lbl,
  };
}

function replaceSlots(name: string, by: SoacArg, as: List<SoacArg>, ps: List<Param>): List<SoacArg> {
  if (as.kind === 'nil' || ps.kind === 'nil') return as;
  const a = as.head;
  const hit = a.kind === 'argArray' && a.name === name && !ps.head.isArray;
  return { kind: 'cons', head: hit ? by : a, tail: replaceSlots(name, by, as.tail, ps.tail) };
}

/**
 * The consumer's slots split: the parameters and arguments it keeps (not mapping over `name`),
 * and the parameters that map over `name` (to be bound to the producer's element).
 */
interface Split {
  readonly kind: 'split';
  readonly keptParams: List<Param>;
  readonly keptArgs: List<SoacArg>;
  readonly bound: List<Param>;
}

function split(name: string, as: List<SoacArg>, ps: List<Param>): Split {
  if (as.kind === 'nil' || ps.kind === 'nil') {
    return { kind: 'split', keptParams: { kind: 'nil' }, keptArgs: { kind: 'nil' }, bound: { kind: 'nil' } };
  }
  const rest = split(name, as.tail, ps.tail);
  const a = as.head;
  if (a.kind === 'argArray' && a.name === name && !ps.head.isArray) {
    return {
      kind: 'split',
      keptParams: rest.keptParams,
      keptArgs: rest.keptArgs,
      bound: { kind: 'cons', head: ps.head, tail: rest.bound },
    };
  }
  return {
    kind: 'split',
    keptParams: { kind: 'cons', head: ps.head, tail: rest.keptParams },
    keptArgs: { kind: 'cons', head: a, tail: rest.keptArgs },
    bound: rest.bound,
  };
}

/** Bindings `q = x` (x the variable `name`) for every parameter q in `bound`; two labels each. */
function bindAll(bound: List<Param>, name: string, ty: string, lbl: number): List<Bind> {
  if (bound.kind === 'nil') return { kind: 'nil' };
  return {
    kind: 'cons',
    head: { kind: 'bind', name: bound.head.name, ty: bound.head.ty, rhs: varOf(name, ty, lbl + 1), lbl },
    tail: bindAll(bound.tail, name, ty, lbl + 2),
  };
}

function countParams(xs: List<Param>): number {
  return xs.kind === 'nil' ? 0 : 1 + countParams(xs.tail);
}

function appendParams(xs: List<Param>, ys: List<Param>): List<Param> {
  if (xs.kind === 'nil') return ys;
  return { kind: 'cons', head: xs.head, tail: appendParams(xs.tail, ys) };
}

function appendArgs(xs: List<SoacArg>, ys: List<SoacArg>): List<SoacArg> {
  if (xs.kind === 'nil') return ys;
  return { kind: 'cons', head: xs.head, tail: appendArgs(xs.tail, ys) };
}

function appendBinds(xs: List<Bind>, ys: List<Bind>): List<Bind> {
  if (xs.kind === 'nil') return ys;
  return { kind: 'cons', head: xs.head, tail: appendBinds(xs.tail, ys) };
}

function appendSoac(xs: List<Soac>, y: Soac): List<Soac> {
  if (xs.kind === 'nil') return { kind: 'cons', head: y, tail: { kind: 'nil' } };
  return { kind: 'cons', head: xs.head, tail: appendSoac(xs.tail, y) };
}

function varOf(name: string, ty: string, lbl: number): Expr {
  return { kind: 'var', name, ty, lbl };
}

/** The consumer's accumulator parameter (folds) prepended to `ps`. */
function withAcc(c: Soac, ps: List<Param>): List<Param> {
  if (c.op === 'map' || c.op === 'filter' || c.fn.params.kind === 'nil') return ps;
  return { kind: 'cons', head: c.fn.params.head, tail: ps };
}

/**
 * map p → c: the fused lambda takes p's arguments then c's other arguments; it binds p's result
 * to a fresh name, then every slot parameter of c to it, then runs c's body.
 */
function composeMap(p: Soac, c: Soac, n: number): [Soac, number] {
  const sp = split(p.dest, c.args, alignedParams(c));
  const first: Param =
    sp.bound.kind === 'cons'
      ? sp.bound.head
      : { kind: 'param', name: `${p.dest}_e${n}`, ty: p.ty, isArray: false, isConst: false, lbl: n };
  const others = sp.bound.kind === 'cons' ? sp.bound.tail : sp.bound;
  const nb = countParams(others);
  const binds = appendBinds(p.fn.binds, {
    kind: 'cons',
    head: { kind: 'bind', name: first.name, ty: first.ty, rhs: p.fn.result, lbl: n },
    tail: appendBinds(bindAll(others, first.name, first.ty, n + 1), c.fn.binds),
  });
  const n1 = n + 1 + 2 * nb;
  const fn: Lam = {
    kind: 'lam',
    params: withAcc(c, appendParams(p.fn.params, sp.keptParams)),
    binds,
    result: c.fn.result,
    ret: c.fn.ret,
    lbl: n1,
  };
  const op = c.op === 'reduce' ? 'redomap' : c.op === 'scan' ? 'scanomap' : c.op;
  const [comb, n2] = combOf(c, n1 + 1);
  return [
    {
      kind: 'soac',
      op,
      dest: c.dest,
      ty: c.ty,
      fn,
      comb,
      ne: c.ne,
      args: appendArgs(p.args, sp.keptArgs),
      lbl: c.lbl,
    },
    n2,
  ];
}

/**
 * The fused combinator's combine operator: a reduce/scan's operator (relabelled, since its body
 * also lives on inside the fused fold), or the consumer's own.
 */
function combOf(c: Soac, n: number): [Option<Lam>, number] {
  if (c.op !== 'reduce' && c.op !== 'scan') return [c.comb, n];
  const [lam, n1] = relabelLam(c.fn, n);
  return [{ kind: 'some', value: lam }, n1];
}

/** The element a filter keeps: the parameter of its one mapped argument. */
function keptParam(as: List<SoacArg>, ps: List<Param>): Param {
  if (as.kind === 'nil' || ps.kind === 'nil') {
    return { kind: 'param', name: '', ty: 'int', isArray: false, isConst: true, lbl: 0 };
  }
  const a = as.head;
  if (a.kind === 'argIota' || (a.kind === 'argArray' && !ps.head.isArray)) return ps.head;
  return keptParam(as.tail, ps.tail);
}

/** `keep ? rhs : 0` for every binding, so nothing runs on dropped elements. */
function guardBinds(bs: List<Bind>, keep: string, keepTy: string, n: number): [List<Bind>, number] {
  if (bs.kind === 'nil') return [bs, n];
  const b = bs.head;
  const rhs: Expr = {
    kind: 'ternary',
    cond: varOf(keep, keepTy, n),
    thenExpr: b.rhs,
    elseExpr: zero(b.ty, n + 1),
    ty: b.ty,
    lbl: n + 2,
  };
  const [tail, n1] = guardBinds(bs.tail, keep, keepTy, n + 3);
  return [{ kind: 'cons', head: { kind: 'bind', name: b.name, ty: b.ty, rhs, lbl: b.lbl }, tail }, n1];
}

function zero(ty: string, lbl: number): Expr {
  if (ty === 'float') return { kind: 'floatLit', value: 0, lbl };
  if (ty === 'bool') return { kind: 'boolLit', value: false, lbl };
  return { kind: 'intLit', value: 0, lbl };
}

/**
 * filter p → filter/reduce/redomap c: the fused lambda takes p's arguments then c's other
 * arguments; it computes `keep = p(…)`, binds c's slot parameters to the kept element, runs c's
 * bindings only when `keep`, and gives `keep && c(…)` (filter) or `keep ? c(acc, …) : acc` (fold).
 */
function composeFilter(p: Soac, c: Soac, n: number): [Soac, number] {
  const sp = split(p.dest, c.args, alignedParams(c));
  const x = keptParam(p.args, p.fn.params);
  const keep = `keep_e${n}`;
  const keepTy = p.fn.ret;
  const nb = countParams(sp.bound);
  const [guarded, n1] = guardBinds(c.fn.binds, keep, keepTy, n + 1 + 2 * nb);
  const binds = appendBinds(p.fn.binds, {
    kind: 'cons',
    head: { kind: 'bind', name: keep, ty: keepTy, rhs: p.fn.result, lbl: n },
    tail: appendBinds(bindAll(sp.bound, x.name, x.ty, n + 1), guarded),
  });
  const params = withAcc(c, appendParams(p.fn.params, sp.keptParams));
  const args = appendArgs(p.args, sp.keptArgs);
  if (c.op === 'filter') {
    const result: Expr = {
      kind: 'binary',
      op: '&&',
      ty: 'int',
      left: varOf(keep, keepTy, n1),
      right: c.fn.result,
      lbl: n1 + 1,
    };
    const fn: Lam = { kind: 'lam', params, binds, result, ret: 'int', lbl: n1 + 2 };
    return [
      { kind: 'soac', op: 'filter', dest: c.dest, ty: c.ty, fn, comb: c.comb, ne: c.ne, args, lbl: c.lbl },
      n1 + 3,
    ];
  }
  const accName = c.fn.params.kind === 'cons' ? c.fn.params.head.name : '';
  const result: Expr = {
    kind: 'ternary',
    cond: varOf(keep, keepTy, n1),
    thenExpr: c.fn.result,
    elseExpr: varOf(accName, c.fn.ret, n1 + 1),
    ty: c.fn.ret,
    lbl: n1 + 2,
  };
  const fn: Lam = { kind: 'lam', params, binds, result, ret: c.fn.ret, lbl: n1 + 3 };
  const [comb, n2] = combOf(c, n1 + 4);
  return [{ kind: 'soac', op: 'redomap', dest: c.dest, ty: c.ty, fn, comb, ne: c.ne, args, lbl: c.lbl }, n2];
}

// ---- horizontal fusion ----------------------------------------------------------------------------

/**
 * After vertical fusion: every combinator's duplicate inputs merged (`dedupe`), then adjacent
 * compatible combinators of each list grouped (`groupList`).
 */
function horizontalCmd(c: Cmd, n: number): [Cmd, number] {
  switch (c.kind) {
    case 'seq': {
      const [cs, n1] = horizontalList(flatten(c, { kind: 'nil' }), n);
      const [grouped, n2] = groupList(cs, n1);
      return [seqOf(grouped, seqLabels(c, { kind: 'nil' }), c.lbl), n2];
    }
    case 'if': {
      const [t, n1] = horizontalCmd(c.thenCmd, n);
      const [e, n2] = horizontalCmd(c.elseCmd, n1);
      return [{ kind: 'if', cond: c.cond, thenCmd: t, elseCmd: e, lbl: c.lbl }, n2];
    }
    case 'while': {
      const [b, n1] = horizontalCmd(c.body, n);
      return [{ kind: 'while', cond: c.cond, body: b, isFor: c.isFor, lbl: c.lbl }, n1];
    }
    case 'soac':
      return dedupe(c, n);
    default:
      return [unchanged(c), n];
  }
}

/**
 * A command the fusion rewrites pass on as it is: an assignment, a store, a combinator or fused
 * group (handled where its statement list is), or a leaf (leaf.generated.ts). Typed, so that a
 * kind with sub-commands needs a case in `fuseCmd` and `horizontalCmd` (tsc says where).
 */
function unchanged(c: Assign | Store | Soac | Hfused | LeafCmd): Cmd {
  return c;
}

function horizontalList(cs: List<Cmd>, n: number): [List<Cmd>, number] {
  if (cs.kind === 'nil') return [cs, n];
  const [head, n1] = horizontalCmd(cs.head, n);
  const [tail, n2] = horizontalList(cs.tail, n1);
  return [{ kind: 'cons', head, tail }, n2];
}

/** Merges adjacent compatible combinators into `hfused` groups (left to right); a group gets a fresh label. */
function groupList(cs: List<Cmd>, n: number): [List<Cmd>, number] {
  if (cs.kind === 'nil' || cs.tail.kind === 'nil') return [cs, n];
  const a = cs.head;
  const b = cs.tail.head;
  if (b.kind === 'soac' && (a.kind === 'soac' || a.kind === 'hfused')) {
    const members: List<Soac> =
      a.kind === 'soac' ? { kind: 'cons', head: a, tail: { kind: 'nil' } } : a.members;
    if (joins(members, b)) {
      const lbl = a.kind === 'hfused' ? a.lbl : n;
      const group: Cmd = { kind: 'hfused', members: appendSoac(members, b), lbl };
      return groupList({ kind: 'cons', head: group, tail: cs.tail.tail }, a.kind === 'hfused' ? n : n + 1);
    }
  }
  const [rest, n1] = groupList(cs.tail, n);
  return [{ kind: 'cons', head: a, tail: rest }, n1];
}

/** Whether `b` may join the group: same class and length, independent of every member. */
function joins(members: List<Soac>, b: Soac): boolean {
  if (members.kind === 'nil') return true;
  const a = members.head;
  return (
    horizontalClass(a) !== '' &&
    horizontalClass(a) === horizontalClass(b) &&
    sameLength(a, b) &&
    a.dest !== b.dest &&
    !readsName(b, a.dest) &&
    joins(members.tail, b)
  );
}

function horizontalClass(s: Soac): string {
  if (s.op === 'map') return 'map';
  if (s.op === 'reduce' || s.op === 'redomap') return 'reduction';
  return '';
}

/** Whether b reads `name` (as an array argument or an atom's variable). */
function readsName(b: Soac, name: string): boolean {
  const neReads = b.ne.kind === 'some' && b.ne.value.kind === 'var' && b.ne.value.name === name;
  return neReads || argsMention(b.args, name);
}

function argsMention(as: List<SoacArg>, name: string): boolean {
  if (as.kind === 'nil') return false;
  const a = as.head;
  const here =
    a.kind === 'argArray'
      ? a.name === name
      : a.kind === 'argIota'
        ? a.len.kind === 'var' && a.len.name === name
        : a.value.kind === 'var' && a.value.name === name;
  return here || argsMention(as.tail, name);
}

/** Same length: the first mapped arguments are the same array, or iotas of the same atom. */
function sameLength(a: Soac, b: Soac): boolean {
  const ka = lengthKey(a.args, alignedParams(a));
  const kb = lengthKey(b.args, alignedParams(b));
  return ka !== '' && ka === kb;
}

function lengthKey(as: List<SoacArg>, ps: List<Param>): string {
  if (as.kind === 'nil' || ps.kind === 'nil') return '';
  const a = as.head;
  if (a.kind === 'argArray' && !ps.head.isArray) return `array ${a.name}`;
  if (a.kind === 'argIota') {
    const e = a.len;
    if (e.kind === 'var') return `iota ${e.name}`;
    if (e.kind === 'intLit') return `iota #${e.value}`;
    return '';
  }
  return lengthKey(as.tail, ps.tail);
}
