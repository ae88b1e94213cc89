/**
 * The online partial evaluator (SCF §3, Fig. 8's PE): abstract execution of a Core program on
 * an abstract input, producing a residual program, the collecting-semantics map `cs` and the
 * abstract output.
 *
 * Algorithm
 * - Every expression is evaluated to an abstract value (src/abstract-values) and a residual
 *   expression computing the same value under every concrete environment the abstract one
 *   admits. A value that is a singleton becomes a constant (`lit`, possibly a whole constructor
 *   tree or map); a constructor test or an `if` whose outcome is known is folded, and only the
 *   taken branch is evaluated; in the branches of `if (c? x)`, `if (x == k)` and `if (c⁻ᵏ x)` (a
 *   boolean field, as in const-prop's `if (!st.reach)`) and `if (c⁻ᵏ x === 's')` (a string field,
 *   `e.op === '+'`, and `!==`) the variable `x` is narrowed — for a field, to the members whose
 *   field can be the outcome, that field made the outcome (`refineField`, `refineFieldIs`).
 *   `cs` records the value of every residual expression by its label.
 * - Calls whose arguments are all constants are *static*: they run on the concrete interpreter
 *   (with a step budget) and fold to their result. Other calls are specialized: the callee is
 *   analysed for a context (context.ts: the chain of specialization keys, at most k instances
 *   of a key, keys from finite parameters (finiteness.ts) and shrinking singleton arguments), so helper
 *   functions are replicated per input node and fixpoint loops are unrolled k times. One
 *   specialization per context (memoized); its parameters are the join of all arguments it was
 *   called with, its result the join of what its body returned. A call whose key (finite)
 *   argument is a conditional, `f(c ? x : y)`, is evaluated as `c ? f(x) : f(y)`: with `c` late,
 *   each call is still specialized to a known node, not to the union of both.
 * - Dispatch (SCF's "helpers are replicated per input node", kept when an earlier pass's output
 *   is one of several programs). A key argument that is a union of a few records of one
 *   constructor told apart by the known value of one field — the commands of a program after a
 *   loop that may or may not have been emitted, each with its label — makes a call past a late
 *   test a residual test of that field, with a call specialized to each group of records in its
 *   branch (`dispatch`); the abstract domain keeps such records apart when it joins
 *   (`tellApart`, abstract-values). Specialized to the union instead, the callee's projections
 *   would mix the programs (the first command of one with the first of the other) in everything
 *   below it.
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
 *   test first and is specialized from there on, as before.
 * - Recursion through one context is solved as a fixpoint with a worklist: a specialization is
 *   re-analysed when its arguments grow, or when the result of a specialization it called grew.
 *   Growth is stepwise, never a cliff (`grow`): the first `joinsBeforeWiden` changes join
 *   shape-preservingly (`shapeJoin`: one constructor joins pointwise, a numeric leaf that changed
 *   becomes its base set, different constructors stay apart, and so do records told apart by a
 *   known field or by nesting — a chain's cell and its end), later ones widen (the result of a
 *   specialization keyed on a known input node waits KEYED_JOINS changes: it grows as its
 *   callees' results do, and widening would fold a program's labelled commands into one
 *   recursive shape); a grown value of more than `growCap` nodes (a result: more than
 *   RESULT_CAP_PER_KEY_NODE times its key's nodes, if that is more — a pass's result for a
 *   command is about that command's size) is folded or cut: a chain that grows a cell per step
 *   (a list of unrolled copies) becomes a recursive value, `fix α. z | C(h, α)` with its cells'
 *   heads joined (`foldSpines`), when that fits; anything else is cut to a skeleton that fits
 *   (`boundedSkeleton`: constructors, unions and map must-keys kept, the biggest parts `1`
 *   first). A fold before the fuel is spent only replaces what a cut would have lost, so the
 *   termination argument below is unchanged (each change is still counted). A tuple (several values
 *   returned or passed together) is not a discriminated value: alternatives of one arity are
 *   merged pointwise and each component is capped on its own, so a big component (commands
 *   built by unrolling) does not cost a small one (the dataflow state after them) its shape. After `specFuel`
 *   changes each further change keeps only a skeleton whose numeric leaves are `1`, so a changing
 *   constant is absorbed; after `specFuel` + SKELETON_STEPS changes the parameters outside the
 *   key and the result are pinned to their constructors and map keys (`shapeTop`: everything
 *   else `1`) — the specialization still handles its key (say, one input node), so the staged
 *   code stays specialized to the input, and an environment stays a map with known keys, so it
 *   stays arity-raised (pinning it to `1` made every `mapInsert` after it build a map of unknown
 *   keys, and every helper it reached plain); one more change makes that parameter or result
 *   `1`. Every loss is recorded as a `PeEvent` (`scf stage --explain`).
 * - Maps whose keys are all known are arity-raised (raise.ts): the residual code holds them as
 *   tuples of their values, so lookups and updates with known keys are tuple reads and copies,
 *   not map operations; an update under a late test replaces one element (`tuple_with`), where a
 *   tuple literal of every slot would make a chain of conditional updates (a dataflow pass's kill
 *   over all its variables) quadratic in code size; straight-line updates stay literals, which
 *   the JS engine keeps out of the heap. A lookup whose key is late compares it with the keys it
 *   may be (`findByCases`). Every binding carries its representation; where two differ (the
 *   branches of an `if`, an argument and its parameter, a body and its specialization's result)
 *   the raised side is built as a map again — unless the plain side holds only constants where
 *   the other is raised (a record `st(flag, K)` with a constant map K: `representable`), which
 *   then takes that representation. A specialization's first analysis decides its result's
 *   representation; a plain result whose maps are constants decides the one those constants
 *   naturally have (raised), since a first analysis often sees only constants (no facts yet) and
 *   a plain decision would make every later, raised, result plain. The entry's parameters and
 *   result are plain.
 *   Which arguments are raised maps (and their keys) is part of a call's specialization key, so
 *   a helper called with a raised map at one place and a plain one at another is specialized
 *   for each: one plain caller does not make the parameter plain for every caller (which,
 *   through the helpers shared by all the commands of a kernel, made most environments plain).
 *   The collecting semantics keeps a represented value with its representation and views it as
 *   represented (`viewOf`) only for the residual program's labels, when the run ends.
 * - Contexts are bounded twice: at most k instances of a key (SCF §3.4) and at most `chainDepth`
 *   keys (the most recent), so helpers called along many paths are not copied once per path.
 * - Budgets, all counted in work (never in time, so the residual program is a pure function of
 *   the program, the input and the options, whatever the machine's load): past a visit budget or
 *   a spec count, calls without a specialization yet are residualized as calls of the original
 *   functions (which then join the residual program), and specializations whose arguments still
 *   grow are given up the same way; past four times the visits, the original program is returned.
 *   Static calls are bounded one by one (`staticCallSteps`) and together (STATIC_WORK Core nodes
 *   run concretely; past it, calls with known arguments are specialized like the others).
 *   `stop` says what ended the run: 'fixpoint', 'widened' (widening was needed) or 'fuel'
 *   (something was widened to `1`, given up, or a budget ran out), and `reason` says it in words.
 * - Residual code is taken from the last analysis of each specialization: when the worklist is
 *   empty, every specialization was last analysed with its final parameters and the final
 *   results of its callees, so the residual program is consistent.
 *
 * Invariants
 * - Soundness: for every concrete input t conforming to the abstract input, the residual entry
 *   returns what the original entry returns on t (when that run succeeds), and the output value
 *   contains it. Each value in `cs` contains every value its expression takes on such runs.
 * - Identity tags (§3.3.1) never cross a call boundary: a specialization's parameters and a call's
 *   result are re-tagged fresh (`freshen`), so tag equality only relates values of one activation.
 * - Every loop here is bounded. Termination: each specialization's parameters and result change
 *   at most specFuel + SKELETON_STEPS + 2 times (each change is counted; after the pinned
 *   shape, `1` absorbs everything), each parameter's or result's representation changes at most twice
 *   (undecided → decided → plain), the number of contexts is bounded by the k rule and the
 *   chain depth, so the worklist empties; unfoldings nest at most `unfoldDepth` deep, each over
 *   a finite body; analyses and unfoldings open inside one another at most NEST_LIMIT deep (a
 *   call past it is analysed later from the worklist), which bounds the JS stack; the visit
 *   budget and `maxSpecs` bound the rest in work (never in time).
 */
import { assertNever, type SourceSpan } from '../common/index.js';
import {
  type AbsValue,
  ABS_PRIMS,
  absMap,
  alternatives,
  bottom,
  comparePrim,
  constant,
  type CtorTable,
  equals,
  con,
  conforms,
  consts,
  freshTag,
  fromConcrete,
  inheritCaches,
  isConcrete,
  join,
  leq,
  normPrim,
  openSize,
  type Prim,
  printAbs,
  project,
  refineCtor,
  refineField,
  refineFieldIs,
  singleton,
  size,
  testCtor,
  top,
  shapeJoin,
  foldSpines,
  shapeTop,
  union,
  boundedSkeleton,
  mergeSameCtor,
  widen,
  withPrelude,
  withTag,
} from '../abstract-values/index.js';
import { Map as IMap } from 'immutable';
import { type PMap, setAdd, setEmpty } from '../scf-lang/prelude.js';
import {
  type CoreCall,
  type CtorDecl,
  type CoreExpr,
  type FunDef,
  type Label,
  type CoreProgram,
  tupleCtor,
  tupleCtorName,
} from '../scf-lang/index.js';
import { isPrim } from '../scf-lang/index.js';
import {
  conRep,
  keyIndex,
  RAISE_CAP,
  type Rep,
  sameRep,
  slotValue,
  tupleRep,
  viewOf,
  withKey,
} from './raise.js';
import { forEachExpr, Interpreter, ScfRuntimeError, type Value } from '../scf-lang/index.js';
import { type Chain, Contexts } from './context.js';
import { type Finiteness, finitenessAnalysis } from './finiteness.js';

