/**
 * runtime.ts in a page (package.json's "browser" map puts this file in its place): the same
 * exports from the same modules, which a page's bundler maps to their browser and page twins and
 * tree-shakes. Node gets runtime.ts bundled into one module (scripts/bundle-runtime.ts); a page's
 * bundler bundles this one itself.
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
