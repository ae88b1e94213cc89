/**
 * The stager's dead-assignment elimination (SCF §4, Figs. 11–13): a backward abstract
 * interpretation over liveness patterns (`patterns.ts`) that consults the partial evaluator's
 * collecting semantics `cs` to prune dead code — including updates of maps and sets that no
 * later lookup can observe.
 *
 * Intraprocedural (`daeExpr`, Fig. 11's DAE_e): `daeExpr(e, l, cs)` returns `e` pruned under the
 * pattern `l` of its value together with the pattern of each free variable. Rules:
 *
 *   e under 0                   → the dead placeholder `0` (same label)
 *   x                           → x, [x ↦ l]
 *   c(e1 … en)                  → eᵢ under fieldLP(l, c, i)
 *   c⁻ᵏ e                       → e under c(0 … l … 0)
 *   c? e                        → e under {c1(0…0)|…} over the constructors cs(e) may build, else 1
 *   if e1 e2 e3                 → e1 under 1, e2 and e3 under l
 *   let x = e1 in e2            → e2 first; the binding goes when x is not live, else e1 under x's pattern
 *   f(e…)                       → eᵢ under f's i-th parameter pattern; l joins f's return pattern
 *   map_find m k                → m under [toLP(cs(k)), l's some-field], k under toLP(cs(k))
 *   map_insert m k v  [lk, lv]  → m alone when mustBeDisjoint(lk, cs(k))   (Fig. 13: the insert goes)
 *                                 else m under [lk, lv], k under 1, v under lv
 *   (map_delete, set_add, set_delete alike; set_singleton x becomes set_empty when disjoint;
 *    map_has / set_has like map_find with nothing needed of the value; other primitives: 1)
 *
 * Interprocedural (`eliminateDeadAssignments`, the paper's text after Fig. 11): every function
 * reachable from `entry` has a return pattern (the join of the patterns at its live call sites;
 * `entry`'s is 1) and a pattern per parameter (from its body). Each round walks the functions
 * callers first and analyzes those whose inputs changed (their return pattern, or a callee's
 * parameter patterns) until none did; patterns are cut at `depthCap` and `sizeCap`, and a pattern
 * that changed `widenAfter` times is widened to 1, so the loop terminates; a round budget (`fuel`)
 * guards it anyway — when exhausted the program is returned unchanged (always sound) with stop `'fuel'`.
 * Then every body is pruned under its final return pattern, parameters whose pattern is 0 are
 * removed from non-entry functions together with the matching call arguments, and functions no
 * longer reachable from `entry` are dropped.
 *
 * Invariants
 * - Sound whenever `cs` is: if every `cs` entry contains every value its expression takes on the
 *   runs considered, then on those runs the pruned program returns `equal` results wherever the
 *   original returns (pruning may remove a dead expression that would have failed or looped).
 *   A label without a `cs` entry is unknown (treated like top).
 * - Pure: the input program is not modified; unchanged subtrees are shared.
 * - Labels stay unique: a replaced node's label is reused by its replacement (the placeholder,
 *   `set_empty`); removed nodes take theirs along.
 * - The entry function keeps its name and parameters.
 */
import { assertNever } from '../common/index.js';
import type { AbsValue } from '../abstract-values/index.js';
import type { CoreExpr, FunDef, Label, Let, CorePrim, CoreProgram } from '../scf-lang/index.js';
import { forEachExpr, isCollectionOp } from '../scf-lang/index.js';
import {
  ALL,
  asMapLP,
  asSetLP,
  capLP,
  conLP,
  constructorsLP,
  DEAD,
  equalLP,
  fieldLP,
  joinLP,
  type LP,
  LP_DEPTH_CAP,
  LP_SIZE_CAP,
  mapLP,
  mustBeDisjoint,
  projLP,
  setLP,
  toLivenessPattern,
} from './patterns.js';

/** The partial evaluator's collecting semantics: residual label → abstract value. */
export type CollectingSemantics = ReadonlyMap<Label, AbsValue>;
/** Liveness of free variables (Fig. 11's LPMap); a variable not listed is dead. */
export type LPMap = ReadonlyMap<string, LP>;

