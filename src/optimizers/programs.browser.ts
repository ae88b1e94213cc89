/**
 * programs.ts in a browser bundle (package.json's "browser" map puts this file in its place): a
 * page has neither the SCF-lang sources nor the front end, so a built-in pass's Core program is
 * the one compiled at build time (precompiled.ts). A user's pass has no such program: asking for
 * it is an `OptimizerError`.
 */
import { sourceFile } from '../common/index.js';
import type { CoreProgram } from '../scf-lang/index.js';
import type { LanguagePass } from '../runtime/index.js';
import { precompiledProgram, precompiledSources } from './precompiled.js';

/** What compiling a pass reads of it, in any object language: its name, source and origin. */
type PassFile = Pick<LanguagePass<unknown, unknown>, 'name' | 'file' | 'builtin'>;

/** An optimizer's source does not compile (it is outside SCF-lang), or cannot be read here. */
export class OptimizerError extends Error {
  override readonly name = 'OptimizerError';
}

/** The built-in pass's sources in the generated data; a user's pass is refused. */
function builtinFiles(pass: PassFile): readonly string[] {
  const files = pass.builtin ? precompiledSources(pass.name) : undefined;
  if (files === undefined)
    throw new OptimizerError(
      `${pass.name}: a user's optimizer is compiled from its source files, which a browser cannot read`,
    );
  return files;
}

/** The Core program of a built-in pass, as compiled at build time. */
export function optimizerProgram(pass: PassFile): CoreProgram {
  builtinFiles(pass);
  return precompiledProgram(pass.name) as CoreProgram;
}

/** The sources a built-in pass was compiled from, relative to src/, its own module first. */
export function builtinSources(pass: PassFile): string[] {
  return [...builtinFiles(pass)];
}

/** The sources a built-in pass was compiled from, as `sourceFile` names them here. */
export function optimizerSources(pass: PassFile): string[] {
  return builtinFiles(pass).map(sourceFile).sort();
}
