/**
 * Where this installation of scf lives, so every part finds the same files whether it runs from
 * the TypeScript sources (a checkout, under tsx or vitest) or from the compiled package (`dist/`,
 * under plain node). The package ships, of `src/`, the SCF-lang sources of the built-in
 * optimizers and the kernel modules they import (package.json's "files"): the stager reads them
 * from there, and a staged stub hashes them to notice that it is stale.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));

/** Whether this module runs from the TypeScript sources (not from `dist/`). */
export const FROM_SOURCES = import.meta.url.endsWith('.ts');

/** The package's root folder (the one holding package.json). */
export const PACKAGE_ROOT = path.resolve(HERE, '../..');

/** The TypeScript sources (shipped with the package). */
export const SOURCE_ROOT = path.join(PACKAGE_ROOT, 'src');

/** Folder of the running modules: `src/` from the sources, `dist/` from the package. */
export const MODULE_ROOT = path.resolve(HERE, '..');

let version: string | undefined;

/** The package's version (package.json). */
export function scfVersion(): string {
  if (version === undefined) {
    const pkg = JSON.parse(readFileSync(path.join(PACKAGE_ROOT, 'package.json'), 'utf8')) as {
      version: string;
    };
    version = pkg.version;
  }
  return version;
}

/** The running module of a public entry (`runtime/index`) as a file URL. */
export function moduleUrl(stem: string): string {
  return new URL(`file://${path.join(MODULE_ROOT, `${stem}${FROM_SOURCES ? '.ts' : '.js'}`)}`).href;
}
