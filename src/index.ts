/**
 * `scf`: the programmatic API — what the `scf` command does, for a build script or a bundler
 * plugin (docs/api.md). Stage a config, write the staged folder, run pipelines, bring your own
 * optimizer, parse and print kernels (members of an early description to test with are
 * `scf/testing`'s, src/testing.ts).
 */
export {
  type AbsValue,
  conforms,
  parseDescription,
  printAbs,
} from './abstract-values/index.js';
export {
  evaluate,
  type Fun,
  loadKernelParser,
  parseKernel,
  printFun,
  printProgram,
  type Program as KernelProgram,
} from './kernel/index.js';
export {
  allPasses,
  BindError,
  type Bindings,
  type BindValue,
  compileFile,
  defaultPipeline,
  findPass,
  formalsFromBindings,
  type LatticeVal,
  loadUserPass,
  type MathMode,
  OptimizerError,
  type Pass,
  type PassChecks,
  PassError,
  PassOutputError,
  type PipelineOptions,
  type PipelineResult,
  resolvePass,
  runPipeline,
  withMath,
} from './optimizers/index.js';
export { formatDiagnostic, scfVersion } from './common/index.js';
export { registerScfResolver } from './runtime/resolver.js';
export type { Specialized, Stub } from './optimizers/index.js';
export type {
  DescribeTables,
  EntrySubject,
  LanguagePass,
  ObjectLanguage,
  Refused,
  RuntimeLanguage,
  StageManifest,
} from './runtime/index.js';
export { checkManifest } from './runtime/stub.js';
export {
  type CompiledKernel,
  compileKernelJs,
  emitKernelJs,
  emitKernelWgsl,
  GpuRuntime,
  type KernelBackend,
  type KernelResult,
  type NoAdapter,
  programOf,
  type TierOptions,
  TieredKernel,
  TieredKernels,
  tieredKernels,
} from './target/index.js';
export { formatDiagnostic as formatScfDiagnostic } from './scf-lang/index.js';
export { InputNotAdmitted } from './stager/index.js';
export {
  ConfigError,
  configPasses,
  type EntryConfig,
  type EntryLanguage,
  entryLanguage,
  explainStages,
  importStub,
  type KernelLanguage,
  kernelLanguage,
  loadConfig,
  type LoadedEntry,
  type LoadedStub,
  loadEntry,
  loadEntryConfig,
  parseConfig,
  type StageConfig,
  type StagedConfig,
  stageConfig,
  stageManifest,
  stageEntry,
  stagePipeline,
  type StagePipelineOptions,
  chooseStaging,
  type Staging,
  stageWhole,
  stageReport,
  type WriteOptions,
  type WrittenFiles,
  writeStaged,
} from './pipeline/index.js';
export {
  type BackendReport,
  type KernelConfigOptions,
  type KernelConfigReport,
  runKernelConfigBench,
} from './bench/kernel-config.js';
