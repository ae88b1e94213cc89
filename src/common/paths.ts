/**
 * Where this installation of scf lives, so every part finds the same files whether it runs from
 * the TypeScript sources (a checkout, under tsx or vitest) or from the compiled package (`dist/`,
 * under plain node). The package ships, of `src/`, the SCF-lang sources of the built-in
 * optimizers and the kernel modules they import (package.json's "files"): the stager reads them
 * from there, and a staged stub hashes them to notice that it is stale.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SCF_VERSION } from './build-info.generated.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));

/** Whether this module runs from the TypeScript sources (not from `dist/`). */
export const FROM_SOURCES = import.meta.url.endsWith('.ts');

/** The package's root folder (the one holding package.json). */
export const PACKAGE_ROOT = path.resolve(HERE, '../..');

/** The TypeScript sources (shipped with the package). */
export const SOURCE_ROOT = path.join(PACKAGE_ROOT, 'src');

/** Folder of the running modules: `src/` from the sources, `dist/` from the package. */
export const MODULE_ROOT = path.resolve(HERE, '..');

/**
 * The package's version (package.json's, recorded at build time in build-info.generated.ts, so a
 * bundle that carries no package.json knows it too).
 */
export function scfVersion(): string {
  return SCF_VERSION;
}

/** A shipped source file by its path under src/ (`optimizers/dae.ts`). */
export function sourceFile(rel: string): string {
  return path.join(SOURCE_ROOT, rel);
}

/** The running module of a public entry (`runtime`, `kernel/public`) as a file URL. */
export function moduleUrl(stem: string): string {
  return new URL(`file://${path.join(MODULE_ROOT, `${stem}${FROM_SOURCES ? '.ts' : '.js'}`)}`).href;
}
