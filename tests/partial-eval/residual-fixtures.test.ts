/**
 * Fixture folders tests/fixtures/residual/<feature>/, one per feature of the partial evaluator:
 * input.ts (an SCF-lang program, compiled as the module `t`), describe.json (`entry`, `input`:
 * one description per parameter in the syntax of configs, `options`: PeOptions, and `sample`:
 * descriptions of the inputs the exactness check draws from, the input by default) and
 * expected.txt: how the run stopped and why, the abstract output, the residual functions with
 * what each was specialized for, every loss of precision, the counts that show the structure
 * (specializations, unfolded and static calls, dispatches, raised map operations) and the
 * residual program. A mismatch writes an ignored actual.txt beside it; UPDATE_GOLDEN=1 rewrites
 * expected.txt. Each residual program must also compute what the original does.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'vitest';
import { parseDescription, printAbs } from '../../src/abstract-values/index.js';
import { type PeOptions, type PeResult, partialEvaluate } from '../../src/partial-eval/index.js';
import { printCoreProgram } from '../../src/scf-lang/index.js';
import { expectGolden } from '../golden.js';
import { checkExact, compile } from './helpers.js';

const DIR = path.resolve(import.meta.dirname, '../fixtures/residual');

interface Case {
  readonly entry: string;
  readonly input: readonly string[];
  readonly options?: PeOptions;
  readonly sample?: readonly string[];
}

/** What the fixture records of a run. */
function residualStructure(res: PeResult): string {
  const lines = [`stop: ${res.stop} (${res.reason})`, `output: ${printAbs(res.output)}`, 'functions:'];
  for (const name of res.residual.funs.keys()) {
    const key = res.comments.get(name);
    lines.push(`  ${name}${name === res.entry ? ' (entry)' : ''}: ${key ?? 'the original function'}`);
  }
  lines.push('losses:');
  if (res.events.length === 0) lines.push('  none');
  for (const e of res.events) lines.push(`  ${e.spec} ${e.what}: ${e.reason}, to ${e.to}`);
  const s = res.stats;
  lines.push(
    `counts: ${s.specs} specializations, ${s.unfolded} unfolded, ${s.staticCalls} static, ${s.dispatches} dispatched, ${s.raisedOps} raised map operations`,
  );
  lines.push('residual:', printCoreProgram(res.residual));
  return lines.join('\n');
}

describe('residual fixtures', () => {
  for (const name of readdirSync(DIR).sort()) {
    it(name, () => {
      const dir = path.join(DIR, name);
      const c = JSON.parse(readFileSync(path.join(dir, 'describe.json'), 'utf8')) as Case;
      const program = compile(readFileSync(path.join(dir, 'input.ts'), 'utf8'), '');
      const describeAll = (texts: readonly string[]) =>
        texts.map((t) => parseDescription(t, { ctors: program.ctors }));
      const res = partialEvaluate(program, c.entry, describeAll(c.input), c.options);
      expectGolden(dir, 'expected.txt', residualStructure(res));
      checkExact(program, c.entry, describeAll(c.sample ?? c.input), 50, c.options);
    });
  }
});
