/**
 * The pass registry and pipeline runner (ordinary TypeScript, not SCF-lang): one record per pass,
 * shared by the unstaged pipeline, the CLI and the staged pipeline (src/pipeline), which gets a
 * pass's Core program here too (programs.ts).
 *
 * A pass is a record `{ name, description, file, entry, takesFormals, builtin, run }`: `file` is
 * its SCF-lang source (what the stager partially evaluates), `entry` the Core name of its
 * `optimize`, `takesFormals` whether `optimize` also takes the formals' lattice values, and `run`
 * the pass itself. The built-in optimizers (const-prop.ts, copy-prop.ts, dae.ts, fusion.ts) run
 * natively; a user's optimizer, named by a path (`./passes/strength.ts`), is checked against the
 * subset and compiled to JavaScript by the stager's code emitter (user.ts), and runs with fuel and
 * a stack bound, its failures a `PassError` naming it. The pass name doubles as the `--passes`
 * value of `scf opt`. `runPipeline` runs a list of passes over one function of a program; the
 * bindings (constants for scalar formals, constant arrays for array formals) become the formals'
 * lattice values given to constant propagation, as in SCF §2.2.1 (`formalsFromBindings`, which
 * throws `BindError` for bindings a formal cannot take, arrays past `MAX_LATE_ARRAY` included).
 *
 * The output of every user's pass — of every pass with `check: 'all'` (`--check`) — is validated
 * (src/kernel/validate.ts: the invariants ast.ts states); a broken one is a `PassOutputError`
 * naming the pass, the user's error.
 */
import type { Cmd, Fun, Program } from '../kernel/index.js';
import { listFromArray, listToArray, programWith, repeatedLabels, withFns } from '../kernel/index.js';
import { clip, sourceFile } from '../common/index.js';
import type { LanguagePass, LanguagePassContext } from '../runtime/index.js';
import {
  optimize as constPropOptimize,
  optimizeFinite as constPropFinite,
  UNROLL_BUDGET,
  UNROLL_LIMIT,
} from './const-prop.js';
import { optimize as copyPropOptimize } from './copy-prop.js';
import { optimize as daeOptimize } from './dae.js';
import { optimize as fusionOptimize } from './fusion.js';
import type { LatticeVal } from './lattice.js';
import {
  BindError,
  type Bindings,
  checkPassOutput,
  checksPass,
  formalsFromBindings,
  type PassChecks,
} from './pass-io.js';
import { isPassPath, loadUserPass, PassError } from './user.js';

export {
  DEFAULT_PASS_FUEL,
  isPassPath,
  loadUserFunction,
  loadUserPass,
  PassError,
  userPassProgram,
} from './user.js';
export { compileFile } from './compile.js';
export { loadEntryStub } from './entry-stub.js';
export {
  KERNEL_PASSES,
  KERNEL_RUNTIME,
  kernelHash,
  makeStub,
  type Specialized,
  type Stub,
  type StubParts,
} from './kernel-stub.js';
export { builtinSources, OptimizerError, optimizerProgram, optimizerSources } from './programs.js';

export type { LatticeVal } from './lattice.js';
export {
  BindError,
  type Bindings,
  type BindValue,
  checkPassOutput,
  checksPass,
  firstSharedNode,
  formalsFromBindings,
  KERNEL_CONTRACT,
  MAX_LATE_ARRAY,
  type PassChecks,
  PassOutputError,
} from './pass-io.js';

/** What a pass gets besides the function: the lattice values of its formals (in order). */
export type PassContext = LanguagePassContext<LatticeVal>;

/**
 * A pass over the kernel (runtime/language.ts's `LanguagePass` with the kernel's function as the
 * subject and the lattice values as formals): `file` its SCF-lang source, `entry` the Core name of
 * its `optimize` (`const-prop.optimize`), `takesFormals` whether it also takes the formals'
 * lattice values, `builtin` whether scf ships it, `run` the pass itself.
 */
export type Pass = LanguagePass<Fun, LatticeVal>;

const builtin = (name: string, takesFormals: boolean) => ({
  name,
  file: sourceFile(`optimizers/${name}.ts`),
  entry: `${name}.optimize`,
  takesFormals,
  builtin: true,
});

export const constProp: Pass = {
  ...builtin('const-prop', true),
  description:
    'constant propagation and folding (C semantics), algebraic identities, known branches, complete unrolling of loops with a known trip count (at most 64)',
  run: (f, ctx) => constPropOptimize(f, listFromArray([...ctx.formals])),
};

/**
 * Constant propagation under finite math (`"math": "finite"`, `--math finite`): what `withMath`
 * puts in place of `constProp`. Same name (it is the same pass, for the user), its own entry.
 */
export const constPropFiniteMath: Pass = {
  ...constProp,
  entry: 'const-prop.optimizeFinite',
  description: `${constProp.description}; under finite math also x*0 => 0 and x+0 => x for floats`,
  run: (f, ctx) => constPropFinite(f, listFromArray([...ctx.formals])),
};

/** How float arithmetic may be folded: exactly (IEEE, the default) or as if operands were finite. */
export type MathMode = 'exact' | 'finite';

/**
 * `passes` for `math`: under 'finite', constant propagation folds the float identities IEEE
 * forbids in general (like C's -ffinite-math-only -fno-signed-zeros): `x * 0` => 0, `x + 0` => x.
 * NaN and infinities among the inputs are the user's promise not to pass: with them the finite
 * kernel may give 0 where the exact one gives NaN.
 */
export function withMath(passes: readonly Pass[], math: MathMode): Pass[] {
  return passes.map((p) => (math === 'finite' && p === constProp ? constPropFiniteMath : p));
}

