/**
 * Admission: the checked destructuring of a staged optimizer's late-stage input (SCF §2.2 —
 * a staged optimizer is only valid for members of the abstract value it was staged against; the
 * stub checks membership first and falls back to the unstaged optimizer otherwise).
 *
 * `emitAdmission(desc, …)` emits TypeScript that decides `args[i] ∈ Ψ(desc[i])` and throws
 * `InputNotAdmitted` (path, what was expected, what was found) when not; `checkAdmitted` does the
 * same by interpretation. Both run one *plan*, built here once, so they raise identical errors.
 * The emitted `admit(args, from = 0)` skips the arguments before `from` (a stub admits its frozen
 * kernel once and then only the formals).
 *
 * Algorithm (planning). Membership is decided exactly as `conforms` (abstract-values/member.ts)
 * decides it; the plan only moves work from run time to build time:
 * - An *entry* is a position where `conforms` starts with an empty unproductive-cycle guard: a
 *   top-level argument, a constructor argument, a map value or may pair, a set's may part. It is
 *   named by its node and the chain of enclosing `fix` nodes (recursion variables are resolved
 *   to their `fix` first, as `conforms` does).
 * - At an entry, unions, `fix` and variables are expanded away at build time, with the same guard
 *   `conforms` uses (a `fix` re-entered without consuming a constructor contributes nothing —
 *   the least fixpoint), leaving *leaves*: `1`, primitive sets, constructors, maps, sets. Since
 *   membership in a union is a disjunction, the entry's test is the disjunction of its leaves.
 * - Leaves are grouped by *head* — primitive, object constructor `c`, tuple arity `n`, map, set —
 *   and heads are pairwise disjoint, so one cheap head test picks the only group that can match.
 *   A group with one member is checked straight-line; several members (alternatives sharing a
 *   constructor, e.g. `var(y, 4) | var(z, 5)`) are tried in turn (backtracking).
 * - A DFS over entries marks the targets of back edges, entries shared by several parents whose
 *   plans are not tiny, and entries from which more than `INLINE_DEPTH` entries would be inlined
 *   one into another (a long list described exactly), as *definitions*: those become functions;
 *   every other entry is inlined. Every cycle has a back edge, so inlining terminates, and the
 *   planner's and the emitter's recursion is bounded by `INLINE_DEPTH`, not by the description.
 *   The DFS itself keeps its stack in an array.
 *
 * Tails (inputs as long as memory allows). The *tail* of a constructor is its last argument that
 * is checked (a list's `tail`), or the shared last argument of alternatives of one constructor
 * whose tails are one definition (`cons(0, α) | cons(1, α)`). Once the other arguments passed,
 * the tail decides the answer, so both implementations take it in a loop, not a call: a list is
 * checked in constant stack, in time linear in its length. In emitted code, a definition whose
 * tails (followed through inlined entries) end in a definition is a *step*: `NAME_sN(t)` checks
 * all but the tail and returns the next definition, its value left in `NAME_t`; the loops
 * `NAME_run` / `NAME_runx` (throwing, with the path in `NAME_p`) call the steps until a member
 * (-1) or a non-member (-2) is found. A definition's function is emitted from a queue, not from
 * the function that first calls it, so a chain of definitions costs no emitter stack either.
 * Recursion remains where a value nests off its tails (a tree's left branch), bounded by that
 * nesting, and where alternatives of one constructor have different tails (tried in turn).
 *
 * Code shape. The common case — a big, mostly concrete AST with a few unions and `'Int` holes —
 * becomes straight-line code: one `const` per node and one head comparison per node, written
 * inline (`v3?.kind !== 'assign' || …`), no calls, no allocation, paths as string literals
 * that are only used when throwing. Functions hold at most `CHUNK` plan nodes (larger subtrees
 * are split into helper functions): V8 optimizes only functions below a bytecode size, and an
 * unoptimized checker is several times slower.
 *
 * Error semantics (the same in both implementations). `check(entry, x, path)` throws iff `x` is
 * not a member:
 * - a failed head test, or a group whose alternatives all fail, reports the entry: `expected` is
 *   its leaves' description (`nil | cons(…)`, `'Int`, `a map`);
 * - a matching single-member group descends, so a difference deep in an AST is reported where it
 *   is (`$[0].body.first.rhs`);
 * - a missing must key or element reports the map or set; a stray entry or element that no may
 *   part admits reports `path{key}`;
 * - a recursive definition is tested as a boolean first and re-run in throwing mode only on
 *   failure, so paths into recursive structures cost nothing when the input is admitted;
 * - in throwing mode a tail is checked without being tested first: the other arguments passed,
 *   so it is the part that fails (testing it first would make a long list quadratic).
 *
 * Invariants
 * - For every description, value and constructor table: the emitted checker and `checkAdmitted`
 *   accept exactly the values `conforms` accepts, and throw the same `InputNotAdmitted`.
 * - Generated names are `NAME` and `NAME_…`; the code refers to the runtime names in
 *   `ADMISSION_RUNTIME_IMPORTS` (module `runtime.ts`), which the enclosing module imports.
 */
import { assertNever, jsString } from '../common/index.js';
import {
  type AbsValue,
  type BaseSet,
  type CtorTable,
  type Fix,
  inBase,
  type Prim,
  printAbs,
  sortPrims,
  withPrelude,
} from '../abstract-values/index.js';
import { tupleArity } from '../abstract-values/index.js';

import { ctorFields, InputNotAdmitted, isCtor, isMap, isSet, notAdmitted, shortValue } from './runtime.js';

/** Runtime exports the emitted checker refers to (import them under these names). */
export const ADMISSION_RUNTIME_IMPORTS = [
  'IS_MAP',
  'IS_SET',
  'InputNotAdmitted',
  'ctorFields',
  'isMap',
  'isSet',
  'notAdmitted',
  'shortValue',
] as const;

/** Largest number of plan nodes checked inline in one emitted function. */
export const CHUNK = 150;
/** Longest static path suffix written as a literal before the rest of a subtree moves out. */
const PATH_MAX = 160;
/** Longest `expected` text. */
const EXPECTED_MAX = 160;
/** Boolean tests nest at most this many projections before moving into a helper function. */
const BOOL_DEPTH = 4;
/** Constant sets larger than this are tested with a module-level `Set`. */
const INLINE_CONSTS = 4;
/** Entries reached from several parents become functions when their plan has this many nodes. */
const SHARE_MIN = 8;
/**
 * Longest chain of entries inlined one into another: an entry from which a longer one starts
 * becomes a definition. Bounds the planner's and the emitter's recursion, and the nesting of the
 * emitted code, whatever the description's depth (a 10,000-element list described exactly).
 */
const INLINE_DEPTH = 64;

// ---- plans -----------------------------------------------------------------------------------

type Entry = Plan | Ref;

/** A recursive (or shared) entry, checked by definition `def`. */
interface Ref {
  readonly k: 'ref';
  readonly def: number;
}

type Plan =
  | { readonly k: 'any' }
  | { readonly k: 'none'; readonly expected: string }
  | { readonly k: 'leaves'; readonly groups: readonly Group[]; readonly expected: string };

/** Leaves sharing a head; at most one group of an entry can match a given value. */
type Group =
  | { readonly k: 'prim'; readonly consts: readonly Prim[]; readonly bases: readonly BaseSet[] }
  | { readonly k: 'obj'; readonly ctor: string; readonly members: readonly ObjLeaf[] }
  | { readonly k: 'tuple'; readonly n: number; readonly members: readonly (readonly Entry[])[] }
  | { readonly k: 'map'; readonly members: readonly MapLeaf[] }
  | { readonly k: 'set'; readonly members: readonly SetLeaf[] };

interface ObjLeaf {
  /** Field names from the table; `null`: the constructor is not in the table (use the object's keys). */
  readonly fields: readonly string[] | null;
  readonly args: readonly Entry[];
}
interface MapLeaf {
  readonly must: readonly (readonly [Prim, Entry])[];
  readonly may: readonly (readonly [Entry, Entry])[];
  /** What a stray entry was expected to be. */
  readonly mayText: string;
}
interface SetLeaf {
  readonly must: readonly Prim[];
  readonly may: Entry;
  readonly mayText: string;
}

