/**
 * The unstaged fallback of a kernel stub: the built-in passes, run natively when late values fall
 * outside the staged description or the stub is stale (runtime/stub.ts's `unstagedPipeline`,
 * through kernel-stub.ts's `KERNEL_PASSES`). Running from the sources they are imported
 * statically and always there; the installed package's node runtime has fallback.lazy.ts in this
 * module's place, which requires them on first use; in a page, fallback.browser.ts (package.json's
 * "browser" map) puts a dynamic import in their place, so a bundle splits them into a chunk of
 * their own that a page downloads only when it first needs them (`loadFallback`).
 */
import type { Pass } from './index.js';
import { findPassEntry } from './fallback-passes.js';

/** The built-in pass a manifest names by its name and entry, if any (`findPassEntry`). */
export type PassFinder = (name: string, entry: string) => Pass | undefined;

/** The built-in passes, when loaded: under node, always. */
export function fallbackPasses(): PassFinder | undefined {
  return findPassEntry;
}

/** Loads the built-in passes (here they are loaded already). */
export function loadFallback(): Promise<PassFinder> {
  return Promise.resolve(findPassEntry);
}
