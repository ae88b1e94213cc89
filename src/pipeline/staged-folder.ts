/**
 * Publishing a staged folder so that no reader ever runs a mix of two stages, and nothing outside
 * the folder is written or removed (write.ts decides what the files are; this decides how they
 * reach the disk).
 *
 * Algorithm. Under the folder's lock (`.scf-stage.lock`, created exclusively, holding the pid):
 * 1. remove what interrupted stages left (`.scf-stage-PID-*` folders of processes that are gone);
 * 2. write every file into a fresh temporary folder inside the target (`.scf-stage-PID-XXXXXX`),
 *    so that a full disk or a kill leaves the published files as they were;
 * 3. rename each file into place, the stub last: a rename replaces the name atomically and never
 *    writes through a symbolic link that stands at that name (it replaces the link);
 * 4. remove the files of an earlier stage of the same function that this one no longer has;
 * 5. remove the temporary folder and release the lock.
 *
 * Invariants
 * - A reader sees, per name, either the old file or the new one, never a partial one. The stub
 *   holds the SHA-256 of each module it imports and checks them before importing
 *   (runtime/stub.ts), so an old stub over new modules (a stage killed between steps 3 and 4)
 *   runs the unstaged pipeline with a warning, never the wrong staged code.
 * - Two stages into one folder publish one after the other (the second waits for the lock, up to
 *   `LOCK_WAIT_MS`); a lock whose process is gone is broken. Waiting is the only wall-clock in
 *   this file, and it decides only when the files are written, never what they contain.
 * - Only names inside the folder are written or removed: the temporary folder, the lock, the
 *   published files and the stale files of step 4, which match the function's own pattern.
 */
import {
  closeSync,
  lstatSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  type Stats,
  writeFileSync,
  writeSync,
} from 'node:fs';
import path from 'node:path';
import type { FolderFile } from './staged-text.js';

/** The lock file of a folder being published into. */
export const LOCK_FILE = '.scf-stage.lock';
/** Prefix of the temporary folders (followed by the writer's pid and a unique suffix). */
export const TEMP_PREFIX = '.scf-stage-';
/** How long a stage waits for another one publishing into the same folder. */
export const LOCK_WAIT_MS = 30_000;

/** Another live process holds the folder's lock for longer than `LOCK_WAIT_MS`. */
export class FolderBusy extends Error {
  override readonly name = 'FolderBusy';
}

/**
 * Publishes `files` into the existing folder `dir`, in order (the last one — the stub — is what
 * makes the others reachable), then removes the names `stale(name)` accepts that `files` does
 * not contain. Throws node's file-system errors (a full disk, permissions) after removing its
 * temporary folder, and `FolderBusy`.
 */
export function publishFolder(
  dir: string,
  files: readonly FolderFile[],
  stale: (name: string) => boolean,
): void {
  const release = acquireLock(dir);
  try {
    removeAbandoned(dir);
    const tmp = mkdtempSync(path.join(dir, `${TEMP_PREFIX}${process.pid}-`));
    try {
      for (const f of files) writeFileSync(path.join(tmp, f.name), f.text, { flag: 'wx' });
      for (const f of files) renameSync(path.join(tmp, f.name), path.join(dir, f.name));
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
    const kept = new Set(files.map((f) => f.name));
    for (const name of readdirSync(dir)) {
      if (kept.has(name) || !stale(name)) continue;
      // unlink removes a link itself, never what it points to
      if (!lstatSync(path.join(dir, name)).isDirectory()) rmSync(path.join(dir, name), { force: true });
    }
  } finally {
    release();
  }
}

/** Whether process `pid` exists on this machine. */
function alive(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as { code?: unknown }).code === 'EPERM';
  }
}

function sleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * Takes `dir`'s lock (`lockName` in it), waiting for a live holder up to `waitMs` and breaking a
 * dead one's; returns its release. Throws `FolderBusy` when the wait runs out (at once for a
 * `waitMs` of 0).
 */
export function acquireLock(dir: string, lockName = LOCK_FILE, waitMs = LOCK_WAIT_MS): () => void {
  const lock = path.join(dir, lockName);
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      const fd = openSync(lock, 'wx');
      try {
        writeSync(fd, String(process.pid));
      } finally {
        closeSync(fd);
      }
      return () => rmSync(lock, { force: true });
    } catch (e) {
      if ((e as { code?: unknown }).code !== 'EEXIST') throw e;
    }
    const holder = lockHolder(lock);
    if (holder === 'gone') continue;
    if (holder === 'dead') {
      rmSync(lock, { force: true }); // a link is removed itself, never what it points to
      continue;
    }
    if (holder === 'foreign')
      throw new FolderBusy(`'${lock}' is not a lock file of scf's (a folder, a device or a FIFO); remove it`);
    if (Date.now() >= deadline)
      throw new FolderBusy(
        `another scf process (${holder === 'young' ? 'starting' : `pid ${holder}`}) is writing into '${dir}'; try again when it has finished, or remove ${lockName} if it is not running`,
      );
    sleep(50);
  }
}

/**
 * Who holds the lock, looked at without following links or reading what is not a regular file:
 * a live pid; 'young' (empty: its writer has not written its pid yet); 'dead' (a pid that is gone,
 * text that is no pid, an empty lock older than a second, a symbolic link — scf makes none);
 * 'gone' (released meanwhile); 'foreign' (a folder, a FIFO, a device: not scf's).
 */
function lockHolder(lock: string): number | 'young' | 'dead' | 'gone' | 'foreign' {
  let st: Stats;
  try {
    st = lstatSync(lock);
  } catch {
    return 'gone';
  }
  if (st.isSymbolicLink()) return 'dead';
  if (!st.isFile()) return 'foreign';
  let text: string;
  try {
    text = readFileSync(lock, 'utf8');
  } catch {
    return 'gone';
  }
  if (text === '') return Date.now() - st.mtimeMs > 1000 ? 'dead' : 'young';
  if (!/^[1-9]\d{0,9}$/.test(text)) return 'dead';
  const pid = Number(text);
  return alive(pid) ? pid : 'dead';
}

/** Removes the temporary folders of stages whose process is gone (killed while publishing). */
function removeAbandoned(dir: string): void {
  for (const name of readdirSync(dir)) {
    const m = new RegExp(`^${TEMP_PREFIX.replaceAll('.', '\\.')}(\\d+)-`).exec(name);
    if (m === null || alive(Number(m[1]))) continue;
    const p = path.join(dir, name);
    if (lstatSync(p).isDirectory()) rmSync(p, { recursive: true, force: true });
  }
}
