/**
 * programs.ts in a browser bundle (package.json's "browser" map puts this file in its place): a
 * pass's Core program is compiled from its SCF-lang source, which a page cannot read, so asking
 * for one is an `OptimizerError` (staging happens at build time, under node).
 */
import type { CoreProgram } from '../scf-lang/index.js';
import type { Pass } from './index.js';

/** An optimizer's source does not compile (it is outside SCF-lang), or cannot be read here. */
export class OptimizerError extends Error {
  override readonly name = 'OptimizerError';
}

const refuse = (pass: Pass): never => {
  throw new OptimizerError(
    `${pass.name}: its Core program is compiled from source files, which a browser cannot read`,
  );
};

/** Refuses (see the header). */
export function optimizerProgram(pass: Pass): CoreProgram {
  return refuse(pass);
}

/** Refuses (see the header). */
export function optimizerSources(pass: Pass): string[] {
  return refuse(pass);
}
