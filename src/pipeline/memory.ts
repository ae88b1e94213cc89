/**
 * Staging in memory: a config's text and its kernel's C text in, the staged folder's files out as
 * text — what a page or a worker runs (the `scf/stage` entry), with no file system and no node.
 *
 * It takes the path `scf stage` takes once the files are read: the config parsed by config.ts with
 * `MEMORY_FILES` (its `input` is a name, resolved against the config's, and the kernel is the text
 * given), the kernel parsed by `configKernel`, the passes staged by `stageKernel`
 * (stage-kernel.ts), the folder's text made by `stagedText` (staged-text.ts). What differs is
 * what node reads from files: a pass's Core program (in a bundle, the one compiled at build
 * time: optimizers/programs.browser.ts), the manifest's source hashes (those recorded at build
 * time, `BUILTIN_SOURCE_SHA256`, which a test keeps equal to the files') and the hash function
 * (sha256.ts: the Web Crypto API, asynchronous, so the modules are emitted, hashed, then assembled). Hence only built-in passes: a user's optimizer is compiled from its files.
 *
 * Invariants: for the same config, kernel and origin, the files are byte for byte those
 * `writeStaged` writes after `stageConfig` (tests/pipeline/memory.test.ts); user errors are
 * `ConfigError`s positioned in the config or the kernel (`FILE:LINE:COL: error CODE: …`), with
 * the names given here as FILE.
 */
import { BUILTIN_SOURCE_SHA256 } from '../common/index.js';
import { builtinSources, findPass, optimizerProgram, type Pass, withMath } from '../optimizers/index.js';
import type { ManifestFile, StageManifest } from '../runtime/index.js';
import { configError, configKernel, MEMORY_FILES, readConfig, type StageConfig } from './config.js';
import { sha256Hex } from './sha256.js';
import { type StagedConfig, type StageProgressOptions, stageKernel } from './stage-kernel.js';
import {
  type StagedText,
  type StagedTextOptions,
  stagedManifest,
  stagedModuleCode,
  stagedText,
} from './staged-text.js';

/** What is staged: a config and its kernel, as text. */
export interface MemoryInput {
  /** The config's JSON text (docs/config.md). */
  readonly config: string;
  /**
   * The config's name, for messages and to resolve its `input` against (with `/`):
   * `configs/kernel/01-conv.json`, whose `"input": "../../benchmarks/inputs/conv.c"` is then
   * `benchmarks/inputs/conv.c`, the name the kernel's messages carry.
   */
  readonly configFile: string;
  /** The C source of the kernel the config's `input` names. */
  readonly kernel: string;
}

export interface MemoryOptions extends StageProgressOptions {
  /** Text for the staged modules' headers (the config's name by default). */
  readonly origin?: string;
}

/** What staging in memory gives: the stages, and the staged folder's files. */
export interface StagedInMemory extends StagedConfig {
  readonly text: StagedText;
}

/**
 * Stages `input`'s config on its kernel and returns the staged folder as text (see the header).
 * Progress lines go to `onStage`: parsing, each pass started and staged, emitting.
 */
export async function stageInMemory(input: MemoryInput, opts: MemoryOptions = {}): Promise<StagedInMemory> {
  const config = readConfig(input.config, input.configFile, MEMORY_FILES);
  const passes = memoryPasses(config);
  for (const pass of passes) optimizerProgram(pass);
  opts.onStage?.(`parsing the kernel ${config.input} …`);
  const kernel = await configKernel(config, input.kernel);
  const staged = stageKernel(config, passes, kernel, opts);
  opts.onStage?.('emitting the staged modules …');
  const textOpts = { fun: staged.fun, bind: config.bind, origin: opts.origin ?? input.configFile };
  const code = stagedModuleCode(staged.stages, textOpts);
  const shas = await Promise.all(code.map(sha256Hex));
  const kernelSha = await sha256Hex(JSON.stringify(staged.fun));
  const text = stagedText(staged.stages, textOpts, code, shas, (modules) =>
    memoryManifest(staged, textOpts, modules, kernelSha),
  );
  return { ...staged, text };
}

/**
 * The passes of a config's pipeline, built-in ones only (for its `math`); a user's optimizer is a
 * `ConfigError` at its entry.
 */
function memoryPasses(config: StageConfig): Pass[] {
  const passes = config.pipeline.map((spec, i) => {
    const pass = findPass(spec);
    if (pass === undefined)
      throw configError(
        config,
        `pipeline[${i}]`,
        `a user's optimizer is compiled from its source files, which staging in memory does not read: stage this config with \`scf stage\` under node (built-in passes: const-prop, copy-prop, dae, fusion)`,
      );
    return pass;
  });
  return withMath(passes, config.math ?? 'exact');
}

/** The manifest of a folder staged in memory: built-in sources with the hashes recorded at build time. */
function memoryManifest(
  staged: StagedConfig,
  opts: StagedTextOptions,
  modules: readonly ManifestFile[],
  kernelSha: string,
): StageManifest {
  const sources = (pass: Pass): ManifestFile[] =>
    builtinSources(pass).map((path) => {
      const sha = BUILTIN_SOURCE_SHA256[path];
      if (sha === undefined) throw new Error(`internal error: no recorded hash of ${path}`);
      return { path, sha256: sha };
    });
  return stagedManifest(staged.stages, opts, kernelSha, sources, modules);
}
