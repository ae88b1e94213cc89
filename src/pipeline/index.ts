/**
 * Staging the kernel optimizer pipeline: what ties the stager's engine (src/stager) to kernels
 * and configs. A JSON config (config.ts) with early descriptions of a kernel's formals
 * (describe-input.ts) is staged end to end (stage-config.ts) pass by pass (pipeline.ts, SCF
 * Fig. 4); the staged optimizers, their stub and manifest are written to a folder (write.ts), published
 * into it atomically under a lock (staged-folder.ts), and loaded back (load.ts); the abstract kernel programs between the passes print in the Fig. 6
 * notation (print-kernel.ts: the kernel's C printer, kernel/c-printer.ts, over abstract values).
 */
export {
  type ArgSpec,
  CONFIG_CODES,
  CONFIG_KEYS,
  type ConfigCode,
  ConfigError,
  configError,
  configPipelineInput,
  KNOWN_PASSES,
  loadConfig,
  loadConfigInput,
  MAX_RANDOM_ARG,
  type Position,
  parseConfig,
  type StageConfig,
} from './config.js';
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
export { importStub, type LoadedStub } from './load.js';
export { type PipelineProgress, type PipelineStage, stagePipeline } from './pipeline.js';
export {
  ABBREVIATED_NOTE,
  ELIDED,
  KERNEL_CTORS,
  PRINT_ALTS,
  PRINT_LINE,
  PRINT_NODES,
  type PrintKernelOptions,
  printAbstractCmd,
  printAbstractExpr,
  printAbstractFun,
} from './print-kernel.js';
export { configPasses, type StagedConfig, stageConfig } from './stage-config.js';
export { FolderBusy, LOCK_FILE, LOCK_WAIT_MS, publishFolder, TEMP_PREFIX } from './staged-folder.js';
export {
  describeStages,
  explainStages,
  RUNTIME_SPECIFIER,
  stageManifest,
  stageReport,
  type WriteOptions,
  type WrittenFiles,
  writeStaged,
} from './write.js';
