/** Where a CLI command writes: injected so tests run commands in-process and read their output. */
export interface CliIo {
  readonly out: (s: string) => void;
  readonly err: (s: string) => void;
}

/** Exit status for bad input: unreadable or malformed files, bad flags or arguments. */
export const EXIT_BAD_INPUT = 2;
/** Exit status for an internal error (a bug in scf, reported without a stack trace). */
export const EXIT_INTERNAL = 3;
