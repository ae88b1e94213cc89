/**
 * `npm run bench:cold`: what an app pays before its first specialized kernel, as a user gets scf.
 *
 * Method. scf is packed and installed from the tarball in an app outside the repository
 * (tests/package/pack-copy.ts), a kernel config (configs/kernel/01-conv.json by default, or the
 * one named on the command line) is staged there with the installed `scf stage`, and four
 * scripts run as fresh `node` processes, wall clock around each spawn:
 * - `empty`: an empty module (the node process alone, the baseline);
 * - `import`: imports the staged stub;
 * - `first`: imports it and calls `specialize` once on the config's sample;
 * - `ten`: the same, ten calls (fresh late values each: the sample's floats scaled by 1 + k·2⁻²⁰).
 * The four alternate in rotating order, ROUNDS rounds after one of warm-up (the OS's file cache),
 * and each figure is a median; the ratio column is each median over `empty`'s. `--save FILE`
 * writes the report as JSON.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { installPacked, userEnv } from '../tests/package/pack-copy.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const ROUNDS = Number(process.env.SCF_COLD_ROUNDS ?? 15);

interface KernelConfig {
  readonly input: string;
  readonly function: string;
  readonly sample: Record<string, unknown>;
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
}

/** The sample with its floats scaled by 1 + k·2⁻²⁰ (ints and arrays of ints kept). */
function fresh(sample: Record<string, unknown>, k: number): Record<string, unknown> {
  const scale = (v: unknown): unknown =>
    typeof v === 'number' && !Number.isInteger(v)
      ? v * (1 + k * 2 ** -20)
      : Array.isArray(v)
        ? v.map(scale)
        : v;
  return Object.fromEntries(Object.entries(sample).map(([n, v]) => [n, scale(v)]));
}

function main(): void {
  const args = process.argv.slice(2);
  const saveAt = args.indexOf('--save');
  const save = saveAt >= 0 ? args[saveAt + 1] : undefined;
  const configPath = path.resolve(
    ROOT,
    args.find((a, i) => !a.startsWith('--') && i !== saveAt + 1) ?? 'configs/kernel/01-conv.json',
  );
  const config = JSON.parse(readFileSync(configPath, 'utf8')) as KernelConfig;
  const app = mkdtempSync(path.join(tmpdir(), 'scf-cold-'));
  try {
    process.stderr.write(`packing scf and installing it in ${app} …\n`);
    installPacked(app);
    const input = path.basename(config.input);
    copyFileSync(path.resolve(path.dirname(configPath), config.input), path.join(app, input));
    writeFileSync(path.join(app, 'config.json'), JSON.stringify({ ...config, input: `./${input}` }));
    process.stderr.write(`staging ${path.relative(ROOT, configPath)} …\n`);
    execFileSync(path.join(app, 'node_modules/.bin/scf'), ['stage', 'config.json', '--out', 'staged'], {
      cwd: app,
      env: userEnv(),
      stdio: 'pipe',
    });
    const stub = `../staged/${config.function}.stub.mjs`;
    const calls = (n: number): string =>
      Array.from({ length: n }, (_, k) => `specialize(${JSON.stringify(fresh(config.sample, k))});`).join(
        '\n',
      );
    const scripts: Record<string, string> = {
      empty: '',
      import: `import ${JSON.stringify(stub)};\n`,
      first: `import { specialize } from ${JSON.stringify(stub)};\n${calls(1)}\n`,
      ten: `import { specialize } from ${JSON.stringify(stub)};\n${calls(10)}\n`,
    };
    mkdirSync(path.join(app, 'cold'), { recursive: true });
    for (const [name, text] of Object.entries(scripts))
      writeFileSync(path.join(app, 'cold', `${name}.mjs`), text);
    const names = Object.keys(scripts);
    const times = new Map<string, number[]>(names.map((n) => [n, []]));
    for (let round = 0; round <= ROUNDS; round++) {
      for (let j = 0; j < names.length; j++) {
        const name = names[(j + round) % names.length] as string;
        const t0 = process.hrtime.bigint();
        const r = spawnSync(process.execPath, [path.join(app, 'cold', `${name}.mjs`)], {
          cwd: app,
          env: userEnv(),
        });
        const ms = Number(process.hrtime.bigint() - t0) / 1e6;
        if (r.status !== 0) throw new Error(`${name}.mjs exited with ${r.status}: ${r.stderr.toString()}`);
        if (round > 0) times.get(name)?.push(ms);
      }
    }
    const base = median(times.get('empty') as number[]);
    const rows = names.map((name) => {
      const ms = median(times.get(name) as number[]);
      return { name, ms: Number(ms.toFixed(1)), ratio: Number((ms / base).toFixed(2)) };
    });
    console.log(
      `cold start, ${path.relative(ROOT, configPath)}: fresh node processes, medians of ${ROUNDS} rounds`,
    );
    console.log('| process | ms | × empty |');
    console.log('| --- | --- | --- |');
    for (const r of rows) console.log(`| ${r.name} | ${r.ms} | ${r.ratio}× |`);
    if (save) {
      const report = { config: path.relative(ROOT, configPath), rounds: ROUNDS, node: process.version, rows };
      writeFileSync(path.resolve(save), `${JSON.stringify(report, null, 2)}\n`);
    }
  } finally {
    rmSync(app, { recursive: true, force: true });
  }
}

main();
