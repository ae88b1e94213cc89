/**
 * `scf stage DIR --out OUT [-j N] [--force] [--deps FILE]`: stages every config of a folder, each
 * into `OUT/<config name>/`, in parallel, skipping those that are up to date.
 *
 * Algorithm
 * 1. List `DIR/*.json`: kernel configs (`configFilesIn`) and entry configs (`isEntryConfigText`);
 *    other JSON is skipped with a note, as `scf bench --dir` skips it.
 * 2. Refuse, before anything is written: an OUT inside DIR (its JSON would be read as configs on
 *    the next run), an output folder that is DIR or holds it, two configs whose output folders
 *    differ only in case (one folder on macOS and Windows).
 * 3. A config whose folder's build record matches (pipeline/build-record.ts: the same inputs,
 *    outputs, scf and `--k`) is "up to date" and not touched; `--force` stages it anyway.
 * 4. The others are staged on up to N worker threads (one config at a time each; in this thread
 *    when one would do), each exactly as `scf stage CONFIG --out OUT/<name>` stages it; a config
 *    that fails is reported with its own message and does not stop the others.
 * 5. After each stage, its build record is written; `--deps` gets one make rule per config staged
 *    or up to date.
 *
 * Invariants. The output of each config is what staging it alone writes: stages are pure functions
 * of their inputs, so the order and the number of threads change only when lines are printed. An
 * up-to-date folder is left byte for byte as it was.
 */
import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { clip, FROM_SOURCES, moduleUrl, readSourceFile } from '../common/index.js';
import {
  NOT_STAGED,
  checkBuildRecord,
  configFilesIn,
  isEntryConfigText,
  makeRule,
  recordInputs,
  recordStage,
} from '../pipeline/index.js';
import type { CliIo } from './io.js';
import { UsageError } from './kernel-input.js';
import { prepareOutDir, prepareOutFile, writeOutFile } from './out-path.js';

export interface FolderOptions {
  readonly k: number;
  /** `--per-pass`: every config staged pass by pass. */
  readonly perPass: boolean;
  readonly jobs: string | undefined;
  readonly force: boolean;
  readonly deps: string | undefined;
}

/** One config to stage, as a worker thread gets it. */
export interface StageJob {
  readonly file: string;
  readonly out: string;
  readonly k: number;
  readonly perPass?: boolean;
}

/** What staging one config gave: its function and what it read, or its error as the CLI prints it. */
export type JobResult =
  | { readonly ok: true; readonly name: string; readonly reads: readonly (readonly [string, string])[] }
  | { readonly ok: false; readonly status: number; readonly message: string };

/** Stages one job (stage.ts's `stageJob`: `stageFile`, its errors reported as the CLI reports them). */
export type StageOne = (job: StageJob) => Promise<JobResult>;

/** The configs of `dir` to stage, and the JSON files that are no configs. */
function configsIn(dir: string): { configs: string[]; skipped: string[] } {
  const kernel = new Set(configFilesIn(dir));
  const configs: string[] = [];
  const skipped: string[] = [];
  for (const f of readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()) {
    const file = path.join(dir, f);
    let entry = false;
    try {
      entry = isEntryConfigText(readSourceFile(file));
    } catch {
      // unreadable: configFilesIn counts it as a config, whose stage says why
    }
    if (entry || kernel.has(file)) configs.push(file);
    else skipped.push(file);
  }
  return { configs, skipped };
}

