/**
 * The run-time side of a staged pipeline's stub (SCF Fig. 5's interface), over any object
 * language (language.ts): what `NAME.stub.mjs`, written by `scf stage`, builds its exports from. A
 * stub holds the subject (the kernel's function), the staged modules of its pipeline and a
 * manifest of what it was staged from; `makePipelineStub` turns them into `specialize(values)`,
 * which takes the late-stage values of the staged formals and returns the optimized subject. The
 * language says how the values become the formals and the staged input, how the subject is
 * frozen, how a pass's output is checked and how a refusal reads; `PassSource` gives the passes
 * of the unstaged pipeline. (The kernel's binding of both, `makeStub`, is
 * src/optimizers/kernel-stub.ts.)
 *
 * Invariants. `specialize` returns exactly what the unstaged pipeline returns on the same values:
 * - the staged path is taken only for admitted inputs (`admit` throws `InputNotAdmitted`
 *   otherwise), where staging is exact;
 * - and only while the stub is *current*: the manifest records the scf version and a SHA-256 of
 *   every optimizer source file the stages were specialized from; the first `specialize` checks
 *   them (built-in sources in this installation's `src/`, a user's relative to the stub's folder),
 *   and a stale stub warns once ("staged from an older …; re-stage") and runs the unstaged
 *   pipeline — the current optimizers — never the stale staged code;
 * - every other input goes through the unstaged passes themselves. Their built-in passes may be
 *   loaded on demand (the kernel's in a page: `PassSource.builtin` answers `NOT_LOADED`), and until
 *   they are, the synchronous `specialize` throws `FallbackNotLoaded` before it warns or runs
 *   anything, while `specializeAsync` loads them first.
 * - and only when its staged modules are the ones staged with it: the manifest records a SHA-256
 *   of every staged module, and `loadStagedModules` reads and checks each file *before* importing
 *   it (under node, where the files lie beside the stub, all of it on the first call, which then
 *   requires them), so a module that was edited, truncated, deleted or written by another stage
 *   never runs (bundled, with no file to read, each module's own `STAGE_HASH` must match); the stub then
 *   warns once and runs the unstaged pipeline. `scf stage` writes the stub last
 *   (pipeline/write.ts), so a stage interrupted while rewriting a folder leaves either the old stub
 *   over modules it does not match, which it detects, or a complete new folder.
 * A pipeline staged as one program (`manifest.staging` is `whole`) has one module for all its
 * passes, taking the subject and the formals and checking both; everything above holds of it alike
 * (the manifest still lists every pass: its sources, and the unstaged pipeline's passes).
 * The subject is the stub's own, frozen here (`freeze`), so it is admitted once, on the first
 * staged run; every run admits the formals (on config 8 checking the kernel on every run would be a
 * fifth of the staged pipeline's time). The output of every pass, staged or not, goes through the
 * language's `checkOutput` (the kernel's validates a user's pass's: a broken one is a
 * `PassOutputError` naming the pass).
 */
import { InputNotAdmitted } from '../scf-lang/index.js';
import { BUILTIN_SOURCE_SHA256, clip, scfVersion } from '../common/index.js';
import {
  type ManifestFile,
  readStaged,
  sha256,
  sourceHash,
  sourcePath,
  sourcePlaces,
  stagedLoader,
  stagedPresent,
  stubFolder,
} from './files.js';
import type { LanguagePass, RuntimeLanguage } from './language.js';
import { PassError } from './pass-error.js';

export { type ManifestFile, sha256 } from './files.js';

export interface ManifestPass {
  readonly name: string;
  readonly builtin: boolean;
  /** Core name of the entry, and whether it takes the formals. */
  readonly entry: string;
  readonly takesFormals: boolean;
  /** The pass's own module first, then the modules it imports. */
  readonly files: readonly ManifestFile[];
}

/**
 * What a staged pipeline's folder was staged from (`NAME.manifest.json`, also embedded in the
 * stub), in any object language: `function` names the subject and `kernel` records its hash.
 */
