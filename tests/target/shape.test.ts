/**
 * Shapes (src/target/shape.ts): for every program of a shape, the shape's key and constants are
 * what a template made afresh gives — the constants equal, the key fixing the lifted program —
 * on programs that differ only in float literals (lifted, kept by value, kept by their place:
 * neutral elements, ⊕, literal-only subexpressions, recursive functions; -0, NaN, ±Infinity), on
 * the fusion fixtures after the pipeline, and on a staged pipeline's outputs; programs of other
 * shapes (an int, a name, a kept value changed) get other shape texts; through the tiers, both
 * ways of finding a template give the evaluator's outputs. Comparing a program with one met
 * before (`matchShape`) matches exactly where their shape texts agree, with the program's holes.
 */
import fc from 'fast-check';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  evaluate,
  loadKernelParser,
  mapChildren,
  type Program,
  printProgram,
} from '../../src/kernel/index.js';
import { allPasses, runPipeline } from '../../src/optimizers/index.js';
import { importStub, loadConfig, stageConfig, writeStaged } from '../../src/pipeline/index.js';
import { programOf, TieredKernels } from '../../src/target/index.js';
import { learnShape, matchShape, shapeOf } from '../../src/target/shape.js';
import { floatConstants, kernelTemplate } from '../../src/target/template.js';
import { parseC, ROOT } from '../optimizers/helpers.js';

const RUNS = Number(process.env.SCF_JS_RUNS ?? 100);

beforeAll(() => loadKernelParser());

const parse = async (source: string): Promise<Program> => parseC(source, 'k.c');

/** `program` with its float literals, in the walk's order, given by `value(index, old)`. */
function withFloats(program: Program, value: (index: number, old: number) => number): Program {
  let i = 0;
  const go = (x: unknown): unknown => {
    if (typeof x !== 'object' || x === null) return x;
    const node = x as { kind?: string; value?: number };
    if (node.kind === 'floatLit') return { ...node, value: value(i++, node.value as number) };
    return mapChildren(node, go);
  };
  return go(program) as Program;
}

/**
 * `program` with the float literal at `index` (the walk's order) made `to`, every subtree without
 * it the same object: two programs sharing what they have in common, as staged outputs do.
 */
function withFloatShared(program: Program, index: number, to: number): Program {
  let i = 0;
  const go = (x: unknown): unknown => {
    if (typeof x !== 'object' || x === null) return x;
    const node = x as { kind?: string; value?: number };
    if (node.kind === 'floatLit') return i++ === index ? { ...node, value: to } : node;
    let changed = false;
    const out = mapChildren(node, (c) => {
      const d = go(c);
      if (d !== c) changed = true;
      return d;
    });
    return changed ? out : node;
  };
  return go(program) as Program;
}

/** `matchShape` against `shapeOf`: a match exactly where the texts agree, with `program`'s holes. */
function matches(program: Program, seen: Program, entry: string, keep: ReadonlySet<number>): void {
  const a = shapeOf(program, entry, keep);
  const b = shapeOf(seen, entry, keep);
  if (a === undefined || b === undefined) return;
  const got = matchShape(program, seen, b.holes, keep);
  expect(got !== undefined).toBe(a.text === b.text);
  if (got !== undefined) expect(got).toEqual(a.holes);
}

/**
 * The shape's answers for `program` against its template made afresh: equal constants, and the
 * shape's key telling lifted programs apart as well as the template's key does (`seen` maps
 * shape keys met before to template keys).
 */
function agrees(program: Program, entry: string, keep: ReadonlySet<number>, seen: Map<string, string>): void {
  const shape = shapeOf(program, entry, keep);
  const t = kernelTemplate(program, entry, keep);
  if (shape === undefined) {
    expect(t).toBeUndefined();
    return;
  }
  const known = learnShape(program, entry, keep, shape);
  if (t === undefined) {
    expect(known).toBeNull();
    return;
  }
  expect(known).not.toBeNull();
  if (known === null) return;
  expect(known.constantsOf(shape.holes)).toEqual({ ...t.constants });
  const key = known.keyOf(shape.holes);
  const before = seen.get(key);
  if (before === undefined) seen.set(key, t.key);
  else expect(t.key).toBe(before);
}

