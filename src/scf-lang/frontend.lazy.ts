/**
 * frontend.ts as the bundled runtime has it under node (scripts/bundle-runtime.ts puts this module
 * in its place in `dist/runtime.js`): `compileFile` requires the front end (declarations,
 * elaboration, their checks) on its first call, so an app that loads `scf/runtime` loads none of
 * it until a user's optimizer is compiled. From the sources frontend.ts is imported as it is.
 */
import { createRequire } from 'node:module';

export type { CompileOptions, CompileResult } from './frontend.js';

type Frontend = typeof import('./frontend.js');

let frontend: Frontend | undefined;

/** Compiles an optimizer's module (frontend.ts's `compileFile`, required on the first call). */
export const compileFile: Frontend['compileFile'] = (entry, options) => {
  frontend ??= createRequire(import.meta.url)('./frontend.js') as Frontend;
  return frontend.compileFile(entry, options);
};
