/**
 * programs.ts in a browser bundle (package.json's "browser" map puts this file in its place): a
 * page has neither the SCF-lang sources nor the front end, so a built-in pass's Core program is
 * the one compiled at build time (`npm run gen:build-info` writes programs.generated.ts from the
 * sources; a test keeps it fresh), decoded on first use (scf-lang/core-data.ts). A user's pass
 * has no such program: asking for it is an `OptimizerError`.
 */
import { sourceFile } from '../common/index.js';
import { type CoreProgram, decodeProgram } from '../scf-lang/index.js';
import type { Pass } from './index.js';
import { CORE_PROGRAMS, PASS_SOURCES } from './programs.generated.js';

/** An optimizer's source does not compile (it is outside SCF-lang), or cannot be read here. */
export class OptimizerError extends Error {
  override readonly name = 'OptimizerError';
}

const decoded = new Map<string, CoreProgram>();

/** The built-in pass's name in the generated data; a user's pass is refused. */
function builtinName(pass: Pass): string {
  if (!pass.builtin || PASS_SOURCES[pass.name] === undefined)
    throw new OptimizerError(
      `${pass.name}: a user's optimizer is compiled from its source files, which a browser cannot read`,
    );
  return pass.name;
}

/** The Core program of a built-in pass, as compiled at build time. */
export function optimizerProgram(pass: Pass): CoreProgram {
  const name = builtinName(pass);
  let p = decoded.get(name);
  if (p === undefined) {
    p = decodeProgram(CORE_PROGRAMS, name);
    decoded.set(name, p);
  }
  return p;
}

/** The sources a built-in pass was compiled from, relative to src/, its own module first. */
export function builtinSources(pass: Pass): string[] {
  return [...(PASS_SOURCES[builtinName(pass)] as readonly string[])];
}

/** The sources a built-in pass was compiled from, as `sourceFile` names them here. */
export function optimizerSources(pass: Pass): string[] {
  return (PASS_SOURCES[builtinName(pass)] as readonly string[]).map(sourceFile).sort();
}
