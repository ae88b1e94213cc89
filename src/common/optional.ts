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

/** The command that installs `pkg` in the version range package.json's peerDependencies give it. */
function installCommand(pkg: OptionalPackage): string {
  let range: unknown;
  try {
    range = (requireHere('../../package.json') as { peerDependencies?: Record<string, unknown> })
      .peerDependencies?.[pkg];
  } catch {
    range = undefined; // a bundle without the package.json: the name alone
  }
  // a name alone may install a release outside the range (oxc-parser's are 0.x), which npm refuses
  return `npm install ${typeof range === 'string' ? `${pkg}@${range}` : pkg}`;
}

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
    const why = notFound(e, pkg)
      ? 'is not installed'
      : `could not be loaded (${(e instanceof Error ? e.message : String(e)).split('\n')[0]})`;
    throw new MissingPackage(pkg, why, installCommand(pkg));
  }
  loaded.set(pkg, m);
  return m as T;
}