export interface StageManifest {
  readonly scf: string;
  readonly function: string;
  /** The config file, relative to the stub's folder, when staged from one. */
  readonly config?: string;
  /** The staged formals and their early descriptions. */
  readonly bind: Readonly<Record<string, string>>;
  /** SHA-256 of the subject (the kernel's function: of its JSON), as its language hashes it. */
  readonly kernel: string;
  readonly passes: readonly ManifestPass[];
  /**
   * `whole`: the pipeline was staged as one program, the composition of its passes, into one
   * module taking the subject and the formals; absent: one module per pass.
   */
  readonly staging?: 'whole';
  /**
   * The staged modules, in pipeline order, relative to the stub's folder, each with the SHA-256 of
   * its text before its last line, which states that hash (`stageHashLine`).
   */
  readonly modules: readonly ManifestFile[];
}

/** What a staged module exports (the first one also `admit`). */
export interface StagedModule {
  readonly optimize?: unknown;
  readonly admit?: unknown;
  /** The SHA-256 of the module's text before its last line (`stageHashLine`). */
  readonly STAGE_HASH?: unknown;
}

/** The staged modules of a stub, loaded and checked (`loadStagedModules`), or why they cannot run. */
export type LoadedStages =
  | {
      readonly ok: true;
      /** The first module's admission check (see `StubParts`). */
      readonly admit: (input: unknown[], from?: number) => void;
      /**
       * The formals' admission check, when the first pass taking the formals is not the first
       * pass: that pass's module exports one (its `admit`, run on `[_, formals]` from 1).
       */
      readonly admitFormals?: (input: unknown[], from?: number) => void;
      /** The staged optimizers, in pipeline order. */
      readonly stages: readonly ((...args: unknown[]) => unknown)[];
    }
  | { readonly ok: false; readonly problem: string };

/** What `specialize` returns: the pipeline's output, and whether the staged pipeline made it. */
export interface StagedOutput<S> {
  readonly output: S;
  /** false when the unstaged pipeline ran (input not admitted, or the stub is stale). */
  readonly staged: boolean;
}

export interface PipelineStubParts<S> {
  readonly manifest: StageManifest;
  /** The subject the pipeline optimizes (frozen by the stub). */
  readonly subject: S;
  /**
   * The staged modules (`loadStagedModules`): the first one's admission check, whose arguments
   * before `from` are not checked (the subject, once admitted: the stub freezes it), and the
   * staged optimizers in pipeline order; or `DeferredStages`, loaded by the first call that
   * needs them.
   */
  readonly staged: LoadedStages | DeferredStages;
  /** `import.meta.url` of the stub. */
  readonly url: string;
}

/** A pipeline stub over subjects `S`, late values `V` and formals `F` (`makePipelineStub`). */
export interface PipelineStub<S, V, F> {
  /** The formals for these late-stage values (as the unstaged pipeline computes them). */
  formalsOf(values: V): F[];
  /** The staged pipeline; throws `InputNotAdmitted` for inputs outside the early description. */
  stagedPipeline(formals: readonly F[]): S;
  /** The unstaged pipeline (the current optimizers) on the same subject. */
  unstagedPipeline(formals: readonly F[]): S;
  /** Why the staged code may not run (it was staged from other sources), or undefined. */
  staleness(): string | undefined;
  /**
   * Optimizes the subject for the late-stage values of its staged formals. Throws
   * `FallbackNotLoaded` when these values need the unstaged pipeline and its built-in passes are
   * not loaded yet (`loadFallback`, `specializeAsync`).
   */
  specialize(values: V, warn?: (message: string) => void): StagedOutput<S>;
  /** `specialize`, first loading the unstaged pipeline's built-in passes when the values need them. */
  specializeAsync(values: V, warn?: (message: string) => void): Promise<StagedOutput<S>>;
  /**
   * Loads the built-in passes the unstaged pipeline runs, after which `specialize` never throws
   * `FallbackNotLoaded`.
   */
  loadFallback(): Promise<void>;
}

/** What `PassSource.builtin` answers while the built-in passes are not loaded (a page loads them on demand). */
export const NOT_LOADED: unique symbol = Symbol('not loaded');

/** The passes of the unstaged pipeline over a language, as a manifest names them. */
export interface PassSource<S, F> {
  /** The built-in pass of this name and entry; `NOT_LOADED` until `load` has resolved. */
  builtin(name: string, entry: string): LanguagePass<S, F> | undefined | typeof NOT_LOADED;
  /** A user's pass from its source file (absolute); throws `PassError`. */
  user(file: string): LanguagePass<S, F>;
  /** Loads the built-in passes (once; at once where they are always there). */
  load(): Promise<void>;
  /** Whether the built-in passes are loaded. */
  loaded(): boolean;
}

