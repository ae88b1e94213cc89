/**
 * Vega and Vega-Lite are optional: without them `speedupChartSvg` answers null, and any other
 * failure to load them is still an error. (`scf bench --chart` without them, in a real process:
 * tests/cli/conventions.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import { importChartLibs, speedupChartSvg } from '../../src/bench/chart.js';

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
});
