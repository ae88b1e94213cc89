/**
 * The fast check of a pass's output (`isBoundedTree`, then `validateBoundedTree`, in
 * src/kernel/validate.ts): on every kernel of the configs, parsed and after its pipeline, and on
 * thousands of single mutations of them (a node shared, a label repeated, a field dropped or of
 * the wrong type, a name that is no identifier, an unknown kind, a list that loops, labels outside
 * the small integers, a depth limit
 * just below or at the tree's), it accepts exactly what the slower checks accept
 * (`firstSharedNode`, `firstTooDeep`, the `shape` and `label` rules of `validateFun`), and where it
 * accepts, the remaining rules give the problems `validateFun` gives. A DAG of unlabelled cells,
 * exponentially big as a tree, is refused at once.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  type Fun,
  firstTooDeep,
  isBoundedTree,
  KERNEL_NODES,
  loadKernelParser,
  validateBoundedTree,
  validateFun,
} from '../../src/kernel/index.js';
import { OBJECTS_PER_LABEL } from '../../src/kernel/tree-walk.js';
import { firstSharedNode, runPipeline } from '../../src/optimizers/index.js';
import { configPasses, loadConfig, loadConfigInput } from '../../src/pipeline/index.js';

beforeAll(loadKernelParser);

const ROOT = path.resolve(import.meta.dirname, '../..');
const AFTER_PASSES = { seqs: 'skip-free' } as const;

async function corpus(): Promise<Fun[]> {
  const dirs = ['configs/table2', 'configs/kernel', 'configs/late'].map((d) => path.join(ROOT, d));
  const files = dirs
    .flatMap((d) => readdirSync(d).map((f) => path.join(d, f)))
    .filter((f) => f.endsWith('.json'));
  const out: Fun[] = [];
  for (const file of files) {
    const config = loadConfig(file);
    const { program } = await loadConfigInput(config);
    out.push(runPipeline(program, config.function, [], {}).fun);
    out.push(runPipeline(program, config.function, configPasses(config), config.sample ?? {}).fun);
  }
  return out;
}

/** What the slower checks say: whether they find no shared node, no excess depth, no shape or label problem. */
function slowAccepts(f: unknown, limit: number): boolean {
  if (firstSharedNode(f) !== undefined) return false;
  try {
    if (firstTooDeep(f, limit) !== undefined) return false;
  } catch {
    return false; // an object that is no kernel value
  }
  return !validateFun(f as Fun, undefined, AFTER_PASSES).some(
    (p) => p.rule === 'shape' || p.rule === 'label',
  );
}

function depthOf(x: unknown): number {
  if (typeof x !== 'object' || x === null) return 0;
  let d = 0;
  for (const v of Object.values(x)) d = Math.max(d, depthOf(v));
  return d + 1;
}

/** A deterministic generator of numbers in [0, 1). */
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0;
    return s / 2 ** 32;
  };
}

/** Every object of `x` (a tree), with its parent and the key it sits at. */
function places(x: unknown): { parent: Record<string, unknown>; key: string; value: unknown }[] {
  const out: { parent: Record<string, unknown>; key: string; value: unknown }[] = [];
  const go = (o: unknown): void => {
    if (typeof o !== 'object' || o === null) return;
    for (const [key, value] of Object.entries(o)) {
      out.push({ parent: o as Record<string, unknown>, key, value });
      go(value);
    }
  };
  go(x);
  return out;
}

