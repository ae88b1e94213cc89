/**
 * The staging cache the bundler plugins share (esbuild.ts, vite.ts): `import … from
 * './conv.json?scf'` stages that config at build time into a folder of the app's
 * `node_modules/.cache/scf/` and resolves to the folder's stub.
 *
 * Algorithm (`stageCached`)
 * 1. The config's entry is the folder `CACHE/<config name>-<hash>/`, the hash that of the config's
 *    real path: one entry per config, whatever imports it.
 * 2. Within one process, stages of one entry run one after the other (a promise per entry); across
 *    processes, under the entry's lock (`CACHE/<entry>.lock`, pipeline/staged-folder.ts's
 *    `acquireLock`), waited for without blocking the event loop.
 * 3. Under the lock, the entry's build record (pipeline/build-record.ts) is checked: fresh — every
 *    input (the config, the kernel or the entry's modules, every pass's sources) and every output
 *    has the hash it records, and so do scf's version and code hash, and `k` — and the entry is
 *    used as it is; else the config is staged into the entry again (pipeline/stage-file.ts) and
 *    its record written.
 *
 * Invariants
 * - A stub the cache returns was written by this scf from these inputs: an entry whose files were
 *   edited or truncated, or staged by another scf, fails step 3 and is staged again.
 * - The stub imports only `scf/runtime` and its own folder, so it resolves from inside the app's
 *   node_modules as from anywhere in the app.
 * - A JSON file that is no config (neither "input"/"function"/"pipeline" nor "entry") is refused
 *   with `NotAConfig` before anything is written.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { type ParseError, parse as parseJsonc } from 'jsonc-parser';
import { fileProblem, readSourceFile } from '../common/index.js';
import { K } from '../partial-eval/index.js';
import {
  acquireLock,
  checkBuildRecord,
  ConfigError,
  FolderBusy,
  isEntryConfigText,
  recordInputs,
  recordStage,
  stageConfigFile,
} from '../pipeline/index.js';

/** The query that marks an import to stage (`./conv.json?scf`). */
export const SCF_QUERY = '?scf';

/** How long a build waits for another one staging the same config (ms). */
export const CACHE_LOCK_WAIT_MS = 10 * 60_000;

export interface CacheOptions {
  /** The app's folder: the cache is its `node_modules/.cache/scf` (default: the working directory). */
  readonly root?: string;
  /** The cache folder itself, instead of the app's. */
  readonly cacheDir?: string;
  /** The partial evaluator's call-chain bound (default 2, as `scf stage`). */
  readonly k?: number;
  /** Called on each resolution of a `?scf` import: `staged` says whether it staged, and why. */
  readonly onStage?: (config: string, stage: CachedStage) => void;
}

/** A config's entry in the cache, fresh. */
export interface CachedStage {
  /** The stub's absolute path: what `?scf` resolves to. */
  readonly stub: string;
  /** The entry's folder. */
  readonly dir: string;
  /** The staged function's name (the files' base name). */
  readonly name: string;
  /** Every file the stage read (absolute paths): what a watcher watches to stage again. */
  readonly inputs: readonly string[];
  /** Why the entry was staged now (`not staged yet`, `conv.c changed`, …), or undefined when reused. */
  readonly staged: string | undefined;
}

/** A `?scf` import of a JSON file that is not an scf config. */
export class NotAConfig extends Error {
  override readonly name = 'NotAConfig';
}

/** The cache folder for `opts`. */
export function cacheDir(opts: CacheOptions = {}): string {
  return path.resolve(
    opts.cacheDir ?? path.join(opts.root ?? process.cwd(), 'node_modules', '.cache', 'scf'),
  );
}

/** Whether the import specifier `id` asks for a staged config, and the config's path if so. */
export function scfRequest(id: string): string | undefined {
  return id.endsWith(SCF_QUERY) ? id.slice(0, -SCF_QUERY.length) : undefined;
}

/** The entry folder's name for the config at `real` (a real path). */
function entryName(real: string): string {
  const base = path.basename(real, '.json').replace(/[^\w.-]/g, '_');
  return `${base}-${createHash('sha256').update(real).digest('hex').slice(0, 16)}`;
}

