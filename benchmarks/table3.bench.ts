/**
 * `npm run bench`: SCF Table 3 reproduced — every Table 2 configuration staged and timed, staged
 * against unstaged, side by side in this process (method: src/bench/table3.ts), and staged pass by
 * pass against staged as one program (the composition of the passes), each with its × limit.
 * Prints the table beside the paper's figures and the targets, and writes
 * docs/benchmarks/results.json and the chart docs/benchmarks/speedups.svg. Extra arguments go to
 * `scf bench` (e.g. `--config 1`).
 */
import path from 'node:path';
import { benchCommand } from '../src/cli/bench.js';

const DOCS = path.resolve(import.meta.dirname, '../docs/benchmarks');
const code = await benchCommand(
  [
    '--chart',
    path.join(DOCS, 'speedups.svg'),
    '--save',
    path.join(DOCS, 'results.json'),
    ...process.argv.slice(2),
  ],
  { out: (s) => console.log(s), err: (s) => console.error(s) },
);
process.exitCode = code;