/**
 * The late values need the unstaged pipeline (they are outside the staged description, or the
 * stub is stale), whose built-in passes a page loads on demand and has not loaded yet: `await
 * stub.loadFallback()` first, or call `specializeAsync`. Nothing has run and nothing was warned.
 */
export class FallbackNotLoaded extends Error {
  override readonly name = 'FallbackNotLoaded';
  constructor(
    readonly fun: string,
    /** Why the staged code may not run for these values (none when the unstaged pipeline was called). */
    readonly reason?: string,
  ) {
    super(
      `scf: ${fun}: ${reason === undefined ? '' : `${reason}; `}the unstaged pipeline's built-in passes are not loaded in this page yet: await loadFallback() (the stub exports it) before specialize, or call specializeAsync`,
    );
  }
}

/**
 * What differs between the manifest and the sources now, or undefined when none does. A source
 * is compared as read from its file where there is one (files.ts); a built-in's without a file (a
 * bundle, a page) by the hash this package recorded at build time (build-info.generated.ts). A
 * user's source that is nowhere to be found is no difference: the staged modules carry their own
 * hashes (`loadStagedModules`), so a folder deployed without the optimizers' sources runs staged.
 */
export function checkManifest(m: StageManifest, stubDir: string | undefined): string | undefined {
  const version = scfVersion();
  if (m.scf !== version) return `staged by scf ${m.scf}, running scf ${version}`;
  for (const p of m.passes) {
    for (const f of p.files) {
      const now = sourceHash(p.builtin, f, stubDir);
      if (now === undefined) {
        if (!p.builtin) continue;
        const recorded = BUILTIN_SOURCE_SHA256[f.path];
        if (recorded === undefined) return `${p.name}'s source ${f.path} is not part of scf ${version}`;
        if (recorded !== f.sha256) return `${p.name}'s source ${f.path} changed`;
      } else if ('bad' in now) return `${p.name}'s source ${now.file} cannot be read (${now.bad})`;
      else if (now.sha !== f.sha256) return `${p.name}'s source ${now.file} changed`;
    }
  }
  return undefined;
}

/**
 * The last line of a staged module: the SHA-256 of the text before it, which the manifest also
 * records. A module checks itself this way even when a bundler has inlined it and no file is left
 * to read.
 */
export function stageHashLine(sha: string): string {
  return `export const STAGE_HASH = '${sha}';\n`;
}

/**
 * The staged module `f` beside the stub in `dir`, as read before it is imported: `absent` when
 * no file is there to read (a bundle), a `problem` when the file cannot be read or is not the one
 * staged (its text before its last line must hash to `f.sha256`, which that line states).
 */
export function stagedFile(
  dir: string | undefined,
  f: ManifestFile,
): { readonly absent: boolean; readonly problem?: string } {
  const text = readStaged(dir, f.path);
  if (text === undefined) return { absent: true };
  if (typeof text !== 'string')
    return { absent: false, problem: `the staged module ${f.path} cannot be read (${text.bad})` };
  const line = stageHashLine(f.sha256);
  if (!text.endsWith(line) || sha256(text.slice(0, -line.length)) !== f.sha256)
    return { absent: false, problem: `the staged module ${f.path} is not the one staged with this stub` };
  return { absent: false };
}

/**
 * The staged modules of a stub, left to its first call (`loadStagedModules`): `deferred` reads,
 * checks and loads them then, synchronously, and says what `loadStagedModules` would have said.
 */
export interface DeferredStages {
  readonly deferred: () => LoadedStages;
}

/**
 * The modules' checks once each is loaded, in pipeline order (`add`, which returns the first
 * problem), then their entry points (`done`).
 */
