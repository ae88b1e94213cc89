/**
 * The online partial evaluator (SCF §3, Fig. 8's PE): abstract execution of a Core program on
 * an abstract input, producing a residual program, the collecting-semantics map `cs` and the
 * abstract output. This module is the evaluator — expressions, calls (static, unfolded,
 * dispatched, specialized) and analyses of specializations; it is composed of parts that never
 * call back into it:
 * - table.ts: the specializations (one per context), their callers, dirty flags and worklist;
 * - growth.ts: the growth staircase of a specialization's parameters and result (`growSlots`);
 * - raise.ts: arity raising of maps with known keys, and where representations meet (`meeting`);
 * - cursor.ts: where an evaluation is (late tests, unfoldings, context, nesting), passed down;
 * - limits.ts: every limit and default, and the budget that counts work against them;
 * - context.ts and finiteness.ts: specialization keys and the call chains of keys (SCF §3.4);
 * - dispatch.ts: which calls become a residual test of a field, and that test;
 * - narrow.ts: conditions and what their outcomes narrow;
 * - residual.ts: bindings (a value with its residual code) and the builder code is made with;
 * - residual-program.ts: the residual program assembled at the end, and why the run stopped;
 * - types.ts: the options, the per-specialization record and the result.
 *
 * Algorithm
 * - Every expression is evaluated to an abstract value (src/abstract-values) and a residual
 *   expression computing the same value under every concrete environment the abstract one
 *   admits (`ev`). A value that is a singleton becomes a constant; a constructor test or an `if`
 *   whose outcome is known is folded, and only the taken branch is evaluated; a late `if`
 *   evaluates both branches, each in the environment its outcome narrows (narrow.ts). `cs`
 *   records the value of every residual expression by its label.
 * - Calls whose arguments are all constants are *static*: they run on the concrete interpreter
 *   (with a step budget) and fold to their result. Other calls are specialized: the callee is
 *   analysed for a context (context.ts: the chain of specialization keys, at most k instances
 *   of a key, keys from finite parameters (finiteness.ts) and shrinking singleton arguments), so
 *   helper functions are replicated per input node and fixpoint loops are unrolled k times. One
 *   specialization per context (memoized in the table); its parameters are the join of all
 *   arguments it was called with, its result the join of what its body returned. A call whose
 *   key (finite) argument is a conditional, `f(c ? x : y)`, is evaluated as `c ? f(x) : f(y)`:
 *   with `c` late, each call is still specialized to a known node, not to the union of both.
 *   Past a late test, a key argument that is a union of records told apart by a field is
 *   dispatched on it (dispatch.ts).
 * - Unfolding. A call on a static path — no `if` with a late condition open around it since the
 *   analysis of the enclosing specialization began (the cursor's `late` counts the open ones) —
 *   is not specialized but unfolded: the callee's body is evaluated in place with the exact argument
 *   bindings (values, tags and representations; no join with other callers, no cap on the
 *   result), its parameters and lets bound under residual names of their own (`x$uN`). Calls
 *   made inside it are keyed in the context a specialization of it would have had
 *   (the cursor's `ctx`), so contexts still tell its callers apart. Specialized call chains join
 *   the states of every path that ends in the same keys (context.ts); on a static path nothing
 *   needs joining, since every decision is known. A call-free helper (`mkSeq`, `reachable`) is
 *   unfolded on late paths too: it has no recursion to bound, and specialized it joins the values
 *   of every caller in its context (a command list's spine through `mkSeq`). Termination:
 *   `unfoldDepth` bounds the nesting; a recursion whose end depends on late data meets a late
 *   test first and is specialized from there on.
 * - Recursion through one context is solved as a fixpoint with a worklist: a specialization is
 *   re-analysed when its arguments grow (`addCall`), or when the result of a specialization it
 *   called grew (`growResult` marks its callers dirty); `drain` analyses what the table has
 *   left. Each change goes through one staircase (growth.ts, `growSlots`: grow, then pin past
 *   the fuel, then `1`); every loss is recorded as a `PeEvent` (`scf stage --explain`).
 * - Every binding carries its representation (raise.ts); where two differ — an argument and its
 *   parameter (`addCall`, `callWith`), a body and its specialization's result (`settleRep`), the
 *   branches of an `if` or of a dispatch (`meetAll`) — one rule decides (`Raiser.meeting`): one
 *   side takes the other's (constants) or both become plain. A representation only ever becomes
 *   plain.
 * - Analyses and unfoldings open inside one another are bounded by NEST_LIMIT (each is a
 *   JavaScript recursion): a call that would open one more is specialized and analysed later,
 *   from the worklist, at depth 0, its caller seeing `0` until then (`PeStats.deferred`).
 * - Budgets, all counted in work (never in time, so the residual program is a pure function of
 *   the program, the input and the options, whatever the machine's load): past a visit budget or
 *   a spec count, calls without a specialization yet are residualized as calls of the original
 *   functions (which then join the residual program), and specializations whose arguments still
 *   grow are given up the same way; past HARD_BUDGET_FACTOR times the visits, or past `maxNodes` abstract
 *   values built (every node takes a fresh tag, so `withTagCeiling` bounds whatever builds them,
 *   a static call's large result converted included), the original program is returned.
 *   Static calls are bounded one by one (`staticCallSteps`) and together (STATIC_WORK Core nodes
 *   run concretely; past it, calls with known arguments are specialized like the others).
 *   `stop` says what ended the run: 'fixpoint', 'widened' (widening was needed) or 'fuel'
 *   (something was widened to `1`, given up, or a budget ran out), and `reason` says it in words.
 *
 * Invariants
 * - Soundness: for every concrete input t conforming to the abstract input, the residual entry
 *   returns what the original entry returns on t (when that run succeeds), and the output value
 *   contains it. Each value in `cs` contains every value its expression takes on such runs.
 * - Identity tags (§3.3.1) never cross a call boundary: a specialization's parameters and a call's
 *   result are re-tagged fresh (`retag`), so tag equality only relates values of one activation.
 * - Every loop here is bounded. Termination: each specialization's parameters and result change
 *   a bounded number of times (growth.ts), each parameter's or result's representation at most
 *   twice (undecided → decided → plain), the number of contexts is bounded by the k rule and the
 *   chain depth, so the worklist empties; unfoldings nest at most `unfoldDepth` deep, each over
 *   a finite body; analyses and unfoldings open inside one another at most NEST_LIMIT deep, which
 *   bounds the JS stack; the visit budget and `maxSpecs` bound the rest in work.
 */
