/**
 * `npm run bench:fusion`: the staged fusion configurations (configs/fusion: const-prop, copy-prop,
 * DAE and fusion staged with sizes and coefficients known only at run time) timed staged against
 * unstaged with `scf bench --dir configs/fusion` (method: src/bench/table3.ts). Writes
 * docs/benchmarks/fusion.json. Extra arguments go to `scf bench`.
 */
import path from 'node:path';
import { benchCommand } from '../src/cli/bench.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const code = await benchCommand(
  [
    '--dir',
    path.join(ROOT, 'configs/fusion'),
    '--save',
    path.join(ROOT, 'docs/benchmarks/fusion.json'),
    ...process.argv.slice(2),
  ],
  { out: (s) => console.log(s), err: (s) => console.error(s) },
);
process.exitCode = code;
