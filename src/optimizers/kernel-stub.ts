/**
 * The kernel as an object language at run time (runtime/language.ts's `RuntimeLanguage`): what a
 * kernel stub (`NAME.stub.mjs`, which imports `makeStub` from `scf/runtime`) needs of the kernel,
 * bound to the runtime's generic pipeline stub (runtime/stub.ts's `makePipelineStub`):
 * - the subject is the kernel function (`Fun`), hashed as its JSON (`kernelHash`, the manifest's
 *   `kernel`) and deep-frozen;
 * - the late values are bindings of its formals by name (`Bindings`), which become the formals'
 *   lattice values (`formalsFromBindings`, pass-io.ts) and, for the staged code, their `List`;
 * - a user's pass's output (every pass's, staged or not) is validated against the kernel AST's
 *   invariants (`checkPassOutput`: a `PassOutputError` naming the pass);
 * - a refusal names the formal, its value and its early description: the admission check reports a
 *   path into the pipeline's input, `$[1].tail.tail.head.value` (the formals' list, the third
 *   formal, its value), which is mapped to the function's parameters;
 * - the unstaged pipeline's passes are the built-in ones (fallback.ts: under node there when a call
 *   needs them, fallback.lazy.ts requiring them; in a page a chunk loaded on demand) and users'
 *   (user.ts, compiled from their source).
 * Nothing here imports index.ts, which loads the built-in passes' native code up front: a page
 * loads this module with every staged stub.
 */
import { clip } from '../common/index.js';
import { type Fun, listFromArray, listToArray } from '../kernel/index.js';
import {
  type DeferredStages,
  deepFreeze,
  type LoadedStages,
  makePipelineStub,
  NOT_LOADED,
  type PassSource,
  type Refused,
  type RuntimeLanguage,
  type StageManifest,
  sha256,
} from '../runtime/index.js';
import { fallbackPasses, loadFallback } from './fallback.js';
import type { LatticeVal } from './lattice.js';
import { type Bindings, checkPassOutput, checksPass, formalsFromBindings } from './pass-io.js';
import { loadUserPass } from './user.js';

/** The SHA-256 a manifest records for a kernel function. */
export function kernelHash(fun: Fun): string {
  return sha256(JSON.stringify(fun));
}

/** Elements of a late array a message shows before `…`. */
const ELEMENTS_SHOWN = 8;

/** A late value as a message shows it: an array's first elements and its length when long. */
function showLate(v: unknown): string {
  if (!Array.isArray(v)) return clip(String(v), 40);
  const head = v.slice(0, ELEMENTS_SHOWN).map((x) => clip(String(x), 20));
  return v.length <= ELEMENTS_SHOWN
    ? `[${head.join(', ')}]`
    : `[${head.join(', ')}, …] (${v.length} elements)`;
}

/**
 * Why the late values were not admitted, in the user's terms: the formal, its value and the early
 * description its config gave (`formal 'a' = 5 is outside its early description 3|1`), the element
 * of an array formal where one differed. A path that leads elsewhere than the formals keeps the
 * check's own words.
 */
function kernelRefusal(
  e: Refused,
  fun: Fun,
  bind: Readonly<Record<string, string>>,
  values: Readonly<Record<string, unknown>>,
): string {
  const m = /^\$\[1\]((?:\.tail)*)\.head(.*)$/s.exec(e.path);
  const p = m ? listToArray(fun.params)[(m[1] as string).length / 5] : undefined;
  if (!m || p === undefined) return e.message;
  const name = p.name;
  const desc = clip((bind[name] ?? e.expected).replace(/\s+/g, ' '), 120);
  const v = Object.hasOwn(values, name) ? values[name] : undefined;
  if (v === undefined) return `formal '${clip(name)}' is not given, and was staged as known early: ${desc}`;
  if (!Object.hasOwn(bind, name)) {
    const bound = Object.keys(bind).map((n) => `'${clip(n)}'`);
    return `formal '${clip(name)}' = ${showLate(v)} was not bound early (the config binds ${bound.join(', ') || 'no formal'}), so the staged pipeline takes it as unknown; bind it in the config to stage for it, or leave it out of the values`;
  }
  const el = /^\.elems((?:\.tail)*)(\.head)?/s.exec(m[2] as string);
  const where =
    !el || (el[1] === '' && el[2] === undefined)
      ? ''
      : el[2] !== undefined
        ? ` (its element ${(el[1] as string).length / 5})`
        : ' (its length)';
  return `formal '${clip(name)}' = ${showLate(v)} is outside its early description ${desc}${where}`;
}