export interface PeOptions {
  /** At most k instances of a specialization key in a call chain (SCF §3.4; default 2). */
  readonly k?: number;
  /**
   * Most keys in a specialization context: the most recent ones are kept (default 2:
   * unfolded calls' frames are keys of the contexts below them too, so 2 already tells the
   * unfolded paths apart).
   */
  readonly chainDepth?: number;
  /** Changes of a specialization's parameters or result joined exactly before widening (default 3). */
  readonly joinsBeforeWiden?: number;
  /** Changes of a specialization's parameters (or of its result) after which they are widened to `1`, the key's parameters excepted (default SPEC_FUEL). */
  readonly specFuel?: number;
  /** A specialization's parameter or result that grows beyond this many nodes is widened to `1` (default GROW_CAP). */
  readonly growCap?: number;
  /** Expression visits after which no new specialization is made (calls stay generic); four times as many abandon specialization altogether (default 800,000). */
  readonly budget?: number;
  /** Concrete-interpreter steps one static call may take before it is specialized instead (default 2 million; 0 turns static calls off). */
  readonly staticCallSteps?: number;
  /** Specializations made before later calls stay generic (default 20,000): bounds the staged code's size. */
  readonly maxSpecs?: number;
  /** Called every ~100,000 visits. */
  readonly onProgress?: (stats: PeStats) => void;
  /** Residual maps whose keys are all known become tuples of their values (raise.ts; default true). */
  readonly raiseMaps?: boolean;
  /**
   * Calls on a static path unfolded inside one another at most (default UNFOLD_DEPTH); 0: none,
   * every call that is not static is specialized (SCF §3.4 alone).
   */
  readonly unfoldDepth?: number;
}

/** Most calls unfolded inside one another (`PeOptions.unfoldDepth`). */
export const UNFOLD_DEPTH = 64;
/** Changes of a specialization's parameters or result before they are widened (`PeOptions.specFuel`). */
export const SPEC_FUEL = 8;
/** Nodes a specialization's parameter or result may grow to before it is widened (`PeOptions.growCap`). */
export const GROW_CAP = 256;

/**
 * Most analyses and unfoldings open inside one another (each is a JavaScript recursion of the
 * partial evaluator, some forty frames per statement of a straight-line kernel); a call that
 * would open one more is specialized and analysed later, from the worklist, at depth 0. So a long
 * kernel function stages within the default JS stack (a 1,000-statement one needs about 2,500
 * levels otherwise, and about 250 statements overflowed it). Counted in work: the residual
 * program stays a pure function of the inputs.
 */
export const NEST_LIMIT = 100;

/**
 * Most Core nodes all static calls of one run may evaluate concretely together; past it, calls
 * with known arguments are specialized like the others (whose work the visit budget bounds). Each
 * static call is bounded on its own (`staticCallSteps`), but not their number: on a kernel of
 * deeply nested loops the optimizer's own run is exponential in the nesting, and staging ran it
 * over and over.
 */
export const STATIC_WORK = 50_000_000;

export type PeStop = 'fixpoint' | 'widened' | 'fuel';

/**
 * One loss of precision the partial evaluator had to make, for `scf stage --explain`: a
 * specialization's parameter or result widened (to `1` or to a skeleton), or a specialization
 * given up. This is how a compiler writer finds why *their* optimizer did not stage well.
 */
export interface PeEvent {
  /** The residual function (specialization) concerned, e.g. `const-prop.loopFix$12`. */
  readonly spec: string;
  /** The optimizer's function it specializes. */
  readonly fn: string;
  /** What it was specialized for: `loopFix(while #7, _, _, _, _)`. */
  readonly key: string;
  /** `param N (name)`, `params` (all outside the key) or `result`. */
  readonly what: string;
  /**
   * `spec-fuel`: changed more than `specFuel` times; `size-cap`: grew past `growCap` nodes;
   * `budget`: given up because the visit budget or the specialization count ran out.
   */
  readonly reason: 'spec-fuel' | 'size-cap' | 'budget';
  /** What it became: `1`, or a skeleton of N nodes. */
  readonly to: string;
}

export interface PeStats {
  /** Expression visits (the budget's unit). */
  visits: number;
  /** Specializations created. */
  specs: number;
  /** Analyses of specialization bodies (first and repeated). */
  analyses: number;
  /** Calls folded by running them concretely. */
  staticCalls: number;
  /** Core nodes the concrete runs of static calls evaluated, failed ones included (STATIC_WORK). */
  staticWork: number;
  /** Calls on a static path unfolded in place (their bodies evaluated with the exact arguments). */
  unfolded: number;
  /** Calls dispatched on a field that tells their key argument's records apart (`dispatch`). */
  dispatches: number;
  /** Specializations whose first analysis waited for the worklist (analyses nested NEST_LIMIT deep). */
  deferred: number;
  /** Specializations given up (body a call of the original function) when the budget ran out. */
  generalized: number;
  /** Parameters or results widened to `1`: a specialization's fuel ran out, or a value grew past `growCap`. */
  widenedToTop: number;
  /** Parameters or results cut to a skeleton (constructors and must-keys kept) instead of `1`. */
  skeletons: number;
  /**
   * Parameters or results over their cap whose growing chains were folded into recursive values
   * (`foldSpines`) and nothing cut (counted apart from `skeletons`).
   */
  folded: number;
  /** Map operations on raised maps residualized as tuple operations (raise.ts). */
  raisedOps: number;
  /** Raised values turned back into plain ones where representations met and differed. */
  materialized: number;
  /** Specializations in the residual program. */
  residualFuns: number;
}

export interface PeResult {
  /** The residual program; its entry is `entry`. */
  readonly residual: CoreProgram;
  readonly entry: string;
  /** Collecting semantics: residual expression label → abstract value. */
  readonly cs: ReadonlyMap<Label, AbsValue>;
  /** Abstract value of every result the entry can return on admitted inputs. */
  readonly output: AbsValue;
  readonly stop: PeStop;
  /** Why, in words, when stop is not 'fixpoint'. */
  readonly reason: string;
  readonly stats: PeStats;
  /** Residual function name → what it was specialized for (Fig. 7's comments). */
  readonly comments: ReadonlyMap<string, string>;
  /** Every widening to `1` (or a skeleton) and every specialization given up, in order. */
  readonly events: readonly PeEvent[];
}

interface Binding {
  readonly v: AbsValue;
  /** Its residual code. */
  readonly r: CoreExpr;
  /** How the residual code represents the value (raise.ts); `undefined`: as the optimizer does. */
  readonly rep?: Rep;
  /**
   * When the residual code builds a constructor from atoms (variables, constants, slots of a
   * raised map), its constructor and those atoms: a projection of it is the atom itself, so
   * `map_find(env, 'i')` on a raised map followed by `.value` reads the slot without building
   * the `some` (`fieldAtom`).
   */
  readonly fields?: { readonly ctor: string; readonly args: readonly Binding[] };
}

/**
 * A collecting-semantics entry for a represented value, kept as the value and its representation
 * and turned into the value as represented (`viewOf`) only for the residual program's own
 * labels when the run ends: most entries belong to analyses that a later one replaces.
 */
class View {
  constructor(
    readonly v: AbsValue,
    readonly rep: Rep,
  ) {}
}

/** What the collecting semantics records for a label while the partial evaluator runs. */
type CsValue = AbsValue | View;

/** A specialization's result representation before its first analysis ended. */
const NO_REP = Symbol('no rep yet');

interface Env {
  readonly name: string;
  readonly b: Binding;
  readonly next: Env | undefined;
}

interface Spec {
  readonly id: number;
  readonly fn: FunDef;
  readonly name: string;
  readonly ctx: Chain;
  args: AbsValue[];
  ret: AbsValue;
  argChanges: number;
  retChanges: number;
  generalized: boolean;
  /**
   * Parameters (all but the key's) pinned to their constructors and map keys (`shapeTop`) after
   * specFuel + SKELETON_STEPS changes; an argument outside that makes its parameter `1`.
   */
  argsPinned: boolean;
  /** Result pinned to its constructors and map keys, the same way; growth past that makes it `1`. */
  retPinned: boolean;
  /** Result `1`: no later analysis can outgrow it. */
  retTop: boolean;
  analyzing: boolean;
  dirty: boolean;
  /** How each parameter is represented (decided by the first call; only ever becomes plain). */
  paramReps: Rep[];
  /** How the result is represented (only ever becomes plain after its first value). */
  retRep: Rep | typeof NO_REP;
  /** Whether this is the entry (its parameters and result are the staged code's interface: plain). */
  readonly isRoot: boolean;
  readonly callers: Set<Spec>;
  body: CoreExpr | undefined;
  cs: Map<Label, CsValue>;
}

/**
 * Changes a specialization's parameters (or result) may still make after `specFuel`: each keeps
 * only a skeleton (constructors and must-keys, numeric leaves `1`), so most late growth — a
 * constant becoming another — is absorbed; past these the parameters (or result) are pinned to
 * their constructors and map keys (`shapeTop`), and past that they become `1`.
 */
const SKELETON_STEPS = 2;

/** Most records a call is dispatched among (`dispatch`); a wider union is specialized as one. */
const SPLIT_MAX = 8;

/**
 * Changes a specialization keyed on a known input node makes to its result by joins before it is
 * widened (`joinsBeforeWiden` for the others): see `grow`.
 */
const KEYED_JOINS = 6;
/** Most keys a late-key lookup on a raised map compares against (`findByCases`). */
const FIND_CASES = 32;

/** A specialization's result may have this many nodes per node of its key values (`resultCap`). */
const RESULT_CAP_PER_KEY_NODE = 4;

