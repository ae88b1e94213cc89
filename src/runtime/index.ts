/**
 * `scf/runtime`: everything staged output imports at run time — the prelude functions the emitted
 * optimizers call, the helpers their admission checks and hoisted constants use (stager/staged-helpers.ts),
 * and `loadStagedModules` and `makeStub`, from which a staged stub builds `specialize` (stub.ts). Staged folders import
 * nothing else, so they can be moved anywhere an app has `scf` installed.
 */
export type { Fun } from '../kernel/index.js';
export type { Bindings, BindValue, LatticeVal } from '../optimizers/index.js';
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
} from '../stager/staged-helpers.js';
export { type EntryManifest, type EntryStub, loadEntryStub } from './entry-stub.js';
export { registerScfResolver } from './resolver.js';
export {
  checkManifest,
  FallbackNotLoaded,
  kernelHash,
  type LoadedStages,
  loadStagedModules,
  type ManifestFile,
  type ManifestPass,
  makeStub,
  type Specialized,
  type StageManifest,
  type StagedModule,
  stageHashLine,
  type Stub,
  type StubParts,
  sha256,
} from './stub.js';
