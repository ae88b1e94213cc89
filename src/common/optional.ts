/**
 * The packages scf runs without until a feature needs them (package.json's optional peer
 * dependencies, named with what needs them in optional-errors.ts), each loaded by the first call
 * that needs it and never before: `oxc-parser` (the SCF-lang front end's parser) and `fast-check`
 * (random members of descriptions).
 *
 * They are loaded with `require`, not `import()`: the calls that need them are synchronous
 * (`compileFile`, `resolvePass`, a stub's `specialize`, `arbMember`), and node (>= 20.19) requires
 * an ES module such as oxc-parser as it imports one. A package that is not installed is a
 * `MissingPackage`: one line naming what needed it and the command that installs it, which the
 * CLI prints as it is (cli/io.ts's `reportError`).
 */
import { createRequire } from 'node:module';
import { MissingPackage, type OptionalPackage } from './optional-errors.js';

export { MissingPackage, OPTIONAL_PACKAGES, type OptionalPackage } from './optional-errors.js';

const requireHere = createRequire(import.meta.url);
const loaded = new Map<OptionalPackage, unknown>();

/** Whether `e` says that `pkg` itself (not a module inside it) was not found. */
function notFound(e: unknown, pkg: string): boolean {
  return (
    e instanceof Error &&
    'code' in e &&
    (e.code === 'MODULE_NOT_FOUND' || e.code === 'ERR_MODULE_NOT_FOUND') &&
    e.message.includes(`'${pkg}'`)
  );
}

/** The optional package `pkg`, loaded by the first call; a `MissingPackage` when it cannot be. */
export function optionalPackage<T>(pkg: OptionalPackage): T {
  if (loaded.has(pkg)) return loaded.get(pkg) as T;
  let m: unknown;
  try {
    m = requireHere(pkg);
  } catch (e) {
    if (notFound(e, pkg)) throw new MissingPackage(pkg);
    throw new MissingPackage(
      pkg,
      `could not be loaded (${(e instanceof Error ? e.message : String(e)).split('\n')[0]})`,
    );
  }
  loaded.set(pkg, m);
  return m as T;
}