import { assertNever, type SourceSpan } from '../common/index.js';
import {
  type AbsValue,
  ABS_PRIMS,
  bottom,
  con,
  constant,
  type CtorTable,
  fromConcrete,
  join,
  project,
  equals,
  size,
  TagCeilingReached,
  testCtor,
  top,
  union,
  withPrelude,
  withTagCeiling,
} from '../abstract-values/index.js';
import {
  type CoreCall,
  type CoreExpr,
  type CoreProgram,
  forEachExpr,
  type FunDef,
  Interpreter,
  ScfRuntimeError,
  type Value,
} from '../scf-lang/index.js';
import { type Chain, Contexts } from './context.js';
import { atAnalysis, type Cursor, inUnfolded, pastLateTest } from './cursor.js';
import { dispatchTests, type Split, splitKey } from './dispatch.js';
import { type Finiteness, finitenessAnalysis } from './finiteness.js';
import { type GrowLoss, growSlots, slotLimits } from './growth.js';
import { Budget, BudgetExceeded, type Limits, limitsOf, NEST_LIMIT } from './limits.js';
import { refine, truthValues } from './narrow.js';
import { conRep, literalRep, Raiser, type Rep, repSignature } from './raise.js';
import { describeSpec, residualProgram } from './residual-program.js';
import { type Binding, type Env, inScope, isAtom, lookup, ResidualCode, View } from './residual.js';
import { SpecTable } from './table.js';
import {
  NO_REP,
  type PeEvent,
  type PeOptions,
  type PeResult,
  type PeStats,
  type Slot,
  type Spec,
  zeroStats,
} from './types.js';

export function partialEvaluate(
  program: CoreProgram,
  entry: string,
  input: readonly AbsValue[],
  opts: PeOptions = {},
): PeResult {
  const root = program.funs.get(entry);
  if (!root) throw new Error(`no function '${entry}' in the program`);
  if (root.params.length !== input.length) {
    throw new Error(`'${entry}' takes ${root.params.length} arguments; the input describes ${input.length}`);
  }
  const pe = new PartialEvaluator(program, opts);
  const maxNodes = pe.limits.maxNodes;
  try {
    return withTagCeiling(maxNodes, () => pe.run(root, input));
  } catch (e0) {
    const e =
      e0 instanceof TagCeilingReached
        ? new BudgetExceeded(
            `the node budget ran out (${maxNodes} abstract values built: a value that grows without bound, as an optimizer returning one node at several places doubles its output with each step)`,
          )
        : e0;
    if (!(e instanceof BudgetExceeded)) throw e;
    return {
      residual: program,
      entry,
      cs: new Map(),
      output: top(),
      stop: 'fuel',
      reason: `${e.what}; the original program is kept`,
      stats: { ...pe.stats, residualFuns: program.funs.size },
      comments: new Map(),
      events: pe.events,
    };
  }
}

