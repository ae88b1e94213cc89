/**
 * The run-time side of a staged stub (SCF Fig. 5's interface): what `NAME.stub.mjs`, written by
 * `scf stage`, builds its exports from. A stub holds the kernel function, the staged modules of
 * its pipeline and a manifest of what it was staged from; `makeStub` turns them into
 * `specialize(values)`, which takes the late-stage values of the staged formals and returns the
 * optimized function.
 *
 * Invariants. `specialize` returns exactly what the unstaged pipeline returns on the same values:
 * - the staged path is taken only for admitted inputs (`admit` throws `InputNotAdmitted`
 *   otherwise), where staging is exact;
 * - and only while the stub is *current*: the manifest records the scf version and a SHA-256 of
 *   every optimizer source file the stages were specialized from; the first `specialize` checks
 *   them (built-in sources in this installation's `src/`, a user's relative to the stub's folder),
 *   and a stale stub warns once ("staged from an older …; re-stage") and runs the unstaged
 *   pipeline — the current optimizers — never the stale staged code;
 * - every other input goes through the unstaged passes themselves.
 * The kernel is the stub's own (`FUN`), deep-frozen here, so it is admitted once, on the first
 * staged run; every run admits the formals (on config 8 the kernel's check was a fifth of the
 * staged pipeline's time). With `SCF_PASS_DEBUG=1` set when the stub is made, every pass's output,
 * staged or not, is validated (src/kernel/validate.ts) and a broken one named.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Fun, listFromArray } from '../kernel/index.js';
import {
  assertValid,
  type Bindings,
  findPassEntry,
  formalsFromBindings,
  type LatticeVal,
  loadUserPass,
  type Pass,
} from '../optimizers/index.js';
import { InputNotAdmitted } from '../stager/runtime.js';
import { SOURCE_ROOT, scfVersion } from '../common/index.js';

/** One source file a pass was compiled from, and its SHA-256 when staged. */
export interface ManifestFile {
  /** Built-in: relative to scf's `src/` (`optimizers/dae.ts`); a user's: relative to the stub's folder. */
  readonly path: string;
  readonly sha256: string;
}

export interface ManifestPass {
  readonly name: string;
  readonly builtin: boolean;
  /** Core name of the entry, and whether it takes the formals. */
  readonly entry: string;
  readonly takesFormals: boolean;
  /** The pass's own module first, then the modules it imports. */
  readonly files: readonly ManifestFile[];
}

/** What a staged folder was staged from (`NAME.manifest.json`, also embedded in the stub). */
export interface StageManifest {
  readonly scf: string;
  readonly function: string;
  /** The config file, relative to the stub's folder, when staged from one. */
  readonly config?: string;
  /** The staged formals and their early descriptions. */
  readonly bind: Readonly<Record<string, string>>;
  /** SHA-256 of the kernel function (its JSON). */
  readonly kernel: string;
  readonly passes: readonly ManifestPass[];
}

export interface Specialized {
  readonly fun: Fun;
  /** false when the unstaged pipeline ran (input not admitted, or the stub is stale). */
  readonly staged: boolean;
}

export interface StubParts {
  readonly manifest: StageManifest;
  readonly fun: Fun;
  /**
   * The first staged module's admission check; arguments before `from` are not checked (the
   * kernel, once admitted: `makeStub` freezes it).
   */
  readonly admit: (input: unknown[], from?: number) => void;
  /** The staged optimizers, in pipeline order. */
  readonly stages: readonly ((...args: unknown[]) => unknown)[];
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
  /** Optimizes the function for the late-stage values of its staged formals. */
  specialize(values: Bindings, warn?: (message: string) => void): Specialized;
}

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** The SHA-256 a manifest records for a kernel function. */
export function kernelHash(fun: Fun): string {
  return sha256(JSON.stringify(fun));
}

function sourcePath(p: ManifestPass, f: ManifestFile, stubDir: string): string {
  return p.builtin ? path.join(SOURCE_ROOT, f.path) : path.resolve(stubDir, f.path);
}

