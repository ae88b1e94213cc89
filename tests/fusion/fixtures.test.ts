/**
 * Fusion fixtures: tests/fixtures/fusion/*.c, Futhark-style. Each file starts with header comments
 *
 *   // entry: f                                   the function to fuse
 *   // structure: {"redomap": 1, "loops": 1}      expected soacStructure of the entry after fusion
 *   // also: g {"redomap": 1, "loops": 1}         (any number) fuse g as well; its expected structure
 *   // args: [[1.5, -2, 3], 4]                    (one or more) arguments of the entry
 *
 * A structure names only the kinds it asserts (0 = absent) and always `loops`. For each fixture the
 * test parses the file (no diagnostics), runs the 'fusion' pass on the entry and then on each `also`
 * function, checks the structures, checks that the entry gives the same results on every args line
 * (Object.is per element; when the original fails, an error of the same class), and that the fused
 * program, printed, parses again and gives the same results.
 *
 * The first block needs no fusion pass: it checks the fixtures themselves (header, parse, args run,
 * hand-computed results of the L0 benchmarks).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  type ArgValue,
  findFun,
  loadKernelParser,
  type Program,
  printProgram,
} from '../../src/kernel/index.js';
import { validateLabels } from '../../src/optimizers/index.js';
import {
  expectSameOutcome,
  fuse,
  type Outcome,
  parseClean,
  pickKeys,
  run,
  soacCount,
  structureOf,
} from './harness.js';

const DIR = path.join(import.meta.dirname, '..', 'fixtures', 'fusion');

interface Fixture {
  readonly file: string;
  readonly source: string;
  readonly entry: string;
  readonly structure: Readonly<Record<string, number>>;
  readonly also: readonly { readonly fn: string; readonly structure: Readonly<Record<string, number>> }[];
  readonly args: readonly ArgValue[][];
}

function structureJson(text: string, file: string): Record<string, number> {
  const v = JSON.parse(text) as unknown;
  if (typeof v !== 'object' || v === null || Array.isArray(v))
    throw new Error(`${file}: a structure is a JSON object`);
  for (const [k, n] of Object.entries(v)) {
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 0)
      throw new Error(`${file}: structure count of '${k}' must be a natural number`);
  }
  if (!('loops' in v)) throw new Error(`${file}: a structure must give "loops"`);
  return v as Record<string, number>;
}

function readFixture(file: string): Fixture {
  const source = readFileSync(path.join(DIR, file), 'utf8');
  let entry: string | undefined;
  let structure: Record<string, number> | undefined;
  const also: { fn: string; structure: Record<string, number> }[] = [];
  const args: ArgValue[][] = [];
  for (const line of source.split('\n')) {
    const m = /^\/\/ (entry|structure|also|args): (.*)$/.exec(line.trimEnd());
    if (!m) continue;
    const value = (m[2] as string).trim();
    switch (m[1]) {
      case 'entry':
        entry = value;
        break;
      case 'structure':
        structure = structureJson(value, file);
        break;
      case 'also': {
        const a = /^(\w+)\s+(\{.*\})$/.exec(value);
        if (!a) throw new Error(`${file}: 'also' is a function name and a structure`);
        also.push({ fn: a[1] as string, structure: structureJson(a[2] as string, file) });
        break;
      }
      default: {
        const v = JSON.parse(value) as unknown;
        if (!Array.isArray(v)) throw new Error(`${file}: args is a JSON list of arguments`);
        args.push(v as ArgValue[]);
      }
    }
  }
  if (!entry || !structure || args.length === 0)
    throw new Error(`${file}: needs '// entry:', '// structure:' and at least one '// args:' line`);
  return { file, source, entry, structure, also, args };
}

const FIXTURES: readonly Fixture[] = readdirSync(DIR)
  .filter((f) => f.endsWith('.c'))
  .sort()
  .map(readFixture);

const parse = (fx: Fixture): Program => parseClean(fx.source, fx.file);

// ---- results computed by hand (or, for Black-Scholes, in double precision with Math.exp/log/sqrt) ----

/** The thesis's cumulative normal approximation (P0), in double precision. */
function cndRef(d: number): number {
  const k = 1 / (1 + 0.2316419 * Math.abs(d));
  const p = k * (0.31938153 + k * (-0.356563782 + k * (1.781477937 + k * (-1.821255978 + k * 1.330274429))));
  const c = 0.3989422804014327 * Math.exp(-0.5 * d * d) * p;
  return d > 0 ? 1 - c : c;
}

function blackScholesRef(i: number): number {
  const price = 58 + (4 * (i + 1)) / 1825;
  const strike = 65;
  const years = (i + 1) / 365;
  const r = 0.08;
  const v = 0.3;
  const d1 = (Math.log(price / strike) + (r + 0.5 * v * v) * years) / (v * Math.sqrt(years));
  const d2 = d1 - v * Math.sqrt(years);
  return price * cndRef(d1) - strike * Math.exp(-r * years) * cndRef(d2);
}

function resultOf(o: Outcome): number | number[] | undefined {
  if (!o.ok) throw new Error(`unexpected error: ${o.error}`);
  return o.result;
}