/** What was removed, counted during the final transform. */
export interface RemovalStats {
  /** Non-literal subexpressions replaced by the dead placeholder `0`. */
  exprs: number;
  /** `let` bindings dropped because their variable is dead. */
  lets: number;
  /** Parameters removed from non-entry functions (with their call arguments). */
  params: number;
  /** Map and set updates removed because disjoint from what is observed (and singletons emptied). */
  mapOps: number;
  /** Functions dropped as unreachable from the entry. */
  funs: number;
}

/** Hooks of `daeExpr` into the interprocedural analysis; the defaults suit a single expression. */
export interface DaeHooks {
  /** Pattern of parameter `index` of `fn` (default `1`). */
  readonly paramLP?: (fn: string, index: number) => LP;
  /** Told the pattern on the result of every call kept live. */
  readonly onCall?: (fn: string, lp: LP) => void;
  /** Whether argument `index` of calls to `fn` stays (default: all do). */
  readonly keepArg?: (fn: string, index: number) => boolean;
  /** Constructor fields, for the arity a projection's pattern needs (tuples `#n` are known anyway). */
  readonly ctors?: ReadonlyMap<string, { readonly fields: readonly string[] }>;
  /** Bumped as nodes are removed. */
  readonly stats?: RemovalStats;
}

export interface DaeExprResult {
  readonly expr: CoreExpr;
  readonly live: LPMap;
}

export interface DaeOptions {
  /** A return or parameter pattern that changed this many times is widened to `1` (default 8). */
  readonly widenAfter?: number;
  /** Most analysis rounds; past it the program comes back unchanged, stop `'fuel'` (default 1000). */
  readonly fuel?: number;
  /** Patterns stored in the fixpoint are cut to this depth (default `LP_DEPTH_CAP` = 8). */
  readonly depthCap?: number;
  /** … and to this many nodes (default `LP_SIZE_CAP` = 256). */
  readonly sizeCap?: number;
}

export const DAE_WIDEN_AFTER = 8;
export const DAE_FUEL = 1000;

/** Final return and parameter patterns, for diagnostics and tests. */
export interface Liveness {
  readonly returns: ReadonlyMap<string, LP>;
  readonly params: ReadonlyMap<string, readonly LP[]>;
}

export interface DaeResult {
  readonly program: CoreProgram;
  readonly stop: 'fixpoint' | 'fuel';
  /** Analysis rounds run: passes over the functions, each analyzing those whose inputs changed. */
  readonly rounds: number;
  readonly removed: RemovalStats;
  readonly liveness: Liveness;
}

export function emptyStats(): RemovalStats {
  return { exprs: 0, lets: 0, params: 0, mapOps: 0, funs: 0 };
}

// ---- intraprocedural: DAE_e ------------------------------------------------------------------

/** Fig. 11's DAE_e: `e` pruned under pattern `lp`, and the patterns of its free variables. */
export function daeExpr(e: CoreExpr, lp: LP, cs: CollectingSemantics, hooks: DaeHooks = {}): DaeExprResult {
  const [expr, live] = new Pruner(cs, hooks).prune(e, lp);
  return { expr, live };
}

type Live = Map<string, LP>;

/** Joins `b` into `a` (or `a` into `b`, whichever is smaller) and returns the union. */
function mergeLive(a: Live, b: Live): Live {
  const [big, small] = a.size >= b.size ? [a, b] : [b, a];
  for (const [x, l] of small) {
    const prev = big.get(x);
    big.set(x, prev === undefined ? l : joinLP(prev, l));
  }
  return big;
}

function tupleArity(ctor: string): number | undefined {
  if (!ctor.startsWith('#')) return undefined;
  const n = Number(ctor.slice(1));
  return Number.isInteger(n) && n >= 0 ? n : undefined;
}

/** `e` with new arguments, or `e` itself when none changed. */
function withArgs<E extends CoreExpr & { readonly args: readonly CoreExpr[] }>(
  e: E,
  args: readonly CoreExpr[],
): E {
  if (args.length === e.args.length && args.every((a, i) => a === e.args[i])) return e;
  return { ...e, args };
}

