/**
 * What a refused or failed source read says (source-file.ts reads; this file only words), kept apart
 * from the reading so that the browser twin of source-file.ts shares the words without node's fs.
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

/** Why a file-system call failed, as a clause (`no such file`, `permission denied`, …). */
export function readFailure(e: unknown): string {
  if (e instanceof SourceFileProblem) return e.why;
  const code = (e as { code?: unknown } | null)?.code;
  switch (code) {
    case 'ENOENT':
    case 'ENOTDIR':
      return 'no such file';
    case 'EISDIR':
      return 'is a directory';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'ELOOP':
      return 'too many symbolic links';
    case 'ENAMETOOLONG':
      return 'name too long';
    default:
      return typeof code === 'string' ? code : e instanceof Error ? e.message : String(e);
  }
}
