// Module resolution hook (node:module register): the package's public entries (`scf`,
// `scf/prelude`, `scf/runtime`, `scf/kernel`) resolve to the running installation wherever the
// importing file lives — staged output written to any folder, a user's optimizer in their app —
// so what the `scf` command loads is always one copy of the package. Registered by
// src/runtime/resolver.ts with the map of entries as `data`.
let entries = {};

export function initialize(data) {
  entries = data?.entries ?? {};
}

export async function resolve(specifier, context, next) {
  const url = Object.hasOwn(entries, specifier) ? entries[specifier] : undefined;
  if (url !== undefined) return { url, shortCircuit: true };
  return next(specifier, context);
}
