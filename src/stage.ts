/**
 * `scf/stage`: staging in a page or a worker, with no file system and no node (docs/api.md,
 * "Staging in a browser"). `stageInMemory` stages a config's text on its kernel's C text and
 * returns the staged folder as text (pipeline/memory.ts: the path `scf stage` takes once it has
 * read the files, the built-in passes' Core programs compiled at build time);
 * `importStagedText` loads such a folder from its text through `blob:` URLs and returns its stub
 * (pipeline/load-text.ts). Bundled for a browser, the package's "browser" map swaps in the
 * twins of the node-only modules, as for a stub (docs/ARCHITECTURE.md, "In a browser").
 */
// the modules themselves, not pipeline/index.ts, which also gathers the node-only ones (files)
export { formatDiagnostic, scfVersion } from './common/index.js';
export { PassError } from './optimizers/index.js';
export { argValue } from './pipeline/args.js';
export { type ArgSpec, ConfigError, type StageConfig } from './pipeline/config.js';
export { importStagedText, type LoadedStub } from './pipeline/load-text.js';
export {
  type MemoryInput,
  type MemoryOptions,
  type StagedInMemory,
  stageInMemory,
} from './pipeline/memory.js';
export type { PipelineProgress } from './pipeline/pipeline.js';
export { describeStages } from './pipeline/stage-report.js';
export type { FolderFile, StagedText } from './pipeline/staged-text.js';
