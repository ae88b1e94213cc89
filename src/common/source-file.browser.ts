/**
 * source-file.ts in a browser bundle (package.json's "browser" map puts this file in its place): a
 * page has no file system, so every read is refused with the reason, in the same words and error
 * type as node's refusals (`SourceFileProblem`, `readFailure`).
 */
import { MAX_SOURCE_BYTES, SourceFileProblem } from './source-errors.js';

export { fileProblem, MAX_SOURCE_BYTES, readFailure, SourceFileProblem } from './source-errors.js';

/** No file of a page is in a system's pseudo file system. */
export function inSystemFileSystem(_p: string): boolean {
  return false;
}

/** Refuses: there is no file to read in a browser. */
export function readSourceFile(file: string, _maxBytes = MAX_SOURCE_BYTES): string {
  throw new SourceFileProblem(`cannot be read in a browser (no file system): ${file}`);
}

/** Runs `work`: a page reads no files, so it records none. */
export async function recordSourceReads<T>(
  work: () => T | Promise<T>,
): Promise<{ readonly value: T; readonly reads: ReadonlyMap<string, string> }> {
  return { value: await work(), reads: new Map() };
}
