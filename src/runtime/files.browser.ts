/**
 * files.ts in a browser bundle (package.json's "browser" map puts this file in its place): a page
 * reads no file, so no source or staged module is ever found; the stub then checks its manifest
 * against the hashes recorded at build time (build-info.generated.ts) and each staged module by
 * its own `STAGE_HASH`.
 */

import type { ManifestFile, SourceNow } from './files.js';

export type { ManifestFile, SourceNow } from './files.js';

/** Refuses: a page hashes no text (the stub compares recorded hashes only). */
export function sha256(_text: string): string {
  throw new Error('scf: sha256 is not part of the browser runtime (a page reads no file to hash)');
}

/** A page's stub has no folder. */
export function stubFolder(_url: string): string | undefined {
  return undefined;
}

/** No source file is found in a page. */
export function sourcePath(
  _builtin: boolean,
  _f: ManifestFile,
  _stubDir: string | undefined,
): string | undefined {
  return undefined;
}

/** Where a user's pass's source was looked for, for a message. */
export function sourcePlaces(f: ManifestFile, _stubDir: string | undefined): string {
  return `not in a browser (no file system; it was at ${f.staged ?? f.path})`;
}

/** No source file is found in a page. */
export function sourceHash(_builtin: boolean, _f: ManifestFile, _stubDir: string | undefined): SourceNow {
  return undefined;
}

/** No staged module is read in a page (each is checked by its `STAGE_HASH`). */
export function readStaged(
  _dir: string | undefined,
  _rel: string,
): string | undefined | { readonly bad: string } {
  return undefined;
}

/** No staged module is there to stat in a page. */
export function stagedPresent(_dir: string | undefined, _rel: string): boolean {
  return false;
}

/** A page imports its staged modules with the stub (bundled, each checked by its `STAGE_HASH`). */
export function stagedLoader(_url: string): ((rel: string) => unknown) | undefined {
  return undefined;
}
