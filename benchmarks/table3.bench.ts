/**
 * `npm run bench`: SCF Table 3 reproduced — every Table 2 configuration staged and timed, staged
 * against unstaged, side by side in this process (method: src/bench/table3.ts), and staged pass by
 * pass against staged as one program (the composition of the passes), each with its × limit.
 * Prints the table beside the paper's figures and the targets, and writes
 * docs/benchmarks/results.json and the chart docs/benchmarks/speedups.svg. Then, each in a fresh
 * process of its own (so that neither times code the JIT has shaped for Table 3's passes, and a
 * failure of one still reports the others), the late-shape table (`npm run bench:late`) and the
 * cold start table (`npm run bench:cold`, saved to docs/benchmarks/cold-start.json). Extra
 * arguments go to `scf bench` (e.g. `--config 1`), and then only Table 3 runs.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { benchCommand } from '../src/cli/bench.js';

const DOCS = path.resolve(import.meta.dirname, '../docs/benchmarks');
const extra = process.argv.slice(2);
let code = await benchCommand(
  ['--chart', path.join(DOCS, 'speedups.svg'), '--save', path.join(DOCS, 'results.json'), ...extra],
  { out: (s) => console.log(s), err: (s) => console.error(s) },
);
if (extra.length === 0) {
  const parts: readonly (readonly [string, readonly string[]])[] = [
    ['late-shapes.bench.ts', []],
    ['cold-start.bench.ts', ['--save', path.join(DOCS, 'cold-start.json')]],
  ];
  for (const [file, args] of parts) {
    console.log('');
    const r = spawnSync(
      process.execPath,
      [...process.execArgv, path.join(import.meta.dirname, file), ...args],
      {
        stdio: 'inherit',
      },
    );
    if (r.status !== 0) {
      console.error(`${file} exited with ${r.status ?? r.signal}`);
      code ||= 1;
    }
  }
}
process.exitCode = code;