class Pruner {
  private readonly paramLP: (fn: string, index: number) => LP;
  private readonly keepArg: (fn: string, index: number) => boolean;

  constructor(
    private readonly cs: CollectingSemantics,
    private readonly hooks: DaeHooks,
  ) {
    this.paramLP = hooks.paramLP ?? (() => ALL);
    this.keepArg = hooks.keepArg ?? (() => true);
  }

  private csOf(e: CoreExpr): AbsValue | undefined {
    return this.cs.get(e.label);
  }

  /** The dead placeholder `0`, keeping `e`'s label and span. */
  private dead(e: CoreExpr): CoreExpr {
    if (e.kind === 'lit' && e.value === 0) return e;
    if (e.kind !== 'lit' && this.hooks.stats) this.hooks.stats.exprs++;
    return { kind: 'lit', value: 0, label: e.label, span: e.span };
  }

  private countMapOp(): void {
    if (this.hooks.stats) this.hooks.stats.mapOps++;
  }

  /** Prunes every argument under its own pattern. */
  private pruneAll(es: readonly CoreExpr[], lps: readonly LP[]): [CoreExpr[], Live] {
    let live: Live = new Map();
    const out = es.map((a, i) => {
      const [x, l] = this.prune(a, lps[i] ?? ALL);
      live = mergeLive(live, l);
      return x;
    });
    return [out, live];
  }

  prune(e: CoreExpr, lp: LP): [CoreExpr, Live] {
    if (lp.kind === 'dead') return [this.dead(e), new Map()];
    switch (e.kind) {
      case 'var':
        return [e, new Map([[e.name, lp]])];
      case 'lit':
        return [e, new Map()];
      case 'con': {
        const [args, live] = this.pruneAll(
          e.args,
          e.args.map((_, i) => fieldLP(lp, e.ctor, i)),
        );
        return [withArgs(e, args), live];
      }
      case 'test': {
        // only the constructor of the tested value matters: `c?(x)` with x = tr(…) needs tr(0, 0, 0)
        const [arg, live] = this.prune(e.arg, constructorsLP(this.csOf(e.arg)));
        return [arg === e.arg ? e : { ...e, arg }, live];
      }
      case 'proj': {
        const arity = this.hooks.ctors?.get(e.ctor)?.fields.length ?? tupleArity(e.ctor);
        const argLP = arity !== undefined && e.index < arity ? projLP(e.ctor, arity, e.index, lp) : ALL;
        const [arg, live] = this.prune(e.arg, argLP);
        return [arg === e.arg ? e : { ...e, arg }, live];
      }
      case 'if': {
        const [cond, lc] = this.prune(e.cond, ALL);
        const [then, lt] = this.prune(e.then, lp);
        const [els, le] = this.prune(e.else, lp);
        const live = mergeLive(mergeLive(lc, lt), le);
        if (cond === e.cond && then === e.then && els === e.else) return [e, live];
        return [{ ...e, cond, then, else: els }, live];
      }
      case 'let':
        return this.pruneLet(e, lp);
      case 'call': {
        this.hooks.onCall?.(e.fn, lp);
        let live: Live = new Map();
        const args: CoreExpr[] = [];
        e.args.forEach((a, i) => {
          if (!this.keepArg(e.fn, i)) return;
          const [x, l] = this.prune(a, this.paramLP(e.fn, i));
          live = mergeLive(live, l);
          args.push(x);
        });
        return [withArgs(e, args), live];
      }
      case 'prim':
        return this.prunePrim(e, lp);
      default:
        return assertNever(e);
    }
  }

