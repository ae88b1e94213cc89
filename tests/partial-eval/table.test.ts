/**
 * The table of specializations (src/partial-eval/table.ts): one specialization per context,
 * numbered and named in order of creation; the worklist, callers and dirty flags. The table
 * never analyses anything: what is dirty waits for `next`.
 */
import { describe, expect, it } from 'vitest';
import { base, constant, printAbs } from '../../src/abstract-values/index.js';
import { Contexts } from '../../src/partial-eval/index.js';
import { SpecTable } from '../../src/partial-eval/table.js';
import { NO_REP } from '../../src/partial-eval/types.js';
import type { FunDef } from '../../src/scf-lang/index.js';
import { compile } from './helpers.js';

const p = compile(`
export function f(x: number, y: number): number { return x + y; }
export function g(x: number): number { return f(x, 1); }
`);
const fn = (name: string) => p.funs.get(name) as FunDef;

/** A table with a specialization of `t.f` (keyed on its first argument) and two of `t.g`. */
function table() {
  const contexts = new Contexts(2);
  const t = new SpecTable();
  const cg = contexts.push(contexts.key('t.g', [undefined]), undefined);
  const cg2 = contexts.push(contexts.key('t.g', [constant(2)]), undefined);
  const cf = contexts.push(contexts.key('t.f', [constant(1), undefined]), cg);
  const g = t.create(fn('t.g'), cg, [base('Int')], []);
  const g2 = t.create(fn('t.g'), cg2, [constant(2)], []);
  const f = t.create(fn('t.f'), cf, [constant(1), base('Int')], []);
  return { t, f, g, g2, cf };
}

describe('the specialization table', () => {
  it('holds one specialization per context, numbered and named in order of creation', () => {
    const { t, f, g, cf } = table();
    expect([g.id, f.id]).toEqual([0, 2]);
    expect(f.name).toBe('t.f$2');
    expect(t.get(cf)).toBe(f);
    expect(t.size).toBe(3);
    expect([...t.values()].map((s) => s.name)).toEqual(['t.g$0', 't.g$1', 't.f$2']);
  });

  it('makes a specialization dirty, its parameters the first call’s arguments, its result 0 and undecided', () => {
    const { f } = table();
    expect(f.dirty).toBe(true);
    expect(f.params.map((s) => [printAbs(s.value), s.key])).toEqual([
      ['1', true],
      ["'Int", false],
    ]);
    expect(f.result.value.kind).toBe('bottom');
    expect(f.result.rep).toBe(NO_REP);
    expect([f.paramSteps, f.resultSteps]).toEqual([
      { changes: 0, pinned: false },
      { changes: 0, pinned: false },
    ]);
  });

  it('queues what is marked dirty once, and waits for the evaluator to take it', () => {
    const { t, f } = table();
    // made dirty: its first analysis is the evaluator's to start (or to defer)
    expect(t.next()).toBeUndefined();
    t.begin(f);
    t.ended(f);
    t.markDirty(f);
    t.markDirty(f);
    expect(t.next()).toBe(f);
    expect(t.next()).toBeUndefined();
    t.defer(f);
    expect(t.next()).toBe(f);
  });

  it('queues a specialization marked dirty while it is analysed only when its analysis ends', () => {
    const { t, f } = table();
    t.begin(f);
    expect([f.analyzing, f.dirty]).toEqual([true, false]);
    t.markDirty(f);
    expect(t.next()).toBeUndefined();
    t.ended(f);
    t.requeue(f);
    expect(t.next()).toBe(f);
  });

  it('marks the callers dirty (but the one given), most recently queued first; skips what is settled', () => {
    const { t, f, g, g2 } = table();
    for (const s of [f, g, g2]) t.begin(s);
    for (const s of [f, g, g2]) t.ended(s);
    t.addCaller(f, g);
    t.addCaller(f, g2);
    t.markCallersDirty(f, g2);
    expect([g.dirty, g2.dirty]).toEqual([true, false]);
    t.markCallersDirty(f);
    t.settled(g);
    expect(t.next()).toBe(g2);
    expect(t.next()).toBeUndefined();
  });
});