/** Plans for one description: one entry per argument, definitions for recursive entries. */
export interface AdmissionPlan {
  readonly args: readonly Entry[];
  readonly defs: readonly Plan[];
}

type Env = readonly Fix[];

/** A leaf of the expansion of an entry: a non-union node with its enclosing fixes. */
interface Leaf {
  readonly v: AbsValue;
  readonly env: Env;
}

class Planner {
  private readonly fixIds = new Map<Fix, number>();
  /** Entry key → definition index, for entries that become functions. */
  private readonly defOf = new Map<string, number>();
  private readonly defs: Plan[] = [];
  private readonly ctors: CtorTable;

  constructor(ctors: CtorTable | undefined) {
    this.ctors = withPrelude(ctors);
  }

  plan(desc: readonly AbsValue[]): AdmissionPlan {
    this.discover(desc);
    const pending: [number, AbsValue, Env][] = [];
    for (const [key, def] of this.defOf) pending[def] = [def, ...this.keyed.get(key)!];
    const args = desc.map((v) => this.entry(v, []));
    for (const [def, v, env] of pending) this.defs[def] = this.build(v, env);
    return { args, defs: this.defs };
  }

  // -- entries and their keys

  private readonly keyed = new Map<string, [AbsValue, Env]>();
  private readonly nodeIds = new Map<AbsValue, number>();

  private id(v: AbsValue): number {
    return intern(this.nodeIds, v);
  }

  /** Resolves variables to their fix (as `conforms` does on entering a variable) and names the entry. */
  private normalize(v: AbsValue, env: Env): [AbsValue, Env, string] {
    let x = v;
    let e = env;
    while (x.kind === 'rec') {
      const at = e.length - 1 - x.index;
      const f = e[at];
      if (f === undefined) throw new Error('admission: abstract value has a free variable');
      x = f;
      e = e.slice(0, at);
    }
    let key = String(this.id(x));
    for (const f of e) key += `,${this.fixId(f)}`;
    return [x, e, key];
  }

  private fixId(f: Fix): number {
    return intern(this.fixIds, f);
  }

  /**
   * Pass 1: a depth-first search over entries, with an explicit stack (a description as deep as
   * a long list takes no call stack). Back-edge targets, big shared entries, and entries from
   * which more than INLINE_DEPTH entries would be inlined one into another become definitions.
   */
  private discover(desc: readonly AbsValue[]): void {
    const state = new Map<string, 'open' | 'done'>();
    const refs = new Map<string, number>();
    /** Of a done entry: the longest chain of entries inlined from it (itself included). */
    const height = new Map<string, number>();
    const stack: {
      readonly key: string;
      readonly children: [AbsValue, Env][];
      next: number;
      height: number;
    }[] = [];
    // enters an entry: the height it adds to its parent when known now, else its frame is pushed
    const enter = (v: AbsValue, env: Env): number | undefined => {
      const [x, e, key] = this.normalize(v, env);
      refs.set(key, (refs.get(key) ?? 0) + 1);
      if (!this.keyed.has(key)) this.keyed.set(key, [x, e]);
      const s = state.get(key);
      if (s === 'open') {
        this.markDef(key);
        return 0;
      }
      if (s === 'done') return this.defOf.has(key) ? 0 : (height.get(key) as number);
      state.set(key, 'open');
      const children: [AbsValue, Env][] = [];
      for (const leaf of this.expand(x, e)) for (const c of this.childEntries(leaf)) children.push(c);
      stack.push({ key, children, next: 0, height: 1 });
      return undefined;
    };
    for (const v of desc) {
      enter(v, []);
      for (let f = stack[stack.length - 1]; f !== undefined; f = stack[stack.length - 1]) {
        const child = f.children[f.next];
        if (child !== undefined) {
          f.next++;
          const h = enter(child[0], child[1]);
          if (h !== undefined) f.height = Math.max(f.height, h + 1);
          continue;
        }
        stack.pop();
        state.set(f.key, 'done');
        height.set(f.key, f.height);
        if (f.height > INLINE_DEPTH) this.markDef(f.key);
        const parent = stack[stack.length - 1];
        if (parent !== undefined) {
          parent.height = Math.max(parent.height, (this.defOf.has(f.key) ? 0 : f.height) + 1);
        }
      }
    }
    for (const [key, n] of refs) {
      if (n < 2 || this.defOf.has(key)) continue;
      const [x, e] = this.keyed.get(key) as [AbsValue, Env];
      if (this.leafCount(x, e, 0) >= SHARE_MIN) this.markDef(key);
    }
  }

  /** Plan nodes under an entry, counted up to SHARE_MIN (stops early). */
  private leafCount(v: AbsValue, env: Env, acc: number): number {
    let n = acc + 1;
    for (const leaf of this.expand(v, env)) {
      for (const [c, ce] of this.childEntries(leaf)) {
        if (n >= SHARE_MIN) return n;
        const [x, e, key] = this.normalize(c, ce);
        n = this.defOf.has(key) ? n + 1 : this.leafCount(x, e, n);
      }
    }
    return n;
  }

  private markDef(key: string): void {
    if (!this.defOf.has(key)) this.defOf.set(key, this.defOf.size);
  }

  /**
   * The leaves of an entry: unions, fixes and variables expanded with `conforms`'s guard (the
   * fixes entered since the last constructor), duplicates removed. Bottom contributes nothing.
   */
  private expand(v: AbsValue, env: Env): Leaf[] {
    const out: Leaf[] = [];
    const seen = new Set<string>();
    const go = (x: AbsValue, e: Env, guard: ReadonlySet<Fix>): void => {
      switch (x.kind) {
        case 'bottom':
          return;
        case 'union':
          for (const a of x.alts) go(a, e, guard);
          return;
        case 'fix': {
          if (guard.has(x)) return;
          const g = new Set(guard);
          g.add(x);
          go(x.body, [...e, x], g);
          return;
        }
        case 'rec': {
          const at = e.length - 1 - x.index;
          const f = e[at];
          if (f === undefined) throw new Error('admission: abstract value has a free variable');
          go(f, e.slice(0, at), guard);
          return;
        }
        case 'top':
        case 'consts':
        case 'base':
        case 'con':
        case 'map':
        case 'set': {
          let key = String(this.id(x));
          for (const f of e) key += `,${this.fixId(f)}`;
          if (seen.has(key)) return;
          seen.add(key);
          out.push({ v: x, env: e });
          return;
        }
        default:
          assertNever(x);
      }
    };
    go(v, env, new Set());
    return out;
  }

  /** The entries below a leaf (constructor arguments, map values and may pairs, a set's may part). */
  private childEntries(leaf: Leaf): [AbsValue, Env][] {
    const x = leaf.v;
    switch (x.kind) {
      case 'con':
        return this.conShape(x.ctor, x.args.length) === undefined ? [] : x.args.map((a) => [a, leaf.env]);
      case 'map': {
        const out: [AbsValue, Env][] = x.must.map(([, y]) => [y, leaf.env]);
        for (const [k, y] of x.may) out.push([k, leaf.env], [y, leaf.env]);
        return out;
      }
      case 'set':
        return [[x.may, leaf.env]];
      default:
        return [];
    }
  }

  /**
   * How `conforms` matches constructor `ctor` with `n` arguments: a tuple, an object with known
   * fields, an object with its own keys as fields (`null`), or never (`undefined`: wrong arity).
   */
  private conShape(
    ctor: string,
    n: number,
  ): { tuple: true } | { fields: readonly string[] | null } | undefined {
    const arity = tupleArity(ctor);
    if (arity !== undefined) return arity === n ? { tuple: true } : undefined;
    const info = this.ctors.get(ctor);
    if (info === undefined) return { fields: null };
    return info.fields.length === n ? { fields: info.fields } : undefined;
  }

  // -- pass 2: building plans

  private entry(v: AbsValue, env: Env): Entry {
    const [x, e, key] = this.normalize(v, env);
    const def = this.defOf.get(key);
    return def !== undefined ? { k: 'ref', def } : this.build(x, e);
  }