/** One random mutation of a deep copy of `f`. */
function mutate(f: Fun, rnd: () => number): unknown {
  const copy = structuredClone(f) as unknown;
  const all = places(copy);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)] as T;
  const at = pick(all);
  const objects = all.filter((p) => typeof p.value === 'object' && p.value !== null);
  const labelled = objects.filter((p) => typeof (p.value as { lbl?: unknown }).lbl === 'number');
  switch (Math.floor(rnd() * 10)) {
    case 0: // a node put at a second place
      if (objects.length > 0) at.parent[at.key] = pick(objects).value;
      break;
    case 1: // a label repeated
      if (labelled.length > 1)
        (pick(labelled).value as { lbl: unknown }).lbl = (pick(labelled).value as { lbl: unknown }).lbl;
      break;
    case 2:
      delete at.parent[at.key];
      break;
    case 3:
      at.parent[at.key] = typeof at.value === 'string' ? 7 : 'x';
      break;
    case 4:
      if (typeof at.value === 'string') at.parent[at.key] = pick(['a b', '1x', 'é_1', '', 'x;y', '_ok']);
      break;
    case 5: // another kind, or none of the table's
      if (at.key === 'kind')
        at.parent.kind = pick([...Object.keys(KERNEL_NODES), 'cons', 'nil', 'some', 'none', 'bogus']);
      break;
    case 6: {
      // a list that loops back on itself
      const cells = objects.filter((p) => (p.value as { kind?: unknown }).kind === 'cons');
      if (cells.length > 0) {
        const c = pick(cells).value as { tail: unknown };
        c.tail = c;
      }
      break;
    }
    case 7:
      at.parent.extra = 1; // an undeclared field: read by nothing
      break;
    case 8: {
      // labels the walk keeps apart from its stamps (negative, fractional, large), some twice
      const odd = pick([-3, 1.5, 2 ** 22 + 7, 2 ** 31, -0, Number.NaN, 2 ** 40]);
      for (const p of labelled) if (rnd() < 0.3) (p.value as { lbl: unknown }).lbl = odd;
      break;
    }
    default:
      at.parent[at.key] = null;
  }
  return copy;
}

describe('isBoundedTree', () => {
  it(`holds at most ${OBJECTS_PER_LABEL} objects per label for every node kind of the table`, () => {
    for (const info of Object.values(KERNEL_NODES)) {
      const lists = info.fields.filter((f) => f.type.tag === 'list').length;
      const options = info.fields.filter((f) => f.type.tag === 'option').length;
      expect(info.fields.some((f) => f.name === 'lbl')).toBe(true);
      expect(2 + 2 * lists + options).toBeLessThanOrEqual(OBJECTS_PER_LABEL);
    }
  });

  it('accepts every kernel of the configs, parsed and optimized, and agrees with the slower checks at each depth limit', async () => {
    for (const f of await corpus()) {
      expect(isBoundedTree(f, 1000)).toBe(true);
      const d = depthOf(f);
      for (const limit of [d - 1, d])
        expect(isBoundedTree(f, limit), `${f.name} at ${limit}`).toBe(slowAccepts(f, limit));
      expect(validateBoundedTree(f, undefined, AFTER_PASSES)).toEqual(
        validateFun(f, undefined, AFTER_PASSES),
      );
    }
  }, 120_000);

  it('accepts exactly what the slower checks accept on single mutations, with the same remaining problems', async () => {
    const funs = await corpus();
    const rnd = prng(47);
    let refused = 0;
    for (let i = 0; i < 3000; i++) {
      const f = funs[i % funs.length] as Fun;
      const m = mutate(f, rnd);
      const limit = rnd() < 0.2 ? depthOf(f) - 1 : 1000;
      const fast = isBoundedTree(m, limit);
      expect(fast, `mutation ${i} of ${f.name}`).toBe(slowAccepts(m, limit));
      if (fast)
        expect(validateBoundedTree(m as Fun, undefined, AFTER_PASSES)).toEqual(
          validateFun(m as Fun, undefined, AFTER_PASSES),
        );
      else refused++;
    }
    expect(refused).toBeGreaterThan(500);
  }, 120_000);

  it('refuses a DAG of unlabelled cells at once', async () => {
    const [f] = await corpus();
    let params: unknown = { kind: 'nil' };
    for (let i = 0; i < 200; i++) params = { kind: 'cons', head: params, tail: params };
    const t0 = performance.now();
    expect(isBoundedTree({ ...(f as Fun), params }, 1000)).toBe(false);
    expect(performance.now() - t0).toBeLessThan(1000);
    let body: unknown = (f as Fun).body;
    for (let i = 0; i < 200; i++) body = { kind: 'seq', first: body, second: body, lbl: 100_000 + i };
    expect(isBoundedTree({ ...(f as Fun), body }, 1000)).toBe(false);
  });
});
