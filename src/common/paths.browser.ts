/**
 * paths.ts in a browser bundle (package.json's "browser" map puts this file in its place): a page
 * has no installation folder, so the folders are empty (a lookup of a file under them finds
 * nothing; the stub then checks its manifest against build-info.generated.ts instead), and the
 * version comes from build-info.generated.ts, as in node.
 */
import { SCF_VERSION } from './build-info.generated.js';

export const FROM_SOURCES = false;
export const PACKAGE_ROOT = '';
export const SOURCE_ROOT = '';
export const MODULE_ROOT = '';

export function scfVersion(): string {
  return SCF_VERSION;
}

/** A shipped source file by its path under src/: a name only, there is no file to read. */
export function sourceFile(rel: string): string {
  return `src/${rel}`;
}

/** No module of a browser bundle has a file URL. */
export function moduleUrl(stem: string): string {
  throw new Error(`scf: the module '${stem}' has no file URL in a browser bundle`);
}
