/**
 * Random members of abstract values (fast-check): the generator behind every later
 * "staged ≡ unstaged" test, which runs both pipelines on concrete inputs drawn from |I|.
 *
 * `arbMembers(vs)` draws one member of each value *jointly*, respecting identity tags
 * (§3.3.1): nodes carrying the same tag (outside recursive bodies and map/set may parts, where
 * a node stands for many values) get the same concrete value. Shared tags are drawn first,
 * innermost first, from the meet of their occurrences; everything else is drawn structurally.
 *
 * Recursive values (`fix`) are unrolled lazily; past `maxDepth` constructor levels a union only
 * picks members that are inhabited without recursing (always possible for an inhabited fix:
 * the least fixpoint's first iterate is non-empty), so every draw is finite.
 *
 * fast-check is an optional package, loaded by the first `arbMembers` (common/optional.ts) and
 * handed down in the context.
 */
import type FastCheck from 'fast-check';
import { Map as IMap, Set as ISet } from 'immutable';
import { optionalPackage } from '../common/index.js';
import { meet } from './abstract-lattice.js';
import { buildCtor, type CtorTable, conforms, isPrimValue, mustIndex, withPrelude } from './member.js';
import { type AbsValue, assertNever, childrenOf, type Fix, inhabited, size } from './value.js';

export interface MemberOptions {
  /** Field names of object constructors (the prelude's are included). */
  readonly ctors?: CtorTable;
  /** Constructor nesting after which recursion stops (default 5). */
  readonly maxDepth?: number;
  /** Most extra map entries / set elements drawn from may parts (default 3). */
  readonly maxExtra?: number;
}

type Memo = ReadonlyMap<number, unknown>;

interface Ctx {
  readonly fc: typeof FastCheck;
  readonly ctors: CtorTable;
  readonly maxDepth: number;
  readonly maxExtra: number;
}

/** Members of `v` (throws on `0`, which has none). */
export function arbMember(v: AbsValue, opts: MemberOptions = {}): FastCheck.Arbitrary<unknown> {
  return arbMembers([v], opts).map((xs) => xs[0]);
}

/** One member of each of `vs`, drawn jointly so that equal tags give equal values. */
export function arbMembers(
  vs: readonly AbsValue[],
  opts: MemberOptions = {},
): FastCheck.Arbitrary<unknown[]> {
  for (const v of vs) if (!inhabited(v)) throw new Error('arbMembers: an abstract value has no members');
  const fc = optionalPackage<typeof FastCheck>('fast-check');
  const ctx: Ctx = {
    fc,
    ctors: withPrelude(opts.ctors),
    maxDepth: opts.maxDepth ?? 5,
    maxExtra: opts.maxExtra ?? 3,
  };
  const occ = new Map<number, AbsValue[]>();
  const visit = (v: AbsValue): void => {
    const list = occ.get(v.tag);
    if (list === undefined) occ.set(v.tag, [v]);
    else list.push(v);
    switch (v.kind) {
      case 'con':
        for (const a of v.args) visit(a);
        return;
      case 'union':
        for (const a of v.alts) visit(a);
        return;
      case 'map':
        for (const [, x] of v.must) visit(x);
        return;
      case 'bottom':
      case 'top':
      case 'base':
      case 'consts':
      case 'fix':
      case 'rec':
      case 'set':
        return;
      default:
        assertNever(v);
    }
  };
  for (const v of vs) visit(v);
  const shared = [...occ.entries()]
    .filter(([, nodes]) => nodes.length > 1)
    .map(([tag, nodes]) => ({ tag, target: nodes.reduce((a, b) => meet(a, b)) }))
    .filter((s) => inhabited(s.target))
    .sort((a, b) => size(a.target) - size(b.target));
  let arb: FastCheck.Arbitrary<Memo> = fc.constant(new Map());
  for (const { tag, target } of shared) {
    arb = arb.chain((memo) => gen(target, memo, [], 0, ctx).map((x) => new Map(memo).set(tag, x)));
  }
  return arb.chain((memo) => fc.tuple(...vs.map((v) => gen(v, memo, [], 0, ctx))));
}

const INT_EDGES = [0, 1, -1, 2147483647, -2147483648];

