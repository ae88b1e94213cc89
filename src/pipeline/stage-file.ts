/**
 * Staging one config file into a folder under node: what `scf stage CONFIG`, `scf stage DIR` and
 * the bundler plugins (src/bundler) share. A config is a kernel config (stage-config.ts) or an
 * entry config (entry-config.ts, stage-entry.ts), told apart by its JSON; either is staged and its
 * files published into the folder (write.ts, staged-folder.ts), and `recordStage` then writes the
 * folder's build record (build-record.ts) from what the stage read.
 *
 * Algorithm. `stageConfigFile` runs the whole stage inside `recordSourceReads`, so every file it
 * read through `readSourceFile` (the config, the kernel or the entry's modules, every pass's
 * sources) is returned with its hash; the caller prints what it wants from the result.
 *
 * Invariants
 * - The folder is prepared (`prepare`) only after the config loaded, so a config error writes
 *   nothing; a failure after that undoes what `prepare` made (`removeCreated`).
 * - `recordStage` runs after the files are published: a record never vouches for files that are
 *   not yet in place, and it replaces any other function's record in the folder (one per folder).
 */
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { K, type PeStats } from '../partial-eval/index.js';
import { readSourceFile, recordSourceReads } from '../common/index.js';
import { BUILD_RECORD_SUFFIX, type BuildRecord, buildRecord, writeBuildRecord } from './build-record.js';
import type { StageConfig } from './config.js';
import type { Staging } from './pipeline.js';
import { loadConfig } from './config-files.js';
import { isEntryConfigText, type LoadedEntry, loadEntry, loadEntryConfig } from './entry-config.js';
import { stageConfig } from './stage-config.js';
import { type StagedEntry, stageEntry, writeStagedEntry } from './stage-entry.js';
import type { StagedConfig, StageProgressOptions } from './stage-kernel.js';
import { type WrittenFiles, writeStaged } from './write.js';

/** How `stageConfigFile` stages, prepares the folder and reports progress. */
export interface StageFileOptions {
  /** The partial evaluator's call-chain bound (default 2). */
  readonly k?: number;
  /** How a kernel config's pipeline is staged, over its `staging` (`--per-pass`). */
  readonly staging?: Staging;
  /** A line per pass started and staged (a kernel config), or when the entry starts. */
  readonly onStage?: (line: string) => void;
  /** A kernel config's progress, every ~100,000 visits of the partial evaluator. */
  readonly onKernelWork?: StageProgressOptions['onWork'];
  /** An entry config's progress, every ~100,000 visits, with the entry's export name. */
  readonly onEntryWork?: (name: string, stats: PeStats) => void;
  /**
   * Makes sure the folder exists before staging, returning what undoes that (default: a
   * recursive mkdir, undone by nothing).
   */
  readonly prepare?: (outDir: string) => { readonly removeCreated: () => void };
  /** Runs the write of the files (default: as it is); the CLI words its failures as usage errors. */
  readonly write?: <T>(outDir: string, removeCreated: () => void, write: () => T) => T;
}

interface StagedBase {
  /** The function's name: the base name of the folder's files. */
  readonly name: string;
  /** The config file staged, as given. */
  readonly config: string;
  /** Every file the stage read (absolute path → SHA-256 of its text), in the order first read. */
  readonly reads: ReadonlyMap<string, string>;
}

/** A kernel config staged: its loaded config, the staged pipeline and the files written. */
interface KernelPart {
  readonly kind: 'kernel';
  readonly loaded: StageConfig;
  readonly result: StagedConfig;
  readonly files: WrittenFiles;
}

/** An entry config staged: its loaded entry, the staged function and the files written (stub first, then the manifest). */
interface EntryPart {
  readonly kind: 'entry';
  readonly loaded: LoadedEntry;
  readonly staged: StagedEntry;
  readonly written: readonly string[];
}

