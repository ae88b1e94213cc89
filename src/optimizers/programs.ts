/**
 * The registry's other half: a pass's Core program, what the stager specializes. A pass's SCF-lang
 * source is compiled once per process (a user's optimizer was compiled when it was loaded,
 * user.ts); its source files are what a staged stub's manifest hashes.
 *
 * The installed package stages with the built-in passes' Core programs compiled at build time
 * (precompiled.ts), which are those its shipped sources compile to (`npm run build` refuses stale
 * ones), so that staging with the built-in passes needs no oxc-parser; run from the TypeScript
 * sources, scf compiles them, so that an edit of a built-in pass counts at once.
 */
import path from 'node:path';
import { FROM_SOURCES, readSourceFile, SOURCE_ROOT } from '../common/index.js';
import { formatDiagnostic, type CoreProgram } from '../scf-lang/index.js';
import { compileFile } from './compile.js';
import type { LanguagePass } from '../runtime/index.js';
import { precompiledProgram, precompiledSources } from './precompiled.js';

/** What compiling a pass reads of it, in any object language: its name, source and origin. */
type PassFile = Pick<LanguagePass<unknown, unknown>, 'name' | 'file' | 'builtin'>;

/** An optimizer's source does not compile (it is outside SCF-lang). */
export class OptimizerError extends Error {
  override readonly name = 'OptimizerError';
}

/**
 * A pass's Core program and the files it was compiled from, named relative to `SOURCE_ROOT` for a
 * built-in pass and to the working directory for a user's.
 */
interface Compiled {
  readonly program: CoreProgram;
  readonly files: readonly string[];
}

const compiled = new Map<string, Compiled>();

function compilePass(pass: PassFile): Compiled {
  let c = compiled.get(pass.file);
  if (!c) {
    c = (pass.builtin && !FROM_SOURCES && precompiled(pass)) || compileSource(pass);
    compiled.set(pass.file, c);
  }
  return c;
}

/**
 * A built-in pass as compiled at build time, with the texts of its shipped sources (what the
 * interpreter positions a run-time error in), so that it is the program compiling them gives.
 */
function precompiled(pass: PassFile): Compiled | undefined {
  const program = precompiledProgram(pass.name);
  const rels = precompiledSources(pass.name);
  if (program === undefined || rels === undefined) return undefined;
  const files = rels.map((f) => path.normalize(f));
  const sources = new Map(files.map((f) => [f, readSourceFile(path.join(SOURCE_ROOT, f))]));
  return { program: { ...program, sources }, files };
}

function compileSource(pass: PassFile): Compiled {
  // built-in sources are named relative to the package's src/ (as the manifest records them)
  const r = compileFile(pass.file, pass.builtin ? { cwd: SOURCE_ROOT } : {});
  if (!r.program) {
    throw new OptimizerError(
      `${pass.name}: the optimizer is not valid SCF-lang\n${r.diagnostics.map((d) => formatDiagnostic(d, r.sources)).join('\n')}`,
    );
  }
  return { program: r.program, files: [...r.sources.keys()] };
}

/** The Core program of a pass, compiled once; an `OptimizerError` lists its diagnostics. */
export function optimizerProgram(pass: PassFile): CoreProgram {
  return compilePass(pass).program;
}

/**
 * Every source file a built-in pass is compiled from, by path relative to scf's `src/` with `/`:
 * its own module first, then those it imports, sorted (a manifest's `files`, which memory.ts
 * fills with the hashes recorded at build time).
 */
export function builtinSources(pass: PassFile): string[] {
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
export function optimizerSources(pass: PassFile): string[] {
  const cwd = pass.builtin ? SOURCE_ROOT : process.cwd();
  return compilePass(pass)
    .files.map((f) => path.resolve(cwd, f))
    .sort();
}