/**
 * Refuses a JSON file that is not a config; one that does not parse is left to the config's loader,
 * which reports where.
 */
function checkIsConfig(file: string): void {
  let text: string;
  try {
    text = readSourceFile(file);
  } catch {
    return; // the loader says why it cannot be read
  }
  if (isEntryConfigText(text)) return;
  const errors: ParseError[] = [];
  const v: unknown = parseJsonc(text, errors, { allowTrailingComma: true });
  if (errors.length > 0) return;
  const isObject = typeof v === 'object' && v !== null && !Array.isArray(v);
  if (isObject && ['input', 'function', 'pipeline'].some((k) => Object.hasOwn(v, k))) return;
  throw new NotAConfig(
    `${file}: not an scf config: a '?scf' import stages a kernel config ("input", "function", "pipeline", "bind") or an entry config ("entry", "bind"); see scf's docs/bundlers.md`,
  );
}

const running = new Map<string, Promise<CachedStage>>();

/** Stages the config `config` into its cache entry unless the entry is fresh (see the header). */
export function stageCached(config: string, opts: CacheOptions = {}): Promise<CachedStage> {
  let real: string;
  try {
    real = realpathSync(path.resolve(config));
  } catch (e) {
    return Promise.reject(new Error(`${config}: ${fileProblem(e)}`));
  }
  const dir = path.join(cacheDir(opts), entryName(real));
  const before = running.get(dir) ?? Promise.resolve(undefined);
  const next = before.then(
    () => stageLocked(real, dir, opts),
    () => stageLocked(real, dir, opts),
  );
  running.set(dir, next);
  const forget = (): void => {
    if (running.get(dir) === next) running.delete(dir);
  };
  next.then((c) => {
    forget();
    opts.onStage?.(real, c);
  }, forget);
  return next;
}

async function stageLocked(config: string, dir: string, opts: CacheOptions): Promise<CachedStage> {
  checkIsConfig(config);
  const root = path.dirname(dir);
  mkdirSync(root, { recursive: true });
  const release = await lock(root, `${path.basename(dir)}.lock`);
  try {
    const options = { k: opts.k ?? K };
    const state = checkBuildRecord(dir, config, options);
    if (state.fresh)
      return {
        stub: path.join(dir, `${state.name}.stub.mjs`),
        dir,
        name: state.name,
        inputs: recordInputs(dir, state.record),
        staged: undefined,
      };
    const staged = await stageConfigFile(config, dir, { k: options.k });
    const record = recordStage(dir, staged, options);
    return {
      stub: path.join(dir, `${staged.name}.stub.mjs`),
      dir,
      name: staged.name,
      inputs: recordInputs(dir, record),
      staged: state.why,
    };
  } finally {
    release();
  }
}

/** `acquireLock` of `name` in `dir`, retried every 50 ms without blocking, up to `CACHE_LOCK_WAIT_MS`. */
async function lock(dir: string, name: string): Promise<() => void> {
  const deadline = Date.now() + CACHE_LOCK_WAIT_MS;
  for (;;) {
    try {
      return acquireLock(dir, name, 0);
    } catch (e) {
      if (!(e instanceof FolderBusy) || Date.now() > deadline || /not a lock file/.test(e.message)) throw e;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Where a staging error points: its message and, for a config error, the position in the config. */
export interface StageErrorReport {
  readonly text: string;
  readonly file?: string;
  /** 1-based. */
  readonly line?: number;
  /** 0-based, as bundlers count columns. */
  readonly column?: number;
}

/** `e`, thrown by `stageCached`, as a bundler reports it. */
export function stageErrorReport(e: unknown): StageErrorReport {
  if (e instanceof ConfigError)
    return {
      text: `${e.code}: ${e.reason}`,
      file: path.resolve(e.file),
      line: e.line,
      column: Math.max(0, e.col - 1),
    };
  return { text: e instanceof Error ? e.message : String(e) };
}

/** The text of line `line` (1-based) of `file`, for a code frame; '' when it cannot be read. */
export function sourceLine(file: string, line: number): string {
  try {
    return readSourceFile(file).split(/\r?\n/)[line - 1] ?? '';
  } catch {
    return '';
  }
}