function stageCollector(manifest: StageManifest) {
  const files = manifest.modules;
  const stages: ((...args: unknown[]) => unknown)[] = [];
  let admit: unknown;
  let admitFormals: unknown;
  // the first pass that takes the formals checks them, when it is not the first pass (a whole
  // pipeline's one module checks the subject and the formals)
  const formalsAt = manifest.staging === 'whole' ? -1 : manifest.passes.findIndex((p) => p.takesFormals);
  type Admit = (input: unknown[], from?: number) => void;
  return {
    add(i: number, m: StagedModule): LoadedStages | undefined {
      const f = files[i] as ManifestFile;
      if (m.STAGE_HASH !== f.sha256)
        return { ok: false, problem: `the staged module ${f.path} is not the one staged with this stub` };
      if (typeof m.optimize !== 'function')
        return { ok: false, problem: `the staged module ${f.path} exports no optimize function` };
      if (i === 0) admit = m.admit;
      else if (i === formalsAt) admitFormals = m.admit;
      stages.push(m.optimize as (...args: unknown[]) => unknown);
      return undefined;
    },
    done(): LoadedStages {
      if (typeof admit !== 'function')
        return { ok: false, problem: `the staged module ${files[0]?.path} exports no admit function` };
      if (formalsAt > 0 && typeof admitFormals !== 'function')
        return {
          ok: false,
          problem: `the staged module ${files[formalsAt]?.path} exports no admit function`,
        };
      return {
        ok: true,
        admit: admit as Admit,
        ...(formalsAt > 0 ? { admitFormals: admitFormals as Admit } : {}),
        stages,
      };
    },
  };
}

/** Why the module `f` could not be loaded: missing (no file was read for it), or the error. */
function loadFailure(f: ManifestFile, absent: boolean | undefined, e: unknown): LoadedStages {
  return {
    ok: false,
    problem: absent
      ? `the staged module ${f.path} is missing`
      : `the staged module ${f.path} failed to load: ${e instanceof Error ? e.message : String(e)}`,
  };
}

/** Each module's text checked (`stagedFile`), or the first problem. */
function checkTexts(
  dir: string | undefined,
  files: readonly ManifestFile[],
): { readonly texts: readonly { readonly absent: boolean }[] } | { readonly problem: string } {
  const texts = files.map((f) => stagedFile(dir, f));
  for (const t of texts) if (t.problem !== undefined) return { problem: t.problem };
  return { texts };
}

/** The deferred load: the files read and checked, then required, on the stub's first call. */
function loadStagedNow(
  manifest: StageManifest,
  dir: string | undefined,
  load: (rel: string) => unknown,
): LoadedStages {
  const checked = checkTexts(dir, manifest.modules);
  if ('problem' in checked) return { ok: false, problem: checked.problem };
  const collect = stageCollector(manifest);
  for (const [i, f] of manifest.modules.entries()) {
    let m: StagedModule;
    try {
      if (checked.texts[i]?.absent) throw new Error('gone');
      m = load(f.path) as StagedModule;
    } catch (e) {
      return loadFailure(f, checked.texts[i]?.absent, e);
    }
    const problem = collect.add(i, m);
    if (problem !== undefined) return problem;
  }
  return collect.done();
}

/**
 * Loads the staged modules of a stub and checks each against `manifest.modules` (paths relative
 * to the stub at `url`, and SHA-256s):
 * - where the module's file is there to read, its text must be what was staged — checked before
 *   the module is imported, so code that is not what was staged never runs;
 * - once imported, its `STAGE_HASH` must be the manifest's (what catches a module of another stage
 *   when a bundler inlined the folder and there is no file to read).
 * Where every module's file is beside the stub and node can load them synchronously
 * (files.ts's `stagedLoader`), all of it waits for the stub's first call: the answer is
 * `DeferredStages`, and nothing is read, hashed or imported now. Otherwise (a bundle, a page, a
 * test runner) the modules are imported now, `importers[i]` importing module `i`. The answer is
 * the modules' entry points, or the first problem: a module missing, changed, of another stage,
 * or not exporting what a staged module exports. Never throws.
 */
