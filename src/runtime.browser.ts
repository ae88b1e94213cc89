/**
 * runtime.ts in a browser bundle (package.json's "browser" map puts this file in its place): the
 * same exports from the same modules, which a page's bundler maps to their browser twins. The
 * build bundles it (scripts/bundle-runtime.ts) into `dist/runtime.browser.js`, the runtime a page
 * loads, as it bundles runtime.ts into `dist/runtime.js` for node.
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