  /**
   * A chain `let x1 = e1 in … let xn = en in body` iteratively (residual programs are long let
   * chains; recursion per binding could exhaust the stack): the body first, then the bindings
   * from the inside out, each dropped when its variable is dead.
   */
  private pruneLet(e: Let, lp: LP): [CoreExpr, Live] {
    const chain: Let[] = [];
    let cur: CoreExpr = e;
    while (cur.kind === 'let') {
      chain.push(cur);
      cur = cur.body;
    }
    let [body, live] = this.prune(cur, lp);
    for (let i = chain.length - 1; i >= 0; i--) {
      const b = chain[i] as Let;
      const xl = live.get(b.name);
      live.delete(b.name);
      if (xl === undefined || xl.kind === 'dead') {
        // let x = e1 in e2  ⇒  e2   (x dead)
        if (this.hooks.stats) this.hooks.stats.lets++;
        continue;
      }
      const [value, lv] = this.prune(b.value, xl);
      live = mergeLive(live, lv);
      body = value === b.value && body === b.body ? b : { ...b, value, body };
    }
    return [body, live];
  }

  private prunePrim(e: CorePrim, lp: LP): [CoreExpr, Live] {
    const a = e.args;
    const arg = (i: number) => a[i] as CoreExpr;
    const all = (): [CoreExpr, Live] => {
      const [args, live] = this.pruneAll(
        a,
        a.map(() => ALL),
      );
      return [withArgs(e, args), live];
    };
    const each = (...lps: LP[]): [CoreExpr, Live] => {
      const [args, live] = this.pruneAll(a, lps);
      return [withArgs(e, args), live];
    };
    // an update (insert, delete, add) of key k whose result is live under `clp`, with live keys
    // `keys`: k never in them  ⇒  the collection as it was, e.g. insert m k v under [lk, lv],
    // k never in lk  ⇒  m   (Fig. 13); undefined when k may be live
    const untouched = (keys: LP, clp: LP): [CoreExpr, Live] | undefined => {
      if (!mustBeDisjoint(keys, this.csOf(arg(1)))) return undefined;
      this.countMapOp();
      return this.prune(arg(0), clp);
    };
    // tuple_with(t, i, x) under #n(l0 … ln-1): t under the same pattern with its i-th field
    // dead (replaced), x under li — the update of a raised map keeps only its live slots
    if (e.op === 'tuple_with') {
      const i = arg(1);
      if (lp.kind !== 'con' || i.kind !== 'lit' || typeof i.value !== 'number') return all();
      const k = i.value;
      if (k < 0 || k >= lp.fields.length) return all();
      const rest = conLP(
        lp.ctor,
        lp.fields.map((f, j) => (j === k ? DEAD : f)),
      );
      // the replaced element is dead: the tuple as it was stands for the result (no copy)
      if ((lp.fields[k] as LP).kind === 'dead') return this.prune(arg(0), rest);
      return each(rest, ALL, lp.fields[k] as LP);
    }
    // every other primitive but the map and set ones reads each argument whole: all of each is live
    if (!isCollectionOp(e.op)) return all();
    switch (e.op) {
      case 'map_empty':
      case 'set_empty':
        return [e, new Map()];
      case 'map_find': {
        // find m k under l: m needs the keys k may take, with its values as l's some-field
        const lk = toLivenessPattern(this.csOf(arg(1)));
        return each(mapLP(lk, fieldLP(lp, 'some', 0)), lk);
      }
      case 'map_has': {
        const lk = toLivenessPattern(this.csOf(arg(1)));
        return each(mapLP(lk, DEAD), lk);
      }
      case 'map_insert':
      case 'map_delete': {
        if (lp.kind === 'all') return all();
        const m = asMapLP(lp);
        return untouched(m.key, m) ?? (e.op === 'map_insert' ? each(m, ALL, m.value) : each(m, ALL));
      }
      case 'map_size':
        // the number of keys: every key's presence, no value
        return each(mapLP(ALL, DEAD));
      case 'map_keys':
        // keys(m) under set[lk]: the presence of the keys matching lk
        return each(mapLP(asSetLP(lp).elem, DEAD));
      case 'set_singleton': {
        const s = asSetLP(lp);
        if (mustBeDisjoint(s.elem, this.csOf(arg(0)))) {
          // {x} under set[lk], x never in lk  ⇒  {}
          this.countMapOp();
          return [{ kind: 'prim', op: 'set_empty', args: [], label: e.label, span: e.span }, new Map()];
        }
        return all();
      }
      case 'set_add':
      case 'set_delete': {
        const s = asSetLP(lp);
        return untouched(s.elem, s) ?? each(s, ALL);
      }
      case 'set_has': {
        const lk = toLivenessPattern(this.csOf(arg(1)));
        return each(setLP(lk), lk);
      }
      case 'set_union':
      case 'set_intersect':
      case 'set_diff': {
        // membership of x in a ∪ b (a ∩ b, a ∖ b) depends on x's membership in a and b only
        const s = asSetLP(lp);
        return each(s, s);
      }
      case 'set_size':
      case 'set_subset':
      case 'set_to_list':
        return each(setLP(ALL), setLP(ALL));
      default:
        return assertNever(e.op);
    }
  }
}