type ConValue = AbsValue & { kind: 'con' };

/** Records whose field has one known value. */
interface SplitGroup {
  readonly value: Prim;
  readonly alts: readonly ConValue[];
}

/** A dispatch: argument `index`, told apart by field `field` of constructor `ctor`. */
interface Split {
  readonly index: number;
  readonly ctor: string;
  readonly field: number;
  readonly groups: readonly SplitGroup[];
}

/**
 * The one primitive a value denotes, if any — not a boolean (a flag is narrowed by `refine`, not
 * dispatched on), nor -0 or NaN, which `eq` does not tell apart as values are told apart here.
 */
function singlePrim(v: AbsValue): Prim | undefined {
  if (v.kind !== 'consts' || v.values.length !== 1) return undefined;
  const p = v.values[0] as Prim;
  if (typeof p === 'boolean' || Object.is(p, -0) || Number.isNaN(p)) return undefined;
  return p;
}

function primKey(p: Prim): string {
  return `${typeof p}:${String(p)}`;
}

/** `xs` in groups of equal `key`, in order of first occurrence. */
function groupBy<T>(xs: readonly T[], key: (x: T) => string): T[][] {
  const at = new Map<string, T[]>();
  for (const x of xs) {
    const k = key(x);
    const g = at.get(k);
    if (g) g.push(x);
    else at.set(k, [x]);
  }
  return [...at.values()];
}

class BudgetExceeded extends Error {}

/** An expression without its label and span (distributes over the union). */
type ExprFields = CoreExpr extends infer T ? (T extends CoreExpr ? Omit<T, 'label' | 'span'> : never) : never;

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
  try {
    return pe.run(root, input);
  } catch (e) {
    if (!(e instanceof BudgetExceeded)) throw e;
    return {
      residual: program,
      entry,
      cs: new Map(),
      output: top(),
      stop: 'fuel',
      reason: `the hard budget ran out (${pe.hardBudget} expression visits); the original program is kept`,
      stats: { ...pe.stats, residualFuns: program.funs.size },
      comments: new Map(),
      events: pe.events,
    };
  }
}

class PartialEvaluator {
  readonly ctors: CtorTable;
  readonly finite: Finiteness;
  readonly contexts: Contexts;
  readonly interp: Interpreter;
  readonly budget: number;
  readonly hardBudget: number;
  private readonly maxSpecs: number;
  readonly stats: PeStats = {
    visits: 0,
    specs: 0,
    analyses: 0,
    staticCalls: 0,
    staticWork: 0,
    unfolded: 0,
    dispatches: 0,
    deferred: 0,
    generalized: 0,
    widenedToTop: 0,
    skeletons: 0,
    folded: 0,
    raisedOps: 0,
    materialized: 0,
    residualFuns: 0,
  };
  readonly events: PeEvent[] = [];
  private readonly specs = new Map<number, Spec>();
  private readonly worklist: Spec[] = [];
  /** cs entries of the analysis in progress (each specialization keeps those of its last analysis). */
  private cs = new Map<Label, CsValue>();
  private readonly litValues = new WeakMap<CoreExpr, AbsValue>();
  private readonly singletons = new WeakMap<AbsValue, { value: unknown } | null>();
  private readonly joinsBeforeWiden: number;
  private readonly specFuel: number;
  private readonly growCap: number;
  private readonly staticSteps: number;
  private readonly raiseMaps: boolean;
  private readonly unfoldDepth: number;
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
  private widened = false;
  /** Original functions called generically (kept in the residual program with their callees). */
  private readonly genericFns = new Set<string>();
  /** Set when the visit budget is spent: no new specializations from then on. */
  private exhausted = false;
  private exhaustedBy = '';
  private nextLabel = 1;
  private nextTemp = 0;
  /** Arities of the tuples raised maps became (their constructors join the residual program). */
  private readonly tupleArities = new Set<number>();
  private nextProgress = 100_000;

  constructor(
    readonly program: CoreProgram,
    readonly opts: PeOptions,
  ) {
    this.ctors = withPrelude(program.ctors);
    this.finite = finitenessAnalysis(program);
    this.contexts = new Contexts(opts.k ?? 2, opts.chainDepth ?? 2);
    this.interp = new Interpreter(program);
    this.budget = opts.budget ?? 800_000;
    this.hardBudget = this.budget * 4;
    this.maxSpecs = opts.maxSpecs ?? 20_000;
    this.joinsBeforeWiden = opts.joinsBeforeWiden ?? 3;
    this.specFuel = opts.specFuel ?? SPEC_FUEL;
    this.growCap = opts.growCap ?? GROW_CAP;
    this.staticSteps = opts.staticCallSteps ?? 2_000_000;
    this.raiseMaps = opts.raiseMaps ?? true;
    this.unfoldDepth = opts.unfoldDepth ?? UNFOLD_DEPTH;
  }

  run(root: FunDef, input: readonly AbsValue[]): PeResult {
    const key = this.contexts.key(root.name, input);
    const spec = this.newSpec(
      root,
      this.contexts.push(key, undefined),
      input.map((v) => this.fresh(v)),
      [],
      true,
    );
    this.analyze(spec);
    this.drain();
    return this.finish(spec);
  }

  // ---- specializations ------------------------------------------------------------------

  private newSpec(
    fn: FunDef,
    ctx: Chain,
    args: AbsValue[],
    paramReps: Rep[] = [],
    isRoot = false,
    name?: string,
  ): Spec {
    const id = this.stats.specs++;
    if (this.stats.specs >= this.maxSpecs) this.exhaust(`${this.maxSpecs} specializations were made`);
    const spec: Spec = {
      id,
      fn,
      name: name ?? `${fn.name}$${id}`,
      ctx,
      args,
      ret: bottom(),
      argChanges: 0,
      retChanges: 0,
      generalized: false,
      argsPinned: false,
      retPinned: false,
      retTop: false,
      analyzing: false,
      dirty: true,
      callers: new Set(),
      body: undefined,
      cs: new Map(),
      paramReps: fn.params.map((_, i) => paramReps[i]),
      retRep: NO_REP,
      isRoot,
    };
    this.specs.set(ctx.id, spec);
    return spec;
  }

  /**
   * The value after a specialization's parameter or result grew for the `changes`-th time: exact
   * joins first, then widening; a grown value bigger than `growCap` nodes (and not fully known)
   * is cut to a skeleton: regular-tree widening bounds the depth of a growing value, not its
   * breadth, and a value that keeps growing is mostly what the late stage will supply anyway.
   * Products (tuples, records, maps with known keys) are capped part by part.
   */
  private grow(old: AbsValue, next: AbsValue, changes: number, spec: Spec, what: string): AbsValue {
    const shaped = shapeJoin(old, next);
    let w: AbsValue;
    // the result for a known input node (a command of the input program) is that node
    // transformed: it grows as its callees' results do, not by recursion, so widening (which
    // folds the labelled commands of a program into one recursive shape) waits longer there
    const keyed = what === 'result' && this.inputKeyed(spec);
    if (changes < (keyed ? KEYED_JOINS : this.joinsBeforeWiden)) w = shaped;
    else {
      this.widened = true;
      w = widen(old, shaped).value;
    }
    w = mergeTuples(w);
    const fuelOut = changes >= this.specFuel;
    // a tuple is several values returned (or passed) together: each is capped on its own, so a
    // big one (say, the commands built by unrolling) does not cost the others (the state after
    // them) their shape; so is a record (a constructor that does not occur inside itself, like a
    // dataflow state) and a map whose keys are all known (an environment: one value per
    // variable), so a state of many variables keeps every variable's value, not a skeleton
    const cap = what === 'result' ? this.resultCap(spec) : this.growCap;
    const fits = (p: AbsValue) => (openSize(p) <= cap && !fuelOut) || isConcrete(p);
    // over the size cap, or in the last changes this specialization's fuel allows: keep a
    // skeleton that fits (constructors and must-keys, the biggest parts `1`) rather than `1`
    let folded = false;
    let cutOff = false;
    const capped = (p: AbsValue): AbsValue => {
      if (fits(p)) return p;
      if (isProduct(p)) return capParts(p, capped);
      if (p.kind === 'union') {
        // alternatives of one record constructor merge argument-wise, then are capped per part
        const alts = mergeSameCtor(p.alts);
        if (alts.every(isProduct)) return union(alts.map((a) => capParts(a, capped)));
      }
      // a chain growing a cell per step (the copies of an unrolled loop) folds into a recursive
      // value that keeps every cell's constructors, where a skeleton would cut the chain to `1`
      if (!fuelOut) {
        const f = foldSpines(p);
        if (f !== p && fits(f)) {
          folded = true;
          this.widened = true;
          return f;
        }
      }
      cutOff = true;
      return boundedSkeleton(p, cap, fuelOut);
    };
    let s: AbsValue;
    if (w.kind === 'con' && isTupleCtor(w.ctor)) {
      if (w.args.every(fits)) return w;
      s = con(w.ctor, w.args.map(capped));
    } else {
      if (fits(w)) return w;
      s = capped(w);
    }
    if (equals(s, w)) return w;
    const onlyFolded = folded && !cutOff;
    if (s.kind === 'top') this.stats.widenedToTop++;
    else if (onlyFolded) this.stats.folded++;
    else this.stats.skeletons++;
    this.event(
      spec,
      what,
      fuelOut ? 'spec-fuel' : 'size-cap',
      s.kind === 'top'
        ? '1'
        : onlyFolded
          ? `a recursive value of ${size(s)} nodes (a growing chain folded)`
          : `a skeleton of ${size(s)} nodes`,
    );
    return s;
  }

  private readonly leaf = new Map<string, boolean>();

  /** Whether `fn`'s body calls no function (a helper that can be unfolded anywhere). */
  private callFree(fn: FunDef): boolean {
    let r = this.leaf.get(fn.name);
    if (r === undefined) {
      r = true;
      forEachExpr(fn.body, (x) => {
        if (x.kind === 'call') r = false;
      });
      this.leaf.set(fn.name, r);
    }
    return r;
  }