const KERNEL = `
float shift(float x, float k) { return x * k + 0.25f; }
float add(float p, float q) { return p + q * 1.5f; }
float half(float x) { return x * 0.5f; }
float rec(float x, int n) { if (n <= 0) { return x; } return rec(half(x) + 1.5f, n - 1); }
float *kern(const float xs[], float s, int m) {
  float k = s * 3.0f + (1e-3f * 2.0f);
  if (m > 3) { k = k + 2.0f; }
  float ys[] = map(shift, xs, k);
  float r = reduce(add, 0.5f, ys);
  float t = r + rec(s, m) * 0.75f;
  float zs[] = map(shift, ys, 4.0f);
  float ws[] = map(shift, zs, t);
  return ws;
}`;

const special = fc.constantFrom(0, -0, 1, 2, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY);
const value = fc.oneof(
  fc.float({ noNaN: true, noDefaultInfinity: true, min: -100, max: 100 }).map(Math.fround),
  special,
);

describe('shapes against templates made afresh', () => {
  it('programs differing in float literals anywhere: the same constants, keys that tell lifted programs apart', async () => {
    const base = await parse(KERNEL);
    const n = shapeOf(base, 'kern', new Set())?.holes.length as number;
    expect(n).toBeGreaterThan(8);
    const seen = new Map<string, string>();
    await fc.assert(
      fc.property(
        fc.array(fc.option(value, { nil: undefined }), { minLength: n, maxLength: n }),
        fc.subarray([2, 0, 1.5, Number.NaN]),
        (values, kept) => {
          const program = withFloats(base, (i, old) => values[i] ?? old);
          // kept values shared by every program, as one TieredKernels's are
          agrees(program, 'kern', new Set(kept), seen);
          agrees(program, 'shift', new Set(kept), seen);
          // compared with programs of its shape or another, sharing objects with it or not
          const j = values.findIndex((v) => v !== undefined);
          const other = withFloatShared(program, Math.max(0, j), values[n - 1 - Math.max(0, j)] ?? 2);
          for (const seenProgram of [base, other, withFloats(other, (_, v) => v)])
            matches(program, seenProgram, 'kern', new Set(kept));
        },
      ),
      { numRuns: Math.max(50, RUNS * 2) },
    );
    // the property met several templates, and programs sharing one
    expect(new Set(seen.values()).size).toBeGreaterThan(1);
    expect(seen.size).toBeGreaterThan(new Set(seen.values()).size - 1);
  });

  it('every fusion fixture after the pipeline, with its floats scaled or made special', async () => {
    const DIR = path.join(ROOT, 'tests/fixtures/fusion');
    let checked = 0;
    for (const file of readdirSync(DIR).filter((f) => f.endsWith('.c'))) {
      const text = readFileSync(path.join(DIR, file), 'utf8');
      const entry = /^\/\/ entry: (\w+)/m.exec(text)?.[1] as string;
      const program = programOf(runPipeline(await parse(text), entry, allPasses).fun);
      const keep = floatConstants(program);
      const seen = new Map<string, string>();
      for (const f of [
        (v: number) => v,
        (v: number) => v * 3,
        (_: number, i = 0) => (i % 2 ? -0 : Number.NaN),
      ])
        agrees(
          withFloats(program, (i, v) => f(v, i)),
          entry,
          keep,
          seen,
        );
      checked++;
    }
    expect(checked).toBeGreaterThan(10);
  });

  it('another int, name or kept value makes another shape text; other lifted floats the same', async () => {
    const base = await parse(KERNEL);
    const keep = new Set([2]);
    const text = (p: Program) => shapeOf(p, 'kern', keep)?.text;
    expect(text(withFloats(base, (i, v) => (v === 2 ? v : v + i + 1)))).toBe(text(base));
    expect(text(await parse(KERNEL.replace('m > 3', 'm > 4')))).not.toBe(text(base));
    expect(text(await parse(KERNEL.replace(/\bk\b/g, 'kk')))).not.toBe(text(base));
    expect(text(withFloats(base, (_, v) => (v === 2 ? 3 : v)))).not.toBe(text(base));
    expect(text(base)).not.toBe(shapeOf(base, 'shift', keep)?.text);
    // a literal's label is part of its template (errors are reported at labels)
    let first = true;
    const relabeled = (function go(x: unknown): unknown {
      if (typeof x !== 'object' || x === null) return x;
      const node = x as { kind?: string; lbl?: number };
      if (node.kind === 'floatLit' && first) {
        first = false;
        return { ...node, lbl: (node.lbl as number) + 1000 };
      }
      return mapChildren(node, go);
    })(base) as Program;
    expect(text(relabeled)).not.toBe(text(base));
    // an int -0 is not 0
    const ints = (v: number) =>
      (function go(x: unknown): unknown {
        if (typeof x !== 'object' || x === null) return x;
        const node = x as { kind?: string; value?: number };
        if (node.kind === 'intLit' && node.value === 0) return { ...node, value: v };
        return mapChildren(node, go);
      })(base) as Program;
    expect(text(ints(-0))).not.toBe(text(ints(0)));
    expect(matchShape(ints(-0), ints(0), shapeOf(ints(0), 'kern', keep)?.holes ?? [], keep)).toBeUndefined();
    expect(matchShape(relabeled, base, shapeOf(base, 'kern', keep)?.holes ?? [], keep)).toBeUndefined();
    expect(printProgram(ints(0))).toBe(printProgram(base));
  });
});

