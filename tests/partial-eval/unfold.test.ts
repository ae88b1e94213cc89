/**
 * Unfolding calls on static paths (src/partial-eval/pe.ts): a loop of known trip count nested in
 * one of late trip count, with a late scalar in its body. Specialized by call chains alone, every
 * helper a few calls below the inner loop's unrolling shares its context with the other rounds
 * and with the outer loop's fixpoint, so the rounds' states are joined and I2 is a union of
 * fragments. Unfolded, each round is evaluated with its own state: I2 is the exact program
 * const-prop builds on every admitted input.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { listFromArray, loadKernelParser } from '../../src/kernel/index.js';
import { formalsFromBindings, optimizerProgram } from '../../src/optimizers/index.js';
import { Interpreter } from '../../src/scf-lang/index.js';
import { equal } from '../../src/scf-lang/prelude.js';
import {
  describeStages,
  loadConfig,
  type StageConfig,
  type StagedConfig,
  stageConfig,
} from '../../src/pipeline/index.js';

const KERNEL = `void rows(int n, int m, int out[]) {
  int i;
  int c;
  for (i = 0; i < n; i++) {
    for (c = 0; c < 3; c++) {
      out[i + c] = c * m;
    }
  }
}
`;

let unfolded: StagedConfig;
let paper: StagedConfig;

/** The config of `source` (a kernel file `name.c`) with `fields`, in a temporary folder. */
function tempConfig(name: string, source: string, fields: Record<string, unknown>): StageConfig {
  const dir = mkdtempSync(path.join(tmpdir(), 'scf-unfold-'));
  writeFileSync(path.join(dir, `${name}.c`), source);
  writeFileSync(path.join(dir, `${name}.json`), JSON.stringify({ input: `${name}.c`, ...fields }));
  return loadConfig(path.join(dir, `${name}.json`));
}

/** const-prop alone on `long_seq`: `n` straight-line statements `x = x + m * k`, `m` late. */
function longSeqConfig(n: number): StageConfig {
  const body = Array.from({ length: n }, (_, i) => `  x = x + m * ${i % 7};`).join('\n');
  const source = `int long_seq(int n, int m) {\n  int x;\n  x = n;\n${body}\n  return x;\n}\n`;
  return tempConfig(`long${n}`, source, {
    function: 'long_seq',
    pipeline: ['const-prop'],
    bind: { m: "'Int" },
  });
}

beforeAll(async () => {
  await loadKernelParser();
  const config = tempConfig('rows', KERNEL, {
    function: 'rows',
    pipeline: ['const-prop', 'copy-prop', 'dae'],
    bind: { m: "'Int" },
    sample: { m: 2 },
  });
  // I2 is const-prop's output: the passes staged one by one
  unfolded = await stageConfig(config, { staging: 'per-pass' });
  paper = await stageConfig({ ...config, pe: { unfoldDepth: 0 } }, { staging: 'per-pass' });
}, 60_000);

const I2 = [
  '(* I2: input of copy-prop *)',
  'void rows(int n, int m, int out[]) {',
  '  int i;',
  '  int c;',
  '  for (i = 0; i < n; i++) {',
  '    c = 0;',
  "    out[i] = 'Int;",
  '    c = 1;',
  "    out[i + 1] = 'Int;",
  '    c = 2;',
  "    out[i + 2] = 'Int;",
  '    c = 3;',
  '  }',
  '}',
].join('\n');

describe('unfolding calls on static paths', () => {
  it('gives the exact I2 of a known-count loop inside a late-count one', () => {
    expect(describeStages(unfolded.stages)).toContain(I2);
    const cp = unfolded.stages[0]?.result;
    expect(cp?.stop).toBe('fixpoint');
    expect(cp?.peStats.unfolded).toBeGreaterThan(0);
  });

  it('is what makes it exact: with unfolding off the rounds are joined', () => {
    expect(describeStages(paper.stages)).not.toContain(I2);
    expect(paper.stages[0]?.result.peStats.unfolded).toBe(0);
  });

  it('stages a 200-statement straight-line function (unfolding adds no stack frame per let)', async () => {
    const staged = await stageConfig(longSeqConfig(200));
    expect(staged.stages[0]?.result.peStats.unfolded).toBeGreaterThan(0);
  }, 60_000);

  it('stages a 600-statement function within the JS stack (deeper analyses wait for the worklist)', async () => {
    const staged = await stageConfig(longSeqConfig(600));
    const stage = staged.stages[0];
    if (stage === undefined) throw new Error('no stage');
    expect(stage.result.peStats.deferred).toBeGreaterThan(0);
    const unstaged = new Interpreter(optimizerProgram(stage.pass));
    const residual = new Interpreter(stage.result.residual);
    for (const m of [3, 0, -7]) {
      const formals = listFromArray(formalsFromBindings(staged.fun, { m }));
      const u = unstaged.run(stage.pass.entry, [staged.fun, formals]);
      const s = residual.run(stage.result.entry, [staged.fun, formals]);
      expect(equal(s.value, u.value)).toBe(true);
    }
  }, 120_000);

  it('keeps the staged const-prop equal to the unstaged one', () => {
    const stage = unfolded.stages[0];
    if (stage === undefined) throw new Error('no stage');
    const unstaged = new Interpreter(optimizerProgram(stage.pass));
    const residual = new Interpreter(stage.result.residual);
    for (const m of [2, 0, 1, -7, 2147483647]) {
      const formals = listFromArray(formalsFromBindings(unfolded.fun, { m }));
      const u = unstaged.run(stage.pass.entry, [unfolded.fun, formals]);
      const s = residual.run(stage.result.entry, [unfolded.fun, formals]);
      expect(equal(s.value, u.value)).toBe(true);
      expect(s.counts.total).toBeLessThan(u.counts.total / 10);
    }
  });
});
