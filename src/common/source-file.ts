/**
 * Reading a file the user named as a source or a config — a kernel's C, an optimizer's
 * SCF-lang modules, a config's JSON — and nothing else. Every such read goes through
 * `readSourceFile`, which refuses, with a short reason (`SourceFileProblem.why`) and before
 * reading a byte:
 *
 * - what is not a regular file: a folder, a FIFO (opened without blocking, so a FIFO no one
 *   writes to cannot hang the command), a device (`/dev/zero` would never end), a socket;
 * - files of the system's pseudo file systems (`/proc`, `/sys`, `/dev`): never sources, and what
 *   a message would quote from them (`/proc/self/environ`) is not the user's to print;
 * - a symbolic link to a file outside both the link's folder and the working directory (a
 *   `kernel.c` that is a link to `/etc/passwd`): messages quote the sources they report on, and
 *   this one is not a file the user named;
 * - files larger than `MAX_SOURCE_BYTES`.
 *
 * A UTF-8 byte-order mark at the start is dropped (editors write one; positions are then counted
 * as the editor shows them).
 *
 * `recordSourceReads` lists what a piece of work read this way, each file with the SHA-256 of the
 * text it got (as gcc's `-MD` lists a compilation's headers): what a staged folder's build record
 * and `scf stage --deps` name as the stage's inputs. The record follows the work across `await`s
 * (node's AsyncLocalStorage), so two stages running at once in one process keep separate lists.
 */
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readFileSync,
  realpathSync,
  type Stats,
} from 'node:fs';
import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { MAX_SOURCE_BYTES, SourceFileProblem } from './source-errors.js';

export { fileProblem, MAX_SOURCE_BYTES, readFailure, SourceFileProblem } from './source-errors.js';

/** Pseudo file systems whose files are never sources. */
const SYSTEM_ROOTS = ['/proc', '/sys', '/dev'];

/**
 * Whether `p` (made absolute) lies in one of the system's pseudo file systems, where no source is
 * read and no folder is made (node's recursive mkdir never returns under /proc).
 */
export function inSystemFileSystem(p: string): boolean {
  const abs = path.resolve(p);
  return SYSTEM_ROOTS.some((r) => inside(abs, r));
}

function inside(file: string, dir: string): boolean {
  const rel = path.relative(dir, file);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

function kindOf(s: Stats): string {
  if (s.isDirectory()) return 'is a directory';
  if (s.isFIFO()) return 'is a FIFO (named pipe), not a regular file';
  if (s.isCharacterDevice() || s.isBlockDevice()) return 'is a device, not a regular file';
  if (s.isSocket()) return 'is a socket, not a regular file';
  return 'is not a regular file';
}

/**
 * The text of the source or config file `file` (relative to the working directory), UTF-8, its
 * byte-order mark dropped; at most `maxBytes` (a staged module, which scf wrote, may be bigger). Throws `SourceFileProblem` (see the header) or node's error for a
 * file that cannot be opened (`readFailure` words both).
 */
export function readSourceFile(file: string, maxBytes = MAX_SOURCE_BYTES): string {
  const abs = path.resolve(file);
  const link = lstatSync(abs).isSymbolicLink();
  const real = realpathSync(abs);
  if (SYSTEM_ROOTS.some((r) => inside(real, r)))
    throw new SourceFileProblem(`is a system file (${real}), not a source`);
  if (link && !inside(real, realpathSync(path.dirname(abs))) && !inside(real, realpathSync(process.cwd())))
    throw new SourceFileProblem(
      `is a link to a file outside its folder and the working directory (${real}); name that file itself`,
    );
  const fd = openSync(real, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const s = fstatSync(fd);
    if (!s.isFile()) throw new SourceFileProblem(kindOf(s));
    if (s.size > maxBytes)
      throw new SourceFileProblem(
        `is larger than ${Math.round(maxBytes / 1024 / 1024)} MiB (${s.size} bytes)`,
      );
    const raw = readFileSync(fd, 'utf8');
    const text = raw.charCodeAt(0) === 0xfeff ? raw.slice(1) : raw;
    const reads = recording.getStore();
    if (reads !== undefined && !reads.has(abs))
      reads.set(abs, createHash('sha256').update(text, 'utf8').digest('hex'));
    return text;
  } finally {
    closeSync(fd);
  }
}

/** The files read through `readSourceFile` while the work of `recordSourceReads` runs. */
const recording = new AsyncLocalStorage<Map<string, string>>();

/**
 * Runs `work`, and returns what it returned with every file it read through `readSourceFile`
 * (absolute path → SHA-256 of the text read, in the order first read). Work that fails throws as
 * it would have.
 */
export async function recordSourceReads<T>(
  work: () => T | Promise<T>,
): Promise<{ readonly value: T; readonly reads: ReadonlyMap<string, string> }> {
  const reads = new Map<string, string>();
  const value = await recording.run(reads, work);
  return { value, reads };
}