/** `param N (name)`: a parameter of `spec`, as events name it. */
function paramWhat(spec: Spec, i: number): string {
  return `param ${i} (${spec.fn.params[i]})`;
}

class PartialEvaluator {
  readonly limits: Limits;
  readonly stats: PeStats = zeroStats();
  readonly events: PeEvent[] = [];
  private readonly ctors: CtorTable;
  private readonly budget: Budget;
  private readonly table = new SpecTable();
  /** The residual code made (labels, the collecting semantics of the analysis in progress). */
  private readonly code: ResidualCode;
  /** Arity raising (raise.ts), making code with `code`. */
  private readonly raise: Raiser;
  private readonly finite: Finiteness;
  private readonly contexts: Contexts;
  private readonly interp: Interpreter;
  private readonly litValues = new WeakMap<CoreExpr, AbsValue>();
  private readonly callFreeMemo = new Map<string, boolean>();
  /** Original functions called generically (kept in the residual program with their callees). */
  private readonly genericFns = new Set<string>();
  /** Whether widening (or a fold) was needed. */
  private widened = false;
  /** Numbers the residual variables of unfolded bodies apart. */
  private nextUnfoldVar = 0;
  private nextSplit = 0;

  constructor(
    private readonly program: CoreProgram,
    opts: PeOptions,
  ) {
    this.limits = limitsOf(opts);
    this.budget = new Budget(this.limits, this.stats, opts.onProgress);
    this.ctors = withPrelude(program.ctors);
    this.code = new ResidualCode(this.ctors);
    this.raise = new Raiser(this.code, this.stats, this.limits.raiseMaps);
    this.finite = finitenessAnalysis(program);
    this.contexts = new Contexts(this.limits.k, this.limits.chainDepth);
    this.interp = new Interpreter(program);
  }

  run(root: FunDef, input: readonly AbsValue[]): PeResult {
    const key = this.contexts.key(root.name, input);
    const spec = this.newSpec(
      root,
      this.contexts.push(key, undefined),
      input.map((v) => this.code.retag(v)),
      [],
      true,
    );
    this.analyze(spec, 0);
    this.drain();
    return residualProgram(spec, {
      program: this.program,
      specs: [...this.table.values()],
      genericFns: this.genericFns,
      code: this.code,
      stats: this.stats,
      events: this.events,
      exhaustedBy: this.budget.exhaustedBy,
      widened: this.widened,
      specFuel: this.limits.specFuel,
      growCap: this.limits.growCap,
    });
  }

  /** Analyses what the table has left to analyse, until nothing is. */
  private drain(): void {
    for (let s = this.table.next(); s !== undefined; s = this.table.next()) this.analyze(s, 0);
  }

  private newSpec(
    fn: FunDef,
    ctx: Chain,
    args: readonly AbsValue[],
    reps: readonly Rep[],
    isRoot = false,
  ): Spec {
    const spec = this.table.create(fn, ctx, args, reps, isRoot);
    this.budget.specMade(this.table.size);
    return spec;
  }

  // ---- losses of precision ---------------------------------------------------------------

  /** What `what` (a parameter or the result) of `spec` lost, counted and recorded. */
  private lose(spec: Spec, what: string, loss: GrowLoss): void {
    if (loss.kind === 'top') this.stats.widenedToTop++;
    else if (loss.kind === 'folded') this.stats.folded++;
    else this.stats.skeletons++;
    this.event(spec, what, loss.reason, loss.to);
  }

  private event(spec: Spec, what: string, reason: PeEvent['reason'], to: string): void {
    this.events.push({
      spec: spec.name,
      fn: spec.fn.name,
      key: describeSpec(spec, this.ctors),
      what,
      reason,
      to,
    });
  }

  /**
   * Gives up specializing `spec` once the budget is spent: from now on its body is a call of the
   * original (generic) function, its result `1`, and nothing it would have analysed is analysed.
   */
  private generalize(spec: Spec): void {
    if (spec.generalized) return;
    spec.generalized = true;
    this.stats.generalized++;
    this.event(spec, 'params', 'budget', 'a call of the original function');
    if (!spec.analyzing) this.settleGeneric(spec);
  }

