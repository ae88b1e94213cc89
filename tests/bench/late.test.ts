/**
 * The late-shape benchmark (src/bench/late.ts) end to end on its quickest config, the late-degree
 * curve: the row has every figure, the staged output equals the unstaged one; and the table names
 * the rows that miss a target. Speed goals are not asserted (they live in `npm run bench:late`).
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  formatLateTable,
  LATE_SHAPE_CONFIGS,
  LATE_TARGETS,
  type LateShapeRow,
  runLateShapes,
} from '../../src/bench/index.js';
import { machineInfo } from '../../src/bench/table3.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

describe('the late-shape benchmark', () => {
  it('times the late-degree curve staged against unstaged, with its × limit', async () => {
    const file = path.join(ROOT, 'configs/kernel/02-curve.json');
    expect(LATE_SHAPE_CONFIGS).toContain('configs/kernel/02-curve.json');
    const report = await runLateShapes({ files: [file], budgetMs: 20 });
    expect(report.rows).toHaveLength(1);
    const row = report.rows[0] as LateShapeRow;
    expect(row).toMatchObject({ id: 202, config: 'configs/kernel/02-curve.json', equal: true });
    expect(row.pipeline).toEqual(['const-prop', 'copy-prop', 'dae', 'fusion']);
    for (const k of ['unstagedUs', 'stagedUs', 'speedup', 'limitUs', 'limitRatio', 'stagingSeconds'] as const)
      expect(row[k], k).toBeGreaterThan(0);
    expect(formatLateTable(report)).toContain('configs/kernel/02-curve.json');
  }, 120_000);

  it('names the rows that miss a target', () => {
    const row = (id: number, speedup: number, limitRatio: number, equal = true): LateShapeRow => ({
      id,
      config: `c${id}.json`,
      pipeline: ['const-prop', 'copy-prop'],
      stagingSeconds: 1,
      unstagedUs: speedup * 10,
      stagedUs: 10,
      speedup,
      limitUs: 10 / limitRatio,
      limitRatio,
      equal,
    });
    const text = formatLateTable({
      rows: [row(1, LATE_TARGETS.speedup + 1, 1), row(2, 1.5, 15), row(3, 6, 2, false)],
      machine: machineInfo(),
      method: '',
    });
    expect(text).toMatch(/const-prop → copy-prop/);
    expect(text).toMatch(/unstaged: missed on 2\n/);
    expect(text).toMatch(/the limit: missed on 2\n/);
    expect(text).toMatch(/output equal: missed on 3$/);
  });
});
