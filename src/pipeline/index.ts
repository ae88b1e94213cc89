/**
 * Staging the kernel optimizer pipeline: what ties the stager's engine (src/stager) to kernels
 * and configs. A JSON config (config.ts, read from text; config-files.ts reads it and its kernel
 * from files under node) with early descriptions of a kernel's formals (describe-input.ts) is
 * staged on its parsed kernel (stage-kernel.ts) pass by pass (pipeline.ts, SCF Fig. 4), either
 * from files (stage-config.ts, `stageConfig`) or from text in a page or a worker (memory.ts,
 * `stageInMemory`, hashing with sha256.ts), and reported (stage-report.ts: the abstract text,
 * `--explain`, `--json`); the staged folder's text (staged-text.ts) is written
 * to a folder (write.ts), published into it atomically under a lock (staged-folder.ts), and
 * loaded back (load.ts); a config file is staged into a folder with its build record
 * (stage-file.ts, build-record.ts); the abstract kernel programs between the passes print in the Fig. 6
 * notation (print-abstract.ts: the kernel's C printer, kernel/c-printer.ts, over abstract values).
 */
export { argValue, seededRandom } from './args.js';
export {
  BUILD_RECORD_SUFFIX,
  type BuildRecord,
  buildRecord,
  checkBuildRecord,
  engineHash,
  type Freshness,
  functionFiles,
  makeRule,
  NOT_STAGED,
  type RecordedFile,
  recordInputs,
  writeBuildRecord,
} from './build-record.js';
export {
  type ArgSpec,
  CONFIG_CODES,
  CONFIG_KEYS,
  type ConfigCode,
  ConfigError,
  type ConfigFiles,
  configError,
  configKernel,
  configPipelineInput,
  KNOWN_PASSES,
  MAX_RANDOM_ARG,
  MEMORY_FILES,
  type Position,
  readConfig,
  type StageConfig,
} from './config.js';
export { configFilesIn, loadConfig, loadConfigInput, NODE_FILES, parseConfig } from './config-files.js';
export {
  abstractPipelineInput,
  type Description,
  describeFormal,
  describeFormalList,
  describeFormals,
  FormalDescriptionError,
  literalDescription,
  parseBindDescription,
  typedDescription,
} from './describe-input.js';
export { importStub } from './load.js';
export { importStagedText, type LoadedStub } from './load-text.js';
export { type MemoryInput, type MemoryOptions, type StagedInMemory, stageInMemory } from './memory.js';
export { type EntryLanguage, entryLanguage, type KernelLanguage, kernelLanguage } from './languages.js';
export { sha256Hex } from './sha256.js';
export {
  type PipelineOptions as StagePipelineOptions,
  type PipelineProgress,
  type PipelineStage,
  chooseStaging,
  composable,
  type Staging,
  stagePipeline,
  stageWhole,
  WHOLE_PASS_NAME,
  WHOLE_TRIAL_BUDGET,
} from './pipeline.js';
export { composedName, type Materialization, WHOLE_ENTRY } from './compose.js';
export {
  ABBREVIATED_NOTE,
  ELIDED,
  KERNEL_CTORS,
  PRINT_ALTS,
  PRINT_LINE,
  PRINT_NODES,
  type PrintAbstractOptions,
  printAbstractCmd,
  printAbstractExpr,
  printAbstractFun,
} from './print-abstract.js';
export { configPasses, stageConfig } from './stage-config.js';
export {
  isEntryConfigFile,
  recordStage,
  type StagedFile,
  type StageFileOptions,
  stageConfigFile,
} from './stage-file.js';
export { PassTrialError, type StagedConfig, type StageProgressOptions, stageKernel } from './stage-kernel.js';
export {
  acquireLock,
  FolderBusy,
  LOCK_FILE,
  LOCK_WAIT_MS,
  publishFolder,
  TEMP_PREFIX,
} from './staged-folder.js';
export {
  type FolderFile,
  RUNTIME_SPECIFIER,
  type StagedText,
  type StagedTextOptions,
  stagedModuleCode,
  stagedText,
} from './staged-text.js';
export { describeStages, explainStages, stageReport } from './stage-report.js';
export { stageManifest, type WriteOptions, type WrittenFiles, writeStaged } from './write.js';
export { EntryValueError, EntryValues, anyOfType } from './entry-describe.js';
export {
  ENTRY_CONFIG_KEYS,
  type EntryConfig,
  isEntryConfigText,
  type LoadedEntry,
  loadEntry,
  loadEntryConfig,
  readEntryConfig,
} from './entry-config.js';
export { entryFolderText, type StagedEntry, stageEntry, writeStagedEntry } from './stage-entry.js';
export { type EntryTestOptions, type EntryTestResult, testEntry } from './test-entry.js';