describe('shapes through the tiers', () => {
  const TMP = mkdtempSync(path.join(os.tmpdir(), 'scf-shape-'));
  afterAll(() => rmSync(TMP, { recursive: true, force: true }));

  it('conv: staged outputs for taps that fold or not; both ways find the same kernels, with the evaluator’s outputs', async () => {
    const config = loadConfig(path.join(ROOT, 'configs/kernel/01-conv.json'));
    const staged = await stageConfig(config);
    const written = writeStaged(staged.stages, {
      outDir: mkdtempSync(path.join(TMP, 'stub-')),
      fun: staged.fun,
      bind: config.bind,
    });
    const stub = await importStub(written.stub);
    const generic = stub.unstagedPipeline(stub.formalsOf({}));
    const source = {
      fun: stub.FUN,
      generic,
      specialize: (v: Record<string, never>) => stub.specialize(v).fun,
    };
    const byShape = await TieredKernels.create(source, { backend: 'js' });
    const byTemplate = await TieredKernels.create(source, { backend: 'js', findTemplate: 'template' });
    const keep = floatConstants(programOf(generic));
    const seen = new Map<string, string>();
    const img = Array.from({ length: 36 }, (_, i) => Math.fround(Math.sin(i) * 2));
    const tap = fc.oneof(
      fc.float({ noNaN: true, noDefaultInfinity: true, min: -4, max: 4 }).map(Math.fround),
      fc.constantFrom(0, -0, 1, -1, Number.NaN),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(tap, { minLength: 9, maxLength: 9 }), async (cs) => {
        const taps = Object.fromEntries(cs.map((c, i) => [`c${i}`, c]));
        const program = programOf(stub.specialize(taps).fun);
        agrees(program, 'conv3x3', keep, seen);
        // against the sample's output and one of the same taps but one, sharing what is known early
        matches(
          program,
          programOf(stub.specialize(config.sample as Record<string, never>).fun),
          'conv3x3',
          keep,
        );
        const near = { ...taps, c4: cs[4] === 0 ? 0.5 : 0 };
        matches(program, programOf(stub.specialize(near).fun), 'conv3x3', keep);
        matches(program, programOf(stub.specialize(taps).fun), 'conv3x3', keep);
        const args = { img, w: 6, h: 6, ...taps };
        const want = JSON.stringify(evaluate(programOf(stub.FUN), 'conv3x3', args).result);
        for (const tiers of [byShape, byTemplate])
          expect(JSON.stringify((await (await tiers.specializedKernel(taps)).run(args)).result)).toBe(want);
      }),
      { numRuns: Math.max(20, RUNS / 2) },
    );
    expect(new Set(seen.values()).size).toBeGreaterThan(1);
  }, 120_000);
});