export async function loadStagedModules(
  manifest: StageManifest,
  url: string,
  importers: readonly (() => Promise<StagedModule>)[],
): Promise<LoadedStages | DeferredStages> {
  const dir = stubFolder(url);
  const files = manifest.modules;
  const whole = manifest.staging === 'whole';
  if (files.length !== importers.length)
    return {
      ok: false,
      problem: `the stub names ${importers.length} staged modules, its manifest ${files.length}`,
    };
  const expected = whole ? 1 : manifest.passes.length;
  if (files.length !== expected)
    return {
      ok: false,
      problem: `the manifest names ${files.length} staged modules for ${manifest.passes.length} passes staged ${whole ? 'as one program' : 'pass by pass'} (${expected} expected)`,
    };
  const load = stagedLoader(url);
  if (load !== undefined && files.every((f) => stagedPresent(dir, f.path)))
    return { deferred: () => loadStagedNow(manifest, dir, load) };
  const checked = checkTexts(dir, files);
  if ('problem' in checked) return { ok: false, problem: checked.problem };
  const collect = stageCollector(manifest);
  for (const [i, f] of files.entries()) {
    let m: StagedModule;
    try {
      m = await (importers[i] as () => Promise<StagedModule>)();
    } catch (e) {
      return loadFailure(f, checked.texts[i]?.absent, e);
    }
    const problem = collect.add(i, m);
    if (problem !== undefined) return problem;
  }
  return collect.done();
}

/** `x` and everything reachable from it frozen (a loop, not a recursion: lists are long). */
export function deepFreeze<T>(x: T, seen = new WeakSet<object>()): T {
  const stack: unknown[] = [x];
  while (stack.length > 0) {
    const y = stack.pop();
    if (typeof y !== 'object' || y === null || seen.has(y)) continue;
    seen.add(y);
    Object.freeze(y);
    for (const v of Object.values(y)) stack.push(v);
  }
  return x;
}

/**
 * The passes of the unstaged pipeline a manifest names: a built-in one from `source`
 * (`FallbackNotLoaded` while a page has not loaded them), a user's from its source where it was
 * staged from (a `PassError` when it is not there).
 */
function unstagedPasses<S, F>(
  manifest: StageManifest,
  source: PassSource<S, F>,
  stubDir: string | undefined,
): LanguagePass<S, F>[] {
  return manifest.passes.map((p) => {
    if (p.builtin) {
      const b = source.builtin(p.name, p.entry);
      if (b === NOT_LOADED) throw new FallbackNotLoaded(manifest.function);
      if (!b) throw new Error(`scf ${scfVersion()} has no pass '${p.name}'`);
      return b;
    }
    const f = p.files[0] as ManifestFile;
    const file = sourcePath(false, f, stubDir);
    if (file === undefined)
      throw new PassError(
        `${p.name}: its source is ${sourcePlaces(f, stubDir)}, where it was staged from; the unstaged pipeline (for values outside the early description) needs it`,
      );
    return source.user(file);
  });
}

/**
 * Runs staged pass `i` on `args`. A staged user's pass keeps the recursion of its source: one
 * without end exhausts the stack, which is the pass's error (`PassError`), as it is when the pass
 * runs unstaged.
 */
function stagedRunner<S>(manifest: StageManifest, stagedNow: () => LoadedStages) {
  return (i: number, args: readonly unknown[]): S => {
    const staged = stagedNow();
    if (!staged.ok) throw new Error(`scf: ${manifest.function}: ${staged.problem}`);
    try {
      return (staged.stages[i] as (...a: unknown[]) => unknown)(...args) as S;
    } catch (e) {
      if (!(e instanceof RangeError) || !/call stack/i.test(e.message)) throw e;
      throw new PassError(
        `pass '${clip(manifest.passes[i]?.name ?? String(i))}' (staged) recursed deeper than the JavaScript stack allows: a recursion without end, or one call deep per step of a long count or list`,
      );
    }
  };
}

