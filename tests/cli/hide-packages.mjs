/**
 * Makes packages look uninstalled, for tests of scf without its optional dependencies:
 * `SCF_HIDE_PACKAGES=vega,vega-lite node --import ./tests/cli/hide-packages.mjs bin/scf.js …`.
 * Importing this module registers it as a module resolution hook (on node's loader thread, where
 * it is loaded a second time, as `?hooks`, and registers nothing); the hook fails every import of a
 * hidden package (or a path inside it) as node does for a package that is not installed. It also
 * wraps `require`'s resolution (which node 20's hooks do not see, and by which common/optional.ts
 * loads scf's optional packages), failing a hidden package as `require` does. The scf command's
 * thread (src/cli/thread.ts) imports it again, so the same holds there.
 */
import Module, { register } from 'node:module';

const hidden = (process.env.SCF_HIDE_PACKAGES ?? '').split(',').filter((p) => p !== '');
const isHidden = (specifier) => hidden.some((p) => specifier === p || specifier.startsWith(`${p}/`));

if (!import.meta.url.endsWith('?hooks')) {
  register(`${import.meta.url}?hooks`);
  const resolveFilename = Module._resolveFilename;
  Module._resolveFilename = function (request, ...rest) {
    if (isHidden(request)) {
      const e = new Error(`Cannot find module '${request}'`);
      e.code = 'MODULE_NOT_FOUND';
      throw e;
    }
    return resolveFilename.call(this, request, ...rest);
  };
}

export async function resolve(specifier, context, nextResolve) {
  if (isHidden(specifier)) {
    const e = new Error(`Cannot find package '${specifier}' imported from ${context.parentURL}`);
    e.code = 'ERR_MODULE_NOT_FOUND';
    throw e;
  }
  return nextResolve(specifier, context);
}