function inside(file: string, dir: string): boolean {
  const rel = path.relative(dir, file);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** The output folder of each config (`OUT/<config name>`), after the checks of step 2. */
function outputFolders(dir: string, out: string, configs: readonly string[]): Map<string, string> {
  const absDir = path.resolve(dir);
  const absOut = path.resolve(out);
  if (inside(absOut, absDir))
    throw new UsageError(
      `--out '${clip(out)}' is inside the config folder '${clip(dir)}': the staged folders' JSON would be read as configs; write them beside it`,
    );
  const folders = new Map<string, string>();
  const byFolded = new Map<string, string>();
  for (const file of configs) {
    const name = path.basename(file, '.json');
    const folder = path.join(absOut, name);
    if (inside(absDir, folder))
      throw new UsageError(
        `'${clip(file)}' would be staged into '${clip(folder)}', which holds the config folder itself`,
      );
    const folded = name.toLowerCase();
    const other = byFolded.get(folded);
    if (other !== undefined)
      throw new UsageError(
        `'${clip(other)}' and '${clip(file)}' would write the same output folder on a file system that ignores case ('${clip(path.join(out, name))}'): rename one`,
      );
    byFolded.set(folded, file);
    folders.set(file, folder);
  }
  return folders;
}

function parseJobs(jobs: string | undefined): number {
  if (jobs === undefined) return Math.max(1, os.availableParallelism());
  const n = Number(jobs);
  if (!Number.isInteger(n) || n < 1 || n > 256)
    throw new UsageError(`-j must be an integer from 1 to 256, got '${clip(jobs)}'`);
  return n;
}

/**
 * A worker thread running stage-worker.ts. From the TypeScript sources (a checkout, under tsx or
 * vitest) the thread first registers tsx's loader, which a worker does not inherit.
 */
function startWorker(): Worker {
  const url = moduleUrl('cli/stage-worker');
  if (!FROM_SOURCES) return new Worker(new URL(url));
  // tsx's ESM API, found through its package.json's exports (require.resolve would give the CJS one)
  const req = createRequire(import.meta.url);
  const pkg = req.resolve('tsx/package.json');
  const api = (req(pkg) as { exports: Record<string, { import: { default: string } }> }).exports['./esm/api'];
  const tsx = pathToFileURL(path.join(path.dirname(pkg), api?.import.default ?? '')).href;
  const boot = `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(url)}); })`;
  return new Worker(boot, { eval: true });
}

/** Runs `jobs` on `threads` worker threads (this thread when one would do), in order of start. */
async function runJobs(
  jobs: readonly StageJob[],
  threads: number,
  stageOne: StageOne,
  onStart: (i: number) => void,
  onDone: (i: number, r: JobResult) => void,
): Promise<void> {
  let next = 0;
  if (threads <= 1 || jobs.length <= 1) {
    for (; next < jobs.length; next++) {
      onStart(next);
      onDone(next, await stageOne(jobs[next] as StageJob));
    }
    return;
  }
  const lane = async (): Promise<void> => {
    let worker: Worker | undefined;
    try {
      for (;;) {
        const i = next++;
        if (i >= jobs.length) return;
        onStart(i);
        const w = worker ?? startWorker();
        worker = w;
        const r = await new Promise<JobResult>((resolve) => {
          const settle = (result: JobResult): void => {
            w.removeAllListeners('message');
            w.removeAllListeners('error');
            w.removeAllListeners('exit');
            resolve(result);
          };
          // a thread that dies (out of memory, a crash) fails its config, and the next gets a new one
          const died = (why: string): void => {
            worker = undefined;
            settle({ ok: false, status: 3, message: `scf stage: internal error: ${why}` });
          };
          w.once('message', settle);
          w.once('error', (e) => died(e instanceof Error ? e.message : String(e)));
          w.once('exit', (code) => died(`the worker thread stopped (exit ${code})`));
          w.postMessage(jobs[i]);
        });
        if (worker === undefined) void w.terminate();
        onDone(i, r);
      }
    } finally {
      await worker?.terminate();
    }
  };
  await Promise.all(Array.from({ length: Math.min(threads, jobs.length) }, lane));
}

/** `scf stage DIR --out OUT`: see the header. Returns the exit status. */
export async function stageFolder(
  dir: string,
  out: string,
  opts: FolderOptions,
  io: CliIo,
  stageOne: StageOne,
): Promise<number> {
  const threads = parseJobs(opts.jobs);
  const { configs, skipped } = configsIn(dir);
  for (const f of skipped) io.err(`${f}: skipped (not a config: no "input" or "entry")`);
  if (configs.length === 0)
    throw new UsageError(`'${clip(dir)}' has no config (*.json with "input" or "entry")`);
  const folders = outputFolders(dir, out, configs);
  prepareOutDir(out, '--out');
  if (opts.deps !== undefined) prepareOutFile(opts.deps, '--deps');
  // (`per-pass` recorded only when given, so a record without it stays fresh)
  const options = { k: opts.k, ...(opts.perPass ? { 'per-pass': 'yes' } : {}) };
  const total = configs.length;
  const label = (i: number): string => `[${i + 1}/${total}] ${path.basename(configs[i] as string, '.json')}`;
  const rules = new Map<string, string>();
  const rule = (folder: string, name: string, inputs: readonly string[]): string =>
    makeRule(path.join(folder, `${name}.stub.mjs`), inputs, process.cwd());
  const jobs: StageJob[] = [];
  const jobIndex: number[] = [];
  let upToDate = 0;
  configs.forEach((file, i) => {
    const folder = folders.get(file) as string;
    const state = opts.force ? undefined : checkBuildRecord(folder, file, options);
    if (state?.fresh) {
      upToDate++;
      io.err(`${label(i)}: up to date`);
      rules.set(file, rule(folder, state.name, recordInputs(folder, state.record)));
      return;
    }
    jobs.push({ file, out: folder, k: opts.k, ...(opts.perPass ? { perPass: true } : {}) });
    jobIndex.push(i);
    if (state !== undefined && state.why !== NOT_STAGED) io.err(`${label(i)}: stale (${state.why})`);
  });
  const started = new Map<number, number>();
  let failed = 0;
  const t0 = Date.now();
  await runJobs(
    jobs,
    threads,
    stageOne,
    (j) => {
      started.set(j, Date.now());
      io.err(`${label(jobIndex[j] as number)}: staging …`);
    },
    (j, r) => {
      const job = jobs[j] as StageJob;
      const at = label(jobIndex[j] as number);
      if (!r.ok) {
        failed++;
        io.err(`${at}: failed`);
        io.err(r.message);
        return;
      }
      const record = recordStage(
        job.out,
        { name: r.name, config: job.file, reads: new Map(r.reads) },
        options,
      );
      rules.set(job.file, rule(job.out, r.name, recordInputs(job.out, record)));
      const s = ((Date.now() - (started.get(j) ?? t0)) / 1000).toFixed(2);
      io.err(`${at}: staged in ${s} s → ${path.relative(process.cwd(), job.out) || '.'}`);
    },
  );
  if (opts.deps !== undefined)
    writeOutFile(opts.deps, configs.flatMap((f) => rules.get(f) ?? []).join(''), '--deps');
  const staged = jobs.length - failed;
  io.err(
    `${total} config(s): ${staged} staged, ${upToDate} up to date${failed > 0 ? `, ${failed} failed` : ''} in ${((Date.now() - t0) / 1000).toFixed(2)} s`,
  );
  return failed > 0 ? 1 : 0;
}
