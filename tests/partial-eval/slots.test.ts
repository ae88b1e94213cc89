/**
 * A specialization's slots on the growth staircase (src/partial-eval/growth.ts, `growSlots`),
 * driven directly and end to end: a group grows, is pinned past its fuel (parameters from their
 * grown values, every one outside the key; the result from its shape join), and a slot that
 * outgrows its pinned shape becomes `1`; a held step counts the change and keeps nothing. A
 * parameter out of fuel keeps its map keys; a record over the cap is cut part by part.
 */
import { describe, expect, it } from 'vitest';
import {
  type AbsValue,
  base,
  con,
  constant,
  leq,
  printAbs,
  top,
  union,
} from '../../src/abstract-values/index.js';
import { type GrowLoss, growSlots, slotLimits } from '../../src/partial-eval/growth.js';
import { partialEvaluate } from '../../src/partial-eval/index.js';
import { limitsOf, SKELETON_STEPS } from '../../src/partial-eval/limits.js';
import type { Slot, Steps } from '../../src/partial-eval/types.js';
import { checkExact, compile, GET, fixtureProgram } from './helpers.js';

/** No widening: a union of new constructors grows at every change. */
const LIMITS = { joins: 99, specFuel: 2, cap: 256 };

/** A group of slots holding `values`; `keys[i]`: slot i is a key parameter. */
function group(values: readonly AbsValue[], keys: readonly boolean[] = []): { steps: Steps; slots: Slot[] } {
  return {
    steps: { changes: 0, pinned: false },
    slots: values.map((value, i) => ({ value, rep: undefined, top: false, key: keys[i] ?? false })),
  };
}

/** A step of `kind` that records its losses in `losses`. */
function stepOf(kind: 'params' | 'result', losses: [number, GrowLoss][], held = false) {
  return {
    kind,
    limits: () => LIMITS,
    fresh: (v: AbsValue) => v,
    lose: (i: number, l: GrowLoss) => losses.push([i, l]),
    held,
  };
}

/** A record holding a number (pinned, its number becomes `1`). */
const rec = (n: AbsValue) => con('r', [n]);
/** A constructor of its own for each `n`: a union of them grows at every change. */
const kind = (n: number) => con(`k${n}`, []);

describe('growSlots', () => {
  it('does nothing while every value that comes in is inside its slot', () => {
    const g = group([union([constant(1), constant(2)])]);
    const out = growSlots(g.steps, g.slots, [constant(2)], stepOf('params', []));
    expect(out).toEqual({ grew: false, widened: false, held: false });
    expect(g.steps.changes).toBe(0);
  });

  it('counts one change of the group however many of its slots grow, each value an upper bound', () => {
    const g = group([constant(1), constant(2), constant(3)]);
    const out = growSlots(g.steps, g.slots, [constant(4), constant(5), constant(3)], stepOf('params', []));
    expect(out.grew).toBe(true);
    expect(g.steps.changes).toBe(1);
    for (const [i, x] of [constant(1), constant(4)].entries())
      expect(leq(x, (g.slots[0] as Slot).value), String(i)).toBe(true);
    expect(printAbs((g.slots[2] as Slot).value)).toBe('3');
  });

  it('pins the parameters outside the key at the first change past specFuel + SKELETON_STEPS, from their grown values', () => {
    // slot 0 is a key, slot 1 grows, slot 2 never changes: all but the key are pinned
    const g = group([constant(0), rec(kind(0)), rec(constant(7))], [true, false, false]);
    const last = LIMITS.specFuel + SKELETON_STEPS;
    for (let n = 1; n <= last; n++)
      growSlots(g.steps, g.slots, [constant(0), rec(kind(n)), rec(constant(7))], stepOf('params', []));
    expect(g.steps.pinned).toBe(false);
    const losses: [number, GrowLoss][] = [];
    growSlots(g.steps, g.slots, [constant(0), rec(kind(99)), rec(constant(7))], stepOf('params', losses));
    expect(g.steps).toEqual({ changes: last + 1, pinned: true });
    // pinned: constructors kept, every number `1`
    expect(printAbs((g.slots[1] as Slot).value)).not.toContain("'Any");
    expect(printAbs((g.slots[2] as Slot).value)).toBe("r('Any)");
    expect(printAbs((g.slots[0] as Slot).value)).toBe('0');
    // the grown parameters lose what growth cuts first, then every one outside the key is pinned
    expect(losses.filter(([, l]) => l.to.startsWith('its constructors')).map(([i]) => i)).toEqual([1, 2]);
  });

  it('pins the result from its shape join, without growing it first', () => {
    const g = group([rec(kind(0))]);
    const last = LIMITS.specFuel + SKELETON_STEPS;
    for (let n = 1; n <= last; n++) growSlots(g.steps, g.slots, [rec(kind(n))], stepOf('result', []));
    const losses: [number, GrowLoss][] = [];
    growSlots(g.steps, g.slots, [rec(kind(99))], stepOf('result', losses));
    expect(g.steps.pinned).toBe(true);
    // one loss, the pin's: the result is not grown (and cut) first
    expect(losses.map(([i, l]) => [i, l.reason, l.to.startsWith('its constructors and map keys')])).toEqual([
      [0, 'spec-fuel', true],
    ]);
  });

  it('once pinned, a slot that would outgrow its shape becomes 1, which nothing outgrows', () => {
    const g = group([rec(top()), rec(top())]);
    g.steps.pinned = true;
    const losses: [number, GrowLoss][] = [];
    const out = growSlots(g.steps, g.slots, [constant(3), rec(constant(1))], stepOf('params', losses));
    expect(out.grew).toBe(true);
    expect([(g.slots[0] as Slot).top, (g.slots[1] as Slot).top]).toEqual([true, false]);
    expect(losses).toEqual([[0, { reason: 'spec-fuel', kind: 'top', to: '1' }]]);
    expect(growSlots(g.steps, g.slots, [con('q', []), rec(constant(2))], stepOf('params', [])).grew).toBe(
      false,
    );
  });

  it('a held step counts the change and keeps the old values', () => {
    const g = group([constant(1)]);
    const out = growSlots(g.steps, g.slots, [constant(2)], stepOf('params', [], true));
    expect(out).toEqual({ grew: true, widened: false, held: true });
    expect(g.steps.changes).toBe(1);
    expect(printAbs((g.slots[0] as Slot).value)).toBe('1');
  });

  it('asks for its limits only when something grows', () => {
    let asked = 0;
    const g = group([constant(1)]);
    const step = {
      ...stepOf('result', []),
      limits: () => {
        asked++;
        return LIMITS;
      },
    };
    growSlots(g.steps, g.slots, [constant(1)], step);
    expect(asked).toBe(0);
    growSlots(g.steps, g.slots, [constant(2)], step);
    expect(asked).toBe(1);
  });
});