  private build(v: AbsValue, env: Env): Plan {
    const leaves = this.expand(v, env).filter(
      (l) => l.v.kind !== 'con' || this.conShape(l.v.ctor, l.v.args.length) !== undefined,
    );
    if (leaves.some((l) => l.v.kind === 'top')) return { k: 'any' };
    if (leaves.length === 0) return { k: 'none', expected: "nothing ('Empty)" };
    const consts: Prim[] = [];
    const bases: BaseSet[] = [];
    const objs = new Map<string, ObjLeaf[]>();
    const tuples = new Map<number, Entry[][]>();
    const maps: MapLeaf[] = [];
    const sets: SetLeaf[] = [];
    for (const { v: x, env: e } of leaves) {
      switch (x.kind) {
        case 'consts':
          consts.push(...x.values);
          break;
        case 'base':
          if (!bases.includes(x.base)) bases.push(x.base);
          break;
        case 'con': {
          const shape = this.conShape(x.ctor, x.args.length);
          const args = x.args.map((a) => this.entry(a, e));
          if (shape !== undefined && 'tuple' in shape) push(tuples, x.args.length, args);
          else if (shape !== undefined) push(objs, x.ctor, { fields: shape.fields, args });
          break;
        }
        case 'map':
          maps.push({
            must: x.must.map(([k, y]) => [k, this.entry(y, e)] as const),
            may: x.may.map(([k, y]) => [this.entry(k, e), this.entry(y, e)] as const),
            mayText:
              x.may.length === 0
                ? 'no other key'
                : `an entry in ${x.may.map(([k, y]) => `${short(k)} ↦ ${short(y)}`).join(' or ')}`,
          });
          break;
        case 'set':
          sets.push({
            must: x.must,
            may: this.entry(x.may, e),
            mayText: x.may.kind === 'bottom' ? 'no other element' : `an element in ${short(x.may)}`,
          });
          break;
        case 'top':
        case 'bottom':
        case 'union':
        case 'fix':
        case 'rec':
          break;
        default:
          return assertNever(x);
      }
    }
    const groups: Group[] = [];
    for (const [ctor, members] of objs) groups.push({ k: 'obj', ctor, members });
    for (const [n, members] of tuples) groups.push({ k: 'tuple', n, members });
    if (maps.length > 0) groups.push({ k: 'map', members: maps });
    if (sets.length > 0) groups.push({ k: 'set', members: sets });
    // the primitive group last: in emitted code it is the final `else if`
    if (consts.length > 0 || bases.length > 0) {
      const kept = sortPrims(consts).filter((p) => !bases.some((b) => inBase(p, b)));
      groups.push({ k: 'prim', consts: kept, bases });
    }
    return { k: 'leaves', groups, expected: describeLeaves(leaves) };
  }
}

function push<K, V>(m: Map<K, V[]>, k: K, v: V): void {
  const xs = m.get(k);
  if (xs === undefined) m.set(k, [v]);
  else xs.push(v);
}

// ---- expected texts ----------------------------------------------------------------------------

function cut(s: string, max = EXPECTED_MAX): string {
  return s.length <= max ? s : `${s.slice(0, max - 1)}…`;
}

/** A short rendering of a node: constructors two levels deep, variables as `…`. */
function short(v: AbsValue, depth = 2): string {
  switch (v.kind) {
    case 'con': {
      if (v.args.length === 0) return v.ctor.startsWith('#') ? '()' : v.ctor;
      const args = depth <= 0 ? ['…'] : v.args.map((a) => short(a, depth - 1));
      return v.ctor.startsWith('#') ? `(${args.join(', ')})` : `${v.ctor}(${args.join(', ')})`;
    }
    case 'union':
      return v.alts.map((a) => short(a, depth)).join(' | ');
    case 'fix':
      return depth <= 0 ? '…' : short(v.body, depth - 1);
    case 'rec':
      return '…';
    case 'map':
      return 'a map';
    case 'set':
      return 'a set';
    case 'bottom':
    case 'top':
    case 'base':
    case 'consts':
      return printAbs(v);
    default:
      return assertNever(v);
  }
}

/** What an entry expects: its leaves' heads, alternatives sharing a head shown in more detail. */
function describeLeaves(leaves: readonly Leaf[]): string {
  const heads = leaves.map((l) => headKey(l.v));
  return cut(
    leaves
      .map((l, i) => {
        const shared = heads.filter((h) => h === heads[i]).length > 1;
        return l.v.kind === 'con' && !shared ? short(l.v, 0) : short(l.v, shared ? 2 : 0);
      })
      .join(' | '),
  );
}

function headKey(v: AbsValue): string {
  if (v.kind === 'con') return `con:${v.ctor}`;
  if (v.kind === 'consts' || v.kind === 'base') return 'prim';
  return v.kind;
}

// ---- interpretation (checkAdmitted) ------------------------------------------------------------

const plans = new WeakMap<readonly AbsValue[], WeakMap<CtorTable, AdmissionPlan>>();
const NO_TABLE: CtorTable = new Map();

/** The plan for a description (memoized per description array and table). */
export function planAdmission(desc: readonly AbsValue[], ctors?: CtorTable): AdmissionPlan {
  const table = ctors ?? NO_TABLE;
  let byTable = plans.get(desc);
  if (byTable === undefined) {
    byTable = new WeakMap();
    plans.set(desc, byTable);
  }
  let p = byTable.get(table);
  if (p === undefined) {
    p = new Planner(ctors).plan(desc);
    byTable.set(table, p);
  }
  return p;
}

/**
 * Throws `InputNotAdmitted` unless `args` has one member of each `desc[i]`; the interpreted
 * twin of the code `emitAdmission` emits (same decisions, same errors).
 */
export function checkAdmitted(desc: readonly AbsValue[], args: readonly unknown[], ctors?: CtorTable): void {
  const plan = planAdmission(desc, ctors);
  if (args.length !== plan.args.length) {
    throw new InputNotAdmitted('$', `${plan.args.length} arguments`, `${args.length} arguments`);
  }
  const run = new PlanRunner(plan);
  for (let i = 0; i < args.length; i++) {
    const e = plan.args[i] as Entry;
    if (!run.test(e, args[i])) run.check(e, args[i], `$[${i}]`);
  }
}

class PlanRunner {
  constructor(private readonly plan: AdmissionPlan) {}

  private def(n: number): Plan {
    return this.plan.defs[n] as Plan;
  }

  /** Whether `t` is a member; the tail of a constructor (see `parts`) is tested by the loop. */
  test(e0: Entry, t0: unknown): boolean {
    let e = e0;
    let t = t0;
    for (;;) {
      switch (e.k) {
        case 'ref':
          e = this.def(e.def);
          continue;
        case 'any':
          return true;
        case 'none':
          return false;
        case 'leaves': {
          const g = e.groups.find((x) => headMatches(x, t));
          if (g === undefined) return false;
          const shared = groupSize(g) > 1 ? tailOf(g) : undefined;
          if (shared !== undefined) {
            // alternatives with one tail: some alternative's other arguments, then the tail
            const u = t;
            const at = (i: number): unknown =>
              shared.fields === null
                ? (u as unknown[])[i]
                : (u as Record<string, unknown>)[shared.fields[i] as string];
            const before = (args: readonly Entry[]) =>
              args.slice(0, shared.last).every((a, i) => this.test(a, at(i)));
            if (!shared.members.some(before)) return false;
            e = (shared.members[0] as readonly Entry[])[shared.last] as Entry;
            t = at(shared.last);
            continue;
          }
          const ps = parts(g, t);
          if (ps === undefined) return this.groupBody(g, t);
          if (ps === 'arity') return false;
          const last = ps.length - 1;
          for (let i = 0; i < last; i++) {
            const p = ps[i] as Part;
            if (!this.test(p.entry, p.value)) return false;
          }
          if (last < 0) return true;
          e = (ps[last] as Part).entry;
          t = (ps[last] as Part).value;
          continue;
        }
        default:
          return assertNever(e);
      }
    }
  }

