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
import {
  article,
  firstTooDeep,
  MAX_TREE_DEPTH,
  listFromArray,
  listToArray,
  programWith,
  repeatedLabels,
  type ValidationProblem,
  validateFun,
  withFns,
} from '../kernel/index.js';
import { clip, sourceFile } from '../common/index.js';
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
import { isPassPath, loadUserPass, PassError } from './user.js';

export {
  DEFAULT_PASS_FUEL,
  isPassPath,
  loadUserPass,
  PassError,
  userPassProgram,
} from './user.js';
export { builtinSources, OptimizerError, optimizerProgram, optimizerSources } from './programs.js';

export type { LatticeVal } from './lattice.js';

/** A value bound to a formal: a scalar (booleans for bool formals) or an array's contents. */
export type BindValue = number | boolean | readonly (number | boolean)[];
export type Bindings = Readonly<Record<string, BindValue>>;

/** What a pass gets besides the function: the lattice values of its formals (in order). */
export interface PassContext {
  readonly formals: readonly LatticeVal[];
}

export interface Pass {
  readonly name: string;
  readonly description: string;
  /** Absolute path of the pass's SCF-lang source (what the stager specializes). */
  readonly file: string;
  /** Core name of its entry function (`const-prop.optimize`). */
  readonly entry: string;
  /** Whether the entry takes the formals' lattice values after the function (const-prop does). */
  readonly takesFormals: boolean;
  /** A pass shipped with scf, or a user's (compiled from its Core by the code emitter). */
  readonly builtin: boolean;
  readonly run: (f: Fun, ctx: PassContext) => Fun;
}

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

/** Bad bindings (unknown formal, array for a scalar, non-integer for an int, …). */
export class BindError extends Error {
  override readonly name = 'BindError';
}

const INT_MIN = -2147483648;
const INT_MAX = 2147483647;

/**
 * The most elements a value bound to an array formal may have (2^24). Checked before anything is
 * allocated for it: each element becomes a cons cell of the formal's lattice value, and the
 * passes walk the list, so a longer array would exhaust memory rather than fail with a message
 * (`const a = []; a.length = 2 ** 32 - 1` is a valid, empty JavaScript array of that length).
 */
export const MAX_LATE_ARRAY = 2 ** 24;

/**
 * The lattice values of `f`'s formals given `binds`: bound ones are constants, others nonConst.
 * Throws `BindError` when `binds` is not an object, names no formal, or binds a value the formal
 * cannot take: an array for a scalar, a scalar for an array, an array longer than
 * `MAX_LATE_ARRAY` or with a missing element (a hole of a sparse array), a number out of range.
 * Linear in the bound arrays' lengths.
 */
export function formalsFromBindings(f: Fun, binds: Bindings): LatticeVal[] {
  const params = listToArray(f.params);
  if (typeof binds !== 'object' || binds === null || Array.isArray(binds)) {
    throw new BindError(
      `specialize expects an object of the late-stage values of the formals of '${f.name}' (${params.map((p) => p.name).join(', ')}), got ${describeJs(binds)}`,
    );
  }
  for (const name of Object.keys(binds)) {
    if (!params.some((p) => p.name === name))
      throw new BindError(`'${f.name}' has no parameter '${clip(name)}'`);
  }
  return params.map((p): LatticeVal => {
    const v = Object.hasOwn(binds, p.name) ? binds[p.name] : undefined;
    if (v === undefined) return { kind: 'nonConst' };
    if (p.isArray) {
      if (!Array.isArray(v))
        throw new BindError(`parameter '${p.name}' is an array of ${p.ty}; bind it to [..]`);
      const xs = v as readonly (number | boolean)[];
      if (xs.length > MAX_LATE_ARRAY) {
        throw new BindError(
          `'${p.name}' has ${xs.length} elements; an array bound to a formal may have at most ${MAX_LATE_ARRAY} (MAX_LATE_ARRAY)`,
        );
      }
      const elems: number[] = [];
      for (let i = 0; i < xs.length; i++) {
        if (!Object.hasOwn(xs, i))
          throw new BindError(`element ${i} of '${p.name}' is missing (a sparse array)`);
        elems.push(scalar(xs[i] as number | boolean, p.ty, `${p.name}[${i}]`));
      }
      return { kind: 'constArray', ty: p.ty, elems: listFromArray(elems) };
    }
    if (Array.isArray(v)) throw new BindError(`parameter '${p.name}' is a scalar ${p.ty}, not an array`);
    return { kind: 'const', value: scalar(v as number | boolean, p.ty, p.name), ty: p.ty };
  });
}

/** A short description of a JavaScript value that is not the object of bindings expected. */
function describeJs(x: unknown): string {
  if (x === null || x === undefined) return String(x);
  if (Array.isArray(x)) return 'an array';
  if (typeof x === 'string') return `the string ${JSON.stringify(x.length > 40 ? `${x.slice(0, 40)}…` : x)}`;
  if (typeof x === 'number' || typeof x === 'boolean' || typeof x === 'bigint')
    return `the ${typeof x} ${String(x)}`;
  return `a ${typeof x}`;
}

