/**
 * Admission: the checked destructuring of a staged optimizer's late-stage input (SCF §2.2 —
 * a staged optimizer is only valid for members of the abstract value it was staged against; the
 * stub checks membership first and falls back to the unstaged optimizer otherwise).
 *
 * `emitAdmission(desc, …)` emits TypeScript that decides `args[i] ∈ Ψ(desc[i])` and throws
 * `InputNotAdmitted` (path, what was expected, what was found) when not; `checkAdmitted` does the
 * same by interpretation (admit-check.ts). Both run one *plan*, built here (`planAdmission`), so
 * they raise identical errors; admit-emit.ts emits the code.
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
 * whose tails are one definition (`cons(0, α) | cons(1, α)`; `parts`, `tailOf`). Once the other
 * arguments passed, the tail decides the answer, so both implementations take it in a loop, not a
 * call: a list is checked in constant stack, in time linear in its length.
 *
 * The error semantics both implementations share are stated in admit-check.ts.
 *
 * Invariants
 * - For every description, value and constructor table: the emitted checker and `checkAdmitted`
 *   accept exactly the values `conforms` accepts, and throw the same `InputNotAdmitted`.
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
  tupleArity,
  withPrelude,
} from '../abstract-values/index.js';
import { ctorFields } from '../scf-lang/index.js';

/** Longest `expected` text. */
const EXPECTED_MAX = 160;
/** Entries reached from several parents become functions when their plan has this many nodes. */
const SHARE_MIN = 8;
/**
 * Longest chain of entries inlined one into another: an entry from which a longer one starts
 * becomes a definition. Bounds the planner's and the emitter's recursion, and the nesting of the
 * emitted code, whatever the description's depth (a 10,000-element list described exactly).
 */
export const INLINE_DEPTH = 64;

// ---- plans -----------------------------------------------------------------------------------

export type Entry = Plan | Ref;

/** A recursive (or shared) entry, checked by definition `def`. */
export interface Ref {
  readonly k: 'ref';
  readonly def: number;
}

export type Plan =
  | { readonly k: 'any' }
  | { readonly k: 'none'; readonly expected: string }
  | { readonly k: 'leaves'; readonly groups: readonly Group[]; readonly expected: string };

/** Leaves sharing a head; at most one group of an entry can match a given value. */
export type Group =
  | { readonly k: 'prim'; readonly consts: readonly Prim[]; readonly bases: readonly BaseSet[] }
  | { readonly k: 'obj'; readonly ctor: string; readonly members: readonly ObjLeaf[] }
  | { readonly k: 'tuple'; readonly n: number; readonly members: readonly (readonly Entry[])[] }
  | { readonly k: 'map'; readonly members: readonly MapLeaf[] }
  | { readonly k: 'set'; readonly members: readonly SetLeaf[] };

export interface ObjLeaf {
  /** Field names from the table; `null`: the constructor is not in the table (use the object's keys). */
  readonly fields: readonly string[] | null;
  readonly args: readonly Entry[];
}
export interface MapLeaf {
  readonly must: readonly (readonly [Prim, Entry])[];
  readonly may: readonly (readonly [Entry, Entry])[];
  /** What a stray entry was expected to be. */
  readonly mayText: string;
}
export interface SetLeaf {
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
export interface Leaf {
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
      case 'bottom':
      case 'top':
      case 'union':
      case 'base':
      case 'consts':
      case 'fix':
      case 'rec':
        return [];
      default:
        return assertNever(x);
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

/** The number of `k` in `ids`, numbering keys in order of first sight. */
function intern<K>(ids: Map<K, number>, k: K): number {
  let n = ids.get(k);
  if (n === undefined) {
    n = ids.size;
    ids.set(k, n);
  }
  return n;
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

// ---- the plan, memoized ----------------------------------------------------------------------

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

// ---- reading plans (both checkers) -----------------------------------------------------------

/** An argument of a constructor value: its entry, the value there, the path step to it. */
export interface Part {
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
export function parts(g: Group, t: unknown): readonly Part[] | 'arity' | undefined {
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

export function groupSize(g: Group): number {
  return g.k === 'prim' ? 1 : g.members.length;
}

/** Index of the last argument that is checked at all (not `'any`); -1 when none is. */
export function lastChecked(args: readonly Entry[]): number {
  for (let i = args.length - 1; i >= 0; i--) if ((args[i] as Entry).k !== 'any') return i;
  return -1;
}

/**
 * A constructor group with a tail: its members' arguments, the tail's index (the same in every
 * member), the field names (`null`: a tuple's indices) and how emitted code reads argument `i`.
 */
export interface TailShape {
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
export function tailOf(g: Group): TailShape | undefined {
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

/** Whether `s` is a JavaScript identifier (a field read as `x.s`). */
function isIdent(s: string): boolean {
  return /^[A-Za-z_$][\w$]*$/.test(s);
}

/** How emitted code reads field `field` of `x` (`TailShape.access`). */
export function member(x: string, field: string): string {
  return isIdent(field) ? `${x}.${field}` : `${x}[${jsString(field)}]`;
}
