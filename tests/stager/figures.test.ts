/**
 * SCF §2.2 end to end on mul_add with a = 'Int (config 1): the abstract programs I2 and I3 the
 * stager prints are Fig. 6's, and the staged DAE has the shape of Fig. 7 — one specialized
 * fragment per input command (with unfolding off, as the paper's partial evaluator: by default
 * the fragments are unfolded into the entry), no case test on the input's node kinds left in
 * them, and far fewer live-set operations than the unstaged DAE.
 */
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadKernelParser } from '../../src/kernel/index.js';
import {
  constProp,
  copyProp,
  formalsFromBindings,
  findPass,
  optimizerProgram,
} from '../../src/optimizers/index.js';
import { forEachExpr, Interpreter } from '../../src/scf-lang/index.js';
import { equal } from '../../src/scf-lang/prelude.js';
import { describeStages, loadConfig, type StagedConfig, stageConfig } from '../../src/pipeline/index.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
let staged: StagedConfig;
/** Staged with unfolding off: SCF's specialization alone. */
let paperStaged: StagedConfig;

beforeAll(async () => {
  await loadKernelParser();
  const config = loadConfig(path.join(ROOT, 'configs/table2/01-mul_add.json'));
  // the paper's figures are of the passes staged one by one (I2, I3 between them)
  staged = await stageConfig(config, { staging: 'per-pass' });
  paperStaged = await stageConfig({ ...config, pe: { unfoldDepth: 0 } }, { staging: 'per-pass' });
});

describe('Fig. 6: the abstract results of staged constant and copy propagation', () => {
  it('prints I2 and I3 as in the paper', () => {
    const text = describeStages(staged.stages);
    expect(text).toContain(
      [
        '(* I2: input of copy-prop *)',
        'int mul_add(int x, int y, int a) {',
        '  int u;',
        '  int w;',
        "  u = x | (x * 'Int);",
        '  w = u + y;',
        '  return w;',
        '}',
      ].join('\n'),
    );
    expect(text).toContain(
      [
        '(* I3: input of dae *)',
        'int mul_add(int x, int y, int a) {',
        '  int u;',
        '  int w;',
        "  u = x | (x * 'Int);",
        '  w = (u | x) + y;',
        '  return w;',
        '}',
      ].join('\n'),
    );
    expect(staged.stages.map((s) => s.result.stop)).toEqual(['fixpoint', 'fixpoint', 'fixpoint']);
  });
});

describe('Fig. 7: the staged dead-assignment elimination', () => {
  it('has one analysis fragment per input command, with no case test on the command kinds', () => {
    const dae = paperStaged.stages[2]?.result;
    if (!dae) throw new Error('no dae stage');
    const fragments = [...dae.residual.funs.keys()].filter((f) =>
      /^dae\.daeCmd\((assign|seq|return) #/.test(dae.comments.get(f) ?? ''),
    );
    // cmd 1 (u = …), cmd 2 (w = …), and the two seqs; `return w` is folded away entirely (Fig. 7: "body folded away")
    expect(fragments.map((f) => dae.comments.get(f)?.replace(/,.*$/, ''))).toEqual(
      expect.arrayContaining([
        'dae.daeCmd(assign #9',
        'dae.daeCmd(assign #14',
        'dae.daeCmd(seq #17',
        'dae.daeCmd(seq #18',
      ]),
    );
    for (const f of fragments) {
      const body = dae.residual.funs.get(f)?.body;
      if (!body) throw new Error(f);
      forEachExpr(body, (e) => {
        if (e.kind === 'test') throw new Error(`${dae.comments.get(f)} still tests ${e.ctor}`);
      });
    }
  });

  it('makes fewer live-set updates and instructions than the unstaged DAE, with the same result', () => {
    const dae = staged.stages[2]?.result;
    if (!dae) throw new Error('no dae stage');
    const unstaged = new Interpreter(optimizerProgram(findPass('dae') as never));
    const stagedRun = new Interpreter(dae.residual);
    for (const a of [1, 3, 0, -7]) {
      const formals = formalsFromBindings(staged.fun, { a });
      const i3 = copyProp.run(constProp.run(staged.fun, { formals }), { formals });
      const u = unstaged.run('dae.optimize', [i3]);
      const s = stagedRun.run(dae.entry, [i3]);
      expect(equal(s.value, u.value)).toBe(true);
      expect(s.counts.byOp.set_add ?? 0).toBeLessThan((u.counts.byOp.set_add ?? 0) / 2);
      expect(s.counts.total).toBeLessThan(u.counts.total / 2);
    }
  });
});
