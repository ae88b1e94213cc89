/**
 * The run-time side of an entry config's staged stub: `EXPORT.stub.mjs`, written by `scf stage`
 * for a config naming `"entry": "./file.ts#EXPORT"`, exports a function named like the entry, with
 * its parameters and its result, built here (`loadEntryStub`) from the staged module beside it and
 * the manifest of what it was staged from.
 *
 * Invariants. A call returns exactly what the entry returns natively on the same arguments:
 * - every argument is first checked against its parameter's declared type by the staged module's
 *   checker for it (`type_I`): one that is not a value of that type (a number for a string, a
 *   list with an element of another type, `null`) is a `TypeError` naming the parameter and the
 *   place, never a run of either function on it;
 * - the staged code runs only for admitted arguments: each parameter described early (`bind`) is
 *   checked against its description by the staged module's checker for it (`admit_I` for the
 *   I-th parameter); staging is exact for those;
 * - a checked argument that is an object is then frozen, deeply, and remembered: SCF-lang values
 *   are immutable, so a later call with the same object skips its check (an argument the caller
 *   froze before stays as it was; one not frozen cannot change after it was admitted);
 * - the staged code runs only while the stub is current: the manifest records the scf version and
 *   a SHA-256 of every source of the entry (its module first); the first call checks them, and a
 *   changed source warns once and runs the entry's current source;
 * - the staged module is read and checked against its recorded SHA-256 before it is imported (and
 *   by its `STAGE_HASH` once imported), so a module edited or of another stage never runs; under
 *   node, where the module lies beside the stub, all of that waits for the first call, which then
 *   requires it (nothing is read or hashed at import);
 * - a staged run counts its calls as a user's pass does (SCF_PASS_FUEL, read when the stub is
 *   loaded): one that does not end is a `PassError` naming the entry, as the unstaged run's is;
 * - every other argument runs the unstaged function: the entry's source compiled by scf's front
 *   end (`EntryFunctions.load`: optimizers/user.ts's `loadUserFunction`, with a user pass's fuel),
 *   after a warning through the hook `SCF.onFallback` sets (console.warn by default). The unstaged
 *   function needs node and the entry's source; in a page only admitted arguments run.
 * The object language's hooks (entry-language.ts, `ENTRY_RUNTIME`: the argument count, freezing,
 * refusals) and the loader of the unstaged function are parameters (`loadEntryStubWith`);
 * `scf/runtime`'s `loadEntryStub` binds them (src/optimizers/entry-stub.ts).
 */
import { clip, scfVersion } from '../common/index.js';
import { InputNotAdmitted } from '../scf-lang/index.js';
import type { EntrySubject } from './entry-language.js';
import {
  type ManifestFile,
  sourceHash,
  sourcePath,
  sourcePlaces,
  stagedLoader,
  stagedPresent,
  stubFolder,
} from './files.js';
import type { RuntimeLanguage } from './language.js';
import { DEFAULT_PASS_FUEL, PassError } from './pass-error.js';
import { stagedFile } from './stub.js';

/** What an entry's staged folder was staged from (`EXPORT.manifest.json`, also in the stub). */
export interface EntryManifest {
  readonly scf: string;
  /** The entry as the config names it (`./interp.ts#run`), and its export. */
  readonly entry: string;
  readonly export: string;
  /** The config file, relative to the stub's folder. */
  readonly config?: string;
  /** The entry's parameters, in order. */
  readonly params: readonly string[];
  /** The parameters described early, with their descriptions as the config writes them (JSON). */
  readonly bind: Readonly<Record<string, string>>;
  /** The entry's sources, its own module first, relative to the stub's folder. */
  readonly sources: readonly ManifestFile[];
  /** The staged module, with the SHA-256 of its text before its last line. */
  readonly module: ManifestFile;
}

/** How the stub gets the unstaged function and the fuel of a run (the front end's, under node). */
export interface EntryFunctions {
  /**
   * Export `exportName` of the SCF-lang module at `file` (absolute), compiled, as a function of the
   * arguments and the fuel; `shown` names it in messages. Throws `PassError`.
   */
  load(file: string, exportName: string, shown: string): (args: readonly unknown[], fuel?: number) => unknown;
  /** The calls a run may make (SCF_PASS_FUEL). */
  fuel(): number;
}

/** What the staged module exports. */
export interface EntryModule {
  readonly run?: unknown;
  /** Sets the calls the next run may make; `OUT_OF_FUEL` is what a run throws past them. */
  readonly fuel?: unknown;
  readonly OUT_OF_FUEL?: unknown;
  readonly STAGE_HASH?: unknown;
  readonly [admit: string]: unknown;
}

/** The stub's interface beside the entry itself (exported as `SCF`). */
export interface EntryStub {
  /** The entry: staged for admitted arguments, else unstaged (with a warning). */
  readonly call: (...args: unknown[]) => unknown;
  /** The staged code alone; throws `InputNotAdmitted` for arguments outside the description. */
  readonly staged: (...args: unknown[]) => unknown;
  /** The unstaged function (the entry's current source). */
  readonly unstaged: (...args: unknown[]) => unknown;
  /** Why the staged code may not run (it was staged from other sources), or undefined. */
  readonly staleness: () => string | undefined;
  /** Sets where the fallback's warnings go (console.warn by default); returns the previous hook. */
  readonly onFallback: (warn: (message: string) => void) => (message: string) => void;
}

