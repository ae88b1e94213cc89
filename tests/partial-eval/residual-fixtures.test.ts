/**
 * Fixture folders tests/fixtures/residual/<feature>/, one per feature of the partial evaluator:
 * input.ts (an SCF-lang program, compiled as the module `t`), describe.json (its `entry` and its
 * `runs`, each with a `name`, an `input`: one description per parameter in the syntax of configs,
 * `options`: PeOptions, and `sample`: descriptions of the inputs the exactness check draws from,
 * the input by default) and expected.txt, per run: how it stopped and why, the abstract output,
 * the residual functions with what each was specialized for, every loss of precision, the counts
 * that show the structure (specializations, unfolded and static calls, dispatches, raised map
 * operations) and the residual program. A mismatch writes an ignored actual.txt beside it;
 * UPDATE_GOLDEN=1 rewrites expected.txt. Each residual program must also compute what the
 * original does.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'vitest';
import { parseDescription, printAbs } from '../../src/abstract-values/index.js';
import { type PeOptions, type PeResult, partialEvaluate } from '../../src/partial-eval/index.js';
import { printCoreProgram } from '../../src/scf-lang/index.js';
import { expectGolden } from '../golden.js';
import { checkExact, FIXTURES, fixtureProgram } from './helpers.js';

interface Run {
  readonly name: string;
  readonly input: readonly string[];
  readonly options?: PeOptions;
  readonly sample?: readonly string[];
}

interface Case {
  readonly entry: string;
  readonly runs: readonly Run[];
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
  for (const name of readdirSync(FIXTURES).sort()) {
    it(name, () => {
      const dir = path.join(FIXTURES, name);
      const c = JSON.parse(readFileSync(path.join(dir, 'describe.json'), 'utf8')) as Case;
      const program = fixtureProgram(name);
      const describeAll = (texts: readonly string[]) =>
        texts.map((t) => parseDescription(t, { ctors: program.ctors }));
      const text = c.runs.map((r) => {
        const res = partialEvaluate(program, c.entry, describeAll(r.input), r.options);
        checkExact(program, c.entry, describeAll(r.sample ?? r.input), 50, r.options);
        return `== ${r.name}\n${residualStructure(res)}`;
      });
      expectGolden(dir, 'expected.txt', text.join('\n'));
    });
  }
});