  /**
   * The size cap of a specialization's result: `growCap`, or RESULT_CAP_PER_KEY_NODE times the
   * nodes of its key values when that is more — what a pass returns for a command is that
   * command rewritten, about as big as it, so a cap below the command's size cuts the rest of
   * a program to a skeleton whatever the budget (a fixed cap does, at main_loop's spine).
   */
  private resultCap(spec: Spec): number {
    let n = 0;
    for (const k of spec.ctx.key.values) if (k !== undefined) n += size(k);
    return Math.max(this.growCap, RESULT_CAP_PER_KEY_NODE * n);
  }

  /** Whether a specialization is keyed on a known constructor value (an input node). */
  private inputKeyed(spec: Spec): boolean {
    return spec.ctx.key.values.some((k) => k !== undefined && k.kind === 'con' && isConcrete(k));
  }

  /** `v` pinned to its constructors and map keys (`shapeTop`) when a specialization's fuel is spent. */
  private pin(spec: Spec, what: string, v: AbsValue): AbsValue {
    const p = shapeTop(v);
    if (p.kind === 'top') this.stats.widenedToTop++;
    else this.stats.skeletons++;
    this.event(
      spec,
      what,
      'spec-fuel',
      p.kind === 'top' ? '1' : `its constructors and map keys (${size(p)} nodes)`,
    );
    return p;
  }

  private event(spec: Spec, what: string, reason: PeEvent['reason'], to: string): void {
    this.events.push({ spec: spec.name, fn: spec.fn.name, key: this.describe(spec), what, reason, to });
  }