/** The built-in pass with this name and entry (a manifest's), if any. */
export function findPassEntry(name: string, entry: string): Pass | undefined {
  return [...allPasses, constPropFiniteMath].find((p) => p.name === name && p.entry === entry);
}

export const copyProp: Pass = {
  ...builtin('copy-prop', false),
  description: 'copy propagation: after x = y, uses of x become y while neither is reassigned',
  run: (f) => copyPropOptimize(f),
};

export const dae: Pass = {
  ...builtin('dae', false),
  description: 'dead-assignment elimination (SCF Fig. 3): removes assignments to scalars that are never read',
  run: (f) => daeOptimize(f),
};

export const fusion: Pass = {
  ...builtin('fusion', false),
  description:
    'loop fusion of combinators (L0 ch. 7): map-map, map-reduce/scan into redomap/scanomap, filter-filter, filter-reduce, iota into consumers, without duplicating work; horizontal fusion of independent maps or reductions over the same length',
  run: (f) => fusionOptimize(f),
};

/** The built-in passes. */
export const allPasses: readonly Pass[] = [constProp, copyProp, dae, fusion];
export const defaultPipeline: readonly Pass[] = [constProp, copyProp, dae];

/** The built-in pass called `name`, if any. */
export function findPass(name: string): Pass | undefined {
  return allPasses.find((p) => p.name === name);
}

/**
 * The pass a pipeline entry names: a built-in pass by name, or a user's optimizer by path
 * (relative to `baseDir`). Throws `PassError`.
 */
export function resolvePass(spec: string, baseDir: string = process.cwd()): Pass {
  const known = findPass(spec);
  if (known) return known;
  if (isPassPath(spec)) return loadUserPass(spec, baseDir);
  throw new PassError(
    `unknown pass '${clip(spec)}' (built-in: ${allPasses.map((p) => p.name).join(', ')}; or the path of your own optimizer, e.g. ./passes/mine.ts)`,
  );
}

export interface PipelineResult {
  /** The program with the function replaced by its optimized version, and its clones added (`programWith`). */
  readonly program: Program;
  /** The optimized function, the program's other functions and the clones in its `fns`. */
  readonly fun: Fun;
}

export interface PipelineOptions {
  /** `user` (default): the output of each user's pass is validated; `all`: every pass's (`--check`). */
  readonly check?: PassChecks;
  /** Where label `lbl` of the input is in its source (`FILE:LINE:COL`), for messages. */
  readonly at?: (lbl: number) => string | undefined;
  /** Called with each pass's index before it runs (a caller then knows which one threw). */
  readonly onPass?: (index: number) => void;
}

/**
 * Runs `passes` in order over function `fnName` of `program`, the program's other functions
 * attached (`withFns`), so constant propagation may specialize them. Each user's pass's output
 * (every pass's with `check: 'all'`) is validated (src/kernel/validate.ts): a broken one throws
 * `PassOutputError`. Throws BindError for bad bindings.
 */
export function runPipeline(
  program: Program,
  fnName: string,
  passes: readonly Pass[] = defaultPipeline,
  binds: Bindings = {},
  opts: PipelineOptions = {},
): PipelineResult {
  const original = withFns(program, fnName);
  if (!original) throw new BindError(`no function named '${clip(fnName)}'`);
  const ctx: PassContext = { formals: formalsFromBindings(original, binds) };
  let fun = original;
  for (const [i, pass] of passes.entries()) {
    opts.onPass?.(i);
    fun = pass.run(fun, ctx);
    if (checksPass(pass, opts.check)) checkPassOutput(pass, fun, program, opts.at);
  }
  return { program: programWith(program, fun), fun };
}

/** Names the first repeated label of `f`, or returns undefined when all labels are unique. */
export function validateLabels(f: Fun): string | undefined {
  const dup = repeatedLabels(f)[0];
  return dup === undefined ? undefined : `label ${dup} occurs twice`;
}

/**
 * What a specialization left generic: for each clone constant propagation made (a function of
 * `fun.fns` that `program`, the input, lacks) that still has loops, a note naming it, the
 * function it was cloned from and why a loop can stay (the late values do not fix its trip count,
 * or unrolling it would pass UNROLL_LIMIT iterations or the UNROLL_BUDGET). The kernel is correct
 * either way; the note says where it is less specialized than it might look.
 */
export function specializationNotes(fun: Fun, program: Program): string[] {
  const known = new Set(listToArray(program).map((g) => g.name));
  const notes: string[] = [];
  for (const g of listToArray(fun.fns)) {
    if (known.has(g.name)) continue;
    const loops = countLoops(g.body);
    if (loops === 0) continue;
    const origin = g.name.replace(/_\d+$/, '');
    notes.push(
      `${g.name}, the clone of ${origin} for the known values, keeps ${loops} loop${loops === 1 ? '' : 's'}: ` +
        `the values do not fix ${loops === 1 ? 'its' : 'their'} trip count, or unrolling would pass ${UNROLL_LIMIT} ` +
        `iterations or the unrolling budget (${UNROLL_BUDGET} nodes); the kernel is correct, only less specialized`,
    );
  }
  return notes;
}

/** The `while` commands of a command (an explicit stack: a body may be a long seq chain). */
function countLoops(root: Cmd): number {
  let n = 0;
  const stack: Cmd[] = [root];
  for (let c = stack.pop(); c !== undefined; c = stack.pop()) {
    if (c.kind === 'while') {
      n++;
      stack.push(c.body);
    } else if (c.kind === 'seq') stack.push(c.first, c.second);
    else if (c.kind === 'if') stack.push(c.thenCmd, c.elseCmd);
  }
  return n;
}