  /** Whether a value whose head matched `g` passes one of its members. */
  private groupBody(g: Group, t: unknown): boolean {
    switch (g.k) {
      case 'prim':
        return true;
      case 'obj':
        return g.members.some((m) => this.objBody(m, t as Record<string, unknown>));
      case 'tuple':
        return g.members.some((args) => args.every((a, i) => this.test(a, (t as unknown[])[i])));
      case 'map':
        return g.members.some((m) => this.mapBody(m, t as MapLike));
      case 'set':
        return g.members.some((m) => this.setBody(m, t as SetLike));
      default:
        return assertNever(g);
    }
  }

  private objBody(m: ObjLeaf, t: Record<string, unknown>): boolean {
    const fields = m.fields ?? ctorFields(t);
    if (fields.length !== m.args.length) return false;
    return m.args.every((a, i) => this.test(a, t[fields[i] as string]));
  }

  private mapBody(m: MapLeaf, t: MapLike): boolean {
    for (const [k, y] of m.must) if (!t.has(k) || !this.test(y, t.get(k))) return false;
    const must = new Set<unknown>(m.must.map(([k]) => k));
    for (const [k, y] of t) {
      if (must.has(k)) continue;
      if (!m.may.some(([kp, yp]) => this.test(kp, k) && this.test(yp, y))) return false;
    }
    return true;
  }

  private setBody(m: SetLeaf, t: SetLike): boolean {
    for (const p of m.must) if (!t.has(p)) return false;
    const must = new Set<unknown>(m.must);
    for (const x of t) {
      if (must.has(x)) continue;
      if (!this.test(m.may, x)) return false;
    }
    return true;
  }

  /**
   * Throws iff `t` is not a member (see the error semantics in the header). A loop: once the
   * other arguments of a single constructor passed, its tail is the part that fails, and is
   * checked in its parent's place without being tested first.
   */
  check(e0: Entry, t0: unknown, path0: string): void {
    let e = e0;
    let t = t0;
    let path = path0;
    for (;;) {
      switch (e.k) {
        case 'ref':
          e = this.def(e.def);
          continue;
        case 'any':
          return;
        case 'none':
          notAdmitted(path, e.expected, t);
          break;
        case 'leaves': {
          const g = e.groups.find((x) => headMatches(x, t));
          if (g === undefined) notAdmitted(path, e.expected, t);
          if (groupSize(g) > 1) {
            if (!this.groupBody(g, t)) notAdmitted(path, e.expected, t);
            return;
          }
          const next = this.checkSingle(g, t, path);
          if (next === undefined) return;
          e = next.entry;
          t = next.value;
          path = path + next.step;
          continue;
        }
        default:
          assertNever(e);
      }
    }
  }

  /**
   * Checks the member of a single-member group whose head matched `t`, all but its tail; the
   * tail (the last checked argument of a constructor), when there is one, is returned.
   */
  private checkSingle(g: Group, t: unknown, path: string): Part | undefined {
    switch (g.k) {
      case 'prim':
        return undefined;
      case 'obj':
      case 'tuple': {
        const ps = parts(g, t);
        if (ps === 'arity') {
          const m = (g as Extract<Group, { k: 'obj' }>).members[0] as ObjLeaf;
          return notAdmitted(
            path,
            `${(g as Extract<Group, { k: 'obj' }>).ctor} with ${m.args.length} fields`,
            t,
          );
        }
        if (ps === undefined || ps.length === 0) return undefined;
        const last = ps.length - 1;
        for (let i = 0; i < last; i++) {
          const p = ps[i] as Part;
          if (!this.test(p.entry, p.value)) this.check(p.entry, p.value, path + p.step);
        }
        return ps[last];
      }
      case 'map': {
        const m = g.members[0] as MapLeaf;
        const mt = t as MapLike;
        for (const [k, y] of m.must) {
          if (!mt.has(k)) notAdmitted(path, `a map with key ${shortValue(k)}`, t);
          const x = mt.get(k);
          if (!this.test(y, x)) this.check(y, x, `${path}{${shortValue(k)}}`);
        }
        const must = new Set<unknown>(m.must.map(([k]) => k));
        for (const [k, y] of mt) {
          if (must.has(k)) continue;
          if (!m.may.some(([kp, yp]) => this.test(kp, k) && this.test(yp, y))) {
            notAdmitted(`${path}{${shortValue(k)}}`, m.mayText, y);
          }
        }
        return undefined;
      }
      case 'set': {
        const m = g.members[0] as SetLeaf;
        const st = t as SetLike;
        for (const p of m.must) if (!st.has(p)) notAdmitted(path, `a set containing ${shortValue(p)}`, t);
        const must = new Set<unknown>(m.must);
        for (const x of st) {
          if (must.has(x)) continue;
          if (!this.test(m.may, x)) notAdmitted(`${path}{${shortValue(x)}}`, m.mayText, x);
        }
        return undefined;
      }
      default:
        return assertNever(g);
    }
  }
}

/** An argument of a constructor value: its entry, the value there, the path step to it. */
interface Part {
  readonly entry: Entry;
  readonly value: unknown;
  readonly step: string;
}

/**
 * The arguments of `t`, whose head matched single-member constructor group `g`, that are
 * checked at all (not `'any`), in order: the last one is the *tail* (a list's tail), which both
 * checkers follow by a loop. `'arity'` when `t` has the wrong number of fields, `undefined` when
 * `g` is not a single constructor.
 */
function parts(g: Group, t: unknown): readonly Part[] | 'arity' | undefined {
  if (groupSize(g) !== 1) return undefined;
  if (g.k === 'tuple') {
    const xs = t as unknown[];
    const out: Part[] = [];
    (g.members[0] as readonly Entry[]).forEach((a, i) => {
      if (a.k !== 'any') out.push({ entry: a, value: xs[i], step: `[${i}]` });
    });
    return out;
  }
  if (g.k !== 'obj') return undefined;
  const m = g.members[0] as ObjLeaf;
  const o = t as Record<string, unknown>;
  const fields = m.fields ?? ctorFields(o);
  if (fields.length !== m.args.length) return 'arity';
  const out: Part[] = [];
  m.args.forEach((a, i) => {
    const f = fields[i] as string;
    if (a.k !== 'any') out.push({ entry: a, value: o[f], step: `.${f}` });
  });
  return out;
}

interface MapLike extends Iterable<[unknown, unknown]> {
  has(k: unknown): boolean;
  get(k: unknown): unknown;
}
interface SetLike extends Iterable<unknown> {
  has(k: unknown): boolean;
}

function groupSize(g: Group): number {
  return g.k === 'prim' ? 1 : g.members.length;
}

function headMatches(g: Group, t: unknown): boolean {
  switch (g.k) {
    case 'prim':
      return primMatches(g, t);
    case 'obj':
      return isCtor(t, g.ctor);
    case 'tuple':
      return Array.isArray(t) && t.length === g.n;
    case 'map':
      return isMap(t);
    case 'set':
      return isSet(t);
    default:
      return assertNever(g);
  }
}

function primMatches(g: Extract<Group, { k: 'prim' }>, t: unknown): boolean {
  if (typeof t !== 'number' && typeof t !== 'string' && typeof t !== 'boolean') return false;
  for (const b of g.bases) if (inBase(t, b)) return true;
  // constants are told apart by SameValue: -0 is not 0 (see identicalPrim)
  for (const p of g.consts) if (Object.is(p, t)) return true;
  return false;
}

// ---- emission ----------------------------------------------------------------------------------

export interface AdmissionOptions {
  /** Name of the emitted function; helpers are named `NAME_…`. */
  readonly name: string;
  /** Field names of constructors (a Core program's `ctors` fits); the prelude's are added. */
  readonly ctors: CtorTable;
  /** Prefix the function with `export` (default false). */
  readonly exported?: boolean;
}

/**
 * JavaScript source of `function NAME(args)` (it returns nothing, or throws `InputNotAdmitted`), plus the helper
 * constants and functions it needs (all named `NAME_…`), which throws `InputNotAdmitted` unless
 * every `args[i]` is a member of `desc[i]`. The code refers to the runtime exports listed in
 * `ADMISSION_RUNTIME_IMPORTS`, which the enclosing module must import from `runtime.ts`.
 */
