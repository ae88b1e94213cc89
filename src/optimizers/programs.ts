/**
 * The registry's other half: a pass's Core program, what the stager specializes. A pass's SCF-lang
 * source is compiled once per process (a user's optimizer was compiled when it was loaded,
 * user.ts); its source files are what a staged stub's manifest hashes.
 */
import path from 'node:path';
import { SOURCE_ROOT } from '../common/index.js';
import { compileFile, formatDiagnostic, type CoreProgram } from '../scf-lang/index.js';
import type { Pass } from './index.js';

/** An optimizer's source does not compile (it is outside SCF-lang). */
export class OptimizerError extends Error {
  override readonly name = 'OptimizerError';
}

const compiled = new Map<string, { program: CoreProgram; sources: ReadonlyMap<string, string> }>();

function compilePass(pass: Pass): { program: CoreProgram; sources: ReadonlyMap<string, string> } {
  let c = compiled.get(pass.file);
  if (!c) {
    // built-in sources are named relative to the package's src/ (as the manifest records them)
    const r = compileFile(pass.file, pass.builtin ? { cwd: SOURCE_ROOT } : {});
    if (!r.program) {
      throw new OptimizerError(
        `${pass.name}: the optimizer is not valid SCF-lang\n${r.diagnostics.map((d) => formatDiagnostic(d, r.sources)).join('\n')}`,
      );
    }
    c = { program: r.program, sources: r.sources };
    compiled.set(pass.file, c);
  }
  return c;
}

/** The Core program of a pass, compiled once; an `OptimizerError` lists its diagnostics. */
export function optimizerProgram(pass: Pass): CoreProgram {
  return compilePass(pass).program;
}

/**
 * Every source file a built-in pass is compiled from, by path relative to scf's `src/` with `/`:
 * its own module first, then those it imports, sorted (a manifest's `files`, which memory.ts
 * fills with the hashes recorded at build time).
 */
export function builtinSources(pass: Pass): string[] {
  if (!pass.builtin) throw new OptimizerError(`${pass.name}: not a built-in pass`);
  const rel = (f: string) => path.relative(SOURCE_ROOT, f).split(path.sep).join('/');
  const own = rel(pass.file);
  return [
    own,
    ...optimizerSources(pass)
      .map(rel)
      .filter((f) => f !== own),
  ];
}

/**
 * Every source file a pass is compiled from (its module and the modules it imports), as absolute
 * paths: what a staged stub's manifest hashes.
 */
export function optimizerSources(pass: Pass): string[] {
  const cwd = pass.builtin ? SOURCE_ROOT : process.cwd();
  return [...compilePass(pass).sources.keys()].map((f) => path.resolve(cwd, f)).sort();
}
