/**
 * What a refused or failed source read, or any failed file-system call, says (source-file.ts reads;
 * this file only words), kept apart from the reading so that the browser twin of source-file.ts
 * shares the words without node's fs.
 */

/** The largest source or config file read (16 MiB). */
export const MAX_SOURCE_BYTES = 16 * 1024 * 1024;

/** A file that cannot be read as a source: `why` is a clause for messages (`is a directory`). */
export class SourceFileProblem extends Error {
  override readonly name = 'SourceFileProblem';
  constructor(readonly why: string) {
    super(why);
  }
}

/**
 * Why a file-system call failed, as a short clause for messages (`cannot read 'F': is a
 * directory`): from the error's `code`, else its message.
 */
export function fileProblem(e: unknown): string {
  const code = (e as { code?: unknown } | null)?.code;
  switch (code) {
    case 'ENOENT':
      return 'no such file or directory';
    case 'ENOTDIR':
      return 'a part of the path is not a directory';
    case 'EISDIR':
      return 'is a directory';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EROFS':
      return 'read-only file system';
    case 'ENOSPC':
      return 'no space left on the device';
    case 'ENAMETOOLONG':
      return 'name too long';
    case 'ELOOP':
      return 'too many symbolic links';
    default:
      return typeof code === 'string' ? code : e instanceof Error ? e.message : String(e);
  }
}

/**
 * Why a source could not be read, as a clause: a refusal's reason (`SourceFileProblem`), else
 * `fileProblem`'s, but a path that names no file is just `no such file`.
 */
export function readFailure(e: unknown): string {
  if (e instanceof SourceFileProblem) return e.why;
  const code = (e as { code?: unknown } | null)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR' ? 'no such file' : fileProblem(e);
}