/** Checks the L0 benchmarks' results in `program` (the original or the fused one). */
function handChecks(name: string, program: Program): void {
  switch (name) {
    case 'l0_matmul.c':
      // [[1,2],[3,4]] x [[5,6],[7,8]] = [[1*5+2*7, 1*6+2*8], [3*5+4*7, 3*6+4*8]]
      expect(resultOf(run(program, 'matmul', [[1, 2, 3, 4], [5, 6, 7, 8], 2]))).toEqual([19, 22, 43, 50]);
      // [[1,2,3],[4,5,6],[7,8,9]] x [[9,8,7],[6,5,4],[3,2,1]]: e.g. row 0 . column 0 = 9 + 12 + 9 = 30
      expect(
        resultOf(run(program, 'matmul', [[1, 2, 3, 4, 5, 6, 7, 8, 9], [9, 8, 7, 6, 5, 4, 3, 2, 1], 3])),
      ).toEqual([30, 24, 18, 84, 69, 54, 138, 114, 90]);
      // times the identity
      expect(resultOf(run(program, 'matmul', [[3, -1, 2, 5], [1, 0, 0, 1], 2]))).toEqual([3, -1, 2, 5]);
      return;
    case 'l0_minplus.c':
      // The thesis's D = [[2,4,5],[1,1000,3],[3,7,1]]: e.g. D'[1][1] = min(1000, D[1][0] + D[0][1] = 5),
      // D'[2][0] = min(3, D[2][2] + D[2][0] = 4) = 3, D'[0][2] = min(5, D[0][2] + D[2][2] = 6) = 5.
      expect(resultOf(run(program, 'minplus', [[2, 4, 5, 1, 1000, 3, 3, 7, 1], 3]))).toEqual([
        2, 4, 5, 1, 5, 3, 3, 7, 1,
      ]);
      // 1200 is "no path": 0 -> 1 -> 2 costs 5 + 0 = 5 < 1200.
      expect(resultOf(run(program, 'minplus', [[0, 5, 1200, 1200, 0, 0, 1200, 1200, 0], 3]))).toEqual([
        0, 5, 5, 1200, 0, 0, 1200, 1200, 0,
      ]);
      return;
    case 'l0_blackscholes.c': {
      const out = resultOf(run(program, 'blackscholes', [1825])) as number[];
      expect(out).toHaveLength(1825);
      // binary32 arithmetic with expf/logf/sqrtf agrees with double precision to about 1e-4
      for (const i of [0, 1, 100, 450, 912, 1500, 1824]) {
        expect(Math.abs((out[i] as number) - blackScholesRef(i)), `price ${i}`).toBeLessThan(1e-3);
      }
      return;
    }
    default:
      return;
  }
}

const HAND_CHECKED = new Set(['l0_matmul.c', 'l0_minplus.c', 'l0_blackscholes.c']);

beforeAll(async () => {
  await loadKernelParser();
});

describe('fusion fixtures: the inputs', () => {
  it('there are fixtures', () => {
    expect(FIXTURES.length).toBeGreaterThan(20);
  });
  for (const fx of FIXTURES) {
    it(fx.file, () => {
      const program = parse(fx);
      for (const fn of [fx.entry, ...fx.also.map((a) => a.fn)])
        expect(findFun(program, fn), `function ${fn}`).toBeDefined();
      // every args line runs (a few fail on purpose, e.g. an empty array indexed); the printed
      // program parses again and agrees
      const again = parseClean(printProgram(program), `${fx.file} (printed)`);
      for (const args of fx.args) {
        const o = run(program, fx.entry, args);
        if (!o.ok) expect(o.error).toMatch(/^KernelRuntimeError: /);
        expectSameOutcome(o, run(again, fx.entry, args), `printed original on ${JSON.stringify(args)}`);
      }
      handChecks(fx.file, program);
    });
  }
  it('L0 benchmarks have hand-checked results', () => {
    for (const name of HAND_CHECKED)
      expect(
        FIXTURES.some((f) => f.file === name),
        name,
      ).toBe(true);
  });
});

describe('fusion fixtures', () => {
  for (const fx of FIXTURES) {
    it(fx.file, () => {
      const program = parse(fx);
      const fused = fuse(program, [fx.entry, ...fx.also.map((a) => a.fn)]);
      for (const fn of [fx.entry, ...fx.also.map((a) => a.fn)]) {
        const f = findFun(fused, fn);
        expect(f, `function ${fn} after fusion`).toBeDefined();
        if (f) expect(validateLabels(f), `labels of ${fn}`).toBeUndefined();
      }
      // structure after fusion
      const st = structureOf(fused, fx.entry);
      expect(pickKeys(st, fx.structure), `structure of ${fx.entry}: ${JSON.stringify(st)}`).toEqual(
        fx.structure,
      );
      for (const a of fx.also) {
        const sa = structureOf(fused, a.fn);
        expect(pickKeys(sa, a.structure), `structure of ${a.fn}: ${JSON.stringify(sa)}`).toEqual(a.structure);
      }
      // fusion never adds combinators
      for (const fn of [fx.entry, ...fx.also.map((a) => a.fn)]) {
        expect(soacCount(structureOf(fused, fn)), `combinators of ${fn}`).toBeLessThanOrEqual(
          soacCount(structureOf(program, fn)),
        );
      }
      // same results, and the printed fused program parses and agrees
      const printed = printProgram(fused);
      const again = parseClean(printed, `${fx.file} (fused, printed)`);
      for (const args of fx.args) {
        const expected = run(program, fx.entry, args);
        const what = `${fx.file} on ${JSON.stringify(args)}`;
        expectSameOutcome(expected, run(fused, fx.entry, args), `fused: ${what}\n${printed}`);
        expectSameOutcome(
          expected,
          run(again, fx.entry, args),
          `fused, printed, parsed: ${what}\n${printed}`,
        );
      }
      handChecks(fx.file, fused);
    });
  }
});
