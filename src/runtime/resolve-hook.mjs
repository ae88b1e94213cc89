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
  // the mapped URL goes on down the chain, so a TypeScript loader before this hook (tsx, when scf
  // runs from its sources) still sees, and loads, the file
  return next(url ?? specifier, context);
}
