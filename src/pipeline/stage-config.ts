/**
 * Staging a JSON config (config.ts) end to end under node: read its kernel (config-files.ts),
 * resolve its passes (a user's optimizer by its path, relative to the config) and stage them on
 * the kernel (stage-kernel.ts, the path a page takes too). Shared by `scf stage`, `npm run
 * stage`, the benchmarks and the tests.
 */
import path from 'node:path';
import { optimizerProgram, type Pass, PassError, resolvePass, withMath } from '../optimizers/index.js';
import { configError, type StageConfig } from './config.js';
import { loadConfigInput } from './config-files.js';
import { type StagedConfig, type StageProgressOptions, stageKernel } from './stage-kernel.js';

/** Loads the config's input and stages its pipeline; progress lines go to `onStage`. */
export async function stageConfig(
  config: StageConfig,
  opts: StageProgressOptions = {},
): Promise<StagedConfig> {
  const passes = configPasses(config);
  for (const pass of passes) optimizerProgram(pass); // reports an optimizer outside SCF-lang before any work
  return stageKernel(config, passes, await loadConfigInput(config), opts);
}

/**
 * The passes of a config's pipeline: built-in names, or paths of a user's optimizers relative to
 * the config's folder, for the config's `math` (`withMath`). A pass that cannot be loaded is a
 * `ConfigError` at its entry.
 */
export function configPasses(config: StageConfig): Pass[] {
  const passes = config.pipeline.map((spec, i) => {
    try {
      return resolvePass(spec, path.dirname(path.resolve(config.file)));
    } catch (e) {
      if (e instanceof PassError) throw configError(config, `pipeline[${i}]`, e.message);
      throw e;
    }
  });
  return withMath(passes, config.math ?? 'exact');
}