  /** A given-up `spec` as the residual program keeps it: a call of the original function. */
  private settleGeneric(spec: Spec): void {
    const span = spec.fn.span;
    // the original function takes and returns plain values
    const rep = spec.result.rep;
    if (spec.params.some((p) => p.rep !== undefined) || (rep !== NO_REP && rep !== undefined)) {
      for (const p of spec.params) p.rep = undefined;
      this.table.markCallersDirty(spec);
    }
    spec.result.rep = undefined;
    spec.body = this.genericCall(
      spec.fn.name,
      spec.fn.params.map((p) => this.code.node({ kind: 'var', name: p }, span)),
      span,
    );
    spec.cs = new Map();
    if (spec.result.value.kind !== 'top') {
      spec.result.value = top();
      spec.result.top = true;
      this.table.markCallersDirty(spec);
    }
    this.table.settled(spec);
  }

  /** A call of the original function `fn`, kept in the residual program as it is. */
  private genericCall(fn: string, args: readonly CoreExpr[], span: SourceSpan): CoreExpr {
    this.genericFns.add(fn);
    return this.code.node({ kind: 'call', fn, args }, span);
  }

  // ---- analyses of specializations -----------------------------------------------------

  /** Whether `fn`'s body calls no function (a helper that can be unfolded anywhere). */
  private callFree(fn: FunDef): boolean {
    let r = this.callFreeMemo.get(fn.name);
    if (r === undefined) {
      r = true;
      forEachExpr(fn.body, (x) => {
        if (x.kind === 'call') r = false;
      });
      this.callFreeMemo.set(fn.name, r);
    }
    return r;
  }

  /**
   * Evaluates `spec`'s body for its parameters, `nest` analyses and unfoldings deep, and updates
   * its residual body and result (`growResult`).
   */
  private analyze(spec: Spec, nest: number): void {
    if (spec.generalized) {
      this.settleGeneric(spec);
      return;
    }
    this.stats.analyses++;
    this.table.begin(spec);
    // an analysis starts on a static path of its own, outside any unfolding
    const at = atAnalysis(spec, nest);
    const { result: res, cs } = this.code.analysis(() =>
      this.settleRep(spec, this.ev(spec.fn.body, this.paramEnv(spec), at)),
    );
    spec.body = res.r;
    spec.cs = cs;
    this.table.ended(spec);
    if (spec.generalized) {
      this.settleGeneric(spec);
      return;
    }
    this.growResult(spec, res.v);
    this.table.requeue(spec);
  }

  /** The parameters of `spec` bound to their slots' values (constants where those are singletons). */
  private paramEnv(spec: Spec): Env | undefined {
    let env: Env | undefined;
    spec.fn.params.forEach((p, i) => {
      const slot = spec.params[i] as Slot;
      const v = slot.value;
      const r = this.code.residualOf(
        v,
        () => this.code.node({ kind: 'var', name: p }, spec.fn.span),
        undefined,
        slot.rep,
      );
      env = { name: p, b: { v, r, rep: r.kind === 'lit' ? undefined : slot.rep }, next: env };
    });
    return env;
  }

  /**
   * The body's binding `res` as the result's representation has it: the first analysis decides
   * it; a different one later, or the entry's interface, makes it plain (callers analysed with
   * the old one are analysed again). A body that cannot return yet — its recursion has no result
   * so far — decides nothing.
   */
  private settleRep(spec: Spec, res: Binding): Binding {
    const span = spec.fn.span;
    if (spec.isRoot) return this.raise.plain(res, span);
    if (res.v.kind === 'bottom') return res;
    const rep = spec.result.rep;
    if (rep === NO_REP) {
      // a plain result whose maps are constants takes the representation those constants
      // naturally have (`literalRep`: raised), as a constant argument does: otherwise a first
      // analysis on constant states (no facts yet) would decide plain for every later one
      const decided = res.rep === undefined ? this.raise.meet(res, literalRep(res.v), span) : res;
      spec.result.rep = decided.rep;
      if (decided.rep !== undefined) this.table.markCallersDirty(spec);
      return decided;
    }
    if (rep !== undefined && this.raise.meeting(res, rep) === 'differs') {
      spec.result.rep = undefined;
      this.table.markCallersDirty(spec);
    }
    return this.raise.meet(res, rep, span);
  }

