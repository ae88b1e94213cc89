/**
 * The stager (SCF Fig. 8) and everything around it: staging one optimizer or a pipeline
 * (stage.ts) and a JSON config end to end (stage-config.ts), merging equal residual functions
 * (minimize.ts), splitting functions too large for V8 to optimize (split.ts), emitting the staged
 * optimizers as TypeScript with a checked admission of their input (emit.ts, admit.ts,
 * runtime.ts), the stub and files (write.ts), the JSON configs
 * (config.ts), early-stage descriptions of a kernel's formals (describe-input.ts) and abstract
 * kernel programs in Fig. 6 notation (print-kernel.ts: the kernel's C printer over abstract values).
 */
export {
  ADMISSION_RUNTIME_IMPORTS,
  type AdmissionOptions,
  checkAdmitted,
  emitAdmission,
  planAdmission,
} from './admit.js';
export { type MinimizeResult, mergeEqualFunctions } from './minimize.js';
export { freeVars, MAX_FUN_NODES, type SplitResult, splitLargeFunctions } from './split.js';
export { configPasses, type StagedConfig, stageConfig } from './stage-config.js';
export {
  CONFIG_CODES,
  type ConfigCode,
  ConfigError,
  configError,
  configPipelineInput,
  KNOWN_PASSES,
  loadConfig,
  loadConfigInput,
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
export { type EmitMeta, type EmitOptions, emitModule } from './emit.js';
export {
  ELIDED,
  KERNEL_CTORS,
  PRINT_NODES,
  type PrintKernelOptions,
  printAbstractCmd,
  printAbstractExpr,
  printAbstractFun,
} from './print-kernel.js';
export { InputNotAdmitted } from './runtime.js';
export {
  findStageablePass,
  OptimizerError,
  optimizerProgram,
  optimizerSources,
  type PipelineProgress,
  type PipelineStage,
  STAGEABLE_PASSES,
  type StageablePass,
  type StageOptions,
  type StageResult,
  stage,
  stagePipeline,
} from './stage.js';
export { importStub, type LoadedStub } from './load.js';
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
