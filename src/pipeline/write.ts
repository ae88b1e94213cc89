/**
 * Writing a staged pipeline to disk as a portable folder of ES modules (their text is
 * staged-text.ts's `stagedText`):
 * - `NAME.PASS.staged.mjs` — one readable module per staged optimizer (emit.ts), the first also
 *   exporting the admission check of the early description (stager/admit-emit.ts);
 * - `NAME.stub.mjs` — SCF Fig. 5's run-time interface: `specialize(values)` takes the late-stage
 *   values of the staged formals, builds the pipeline's input, checks it, and runs the staged
 *   pipeline (`makeStub`: optimizers/kernel-stub.ts over runtime/stub.ts); with
 *   `NAME.stub.d.mts`, whose `Values` type names the staged formals, so a caller's
 *   `specialize({ a: 1 })` is type-checked;
 * - `NAME.manifest.json` — what the folder was staged from: the config, the scf version, and a
 *   SHA-256 of the kernel, of every optimizer source (`stageManifest`, read from the files here) and
 *   of every staged module; embedded in the stub too, which checks each module before importing
 *   it and the sources on first use, and falls back to the unstaged pipeline when anything differs;
 * - `NAME.abstract.txt` — I1, I2, … in the Fig. 6 notation.
 *
 * The modules import only `scf/runtime` and each other (`./`), so the folder runs wherever it is
 * moved, under plain node or a bundler, in any app that has scf installed. The kernel function was
 * known at build time, so the stub embeds it as data (Fig. 5's remark: no parsing at run time).
 *
 * The files are published by staged-folder.ts (a temporary folder inside the target, renamed into
 * place under a lock, the stub last).
 *
 * Invariants. `specialize(values)` returns exactly what the unstaged pipeline returns on the same
 * values (see runtime/stub.ts).
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { clip, inSystemFileSystem, readSourceFile, SOURCE_ROOT } from '../common/index.js';
import { type ManifestFile, type StageManifest, sha256 } from '../runtime/index.js';
import type { Fun } from '../kernel/index.js';
import { kernelHash, optimizerSources, type Pass } from '../optimizers/index.js';
import type { PipelineStage } from './pipeline.js';
import { publishFolder } from './staged-folder.js';
import { stagedManifest, stagedModuleCode, stagedText } from './staged-text.js';

export interface WriteOptions {
  readonly outDir: string;
  /** Base name of the files (the kernel function's name by default). */
  readonly name?: string;
  /** The kernel function (embedded in the stub). */
  readonly fun: Fun;
  /** Descriptions of the staged formals (a config's `bind`); their text goes into the stub. */
  readonly bind: Readonly<Record<string, { readonly text: string }>>;
  /**
   * Text for the modules' headers (where the config came from); by default the config's path
   * relative to the folder, as the manifest records it, so that the files do not depend on where
   * the project lives or on the working directory.
   */
  readonly origin?: string;
  /** The config file staged from (recorded in the manifest and the headers, relative to the folder). */
  readonly config?: string;
}

export interface WrittenFiles {
  readonly modules: readonly string[];
  readonly stub: string;
  readonly types: string;
  readonly manifest: string;
  readonly descriptions: string;
}

function posixRelative(fromDir: string, file: string): string {
  return path.relative(fromDir, file).split(path.sep).join('/');
}

/** The config file `config` as a staged folder `dir` names it: relative to the folder, with `/`. */
function configFromFolder(dir: string, config: string): string {
  return posixRelative(dir, path.resolve(config));
}

/** The manifest of a staged folder written to `dir` (see runtime/stub.ts). */
export function stageManifest(
  stages: readonly PipelineStage[],
  dir: string,
  opts: WriteOptions,
  modules: readonly ManifestFile[],
): StageManifest {
  // the pass's own file first, then the sources it imports
  const sources = (pass: Pass): ManifestFile[] => {
    const files = optimizerSources(pass);
    return [...files.filter((f) => f === pass.file), ...files.filter((f) => f !== pass.file)].map((f) => ({
      path: pass.builtin ? posixRelative(SOURCE_ROOT, f) : posixRelative(dir, f),
      sha256: sha256(readSourceFile(f)),
      ...(pass.builtin ? {} : { staged: path.resolve(f) }),
    }));
  };
  const config = opts.config ? configFromFolder(dir, opts.config) : undefined;
  return stagedManifest(stages, { ...opts, config }, kernelHash(opts.fun), sources, modules);
}

export function writeStaged(stages: readonly PipelineStage[], opts: WriteOptions): WrittenFiles {
  const dir = path.resolve(opts.outDir);
  if (inSystemFileSystem(dir))
    throw new Error(`writeStaged: '${clip(opts.outDir)}' is in a system file system`);
  const name = opts.name ?? opts.fun.name;
  // a file name, never a path: every file is written inside outDir
  if (name === '' || name === '.' || name === '..' || /[/\\\0]/.test(name))
    throw new Error(
      `writeStaged: the name '${clip(name)}' is not a file name (it names the files inside outDir)`,
    );
  mkdirSync(dir, { recursive: true });
  const origin = opts.origin ?? (opts.config ? configFromFolder(dir, opts.config) : undefined);
  const textOpts = { name, fun: opts.fun, bind: opts.bind, ...(origin !== undefined ? { origin } : {}) };
  const code = stagedModuleCode(stages, textOpts);
  const { files, modules } = stagedText(stages, textOpts, code, code.map(sha256), (modules) =>
    stageManifest(stages, dir, opts, modules),
  );
  // an earlier stage's modules of this function that this pipeline no longer has
  const prefix = `${name}.`;
  const stale = (f: string): boolean =>
    f.startsWith(prefix) && (f.endsWith('.staged.mjs') || f.endsWith('.staged.d.mts'));
  publishFolder(dir, files, stale);
  const at = (f: string): string => path.join(dir, f);
  return {
    modules: modules.map((m) => at(m.path)),
    stub: at(`${name}.stub.mjs`),
    types: at(`${name}.stub.d.mts`),
    manifest: at(`${name}.manifest.json`),
    descriptions: at(`${name}.abstract.txt`),
  };
}
