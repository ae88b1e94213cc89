/**
 * optional.ts in a browser bundle (package.json's "browser" map puts this file in its place): a
 * page has no node module loader, and what needs the optional packages (compiling an SCF-lang
 * source, drawing members of descriptions) runs under node, so asking for one is a
 * `MissingPackage` saying so.
 */
import { MissingPackage, type OptionalPackage } from './optional-errors.js';

export { MissingPackage, OPTIONAL_PACKAGES, type OptionalPackage } from './optional-errors.js';

/** Refuses (see the header). */
export function optionalPackage<T>(pkg: OptionalPackage): T {
  throw new MissingPackage(pkg, 'a page cannot load', 'run it under node');
}
