/**
 * The benchmark chart: per configuration, our late-stage compiler speed-up and instruction
 * reduction beside SCF's Table 3, as grouped bars on a log scale. The chart is a Vega-Lite spec
 * rendered to SVG by Vega in Node (no browser, no canvas).
 *
 * Vega and Vega-Lite are optional dependencies, imported only when a chart is drawn: without
 * them the benchmark runs as before and `speedupChartSvg` answers null.
 */
import type { TopLevelSpec } from 'vega-lite';
import { PAPER_TABLE3 } from './paper.js';
import type { BenchRow } from './table3.js';

interface Datum {
  readonly config: string;
  readonly metric: string;
  readonly source: string;
  readonly value: number;
}

export function chartData(rows: readonly BenchRow[]): Datum[] {
  const out: Datum[] = [];
  for (const r of rows) {
    const paper = PAPER_TABLE3.find((p) => p.id === r.id);
    const config = `${r.id} ${r.function}`;
    out.push({ config, metric: 'compiler speed-up', source: 'scf (this)', value: r.compilerSpeedup });
    out.push({
      config,
      metric: 'instruction reduction',
      source: 'scf (this)',
      value: r.instructionReduction,
    });
    if (paper) {
      out.push({ config, metric: 'compiler speed-up', source: 'SCF 2002', value: paper.compilerSpeedup });
      out.push({
        config,
        metric: 'instruction reduction',
        source: 'SCF 2002',
        value: paper.instructionReduction,
      });
    }
  }
  return out;
}

/** The chart's libraries, as their modules. */
export interface ChartLibs {
  readonly vega: typeof import('vega');
  readonly vegaLite: typeof import('vega-lite');
}

/** Imports Vega and Vega-Lite. */
export async function importChartLibs(): Promise<ChartLibs> {
  const [vega, vegaLite] = await Promise.all([import('vega'), import('vega-lite')]);
  return { vega, vegaLite };
}

/**
 * `load()`'s libraries, or null when one of them (or a package it needs) is not installed;
 * any other failure to load them is thrown.
 */
export async function loadChartLibs(
  load: () => Promise<ChartLibs> = importChartLibs,
): Promise<ChartLibs | null> {
  try {
    return await load();
  } catch (e) {
    if ((e as { code?: unknown } | null)?.code === 'ERR_MODULE_NOT_FOUND') return null;
    throw e;
  }
}

/**
 * The chart as an SVG document, or null when Vega or Vega-Lite is not installed (`load`
 * imports them; tests replace it).
 */
export async function speedupChartSvg(
  rows: readonly BenchRow[],
  title: string,
  load: () => Promise<ChartLibs> = importChartLibs,
): Promise<string | null> {
  const libs = await loadChartLibs(load);
  if (libs === null) return null;
  const { vega, vegaLite } = libs;
  const spec: TopLevelSpec = {
    $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
    title,
    data: { values: chartData(rows) },
    facet: { row: { field: 'metric', type: 'nominal', title: null } },
    spec: {
      width: 560,
      height: 180,
      layer: [
        {
          mark: 'bar',
          encoding: {
            x: { field: 'config', type: 'nominal', title: 'configuration (SCF Table 2)', sort: null },
            xOffset: { field: 'source' },
            y: {
              field: 'value',
              type: 'quantitative',
              scale: { type: 'log', domainMin: 0.1 },
              title: 'ratio (log scale)',
            },
            color: { field: 'source', type: 'nominal', title: null },
          },
        },
        {
          mark: { type: 'rule', strokeDash: [4, 3], color: '#888' },
          encoding: { y: { datum: 1 } },
        },
      ],
    },
    resolve: { scale: { y: 'independent' } },
  };
  const view = new vega.View(vega.parse(vegaLite.compile(spec).spec), { renderer: 'none' });
  const svg = await view.toSVG();
  view.finalize();
  return svg;
}
