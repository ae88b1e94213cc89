/**
 * Checks of the places commands write (`scf stage --out DIR`, `scf bench --save FILE`), made before
 * the work that takes seconds, so that a bad place is bad input (exit 2) at once rather than an
 * internal error afterwards. Folders are made one level at a time: node's recursive mkdir never
 * returns for a path under /proc.
 */
import {
  accessSync,
  closeSync,
  constants,
  lstatSync,
  mkdirSync,
  openSync,
  rmdirSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { clip, fileProblem } from '../common/index.js';
import { UsageError } from './io.js';

/**
 * Writes `text` to `file` (checked by `prepareOutFile`); a failure — a full disk (`/dev/full`),
 * permissions changed meanwhile — is a UsageError naming `flag`, not an internal error. A symbolic
 * link at `file` is refused, not followed (`O_NOFOLLOW`), even one put there since the check.
 */
export function writeOutFile(file: string, text: string, flag: string): void {
  let fd: number;
  try {
    fd = openSync(file, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | NO_FOLLOW, 0o666);
  } catch (e) {
    if ((e as { code?: unknown }).code === 'ELOOP') throw linkRefused(file, flag);
    throw new UsageError(`cannot write ${flag} '${clip(file)}': ${fileProblem(e)}`);
  }
  try {
    writeFileSync(fd, text);
  } catch (e) {
    throw new UsageError(`cannot write ${flag} '${clip(file)}': ${fileProblem(e)}`);
  } finally {
    closeSync(fd);
  }
}

/** `O_NOFOLLOW` where the platform has it (not on Windows, whose links `prepareOutFile` refuses). */
const NO_FOLLOW = constants.O_NOFOLLOW ?? 0;

/** Output files are never written through a symbolic link: it would write wherever the link points. */
function linkRefused(file: string, flag: string): UsageError {
  return new UsageError(
    `${flag} '${clip(file)}' is a symbolic link: scf does not write through links (give the path of the file it points to, or remove the link)`,
  );
}

/**
 * Makes sure `out` is a folder this process can write into, creating it and missing parents, and
 * returns what undoes that: `removeCreated()` removes the folders it created, deepest first, each
 * only while it is still empty — never a file or folder that another process or the user put
 * there meanwhile. A UsageError naming `flag` otherwise: a file or a device (`/dev/null`), a path
 * through a file, a place where no folder can be made (`/proc/x`, `/sys/x`), a folder that cannot
 * be written (permissions, read-only mounts, `/proc`).
 */
export function prepareOutDir(out: string, flag: string): { readonly removeCreated: () => void } {
  const dir = path.resolve(out);
  const bad = (why: string): UsageError => new UsageError(`${flag} '${out}' ${why}`);
  // The nearest existing ancestor (or dir itself), and the missing folders below it.
  const missing: string[] = [];
  let at = dir;
  for (;;) {
    let isDir: boolean;
    try {
      isDir = statSync(at).isDirectory();
    } catch (e) {
      if ((e as { code?: unknown }).code !== 'ENOENT' || path.dirname(at) === at)
        throw bad(`cannot be used: ${fileProblem(e)}`);
      missing.unshift(at);
      at = path.dirname(at);
      continue;
    }
    if (!isDir)
      throw bad(at === dir ? 'is not a directory' : `cannot be created: '${at}' is not a directory`);
    break;
  }
  const undo = (): void => {
    for (const m of [...missing].reverse()) {
      try {
        rmdirSync(m);
      } catch {
        return; // not empty (something else is in it now), or gone: leave it and its parents
      }
    }
  };
  try {
    accessSync(at, constants.W_OK);
  } catch (e) {
    throw bad(`cannot be written: ${fileProblem(e)}`);
  }
  for (const m of missing) {
    try {
      mkdirSync(m);
    } catch (e) {
      undo();
      throw bad(`cannot be created: ${fileProblem(e)}`);
    }
  }
  // Permissions are not the whole story (/proc, read-only mounts): write a file and remove it.
  const probe = path.join(dir, `.scf-write-check-${process.pid}`);
  try {
    closeSync(openSync(probe, 'wx')); // exclusive: never through a link standing at that name
    unlinkSync(probe);
  } catch (e) {
    undo();
    throw bad(`cannot be written: ${fileProblem(e)}`);
  }
  return { removeCreated: undo };
}

/**
 * Makes sure `file` can be written: its folder as `prepareOutDir` (created if missing), and `file`
 * itself not a folder, a FIFO, a socket or a symbolic link (`writeOutFile` does not follow links).
 * A device such as /dev/null is fine: writing to it succeeds. Returns what removes the folders it
 * created (`prepareOutDir`), for a command that fails before it writes `file`.
 */
export function prepareOutFile(file: string, flag: string): { readonly removeCreated: () => void } {
  const target = path.resolve(file);
  let kind: 'folder' | 'FIFO' | 'socket' | 'link' | undefined;
  try {
    const st = lstatSync(target);
    kind = st.isSymbolicLink()
      ? 'link'
      : st.isDirectory()
        ? 'folder'
        : st.isFIFO()
          ? 'FIFO'
          : st.isSocket()
            ? 'socket'
            : undefined;
  } catch {
    // absent (or unreachable: prepareOutDir says why)
  }
  if (kind === 'link') throw linkRefused(file, flag);
  if (kind === 'folder') throw new UsageError(`${flag} '${clip(file)}' is a directory`);
  // writing to a FIFO waits for a reader that may never come
  if (kind !== undefined) throw new UsageError(`${flag} '${clip(file)}' is a ${kind}, not a file`);
  return prepareOutDir(path.dirname(target), `${flag} '${file}': folder`);
}

/**
 * `prepareOutFile` for each `[flag, file]` whose file is given, in order; what it returns removes
 * the folders all of them created (the last one's first), and a failure removes those already made.
 */
export function prepareOutFiles(files: readonly (readonly [string, string | undefined])[]): {
  readonly removeCreated: () => void;
} {
  const made: (() => void)[] = [];
  const removeCreated = (): void => {
    for (const undo of made.reverse()) undo();
    made.length = 0;
  };
  try {
    for (const [flag, file] of files) if (file) made.push(prepareOutFile(file, flag).removeCreated);
  } catch (e) {
    removeCreated();
    throw e;
  }
  return { removeCreated };
}
