/**
 * The online partial evaluator (SCF §3, Fig. 8's PE): abstract execution of a Core program on
 * an abstract input, producing a residual program, the collecting-semantics map `cs` and the
 * abstract output. This module is its core — evaluation, calls, specializations and the
 * worklist; the rest lives beside it:
 * - residual.ts: bindings (a value with its residual code) and the builder code is made with;
 * - narrow.ts: conditions and what their outcomes narrow;
 * - context.ts and finiteness.ts: specialization keys and the call chains of keys (SCF §3.4);
 * - specs.ts: the table of specializations (one per context), the worklist, generalization;
 * - growth.ts: how a specialization's parameters and result grow (joins, widening, caps, fuel);
 * - dispatch.ts: which calls become a residual test of a field, a specialization per record;
 * - raise.ts: arity raising of maps with known keys, and representations;
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
 *   specialization per context (memoized in `specs`); its parameters are the join of all
 *   arguments it was called with, its result the join of what its body returned. A call whose
 *   key (finite) argument is a conditional, `f(c ? x : y)`, is evaluated as `c ? f(x) : f(y)`:
 *   with `c` late, each call is still specialized to a known node, not to the union of both.
 *   Past a late test, a key argument that is a union of records told apart by a field is
 *   dispatched on it (dispatch.ts).
 * - Unfolding. A call on a static path — no `if` with a late condition open around it since the
 *   analysis of the enclosing specialization began (`late` counts the open ones) — is not
 *   specialized but unfolded: the callee's body is evaluated in place with the exact argument
 *   bindings (values, tags and representations; no join with other callers, no cap on the
 *   result), its parameters and lets bound under residual names of their own (`x$uN`). Calls
 *   made inside it are keyed in the context a specialization of it would have had
 *   (`ctxOverride`), so contexts still tell its callers apart. Specialized call chains join the
 *   states of every path that ends in the same keys (context.ts); on a static path nothing
 *   needs joining, since every decision is known. A call-free helper (`mkSeq`, `reachable`) is
 *   unfolded on late paths too: it has no recursion to bound, and specialized it joins the values
 *   of every caller in its context (a command list's spine through `mkSeq`). Termination:
 *   `unfoldDepth` bounds the nesting; a recursion whose end depends on late data meets a late
 *   test first and is specialized from there on.
 * - Recursion through one context is solved as a fixpoint with a worklist: a specialization is
 *   re-analysed when its arguments grow (`addCall`), or when the result of a specialization it
 *   called grew (`analyze` marks its callers dirty). Each change goes through growth.ts (`grow`,
 *   then `pin` past the fuel, then `1`); every loss is recorded as a `PeEvent`
 *   (`scf stage --explain`).
 * - Every binding carries its representation (raise.ts); where two differ — an argument and its
 *   parameter (`addCall`, `callWith`), a body and its specialization's result (`analyze`), the
 *   branches of an `if` or of a dispatch — one side takes the other's (constants) or both
 *   become plain. A representation only ever becomes plain.
 * - Analyses and unfoldings open inside one another are bounded by NEST_LIMIT (each is a
 *   JavaScript recursion): a call that would open one more is specialized and analysed later,
 *   from the worklist, at depth 0, its caller seeing `0` until then (`PeStats.deferred`).
 * - Budgets, all counted in work (never in time, so the residual program is a pure function of
 *   the program, the input and the options, whatever the machine's load): past a visit budget or
 *   a spec count, calls without a specialization yet are residualized as calls of the original
 *   functions (which then join the residual program), and specializations whose arguments still
 *   grow are given up the same way; past four times the visits, or past `maxNodes` abstract
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
  consts,
  fromConcrete,
  join,
  leq,
  project,
  equals,
  size,
  shapeJoin,
  TagCeilingReached,
  testCtor,
  top,
  union,
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
import { type Split, type SplitGroup, splitKey } from './dispatch.js';
import { type Finiteness, finitenessAnalysis } from './finiteness.js';
import { SKELETON_STEPS } from './growth.js';
import { refine, truthValues } from './narrow.js';
import { conRep, literalRep, type Rep, repSignature, sameRep } from './raise.js';
import { Specializations } from './specs.js';
import { type Binding, type Env, inScope, isAtom, lookup, View } from './residual.js';
import {
  MAX_NODES,
  NEST_LIMIT,
  NO_REP,
  type PeOptions,
  type PeResult,
  type Spec,
  STATIC_WORK,
  UNFOLD_DEPTH,
} from './types.js';

/** A hard budget ran out: `what` says which, in words for `PeResult.reason`. */
class BudgetExceeded extends Error {
  constructor(readonly what: string) {
    super(what);
  }
}

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
  const maxNodes = opts.maxNodes ?? MAX_NODES;
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

