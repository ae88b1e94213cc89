/**
 * Regression guards for the stager's precision on the big Table 2 configurations (issue 15): the
 * staged const-prop of main_loop (configuration 8) keeps every environment arity-raised, so on the
 * configuration's sample it does no map or set operation at all, while the unstaged one does
 * thousands. What used to break it, each found by tracing where representations turned plain: a
 * call keyed on `cv ? A : B` with a late constant (a union of two commands), an environment
 * parameter out of fuel widened to `1`, a state over the size cap cut as a whole, a constant
 * environment meeting raised ones.
 */
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { listFromArray, loadKernelParser } from '../../src/kernel/index.js';
import { formalsFromBindings, optimizerProgram } from '../../src/optimizers/index.js';
import { Interpreter } from '../../src/scf-lang/index.js';
import { equal } from '../../src/scf-lang/prelude.js';
import { loadConfig, type StagedConfig, stageConfig } from '../../src/pipeline/index.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
let staged: StagedConfig;

beforeAll(async () => {
  await loadKernelParser();
  staged = await stageConfig(loadConfig(path.join(ROOT, 'configs/table2/08-main_loop.json')));
}, 60_000);

describe('staged const-prop on main_loop (configuration 8)', () => {
  it('does no map or set operation on the sample, and gives the unstaged result', () => {
    const stage = staged.stages[0];
    if (stage === undefined) throw new Error('no stage');
    expect(stage.pass.name).toBe('const-prop');
    const sample = staged.config.sample ?? {};
    const formals = listFromArray(formalsFromBindings(staged.fun, sample));
    const unstaged = new Interpreter(optimizerProgram(stage.pass)).run(stage.pass.entry, [
      staged.fun,
      formals,
    ]);
    const residual = new Interpreter(stage.result.residual).run(stage.result.entry, [staged.fun, formals]);
    expect(equal(residual.value, unstaged.value)).toBe(true);
    expect(unstaged.counts.collectionOps).toBeGreaterThan(1000);
    expect(residual.counts.collectionOps).toBe(0);
  });
});
