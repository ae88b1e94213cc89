/**
 * Incremental folder staging: `scf stage DIR --out OUT` on a copy of the shipped configs
 * (configs/table2, configs/kernel), once from nothing and once again with nothing changed; the
 * target is a second run at most 0.25× the first's wall time, its folder unchanged byte for byte.
 *
 * Method: each run is a fresh `node` process running the CLI as installed users run it (the
 * built `dist/cli/bin.js`; `npm run build` first), `-j` the core count, timed by wall clock from
 * spawn to exit, so the second run's time includes node's start-up and module loading, which the
 * first one pays too. Then one input is touched (a kernel gains a blank line) and a third run
 * restages that config alone. Every file's SHA-256 is compared between the first and second runs.
 * Run: `npm run bench:stage-dir` (`--json` for machine-readable output).
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { appendFileSync, cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..');
const BIN = path.join(ROOT, 'dist/cli/bin.js');
if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run npm run build first`);

const tmp = mkdtempSync(path.join(os.tmpdir(), 'scf-bench-stage-dir-'));
try {
  // the configs name their kernels by relative paths: copy the tree they reach
  for (const d of ['configs/table2', 'configs/kernel', 'benchmarks/inputs'])
    cpSync(path.join(ROOT, d), path.join(tmp, d), { recursive: true });
  const out = path.join(tmp, 'staged');
  const run = (dir: string): number => {
    const t0 = performance.now();
    execFileSync(process.execPath, [BIN, 'stage', path.join(tmp, dir), '--out', path.join(out, dir)], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    return performance.now() - t0;
  };
  const digest = (): string => {
    const h = createHash('sha256');
    for (const e of readdirSync(out, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => path.join(e.parentPath, e.name))
      .sort())
      h.update(e).update(readFileSync(e));
    return h.digest('hex');
  };
  const rows = [];
  for (const dir of ['configs/table2', 'configs/kernel']) {
    const first = run(dir);
    const before = digest();
    const second = run(dir);
    const unchanged = digest() === before;
    const kernel = readdirSync(path.join(tmp, 'benchmarks/inputs', dir === 'configs/kernel' ? 'kernel' : ''))
      .filter((f) => f.endsWith('.c'))
      .sort()[0] as string;
    appendFileSync(
      path.join(tmp, 'benchmarks/inputs', dir === 'configs/kernel' ? 'kernel' : '', kernel),
      '\n',
    );
    const third = run(dir);
    rows.push({
      dir,
      configs: readdirSync(path.join(tmp, dir)).length,
      first,
      second,
      ratio: second / first,
      unchanged,
      touched: kernel,
      third,
    });
  }
  if (process.argv.includes('--json'))
    console.log(JSON.stringify({ cores: os.availableParallelism(), rows }, null, 2));
  else {
    console.log(
      `scf stage DIR, ${os.availableParallelism()} cores, fresh node process per run (wall clock):`,
    );
    for (const r of rows)
      console.log(
        `${r.dir}: ${r.configs} configs, first ${(r.first / 1000).toFixed(2)} s, second ${(r.second / 1000).toFixed(2)} s (${r.ratio.toFixed(3)}x, ${r.unchanged ? 'unchanged' : 'CHANGED'}), after touching ${r.touched}: ${(r.third / 1000).toFixed(2)} s`,
      );
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
