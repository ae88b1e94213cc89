/**
 * user.ts as the bundled runtime has it under node (scripts/bundle-runtime.ts puts this module in
 * its place in `dist/runtime.js`): the same functions, each requiring user.ts (the SCF-lang front
 * end, the emitter) on its first call, so a stub's import loads none of what compiles a user's
 * pass; only a stub whose unstaged pipeline runs a user's pass, or an entry stub's fallback, loads
 * it. Where node cannot `require` an ES module (fallback.lazy.ts), or user.ts is not there (an
 * app's bundler bundled this module and saw no `require`), a user's pass is a `PassError` saying
 * so; `passFuel` is the runtime's and needs none of it. From the sources user.ts is imported as
 * it is.
 */
import { createRequire } from 'node:module';
import { PassError } from '../runtime/index.js';

export { DEFAULT_PASS_FUEL, PassError, passFuel } from '../runtime/index.js';

type User = typeof import('./user.js');

let user: User | undefined;

/** user.ts, required once. */
function load(): User {
  if (user !== undefined) return user;
  if ((process.features as { readonly require_module?: boolean }).require_module !== true)
    throw new PassError(
      "a user's pass needs node to require an ES module (node ≥ 20.19, or 22.12; --experimental-require-module on 22 before it)",
    );
  try {
    user = createRequire(import.meta.url)('./user.js') as User;
  } catch (e) {
    // an app's bundler bundled scf/runtime and left user.ts out (it sees no require)
    throw new PassError(
      `this copy of scf/runtime cannot load what compiles a user's optimizer (${e instanceof Error ? e.message.split('\n')[0] : String(e)}): run it from the installed package, not from an app's bundle`,
    );
  }
  return user;
}

/** Whether a pipeline entry names a file (user.ts's `isPassPath`). */
export const isPassPath: User['isPassPath'] = (spec) => load().isPassPath(spec);
/** The Core program of a user's pass (user.ts's `userPassProgram`). */
export const userPassProgram: User['userPassProgram'] = (pass) => load().userPassProgram(pass);
/** A user's optimizer as a pass (user.ts's `loadUserPass`). */
export const loadUserPass: User['loadUserPass'] = (file, base) => load().loadUserPass(file, base);
/** A function of a user's module (user.ts's `loadUserFunction`). */
export const loadUserFunction: User['loadUserFunction'] = (file, exportName, shown) =>
  load().loadUserFunction(file, exportName, shown);