describe('slotLimits', () => {
  const limits = limitsOf({ joinsBeforeWiden: 2, growCap: 10 });
  it('parameters grow by the run limits', () => {
    expect(slotLimits('params', [rec(constant(1))], limits)).toEqual({
      joins: 2,
      specFuel: limits.specFuel,
      cap: 10,
    });
  });
  it('the result of a specialization keyed on a known node waits longer and may grow with its key', () => {
    const big = rec(rec(rec(rec(constant(1)))));
    const keyed = slotLimits('result', [big], limits);
    expect(keyed.joins).toBeGreaterThan(2);
    expect(keyed.cap).toBeGreaterThan(10);
    expect(slotLimits('result', [undefined], limits)).toEqual({
      joins: 2,
      specFuel: limits.specFuel,
      cap: 10,
    });
  });
});

describe('slots end to end', () => {
  it('a parameter out of fuel keeps its map keys, so lookups of those keys still fold', () => {
    // `walk`'s `acc` keeps growing (a list a cell longer each round), so its fuel runs out and its
    // parameters are pinned. Pinned to `1`, `m` would forget that it binds 'b', so the `some`
    // test on its lookup would stay in the residual code; pinned to its constructors and keys
    // ({"a": 1, "b": 1}) the lookup is known to succeed.
    const q = fixtureProgram('pinned-keys');
    // n late but small (the unstaged recursion is that deep)
    const inp = [base('Int'), base('Int'), union([constant(0), constant(3), constant(40)])];
    const res = partialEvaluate(q, 't.run', inp, { specFuel: 1 });
    expect(
      res.events.some((e) => e.reason === 'spec-fuel' && e.to.startsWith('its constructors and map keys')),
    ).toBe(true);
    expect(printAbs(res.output)).toBe('1');
    checkExact(q, 't.run', inp, 100, { specFuel: 1 });
  });

  it('a record or a map with known keys over the size cap is cut part by part, not as a whole', () => {
    // `st` (a flag and a map of five counters) grows past a cap of 6 nodes; cut as a whole the map
    // would become `1` (6 nodes cannot give its five values one each), and the flag and the
    // untouched 'k' with it; cut part by part every value keeps its shape
    const RECORD = `
type St = { readonly kind: 'st'; readonly done: boolean; readonly m: PMap<string, number> };
${GET}
function walk(st: St, i: number, n: number): St {
  if (i >= n) return st;
  const m = mapInsert(mapInsert(st.m, 'a', get(st.m, 'b') + i), 'b', get(st.m, 'c') * i);
  return walk({ kind: 'st', done: false, m: mapInsert(mapInsert(m, 'c', i), 'd', get(m, 'a')) }, i + 1, n);
}
export function run(x: number, n: number): number {
  const m0 = mapInsert(mapInsert(mapInsert(mapEmpty(), 'a', x), 'b', x), 'c', x);
  const st = walk({ kind: 'st', done: false, m: mapInsert(mapInsert(m0, 'd', x), 'k', 7) }, 0, n);
  return st.done ? 1 : get(st.m, 'k');
}
`;
    const q = compile(RECORD);
    const inp = [base('Int'), union([constant(0), constant(3), constant(40)])];
    const res = partialEvaluate(q, 't.run', inp, { growCap: 6 });
    expect(printAbs(res.output)).toBe('7');
    checkExact(q, 't.run', inp, 100, { growCap: 6 });
  });
});
