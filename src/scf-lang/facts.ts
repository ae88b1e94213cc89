/**
 * Narrowing facts: what a test teaches about the constructors of variables and read-only field
 * paths (`x.kind === 'c'` → x has constructor c), on its true and its false side. The
 * elaborator applies them to the environment of each branch (`elaborate.ts`); `&&`, `||` and `!`
 * combine them here.
 *
 * Invariant: a fact only ever shrinks a reference's constructor set (it narrows, never widens).
 */

/** Constructors a reference (a variable's name, or a path key `@id.f`) is known to have on one side of a test. */
export type Facts = ReadonlyMap<string, ReadonlySet<string>>;

export const NO_FACTS: Facts = new Map();

/** Both hold: per reference, the intersection of the constructor sets. */
export function mergeAnd(a: Facts | undefined, b: Facts | undefined): Facts {
  const out = new Map<string, ReadonlySet<string>>(a ?? NO_FACTS);
  for (const [k, s] of b ?? NO_FACTS) {
    const prev = out.get(k);
    out.set(k, prev ? new Set([...prev].filter((c) => s.has(c))) : s);
  }
  return out;
}

/** One of them holds: only references constrained by both, with the union of their sets. */
export function mergeOr(a: Facts | undefined, b: Facts | undefined): Facts {
  const out = new Map<string, ReadonlySet<string>>();
  for (const [k, s] of a ?? NO_FACTS) {
    const t = (b ?? NO_FACTS).get(k);
    if (t) out.set(k, new Set([...s, ...t]));
  }
  return out;
}
