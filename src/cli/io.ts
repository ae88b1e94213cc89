/** Where a CLI command writes: injected so tests run commands in-process and read their output. */
export interface CliIo {
  readonly out: (s: string) => void;
  readonly err: (s: string) => void;
}