class PartialEvaluator extends Specializations {
  readonly finite: Finiteness;
  readonly contexts: Contexts;
  readonly interp: Interpreter;
  readonly budget: number;
  readonly hardBudget: number;
  private readonly litValues = new WeakMap<CoreExpr, AbsValue>();
  private readonly staticSteps: number;
  private readonly unfoldDepth: number;
  /** Whether a singleton argument equal to the earlier call's keys its call (PeOptions). */
  private readonly keyEqualArgs: boolean;
  /** Calls being unfolded, one inside the other (in the current analysis). */
  private unfolding = 0;
  /** Analyses and unfoldings open, one inside the other (all analyses; NEST_LIMIT). */
  private nest = 0;
  /** How many `if`s with a late condition are open around the evaluation (in the current analysis). */
  private late = 0;
  /** Inside an unfolded call: the context its calls are made in (else their caller's). */
  private ctxOverride: Chain | undefined = undefined;
  /** Numbers the residual variables of unfolded bodies apart. */
  private nextUnfoldVar = 0;
  private nextSplit = 0;
  private nextProgress = 100_000;

  constructor(program: CoreProgram, opts: PeOptions) {
    super(program, opts);
    this.finite = finitenessAnalysis(program);
    this.contexts = new Contexts(opts.k ?? 2, opts.chainDepth ?? 2);
    this.interp = new Interpreter(program);
    this.budget = opts.budget ?? 800_000;
    this.hardBudget = this.budget * 4;

    this.staticSteps = opts.staticCallSteps ?? 2_000_000;
    this.unfoldDepth = opts.unfoldDepth ?? UNFOLD_DEPTH;
    this.keyEqualArgs = opts.keyEqualArgs ?? false;
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
    this.analyze(spec);
    this.drain();
    return this.finish(spec);
  }

  // ---- analyses of specializations -----------------------------------------------------

  private readonly callFreeMemo = new Map<string, boolean>();

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

  /** `analyze` one level deeper in the nesting `NEST_LIMIT` bounds. */
  protected analyzeNested(spec: Spec): void {
    this.nest++;
    try {
      this.analyze(spec);
    } finally {
      this.nest--;
    }
  }

