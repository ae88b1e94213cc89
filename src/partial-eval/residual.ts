/**
 * Residual code with its abstract values: what each step of the partial evaluator (pe.ts)
 * produces, and the builder that the evaluator and arity raising (raise.ts) make code with.
 *
 * - A `Binding` is an abstract value `v` with the residual expression `r` that computes it on
 *   every concrete environment the abstract one admits, the way `rep` represents it (raise.ts;
 *   `undefined`: as the optimizer itself does), and, when `r` builds a constructor from atoms
 *   (variables, constants, slots of a raised map), those atoms (`fields`): a projection of it is
 *   the atom itself.
 * - An `Env` binds the optimizer's variables to bindings, innermost first; `inScope` says whether
 *   an atom's variables still name what they named (residual names are source names, or renamed
 *   apart inside unfolded calls).
 * - `ResidualBuilder` is what code is made with: `node` gives every residual node a label unique
 *   in the residual program, and `cs` (the collecting semantics of the analysis in progress,
 *   `ResidualCode.analysis`) records its value; `residualOf`/`bind` make a singleton value a constant (`lit`, possibly a
 *   whole constructor tree or map) and anything else the code `make()` builds. `ResidualCode`
 *   implements it, and also keeps which tuple arities raised maps became (their constructors join
 *   the residual program, `residualCtors`) and gives values fresh identity tags (`retag`).
 *
 * Invariants
 * - Every residual node made through the builder has a label no other node has.
 * - A collecting-semantics entry for a represented value is kept as the value and its
 *   representation (`View`) and turned into the value as represented (`viewOf`, raise.ts) only for
 *   the residual program's own labels, when the run ends: most entries belong to analyses that a
 *   later one replaces.
 * - Identity tags (SCF §3.3.1) never cross a call boundary: `retag` re-tags everything but the
 *   concrete parts, which are shared as they are.
 */
import { assertNever, type SourceSpan } from '../common/index.js';
import {
  type AbsValue,
  constant,
  type CtorTable,
  freshTag,
  fromConcrete,
  inheritCaches,
  isConcrete,
  type Prim,
  singleton,
  withTag,
} from '../abstract-values/index.js';
import {
  type CoreExpr,
  type CtorDecl,
  type Label,
  tupleCtor,
  tupleCtorName,
  type Value,
} from '../scf-lang/index.js';
import type { Rep } from './raise.js';