/** The kernel's run-time hooks (see the header). */
export const KERNEL_RUNTIME: RuntimeLanguage<Fun, Bindings, LatticeVal> = {
  name: 'kernel',
  hash: kernelHash,
  freeze: (value, seen) => deepFreeze(value, seen),
  formals: formalsFromBindings,
  toCore: (formals) => listFromArray([...formals]),
  checkOutput(by, output) {
    if (checksPass(by)) checkPassOutput(by, output as Fun, undefined);
  },
  refusal: kernelRefusal,
};

/** The unstaged pipeline's passes over the kernel: the built-in ones (fallback.ts) and users'. */
export const KERNEL_PASSES: PassSource<Fun, LatticeVal> = {
  builtin(name, entry) {
    const find = fallbackPasses();
    return find === undefined ? NOT_LOADED : find(name, entry);
  },
  user: (file) => loadUserPass(file),
  async load() {
    await loadFallback();
  },
  loaded: () => fallbackPasses() !== undefined,
};

/** What `specialize` returns. */
export interface Specialized {
  readonly fun: Fun;
  /** false when the unstaged pipeline ran (input not admitted, or the stub is stale). */
  readonly staged: boolean;
}

export interface StubParts {
  readonly manifest: StageManifest;
  readonly fun: Fun;
  /**
   * The staged modules (`loadStagedModules`): the first one's admission check, whose arguments
   * before `from` are not checked (the kernel, once admitted: `makeStub` freezes it), and the
   * staged optimizers in pipeline order; or `DeferredStages`, loaded by the first call.
   */
  readonly staged: LoadedStages | DeferredStages;
  /** `import.meta.url` of the stub. */
  readonly url: string;
}

export interface Stub {
  /** The lattice values of the formals for these late-stage values (as the unstaged pipeline computes them). */
  formalsOf(values: Bindings): LatticeVal[];
  /** The staged pipeline; throws `InputNotAdmitted` for inputs outside the early description. */
  stagedPipeline(formals: readonly LatticeVal[]): Fun;
  /** The unstaged pipeline (the current optimizers) on the same function. */
  unstagedPipeline(formals: readonly LatticeVal[]): Fun;
  /** Why the staged code may not run (it was staged from other sources), or undefined. */
  staleness(): string | undefined;
  /**
   * Optimizes the function for the late-stage values of its staged formals. Throws
   * `FallbackNotLoaded` when these values need the unstaged pipeline and its built-in passes are
   * not loaded yet (only in a page: `loadFallback`, `specializeAsync`).
   */
  specialize(values: Bindings, warn?: (message: string) => void): Specialized;
  /** `specialize`, first loading the unstaged pipeline's built-in passes when the values need them. */
  specializeAsync(values: Bindings, warn?: (message: string) => void): Promise<Specialized>;
  /**
   * Loads the built-in passes the unstaged pipeline runs (under node they are there when a call
   * needs them; a page, or an app's own bundle, imports their chunk once), after which
   * `specialize` never throws `FallbackNotLoaded`.
   */
  loadFallback(): Promise<void>;
}

/** The stub of a staged kernel pipeline: the runtime's pipeline stub over the kernel. */
export function makeStub(parts: StubParts): Stub {
  const stub = makePipelineStub(KERNEL_RUNTIME, KERNEL_PASSES, {
    manifest: parts.manifest,
    subject: parts.fun,
    staged: parts.staged,
    url: parts.url,
  });
  return {
    formalsOf: stub.formalsOf,
    stagedPipeline: stub.stagedPipeline,
    unstagedPipeline: stub.unstagedPipeline,
    staleness: stub.staleness,
    specialize(values, warn) {
      const r = stub.specialize(values, warn);
      return { fun: r.output, staged: r.staged };
    },
    async specializeAsync(values, warn) {
      const r = await stub.specializeAsync(values, warn);
      return { fun: r.output, staged: r.staged };
    },
    loadFallback: stub.loadFallback,
  };
}
