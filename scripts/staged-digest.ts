/**
 * `npm run digest:staged`: a SHA-256 of every file `scf stage` writes for every shipped
 * configuration (configs/table2, configs/fusion, configs/kernel, configs/late), one line per file. The check for
 * refactors of the engine (src/partial-eval, src/dae, src/stager) and of the kernel glue: staging
 * is a pure function of the config, so a change that keeps behaviour prints the same lines.
 *
 * Each config is staged as `scf stage CONFIG --out DIR` stages it (`stageConfig`, then
 * `writeStaged` with the config's path, relative to the repository, as its origin) into a folder
 * of its own under a temporary directory, removed at the end. The manifest and the stub name the
 * config by its path relative to the staged folder, which runs through the temporary directory
 * and the checkout: those paths (relative or absolute) are replaced by `<ROOT>` and `<OUT>`
 * before hashing, so the digest depends on neither where the checkout is nor where the files
 * were written. Arguments select configs by a part of their path
 * (`npm run digest:staged -- table2/08 fusion`); `--per-pass` stages every config pass by pass,
 * as `scf stage --per-pass` does (the digest of the per-pass path, whichever the default picks).
 * Exit 1 if a config fails to stage.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig, stageConfig, writeStaged } from '../src/pipeline/index.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const FOLDERS = ['configs/table2', 'configs/fusion', 'configs/kernel', 'configs/late'];

/** The shipped configs, as paths relative to the repository, in a fixed order. */
function configs(only: readonly string[]): string[] {
  const all = FOLDERS.flatMap((dir) =>
    readdirSync(path.join(ROOT, dir))
      .filter((f) => f.endsWith('.json'))
      .sort()
      .map((f) => `${dir}/${f}`),
  );
  return only.length === 0 ? all : all.filter((c) => only.some((o) => c.includes(o)));
}

/** Every file under `dir`, relative to it, sorted. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)))
    .sort();
}

/**
 * The SHA-256 of the staged file `file` (in folder `out` under `tmp`), with the paths from the
 * folder to the checkout, the checkout's and the temporary directory's replaced by placeholders.
 */
function digest(file: string, out: string, tmp: string): string {
  const bytes = readFileSync(file);
  const toRoot = path.relative(out, ROOT).split(path.sep).join('/');
  const places: [string, string][] = [
    [toRoot, '<ROOT>'],
    [ROOT, '<ROOT>'],
    [tmp, '<OUT>'],
  ];
  let text = bytes.toString('utf8');
  if (!places.some(([p]) => text.includes(p))) return createHash('sha256').update(bytes).digest('hex');
  for (const [p, by] of places) text = text.split(p).join(by);
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

async function main(): Promise<void> {
  process.chdir(ROOT);
  const tmp = mkdtempSync(path.join(tmpdir(), 'scf-digest-'));
  let failed = 0;
  try {
    const args = process.argv.slice(2);
    const perPass = args.includes('--per-pass');
    for (const rel of configs(args.filter((a) => a !== '--per-pass'))) {
      const out = path.join(tmp, rel.replace(/\.json$/, '').replaceAll('/', '_'));
      try {
        const config = loadConfig(rel);
        const staged = await stageConfig(config, perPass ? { staging: 'per-pass' } : {});
        writeStaged(staged.stages, {
          outDir: out,
          fun: staged.fun,
          bind: config.bind,
          origin: rel,
          config: rel,
        });
      } catch (e) {
        failed++;
        console.log(`${rel}: FAILED ${e instanceof Error ? e.message : String(e)}`);
        continue;
      }
      for (const f of filesUnder(out)) console.log(`${digest(path.join(out, f), out, tmp)}  ${rel}: ${f}`);
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  if (failed > 0) process.exitCode = 1;
}

await main();