export function emitAdmission(desc: readonly AbsValue[], opts: AdmissionOptions): string {
  return new AdmissionEmitter(planAdmission(desc, opts.ctors), opts.name).emit(opts.exported ?? false);
}

/** A path known when emitting (`'$[0].body'`), or `base + suffix` with `base` a runtime string. */
interface PathExpr {
  readonly base: string | null;
  readonly suffix: string;
}

function pathJs(p: PathExpr): string {
  const lit = jsString(p.suffix);
  if (p.base === null) return lit;
  return p.suffix === '' ? p.base : `${p.base} + ${lit}`;
}

function step(p: PathExpr, s: string): PathExpr {
  return { base: p.base, suffix: p.suffix + s };
}

/** The number of `k` in `ids`, numbering keys in order of first sight. */
function intern<K>(ids: Map<K, number>, k: K): number {
  let n = ids.get(k);
  if (n === undefined) {
    n = ids.size;
    ids.set(k, n);
  }
  return n;
}

/** `!(e)`, written as `a !== b` for one comparison and `!f(x)` for a call. */
function not(e: string): string {
  const eq = /^([\w$.[\]]+) === ((?:'(?:[^'\\]|\\.)*'|[\w.$-]+))$/.exec(e);
  if (eq) return `${eq[1]} !== ${eq[2]}`;
  if (/^[\w$]+\([^()]*\)$/.test(e)) return `!${e}`;
  return `!(${e})`;
}

/** JS literal of a primitive. */
function primJs(p: Prim): string {
  if (typeof p === 'string') return jsString(p);
  if (typeof p === 'boolean') return String(p);
  if (Number.isNaN(p)) return 'Number.NaN';
  if (p === Number.POSITIVE_INFINITY) return 'Number.POSITIVE_INFINITY';
  if (p === Number.NEGATIVE_INFINITY) return 'Number.NEGATIVE_INFINITY';
  return Object.is(p, -0) ? '-0' : String(p);
}

function isIdent(s: string): boolean {
  return /^[A-Za-z_$][\w$]*$/.test(s);
}

function member(x: string, field: string): string {
  return isIdent(field) ? `${x}.${field}` : `${x}[${jsString(field)}]`;
}

class AdmissionEmitter {
  /** Module-level declarations (constants, helper functions), in emission order. */
  private readonly decls: string[] = [];
  private next = 0;
  /** Definitions whose boolean / throwing functions were emitted or requested. */
  private readonly boolDefs = new Set<number>();
  private readonly checkDefs = new Set<number>();
  /** Definitions whose boolean / throwing step functions were emitted or requested. */
  private readonly boolSteps = new Set<number>();
  private readonly checkSteps = new Set<number>();
  /** Definitions with a tail ending in a definition: run as steps of the `NAME_run` loops. */
  private readonly stepDefs: ReadonlySet<number>;
  private readonly sizes = new Map<Entry, number>();
  /** Functions requested and not yet emitted. */
  private readonly pending: (() => void)[] = [];

  constructor(
    private readonly plan: AdmissionPlan,
    private readonly name: string,
  ) {
    const steps = new Set<number>();
    plan.defs.forEach((d, i) => {
      if (tailRefs(d).length > 0) steps.add(i);
    });
    this.stepDefs = steps;
  }

  emit(exported: boolean): string {
    const body: string[] = [];
    const n = this.plan.args.length;
    body.push(
      `  if (args.length !== ${n}) throw new InputNotAdmitted('$', '${n} arguments', \`\${args.length} arguments\`);`,
    );
    const fn = { nodes: 0 };
    this.plan.args.forEach((e, i) => {
      if (e.k === 'any') return;
      const a = `a${i}`;
      // arguments before `from` are not checked (the caller admitted them already and they
      // cannot have changed: a stub's frozen kernel)
      body.push(`  if (from <= ${i}) {`, `    const ${a} = args[${i}];`);
      this.checkEntry(e, a, { base: null, suffix: `$[${i}]` }, body, '    ', fn);
      body.push('  }');
    });
    const main = [`${exported ? 'export ' : ''}function ${this.name}(args, from = 0) {`, ...body, '}'].join(
      '\n',
    );
    // the definitions' functions, which may request more (a queue, not a recursion: a chain of
    // definitions is as long as the description is deep)
    for (let i = 0; i < this.pending.length; i++) (this.pending[i] as () => void)();
    return [...this.drivers(), ...this.decls, main].join('\n\n');
  }

  /** Emits a definition's function after the current one (see `emit`). */
  private later(job: () => void): void {
    this.pending.push(job);
  }

  /**
   * The loops that run step functions (none when no definition has a tail ending in one):
   * `NAME_run(s, t)` and `NAME_runx(s, t, path)` call the step of definition `s` on `t`, which
   * returns the next definition, having left its value in `NAME_t` (and its path in `NAME_p`),
   * or -1 (a member) or -2 (not one). So a list is checked by a loop down its tails, and a chain
   * of definitions (a long list described exactly) by one loop too.
   */
  private drivers(): string[] {
    if (this.boolSteps.size === 0 && this.checkSteps.size === 0) return [];
    const out = [`let ${this.name}_t;\nlet ${this.name}_p;`];
    const loop = (
      fn: string,
      params: string,
      steps: ReadonlySet<number>,
      step: (d: number) => string,
      end: string,
      move: string,
    ) => {
      const cases = [...steps]
        .sort((a, b) => a - b)
        .flatMap((d) => [`      case ${d}:`, `        s = ${step(d)}(${params});`, '        break;']);
      return [
        `function ${fn}(s, ${params}) {`,
        '  for (;;) {',
        '    switch (s) {',
        ...cases,
        '      default:',
        `        return${end};`,
        '    }',
        move,
        '  }',
        '}',
      ].join('\n');
    };
    if (this.boolSteps.size > 0) {
      out.push(
        loop(
          `${this.name}_run`,
          't',
          this.boolSteps,
          (d) => `${this.name}_s${d}`,
          ' s === -1',
          `    t = ${this.name}_t;`,
        ),
      );
    }
    if (this.checkSteps.size > 0) {
      out.push(
        loop(
          `${this.name}_runx`,
          't, path',
          this.checkSteps,
          (d) => `${this.name}_s${d}_x`,
          '',
          `    t = ${this.name}_t;\n    path = ${this.name}_p;`,
        ),
      );
    }
    return out;
  }

  private fresh(prefix: string): string {
    return `${prefix}${this.next++}`;
  }

  private helper(kind: string): string {
    return `${this.name}_${kind}${this.next++}`;
  }

  private def(n: number): Plan {
    return this.plan.defs[n] as Plan;
  }

  /** Plan nodes inlined when checking `e` (references count one). */
  private size(e: Entry): number {
    const cached = this.sizes.get(e);
    if (cached !== undefined) return cached;
    let n = 1;
    if (e.k === 'leaves') {
      for (const g of e.groups) {
        switch (g.k) {
          case 'prim':
            break;
          case 'obj':
            for (const m of g.members) for (const a of m.args) n += this.size(a);
            break;
          case 'tuple':
            for (const m of g.members) for (const a of m) n += this.size(a);
            break;
          case 'map':
            for (const m of g.members) {
              for (const [, y] of m.must) n += this.size(y);
              for (const [k, y] of m.may) n += this.size(k) + this.size(y);
            }
            break;
          case 'set':
            for (const m of g.members) n += this.size(m.may);
            break;
          default:
            return assertNever(g);
        }
      }
    }
    this.sizes.set(e, n);
    return n;
  }

  // -- boolean tests (expressions over a side-effect-free operand `x`)

  private boolRef(def: number): string {
    const fn = `${this.name}_r${def}`;
    if (!this.boolDefs.has(def)) {
      this.boolDefs.add(def);
      this.later(() => {
        if (this.stepDefs.has(def)) {
          this.boolStep(def);
          this.decls.push(`function ${fn}(t) {\n  return ${this.name}_run(${def}, t);\n}`);
        } else {
          const expr = this.boolExpr(this.def(def), 't', 0);
          this.decls.push(`function ${fn}(t) {\n  return ${expr};\n}`);
        }
      });
    }
    return fn;
  }

