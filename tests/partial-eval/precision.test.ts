/**
 * Guards for the stager's precision on the big Table 2 configurations: the
 * staged const-prop of main_loop (configuration 8) keeps every environment arity-raised, so on the
 * configuration's sample it does no map or set operation at all, while the unstaged one does
 * thousands. What breaks it, each case found by tracing where representations turn plain: a
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
let staged9: StagedConfig;

beforeAll(async () => {
  await loadKernelParser();
  staged = await stageConfig(loadConfig(path.join(ROOT, 'configs/table2/08-main_loop.json')));
  staged9 = await stageConfig(loadConfig(path.join(ROOT, 'configs/table2/09-main_loop_f.json')));
}, 120_000);

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

describe('staged copy-prop on main_loop_f (configuration 9)', () => {
  it('does no map or set operation on the sample, and gives the unstaged result', () => {
    const [cp, copy] = staged9.stages;
    if (cp === undefined || copy === undefined) throw new Error('no stage');
    expect(copy.pass.name).toBe('copy-prop');
    const formals = listFromArray(formalsFromBindings(staged9.fun, staged9.config.sample ?? {}));
    // copy-prop's input: the unstaged const-prop's output on the sample
    const input = new Interpreter(optimizerProgram(cp.pass)).run(cp.pass.entry, [staged9.fun, formals]).value;
    const unstaged = new Interpreter(optimizerProgram(copy.pass)).run(copy.pass.entry, [input]);
    const residual = new Interpreter(copy.result.residual).run(copy.result.entry, [input]);
    expect(equal(residual.value, unstaged.value)).toBe(true);
    expect(unstaged.counts.collectionOps).toBeGreaterThan(100);
    expect(residual.counts.collectionOps).toBe(0);
  });
});
