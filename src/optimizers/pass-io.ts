/**
 * What goes into a pass and what comes out of one, apart from the passes themselves (which
 * index.ts registers): the late-stage values bound to a function's formals made into the formals'
 * lattice values (`formalsFromBindings`, `BindError`), the check of a pass's output against the
 * kernel AST's invariants (`checkPassOutput`, `PassOutputError`), and the signature a pass has
 * (`KERNEL_CONTRACT`). A staged stub needs these and
 * not the built-in passes' native code, which a page loads only when it runs the unstaged pipeline
 * (src/runtime/fallback.browser.ts), so they live apart from index.ts, which re-exports them.
 */
import type { Fun, Program } from '../kernel/index.js';
import {
  article,
  firstTooDeep,
  isBoundedTree,
  maxTreeDepth,
  listFromArray,
  listToArray,
  type ScalarMismatch,
  scalarArg,
  type ValidationProblem,
  validateBoundedTree,
  validateFun,
} from '../kernel/index.js';
import { clip } from '../common/index.js';
import type { PassContract } from '../scf-lang/index.js';
import type { LatticeVal } from './lattice.js';

/**
 * The kernel's pass contract (scf-lang/contract.ts, SCF3017): a pass is `optimize(f: Fun): Fun`,
 * or `optimize(f: Fun, formals: List<LatticeVal>): Fun` — `Fun` the kernel AST's function (its
 * one kind `fun`), `LatticeVal` the formals' constant lattice (lattice.ts).
 */
export const KERNEL_CONTRACT: PassContract = {
  subject: { name: 'Fun', kinds: ['fun'] },
  formal: { name: 'LatticeVal', kinds: ['const', 'constArray', 'nonConst'] },
};

/** A value bound to a formal: a scalar (booleans for bool formals) or an array's contents. */
export type BindValue = number | boolean | readonly (number | boolean)[];
export type Bindings = Readonly<Record<string, BindValue>>;

/** Bad bindings (unknown formal, array for a scalar, non-integer for an int, …). */
export class BindError extends Error {
  override readonly name = 'BindError';
}

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
  const v = scalarArg(x, ty);
  if (typeof v === 'number') return v;
  const why: Record<ScalarMismatch, string> = {
    boolean: `'${what}' is ${article(ty)}, not a boolean`,
    'not a number': `'${what}' must be bound to a number`,
    'not an int32': `'${what}' is an int (a 32-bit integer); cannot bind ${x}`,
    'unsupported type': `'${what}' has unsupported type '${ty}'`,
  };
  throw new BindError(why[v]);
}

/** Whose output `runPipeline` and the stubs validate after each pass: users' passes, or all. */
export type PassChecks = 'user' | 'all';

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
 *
 * It runs on every run of a pipeline with a user's pass, so the common case is fast: one bounded
 * walk (`isBoundedTree`) tells that `f` is a tree within the depth limit whose labels are distinct,
 * and the remaining rules follow (`validateBoundedTree`). Where that walk refuses `f`, the checks
 * below find and name the problem.
 */
export function checkPassOutput(
  pass: { readonly name: string; readonly description?: string },
  f: Fun,
  program: Program | undefined,
  at?: (lbl: number) => string | undefined,
): void {
  if (isBoundedTree(f, maxTreeDepth())) {
    const problems = validateBoundedTree(f, program, { seqs: 'skip-free' });
    if (problems.length > 0) throw new PassOutputError(pass.name, f.name, problems, at);
    return;
  }
  // first without recursion and once per object: a labelled node at two places (a DAG, whose tree
  // may be exponentially big) and a result nested deeper than the tools walk would hang or
  // overflow the validator, the next pass or a back end
  const shared = firstSharedNode(f);
  if (shared !== undefined) {
    const message = `a node (label ${shared}) stands at two places: a function is a tree, each labelled node in one place (copy it with fresh labels: relabelCmd, relabelExpr)`;
    throw new PassOutputError(pass.name, f.name, [{ rule: 'label', lbl: shared, message }], at);
  }
  const deep = firstTooDeep(f, maxTreeDepth());
  if (deep !== undefined) {
    const message = `the function nests more than ${maxTreeDepth()} levels deep (maxTreeDepth(): what later passes and the back ends can walk)`;
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
