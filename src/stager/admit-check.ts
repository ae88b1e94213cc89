/**
 * Admission by interpretation: `checkAdmitted(desc, args)` runs the plan of admit-plan.ts on a
 * value (`PlanRunner`) and throws `InputNotAdmitted` (path, what was expected, what was found)
 * unless every `args[i]` is a member of `desc[i]` — the interpreted twin of the code
 * admit-emit.ts emits, with the same decisions and the same errors. `test` answers membership;
 * `check` throws where the value differs. Both follow a constructor's tail (`parts`) by a loop.
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
 * Invariant: for every description, value and constructor table, `checkAdmitted` accepts exactly
 * the values `conforms` accepts, and throws what the emitted checker throws.
 */
import { assertNever } from '../common/index.js';
import { type AbsValue, type CtorTable, inBase } from '../abstract-values/index.js';
import {
  type AdmissionPlan,
  type Entry,
  type Group,
  groupSize,
  type MapLeaf,
  type ObjLeaf,
  type Part,
  type Plan,
  parts,
  planAdmission,
  type SetLeaf,
  tailOf,
} from './admit-plan.js';
import {
  ctorFields,
  InputNotAdmitted,
  isCtor,
  isMap,
  isSet,
  notAdmitted,
  shortValue,
} from '../scf-lang/index.js';

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

interface MapLike extends Iterable<[unknown, unknown]> {
  has(k: unknown): boolean;
  get(k: unknown): unknown;
}
interface SetLike extends Iterable<unknown> {
  has(k: unknown): boolean;
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
