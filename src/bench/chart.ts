/**
 * The benchmark chart: per configuration, our late-stage compiler speed-up and instruction
 * reduction beside SCF's Table 3, as grouped bars on a log scale. The chart is a Vega-Lite spec
 * rendered to SVG by Vega in Node (no browser, no canvas).
 */
import * as vega from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';
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

/** The chart as an SVG document. */
export async function speedupChartSvg(rows: readonly BenchRow[], title: string): Promise<string> {
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
  const view = new vega.View(vega.parse(compile(spec).spec), { renderer: 'none' });
  const svg = await view.toSVG();
  view.finalize();
  return svg;
}