// ---- interprocedural ------------------------------------------------------------------------

/** Functions reachable from `entry` through calls, in breadth-first order (entry first). */
function reachable(funs: ReadonlyMap<string, FunDef>, entry: string): string[] {
  const seen = new Set<string>([entry]);
  const order = [entry];
  for (let i = 0; i < order.length; i++) {
    const f = funs.get(order[i] as string);
    if (f === undefined) continue;
    forEachExpr(f.body, (x) => {
      if (x.kind === 'call' && !seen.has(x.fn) && funs.has(x.fn)) {
        seen.add(x.fn);
        order.push(x.fn);
      }
    });
  }
  return order;
}

/** Callers of each function (among `order`), from the call sites in their bodies. */
function callersOf(funs: ReadonlyMap<string, FunDef>, order: readonly string[]): Map<string, Set<string>> {
  const callers = new Map<string, Set<string>>();
  for (const name of order) {
    forEachExpr((funs.get(name) as FunDef).body, (x) => {
      if (x.kind !== 'call') return;
      const s = callers.get(x.fn);
      if (s === undefined) callers.set(x.fn, new Set([name]));
      else s.add(name);
    });
  }
  return callers;
}

/**
 * Patterns of the fixpoint, their change counters (for widening) and the functions to analyze
 * again: a function whose return pattern grew, and the callers of one whose parameter
 * patterns grew.
 */
class LivenessState {
  readonly returns = new Map<string, LP>();
  readonly params = new Map<string, LP[]>();
  readonly dirty = new Set<string>();
  private readonly retChanges = new Map<string, number>();
  private readonly paramChanges = new Map<string, number[]>();

  constructor(
    private readonly callers: ReadonlyMap<string, ReadonlySet<string>>,
    private readonly widenAfter: number,
    private readonly depthCap: number,
    private readonly sizeCap: number,
  ) {}

  init(f: FunDef, ret: LP): void {
    this.returns.set(f.name, ret);
    this.retChanges.set(f.name, 0);
    this.params.set(
      f.name,
      f.params.map(() => DEAD),
    );
    this.paramChanges.set(
      f.name,
      f.params.map(() => 0),
    );
    this.dirty.add(f.name);
  }

  /** Joins `lp` into the return pattern of `fn`. */
  demand(fn: string, lp: LP): void {
    const old = this.returns.get(fn);
    if (old === undefined) return;
    const n = this.grow(old, lp, this.retChanges.get(fn) ?? 0);
    if (n === undefined) return;
    this.returns.set(fn, n.lp);
    this.retChanges.set(fn, n.changes);
    this.dirty.add(fn);
  }

  /** Joins `lp` into the pattern of parameter `i` of `fn`. */
  param(fn: string, i: number, lp: LP): void {
    const ps = this.params.get(fn);
    const cs = this.paramChanges.get(fn);
    if (ps === undefined || cs === undefined) return;
    const n = this.grow(ps[i] ?? DEAD, lp, cs[i] ?? 0);
    if (n === undefined) return;
    ps[i] = n.lp;
    cs[i] = n.changes;
    for (const c of this.callers.get(fn) ?? []) this.dirty.add(c);
  }

  paramLP(fn: string, i: number): LP {
    return this.params.get(fn)?.[i] ?? ALL;
  }