/** The loaded module checked against the manifest; the problem when it cannot run. */
function checkModule(f: ManifestFile, absent: boolean, load: () => EntryModule): EntryModule | string {
  let m: EntryModule;
  try {
    m = load();
  } catch (e) {
    return absent
      ? `the staged module ${f.path} is missing`
      : `the staged module ${f.path} failed to load: ${e instanceof Error ? e.message : String(e)}`;
  }
  if (m.STAGE_HASH !== f.sha256) return `the staged module ${f.path} is not the one staged with this stub`;
  if (typeof m.run !== 'function' || typeof m.fuel !== 'function')
    return `the staged module ${f.path} exports no run and fuel functions`;
  return m;
}

/**
 * The staged module, read and checked against the manifest before it loads (`stagedFile`): on the
 * first call that needs it where node can load it synchronously (files.ts's `stagedLoader`), so
 * nothing is read or hashed at import; else (a bundle, a page, a test runner) imported now. The
 * answer is the module or the problem when it cannot run.
 */
async function stagedModule(
  manifest: EntryManifest,
  url: string,
  importer: () => Promise<EntryModule>,
): Promise<() => EntryModule | string> {
  const f = manifest.module;
  const dir = stubFolder(url);
  const load = stagedLoader(url);
  if (load !== undefined && stagedPresent(dir, f.path)) {
    let m: EntryModule | string | undefined;
    return () => {
      if (m !== undefined) return m;
      const file = stagedFile(dir, f);
      m = file.problem ?? checkModule(f, file.absent, () => load(f.path) as EntryModule);
      return m;
    };
  }
  const file = stagedFile(dir, f);
  if (file.problem !== undefined) return () => file.problem as string;
  let m: EntryModule | undefined;
  let failure: unknown;
  try {
    m = await importer();
  } catch (e) {
    failure = e;
  }
  const checked = checkModule(f, file.absent, () => {
    if (m === undefined) throw failure;
    return m;
  });
  return () => checked;
}

/** What differs between the manifest and the entry's sources now, or undefined. */
function checkSources(m: EntryManifest, stubDir: string | undefined): string | undefined {
  const version = scfVersion();
  if (m.scf !== version) return `staged by scf ${m.scf}, running scf ${version}`;
  for (const f of m.sources) {
    const now = sourceHash(false, f, stubDir);
    if (now === undefined) continue; // deployed without its sources: the module checks itself
    if ('bad' in now) return `the source ${now.file} cannot be read (${now.bad})`;
    if (now.sha !== f.sha256) return `the source ${now.file} changed`;
  }
  return undefined;
}

/**
 * The check of every argument against its parameter's declared type (the staged module's
 * `type_I`): a `TypeError` naming the parameter and the place for one that is not of its type. An
 * object the stub froze (`frozen`) cannot change, so it is checked once.
 */
function typeChecks(
  manifest: EntryManifest,
  loaded: EntryModule,
  frozen: WeakSet<object>,
): (args: readonly unknown[]) => void {
  const shown = manifest.entry;
  const typed = manifest.params.map((name, i) => {
    const check = loaded[`type_${i}`];
    return { name, i, check: check as ((args: unknown[]) => void) | undefined, seen: new WeakSet<object>() };
  });
  return (args) => {
    for (const p of typed) {
      const a = args[p.i];
      const isObject = typeof a === 'object' && a !== null;
      if (p.check === undefined || (isObject && p.seen.has(a))) continue;
      try {
        p.check([a]);
      } catch (e) {
        if (!(e instanceof InputNotAdmitted)) throw e;
        const where = e.message.replace(/^input not admitted at \$\[0\]/, `at ${clip(p.name)}`);
        throw new TypeError(
          `scf: ${shown}: argument '${clip(p.name)}' is not a value of its declared type: ${where}`,
        );
      }
      // a value this stub froze cannot change: it keeps its type
      if (isObject && frozen.has(a)) p.seen.add(a);
    }
  };
}

/** A parameter described early, with the staged module's check of its description. */
interface BoundParam {
  readonly name: string;
  readonly i: number;
  readonly admit: ((args: unknown[]) => void) | undefined;
  /** The objects admitted (frozen by the stub, so they stay admitted). */
  readonly seen: WeakSet<object>;
}

/** The parameters the config describes early, each with its check (`admit_I`). */
function boundParams(manifest: EntryManifest, loaded: EntryModule): BoundParam[] {
  return manifest.params
    .map((name, i) => ({ name, i }))
    .filter((p) => Object.hasOwn(manifest.bind, p.name))
    .map((p) => ({
      ...p,
      admit: loaded[`admit_${p.i}`] as ((args: unknown[]) => void) | undefined,
      seen: new WeakSet<object>(),
    }));
}