/** What differs between the manifest and the sources now, or undefined when none does. */
export function checkManifest(m: StageManifest, stubDir: string): string | undefined {
  const version = scfVersion();
  if (m.scf !== version) return `staged by scf ${m.scf}, running scf ${version}`;
  for (const p of m.passes) {
    for (const f of p.files) {
      const file = sourcePath(p, f, stubDir);
      let text: string;
      try {
        text = readFileSync(file, 'utf8');
      } catch {
        return `${p.name}'s source ${file} is missing`;
      }
      if (sha256(text) !== f.sha256) return `${p.name}'s source ${file} changed`;
    }
  }
  return undefined;
}

/** `x` and everything reachable from it frozen (plain JSON data: objects and arrays). */
function deepFreeze<T>(x: T, seen = new WeakSet<object>()): T {
  if (typeof x === 'object' && x !== null && !seen.has(x)) {
    seen.add(x);
    Object.freeze(x);
    for (const v of Object.values(x)) deepFreeze(v, seen);
  }
  return x;
}

export function makeStub(parts: StubParts): Stub {
  const { manifest } = parts;
  const fun = deepFreeze(parts.fun);
  // whether `fun` (frozen) has been admitted: later runs check only the formals
  let funAdmitted = false;
  const stubDir = path.dirname(fileURLToPath(parts.url));
  let passes: Pass[] | undefined;
  const current = (): Pass[] => {
    passes ??= manifest.passes.map((p) => {
      if (p.builtin) {
        const b = findPassEntry(p.name, p.entry);
        if (!b) throw new Error(`scf ${scfVersion()} has no pass '${p.name}'`);
        return b;
      }
      return loadUserPass(sourcePath(p, p.files[0] as ManifestFile, stubDir));
    });
    return passes;
  };
  // SCF_PASS_DEBUG=1 (read when the stub is made): each pass's output is validated
  const debug = process.env.SCF_PASS_DEBUG === '1';
  const check = (f: Fun, i: number, how: string): void =>
    assertValid(f, undefined, `${how} pass '${manifest.passes[i]?.name ?? i}' broke '${manifest.function}'`);
  let stale: string | undefined | null = null;
  let warned = false;
  const staleness = (): string | undefined => {
    if (stale === null) stale = checkManifest(manifest, stubDir);
    return stale;
  };
  const stub: Stub = {
    formalsOf: (values) => formalsFromBindings(fun, values),
    stagedPipeline(formals) {
      const list = listFromArray([...formals]);
      const input: unknown[] = manifest.passes[0]?.takesFormals ? [fun, list] : [fun];
      parts.admit(input, funAdmitted ? 1 : 0);
      funAdmitted = true;
      let f = (parts.stages[0] as (...a: unknown[]) => unknown)(...input) as Fun;
      if (debug) check(f, 0, 'staged');
      for (let i = 1; i < parts.stages.length; i++) {
        const run = parts.stages[i] as (...a: unknown[]) => unknown;
        f = (manifest.passes[i]?.takesFormals ? run(f, list) : run(f)) as Fun;
        if (debug) check(f, i, 'staged');
      }
      return f;
    },
    unstagedPipeline(formals) {
      const passes = current();
      let f = fun;
      for (let i = 0; i < passes.length; i++) {
        f = (passes[i] as Pass).run(f, { formals });
        if (debug) check(f, i, 'unstaged');
      }
      return f;
    },
    staleness,
    specialize(values, warn = console.warn) {
      const formals = stub.formalsOf(values);
      const why = staleness();
      if (why !== undefined) {
        if (!warned) {
          warned = true;
          warn(
            `scf: ${manifest.function}: staged from an older pipeline (${why}); re-stage with 'scf stage'; running the unstaged pipeline`,
          );
        }
        return { fun: stub.unstagedPipeline(formals), staged: false };
      }
      try {
        return { fun: stub.stagedPipeline(formals), staged: true };
      } catch (e) {
        if (!(e instanceof InputNotAdmitted)) throw e;
        warn(`scf: ${manifest.function}: ${e.message}; running the unstaged pipeline`);
        return { fun: stub.unstagedPipeline(formals), staged: false };
      }
    },
  };
  return stub;
}