  /** The boolean step function of a definition with a tail: `NAME_sN(t)` (see `drivers`). */
  private boolStep(def: number): string {
    const fn = `${this.name}_s${def}`;
    if (!this.boolSteps.has(def)) {
      this.boolSteps.add(def);
      this.later(() => {
        const body: string[] = [];
        this.stepStatements(this.def(def), 't', body, '  ');
        this.decls.push([`function ${fn}(t) {`, ...body, '}'].join('\n'));
      });
    }
    return fn;
  }

  /**
   * Statements of a boolean step: they return -1 when `x` is a member of `e`, -2 when not, or
   * the next definition along `e`'s tail (its value in `NAME_t`). A group without a tail is
   * decided by its expression; a single constructor tests its other arguments and goes on with
   * its tail (the heads are disjoint, so a value whose head matched one group fails the rest).
   */
  private stepStatements(e: Entry, x: string, out: string[], ind: string): void {
    switch (e.k) {
      case 'any':
        out.push(`${ind}return -1;`);
        return;
      case 'none':
        out.push(`${ind}return -2;`);
        return;
      case 'ref':
        if (this.stepDefs.has(e.def)) {
          this.boolStep(e.def);
          out.push(`${ind}${this.name}_t = ${x};`, `${ind}return ${e.def};`);
        } else out.push(`${ind}return ${this.boolRef(e.def)}(${x}) ? -1 : -2;`);
        return;
      case 'leaves':
        break;
      default:
        assertNever(e);
    }
    const tailed = e.groups.filter((g) => tailOf(g) !== undefined);
    for (const g of e.groups) {
      if (!tailed.includes(g)) out.push(`${ind}if (${this.groupExpr(g, x, 0)}) return -1;`);
    }
    for (const g of tailed) {
      const { members, last, access } = tailOf(g) as TailShape;
      // the conditions before the tail: each member's conjunction, one disjunction for several
      const conjuncts = members.map((args) =>
        args
          .slice(0, last)
          .map((a, i) => this.boolExpr(a, access(x, i), 1))
          .filter((c) => c !== 'true'),
      );
      const conds =
        conjuncts.length === 1
          ? (conjuncts[0] as string[])
          : conjuncts.some((c) => c.length === 0)
            ? []
            : [
                conjuncts
                  .map((c) => `(${c.map((d) => (c.length > 1 ? wrapOr(d) : d)).join(' && ')})`)
                  .join(' || '),
              ];
      const inner = tailed.length === 1 ? ind : `${ind}  `;
      if (tailed.length === 1) out.push(`${ind}if (${this.notHead(g, x)}) return -2;`);
      else out.push(`${ind}if (${this.headExpr(g, x)}) {`);
      if (conds.length > 0) {
        out.push(
          `${inner}if (${not(conds.map((c) => (conds.length > 1 ? wrapOr(c) : c)).join(' && '))}) return -2;`,
        );
      }
      const v = this.fresh('v');
      out.push(`${inner}const ${v} = ${access(x, last)};`);
      this.stepStatements((members[0] as readonly Entry[])[last] as Entry, v, out, inner);
      if (tailed.length !== 1) out.push(`${ind}}`);
    }
    if (tailed.length !== 1) out.push(`${ind}return -2;`);
  }

  /** A boolean expression: whether `x` is a member of `e`. */
  private boolExpr(e: Entry, x: string, depth: number): string {
    switch (e.k) {
      case 'ref':
        return `${this.boolRef(e.def)}(${x})`;
      case 'any':
        return 'true';
      case 'none':
        return 'false';
      case 'leaves': {
        if (depth >= BOOL_DEPTH && this.size(e) > 1) return `${this.boolHelper(e)}(${x})`;
        const parts = e.groups.map((g) => this.groupExpr(g, x, depth));
        return parts.length === 1 ? (parts[0] as string) : parts.map((p) => `(${p})`).join(' || ');
      }
      default:
        return assertNever(e);
    }
  }

  /** An outlined boolean test (deep nesting, or a leaf that needs statements). */
  private boolHelper(e: Entry): string {
    const fn = this.helper('b');
    const expr = this.boolExpr(e, 't', 0);
    this.decls.push(`function ${fn}(t) {\n  return ${expr};\n}`);
    return fn;
  }

  private groupExpr(g: Group, x: string, depth: number): string {
    if (g.k === 'prim') return this.primExpr(g, x);
    const head = this.headExpr(g, x);
    const bodies = this.groupBodies(g, x, depth).filter((b) => b !== 'true');
    if (bodies.length < groupSize(g)) return head; // some member has no further condition
    const body = bodies.length === 1 ? (bodies[0] as string) : bodies.map((b) => `(${b})`).join(' || ');
    return `${head} && ${bodies.length === 1 ? wrapOr(body) : `(${body})`}`;
  }

  private headExpr(g: Group, x: string): string {
    switch (g.k) {
      case 'prim':
        return this.primExpr(g, x);
      case 'obj':
        // `isCtor` inline: each site sees one shape, so its `kind` load and the two loads that
        // miss (excluding Immutable maps and sets exactly as `conforms` does) stay monomorphic —
        // 3–4x faster than calling one shared helper, whose loads go megamorphic
        return (
          `${x}?.kind === ${jsString(g.ctor)} && typeof ${x} === 'object' && !Array.isArray(${x})` +
          ` && !${x}[IS_MAP] && !${x}[IS_SET]`
        );
      case 'tuple':
        return `Array.isArray(${x}) && ${x}.length === ${g.n}`;
      case 'map':
        return `isMap(${x})`;
      case 'set':
        return `isSet(${x})`;
      default:
        return assertNever(g);
    }
  }

  /** For each member, the condition after the head test (`'true'` when there is none). */
  private groupBodies(g: Group, x: string, depth: number): string[] {
    switch (g.k) {
      case 'prim':
        return ['true'];
      case 'obj':
        return g.members.map((m) => {
          if (m.fields === null) return `${this.objHelper(m)}(${x})`;
          const conds = m.args
            .map((a, i) =>
              this.boolExpr(a, member(x, (m.fields as readonly string[])[i] as string), depth + 1),
            )
            .filter((c) => c !== 'true');
          return conds.length === 0
            ? 'true'
            : conds.map((c) => (conds.length > 1 ? wrapOr(c) : c)).join(' && ');
        });
      case 'tuple':
        return g.members.map((args) => {
          const conds = args
            .map((a, i) => this.boolExpr(a, `${x}[${i}]`, depth + 1))
            .filter((c) => c !== 'true');
          return conds.length === 0
            ? 'true'
            : conds.map((c) => (conds.length > 1 ? wrapOr(c) : c)).join(' && ');
        });
      case 'map':
        return g.members.map((m) => `${this.mapHelper(m)}(${x})`);
      case 'set':
        return g.members.map((m) => `${this.setHelper(m)}(${x})`);
      default:
        return assertNever(g);
    }
  }

  private primExpr(g: Extract<Group, { k: 'prim' }>, x: string): string {
    const parts: string[] = [];
    for (const b of g.bases) {
      if (b === 'Int') parts.push(`typeof ${x} === 'number' && (${x} | 0) === ${x}`);
      else if (b === 'Float') parts.push(`typeof ${x} === 'number'`);
      else parts.push(`typeof ${x} === 'string'`);
    }
    if (g.consts.length > INLINE_CONSTS) {
      const k = this.helper('k');
      this.decls.push(`const ${k} = new Set([${g.consts.map(primJs).join(', ')}]);`);
      // a Set is SameValueZero; a zero of the wrong sign must not pass
      const pos = g.consts.some((p) => Object.is(p, 0));
      const neg = g.consts.some((p) => Object.is(p, -0));
      const sign = pos === neg ? '' : ` && !Object.is(${x}, ${pos ? '-0' : '0'})`;
      parts.push(`${k}.has(${x})${sign}`);
    } else {
      for (const p of g.consts)
        parts.push(
          Number.isNaN(p)
            ? `${x} !== ${x}`
            : p === 0
              ? `Object.is(${x}, ${primJs(p)})`
              : `${x} === ${primJs(p)}`,
        );
    }
    if (parts.length === 0) return 'false';
    return parts.length === 1
      ? (parts[0] as string)
      : parts.map((p) => (p.includes('&&') ? `(${p})` : p)).join(' || ');
  }