function gen(
  v: AbsValue,
  memo: Memo,
  env: readonly Fix[],
  depth: number,
  ctx: Ctx,
): FastCheck.Arbitrary<unknown> {
  const { fc } = ctx;
  if (env.length === 0 && memo.has(v.tag)) {
    const x = memo.get(v.tag);
    if (conforms(x, v, ctx.ctors)) return fc.constant(x);
  }
  switch (v.kind) {
    case 'bottom':
      throw new Error('arbMember: no members');
    case 'top':
      return anyValue(depth, ctx);
    case 'consts':
      return fc.constantFrom(...v.values);
    case 'base':
      switch (v.base) {
        case 'Int':
          return fc.oneof(fc.integer(), fc.constantFrom(...INT_EDGES));
        case 'Float':
          return fc.oneof(fc.double(), fc.integer({ min: -100, max: 100 }));
        case 'Str':
          return fc.string({ maxLength: 6 });
        default:
          return assertNever(v.base);
      }
    case 'con':
      return fc
        .tuple(...v.args.map((a) => gen(a, memo, env, depth + 1, ctx)))
        .map((xs) => buildCtor(v.ctor, xs, ctx.ctors));
    case 'union': {
      // members inhabited with the recursion variables empty can always be finished; inside a
      // fix the others are inhabited through the (inhabited) recursion
      const finite = v.alts.filter((a) => inhabited(a, 0));
      const all = env.length > 0 ? v.alts : finite;
      const alts = depth >= ctx.maxDepth && finite.length > 0 ? finite : all;
      return fc.oneof(...alts.map((a) => gen(a, memo, env, depth, ctx)));
    }
    case 'fix':
      return gen(v.body, memo, [...env, v], depth, ctx);
    case 'rec': {
      const at = env.length - 1 - v.index;
      const f = env[at];
      if (f === undefined) throw new Error('arbMember: free variable');
      const outer = env.slice(0, at);
      return fc.constant(null).chain(() => gen(f, memo, outer, depth, ctx));
    }
    case 'map': {
      const must = fc.tuple(...v.must.map(([, x]) => gen(x, memo, env, depth + 1, ctx)));
      const extra =
        v.may.length === 0 || depth >= ctx.maxDepth
          ? fc.constant([] as [unknown, unknown][])
          : fc.array(
              fc.oneof(
                ...v.may.map(([k, x]) =>
                  fc.tuple(gen(k, memo, env, depth + 1, ctx), gen(x, memo, env, depth + 1, ctx)),
                ),
              ),
              { maxLength: ctx.maxExtra },
            );
      return fc.tuple(must, extra).map(([ms, es]) => {
        let m = IMap<unknown, unknown>();
        // an extra entry on a must key would be overwritten, and Immutable.js keeps the old value
        // when the new one is SameValueZero-equal (0 over -0), so such entries are not drawn
        for (const [k, x] of es) if (isPrimValue(k) && mustIndex(v.must, k) < 0) m = m.set(k, x);
        v.must.forEach(([k], i) => {
          m = m.set(k, ms[i]);
        });
        return m;
      });
    }
    case 'set': {
      const extra =
        v.may.kind === 'bottom' || depth >= ctx.maxDepth
          ? fc.constant([] as unknown[])
          : fc.array(gen(v.may, memo, env, depth + 1, ctx), { maxLength: ctx.maxExtra });
      return extra.map((es) => ISet<unknown>([...v.must, ...es.filter(isPrimValue)]));
    }
    default:
      return assertNever(v);
  }
}

/** Some SCF-lang value (members of `1`): primitives, tuples, options, lists, small maps. */
function anyValue(depth: number, ctx: Ctx): FastCheck.Arbitrary<unknown> {
  const { fc } = ctx;
  const prims = fc.oneof(fc.integer(), fc.double(), fc.string({ maxLength: 4 }), fc.boolean());
  if (depth >= ctx.maxDepth) return prims;
  const sub = fc.constant(null).chain(() => anyValue(depth + 1, ctx));
  return fc.oneof(
    { weight: 4, arbitrary: prims },
    { weight: 1, arbitrary: fc.tuple(sub, sub) },
    { weight: 1, arbitrary: fc.constant({ kind: 'none' }) },
    { weight: 1, arbitrary: sub.map((value) => ({ kind: 'some', value })) },
    {
      weight: 1,
      arbitrary: fc
        .array(fc.tuple(fc.integer({ min: 0, max: 9 }), sub), { maxLength: 3 })
        .map((es) => IMap<unknown, unknown>(es)),
    },
  );
}

/** Tags occurring more than once (for diagnostics in tests). */
export function sharedTags(v: AbsValue): number[] {
  const seen = new Map<number, number>();
  const walk = (x: AbsValue) => {
    seen.set(x.tag, (seen.get(x.tag) ?? 0) + 1);
    for (const c of childrenOf(x)) walk(c);
  };
  walk(v);
  return [...seen].filter(([, n]) => n > 1).map(([t]) => t);
}