/** A config staged by `stageConfigFile`: a kernel config's pipeline or an entry config's function. */
export type StagedFile = StagedBase & (KernelPart | EntryPart);

const defaultPrepare = (outDir: string) => {
  mkdirSync(outDir, { recursive: true });
  return { removeCreated: () => {} };
};

/** Whether the config file `file` is an entry config (it is read again, with positions, when loaded). */
export function isEntryConfigFile(file: string): boolean {
  try {
    return isEntryConfigText(readSourceFile(file));
  } catch {
    return false; // loadConfig reports why it cannot be read
  }
}

/**
 * Stages the config `file` (a kernel or an entry config) into `outDir`; throws what staging throws
 * (`ConfigError` at a position in the config, `OptimizerError`, `PassError`, `PassTrialError`, …).
 */
export async function stageConfigFile(
  file: string,
  outDir: string,
  opts: StageFileOptions = {},
): Promise<StagedFile> {
  const { value, reads } = await recordSourceReads(
    (): Promise<KernelPart | EntryPart> =>
      isEntryConfigFile(file)
        ? Promise.resolve(stageEntryFile(file, outDir, opts))
        : stageKernelFile(file, outDir, opts),
  );
  const name = value.kind === 'kernel' ? value.result.fun.name : value.loaded.config.export;
  return { ...value, name, config: file, reads };
}

const asIs = <T>(_out: string, _undo: () => void, write: () => T): T => write();

async function stageKernelFile(
  file: string,
  outDir: string,
  opts: StageFileOptions,
): Promise<KernelPart | EntryPart> {
  const loaded = loadConfig(file);
  const { removeCreated } = (opts.prepare ?? defaultPrepare)(outDir);
  let result: StagedConfig;
  try {
    result = await stageConfig(loaded, {
      ...(opts.k !== undefined ? { k: opts.k } : {}),
      ...(opts.staging !== undefined ? { staging: opts.staging } : {}),
      ...(opts.onStage ? { onStage: opts.onStage } : {}),
      ...(opts.onKernelWork ? { onWork: opts.onKernelWork } : {}),
    });
  } catch (e) {
    removeCreated();
    throw e;
  }
  const files = (opts.write ?? asIs)(outDir, removeCreated, () =>
    writeStaged(result.stages, { outDir, fun: result.fun, bind: loaded.bind, config: loaded.file }),
  );
  return { kind: 'kernel', loaded, result, files };
}

function stageEntryFile(file: string, outDir: string, opts: StageFileOptions): EntryPart {
  const loaded = loadEntry(loadEntryConfig(file));
  const { removeCreated } = (opts.prepare ?? defaultPrepare)(outDir);
  opts.onStage?.(`staging ${loaded.config.entry} …`);
  const { onEntryWork } = opts;
  let staged: StagedEntry;
  try {
    staged = stageEntry(loaded, {
      k: opts.k ?? K,
      ...(onEntryWork ? { onWork: (stats: PeStats) => onEntryWork(loaded.config.export, stats) } : {}),
    });
  } catch (e) {
    removeCreated();
    throw e;
  }
  const written = (opts.write ?? asIs)(outDir, removeCreated, () => writeStagedEntry(staged, outDir));
  return { kind: 'entry', loaded, staged, written };
}

/**
 * Writes the build record of `staged`, just published into `outDir`, with the settings `options`
 * (`{ k }`), removing any other function's record there; returns the record.
 */
export function recordStage(
  outDir: string,
  staged: Pick<StagedBase, 'name' | 'config' | 'reads'>,
  options: BuildRecord['options'],
): BuildRecord {
  for (const f of readdirSync(outDir))
    if (f.endsWith(BUILD_RECORD_SUFFIX) && f !== `${staged.name}${BUILD_RECORD_SUFFIX}`)
      rmSync(path.join(outDir, f), { force: true });
  const record = buildRecord(outDir, staged.name, staged.config, staged.reads, options);
  writeBuildRecord(outDir, staged.name, record);
  return record;
}
