/**
 * fallback.ts in a browser bundle (package.json's "browser" map puts this file in its place): the
 * built-in passes are a dynamic import, which a bundler splitting chunks (esbuild's
 * `splitting: true`) makes a chunk of its own, so a page that never runs the unstaged pipeline
 * never downloads their native code. `loadFallback` imports them once (a failed load may be
 * tried again); until it has resolved `fallbackPasses` is undefined, and a stub's synchronous
 * `specialize` that needs them throws `FallbackNotLoaded` (runtime/stub.ts).
 */
import type { PassFinder } from './fallback.js';

export type { PassFinder } from './fallback.js';

let loaded: PassFinder | undefined;
let loading: Promise<PassFinder> | undefined;

/** The built-in passes, once `loadFallback` has loaded them. */
export function fallbackPasses(): PassFinder | undefined {
  return loaded;
}

/** Imports the built-in passes (once; again after a failed load). */
export function loadFallback(): Promise<PassFinder> {
  loading ??= import('./fallback-passes.js').then(
    (m) => {
      loaded = m.findPassEntry;
      return loaded;
    },
    (e: unknown) => {
      loading = undefined;
      throw e;
    },
  );
  return loading;
}
