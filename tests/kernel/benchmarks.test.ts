/**
 * The paper's benchmark inputs (benchmarks/inputs/*.c, SCF Table 2): each parses cleanly, prints back
 * to an equal program, and gives the same results on the evaluator as under gcc with its sample
 * arguments (NAME.args.json). The four Dinero variants must also agree with each other.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  type ArgValue,
  equalModuloLabels,
  evaluate,
  findFun,
  listToArray,
  loadKernelParser,
  type ParseResult,
  parseKernelSync,
  printProgram,
} from '../../src/kernel/index.js';
import { formatDiagnostic } from '../../src/common/index.js';
import { expectedLines, haveGcc, runGcc } from './gcc-harness.js';

const DIR = join(import.meta.dirname, '../../benchmarks/inputs');
const NAMES = readdirSync(DIR)
  .filter((f) => f.endsWith('.c'))
  .map((f) => f.slice(0, -2))
  .sort();

function load(name: string): { source: string; parsed: ParseResult; args: Record<string, ArgValue> } {
  const source = readFileSync(join(DIR, `${name}.c`), 'utf8');
  const parsed = parseKernelSync(source, `${name}.c`);
  const args = JSON.parse(readFileSync(join(DIR, `${name}.args.json`), 'utf8')) as Record<string, ArgValue>;
  return { source, parsed, args };
}

beforeAll(loadKernelParser);

describe('benchmark inputs', () => {
  it('are all there', () => {
    for (const n of [
      'mul_add',
      'dotproduct',
      'doconvol',
      'doconvol_1d',
      'main_loop',
      'main_loop_f',
      'main_loop_f_u',
      'main_loop_f_u_f',
    ]) {
      expect(NAMES).toContain(n);
    }
  });

  for (const name of NAMES) {
    it(`${name}: parses, round-trips, and matches gcc`, () => {
      const { source, parsed, args } = load(name);
      expect(parsed.diagnostics.map((d) => formatDiagnostic(d, parsed.sources, false))).toEqual([]);
      expect(equalModuloLabels(parseKernelSync(printProgram(parsed.program)).program, parsed.program)).toBe(
        true,
      );
      const fun = findFun(parsed.program, name);
      if (!fun) throw new Error(`${name}.c lacks function ${name}`);
      const positional = listToArray(fun.params).map((p) => args[p.name] as ArgValue);
      const r = evaluate(parsed.program, name, args);
      if (!haveGcc()) return;
      const [gcc] = runGcc(source, [{ fun, args: positional }]);
      expect(gcc).toEqual(expectedLines({ fun, args: positional }, r));
    });
  }

  it('mul_add and dotproduct compute what the paper says', () => {
    expect(evaluate(load('mul_add').parsed.program, 'mul_add', { x: 6, y: 7, a: 3 }).result).toBe(25);
    expect(
      evaluate(load('dotproduct').parsed.program, 'dotproduct', { v1: [3, -4, 5], v2: [0, 1, 7], s: 3 })
        .result,
    ).toBe(31);
  });

  it('the Dinero variants agree, direct-mapped and 2-way', () => {
    const variants = ['main_loop', 'main_loop_f', 'main_loop_f_u', 'main_loop_f_u_f'];
    for (const assoc of [1, 2, 4]) {
      const results = variants.map((v) => {
        const { parsed, args } = load(v);
        return evaluate(parsed.program, v, { ...args, assoc });
      });
      for (const r of results) {
        expect(r.result).toBe(results[0]?.result);
        expect(r.outputs).toEqual(results[0]?.outputs);
      }
      // fetches + reads + writes = trace length; misses are counted once.
      const stats = results[0]?.outputs.stats ?? [];
      expect((stats[0] ?? 0) + (stats[2] ?? 0) + (stats[3] ?? 0)).toBe(load('main_loop').args.n);
      expect(results[0]?.result).toBe((stats[1] ?? 0) + (stats[4] ?? 0));
    }
  });
});