  protected analyze(spec: Spec): void {
    if (spec.generalized) {
      this.settleGeneric(spec);
      return;
    }
    this.stats.analyses++;
    spec.analyzing = true;
    // an analysis starts on a static path of its own, outside any unfolding
    const outer = { unfolding: this.unfolding, late: this.late, ctx: this.ctxOverride };
    this.unfolding = 0;
    this.late = 0;
    this.ctxOverride = undefined;
    spec.dirty = false;
    const outerCs = this.code.cs;
    this.code.cs = new Map();
    let env: Env | undefined;
    spec.fn.params.forEach((p, i) => {
      const v = spec.args[i] as AbsValue;
      const r = this.code.residualOf(
        v,
        () => this.code.node({ kind: 'var', name: p }, spec.fn.span),
        undefined,
        spec.paramReps[i],
      );
      env = { name: p, b: { v, r, rep: r.kind === 'lit' ? undefined : spec.paramReps[i] }, next: env };
    });
    let res = this.ev(spec.fn.body, env, spec);
    // the result's representation: the first analysis decides it; a different one later, or the
    // entry's interface, makes it plain (callers analysed with the old one are analysed again)
    // (a body that cannot return yet — its recursion has no result so far — decides nothing)
    if (spec.isRoot) res = this.raise.plain(res, spec.fn.span);
    else if (res.v.kind === 'bottom') {
      // no run returns: the residual's representation is immaterial
    } else if (spec.retRep === NO_REP) {
      // a plain result whose maps are constants takes the representation those constants
      // naturally have (`literalRep`: raised), as a constant argument does: otherwise a first
      // analysis on constant states (no facts yet) would decide plain for every later one
      const natural = res.rep === undefined ? literalRep(res.v) : undefined;
      if (natural !== undefined && this.raise.representable(res, natural))
        res = this.raise.literalAs(res, natural, spec.fn.span);
      spec.retRep = res.rep;
      if (res.rep !== undefined) for (const c of spec.callers) this.markDirty(c);
    } else if (!sameRep(spec.retRep, res.rep) && this.raise.representable(res, spec.retRep)) {
      // a constant result takes the representation decided before
      res = this.raise.literalAs(res, spec.retRep, spec.fn.span);
    } else if (!sameRep(spec.retRep, res.rep)) {
      if (spec.retRep !== undefined) {
        spec.retRep = undefined;
        for (const c of spec.callers) this.markDirty(c);
      }
      res = this.raise.plain(res, spec.fn.span);
    }
    spec.body = res.r;
    spec.cs = this.code.cs;
    this.code.cs = outerCs;
    spec.analyzing = false;
    this.unfolding = outer.unfolding;
    this.late = outer.late;
    this.ctxOverride = outer.ctx;
    if (spec.generalized) {
      this.settleGeneric(spec);
      return;
    }
    if (spec.isRoot && spec.callers.size === 0) {
      // nothing calls the entry: its result is what its last analysis — made with the final
      // results of everything it calls — returns, with no join, widening or cap
      spec.ret = res.v;
    } else if (!spec.retTop && !leq(res.v, spec.ret)) {
      spec.retChanges++;
      if (spec.retPinned) {
        // it outgrew its pinned shape: `1`, which no later analysis can outgrow
        spec.retTop = true;
        this.stats.widenedToTop++;
        this.event(spec, 'result', 'spec-fuel', '1');
        spec.ret = top();
      } else if (spec.retChanges > this.specFuel + SKELETON_STEPS) {
        // out of fuel: the result keeps only its constructors and map keys (so an environment
        // stays a map with known keys, and arity-raised), one more change makes it `1`
        spec.retPinned = true;
        spec.ret = this.pin(spec, 'result', shapeJoin(spec.ret, res.v));
      } else {
        spec.ret = this.grow(spec.ret, res.v, spec.retChanges - 1, spec, 'result');
      }
      for (const c of spec.callers) this.markDirty(c);
    }
    if (spec.dirty) this.worklist.push(spec);
  }

  // ---- expressions ----------------------------------------------------------------------