/** A bound value converted to the formal's type, exactly as the reference evaluator converts arguments. */
function scalar(x: number | boolean, ty: string, what: string): number {
  if (typeof x === 'boolean') {
    if (ty !== 'bool') throw new BindError(`'${what}' is ${article(ty)}, not a boolean`);
    return x ? 1 : 0;
  }
  if (typeof x !== 'number') throw new BindError(`'${what}' must be bound to a number`);
  switch (ty) {
    case 'int':
      if (!Number.isInteger(x) || x < INT_MIN || x > INT_MAX) {
        throw new BindError(`'${what}' is an int (a 32-bit integer); cannot bind ${x}`);
      }
      return x;
    case 'float':
      return Math.fround(x);
    case 'bool':
      return x !== 0 ? 1 : 0;
    default:
      throw new BindError(`'${what}' has unsupported type '${ty}'`);
  }
}

export interface PipelineResult {
  /** The program with the function replaced by its optimized version, and its clones added (`programWith`). */
  readonly program: Program;
  /** The optimized function, the program's other functions and the clones in its `fns`. */
  readonly fun: Fun;
}

/** Whose output `runPipeline` and the stubs validate after each pass: users' passes, or all. */
export type PassChecks = 'user' | 'all';

export interface PipelineOptions {
  /** `user` (default): the output of each user's pass is validated; `all`: every pass's (`--check`). */
  readonly check?: PassChecks;
  /** Where label `lbl` of the input is in its source (`FILE:LINE:COL`), for messages. */
  readonly at?: (lbl: number) => string | undefined;
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
  for (const pass of passes) {
    fun = pass.run(fun, ctx);
    if (checksPass(pass, opts.check)) checkPassOutput(pass, fun, program, opts.at);
  }
  return { program: programWith(program, fun), fun };
}

/** Whether `pass`'s output is validated under `check` (users' passes always). */
export function checksPass(pass: { readonly builtin: boolean }, check: PassChecks = 'user'): boolean {
  return check === 'all' || !pass.builtin;
}

/** Problems a `PassOutputError` message lists before `… and N more`. */
const PROBLEMS_SHOWN = 3;

/**
 * A pass returned a function that breaks an invariant of the kernel AST (docs/kernel-ast.md):
 * the pass's error, not scf's — the CLI reports it with exit status 1, naming the pass, the
 * function and each broken invariant at its node (its label, and its place in the source when the
 * node came from there).
 */
export class PassOutputError extends Error {
  override readonly name = 'PassOutputError';
  constructor(
    readonly pass: string,
    readonly fun: string,
    readonly problems: readonly ValidationProblem[],
    at?: (lbl: number) => string | undefined,
  ) {
    const shown = problems.slice(0, PROBLEMS_SHOWN).map((p) => {
      const where = p.lbl === undefined || at === undefined ? undefined : at(p.lbl);
      // with the source's places known, a label without one is a node the pass made
      const made = at === undefined ? '' : ', a node the pass made';
      const node = p.lbl === undefined ? '' : ` (at label ${p.lbl}${where ? `, ${where}` : made})`;
      return `  ${p.rule}: ${p.message}${node}`;
    });
    const more = problems.length > PROBLEMS_SHOWN ? [`  … and ${problems.length - PROBLEMS_SHOWN} more`] : [];
    super(
      [
        `pass '${clip(pass)}' returned a function '${clip(fun)}' that breaks the kernel AST's invariants (docs/kernel-ast.md):`,
        ...shown,
        ...more,
      ].join('\n'),
    );
  }
}

/**
 * Throws `PassOutputError` when `f`, the output of `pass`, breaks an invariant of the kernel AST
 * (`validateFun`; `program` has its callees, when known).
 */
export function checkPassOutput(
  pass: { readonly name: string; readonly description?: string },
  f: Fun,
  program: Program | undefined,
  at?: (lbl: number) => string | undefined,
): void {
  // first without recursion and once per object: a labelled node at two places (a DAG, whose tree
  // may be exponentially big) and a result nested deeper than the tools walk would hang or
  // overflow the validator, the next pass or a back end
  const shared = firstSharedNode(f);
  if (shared !== undefined) {
    const message = `a node (label ${shared}) stands at two places: a function is a tree, each labelled node in one place (copy it with fresh labels: relabelCmd, relabelExpr)`;
    throw new PassOutputError(pass.name, f.name, [{ rule: 'label', lbl: shared, message }], at);
  }
  const deep = firstTooDeep(f, MAX_TREE_DEPTH);
  if (deep !== undefined) {
    const message = `the function nests more than ${MAX_TREE_DEPTH} levels deep (MAX_TREE_DEPTH: what later passes and the back ends can walk)`;
    throw new PassOutputError(pass.name, f.name, [{ rule: 'shape', lbl: deep.lbl, message }], at);
  }
  const problems = validateFun(f, program, { seqs: 'skip-free' });
  if (problems.length > 0) throw new PassOutputError(pass.name, f.name, problems, at);
}

/**
 * The label of a labelled node (an object with a numeric `lbl`) reached twice in `root`, walked
 * with a stack and each object entered once, so the cost is linear in the distinct objects even
 * when the tree they spell is exponentially big; undefined when there is none.
 */
export function firstSharedNode(root: unknown): number | undefined {
  const seen = new WeakSet<object>();
  const stack: unknown[] = [root];
  for (let x = stack.pop(); x !== undefined; x = stack.pop()) {
    if (typeof x !== 'object' || x === null) continue;
    if (seen.has(x)) {
      const lbl = (x as { lbl?: unknown }).lbl;
      if (typeof lbl === 'number') return lbl;
      continue;
    }
    seen.add(x);
    for (const y of Object.values(x)) if (typeof y === 'object' && y !== null) stack.push(y);
  }
  return undefined;
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