/** A run of the staged module's `run` on admitted `args` with `fuel` calls; `shown` names it. */
function runStaged(loaded: EntryModule, args: unknown[], fuel: number, shown: string): unknown {
  (loaded.fuel as (n: number) => void)(fuel);
  try {
    return (loaded.run as (...a: unknown[]) => unknown)(...args);
  } catch (e) {
    if (e === loaded.OUT_OF_FUEL)
      throw new PassError(
        `'${shown}' (staged) did not terminate within ${fuel} calls of fuel (SCF_PASS_FUEL, default ${DEFAULT_PASS_FUEL}, sets how many a run may make)`,
      );
    if (!(e instanceof RangeError) || !/call stack/i.test(e.message)) throw e;
    throw new PassError(
      `${shown} (staged) recursed deeper than the JavaScript stack allows: a recursion without end, or one call deep per step of a long count or list`,
    );
  }
}

/** The stub of an entry's staged folder (see the header), over `language` and `functions`. */
export async function loadEntryStubWith(
  language: RuntimeLanguage<EntrySubject, readonly unknown[], unknown>,
  functions: EntryFunctions,
  manifest: EntryManifest,
  url: string,
  importer: () => Promise<EntryModule>,
): Promise<EntryStub> {
  const module = await stagedModule(manifest, url, importer);
  const subject: EntrySubject = { entry: manifest.entry, params: manifest.params };
  const stubDir = stubFolder(url);
  const shown = manifest.entry;
  const frozen = new WeakSet<object>();
  // the module's checks, found in it on the first staged run
  let checks:
    | {
        readonly loaded: EntryModule;
        readonly bound: readonly BoundParam[];
        readonly checkTypes: (args: readonly unknown[]) => void;
      }
    | undefined;
  const checksOf = (loaded: EntryModule) => {
    checks ??= {
      loaded,
      bound: boundParams(manifest, loaded),
      checkTypes: typeChecks(manifest, loaded, frozen),
    };
    return checks;
  };
  let warn: (message: string) => void = (m) => console.warn(m);
  let stale: string | undefined | null = null;
  let warnedStale = false;
  const staleness = (): string | undefined => {
    if (stale === null) {
      const loaded = module();
      stale = typeof loaded === 'string' ? loaded : checkSources(manifest, stubDir);
    }
    return stale;
  };
  // read once: an environment variable costs more to read than a small staged run takes
  const fuel = functions.fuel();
  let unstagedFn: ((args: readonly unknown[], fuel?: number) => unknown) | undefined;
  const unstaged = (...args: unknown[]): unknown => {
    if (unstagedFn === undefined) {
      const f = manifest.sources[0] as ManifestFile;
      const file = sourcePath(false, f, stubDir);
      if (file === undefined)
        throw new PassError(
          `${shown}: its source is ${sourcePlaces(f, stubDir)}, where it was staged from; the unstaged run (for arguments outside the early description) needs it`,
        );
      unstagedFn = functions.load(file, manifest.export, shown);
    }
    return unstagedFn(args, fuel);
  };
  const arity = (args: readonly unknown[]): void => {
    language.formals(subject, args);
  };
  // the parameter whose check threw last, for the warning
  let refusedAt: BoundParam | undefined;
  const staged = (...args: unknown[]): unknown => {
    const got = module();
    if (typeof got === 'string') throw new Error(`scf: ${shown}: ${got}`);
    const { loaded, bound, checkTypes } = checksOf(got);
    arity(args);
    checkTypes(args);
    for (const p of bound) {
      const a = args[p.i];
      const isObject = typeof a === 'object' && a !== null;
      if (isObject && p.seen.has(a)) continue;
      if (p.admit === undefined)
        throw new Error(`scf: ${shown}: the staged module has no check for '${p.name}'`);
      refusedAt = p;
      p.admit([a]);
      refusedAt = undefined;
      if (isObject) {
        language.freeze(a, frozen);
        p.seen.add(a);
      }
    }
    return runStaged(loaded, args, fuel, shown);
  };
  const call = (...args: unknown[]): unknown => {
    arity(args);
    const why = staleness();
    if (why !== undefined) {
      if (!warnedStale) {
        warnedStale = true;
        warn(`scf: ${shown}: ${why}; re-stage with 'scf stage'; running the unstaged function`);
      }
      return unstaged(...args);
    }
    try {
      return staged(...args);
    } catch (e) {
      if (!(e instanceof InputNotAdmitted)) throw e;
      const p = refusedAt;
      refusedAt = undefined;
      // the check saw the argument alone (`$[0]`): its place among the arguments is `$[I]`
      const at = (i: number) => ({ ...e, path: e.path.replace(/^\$\[0\]/, `$[${i}]`), message: e.message });
      const message = p ? language.refusal(at(p.i), subject, manifest.bind, args) : e.message;
      warn(`scf: ${shown}: ${message}; running the unstaged function`);
      return unstaged(...args);
    }
  };
  return {
    call,
    staged,
    unstaged,
    staleness,
    onFallback: (w) => {
      const before = warn;
      warn = w;
      return before;
    },
  };
}