  /** `old ⊔ lp`, cut and widened; undefined when that is still `old`. */
  private grow(old: LP, lp: LP, changes: number): { lp: LP; changes: number } | undefined {
    let next = capLP(joinLP(old, lp), this.depthCap, this.sizeCap);
    if (equalLP(next, old)) return undefined;
    if (changes >= this.widenAfter) next = ALL;
    return { lp: next, changes: changes + 1 };
  }
}

/**
 * Dead-assignment elimination of a residual program (SCF §4), run from `entry` (a Core function
 * name, e.g. `dae.optimize`), with the partial evaluator's collecting semantics `cs`.
 */
export function eliminateDeadAssignments(
  program: CoreProgram,
  cs: CollectingSemantics,
  entry: string,
  opts: DaeOptions = {},
): DaeResult {
  const entryFun = program.funs.get(entry);
  if (entryFun === undefined) throw new Error(`dae: no function '${entry}' in the program`);
  const widenAfter = Math.max(1, opts.widenAfter ?? DAE_WIDEN_AFTER);
  const fuel = opts.fuel ?? DAE_FUEL;
  const depthCap = Math.max(1, opts.depthCap ?? LP_DEPTH_CAP);
  const sizeCap = Math.max(1, opts.sizeCap ?? LP_SIZE_CAP);

  const order = reachable(program.funs, entry);
  const state = new LivenessState(callersOf(program.funs, order), widenAfter, depthCap, sizeCap);
  for (const name of order) {
    const f = program.funs.get(name) as FunDef;
    state.init(f, name === entry ? ALL : DEAD);
  }
  const analysisHooks: DaeHooks = {
    paramLP: (fn, i) => state.paramLP(fn, i),
    onCall: (fn, lp) => state.demand(fn, lp),
    ctors: program.ctors,
  };
  const liveness: Liveness = { returns: state.returns, params: state.params };

  // Rounds over the functions in breadth-first order (callers before callees, so return
  // patterns flow down within a round), analyzing those marked dirty, until none is.
  let rounds = 0;
  while (state.dirty.size > 0) {
    if (rounds >= fuel) return { program, stop: 'fuel', rounds, removed: emptyStats(), liveness };
    rounds++;
    for (const name of order) {
      if (!state.dirty.delete(name)) continue;
      const f = program.funs.get(name) as FunDef;
      const { live } = daeExpr(f.body, state.returns.get(name) ?? ALL, cs, analysisHooks);
      f.params.forEach((p, i) => {
        state.param(name, i, live.get(p) ?? DEAD);
      });
    }
  }

  // transform: prune bodies, drop dead parameters of non-entry functions and their arguments
  const removedParams = new Map<string, boolean[]>();
  for (const name of order) {
    if (name === entry) continue;
    const ps = state.params.get(name) ?? [];
    removedParams.set(
      name,
      ps.map((l) => l.kind === 'dead'),
    );
  }
  const removed = emptyStats();
  const transformHooks: DaeHooks = {
    paramLP: (fn, i) => state.paramLP(fn, i),
    keepArg: (fn, i) => removedParams.get(fn)?.[i] !== true,
    ctors: program.ctors,
    stats: removed,
  };
  const pruned = new Map<string, FunDef>();
  for (const name of order) {
    const f = program.funs.get(name) as FunDef;
    const ret = state.returns.get(name) ?? ALL;
    // no live call reaches a function whose result is dead: it goes with the unreachable ones
    if (ret.kind === 'dead') continue;
    const { expr } = daeExpr(f.body, ret, cs, transformHooks);
    const drop = removedParams.get(name);
    const params = drop?.includes(true) ? f.params.filter((_, i) => !drop[i]) : f.params;
    removed.params += f.params.length - params.length;
    pruned.set(name, expr === f.body && params === f.params ? f : { ...f, params, body: expr });
  }
  const keep = new Set(reachable(pruned, entry));
  const funs = new Map<string, FunDef>();
  for (const name of program.funs.keys()) {
    const g = pruned.get(name);
    if (g !== undefined && keep.has(name)) funs.set(name, g);
  }
  removed.funs = program.funs.size - funs.size;
  return { program: { ...program, funs }, stop: 'fixpoint', rounds, removed, liveness };
}
