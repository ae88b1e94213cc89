/**
 * `scf/runtime`: everything staged output imports at run time — the runtime (runtime/index.ts:
 * the prelude functions the emitted code calls, the admission helpers, the generic stubs and the
 * object-language interface) and the stubs bound to their languages, which a staged folder's stub
 * calls: `makeStub` over the kernel (optimizers/kernel-stub.ts) and `loadEntryStub` over an entry
 * config's types (optimizers/entry-stub.ts). Staged folders import nothing else, so they can be
 * moved anywhere an app has `scf` installed. The modules named here, not optimizers/index.ts,
 * which would load the built-in passes' native code into every page (a page loads them on
 * demand, optimizers/fallback.browser.ts).
 */
export type { Fun } from './kernel/index.js';
export type { LatticeVal } from './optimizers/lattice.js';
export type { Bindings, BindValue } from './optimizers/pass-io.js';
export { loadEntryStub } from './optimizers/entry-stub.js';
export {
  KERNEL_PASSES,
  KERNEL_RUNTIME,
  kernelHash,
  makeStub,
  type Specialized,
  type Stub,
  type StubParts,
} from './optimizers/kernel-stub.js';
export * from './runtime/index.js';
