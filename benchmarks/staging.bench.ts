/**
 * Staging cost per configuration of SCF Table 2 (the target: staging one configuration stays
 * under 5 s on a 2-core machine; the staged code grows linearly with the input program).
 *
 * Method: each config is staged once in this process after one warm-up staging of config 1
 * (JIT and optimizer compilation); wall-clock time of `stageConfig` (PE + DAE of every pass),
 * staged Core nodes (all passes, after DAE), and the ratio staged nodes / input-function AST
 * nodes. The partial evaluator's fuel is counted in work (expression visits, specializations),
 * never in time, so every machine stages to the same output; a slower one takes longer. `stop`
 * says where fuel ran out. Run: `npm run bench:stage` (add `--json` for machine-readable output).
 */
import { readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { astNodes, loadKernelParser } from '../src/kernel/index.js';
import { loadConfig, stageConfig } from '../src/pipeline/index.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const DIR = path.join(ROOT, 'configs/table2');

await loadKernelParser();
const files = readdirSync(DIR)
  .filter((f) => f.endsWith('.json'))
  .sort();
await stageConfig(loadConfig(path.join(DIR, files[0] as string))); // warm-up
const rows = [];
for (const f of files) {
  const config = loadConfig(path.join(DIR, f));
  const t0 = performance.now();
  const s = await stageConfig(config);
  const ms = performance.now() - t0;
  const staged = s.stages.reduce((n, st) => n + st.result.sizes.staged, 0);
  const input = astNodes(s.fun);
  rows.push({
    config: path.basename(f, '.json'),
    seconds: Number((ms / 1000).toFixed(2)),
    inputNodes: input,
    stagedNodes: staged,
    stagedPerInputNode: Number((staged / input).toFixed(1)),
    stop: s.stages.map((st) => st.result.stop).join('/'),
  });
  process.stderr.write(`${f} ${(ms / 1000).toFixed(2)} s\n`);
}
if (process.argv.includes('--json')) {
  console.log(JSON.stringify({ machine: { cpus: os.cpus().length, node: process.version }, rows }, null, 2));
} else {
  console.table(rows);
}