  /** `spec`'s result grown by what its last analysis returned (`growSlots`); its callers marked dirty when it grew. */
  private growResult(spec: Spec, v: AbsValue): void {
    if (spec.isRoot && spec.callers.size === 0) {
      // nothing calls the entry: its result is what its last analysis — made with the final
      // results of everything it calls — returns, with no join, widening or cap
      spec.result.value = v;
      return;
    }
    const g = growSlots(spec.resultSteps, [spec.result], [v], {
      kind: 'result',
      limits: () => slotLimits('result', spec.ctx.key.values, this.limits),
      fresh: (x) => x,
      lose: (_, loss) => this.lose(spec, 'result', loss),
      held: false,
    });
    if (g.widened) this.widened = true;
    if (g.grew) this.table.markCallersDirty(spec);
  }

  // ---- expressions ----------------------------------------------------------------------

  private ev(e: CoreExpr, env: Env | undefined, at: Cursor): Binding {
    this.budget.visit();
    switch (e.kind) {
      case 'var': {
        const b = lookup(env, e.name);
        if (!b) throw new Error(`internal error: unbound variable '${e.name}' in ${at.spec.fn.name}`);
        return b;
      }
      case 'lit': {
        let v = this.litValues.get(e);
        if (!v) {
          v = fromConcrete(e.value, this.ctors);
          this.litValues.set(e, v);
        }
        const r = this.code.node({ kind: 'lit', value: e.value }, e.span);
        this.code.cs.set(r.label, v);
        return { v, r };
      }
      case 'con': {
        const args = e.args.map((a) => this.ev(a, env, at));
        const v = con(
          e.ctor,
          args.map((a) => a.v),
        );
        const b = this.code.bind(
          v,
          () => this.code.node({ kind: 'con', ctor: e.ctor, args: args.map((a) => a.r) }, e.span),
          e.span,
          conRep(
            e.ctor,
            args.map((a) => a.rep),
          ),
        );
        return b.r.kind === 'con' && args.every((a) => isAtom(a.r))
          ? this.code.withFields(b, { ctor: e.ctor, args })
          : b;
      }
      case 'test': {
        // a constructor test on a raised map would see the tuple: test the map itself
        const a = this.raise.tupleFree(this.ev(e.arg, env, at), e.span);
        const v = testCtor(e.ctor, a.v, this.arity(e.ctor));
        return {
          v,
          r: this.code.residualOf(
            v,
            () => this.code.node({ kind: 'test', ctor: e.ctor, arg: a.r }, e.span),
            e.span,
          ),
        };
      }
      case 'proj': {
        const a = this.raise.tupleFree(this.ev(e.arg, env, at), e.span);
        const v = project(e.ctor, e.index, a.v);
        const field = a.fields?.ctor === e.ctor ? a.fields.args[e.index] : undefined;
        if (field !== undefined && inScope(field.r, env))
          return this.code.bind(v, () => this.raise.copyAtom(field.r), e.span, field.rep);
        // a field of a represented constructor keeps its representation
        const rep = a.rep?.kind === 'con' && a.rep.ctor === e.ctor ? a.rep.args[e.index] : undefined;
        return this.code.bind(
          v,
          () => this.code.node({ kind: 'proj', ctor: e.ctor, index: e.index, arg: a.r }, e.span),
          e.span,
          rep,
        );
      }
      case 'if':
        return this.evIf(e, env, at);
      case 'let': {
        // (no helper frame around the body: Core nests a let per `const`, so this recursion is
        // as deep as an optimizer's longest chain of consts)
        const x = this.ev(e.value, env, at);
        const bound = this.letBound(e.name, x, e.span, at);
        return this.letWrap(bound, x, this.ev(e.body, { name: e.name, b: bound, next: env }, at), e.span);
      }
      case 'prim': {
        const args = e.args.map((a) => this.ev(a, env, at));
        const raised = this.raise.raisedPrim(e.op, args, e.span, at.late > 0);
        if (raised) return raised;
        const plainArgs = args.map((a) => this.raise.plain(a, e.span));
        const v = ABS_PRIMS[e.op](...plainArgs.map((a) => a.v));
        return {
          v,
          r: this.code.residualOf(
            v,
            () => this.code.node({ kind: 'prim', op: e.op, args: plainArgs.map((a) => a.r) }, e.span),
            e.span,
          ),
        };
      }
      case 'call':
        return this.call(e, env, at);
      default:
        return assertNever(e);
    }
  }

