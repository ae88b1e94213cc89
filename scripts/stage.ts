/**
 * `npm run stage`: the build-time step of SCF Fig. 4 for every shipped configuration
 * (configs/table2/*.json, SCF Table 2). Each is staged into generated/table2/NN-name/ (staged
 * optimizers, stub, abstract programs); a summary line per config reports the staging time,
 * the sizes and why partial evaluation stopped. Exit 2 on a bad config, 1 if a config fails.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { ConfigError, loadConfig, stageConfig, writeStaged } from '../src/pipeline/index.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const CONFIGS = path.join(ROOT, 'configs/table2');
const OUT = path.join(ROOT, 'generated/table2');

const only = process.argv.slice(2);
const files = readdirSync(CONFIGS)
  .filter((f) => f.endsWith('.json'))
  .filter((f) => only.length === 0 || only.some((o) => f.startsWith(o.padStart(2, '0')) || f.includes(o)))
  .sort();
let failed = 0;
for (const f of files) {
  const file = path.join(CONFIGS, f);
  try {
    const config = loadConfig(file);
    const t0 = performance.now();
    const staged = await stageConfig(config, { onStage: (line) => process.stderr.write(`  ${line}\n`) });
    const ms = performance.now() - t0;
    const dir = path.join(OUT, path.basename(f, '.json'));
    writeStaged(staged.stages, {
      outDir: dir,
      fun: staged.fun,
      bind: config.bind,
      origin: path.relative(ROOT, file),
    });
    const sizes = staged.stages.map((s) => s.result.sizes.staged).reduce((a, b) => a + b, 0);
    const stops = staged.stages.map((s) => `${s.pass.name}:${s.result.stop}`).join(' ');
    console.log(
      `${f}: staged in ${(ms / 1000).toFixed(2)} s, ${sizes} Core nodes, ${stops} → ${path.relative(ROOT, dir)}`,
    );
  } catch (e) {
    if (e instanceof ConfigError) {
      console.error(e.message);
      process.exitCode = 2;
      continue;
    }
    failed++;
    console.error(`${f}: ${e instanceof Error ? e.message : String(e)}`);
  }
}
if (failed > 0) process.exitCode = 1;
