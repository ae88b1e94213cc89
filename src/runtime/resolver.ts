/**
 * Makes `scf`, `scf/prelude`, `scf/runtime` and `scf/kernel` resolve to this installation in the
 * running process, from any importing file (resolve-hook.mjs). The `scf` command and the
 * benchmarks call it before they load staged modules or a user's optimizer, which may live
 * anywhere; an app that installed scf needs nothing of this (node finds `scf` in node_modules).
 */
import { register } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { moduleUrl, SOURCE_ROOT } from '../common/index.js';
import { PUBLIC_ENTRIES } from './entries.js';

export { PUBLIC_ENTRIES } from './entries.js';

let registered = false;

/**
 * Whether this process registered the hook: then modules must be imported, not required (a
 * `require` of an ES module does not run `module.register` hooks, runtime/files.ts).
 */
export function scfResolverRegistered(): boolean {
  return registered;
}

/** Registers the resolution hook once per process. */
export function registerScfResolver(): void {
  if (registered) return;
  registered = true;
  const entries = Object.fromEntries(Object.entries(PUBLIC_ENTRIES).map(([k, stem]) => [k, moduleUrl(stem)]));
  register(pathToFileURL(path.join(SOURCE_ROOT, 'runtime/resolve-hook.mjs')).href, { data: { entries } });
}