  /** An `if`: a known condition takes its branch; a late one evaluates both, each narrowed (`refine`). */
  private evIf(e: Extract<CoreExpr, { kind: 'if' }>, env: Env | undefined, at: Cursor): Binding {
    const c = this.ev(e.cond, env, at);
    const { t, f } = truthValues(c.v);
    if (!t && !f) return { v: bottom(), r: c.r };
    if (!f) return this.ev(e.then, refine(this.code, e.cond, env, true), at);
    if (!t) return this.ev(e.else, refine(this.code, e.cond, env, false), at);
    // both branches: each is on a late path (a call there is not unfolded)
    const late = pastLateTest(at);
    const a0 = this.ev(e.then, refine(this.code, e.cond, env, true), late);
    const b0 = this.ev(e.else, refine(this.code, e.cond, env, false), late);
    // one representation for both branches (a branch that cannot return does not count)
    const met = this.raise.meetAll([a0, b0], e.span, true);
    const a = met.bs[0] as Binding;
    const b = met.bs[1] as Binding;
    const v = a.v.kind === 'bottom' ? b.v : b.v.kind === 'bottom' ? a.v : join(a.v, b.v).value;
    return this.code.bind(
      v,
      // biome-ignore lint/suspicious/noThenProperty: Core's `if` node has a `then` field
      () => this.code.node({ kind: 'if', cond: c.r, then: a.r, else: b.r }, e.span),
      e.span,
      met.rep,
    );
  }

  /**
   * `let name = x in …`: what `name` is bound to — `x` itself when it is a constant or a variable,
   * else a residual variable. Inside an unfolded call the variable gets a name of its own
   * (`name$uN`): it cannot capture a caller's variable of the same name that an argument refers to.
   */
  private letBound(name: string, x: Binding, span: SourceSpan, at: Cursor): Binding {
    if (x.r.kind === 'lit' || x.r.kind === 'var') return x;
    const rname = at.unfolding > 0 ? `${name}$u${this.nextUnfoldVar++}` : name;
    return this.code.withFields(
      this.code.bind(x.v, () => this.code.node({ kind: 'var', name: rname }, span), span, x.rep),
      x.fields,
    );
  }

  /** The residual `let` of `bound` (from `letBound`) around the body's binding `b`. */
  private letWrap(bound: Binding, x: Binding, b: Binding, span: SourceSpan): Binding {
    if (bound === x) return b; // nothing to bind: uses were replaced by the constant or variable
    const name = (bound.r as Extract<CoreExpr, { kind: 'var' }>).name;
    const r = this.code.node({ kind: 'let', name, value: x.r, body: b.r }, span);
    this.code.cs.set(r.label, b.rep === undefined ? b.v : new View(b.v, b.rep));
    return b.rep === undefined ? { v: b.v, r } : { v: b.v, r, rep: b.rep };
  }

  /**
   * `fn`'s body evaluated in place for `args` (the parameters let-bound to them), its calls made
   * in context `ctx` — the one a specialization of this call would have had.
   */
  private unfold(
    fn: FunDef,
    args: readonly Binding[],
    ctx: Chain,
    env: Env | undefined,
    at: Cursor,
    span: SourceSpan,
  ): Binding {
    this.stats.unfolded++;
    const inner = inUnfolded(at, ctx);
    // the parameters bound in order, the body evaluated, then the residual lets around it
    const bound = fn.params.map((p, i) => this.letBound(p, args[i] as Binding, span, inner));
    let innerEnv = env;
    fn.params.forEach((p, i) => {
      innerEnv = { name: p, b: bound[i] as Binding, next: innerEnv };
    });
    let out = this.ev(fn.body, innerEnv, inner);
    for (let i = fn.params.length - 1; i >= 0; i--)
      out = this.letWrap(bound[i] as Binding, args[i] as Binding, out, span);
    return out;
  }

  private arity(ctor: string): number | undefined {
    return this.ctors.get(ctor)?.fields.length;
  }

  // ---- calls: static, unfolded, dispatched or specialized --------------------------------

