/**
 * resolver.ts in a browser bundle (package.json's "browser" map puts this file in its place): a
 * page's bundler resolves `scf/…` itself, so there is no hook to register.
 */
export { PUBLIC_ENTRIES } from './entries.js';

/** Refuses: a module-resolution hook is node's. */
export function registerScfResolver(): void {
  throw new Error(
    "scf: registerScfResolver is node's (a module-resolution hook); a bundler resolves scf/… in a page",
  );
}

/** A page registers no hook. */
export function scfResolverRegistered(): boolean {
  return false;
}
