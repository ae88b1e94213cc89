/**
 * The runtime, over any object language: the prelude functions the emitted optimizers call, the
 * helpers their admission checks and hoisted constants use (scf-lang/staged-helpers.ts), the
 * object-language interface (language.ts), and the stubs a staged folder builds its exports from,
 * generic over the language — a pipeline's (`loadStagedModules`, `makePipelineStub`: stub.ts) and
 * an entry config's (`loadEntryStubWith`: entry-stub.ts, with the entry's language,
 * entry-language.ts). It imports nothing of the kernel: `scf/runtime` (src/runtime.ts) is this
 * plus the kernel's and the entry's bindings (src/optimizers/kernel-stub.ts, entry-stub.ts), and
 * staged folders import nothing else, so they can be moved anywhere an app has `scf` installed.
 */
export * from '../scf-lang/prelude.js';
export {
  ACTUAL_MAX,
  badProjection,
  ctorFields,
  IS_MAP,
  IS_SET,
  InputNotAdmitted,
  isCtor,
  isMap,
  isPrimValue,
  isSet,
  isTuple,
  mapOf,
  notAdmitted,
  projField,
  projIndex,
  StagedRuntimeError,
  setOf,
  shortValue,
  tupleWith,
} from '../scf-lang/index.js';
export { ENTRY_RUNTIME, type EntrySubject } from './entry-language.js';
export {
  type EntryFunctions,
  type EntryManifest,
  type EntryModule,
  type EntryStub,
  loadEntryStubWith,
} from './entry-stub.js';
export type {
  DescribeTables,
  LanguagePass,
  LanguagePassContext,
  ObjectLanguage,
  OutputOf,
  Refused,
  RuntimeLanguage,
} from './language.js';
export { DEFAULT_PASS_FUEL, PassError, passFuel } from './pass-error.js';
export { registerScfResolver } from './resolver.js';
export {
  checkManifest,
  type DeferredStages,
  deepFreeze,
  FallbackNotLoaded,
  type LoadedStages,
  loadStagedModules,
  type ManifestFile,
  type ManifestPass,
  makePipelineStub,
  NOT_LOADED,
  type PassSource,
  type PipelineStub,
  type PipelineStubParts,
  type StagedModule,
  type StagedOutput,
  type StageManifest,
  stageHashLine,
  sha256,
} from './stub.js';