  private call(e: CoreCall, env: Env | undefined, at: Cursor): Binding {
    const fn = this.program.funs.get(e.fn);
    if (!fn) throw new Error(`internal error: call of unknown function '${e.fn}'`);
    // f(…, c ? x : y, …) with a key (finite) parameter there: c ? f(…, x, …) : f(…, y, …), so
    // that when c is late each call is still specialized to a known node rather than to the
    // union of both (which makes everything below it late)
    const finite = this.finite.get(fn.name) as readonly boolean[];
    const split = e.args.findIndex((a, i) => finite[i] && a.kind === 'if');
    if (split >= 0) {
      const a = e.args[split] as Extract<CoreExpr, { kind: 'if' }>;
      const branch = (x: CoreExpr): CoreExpr => ({ ...e, args: e.args.map((y, i) => (i === split ? x : y)) });
      // biome-ignore lint/suspicious/noThenProperty: Core's `if` node has a `then` field
      return this.ev({ ...a, then: branch(a.then), else: branch(a.else) }, env, at);
    }
    const args = e.args.map((a) => this.ev(a, env, at));
    // an argument with no value: no run gets past it, so neither does the call (the residual is
    // that argument's code; keeping the call would need the original function in the program)
    const stuck = args.find((a) => a.v.kind === 'bottom');
    if (stuck) return { v: bottom(), r: stuck.r };
    // static call: every argument known (while the run's static work lasts)
    if (this.budget.staticCallsLeft() && args.every((a) => a.r.kind === 'lit')) {
      const folded = this.staticCall(fn, args, e.span);
      if (folded) return folded;
    }
    // on a static path the call is unfolded with the exact union (below); past a late test it is
    // specialized, and there a union of records told apart is dispatched on the field
    const byField = at.late > 0 ? splitKey(finite, args) : undefined;
    if (byField) return this.dispatch(fn, e, args, at, finite, byField, env);
    return this.callWith(fn, e, args, at, finite, env);
  }

  /** `fn` run concretely on constant `args`, folded to its result; `undefined` when it fails or runs long. */
  private staticCall(fn: FunDef, args: readonly Binding[], span: SourceSpan): Binding | undefined {
    try {
      const out = this.interp.run(
        fn.name,
        args.map((a) => (a.r as Extract<CoreExpr, { kind: 'lit' }>).value),
        { maxSteps: this.limits.staticCallSteps },
      );
      this.stats.staticWork += out.counts.total;
      this.stats.staticCalls++;
      const v = fromConcrete(out.value, this.ctors);
      const r = this.code.node({ kind: 'lit', value: out.value as Value }, span);
      this.code.cs.set(r.label, v);
      return { v, r };
    } catch (err) {
      if (!(err instanceof ScfRuntimeError)) throw err;
      this.stats.staticWork += this.interp.lastSteps;
      // fails or runs long concretely: specialize it like any other call
      return undefined;
    }
  }

  /**
   * `f(…, x, …)` with `x` a union of records told apart by a field (`splitKey`): a residual test
   * of the field picks, for each group of records, a call specialized to that group
   * (`dispatchTests`). Every argument is bound once around the dispatch; the branches are on a
   * late path. (SCF's specializations are per input node; this keeps them so when an earlier
   * pass's output is one of several programs.)
   */
  private dispatch(
    fn: FunDef,
    e: CoreCall,
    args: readonly Binding[],
    at: Cursor,
    finite: readonly boolean[],
    split: Split,
    env: Env | undefined,
  ): Binding {
    this.stats.dispatches++;
    const id = this.nextSplit++;
    const bound = args.map((a, j) => this.letBound(`$k${id}_${j}`, a, e.span, at));
    const late = pastLateTest(at);
    const branches = split.groups.map((g) =>
      this.callWith(
        fn,
        e,
        bound.map((b, j) => (j === split.index ? { v: union(g.alts), r: b.r, rep: b.rep } : b)),
        late,
        finite,
        env,
      ),
    );
    // one representation for every branch, as for an `if`
    const met = this.raise.meetAll(branches, e.span, false);
    let out = dispatchTests(this.code, split, bound[split.index] as Binding, met.bs, met.rep, e.span);
    for (let j = bound.length - 1; j >= 0; j--)
      out = this.letWrap(bound[j] as Binding, args[j] as Binding, out, e.span);
    return out;
  }

  /** The context of calling `fn` with `args` from where `at` is (context.ts), and the arguments' representations. */
  private calleeContext(
    fn: FunDef,
    args: readonly Binding[],
    at: Cursor,
    finite: readonly boolean[],
  ): { readonly ctx: Chain; readonly argReps: readonly Rep[] } {
    const earlier = this.contexts.nearest(at.ctx, fn.name);
    const keyValues = args.map((a, i) => {
      if (finite[i]) return a.v;
      if (a.r.kind !== 'lit') return undefined;
      if (!earlier) return a.v;
      const before = earlier.values[i];
      // smaller than at the earlier call; with `keyEqualArgs`, or equal to it: an equal value
      // repeats that key (which the chain's bound k folds back), so neither makes ever new keys
      if (before === undefined) return undefined;
      return size(a.v) < size(before) || (this.limits.keyEqualArgs && equals(a.v, before)) ? a.v : undefined;
    });
    // arguments represented differently (a raised map here, a plain one there) get different
    // specializations, so one plain caller does not make the parameter plain for every caller
    // a constant argument counts as represented the way its value naturally is (a map raised):
    // a constant environment (every variable known) passed where raised ones are passed too
    // does not make the parameter plain
    const argReps = args.map((a) => (a.rep === undefined && a.r.kind === 'lit' ? literalRep(a.v) : a.rep));
    const reps = repSignature(argReps);
    const key = this.contexts.key(fn.name, reps === undefined ? keyValues : [...keyValues, constant(reps)]);
    return { ctx: this.contexts.push(key, at.ctx), argReps };
  }