  private ev(e: CoreExpr, env: Env | undefined, spec: Spec): Binding {
    if (++this.stats.visits > this.budget) {
      this.exhaust(`the budget of ${this.budget} expression visits ran out`);
      if (this.stats.visits > this.hardBudget)
        throw new BudgetExceeded(`the hard budget ran out (${this.hardBudget} expression visits)`);
    }
    if (this.stats.visits >= this.nextProgress) {
      this.nextProgress += 100_000;
      this.opts.onProgress?.(this.stats);
    }
    switch (e.kind) {
      case 'var': {
        const b = lookup(env, e.name);
        if (!b) throw new Error(`internal error: unbound variable '${e.name}' in ${spec.fn.name}`);
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
        const args = e.args.map((a) => this.ev(a, env, spec));
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
        const a = this.raise.tupleFree(this.ev(e.arg, env, spec), e.span);
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
        const a = this.raise.tupleFree(this.ev(e.arg, env, spec), e.span);
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
        return this.evIf(e, env, spec);
      case 'let': {
        // (no helper frame around the body: Core nests a let per `const`, so this recursion is
        // as deep as an optimizer's longest chain of consts)
        const x = this.ev(e.value, env, spec);
        const bound = this.letBound(e.name, x, e.span);
        return this.letWrap(bound, x, this.ev(e.body, { name: e.name, b: bound, next: env }, spec), e.span);
      }
      case 'prim': {
        const args = e.args.map((a) => this.ev(a, env, spec));
        const raised = this.raise.raisedPrim(e.op, args, e.span, this.late > 0);
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
        return this.call(e, env, spec);
      default:
        return assertNever(e);
    }
  }

  /** An `if`: a known condition takes its branch; a late one evaluates both, each narrowed (`refine`). */
  private evIf(e: Extract<CoreExpr, { kind: 'if' }>, env: Env | undefined, spec: Spec): Binding {
    const c = this.ev(e.cond, env, spec);
    const { t, f } = truthValues(c.v);
    if (!t && !f) return { v: bottom(), r: c.r };
    if (!f) return this.ev(e.then, refine(this.code, e.cond, env, true), spec);
    if (!t) return this.ev(e.else, refine(this.code, e.cond, env, false), spec);
    // both branches: each is on a late path (a call there is not unfolded)
    this.late++;
    let a: Binding;
    let b: Binding;
    try {
      a = this.ev(e.then, refine(this.code, e.cond, env, true), spec);
      b = this.ev(e.else, refine(this.code, e.cond, env, false), spec);
    } finally {
      this.late--;
    }
    // one representation for both branches (a branch that cannot return does not count)
    let rep: Rep;
    if (a.v.kind === 'bottom') rep = b.rep;
    else if (b.v.kind === 'bottom') rep = a.rep;
    else if (sameRep(a.rep, b.rep)) rep = a.rep;
    else if (this.raise.representable(a, b.rep)) {
      // a constant branch takes the other branch's representation
      a = this.raise.literalAs(a, b.rep, e.span);
      rep = b.rep;
    } else if (this.raise.representable(b, a.rep)) {
      b = this.raise.literalAs(b, a.rep, e.span);
      rep = a.rep;
    } else {
      a = this.raise.plain(a, e.span);
      b = this.raise.plain(b, e.span);
      rep = undefined;
    }
    const v = a.v.kind === 'bottom' ? b.v : b.v.kind === 'bottom' ? a.v : join(a.v, b.v).value;
    return this.code.bind(
      v,
      // biome-ignore lint/suspicious/noThenProperty: Core's `if` node has a `then` field
      () => this.code.node({ kind: 'if', cond: c.r, then: a.r, else: b.r }, e.span),
      e.span,
      rep,
    );
  }

  /**
   * `let name = x in …`: what `name` is bound to — `x` itself when it is a constant or a variable,
   * else a residual variable. Inside an unfolded call the variable gets a name of its own
   * (`name$uN`): it cannot capture a caller's variable of the same name that an argument refers to.
   */
  private letBound(name: string, x: Binding, span: SourceSpan): Binding {
    if (x.r.kind === 'lit' || x.r.kind === 'var') return x;
    const rname = this.unfolding > 0 ? `${name}$u${this.nextUnfoldVar++}` : name;
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
    caller: Spec,
    span: SourceSpan,
  ): Binding {
    this.stats.unfolded++;
    const outerCtx = this.ctxOverride;
    this.unfolding++;
    this.nest++;
    this.ctxOverride = ctx;
    try {
      // the parameters bound in order, the body evaluated, then the residual lets around it
      const bound = fn.params.map((p, i) => this.letBound(p, args[i] as Binding, span));
      let inner = env;
      fn.params.forEach((p, i) => {
        inner = { name: p, b: bound[i] as Binding, next: inner };
      });
      let out = this.ev(fn.body, inner, caller);
      for (let i = fn.params.length - 1; i >= 0; i--)
        out = this.letWrap(bound[i] as Binding, args[i] as Binding, out, span);
      return out;
    } finally {
      this.unfolding--;
      this.nest--;
      this.ctxOverride = outerCtx;
    }
  }

  private arity(ctor: string): number | undefined {
    return this.ctors.get(ctor)?.fields.length;
  }

  // ---- calls: static, unfolded, dispatched or specialized --------------------------------

  private call(e: CoreCall, env: Env | undefined, caller: Spec): Binding {
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
      return this.ev({ ...a, then: branch(a.then), else: branch(a.else) }, env, caller);
    }
    const args = e.args.map((a) => this.ev(a, env, caller));
    // an argument with no value: no run gets past it, so neither does the call (the residual is
    // that argument's code; keeping the call would need the original function in the program)
    const stuck = args.find((a) => a.v.kind === 'bottom');
    if (stuck) return { v: bottom(), r: stuck.r };

    // static call: every argument known (while the run's static work lasts)
    if (
      this.staticSteps > 0 &&
      this.stats.staticWork < STATIC_WORK &&
      args.every((a) => a.r.kind === 'lit')
    ) {
      try {
        const out = this.interp.run(
          fn.name,
          args.map((a) => (a.r as Extract<CoreExpr, { kind: 'lit' }>).value),
          { maxSteps: this.staticSteps },
        );
        this.stats.staticWork += out.counts.total;
        this.stats.staticCalls++;
        const v = fromConcrete(out.value, this.ctors);
        const r = this.code.node({ kind: 'lit', value: out.value as Value }, e.span);
        this.code.cs.set(r.label, v);
        return { v, r };
      } catch (err) {
        if (!(err instanceof ScfRuntimeError)) throw err;
        this.stats.staticWork += this.interp.lastSteps;
        // fails or runs long concretely: specialize it like any other call
      }
    }

    // on a static path the call is unfolded with the exact union (below); past a late test it is
    // specialized, and there a union of records told apart is dispatched on the field
    const byField = this.late > 0 ? splitKey(finite, args) : undefined;
    if (byField) return this.dispatch(fn, e, args, caller, finite, byField, env);
    return this.callWith(fn, e, args, caller, finite, env);
  }

  /**
   * `f(…, x, …)` with `x` a union of records told apart by a field (`splitKey`): a residual test
   * of the field picks, for each group of records, a call specialized to that group. Every
   * argument is bound once around the dispatch; the branches are on a late path. (SCF's
   * specializations are per input node; this keeps them so when an earlier pass's output is
   * one of several programs.)
   */
  private dispatch(
    fn: FunDef,
    e: CoreCall,
    args: readonly Binding[],
    caller: Spec,
    finite: readonly boolean[],
    split: Split,
    env: Env | undefined,
  ): Binding {
    this.stats.dispatches++;
    const id = this.nextSplit++;
    const bound = args.map((a, j) => this.letBound(`$k${id}_${j}`, a, e.span));
    const x = bound[split.index] as Binding;
    let branches: Binding[];
    this.late++;
    try {
      branches = split.groups.map((g) =>
        this.callWith(
          fn,
          e,
          bound.map((b, j) => (j === split.index ? { v: union(g.alts), r: b.r, rep: b.rep } : b)),
          caller,
          finite,
          env,
        ),
      );
    } finally {
      this.late--;
    }
    // one representation for every branch, as for an `if`
    const rep0 = (branches[0] as Binding).rep;
    if (!branches.every((b) => sameRep(b.rep, rep0)))
      branches = branches.map((b) => this.raise.plain(b, e.span));
    const rep = (branches[0] as Binding).rep;
    let out = branches[branches.length - 1] as Binding;
    for (let j = branches.length - 2; j >= 0; j--) {
      const proj = this.code.node({ kind: 'proj', ctor: split.ctor, index: split.field, arg: x.r }, e.span);
      this.code.cs.set(proj.label, project(split.ctor, split.field, x.v));
      const value = (split.groups[j] as SplitGroup).value;
      const cond = this.code.node(
        { kind: 'prim', op: 'eq', args: [proj, this.code.litNode(value, e.span)] },
        e.span,
      );
      this.code.cs.set(cond.label, consts([true, false]));
      const b = branches[j] as Binding;
      const v = join(b.v, out.v).value;
      const r = this.code.node(
        // biome-ignore lint/suspicious/noThenProperty: Core's `if` node has a `then` field
        { kind: 'if', cond, then: b.r, else: out.r },
        e.span,
      );
      this.code.cs.set(r.label, rep === undefined ? v : new View(v, rep));
      out = rep === undefined ? { v, r } : { v, r, rep };
    }
    for (let j = bound.length - 1; j >= 0; j--)
      out = this.letWrap(bound[j] as Binding, args[j] as Binding, out, e.span);
    return out;
  }

  /** A call whose arguments are evaluated: static, unfolded or specialized (see `call`). */
  private callWith(
    fn: FunDef,
    e: CoreCall,
    args: readonly Binding[],
    caller: Spec,
    finite: readonly boolean[],
    env: Env | undefined,
  ): Binding {
    const callerCtx = this.ctxOverride ?? caller.ctx;
    const earlier = this.contexts.nearest(callerCtx, fn.name);
    const keyValues = args.map((a, i) => {
      if (finite[i]) return a.v;
      if (a.r.kind !== 'lit') return undefined;
      if (!earlier) return a.v;
      const before = earlier.values[i];
      // smaller than at the earlier call; with `keyEqualArgs`, or equal to it: an equal value
      // repeats that key (which the chain's bound k folds back), so neither makes ever new keys
      if (before === undefined) return undefined;
      return size(a.v) < size(before) || (this.keyEqualArgs && equals(a.v, before)) ? a.v : undefined;
    });
    // arguments represented differently (a raised map here, a plain one there) get different
    // specializations, so one plain caller does not make the parameter plain for every caller
    // a constant argument counts as represented the way its value naturally is (a map raised):
    // a constant environment (every variable known) passed where raised ones are passed too
    // does not make the parameter plain
    const argReps = args.map((a) => (a.rep === undefined && a.r.kind === 'lit' ? literalRep(a.v) : a.rep));
    const reps = repSignature(argReps);
    const key = this.contexts.key(fn.name, reps === undefined ? keyValues : [...keyValues, constant(reps)]);
    const ctx = this.contexts.push(key, callerCtx);
    // on a static path (no late test open since the caller's analysis began, so every decision
    // up to here is known): evaluated in place with the exact arguments — no join with other
    // callers of the context, no freshened tags, no cap on the result
    const deep = this.nest >= NEST_LIMIT;
    if (
      (this.late === 0 || this.callFree(fn)) &&
      this.unfolding < this.unfoldDepth &&
      !deep &&
      !this.exhausted &&
      !caller.generalized
    )
      return this.unfold(fn, args, ctx, env, caller, e.span);
    let spec = this.specs.get(ctx.id);
    if (!spec && this.exhausted) {
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
      spec.callers.add(caller);
      // too deep: analysed from the worklist (its result is `0` until then; this caller is
      // analysed again when it grows)
      if (deep) {
        this.stats.deferred++;
        this.worklist.push(spec);
      } else this.analyzeNested(spec);
    } else this.addCall(spec, args, ctx, caller, deep);
    const ret = spec.ret;
    const v = this.code.retag(ret);
    const callee = spec;
    // arguments as the parameters represent them (a differing one is plain: see above)
    const actuals = args.map((a, i) => {
      const pr = callee.paramReps[i];
      if (sameRep(a.rep, pr)) return a.r;
      if (this.raise.representable(a, pr)) return this.raise.literalAs(a, pr, e.span).r;
      return this.raise.plain(a, e.span).r;
    });
    return this.code.bind(
      v,
      () => this.code.node({ kind: 'call', fn: callee.name, args: actuals }, e.span),
      e.span,
      callee.retRep === NO_REP ? undefined : callee.retRep,
    );
  }
}
