/**
 * `npm run bench:late`: the late-shape table — staged against unstaged pipelines on configs whose
 * loop trip counts arrive late (method: src/bench/late.ts). Prints the table with the targets and
 * writes docs/benchmarks/late-shapes.json. Arguments: `--budget MS` (per comparison, default 600),
 * `--json`, `--no-save`, and config files to run instead of the default ones.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { formatLateTable, runLateShapes } from '../src/bench/index.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { budget: { type: 'string' }, json: { type: 'boolean' }, 'no-save': { type: 'boolean' } },
});
const budgetMs = values.budget === undefined ? 600 : Number(values.budget);
if (!(budgetMs >= 1))
  throw new Error(`--budget must be a positive number of milliseconds, not '${values.budget}'`);
const report = await runLateShapes({
  ...(positionals.length > 0 ? { files: positionals } : {}),
  budgetMs,
  onProgress: (file, i, n) => console.error(`[${i + 1}/${n}] ${path.relative(process.cwd(), file)} …`),
});
if (!values['no-save'] && positionals.length === 0)
  writeFileSync(
    path.resolve(import.meta.dirname, '../docs/benchmarks/late-shapes.json'),
    `${JSON.stringify(report, null, 2)}\n`,
  );
console.log(values.json ? JSON.stringify(report, null, 2) : formatLateTable(report));
process.exitCode = report.rows.every((r) => r.equal) ? 0 : 1;