  /** Boolean test of an object leaf whose fields come from the value itself. */
  private objHelper(m: ObjLeaf): string {
    const fn = this.helper('o');
    const lines = [`function ${fn}(t) {`, '  const f = ctorFields(t);'];
    lines.push(`  if (f.length !== ${m.args.length}) return false;`);
    m.args.forEach((a, i) => {
      if (a.k === 'any') return;
      lines.push(`  const x${i} = t[f[${i}]];`);
      lines.push(`  if (${not(this.boolExpr(a, `x${i}`, 0))}) return false;`);
    });
    lines.push('  return true;', '}');
    this.decls.push(lines.join('\n'));
    return fn;
  }

  private mustSet(keys: readonly Prim[]): string {
    const k = this.helper('m');
    this.decls.push(`const ${k} = new Set([${keys.map(primJs).join(', ')}]);`);
    return k;
  }

  private mayExpr(m: MapLeaf, k: string, y: string): string {
    if (m.may.length === 0) return 'false';
    return m.may
      .map(([kp, yp]) => {
        const conds = [this.boolExpr(kp, k, 0), this.boolExpr(yp, y, 0)].filter((c) => c !== 'true');
        return conds.length === 0 ? 'true' : conds.map(wrapOr).join(' && ');
      })
      .map((c) => (m.may.length > 1 ? `(${c})` : c))
      .join(' || ');
  }

  private mapHelper(m: MapLeaf): string {
    const fn = this.helper('map');
    const mustLines: string[] = [];
    m.must.forEach(([k, y], i) => {
      mustLines.push(`  if (!t.has(${primJs(k)})) return false;`);
      if (y.k === 'any') return;
      mustLines.push(`  const y${i} = t.get(${primJs(k)});`);
      mustLines.push(`  if (${not(this.boolExpr(y, `y${i}`, 0))}) return false;`);
    });
    const may = { entry: '[k, y]', key: 'k', test: this.mayExpr(m, 'k', 'y') };
    return this.collectionHelper(
      fn,
      mustLines,
      m.must.map(([k]) => k),
      may,
    );
  }

  private setHelper(m: SetLeaf): string {
    const fn = this.helper('set');
    const mustLines = m.must.map((p) => `  if (!t.has(${primJs(p)})) return false;`);
    const may = { entry: 'x', key: 'x', test: this.boolExpr(m.may, 'x', 0) };
    return this.collectionHelper(fn, mustLines, m.must, may);
  }

  /**
   * Declares the Boolean test `fn(t)` of a Map or Set `t`: `mustLines` (the must part), then,
   * unless `may.test` is `'true'`, a loop over `t`'s entries (`may.entry`) whose keys
   * (`may.key`) are not among `mustKeys`, each of which must pass `may.test`.
   */
  private collectionHelper(
    fn: string,
    mustLines: readonly string[],
    mustKeys: readonly Prim[],
    may: { entry: string; key: string; test: string },
  ): string {
    const lines = [`function ${fn}(t) {`, ...mustLines];
    if (may.test !== 'true') {
      const must = mustKeys.length > 0 ? this.mustSet(mustKeys) : null;
      lines.push(`  for (const ${may.entry} of t) {`);
      if (must !== null) lines.push(`    if (${must}.has(${may.key})) continue;`);
      lines.push(`    if (!(${may.test})) return false;`, '  }');
    }
    lines.push('  return true;', '}');
    this.decls.push(lines.join('\n'));
    return fn;
  }

  // -- throwing checks (statements)

  /** The throwing function of a definition: `NAME_rN_x(t, path)`. */
  private checkRef(def: number): string {
    const fn = `${this.name}_r${def}_x`;
    if (!this.checkDefs.has(def)) {
      this.checkDefs.add(def);
      this.later(() => {
        if (this.stepDefs.has(def)) {
          this.checkStep(def);
          this.decls.push(`function ${fn}(t, path) {\n  ${this.name}_runx(${def}, t, path);\n}`);
        } else this.checkFunction(fn, 't, path', this.def(def), { base: 'path', suffix: '' });
      });
    }
    return fn;
  }

  /**
   * The throwing step function of a definition with a tail: `NAME_sN_x(t, path)` checks all but
   * the tail, then returns the next definition (its value and path in `NAME_t`, `NAME_p`), or -1.
   */
  private checkStep(def: number): string {
    const fn = `${this.name}_s${def}_x`;
    if (!this.checkSteps.has(def)) {
      this.checkSteps.add(def);
      this.later(() => this.checkFunction(fn, 't, path', this.def(def), { base: 'path', suffix: '' }, true));
    }
    return fn;
  }

  /**
   * Declares `function fn(params)` with the statements that check its parameter `t` against
   * `e`, paths starting from `path` (which may use a parameter `path`). With `tail`, a step
   * function: a definition at the end of `e`'s tail is returned to the loop (see `drivers`).
   */
  private checkFunction(fn: string, params: string, e: Entry, path: PathExpr, tail = false): void {
    const body: string[] = [];
    this.checkEntry(e, 't', path, body, '  ', { nodes: 0 }, tail);
    if (tail) body.push('  return -1;');
    this.decls.push([`function ${fn}(${params}) {`, ...body, '}'].join('\n'));
  }

  /** The negation of a single group's head test. */
  private notHead(g: Group, x: string): string {
    if (g.k === 'obj') {
      return (
        `${x}?.kind !== ${jsString(g.ctor)} || typeof ${x} !== 'object' || Array.isArray(${x})` +
        ` || ${x}[IS_MAP] || ${x}[IS_SET]`
      );
    }
    if (g.k === 'tuple') return `!Array.isArray(${x}) || ${x}.length !== ${g.n}`;
    return not(this.headExpr(g, x));
  }

  /**
   * Statements that throw iff the value in variable `x` is not a member of `e`. `fn.nodes`
   * counts plan nodes inlined into the current function (subtrees past CHUNK move out). With
   * `tail`, `e` is the tail of a step function (the last thing it checks, and known not to be a
   * member): a step definition there is returned to the loop, untested.
   */
  private checkEntry(
    e: Entry,
    x: string,
    path: PathExpr,
    out: string[],
    ind: string,
    fn: { nodes: number },
    tail = false,
  ): void {
    switch (e.k) {
      case 'any':
        return;
      case 'ref':
        if (tail && this.stepDefs.has(e.def)) {
          this.checkStep(e.def);
          out.push(
            `${ind}${this.name}_t = ${x};`,
            `${ind}${this.name}_p = ${pathJs(path)};`,
            `${ind}return ${e.def};`,
          );
        } else {
          out.push(
            `${ind}if (!${this.boolRef(e.def)}(${x})) ${this.checkRef(e.def)}(${x}, ${pathJs(path)});`,
          );
        }
        return;
      case 'none':
        out.push(`${ind}notAdmitted(${pathJs(path)}, ${jsString(e.expected)}, ${x});`);
        return;
      case 'leaves':
        break;
      default:
        assertNever(e);
    }
    const size = this.size(e);
    if (path.suffix.length > PATH_MAX && size > 1) {
      // deep below the last path base: a function whose paths restart from a runtime base, so
      // path literals stay short and code size linear (one string concatenation per boundary)
      const d = this.helper('d');
      this.checkFunction(d, 't, path', e, { base: 'path', suffix: '' }, tail);
      out.push(`${ind}${tail ? 'return ' : ''}${d}(${x}, ${pathJs(path)});`);
      return;
    }
    if (!tail && fn.nodes > 0 && fn.nodes + size > CHUNK && size > 1 && path.base === null) {
      // a big subtree at a static path: its own function
      const part = this.helper('p');
      this.checkFunction(part, 't', e, path);
      out.push(`${ind}${part}(${x});`);
      return;
    }
    fn.nodes++;
    const fail = `notAdmitted(${pathJs(path)}, ${jsString(e.expected)}, ${x});`;
    const groups = e.groups;
    if (groups.length === 1 && groupSize(groups[0] as Group) === 1) {
      const g = groups[0] as Group;
      out.push(`${ind}if (${this.notHead(g, x)}) ${fail}`);
      this.checkBody(g, x, path, out, ind, fn, tail);
      return;
    }
    // several heads: dispatch on the head, then check the only group that can match
    groups.forEach((g, i) => {
      const kw = i === 0 ? 'if' : '} else if';
      if (g.k === 'prim') {
        out.push(`${ind}${kw} (${not(this.primExpr(g, x))}) {`, `${ind}  ${fail}`);
        return;
      }
      out.push(`${ind}${kw} (${this.headExpr(g, x)}) {`);
      if (groupSize(g) > 1) {
        const bodies = this.groupBodies(g, x, 1);
        if (!bodies.includes('true'))
          out.push(`${ind}  if (!(${bodies.map((b) => `(${b})`).join(' || ')})) ${fail}`);
      } else {
        this.checkBody(g, x, path, out, `${ind}  `, fn, tail);
      }
    });
    if ((groups[groups.length - 1] as Group).k === 'prim') out.push(`${ind}}`);
    else out.push(`${ind}} else {`, `${ind}  ${fail}`, `${ind}}`);
  }