  /** A call whose arguments are evaluated: unfolded or specialized (see `call`). */
  private callWith(
    fn: FunDef,
    e: CoreCall,
    args: readonly Binding[],
    at: Cursor,
    finite: readonly boolean[],
    env: Env | undefined,
  ): Binding {
    const caller = at.spec;
    const { ctx, argReps } = this.calleeContext(fn, args, at, finite);
    // on a static path (no late test open since the caller's analysis began, so every decision
    // up to here is known): evaluated in place with the exact arguments — no join with other
    // callers of the context, no freshened tags, no cap on the result
    const deep = at.nest >= NEST_LIMIT;
    if (
      (at.late === 0 || this.callFree(fn)) &&
      at.unfolding < this.limits.unfoldDepth &&
      !deep &&
      !this.budget.exhausted &&
      !caller.generalized
    )
      return this.unfold(fn, args, ctx, env, at, e.span);
    let spec = this.table.get(ctx);
    if (!spec && this.budget.exhausted) {
      // out of budget: residualize the call as it is
      const v = top();
      const r = this.genericCall(
        fn.name,
        args.map((a) => this.raise.plain(a, e.span).r),
        e.span,
      );
      this.code.cs.set(r.label, v);
      return { v, r };
    }
    if (!spec) {
      spec = this.newSpec(
        fn,
        ctx,
        args.map((a) => this.code.retag(a.v)),
        argReps,
      );
      this.table.addCaller(spec, caller);
      // too deep: analysed from the worklist (its result is `0` until then; this caller is
      // analysed again when it grows)
      if (deep) {
        this.stats.deferred++;
        this.table.defer(spec);
      } else this.analyze(spec, at.nest + 1);
    } else this.addCall(spec, args, caller, at.nest, deep);
    const callee = spec;
    const v = this.code.retag(callee.result.value);
    // arguments as the parameters represent them (a differing one is plain: see `addCall`)
    const actuals = args.map((a, i) => this.raise.meet(a, (callee.params[i] as Slot).rep, e.span).r);
    const rep = callee.result.rep;
    return this.code.bind(
      v,
      () => this.code.node({ kind: 'call', fn: callee.name, args: actuals }, e.span),
      e.span,
      rep === NO_REP ? undefined : rep,
    );
  }

  /**
   * A call reaching an existing specialization: the caller is recorded; an argument that differs
   * from its parameter's representation (`meeting`) makes the parameter plain (every other
   * caller analysed again); arguments outside the parameters grow them (`growSlots`), and the
   * specialization is analysed again (from the worklist when it is being analysed, or too deep).
   * Past the budget a specialization whose arguments still grow is given up (`generalize`).
   */
  private addCall(spec: Spec, args: readonly Binding[], caller: Spec, nest: number, deep: boolean): void {
    this.table.addCaller(spec, caller);
    let repChanged = false;
    args.forEach((a, i) => {
      const slot = spec.params[i] as Slot;
      if (slot.rep !== undefined && this.raise.meeting(a, slot.rep) === 'differs') {
        slot.rep = undefined;
        repChanged = true;
      }
    });
    if (repChanged) this.table.markCallersDirty(spec, caller);
    let grew = false;
    if (!spec.generalized) {
      const g = growSlots(
        spec.paramSteps,
        spec.params,
        args.map((a) => a.v),
        {
          kind: 'params',
          limits: () => slotLimits('params', spec.ctx.key.values, this.limits),
          fresh: (v) => this.code.retag(v),
          lose: (i, loss) => this.lose(spec, paramWhat(spec, i), loss),
          held: this.budget.exhausted,
        },
      );
      if (g.widened) this.widened = true;
      if (g.held) this.generalize(spec);
      grew = g.grew;
    }
    if ((grew || repChanged) && !spec.generalized) {
      if (spec.analyzing || deep) this.table.markDirty(spec);
      else this.analyze(spec, nest + 1);
    }
  }
}
