/**
 * The Table 3 benchmark runs end to end on one small configuration (mul_add, config 1) through
 * the public interface, `scf bench --json --config 1`: every field of the report is there and
 * sensible, the staged output equals the unstaged one, and bad flags are rejected with exit 2.
 * Speed goals are not asserted here (they live in `npm run bench`); only that the figures exist.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkTargets, formatTable } from '../../src/bench/index.js';
import { cli } from '../cli/helpers.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'scf-bench-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('scf bench', () => {
  it('--json --config 1 reports every figure of one configuration, and writes chart and report', async () => {
    const chart = path.join(tmp, 'chart.svg');
    const save = path.join(tmp, 'report.json');
    const r = await cli(
      'bench',
      '--json',
      '--config',
      '1',
      '--budget',
      '50',
      '--chart',
      chart,
      '--save',
      save,
    );
    expect(r.err).not.toMatch(/internal error/);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.out);
    expect(report.machine.cpus).toBeGreaterThan(0);
    expect(report.configs).toHaveLength(1);
    const c = report.configs[0];
    expect(c).toMatchObject({ id: 1, function: 'mul_add', equal: true, inputNodes: 18 });
    for (const k of ['compilerSpeedup', 'instructionReduction', 'sizeRatio', 'codeSpeedup', 'limitRatio']) {
      expect(c[k], k).toBeGreaterThan(0);
    }
    expect(c.inputLoc).toBeGreaterThan(3);
    // the staged pipeline evaluates fewer Core instructions than the unstaged one on mul_add
    expect(c.instructions.staged).toBeLessThan(c.instructions.unstaged);
    expect(c.mapOpReduction).toBeGreaterThan(1);
    expect(c.pipelineNodes.staged).toBeLessThan(c.pipelineNodes.unstaged);
    // per pass: its own counts and what staging lost
    expect(c.passes.map((p: { pass: string }) => p.pass)).toEqual(['const-prop', 'copy-prop', 'dae']);
    for (const p of c.passes) {
      expect(p.instructions.staged).toBeLessThan(p.instructions.unstaged);
      expect(p.inputAbsNodes).toBeGreaterThan(0);
      expect(p.widenedToTop + p.skeletons + p.generalized).toBe(0); // mul_add reaches a fixpoint
    }
    // the per-pass rows are the per-pass staging's; mul_add stages as one program by default, and
    // the report has both side by side
    expect(
      c.passes.reduce((n: number, p: { instructions: { staged: number } }) => n + p.instructions.staged, 0),
    ).toBe(c.perPass.instructions);
    expect(c.staging).toBe('whole');
    expect(c.instructions.staged).toBe(c.whole.instructions);
    expect(c.whole).toMatchObject({ stop: 'fixpoint', equal: true });
    for (const k of ['stagedUs', 'limitRatio', 'vsPerPass']) expect(c.whole[k], k).toBeGreaterThan(0);
    expect(c.perPass.limitRatio).toBeGreaterThan(0);
    expect(JSON.parse(readFileSync(save, 'utf8')).configs[0].id).toBe(1);
    const svg = readFileSync(chart, 'utf8');
    expect(svg).toMatch(/^<svg/);
    expect(svg).toContain('SCF 2002');
    // the table shows the paper's figures beside ours, and the targets
    const table = formatTable(report);
    expect(table).toContain('(1.9)');
    expect(table).toMatch(/Targets:/);
    expect(table).toMatch(/^1 mul_add +whole +[\d.]+ +[\d.]+ +[\d.]+ +[\d.]+ +[\d.]+ +fixpoint/m);
    expect(table).toMatch(/^ {2}1 mul_add +const-prop [\d.]+\/(—|[\d.]+) \(0, 0\)/m);
    expect(checkTargets(report.configs).find((t) => t.target.startsWith('staged output'))?.met).toBe(true);
  }, 120_000);

  it('a size ratio far below 1 shows its first digits, not 0.00', () => {
    const saved = JSON.parse(readFileSync('docs/benchmarks/results.json', 'utf8'));
    const report = { ...saved, configs: [{ ...saved.configs[0], sizeRatio: 0.0034 }] };
    expect(formatTable(report)).toContain('0.0034');
    expect(formatTable({ ...saved, configs: [{ ...saved.configs[0], sizeRatio: 0.034 }] })).toContain(
      '0.034',
    );
  });

  it('rejects an unknown configuration and a bad budget with exit 2', async () => {
    const a = await cli('bench', '--config', '99');
    expect(a.code).toBe(2);
    expect(a.err).toMatch(/no such configuration/);
    const b = await cli('bench', '--budget', '-1');
    expect(b.code).toBe(2);
    expect(b.err).toMatch(/--budget/);
  });
});