  /**
   * After the head of single-member group `g` matched `x`: check the member's parts (with
   * `tail`, the last one as the tail of a step function, see `checkEntry`).
   */
  private checkBody(
    g: Group,
    x: string,
    path: PathExpr,
    out: string[],
    ind: string,
    fn: { nodes: number },
    tail = false,
  ): void {
    switch (g.k) {
      case 'prim':
        return;
      case 'obj': {
        const m = g.members[0] as ObjLeaf;
        if (m.fields === null) {
          const f = this.fresh('f');
          out.push(`${ind}const ${f} = ctorFields(${x});`);
          out.push(
            `${ind}if (${f}.length !== ${m.args.length}) notAdmitted(${pathJs(path)}, ${jsString(`${g.ctor} with ${m.args.length} fields`)}, ${x});`,
          );
          m.args.forEach((a, i) => {
            if (a.k === 'any') return;
            const v = this.fresh('v');
            out.push(`${ind}const ${v} = ${x}[${f}[${i}]];`);
            const p: PathExpr =
              path.base === null
                ? { base: `${jsString(`${path.suffix}.`)} + ${f}[${i}]`, suffix: '' }
                : { base: `${pathJs(path)} + '.' + ${f}[${i}]`, suffix: '' };
            this.checkEntry(a, v, p, out, ind, fn);
          });
          return;
        }
        const fields = m.fields;
        const last = lastChecked(m.args);
        m.args.forEach((a, i) => {
          if (a.k === 'any') return;
          const field = fields[i] as string;
          const v = this.fresh('v');
          out.push(`${ind}const ${v} = ${member(x, field)};`);
          this.checkEntry(a, v, step(path, `.${field}`), out, ind, fn, tail && i === last);
        });
        return;
      }
      case 'tuple': {
        const args = g.members[0] as readonly Entry[];
        const last = lastChecked(args);
        args.forEach((a, i) => {
          if (a.k === 'any') return;
          const v = this.fresh('v');
          out.push(`${ind}const ${v} = ${x}[${i}];`);
          this.checkEntry(a, v, step(path, `[${i}]`), out, ind, fn, tail && i === last);
        });
        return;
      }
      case 'map': {
        const m = g.members[0] as MapLeaf;
        for (const [k, y] of m.must) {
          const kt = shortValue(k);
          out.push(
            `${ind}if (!${x}.has(${primJs(k)})) notAdmitted(${pathJs(path)}, ${jsString(`a map with key ${kt}`)}, ${x});`,
          );
          if (y.k === 'any') continue;
          const v = this.fresh('v');
          out.push(`${ind}const ${v} = ${x}.get(${primJs(k)});`);
          this.checkEntry(y, v, step(path, `{${kt}}`), out, ind, fn);
        }
        const may = this.mayExpr(m, 'k', 'y');
        if (may === 'true') return;
        const must = m.must.length > 0 ? this.mustSet(m.must.map(([k]) => k)) : null;
        out.push(`${ind}for (const [k, y] of ${x}) {`);
        if (must !== null) out.push(`${ind}  if (${must}.has(k)) continue;`);
        out.push(
          `${ind}  if (!(${may})) notAdmitted(${pathJs(path)} + '{' + shortValue(k) + '}', ${jsString(m.mayText)}, y);`,
          `${ind}}`,
        );
        return;
      }
      case 'set': {
        const m = g.members[0] as SetLeaf;
        for (const p of m.must) {
          out.push(
            `${ind}if (!${x}.has(${primJs(p)})) notAdmitted(${pathJs(path)}, ${jsString(`a set containing ${shortValue(p)}`)}, ${x});`,
          );
        }
        const may = this.boolExpr(m.may, 'y', 0);
        if (may === 'true') return;
        const must = m.must.length > 0 ? this.mustSet(m.must) : null;
        out.push(`${ind}for (const y of ${x}) {`);
        if (must !== null) out.push(`${ind}  if (${must}.has(y)) continue;`);
        out.push(
          `${ind}  if (!(${may})) notAdmitted(${pathJs(path)} + '{' + shortValue(y) + '}', ${jsString(m.mayText)}, y);`,
          `${ind}}`,
        );
        return;
      }
      default:
        assertNever(g);
    }
  }
}

/** Index of the last argument that is checked at all (not `'any`); -1 when none is. */
function lastChecked(args: readonly Entry[]): number {
  for (let i = args.length - 1; i >= 0; i--) if ((args[i] as Entry).k !== 'any') return i;
  return -1;
}

/**
 * A constructor group with a tail: its members' arguments, the tail's index (the same in every
 * member), the field names (`null`: a tuple's indices) and how emitted code reads argument `i`.
 */
interface TailShape {
  readonly members: readonly (readonly Entry[])[];
  readonly last: number;
  readonly fields: readonly string[] | null;
  readonly access: (x: string, i: number) => string;
}

/**
 * The tail of group `g` as both checkers follow it by a loop: `g` is one constructor whose fields
 * are known (a table's, or a tuple's), with an argument that is checked, its last such one the
 * tail; or several alternatives of one constructor whose tails are one definition at the same
 * argument (`cons(0, α) | cons(1, α)`: `(a && T) || (b && T)` is `(a || b) && T`). Undefined
 * otherwise (a constructor missing from the table is checked by a helper, without a tail).
 */
function tailOf(g: Group): TailShape | undefined {
  let members: readonly (readonly Entry[])[];
  let fields: readonly string[] | null = null;
  if (g.k === 'tuple') members = g.members;
  else if (g.k === 'obj') {
    const fs = (g.members[0] as ObjLeaf).fields;
    if (fs === null || g.members.some((m) => m.fields === null)) return undefined;
    fields = fs;
    members = g.members.map((m) => m.args);
  } else return undefined;
  const last = lastChecked(members[0] as readonly Entry[]);
  if (last < 0) return undefined;
  if (members.length > 1) {
    const t = (members[0] as readonly Entry[])[last] as Entry;
    const shared = (m: readonly Entry[]): boolean => {
      const u = m[last] as Entry;
      return lastChecked(m) === last && t.k === 'ref' && u.k === 'ref' && u.def === t.def;
    };
    if (!members.every(shared)) return undefined;
  }
  const fs = fields;
  return {
    members,
    last,
    fields,
    access: fs === null ? (x, i) => `${x}[${i}]` : (x, i) => member(x, fs[i] as string),
  };
}

/** The definitions at the ends of `e`'s tails (followed through inlined entries). */
function tailRefs(e: Entry): number[] {
  const out: number[] = [];
  const go = (x: Entry): void => {
    if (x.k === 'ref') out.push(x.def);
    if (x.k !== 'leaves') return;
    for (const g of x.groups) {
      const t = tailOf(g);
      if (t !== undefined) go((t.members[0] as readonly Entry[])[t.last] as Entry);
    }
  };
  go(e);
  return out;
}

/** Parenthesizes a disjunction used as a conjunct. */
function wrapOr(c: string): string {
  return c.includes('||') ? `(${c})` : c;
}
