/**
 * frontend.ts in a browser bundle (package.json's "browser" map puts this file in its place): the
 * SCF-lang front end parses optimizer sources with oxc-parser's native binding and follows their
 * imports on disk, neither of which a page has; a page stages with the built-in passes' Core
 * programs compiled at build time (optimizers/programs.browser.ts) and runs staged output, neither
 * of which needs the front end. Compiling is an error saying so.
 */
import type { CompileOptions, CompileResult } from './frontend.js';

export type { CompileOptions, CompileResult } from './frontend.js';

/** Refuses (see the header). */
export function compileFile(entry: string, _options: CompileOptions = {}): CompileResult {
  throw new Error(
    `scf: ${entry}: the SCF-lang front end (compiling an optimizer's source) runs under node, not in a browser`,
  );
}
