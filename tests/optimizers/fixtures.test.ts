/**
 * Fixture folders tests/fixtures/optimizers/<case>/: input.c, bind.json
 * ({ "function", "bind", "passes"? }) and expected.c, the optimized function as `scf opt` prints it.
 * A mismatch writes an ignored actual.c beside it; UPDATE_GOLDEN=1 rewrites expected.c.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadKernelParser, printFun, printProgram } from '../../src/kernel/index.js';
import { defaultPipeline, runPipeline } from '../../src/optimizers/index.js';
import { expectGolden } from '../golden.js';
import { parseC, passes, ROOT } from './helpers.js';

const DIR = path.join(ROOT, 'tests/fixtures/optimizers');

interface Case {
  readonly function: string;
  readonly bind: Record<string, number | boolean | number[]>;
  readonly passes?: string;
}

describe('optimizer fixtures', () => {
  beforeAll(async () => {
    await loadKernelParser();
  });
  for (const name of readdirSync(DIR).sort()) {
    it(name, () => {
      const dir = path.join(DIR, name);
      const c = JSON.parse(readFileSync(path.join(dir, 'bind.json'), 'utf8')) as Case;
      const program = parseC(readFileSync(path.join(dir, 'input.c'), 'utf8'), `${name}/input.c`);
      const ps = c.passes ? passes(c.passes) : defaultPipeline;
      const out = runPipeline(program, c.function, ps, c.bind);
      const text = `${printFun(out.fun)}\n`;
      // The output is C the kernel parser accepts.
      expect(() => parseC(printProgram(out.program))).not.toThrow();
      expectGolden(dir, 'expected.c', text);
    });
  }
});
