/**
 * What `scf eval` and `scf opt` share: reading a kernel file, picking its function, and
 * reading a pass list. Problems with the input are `UsageError`s (exit status 2); parse
 * diagnostics are printed here and reported as `null`.
 */
import { statSync } from 'node:fs';
import {
  type Fun,
  kernelPlace,
  withFns,
  listToArray,
  type ParseResult,
  parseKernel,
  type Program,
  treeDepthDiagnostic,
} from '../kernel/index.js';
import {
  defaultPipeline,
  isPassPath,
  type Pass,
  PassError,
  resolvePass,
  withMath,
} from '../optimizers/index.js';
import { clip, formatDiagnostic, readFailure, readSourceFile } from '../common/index.js';
import { type CliIo, UsageError } from './io.js';

/** Bad input to a command (exit status 2); defined in io.ts, which every command loads. */
export { UsageError };

export interface KernelInput {
  readonly file: string;
  readonly program: Program;
  readonly fnName: string;
  readonly fun: Fun;
  readonly spans: ParseResult['spans'];
  /** The file's text (diagnostics and runtime errors compute line and column from it). */
  readonly source: string;
}

/** Reads and parses `file` and finds function `fnName` (default: the file's only function). */
export async function loadKernelFunction(
  file: string,
  fnName: string | undefined,
  io: CliIo,
): Promise<KernelInput | null> {
  let source: string;
  try {
    source = readSourceFile(file);
  } catch (e) {
    throw new UsageError(`cannot read '${clip(file)}': ${readFailure(e)}`);
  }
  const parsed = await parseKernel(source, file);
  if (parsed.diagnostics.length > 0) {
    for (const d of parsed.diagnostics) io.err(formatDiagnostic(d, parsed.sources, false));
    return null;
  }
  const program = parsed.program;
  let name = fnName;
  if (name === undefined) {
    const funs = listToArray(program);
    if (funs.length !== 1)
      throw new UsageError(`${file} defines ${funs.length} functions; choose one with --function`);
    name = (funs[0] as Fun).name;
  }
  const fun = withFns(program, name);
  if (!fun) throw new UsageError(`${file} has no function '${clip(name)}'`);
  return { file, program, fnName: name, fun, spans: parsed.spans, source };
}

/**
 * Whether `fun` of `input` (its function, or the optimized one; default the input's) is too long
 * or too deeply nested for the recursive tools that are to `what` it (the optimizers: `optimize`;
 * the back ends: `compile`); if so its positioned diagnostic has been printed (exit status 2).
 */
export function tooDeepTo(what: string, input: KernelInput, io: CliIo, fun: Fun = input.fun): boolean {
  const d = treeDepthDiagnostic(fun, input.spans, input.file, what);
  if (d !== undefined) io.err(formatDiagnostic(d, new Map([[input.file, input.source]]), false));
  return d !== undefined;
}

/** `--check` of `scf opt`, `scf eval` and `scf kernel`: every pass's output validated. */
export const CHECK_FLAG = {
  type: 'boolean',
  help: `validate the output of every pass, the built-in ones too, against the kernel AST's
invariants (docs/kernel-ast.md); a pass of your own is always validated, and one that
breaks an invariant fails with exit status 1, naming the pass and the node`,
} as const;

/** Where label `lbl` of `input`'s function is in its C source (`FILE:LINE:COL`), if it came from there. */
export function sourcePlace(input: KernelInput): (lbl: number) => string | undefined {
  return (lbl) => {
    const span = input.spans.get(lbl);
    return span ? kernelPlace(span, input.source) : undefined;
  };
}

/** `--math exact|finite` of `scf opt` and `scf kernel` (`parsePasses` reads it). */
export const MATH_FLAG = {
  type: 'string',
  value: 'exact|finite',
  help: `finite: constant propagation folds x*0 => 0 and x+0 => x for floats, as if no operand were
NaN or infinite and the sign of a zero did not matter (C's -ffinite-math-only -fno-signed-zeros;
NaN and infinities in the inputs are then yours not to pass), and folds expf, powf and the other
math functions on known arguments to the evaluator's value; default exact`,
} as const;

/**
 * A comma-separated pass list (default: the default pipeline): built-in pass names, or paths of
 * a user's SCF-lang optimizers (relative to the working directory). A pass that cannot be loaded
 * (unknown name, no such file, not valid SCF-lang: its diagnostics with FILE:LINE:COL) is bad input.
 */
export function parsePasses(text: string | undefined, math?: string): readonly Pass[] {
  if (math !== undefined && math !== 'exact' && math !== 'finite')
    throw new UsageError(`--math must be exact or finite, not '${clip(math)}'`);
  if (text === undefined) return withMath(defaultPipeline, math ?? 'exact');
  const passes = text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
    .map((n) => {
      // (resolvePass calls a folder 'no such file')
      if (isPassPath(n) && isDirectory(n))
        throw new UsageError(`cannot read pass '${clip(n)}': is a directory`);
      try {
        return resolvePass(n);
      } catch (e) {
        if (e instanceof PassError) throw new UsageError(e.message);
        throw e;
      }
    });
  return withMath(passes, math ?? 'exact');
}

function isDirectory(file: string): boolean {
  try {
    return statSync(file).isDirectory();
  } catch {
    return false;
  }
}