/** The stub of a staged pipeline over `language`, its unstaged passes from `source` (see the header). */
export function makePipelineStub<S, V, F>(
  language: RuntimeLanguage<S, V, F>,
  source: PassSource<S, F>,
  parts: PipelineStubParts<S>,
): PipelineStub<S, V, F> {
  const { manifest } = parts;
  const subject = language.freeze(parts.subject);
  // whether `subject` (frozen) has been admitted: later runs check only the formals
  let subjectAdmitted = false;
  const stubDir = stubFolder(parts.url);
  let passes: LanguagePass<S, F>[] | undefined;
  const current = (): LanguagePass<S, F>[] => {
    passes ??= unstagedPasses(manifest, source, stubDir);
    return passes;
  };
  // every pass's output goes through the language's check, staged or not
  const check = (out: S, i: number): void => {
    const p = manifest.passes[i];
    if (p !== undefined) language.checkOutput(p, out);
  };
  // the staged modules, loaded by the first call that needs them when they were deferred
  let loaded: LoadedStages | undefined;
  const stagedNow = (): LoadedStages => {
    loaded ??= 'deferred' in parts.staged ? parts.staged.deferred() : parts.staged;
    return loaded;
  };
  const runStaged = stagedRunner<S>(manifest, stagedNow);
  // why the staged code may not run, and the warning that says so (computed on first use)
  let stale: { readonly why: string; readonly warning: string } | undefined | null = null;
  let warned = false;
  const staleReason = (): typeof stale => {
    if (stale !== null) return stale;
    const older = checkManifest(manifest, stubDir);
    const staged = older === undefined ? stagedNow() : undefined;
    stale =
      older !== undefined
        ? { why: older, warning: `staged from an older pipeline (${older})` }
        : staged !== undefined && !staged.ok
          ? { why: staged.problem, warning: `its staged modules cannot run (${staged.problem})` }
          : undefined;
    return stale;
  };
  const staleness = (): string | undefined => staleReason()?.why;
  // whether the unstaged pipeline can run now: its built-in passes are loaded (a page loads them
  // on demand), or it has none
  const fallbackReady = (): boolean =>
    passes !== undefined || source.loaded() || !manifest.passes.some((p) => p.builtin);
  // a whole pipeline's one module takes the formals and is every pass (its output the last's)
  const whole = manifest.staging === 'whole';
  const firstTakesFormals = whole || manifest.passes[0]?.takesFormals === true;
  const firstOutputOf = whole ? manifest.passes.length - 1 : 0;
  const stub: PipelineStub<S, V, F> = {
    formalsOf: (values) => language.formals(subject, values),
    stagedPipeline(formals) {
      const staged = stagedNow();
      if (!staged.ok) throw new Error(`scf: ${manifest.function}: ${staged.problem}`);
      const core = language.toCore(formals);
      const input: unknown[] = firstTakesFormals ? [subject, core] : [subject];
      // every late value is checked before any staged code runs: the formals by the first pass
      // that takes them (the subject, its own, once)
      staged.admit(input, subjectAdmitted ? 1 : 0);
      staged.admitFormals?.([undefined, core], 1);
      subjectAdmitted = true;
      let out = runStaged(0, input);
      check(out, firstOutputOf);
      for (let i = 1; i < staged.stages.length; i++) {
        out = runStaged(i, manifest.passes[i]?.takesFormals ? [out, core] : [out]);
        check(out, i);
      }
      return out;
    },
    unstagedPipeline(formals) {
      const passes = current();
      let out = subject;
      for (let i = 0; i < passes.length; i++) {
        out = (passes[i] as LanguagePass<S, F>).run(out, { formals });
        check(out, i);
      }
      return out;
    },
    staleness,
    specialize(values, warn = console.warn) {
      const formals = stub.formalsOf(values);
      const why = staleReason();
      if (why) {
        if (!fallbackReady()) throw new FallbackNotLoaded(manifest.function, why.warning);
        if (!warned) {
          warned = true;
          warn(
            `scf: ${manifest.function}: ${why.warning}; re-stage with 'scf stage'; running the unstaged pipeline`,
          );
        }
        return { output: stub.unstagedPipeline(formals), staged: false };
      }
      try {
        return { output: stub.stagedPipeline(formals), staged: true };
      } catch (e) {
        if (!(e instanceof InputNotAdmitted)) throw e;
        const refused = language.refusal(e, subject, manifest.bind, values);
        if (!fallbackReady()) throw new FallbackNotLoaded(manifest.function, refused);
        warn(`scf: ${manifest.function}: ${refused}; running the unstaged pipeline`);
        return { output: stub.unstagedPipeline(formals), staged: false };
      }
    },
    // the admission check throws before any staged code runs, so the second try repeats nothing
    async specializeAsync(values, warn = console.warn) {
      try {
        return stub.specialize(values, warn);
      } catch (e) {
        if (!(e instanceof FallbackNotLoaded)) throw e;
        await source.load();
        return stub.specialize(values, warn);
      }
    },
    async loadFallback() {
      await source.load();
    },
  };
  return stub;
}
