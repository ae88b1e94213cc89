/**
 * What a staged stub reads from disk (stub.ts decides what to do with it): the staged modules
 * beside it, the optimizer sources its manifest names, and their SHA-256; and how it loads its
 * staged modules synchronously, on the first call (`stagedLoader`). A browser bundle has the
 * twin files.browser.ts, which reads nothing: there the stub checks its manifest against the hashes
 * the package recorded at build time (build-info.generated.ts) and its modules by `STAGE_HASH`.
 */
import { createHash } from 'node:crypto';
import { existsSync, lstatSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { FROM_SOURCES, readFailure, readSourceFile, SOURCE_ROOT } from '../common/index.js';
import { scfResolverRegistered } from './resolver.js';

/** One source file a pass was compiled from, and its SHA-256 when staged. */
export interface ManifestFile {
  /** Built-in: relative to scf's `src/` (`optimizers/dae.ts`); a user's: relative to the stub's folder. */
  readonly path: string;
  readonly sha256: string;
  /** A user's file: its absolute path when staged (where a moved folder looks next). */
  readonly staged?: string;
}

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** The folder of the stub at `url`; undefined when it is no file: URL (a bundle served by URL). */
export function stubFolder(url: string): string | undefined {
  try {
    return path.dirname(fileURLToPath(url));
  } catch {
    return undefined;
  }
}

/**
 * Where a pass's source file is now: a built-in's in this installation's `src/`; a user's relative
 * to the stub's folder, else where it was when staged (`staged`: a folder moved within the app
 * keeps finding it). Undefined when it is at neither place (a bundle, a deployed folder).
 */
export function sourcePath(
  builtin: boolean,
  f: ManifestFile,
  stubDir: string | undefined,
): string | undefined {
  if (builtin) {
    const file = path.join(SOURCE_ROOT, f.path);
    return existsSync(file) ? file : undefined;
  }
  const near = stubDir === undefined ? undefined : path.resolve(stubDir, f.path);
  if (near !== undefined && existsSync(near)) return near;
  return f.staged !== undefined && existsSync(f.staged) ? f.staged : undefined;
}

/** Where a user's pass's source was looked for, for a message (see `sourcePath`). */
export function sourcePlaces(f: ManifestFile, stubDir: string | undefined): string {
  const near = stubDir === undefined ? f.path : path.resolve(stubDir, f.path);
  return `neither at ${near} nor at ${f.staged ?? f.path}`;
}

/** A source as found now: its hash, or why its file cannot be read. */
export type SourceNow =
  | { readonly sha: string; readonly file: string }
  | { readonly bad: string; readonly file: string }
  | undefined;

/**
 * The SHA-256 of a source now: `{ sha }` read from its file, `{ bad }` when the file is there but
 * cannot be read, undefined when there is no file.
 */
export function sourceHash(builtin: boolean, f: ManifestFile, stubDir: string | undefined): SourceNow {
  const file = sourcePath(builtin, f, stubDir);
  if (file === undefined) return undefined;
  try {
    return { sha: sha256(readSourceFile(file)), file }; // a regular file only: a FIFO would never end
  } catch (e) {
    return { bad: readFailure(e), file };
  }
}

/** The largest staged module a stub reads to check it (staged code grows with its description). */
const STAGED_MODULE_MAX = 2 ** 30;

/**
 * The text of the module `rel` beside the stub; undefined when there is no such file (a bundler
 * inlined the folder); `{ bad }` when there is something else there — a folder, a FIFO, a device,
 * a link out of the folder — which must not be imported (a FIFO would never end).
 */
export function readStaged(
  dir: string | undefined,
  rel: string,
): string | undefined | { readonly bad: string } {
  if (dir === undefined) return undefined;
  const file = path.resolve(dir, rel);
  try {
    lstatSync(file);
  } catch {
    return undefined;
  }
  try {
    return readSourceFile(file, STAGED_MODULE_MAX);
  } catch (e) {
    return { bad: readFailure(e) };
  }
}

/** Whether the module `rel` beside the stub in `dir` is there (a stat: nothing is read). */
export function stagedPresent(dir: string | undefined, rel: string): boolean {
  if (dir === undefined) return false;
  try {
    lstatSync(path.resolve(dir, rel));
    return true;
  } catch {
    return false;
  }
}

/** Flags under which other code resolves or loads modules, which `require` would not run. */
const HOOK_FLAGS = /(^|\s)(--import|--loader|--experimental-loader|--require|-r)(=|\s|$)/;

/**
 * A synchronous loader of the staged modules beside the stub at `url` (`require` of an ES module),
 * or undefined where importing them is the only way that loads them as an `import` would: from
 * the sources (a test runner's or tsx's modules), under a resolution hook (`module.register`,
 * the scf resolver, `--import`/`--loader` flags: `require` runs none of them), or on a node that
 * cannot require an ES module. The stub then imports them as it is imported.
 */
export function stagedLoader(url: string): ((rel: string) => unknown) | undefined {
  const dir = stubFolder(url);
  const canRequire = (process.features as { readonly require_module?: boolean }).require_module === true;
  if (dir === undefined || FROM_SOURCES || !canRequire || scfResolverRegistered()) return undefined;
  if (HOOK_FLAGS.test(`${process.execArgv.join(' ')} ${process.env.NODE_OPTIONS ?? ''}`)) return undefined;
  const req = createRequire(url);
  return (rel) => req(path.resolve(dir, rel));
}
