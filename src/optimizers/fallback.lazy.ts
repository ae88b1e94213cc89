/**
 * fallback.ts as the bundled runtime has it under node (scripts/bundle-runtime.ts puts this module
 * in its place in `dist/runtime.js`): the built-in passes are loaded by the first call that needs
 * them, synchronously (`require` of an ES module), so a stub's import loads none of their native
 * code and a synchronous `specialize` outside the staged description still runs the unstaged
 * pipeline at once. Where node cannot `require` an ES module (`process.features.require_module`
 * false: node 22 before 22.12 without its flag), or where an app's bundler bundled this module
 * (and saw no `require`), they load as in a page: `loadFallback` imports them, and until then
 * `fallbackPasses` is undefined (`FallbackNotLoaded`, runtime/stub.ts). From
 * the sources (tsx, vitest) fallback.ts imports them statically: `require` there would load a
 * second copy of the modules the test runner or tsx already holds.
 */
import { createRequire } from 'node:module';
import type { PassFinder } from './fallback.js';

export type { PassFinder } from './fallback.js';

let loaded: PassFinder | undefined;

/** Whether the passes' module is there to require (not when an app's bundler bundled this one). */
let requirable = true;

/** Whether this node can load an ES module synchronously. */
const canRequire = (process.features as { readonly require_module?: boolean }).require_module === true;

/** The built-in passes, loaded by the first call (where node can require them). */
export function fallbackPasses(): PassFinder | undefined {
  if (loaded !== undefined || !canRequire || !requirable) return loaded;
  try {
    loaded = (createRequire(import.meta.url)('./fallback-passes.js') as { findPassEntry: PassFinder })
      .findPassEntry;
  } catch {
    // an app's bundler bundled this module: the passes are its chunk, which `loadFallback` imports
    requirable = false;
  }
  return loaded;
}

/** Loads the built-in passes. */
export async function loadFallback(): Promise<PassFinder> {
  loaded ??= fallbackPasses() ?? (await import('./fallback-passes.js')).findPassEntry;
  return loaded;
}
