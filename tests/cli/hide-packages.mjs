/**
 * Makes packages look uninstalled, for tests of scf without its optional dependencies:
 * `SCF_HIDE_PACKAGES=vega,vega-lite node --import ./tests/cli/hide-packages.mjs bin/scf.js …`.
 * Importing this module registers it as a module resolution hook (on node's loader thread, where
 * it is loaded a second time and registers nothing); the hook fails every import of a hidden
 * package (or a path inside it) as node does for a package that is not installed.
 */
import { register } from 'node:module';
import { isMainThread } from 'node:worker_threads';

if (isMainThread) register(import.meta.url);

const hidden = (process.env.SCF_HIDE_PACKAGES ?? '').split(',').filter((p) => p !== '');

export async function resolve(specifier, context, nextResolve) {
  if (hidden.some((p) => specifier === p || specifier.startsWith(`${p}/`))) {
    const e = new Error(`Cannot find package '${specifier}' imported from ${context.parentURL}`);
    e.code = 'ERR_MODULE_NOT_FOUND';
    throw e;
  }
  return nextResolve(specifier, context);
}
