/**
 * The built-in passes' Core programs as compiled at build time (`npm run gen:build-info` writes
 * programs.generated.ts from their sources; a test keeps it fresh, and `npm run build` refuses a
 * stale one), decoded on first use (scf-lang/core-data.ts): what the installed package stages
 * with, so that staging with the built-in passes needs no SCF-lang front end (programs.ts), and
 * all a page has (programs.browser.ts).
 */
import { type CoreProgram, decodeProgram } from '../scf-lang/index.js';
import { CORE_PROGRAMS, PASS_SOURCES } from './programs.generated.js';

const decoded = new Map<string, CoreProgram>();

/** The built-in pass `name`'s Core program; undefined for a name that is not one. */
export function precompiledProgram(name: string): CoreProgram | undefined {
  if (PASS_SOURCES[name] === undefined) return undefined;
  let p = decoded.get(name);
  if (p === undefined) {
    p = decodeProgram(CORE_PROGRAMS, name);
    decoded.set(name, p);
  }
  return p;
}

/** The sources the built-in pass `name` was compiled from, relative to src/, its own module first. */
export function precompiledSources(name: string): readonly string[] | undefined {
  return PASS_SOURCES[name];
}
