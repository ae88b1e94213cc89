/**
 * frontend.ts in a browser bundle (package.json's "browser" map puts this file in its place): the
 * SCF-lang front end parses optimizer sources with oxc-parser's native binding and follows their
 * imports on disk, neither of which a page has; staging happens at build time under node, and a
 * page runs staged output, which needs no front end. Compiling is an error saying so.
 */
import type { CompileOptions, CompileResult } from './frontend.js';

export type { CompileOptions, CompileResult } from './frontend.js';

/** Refuses (see the header). */
export function compileFile(entry: string, _options: CompileOptions = {}): CompileResult {
  throw new Error(
    `scf: ${entry}: the SCF-lang front end (compiling an optimizer's source) runs under node, not in a browser`,
  );
}
