/**
 * Specialization keys and call chains of keys (SCF §3.4).
 *
 * A key is (function, static argument values): the abstract values of the callee's
 * finite parameters (finiteness.ts), plus — online — the values of other parameters that happen
 * to be singletons (fully known), and `_` for the rest. A specialization context is the chain of
 * keys from the call back to the root, most recent first. Two calls share a specialization iff
 * they have the same context.
 *
 * Termination (the paper's rule): a chain holds at most k instances of any key. When pushing a
 * key would make k + 1, the context becomes the shortest top part of the chain that holds k
 * instances of it (dropping everything below), so recursion on one key folds back onto an
 * existing context after k unrollings, where the fixpoint of pe.ts takes over. Singleton keys on
 * non-finite parameters could make every key new (a counter passed down), so one is used only
 * while it shrinks: the value must be strictly smaller (in abstract-value nodes) than the same
 * parameter's key value at the nearest earlier call of the same function in the chain (a
 * well-founded order, so such chains are finite); otherwise that parameter is `_`. With
 * `keyEqualArgs` (PeOptions, on for entry configs) a value equal to that earlier one is kept as
 * well: it repeats a key, which the bound k folds back, so it makes no new one.
 *
 * A second bound, `maxDepth`, keeps only the most recent keys of a chain (call strings of
 * bounded length, as in k-CFA): a small helper reached along many call paths would otherwise get
 * one specialization per path, identical for all but the path. The cost: a helper `maxDepth`
 * calls below a specialization shares its context with every other path that ends in the same
 * keys, so its parameters are their join (const-prop's `lookup` of a loop counter serves the
 * loop's simulation, its fixpoint and every unrolled round at once). pe.ts unfolds the calls on
 * static paths instead of specializing them, which removes this price there; the calls it
 * makes from an unfolded body are still keyed in the context the unfolded call would have had.
 *
 * Invariants. Keys and chains are hash-consed: equal keys (values compared by `equals`, which
 * ignores identity tags) have one id, equal chains one id, so contexts compare as integers.
 */
import { type AbsValue, equals, hash } from '../abstract-values/index.js';

export interface Key {
  readonly id: number;
  readonly fn: string;
  /** Per parameter: its static value, or `undefined` for `_`. */
  readonly values: readonly (AbsValue | undefined)[];
}

export interface Chain {
  readonly id: number;
  readonly key: Key;
  readonly parent: Chain | undefined;
  readonly length: number;
}

export class Contexts {
  private readonly keys = new Map<number, Key[]>();
  private readonly chains = new Map<string, Chain>();
  private nextKey = 0;
  private nextChain = 0;

  constructor(
    readonly k: number,
    readonly maxDepth = Number.POSITIVE_INFINITY,
  ) {
    if (k < 1) throw new RangeError('the call-chain bound k must be at least 1');
    if (maxDepth < 1) throw new RangeError('the call-chain depth bound must be at least 1');
  }

  key(fn: string, values: readonly (AbsValue | undefined)[]): Key {
    let h = hashString(fn);
    for (const v of values) h = Math.imul(h ^ (v === undefined ? 0x5bd1e995 : hash(v)), 0x01000193);
    const bucket = this.keys.get(h);
    if (bucket) {
      for (const k of bucket) {
        if (k.fn === fn && sameValues(k.values, values)) return k;
      }
    }
    const key: Key = { id: this.nextKey++, fn, values };
    if (bucket) bucket.push(key);
    else this.keys.set(h, [key]);
    return key;
  }

  chain(key: Key, parent: Chain | undefined): Chain {
    const name = `${key.id}/${parent?.id ?? -1}`;
    let c = this.chains.get(name);
    if (!c) {
      c = { id: this.nextChain++, key, parent, length: (parent?.length ?? 0) + 1 };
      this.chains.set(name, c);
    }
    return c;
  }

  /** The nearest call of `fn` in `chain`. */
  nearest(chain: Chain | undefined, fn: string): Key | undefined {
    for (let c = chain; c; c = c.parent) if (c.key.fn === fn) return c.key;
    return undefined;
  }

  /** The context of calling `key` from context `caller`, with the k-instance rule applied. */
  push(key: Key, caller: Chain | undefined): Chain {
    // positions (in caller order, most recent first) of earlier instances of `key`
    const positions: number[] = [];
    let i = 0;
    for (let c = caller; c; c = c.parent, i++) {
      if (c.key.id === key.id) {
        positions.push(i);
        if (positions.length === this.k) break;
      }
    }
    if (positions.length < this.k) {
      if ((caller?.length ?? 0) < this.maxDepth) return this.chain(key, caller);
      return this.rebuild(key, this.top(caller, this.maxDepth - 1));
    }
    // k earlier instances: keep the new key and the caller chain down to (and including) the
    // (k-1)-th earlier instance, so the result holds exactly k instances
    const keep = this.k === 1 ? 0 : (positions[this.k - 2] as number) + 1;
    return this.rebuild(key, this.top(caller, Math.min(keep, this.maxDepth - 1)));
  }

  /** The `n` most recent keys of `chain`, most recent first. */
  private top(chain: Chain | undefined, n: number): Key[] {
    const out: Key[] = [];
    for (let c = chain; c && out.length < n; c = c.parent) out.push(c.key);
    return out;
  }

  private rebuild(key: Key, below: readonly Key[]): Chain {
    let c: Chain | undefined;
    for (let i = below.length - 1; i >= 0; i--) c = this.chain(below[i] as Key, c);
    return this.chain(key, c);
  }

  get size(): { keys: number; chains: number } {
    return { keys: this.nextKey, chains: this.nextChain };
  }
}

function sameValues(a: readonly (AbsValue | undefined)[], b: readonly (AbsValue | undefined)[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i];
    const y = b[i];
    if (x === undefined || y === undefined) {
      if (x !== y) return false;
    } else if (!equals(x, y)) return false;
  }
  return true;
}

function hashString(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h;
}