  private exhaust(why: string): void {
    if (this.exhausted) return;
    this.exhausted = true;
    this.exhaustedBy = why;
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

  private settleGeneric(spec: Spec): void {
    const span = spec.fn.span;
    // the original function takes and returns plain values
    if (
      spec.paramReps.some((r) => r !== undefined) ||
      (spec.retRep !== NO_REP && spec.retRep !== undefined)
    ) {
      spec.paramReps = spec.paramReps.map(() => undefined);
      for (const c of spec.callers) this.markDirty(c);
    }
    spec.retRep = undefined;
    spec.body = this.genericCall(
      spec.fn.name,
      spec.fn.params.map((p) => this.node({ kind: 'var', name: p }, span)),
      span,
    );
    spec.cs = new Map();
    if (spec.ret.kind !== 'top') {
      spec.ret = top();
      for (const c of spec.callers) this.markDirty(c);
    }
    spec.dirty = false;
  }

  /** A call of the original function `fn`, kept in the residual program as it is. */
  private genericCall(fn: string, args: readonly CoreExpr[], span: SourceSpan): CoreExpr {
    this.genericFns.add(fn);
    return this.node({ kind: 'call', fn, args }, span);
  }

  private markDirty(spec: Spec): void {
    if (spec.dirty) return;
    spec.dirty = true;
    if (!spec.analyzing) this.worklist.push(spec);
  }

  private drain(): void {
    while (this.worklist.length > 0) {
      const s = this.worklist.pop() as Spec;
      if (s.dirty && !s.analyzing) this.analyze(s);
    }
  }

  /** `analyze` one level deeper in the nesting `NEST_LIMIT` bounds. */
  private analyzeNested(spec: Spec): void {
    this.nest++;
    try {
      this.analyze(spec);
    } finally {
      this.nest--;
    }
  }

  private analyze(spec: Spec): void {
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
    const outerCs = this.cs;
    this.cs = new Map();
    let env: Env | undefined;
    spec.fn.params.forEach((p, i) => {
      const v = spec.args[i] as AbsValue;
      const r = this.residualOf(
        v,
        () => this.node({ kind: 'var', name: p }, spec.fn.span),
        undefined,
        spec.paramReps[i],
      );
      env = { name: p, b: { v, r, rep: r.kind === 'lit' ? undefined : spec.paramReps[i] }, next: env };
    });
    let res = this.ev(spec.fn.body, env, spec);
    // the result's representation: the first analysis decides it; a different one later, or the
    // entry's interface, makes it plain (callers analysed with the old one are analysed again)
    // (a body that cannot return yet — its recursion has no result so far — decides nothing)
    if (spec.isRoot) res = this.plain(res, spec.fn.span);
    else if (res.v.kind === 'bottom') {
      // no run returns: the residual's representation is immaterial
    } else if (spec.retRep === NO_REP) {
      // a plain result whose maps are constants takes the representation those constants
      // naturally have (`literalRep`: raised), as a constant argument does: otherwise a first
      // analysis on constant states (no facts yet) would decide plain for every later one
      const natural = res.rep === undefined ? literalRep(res.v) : undefined;
      if (natural !== undefined && this.representable(res, natural))
        res = this.literalAs(res, natural, spec.fn.span);
      spec.retRep = res.rep;
      if (res.rep !== undefined) for (const c of spec.callers) this.markDirty(c);
    } else if (!sameRep(spec.retRep, res.rep) && this.representable(res, spec.retRep)) {
      // a constant result takes the representation decided before
      res = this.literalAs(res, spec.retRep, spec.fn.span);
    } else if (!sameRep(spec.retRep, res.rep)) {
      if (spec.retRep !== undefined) {
        spec.retRep = undefined;
        for (const c of spec.callers) this.markDirty(c);
      }
      res = this.plain(res, spec.fn.span);
    }
    spec.body = res.r;
    spec.cs = this.cs;
    this.cs = outerCs;
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

  private node(e: ExprFields, span: SourceSpan): CoreExpr {
    return { ...e, label: this.nextLabel++, span } as CoreExpr;
  }

  /**
   * `v` with fresh identity tags, dropping every identity claim it carries (`freshen`), except
   * in concrete parts: a value with one member equals itself whatever its tags say, so those
   * parts are shared as they are (freshening big, mostly known ASTs would cost their size).
   */
  private fresh(v: AbsValue, memo = new Map<AbsValue, AbsValue>()): AbsValue {
    if (v.kind === 'bottom' || isConcrete(v)) return v;
    // shared sub-values stay shared (one activation's value at two places is one value), so a
    // value that is a DAG is copied in its own size, not its unfolded tree size
    const done = memo.get(v);
    if (done) return done;
    let out: AbsValue;
    switch (v.kind) {
      case 'con':
        out = { kind: 'con', tag: freshTag(), ctor: v.ctor, args: v.args.map((a) => this.fresh(a, memo)) };
        break;
      case 'map':
        out = {
          kind: 'map',
          tag: freshTag(),
          must: v.must.map(([k, x]) => [k, this.fresh(x, memo)] as const),
          may: v.may.map(([k, x]) => [this.fresh(k, memo), this.fresh(x, memo)] as const),
        };
        break;
      case 'union':
        out = { kind: 'union', tag: freshTag(), alts: v.alts.map((a) => this.fresh(a, memo)) };
        break;
      case 'fix':
        out = { kind: 'fix', tag: freshTag(), body: this.fresh(v.body, memo) };
        break;
      case 'set':
        out = { kind: 'set', tag: freshTag(), must: v.must, may: this.fresh(v.may, memo) };
        break;
      default:
        out = withTag(v, freshTag());
    }
    inheritCaches(v, out);
    const single = this.singletons.get(v);
    if (single !== undefined) this.singletons.set(out, single);
    memo.set(v, out);
    return out;
  }

  private single(v: AbsValue): { value: unknown } | undefined {
    const c = this.singletons.get(v);
    if (c !== undefined) return c ?? undefined;
    const s = singleton(v, this.ctors);
    this.singletons.set(v, s ?? null);
    return s;
  }

  /** The residual of a value: a constant when it is a singleton, else `make()`. Records cs. */
  /**
   * The residual of a value: a constant when it is a singleton, else `make()`, whose code
   * represents the value per `rep`. Records cs (the value as represented).
   */
  private residualOf(v: AbsValue, make: () => CoreExpr, span?: SourceSpan, rep?: Rep): CoreExpr {
    const s = v.kind === 'bottom' ? undefined : this.single(v);
    if (s !== undefined) {
      const r = this.node({ kind: 'lit', value: s.value as Value }, span ?? { file: '', start: 0, end: 0 });
      this.cs.set(r.label, v);
      return r;
    }
    const r = make();
    this.cs.set(r.label, rep === undefined ? v : new View(v, rep));
    return r;
  }

  /** A binding of `v` computed by `make()` with representation `rep` (plain when a constant). */
  private bind(v: AbsValue, make: () => CoreExpr, span: SourceSpan, rep: Rep): Binding {
    const r = this.residualOf(v, make, span, rep);
    return r.kind === 'lit' || rep === undefined ? { v, r } : { v, r, rep };
  }

  // ---- representations (raise.ts) -------------------------------------------------------

  /**
   * Whether `b`, held plainly, can take representation `rep` without building anything at the late
   * stage (`literalAs`): a constant that `rep` can represent, or a constructor whose fields that
   * `rep` raises are such constants, at any depth (a state `cyState(false, K)` with a known map K,
   * beside states whose maps are raised).
   */
  private representable(b: Binding, rep: Rep): boolean {
    return rep !== undefined && b.rep === undefined && this.canTake(b.r, b.v, rep);
  }

  private canTake(r: CoreExpr, v: AbsValue, rep: Rep): boolean {
    if (rep === undefined || v.kind === 'bottom') return true;
    if (r.kind === 'lit') return fitsRep(v, rep);
    if (r.kind === 'if') return this.canTakeAt(r.then, rep) && this.canTakeAt(r.else, rep);
    if (r.kind === 'let') return this.canTakeAt(r.body, rep);
    if (rep.kind !== 'con' || r.kind !== 'con' || r.ctor !== rep.ctor || r.args.length !== rep.args.length)
      return false;
    return r.args.every((a, i) => this.canTakeAt(a, rep.args[i]));
  }

  /** `canTake` for a sub-expression, whose value is what the collecting semantics recorded. */
  private canTakeAt(r: CoreExpr, rep: Rep): boolean {
    const v = this.cs.get(r.label);
    return v !== undefined && !(v instanceof View) && this.canTake(r, v, rep);
  }

  /** `b` represented per `rep` (which it is `representable` as): constants as literals of their view. */
  private literalAs(b: Binding, rep: Rep, span: SourceSpan): Binding {
    return { v: b.v, r: this.retake(b.r, b.v, rep, span), rep };
  }

  private retake(r: CoreExpr, v: AbsValue, rep: Rep, span: SourceSpan): CoreExpr {
    if (rep === undefined || v.kind === 'bottom') return r;
    const at = (x: CoreExpr, xrep: Rep) => this.retake(x, this.cs.get(x.label) as AbsValue, xrep, span);
    let made: CoreExpr | undefined;
    if (r.kind === 'con') {
      const reps = (rep as Extract<Rep, { kind: 'con' }>).args;
      made = this.node({ kind: 'con', ctor: r.ctor, args: r.args.map((a, i) => at(a, reps[i])) }, span);
    } else if (r.kind === 'if') {
      // biome-ignore lint/suspicious/noThenProperty: Core's `if` node has a `then` field
      made = this.node({ kind: 'if', cond: r.cond, then: at(r.then, rep), else: at(r.else, rep) }, span);
    } else if (r.kind === 'let') {
      made = this.node({ kind: 'let', name: r.name, value: r.value, body: at(r.body, rep) }, span);
    }
    if (made !== undefined) {
      this.cs.set(made.label, new View(v, rep));
      return made;
    }
    const s = this.single(viewOf(v, rep));
    if (s === undefined) throw new Error('internal error: a constant whose view is not constant');
    const l = this.node({ kind: 'lit', value: s.value as Value }, span);
    this.cs.set(l.label, new View(v, rep));
    return l;
  }

  /** `b` represented plainly: raised maps inside it are built as maps again. */
  private plain(b: Binding, span: SourceSpan): Binding {
    if (b.rep === undefined) return b;
    this.stats.materialized++;
    return { v: b.v, r: this.plainCode(b.r, b.v, b.rep, span) };
  }

  private plainCode(r: CoreExpr, v: AbsValue, rep: Rep, span: SourceSpan): CoreExpr {
    if (rep === undefined) return r;
    return this.withVar(r, v, rep, span, (x) => {
      if (rep.kind === 'tuple') {
        // map_insert(…map_insert(map_empty(), k0, #n⁻⁰ x)…, kn, #n⁻ⁿ x)
        let m: Binding = {
          v: ABS_PRIMS.map_empty(),
          r: this.node({ kind: 'prim', op: 'map_empty', args: [] }, span),
        };
        this.cs.set(m.r.label, m.v);
        rep.keys.forEach((k, i) => {
          const slot = this.slot(x, v, rep.keys, i, span);
          const mv = ABS_PRIMS.map_insert(m.v, constant(k), slot.v);
          m = {
            v: mv,
            r: this.node(
              { kind: 'prim', op: 'map_insert', args: [m.r, this.litNode(k, span), slot.r] },
              span,
            ),
          };
          this.cs.set(m.r.label, mv);
        });
        return m.r;
      }
      // c(plain(c⁻⁰ x), …)
      const fields = rep.args.map((fr, i) => {
        const fv = project(rep.ctor, i, v);
        const p = this.node({ kind: 'proj', ctor: rep.ctor, index: i, arg: x }, span);
        this.cs.set(p.label, new View(fv, fr));
        return this.plainCode(p, fv, fr, span);
      });
      const c = this.node({ kind: 'con', ctor: rep.ctor, args: fields }, span);
      this.cs.set(c.label, v);
      return c;
    });
  }

  /** Slot `i` of the raised map held by the variable `x`: `#n⁻ⁱ x` (plain by the invariant). */
  private slot(x: CoreExpr, v: AbsValue, keys: readonly Prim[], i: number, span: SourceSpan): Binding {
    const sv = slotValue(v, keys[i] as Prim);
    const r = this.node({ kind: 'proj', ctor: this.tupleCtor(keys.length), index: i, arg: x }, span);
    this.cs.set(r.label, sv);
    return { v: sv, r };
  }

  /** `make(x)` where `x` is `r` itself when it is a variable, else a let-bound one. */
  private withVar(
    r: CoreExpr,
    v: AbsValue,
    rep: Rep,
    span: SourceSpan,
    make: (x: CoreExpr) => CoreExpr,
  ): CoreExpr {
    if (r.kind === 'var') return make(r);
    const name = `$r${this.nextTemp++}`;
    const x = this.node({ kind: 'var', name }, span);
    this.cs.set(x.label, new View(v, rep));
    const body = make(x);
    const l = this.node({ kind: 'let', name, value: r, body }, span);
    this.cs.set(l.label, this.cs.get(body.label) ?? top());
    return l;
  }

  private withFields(b: Binding, fields: Binding['fields']): Binding {
    return fields === undefined || b.r.kind === 'lit' ? b : { ...b, fields };
  }

  /** A copy of an atom (`isAtom`) with fresh labels (labels are unique in the residual program). */
  private copyAtom(r: CoreExpr): CoreExpr {
    const c =
      r.kind === 'proj'
        ? this.node({ kind: 'proj', ctor: r.ctor, index: r.index, arg: this.copyAtom(r.arg) }, r.span)
        : this.node({ ...(r as Extract<CoreExpr, { kind: 'var' | 'lit' }>) }, r.span);
    const v = this.cs.get(r.label);
    if (v !== undefined) this.cs.set(c.label, v);
    return c;
  }

  /** `b`, with a raised map at its top made plain (tests and projections need the map itself). */
  private tupleFree(b: Binding, span: SourceSpan): Binding {
    return b.rep?.kind === 'tuple' ? this.plain(b, span) : b;
  }

  /**
   * Map operations with a known key on a raised map (or a map constant) as tuple operations:
   *   map_find(m, k)      => some(#n⁻ⁱ m)         (k the i-th key; `none` when k is not a key)
   *   map_insert(m, k, x) => #n'(…, x, …)         (slot replaced, or added in key order)
   *   map_delete(m, k)    => #n'(… without k …)
   *   map_has / map_size / map_keys                => constants (the keys are known)
   * `undefined` when the operation is not of that form (the caller residualizes it plainly).
   */
  private raisedPrim(op: string, args: readonly Binding[], span: SourceSpan): Binding | undefined {
    if (!this.raiseMaps) return undefined;
    const [m, k, x] = args as [Binding, Binding | undefined, Binding | undefined];
    if (m === undefined) return undefined;
    const key = k?.r.kind === 'lit' && isPrim(k.r.value) ? (k.r.value as Prim) : undefined;
    const keys = this.knownKeys(m);
    if (keys === undefined) return undefined;
    switch (op) {
      case 'map_find': {
        if (key === undefined) return this.findByCases(m, k as Binding, keys, span);
        if (m.rep === undefined) return undefined;
        const v = ABS_PRIMS.map_find(m.v, (k as Binding).v);
        const i = keyIndex(keys, key);
        this.stats.raisedOps++;
        let slot: Binding | undefined;
        const b = this.bind(
          v,
          () =>
            this.withVar(m.r, m.v, m.rep, span, (mx) => {
              if (i < 0) return this.node({ kind: 'con', ctor: 'none', args: [] }, span);
              slot = this.slot(mx, m.v, keys, i, span);
              return this.node({ kind: 'con', ctor: 'some', args: [slot.r] }, span);
            }),
          span,
          undefined,
        );
        // `some(#n⁻ⁱ m)`: its field is the slot, an atom when `m` is a variable
        return slot !== undefined && m.r.kind === 'var' && b.r.kind === 'con'
          ? { ...b, fields: { ctor: 'some', args: [slot] } }
          : b;
      }
      case 'map_insert':
      case 'map_delete': {
        if (key === undefined) return undefined;
        const next =
          op === 'map_insert' ? withKey(keys, key) : keys.filter((_, j) => j !== keyIndex(keys, key));
        if (next.length > RAISE_CAP) return undefined;
        const value = op === 'map_insert' ? this.plain(x as Binding, span) : undefined;
        const v =
          op === 'map_insert'
            ? ABS_PRIMS.map_insert(m.v, (k as Binding).v, (value as Binding).v)
            : ABS_PRIMS.map_delete(m.v, (k as Binding).v);
        this.stats.raisedOps++;
        const rep = tupleRep(next);
        const at = value === undefined || m.rep === undefined ? -1 : keyIndex(keys, key);
        if (at >= 0 && this.late > 0) {
          // an existing key of a raised map: one element replaced (a tuple literal of every slot
          // would make a chain of updates, as a dataflow pass's kill over all variables is,
          // quadratic in code size)
          return this.bind(
            v,
            () =>
              this.node(
                {
                  kind: 'prim',
                  op: 'tuple_with',
                  args: [m.r, this.constNode(at, span), (value as Binding).r],
                },
                span,
              ),
            span,
            rep,
          );
        }
        return this.bind(
          v,
          () =>
            this.withVar(m.r, m.v, m.rep, span, (mx) => {
              const slots = next.map((kk) =>
                value !== undefined && keyIndex([kk], key) === 0
                  ? value.r
                  : this.entryCode(m, mx, keys, keyIndex(keys, kk), span),
              );
              return this.node({ kind: 'con', ctor: this.tupleCtor(next.length), args: slots }, span);
            }),
          span,
          rep,
        );
      }
      case 'map_has':
      case 'map_size':
      case 'map_keys': {
        // the keys are known: so is the answer
        if (m.rep === undefined || (op === 'map_has' && key === undefined)) return undefined;
        const value: Value =
          op === 'map_size'
            ? keys.length
            : op === 'map_has'
              ? keyIndex(keys, key as Prim) >= 0
              : keys.reduce((acc, kk) => setAdd(acc, kk), setEmpty<Prim>());
        this.stats.raisedOps++;
        return { v: fromConcrete(value, this.ctors), r: this.constNode(value, span) };
      }
      default:
        return undefined;
    }
  }

  /**
   * `map_find(m, k)` on a raised map with a late key: a chain of key comparisons, each giving its
   * slot (`k === k0 ? some(#n⁻⁰ m) : k === k1 ? … : none`), over the keys `k` may be, instead of
   * building the map again to look one key up (`plain`: a map insert per key). For string keys
   * only (`eq` is `===`, which agrees with the map's key equality on strings), and at most
   * FIND_CASES keys that `k` may be.
   */
  private findByCases(m: Binding, k: Binding, keys: readonly Prim[], span: SourceSpan): Binding | undefined {
    if (k.rep !== undefined || !keys.every((x) => typeof x === 'string')) return undefined;
    const cases: number[] = [];
    for (let i = 0; i < keys.length; i++) {
      if (truthValues(ABS_PRIMS.eq(k.v, constant(keys[i] as Prim))).t) cases.push(i);
    }
    if (cases.length > FIND_CASES) return undefined;
    const v = ABS_PRIMS.map_find(m.v, k.v);
    this.stats.raisedOps++;
    const chain = (mx: CoreExpr, kx: CoreExpr): CoreExpr => {
      let out = this.node({ kind: 'con', ctor: 'none', args: [] }, span);
      for (let j = cases.length - 1; j >= 0; j--) {
        const i = cases[j] as number;
        const cond = this.node(
          { kind: 'prim', op: 'eq', args: [this.copyAtom(kx), this.litNode(keys[i] as Prim, span)] },
          span,
        );
        const found = this.node(
          { kind: 'con', ctor: 'some', args: [this.entryCode(m, this.copyAtom(mx), keys, i, span)] },
          span,
        );
        // biome-ignore lint/suspicious/noThenProperty: Core's `if` node has a `then` field
        out = this.node({ kind: 'if', cond, then: found, else: out }, span);
        this.cs.set(out.label, v);
      }
      return out;
    };
    // (a map constant is not read by the chain: its entries are constants)
    const withMap = (make: (mx: CoreExpr) => CoreExpr) =>
      m.rep === undefined ? make(m.r) : this.withVar(m.r, m.v, m.rep, span, make);
    return this.bind(
      v,
      () => withMap((mx) => this.withVar(k.r, k.v, undefined, span, (kx) => chain(mx, kx))),
      span,
      undefined,
    );
  }

  /**
   * The code of the `i`-th entry (of `keys`) of a raised map held in the atom `mx`: its slot; of a
   * map constant (`m.r` a literal): the entry itself, a constant.
   */
  private entryCode(m: Binding, mx: CoreExpr, keys: readonly Prim[], i: number, span: SourceSpan): CoreExpr {
    if (m.rep !== undefined) return this.slot(mx, m.v, keys, i, span).r;
    const c = (m.r as Extract<CoreExpr, { kind: 'lit' }>).value as PMap<Prim, Value>;
    return this.constNode(c.get(keys[i] as Prim) as Value, span);
  }

  /** The keys of a raised map, or of a map constant small enough to raise; else `undefined`. */
  private knownKeys(m: Binding): readonly Prim[] | undefined {
    if (m.rep?.kind === 'tuple') return m.rep.keys;
    if (m.rep !== undefined || m.r.kind !== 'lit' || !IMap.isMap(m.r.value)) return undefined;
    const c = m.r.value as PMap<Prim, Value>;
    if (c.size > RAISE_CAP) return undefined;
    return [...c.keys()].map(normPrim).sort(comparePrim);
  }

  private constNode(value: Value, span: SourceSpan): CoreExpr {
    const r = this.node({ kind: 'lit', value }, span);
    this.cs.set(r.label, fromConcrete(value, this.ctors));
    return r;
  }

  private litNode(value: Prim, span: SourceSpan): CoreExpr {
    const r = this.node({ kind: 'lit', value }, span);
    this.cs.set(r.label, constant(value));
    return r;
  }

  private tupleCtor(n: number): string {
    this.tupleArities.add(n);
    return tupleCtorName(n);
  }

  private ev(e: CoreExpr, env: Env | undefined, spec: Spec): Binding {
    if (++this.stats.visits > this.budget) {
      this.exhaust(`the budget of ${this.budget} expression visits ran out`);
      if (this.stats.visits > this.hardBudget) throw new BudgetExceeded();
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
        const r = this.node({ kind: 'lit', value: e.value }, e.span);
        this.cs.set(r.label, v);
        return { v, r };
      }
      case 'con': {
        const args = e.args.map((a) => this.ev(a, env, spec));
        const v = con(
          e.ctor,
          args.map((a) => a.v),
        );
        const b = this.bind(
          v,
          () => this.node({ kind: 'con', ctor: e.ctor, args: args.map((a) => a.r) }, e.span),
          e.span,
          conRep(
            e.ctor,
            args.map((a) => a.rep),
          ),
        );
        return b.r.kind === 'con' && args.every((a) => isAtom(a.r))
          ? this.withFields(b, { ctor: e.ctor, args })
          : b;
      }
      case 'test': {
        // a constructor test on a raised map would see the tuple: test the map itself
        const a = this.tupleFree(this.ev(e.arg, env, spec), e.span);
        const v = testCtor(e.ctor, a.v, this.arity(e.ctor));
        return {
          v,
          r: this.residualOf(v, () => this.node({ kind: 'test', ctor: e.ctor, arg: a.r }, e.span), e.span),
        };
      }
      case 'proj': {
        const a = this.tupleFree(this.ev(e.arg, env, spec), e.span);
        const v = project(e.ctor, e.index, a.v);
        const field = a.fields?.ctor === e.ctor ? a.fields.args[e.index] : undefined;
        if (field !== undefined && inScope(field.r, env))
          return this.bind(v, () => this.copyAtom(field.r), e.span, field.rep);
        // a field of a represented constructor keeps its representation
        const rep = a.rep?.kind === 'con' && a.rep.ctor === e.ctor ? a.rep.args[e.index] : undefined;
        return this.bind(
          v,
          () => this.node({ kind: 'proj', ctor: e.ctor, index: e.index, arg: a.r }, e.span),
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
        const raised = this.raisedPrim(e.op, args, e.span);
        if (raised) return raised;
        const plainArgs = args.map((a) => this.plain(a, e.span));
        const v = ABS_PRIMS[e.op](...plainArgs.map((a) => a.v));
        return {
          v,
          r: this.residualOf(
            v,
            () => this.node({ kind: 'prim', op: e.op, args: plainArgs.map((a) => a.r) }, e.span),
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
    if (!f) return this.ev(e.then, this.refine(e.cond, env, true), spec);
    if (!t) return this.ev(e.else, this.refine(e.cond, env, false), spec);
    // both branches: each is on a late path (a call there is not unfolded)
    this.late++;
    let a: Binding;
    let b: Binding;
    try {
      a = this.ev(e.then, this.refine(e.cond, env, true), spec);
      b = this.ev(e.else, this.refine(e.cond, env, false), spec);
    } finally {
      this.late--;
    }
    // one representation for both branches (a branch that cannot return does not count)
    let rep: Rep;
    if (a.v.kind === 'bottom') rep = b.rep;
    else if (b.v.kind === 'bottom') rep = a.rep;
    else if (sameRep(a.rep, b.rep)) rep = a.rep;
    else if (this.representable(a, b.rep)) {
      // a constant branch takes the other branch's representation
      a = this.literalAs(a, b.rep, e.span);
      rep = b.rep;
    } else if (this.representable(b, a.rep)) {
      b = this.literalAs(b, a.rep, e.span);
      rep = a.rep;
    } else {
      a = this.plain(a, e.span);
      b = this.plain(b, e.span);
      rep = undefined;
    }
    const v = a.v.kind === 'bottom' ? b.v : b.v.kind === 'bottom' ? a.v : join(a.v, b.v).value;
    return this.bind(
      v,
      // biome-ignore lint/suspicious/noThenProperty: Core's `if` node has a `then` field
      () => this.node({ kind: 'if', cond: c.r, then: a.r, else: b.r }, e.span),
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
    return this.withFields(
      this.bind(x.v, () => this.node({ kind: 'var', name: rname }, span), span, x.rep),
      x.fields,
    );
  }

  /** The residual `let` of `bound` (from `letBound`) around the body's binding `b`. */
  private letWrap(bound: Binding, x: Binding, b: Binding, span: SourceSpan): Binding {
    if (bound === x) return b; // nothing to bind: uses were replaced by the constant or variable
    const name = (bound.r as Extract<CoreExpr, { kind: 'var' }>).name;
    const r = this.node({ kind: 'let', name, value: x.r, body: b.r }, span);
    this.cs.set(r.label, b.rep === undefined ? b.v : new View(b.v, b.rep));
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

  /** `env` narrowed by the knowledge that `cond` evaluated to `outcome`. */
  private refine(cond: CoreExpr, env: Env | undefined, outcome: boolean): Env | undefined {
    if (cond.kind === 'prim' && cond.op === 'not' && cond.args[0])
      return this.refine(cond.args[0], env, !outcome);
    if (cond.kind === 'prim' && cond.op === 'ne') return this.refine({ ...cond, op: 'eq' }, env, !outcome);
    if (cond.kind === 'test' && cond.arg.kind === 'var')
      return this.narrow(env, cond.arg.name, cond.span, (v) =>
        refineCtor(v, cond.ctor, outcome, this.arity(cond.ctor)),
      );
    // `if (!st.reach)`: the members of `st` whose field can be what the test found
    if (cond.kind === 'proj' && cond.arg.kind === 'var')
      return this.narrow(env, cond.arg.name, cond.span, (v) =>
        refineField(v, cond.ctor, cond.index, outcome),
      );
    if (cond.kind === 'prim' && (cond.op === 'eq' || cond.op === 'equal')) {
      const [l, r] = cond.args;
      // `if (e.op === '+')`: the members of `e` whose field can be (or can be other than) that string
      const [p, k] =
        l?.kind === 'proj' && r?.kind === 'lit'
          ? [l, r]
          : r?.kind === 'proj' && l?.kind === 'lit'
            ? [r, l]
            : [];
      if (p?.arg.kind === 'var' && typeof k?.value === 'string') {
        const s = k.value;
        return this.narrow(env, p.arg.name, cond.span, (v) => refineFieldIs(v, p.ctor, p.index, s, outcome));
      }
      if (outcome && l?.kind === 'var' && r?.kind === 'lit') return this.bindConst(env, l.name, r.value);
      if (outcome && r?.kind === 'var' && l?.kind === 'lit') return this.bindConst(env, r.name, l.value);
    }
    return env;
  }

  /** `env` with `name` rebound to `by` of its value (same residual and representation), if that differs. */
  private narrow(
    env: Env | undefined,
    name: string,
    span: SourceSpan,
    by: (v: AbsValue) => AbsValue,
  ): Env | undefined {
    const b = lookup(env, name);
    if (!b) return env;
    const v = by(b.v);
    if (v === b.v) return env;
    return { name, b: this.bind(v, () => b.r, span, b.rep), next: env };
  }

  private bindConst(env: Env | undefined, name: string, value: Value): Env | undefined {
    const b = lookup(env, name);
    if (!b || b.r.kind === 'lit') return env;
    // NaN is the one constant a variable can equal (`equal`) without being identical in JS terms;
    // it still prints and compares as itself, so narrowing to it is exact
    // `x === 0` also holds for x = -0, which is a different constant here: narrow to both zeros
    // the variable may hold
    const v =
      value === 0
        ? consts([0, -0].filter((z) => conforms(z, b.v, this.ctors)))
        : fromConcrete(value, this.ctors);
    if (v.kind === 'bottom' || !leq(v, b.v)) return env;
    return { name, b: this.bind(v, () => b.r, b.r.span, b.rep), next: env };
  }

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
        const r = this.node({ kind: 'lit', value: out.value as Value }, e.span);
        this.cs.set(r.label, v);
        return { v, r };
      } catch (err) {
        if (!(err instanceof ScfRuntimeError)) throw err;
        this.stats.staticWork += this.interp.lastSteps;
        // fails or runs long concretely: specialize it like any other call
      }
    }

    // on a static path the call is unfolded with the exact union (below); past a late test it is
    // specialized, and there a union of records told apart is dispatched on the field
    const byField = this.late > 0 ? this.splitKey(finite, args) : undefined;
    if (byField) return this.dispatch(fn, e, args, caller, finite, byField, env);
    return this.callWith(fn, e, args, caller, finite, env);
  }

  /**
   * A key argument whose value is a union of a few records of one constructor that the known
   * value of one primitive field tells apart (the label of a command: the spine of a program
   * after a loop that may or may not have been emitted, `tellApart`), and the groups of records
   * by that value. The call is then dispatched on the field (`dispatch`) rather than specialized
   * to the union, which would mix the records' parts (the first command of one with the first of
   * the other) in everything it calls.
   */
  private splitKey(finite: readonly boolean[], args: readonly Binding[]): Split | undefined {
    for (let i = 0; i < args.length; i++) {
      const v = (args[i] as Binding).v;
      if (!finite[i] || v.kind !== 'union' || v.alts.length > SPLIT_MAX) continue;
      const first = v.alts[0] as AbsValue;
      if (first.kind !== 'con') continue;
      if (
        !v.alts.every((a) => a.kind === 'con' && a.ctor === first.ctor && a.args.length === first.args.length)
      )
        continue;
      const cons = v.alts as readonly ConValue[];
      for (let f = 0; f < first.args.length; f++) {
        if (cons.some((a) => singlePrim(a.args[f] as AbsValue) === undefined)) continue;
        const groups = groupBy(cons, (a) => primKey(singlePrim(a.args[f] as AbsValue) as Prim));
        if (groups.length < 2) continue;
        return {
          index: i,
          ctor: first.ctor,
          field: f,
          groups: groups.map((g) => ({
            value: singlePrim((g[0] as ConValue).args[f] as AbsValue) as Prim,
            alts: g,
          })),
        };
      }
    }
    return undefined;
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
    if (!branches.every((b) => sameRep(b.rep, rep0))) branches = branches.map((b) => this.plain(b, e.span));
    const rep = (branches[0] as Binding).rep;
    let out = branches[branches.length - 1] as Binding;
    for (let j = branches.length - 2; j >= 0; j--) {
      const proj = this.node({ kind: 'proj', ctor: split.ctor, index: split.field, arg: x.r }, e.span);
      this.cs.set(proj.label, project(split.ctor, split.field, x.v));
      const value = (split.groups[j] as SplitGroup).value;
      const cond = this.node({ kind: 'prim', op: 'eq', args: [proj, this.litNode(value, e.span)] }, e.span);
      this.cs.set(cond.label, consts([true, false]));
      const b = branches[j] as Binding;
      const v = join(b.v, out.v).value;
      const r = this.node(
        // biome-ignore lint/suspicious/noThenProperty: Core's `if` node has a `then` field
        { kind: 'if', cond, then: b.r, else: out.r },
        e.span,
      );
      this.cs.set(r.label, rep === undefined ? v : new View(v, rep));
      out = rep === undefined ? { v, r } : { v, r, rep };
    }
    for (let j = bound.length - 1; j >= 0; j--)
      out = this.letWrap(bound[j] as Binding, args[j] as Binding, out, e.span);
    return out;
  }

  /**
   * A call reaching an existing specialization: the caller is recorded; an argument represented
   * otherwise than its parameter makes the parameter plain (every other caller analysed again);
   * arguments outside the parameters grow them (`grow`; pinned past the fuel, then `1`), and the
   * specialization is analysed again (from the worklist when it is being analysed, or too deep).
   */
  private addCall(spec: Spec, args: readonly Binding[], ctx: Chain, caller: Spec, deep: boolean): void {
    spec.callers.add(caller);
    // an argument represented otherwise than the parameter makes the parameter plain; every
    // caller analysed with the old representation is analysed again
    let repChanged = false;
    args.forEach((a, i) => {
      const pr = spec.paramReps[i];
      if (pr !== undefined && !sameRep(a.rep, pr) && !this.representable(a, pr)) {
        spec.paramReps[i] = undefined;
        repChanged = true;
      }
    });
    if (repChanged) for (const c of spec.callers) if (c !== caller) this.markDirty(c);
    let grew = false;
    if (!spec.generalized && spec.argsPinned) {
      // pinned: an argument outside its parameter's pinned shape makes that parameter `1`
      args.forEach((a, i) => {
        const old = spec.args[i] as AbsValue;
        if (!leq(a.v, old)) {
          grew = true;
          spec.args[i] = top();
          this.stats.widenedToTop++;
          this.event(spec as Spec, `param ${i} (${spec.fn.params[i]})`, 'spec-fuel', '1');
        }
      });
    } else if (!spec.generalized) {
      const next = spec.args.slice();
      args.forEach((a, i) => {
        const old = next[i] as AbsValue;
        if (!leq(a.v, old)) {
          grew = true;
          next[i] = this.fresh(
            this.grow(old, a.v, spec.argChanges, spec, `param ${i} (${spec.fn.params[i]})`),
          );
        }
      });
      if (grew) {
        spec.argChanges++;
        if (this.exhausted) this.generalize(spec);
        else if (spec.argChanges > this.specFuel + SKELETON_STEPS) {
          // out of fuel: every parameter outside the key keeps only its constructors and map
          // keys (`shapeTop`; one more change makes it `1`); the specialization still handles
          // its key (say, one input node), so the staged code stays specialized to the input,
          // only less to the values flowing through it
          spec.argsPinned = true;
          const s = spec;
          spec.args = next.map((v, i) =>
            ctx.key.values[i] === undefined
              ? this.fresh(this.pin(s, `param ${i} (${s.fn.params[i]})`, v))
              : v,
          );
        } else spec.args = next;
      }
    }
    if ((grew || repChanged) && !spec.generalized) {
      if (spec.analyzing || deep) this.markDirty(spec);
      else this.analyzeNested(spec);
    }
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
      return before !== undefined && size(a.v) < size(before) ? a.v : undefined;
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
        args.map((a) => this.plain(a, e.span).r),
        e.span,
      );
      this.cs.set(r.label, v);
      return { v, r };
    }
    if (!spec) {
      spec = this.newSpec(
        fn,
        ctx,
        args.map((a) => this.fresh(a.v)),
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
    const v = this.fresh(ret);
    const callee = spec;
    // arguments as the parameters represent them (a differing one is plain: see above)
    const actuals = args.map((a, i) => {
      const pr = callee.paramReps[i];
      if (sameRep(a.rep, pr)) return a.r;
      if (this.representable(a, pr)) return this.literalAs(a, pr, e.span).r;
      return this.plain(a, e.span).r;
    });
    return this.bind(
      v,
      () => this.node({ kind: 'call', fn: callee.name, args: actuals }, e.span),
      e.span,
      callee.retRep === NO_REP ? undefined : callee.retRep,
    );
  }

  // ---- the residual program -------------------------------------------------------------

  private finish(root: Spec): PeResult {
    const byName = new Map<string, Spec>();
    for (const s of this.specs.values()) byName.set(s.name, s);
    const funs = new Map<string, FunDef>();
    const cs = new Map<Label, AbsValue>();
    const comments = new Map<string, string>();
    const todo: Spec[] = [root];
    const seen = new Set<Spec>([root]);
    while (todo.length > 0) {
      const s = todo.pop() as Spec;
      const body = s.body as CoreExpr;
      forEachExpr(body, (x) => {
        const v = s.cs.get(x.label);
        if (v) cs.set(x.label, v instanceof View ? viewOf(v.v, v.rep) : v);
        if (x.kind !== 'call') return;
        const callee = byName.get(x.fn);
        if (callee && !seen.has(callee)) {
          seen.add(callee);
          todo.push(callee);
        }
      });
      funs.set(s.name, { name: s.name, params: s.fn.params, body, span: s.fn.span, exported: s === root });
      comments.set(s.name, this.describe(s));
    }
    // generic calls need the original functions, and everything those call
    const generic = [...this.genericFns];
    for (let i = 0; i < generic.length; i++) {
      const f = this.program.funs.get(generic[i] as string) as FunDef;
      funs.set(f.name, f);
      forEachExpr(f.body, (x) => {
        if (x.kind === 'call' && !this.genericFns.has(x.fn)) {
          this.genericFns.add(x.fn);
          generic.push(x.fn);
        }
      });
    }
    let generalized = 0;
    for (const s of this.specs.values()) if (s.generalized) generalized++;
    const topped = this.stats.widenedToTop;
    const cut = this.stats.skeletons;
    const stop: PeStop =
      generalized > 0 || topped > 0 || cut > 0 || this.exhausted
        ? 'fuel'
        : this.widened
          ? 'widened'
          : 'fixpoint';
    const reasons: string[] = [];
    if (this.exhausted) reasons.push(`${this.exhaustedBy} (later calls stayed generic)`);
    if (topped > 0)
      reasons.push(
        `${topped} specialization parameter(s) or result(s) were widened to 1 (changed more than ${this.specFuel} times, or grew past ${this.growCap} nodes)`,
      );
    if (cut > 0)
      reasons.push(
        `${cut} specialization parameter(s) or result(s) were cut to a skeleton (constructors and must-keys kept; changed more than ${this.specFuel} times, or grew past ${this.growCap} nodes)`,
      );
    if (generalized > 0)
      reasons.push(`${generalized} specialization(s) were given up after the budget ran out`);
    const reason =
      stop === 'fuel'
        ? reasons.join('; ')
        : stop === 'widened'
          ? `converged after widening${this.stats.folded > 0 ? ` (${this.stats.folded} growing chain(s) folded into recursive values)` : ''}`
          : 'converged';
    this.stats.residualFuns = funs.size;
    const output = this.fresh(root.ret);
    return {
      residual: { funs, ctors: this.residualCtors(), sources: this.program.sources },
      entry: root.name,
      cs,
      output,
      stop,
      reason,
      stats: { ...this.stats },
      comments,
      events: this.events,
    };
  }

  /** The program's constructors and the tuples raised maps became. */
  private residualCtors(): ReadonlyMap<string, CtorDecl> {
    if (this.tupleArities.size === 0) return this.program.ctors;
    const ctors = new Map(this.program.ctors);
    for (const n of [...this.tupleArities].sort((a, b) => a - b)) {
      const name = tupleCtorName(n);
      if (!ctors.has(name)) ctors.set(name, tupleCtor(n));
    }
    return ctors;
  }

  /** What a specialization handles, for the emitted comment: `daeCmd(assign #12, _)`. */
  private describe(s: Spec): string {
    const parts = s.ctx.key.values
      .slice(0, s.fn.params.length)
      .map((v) => (v === undefined ? '_' : this.describeValue(v)));
    return `${s.fn.name}(${parts.join(', ')})`;
  }

  private describeValue(v: AbsValue): string {
    if (v.kind === 'con') {
      const fields = this.ctors.get(v.ctor)?.fields ?? [];
      const li = fields.indexOf('lbl');
      const lbl = li >= 0 ? v.args[li] : undefined;
      if (lbl?.kind === 'consts' && lbl.values.length === 1) return `${v.ctor} #${String(lbl.values[0])}`;
    }
    if (v.kind === 'union') {
      const alts = alternatives(v)
        .slice(0, 3)
        .map((a) => this.describeValue(a));
      return alts.join(' | ') + (alternatives(v).length > 3 ? ' | …' : '');
    }
    const text = printAbs(v);
    return text.length > 48 ? `${text.slice(0, 45)}…` : text;
  }
}

/**
 * `v` with the alternatives of a union that are tuples of one arity merged into one tuple: a
 * tuple is several values returned together, not a discriminated value, so keeping its
 * alternatives apart only multiplies them. An upper bound of `v`.
 */
function mergeTuples(v: AbsValue): AbsValue {
  if (v.kind !== 'union') return v;
  const alts = mergeSameCtor(v.alts, isTupleCtor);
  return alts.length === v.alts.length ? v : union(alts);
}

/** Whether `ctor` is one of Core's tuple constructors (`#2`, `#3`, …). */
function isTupleCtor(ctor: string): boolean {
  return /^#\d+$/.test(ctor);
}

/**
 * The arguments that are raised maps, as a string that is part of the call's specialization key;
 * `undefined` when none is. Only a map passed as itself counts (a tuple of its keys), not one
 * inside a constructor: keying on those too (a dataflow state holding an environment) doubled
 * whole trees of specializations and staging time, for little.
 */
function repSignature(reps: readonly Rep[]): string | undefined {
  if (!reps.some((r) => r?.kind === 'tuple')) return undefined;
  return reps
    .map((r) => (r?.kind === 'tuple' ? `#(${r.keys.map((k) => JSON.stringify(k)).join(',')})` : '_'))
    .join(';');
}

/** A residual expression cheap and pure enough to repeat: a variable, a constant, a slot `#n⁻ⁱ x`. */
function isAtom(r: CoreExpr): boolean {
  return (
    r.kind === 'var' ||
    r.kind === 'lit' ||
    (r.kind === 'proj' && r.arg.kind === 'var' && r.ctor.startsWith('#'))
  );
}

/** Whether every variable of the atom `r` still names the binding it named (not shadowed since). */
function inScope(r: CoreExpr, env: Env | undefined): boolean {
  if (r.kind === 'var') {
    // the nearest binding that introduces the residual name must be the one holding `r`
    // (residual names are source names, or renamed apart inside unfolded calls)
    for (let x = env; x; x = x.next) {
      if (x.b.r === r) return true;
      if (x.b.r.kind === 'var' && x.b.r.name === r.name) return false;
    }
    return false;
  }
  if (r.kind === 'proj') return inScope(r.arg, env);
  return true;
}

function lookup(env: Env | undefined, name: string): Binding | undefined {
  for (let x = env; x; x = x.next) if (x.name === name) return x.b;
  return undefined;
}

/** Which booleans a condition's value may be. */
function truthValues(v: AbsValue): { t: boolean; f: boolean } {
  let t = false;
  let f = false;
  for (const a of alternatives(v)) {
    if (a.kind === 'top') return { t: true, f: true };
    if (a.kind === 'consts') {
      for (const x of a.values) {
        if (x === true) t = true;
        else if (x === false) f = true;
      }
    }
  }
  return { t, f };
}

/**
 * Whether `v` is several values held together, capped part by part: a tuple, a record (a
 * constructor that does not occur inside its own arguments) or a map whose keys are all known.
 */
function isProduct(v: AbsValue): boolean {
  if (v.kind === 'con') return isTupleCtor(v.ctor) || !ctorBelow(v.ctor, v.args);
  return v.kind === 'map' && v.may.length === 0;
}

/** The product `v` with `cap` applied to each of its parts. */
function capParts(v: AbsValue, cap: (p: AbsValue) => AbsValue): AbsValue {
  if (v.kind === 'con') return con(v.ctor, v.args.map(cap));
  if (v.kind === 'map')
    return absMap(
      v.must.map(([k, x]) => [k, cap(x)] as const),
      [],
    );
  return v;
}

/** Whether constructor `ctor` occurs anywhere inside `xs` (a recursive value, not a record). */
function ctorBelow(ctor: string, xs: readonly AbsValue[]): boolean {
  const seen = (v: AbsValue): boolean => {
    switch (v.kind) {
      case 'con':
        return v.ctor === ctor || v.args.some(seen);
      case 'union':
        return v.alts.some(seen);
      case 'fix':
        return seen(v.body);
      case 'map':
        return v.must.some(([, x]) => seen(x)) || v.may.some(([k, x]) => seen(k) || seen(x));
      default:
        return false;
    }
  };
  return xs.some(seen);
}

/**
 * The representation a constant takes naturally: a map with at most RAISE_CAP keys is raised, a
 * constructor holding one is represented, anything else is plain.
 */
function literalRep(v: AbsValue): Rep {
  if (v.kind === 'map')
    return v.may.length === 0 && v.must.length <= RAISE_CAP ? tupleRep(v.must.map(([k]) => k)) : undefined;
  if (v.kind === 'con') return conRep(v.ctor, v.args.map(literalRep));
  return undefined;
}

/** Whether every value `v` holds can be represented per `rep` (the maps have exactly its keys). */
function fitsRep(v: AbsValue, rep: Rep): boolean {
  if (rep === undefined) return true;
  if (rep.kind === 'tuple')
    return (
      v.kind === 'map' &&
      v.may.length === 0 &&
      v.must.length === rep.keys.length &&
      v.must.every(([k], i) => comparePrim(k, rep.keys[i] as Prim) === 0)
    );
  return v.kind === 'con' && v.ctor === rep.ctor && v.args.every((a, i) => fitsRep(a, rep.args[i]));
}