export interface Binding {
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
export class View {
  constructor(
    readonly v: AbsValue,
    readonly rep: Rep,
  ) {}
}

/** What the collecting semantics records for a label while the partial evaluator runs. */
export type CsValue = AbsValue | View;

export interface Env {
  readonly name: string;
  readonly b: Binding;
  readonly next: Env | undefined;
}

/** An expression without its label and span (distributes over the union). */
export type ExprFields = CoreExpr extends infer T
  ? T extends CoreExpr
    ? Omit<T, 'label' | 'span'>
    : never
  : never;

export function lookup(env: Env | undefined, name: string): Binding | undefined {
  for (let x = env; x; x = x.next) if (x.name === name) return x.b;
  return undefined;
}

/** A residual expression cheap and pure enough to repeat: a variable, a constant, a slot `#n⁻ⁱ x`. */
export function isAtom(r: CoreExpr): boolean {
  return (
    r.kind === 'var' ||
    r.kind === 'lit' ||
    (r.kind === 'proj' && r.arg.kind === 'var' && r.ctor.startsWith('#'))
  );
}

/** Whether every variable of the atom `r` still names the binding it named (not shadowed since). */
export function inScope(r: CoreExpr, env: Env | undefined): boolean {
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

/** What residual code is made with (the evaluator, pe.ts, and arity raising, raise.ts). */
export interface ResidualBuilder {
  /** The program's constructors, with the prelude's. */
  readonly ctors: CtorTable;
  /** The collecting semantics of the analysis in progress: residual label → value. */
  readonly cs: Map<Label, CsValue>;
  /** `e` as a residual node with a label of its own. */
  node(e: ExprFields, span: SourceSpan): CoreExpr;
  /** A residual variable name of its own (`$rN`). */
  temp(): string;
  /** The one member of `v`, if it has exactly one. */
  single(v: AbsValue): { value: unknown } | undefined;
  /** A binding of `v` computed by `make()` with representation `rep` (plain when a constant). */
  bind(v: AbsValue, make: () => CoreExpr, span: SourceSpan, rep: Rep): Binding;
  /** The constant `value` (any concrete value) as a residual node. */
  constNode(value: Value, span: SourceSpan): CoreExpr;
  /** The primitive `value` as a residual node. */
  litNode(value: Prim, span: SourceSpan): CoreExpr;
  /** The name of the tuple constructor of arity `n` (which then joins the residual program). */
  tupleCtor(n: number): string;
}

/** The residual code of one run of the partial evaluator (`ResidualBuilder`). */
export class ResidualCode implements ResidualBuilder {
  /** cs entries of the analysis in progress (`analysis`). */
  private current = new Map<Label, CsValue>();
  private readonly singletons = new WeakMap<AbsValue, { value: unknown } | null>();
  private nextLabel = 1;
  private nextTemp = 0;
  /** Arities of the tuples raised maps became (their constructors join the residual program). */
  private readonly tupleArities = new Set<number>();

  constructor(readonly ctors: CtorTable) {}

  /** The collecting semantics of the analysis in progress: residual label → value. */
  get cs(): Map<Label, CsValue> {
    return this.current;
  }

  /**
   * `run()` as one analysis: the values of the nodes it makes are recorded in a map of its own,
   * returned with its result (each specialization keeps those of its last analysis). Analyses
   * nest: the one that was in progress continues when this one returns.
   */
  analysis<T>(run: () => T): { readonly result: T; readonly cs: Map<Label, CsValue> } {
    const outer = this.current;
    const cs = new Map<Label, CsValue>();
    this.current = cs;
    try {
      return { result: run(), cs };
    } finally {
      this.current = outer;
    }
  }

  /** `e` as a residual node with a label of its own. */
  node(e: ExprFields, span: SourceSpan): CoreExpr {
    return { ...e, label: this.nextLabel++, span } as CoreExpr;
  }

  /** A residual variable name of its own (`$rN`). */
  temp(): string {
    return `$r${this.nextTemp++}`;
  }

  /**
   * `v` re-tagged for a call boundary: fresh identity tags, dropping every identity claim it
   * carries as `freshen` does, except in concrete parts: a value with one member equals itself whatever its tags say, so those
   * parts are shared as they are (freshening big, mostly known ASTs would cost their size).
   */
  retag(v: AbsValue, memo = new Map<AbsValue, AbsValue>()): AbsValue {
    if (v.kind === 'bottom' || isConcrete(v)) return v;
    // shared sub-values stay shared (one activation's value at two places is one value), so a
    // value that is a DAG is copied in its own size, not its unfolded tree size
    const done = memo.get(v);
    if (done) return done;
    let out: AbsValue;
    switch (v.kind) {
      case 'con':
        out = { kind: 'con', tag: freshTag(), ctor: v.ctor, args: v.args.map((a) => this.retag(a, memo)) };
        break;
      case 'map':
        out = {
          kind: 'map',
          tag: freshTag(),
          must: v.must.map(([k, x]) => [k, this.retag(x, memo)] as const),
          may: v.may.map(([k, x]) => [this.retag(k, memo), this.retag(x, memo)] as const),
        };
        break;
      case 'union':
        out = { kind: 'union', tag: freshTag(), alts: v.alts.map((a) => this.retag(a, memo)) };
        break;
      case 'fix':
        out = { kind: 'fix', tag: freshTag(), body: this.retag(v.body, memo) };
        break;
      case 'set':
        out = { kind: 'set', tag: freshTag(), must: v.must, may: this.retag(v.may, memo) };
        break;
      case 'top':
      case 'base':
      case 'consts':
      case 'rec':
        // a leaf: only its tag is new
        out = withTag(v, freshTag());
        break;
      default:
        return assertNever(v);
    }
    inheritCaches(v, out);
    const single = this.singletons.get(v);
    if (single !== undefined) this.singletons.set(out, single);
    memo.set(v, out);
    return out;
  }

  /** The one member of `v`, if it has exactly one (remembered per value). */
  single(v: AbsValue): { value: unknown } | undefined {
    const c = this.singletons.get(v);
    if (c !== undefined) return c ?? undefined;
    const s = singleton(v, this.ctors);
    this.singletons.set(v, s ?? null);
    return s;
  }

  /**
   * The residual of a value: a constant when it is a singleton, else `make()`, whose code
   * represents the value per `rep`. Records cs (the value as represented).
   */
  residualOf(v: AbsValue, make: () => CoreExpr, span?: SourceSpan, rep?: Rep): CoreExpr {
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
  bind(v: AbsValue, make: () => CoreExpr, span: SourceSpan, rep: Rep): Binding {
    const r = this.residualOf(v, make, span, rep);
    return r.kind === 'lit' || rep === undefined ? { v, r } : { v, r, rep };
  }

  /** `b` with the atoms its constructor is built from (`Binding.fields`), unless it is a constant. */
  withFields(b: Binding, fields: Binding['fields']): Binding {
    return fields === undefined || b.r.kind === 'lit' ? b : { ...b, fields };
  }

  /** The constant `value` (any concrete value) as a residual node. */
  constNode(value: Value, span: SourceSpan): CoreExpr {
    const r = this.node({ kind: 'lit', value }, span);
    this.cs.set(r.label, fromConcrete(value, this.ctors));
    return r;
  }

  /** The primitive `value` as a residual node. */
  litNode(value: Prim, span: SourceSpan): CoreExpr {
    const r = this.node({ kind: 'lit', value }, span);
    this.cs.set(r.label, constant(value));
    return r;
  }

  /** The name of the tuple constructor of arity `n` (which then joins the residual program). */
  tupleCtor(n: number): string {
    this.tupleArities.add(n);
    return tupleCtorName(n);
  }

  /** The program's constructors and the tuples raised maps became. */
  residualCtors(programCtors: ReadonlyMap<string, CtorDecl>): ReadonlyMap<string, CtorDecl> {
    if (this.tupleArities.size === 0) return programCtors;
    const ctors = new Map(programCtors);
    for (const n of [...this.tupleArities].sort((a, b) => a - b)) {
      const name = tupleCtorName(n);
      if (!ctors.has(name)) ctors.set(name, tupleCtor(n));
    }
    return ctors;
  }
}
