/**
 * Vega and Vega-Lite are optional: without them `speedupChartSvg` answers null (any other failure
 * to load them is still an error), and `scf bench --chart` runs the benchmark, prints its report
 * and says in one line that it skipped the chart. The command is run with the chart function
 * answering as it does without the packages (vitest cannot make an installed package fail to
 * import; tests/cli/hide-packages.mjs does that for a real process).
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { importChartLibs, speedupChartSvg } from '../../src/bench/chart.js';
import { CHART_SKIPPED } from '../../src/cli/bench.js';
import { cli } from '../cli/helpers.js';

vi.mock('../../src/bench/index.js', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../../src/bench/index.js')>()),
  speedupChartSvg: async () => null,
}));

const tmp = mkdtempSync(path.join(os.tmpdir(), 'scf-chart-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** What `import('vega')` rejects with when the package is not installed. */
function notInstalled(): Promise<never> {
  return Promise.reject(
    Object.assign(new Error("Cannot find package 'vega' imported from chart.ts"), {
      code: 'ERR_MODULE_NOT_FOUND',
    }),
  );
}

describe('the chart without vega', () => {
  it('speedupChartSvg answers null when the packages are not installed', async () => {
    expect(await speedupChartSvg([], 'title', notInstalled)).toBeNull();
  });

  it('any other failure to load them is an error', async () => {
    await expect(speedupChartSvg([], 'title', () => Promise.reject(new Error('broken')))).rejects.toThrow(
      'broken',
    );
  });

  it('with the packages, an SVG', async () => {
    expect(await speedupChartSvg([], 'title', importChartLibs)).toMatch(/^<svg/);
  });

  it('scf bench --chart prints the report and one line saying the chart was skipped, exit 0', async () => {
    const chart = path.join(tmp, 'chart.svg');
    const r = await cli('bench', '--json', '--config', '1', '--budget', '20', '--chart', chart);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out).configs).toHaveLength(1);
    expect(r.err.split('\n').filter((l) => l.includes('chart'))).toEqual([CHART_SKIPPED]);
    expect(CHART_SKIPPED).toBe("scf bench: chart skipped: install 'vega' and 'vega-lite' to draw it");
    expect(existsSync(chart)).toBe(false);
  }, 120_000);
});
