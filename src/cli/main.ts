/**
 * The `scf` command line: dispatches to one module per command. Every command takes its
 * arguments and a `CliIo` and returns an exit status; none lets an exception reach the user
 * as a stack trace — an unexpected one is reported as an internal error.
 *
 * Exit statuses: 0 success; 1 the input was examined and found wanting (`scf check`
 * diagnostics, a kernel's runtime error); 2 bad input (unreadable or malformed files, bad
 * flags, arguments or bindings); 3 internal error.
 *
 * The commands are one table, `COMMANDS`, from which both the dispatch and `scf --help` are
 * made, so the help cannot drift from what runs. Each command's module is imported only when
 * that command runs: `scf --help` and `scf --version` load this file and io.ts alone (the
 * stager, the kernel parser and Dawn take most of a second to load).
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { type CliIo, EXIT_BAD_INPUT, reportError, shortLines } from './io.js';

type Command = (argv: string[], io: CliIo) => number | Promise<number>;

interface CommandEntry {
  readonly name: string;
  /** The arguments after the name, for the help's one-line synopsis. */
  readonly usage: string;
  /** What the command does, one sentence (wrapped in the help). */
  readonly description: string;
  readonly load: () => Promise<Command>;
  /** Whether it may run GPU kernels, so that `mustExit` must ask the WebGPU runtime afterwards. */
  readonly runsGpu?: boolean;
  /**
   * Whether it walks kernels (or a user's entry), and so runs on the command thread (thread.ts),
   * given its arguments.
   */
  readonly largeStack?: (args: readonly string[]) => boolean;
}

/** Every command, in the order of `scf --help`. */
const COMMANDS: readonly CommandEntry[] = [
  {
    name: 'check',
    usage: 'FILE.ts... [--json]',
    description: 'check optimizers against the SCF-lang subset',
    load: async () => (await import('./check.js')).checkCommand,
  },
  {
    name: 'eval',
    usage: 'FILE.c --function F --args JSON',
    description: 'run a kernel function on the reference evaluator',
    load: async () => (await import('./eval.js')).evalCommand,
    largeStack: () => true,
  },
  {
    name: 'opt',
    usage: 'FILE.c --function F [--bind v=c …] [--passes P1,P2,…] [--staged DIR]',
    description: 'optimize a kernel function with the unstaged (or a staged) pipeline; prints C',
    load: async () => (await import('./opt.js')).optCommand,
    largeStack: () => true,
  },
  {
    name: 'kernel',
    usage: 'FILE.c --function F --emit wgsl|js [--bind v=c …] [--run --args JSON]',
    description:
      'generate WGSL or JavaScript for a kernel function; with --run, run it on WebGPU or the JS back end',
    load: async () => (await import('./kernel.js')).kernelCommand,
    runsGpu: true,
    largeStack: (args) => !mayRunOnGpu(args),
  },
  {
    name: 'stage',
    usage: 'CONFIG.json --out DIR',
    description:
      'stage an optimizer pipeline for an early-stage description; writes staged optimizers and a stub, prints I2, I3, …',
    load: async () => (await import('./stage.js')).stageCommand,
    largeStack: () => true,
  },
  {
    name: 'test',
    usage: 'CONFIG.json [--runs N]',
    description:
      "check an entry config's staged function against the unstaged one on draws from its descriptions",
    load: async () => (await import('./test.js')).testCommand,
    largeStack: () => true,
  },
  {
    name: 'bench',
    usage: '[--json] [--config N]',
    description: "staged vs unstaged pipelines on SCF Table 2's configurations",
    load: async () => (await import('./bench.js')).benchCommand,
  },
];

/** Column where the help's descriptions start, and the width it wraps them to. */
const DESCRIPTION_COL = 36;
const HELP_WIDTH = 100;

function commandHelp(c: CommandEntry): string {
  const synopsis = `  ${c.name} ${c.usage}`;
  const indent = ' '.repeat(DESCRIPTION_COL);
  const lines: string[] = [];
  let line = '';
  for (const word of c.description.split(' ')) {
    if (line !== '' && DESCRIPTION_COL + line.length + 1 + word.length > HELP_WIDTH) {
      lines.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  lines.push(line);
  const text = lines.join(`\n${indent}`);
  return synopsis.length < DESCRIPTION_COL - 1
    ? `${synopsis.padEnd(DESCRIPTION_COL)}${text}`
    : `${synopsis}\n${indent}${text}`;
}

const HELP = `scf — a staged compilation framework

Usage: scf <command> [options]

Commands:
${COMMANDS.map(commandHelp).join('\n')}

Options:
  -h, --help                        show this help
  -V, --version                     print scf's version

Run 'scf <command> --help' for a command's options.`;

/**
 * scf's version, from its package.json: two folders up from this module both as
 * src/cli/main.ts (run by tsx) and as a compiled dist/cli/main.js.
 */
export function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version?: unknown;
  };
  return String(pkg.version);
}

/** Set when a command that runs GPU kernels abandoned one; see `mustExit`. */
let gpuAbandoned = false;

export async function main(argv: readonly string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined) {
    io.err(HELP);
    return EXIT_BAD_INPUT;
  }
  if (name === '--help' || name === '-h' || name === 'help') {
    io.out(HELP);
    return 0;
  }
  if (name === '--version' || name === '-V') {
    io.out(`scf ${version()}`);
    return 0;
  }
  const entry = COMMANDS.find((c) => c.name === name);
  if (entry === undefined) {
    io.err(
      shortLines(
        name.startsWith('-')
          ? `scf: unknown option '${name}'\nRun 'scf --help' for its options.`
          : `scf: unknown command '${name}'\nRun 'scf --help' for the commands.`,
      ),
    );
    return EXIT_BAD_INPUT;
  }
  let loaded = false;
  try {
    const cmd = await entry.load();
    loaded = true;
    return await cmd(rest, io);
  } catch (e) {
    return reportError(name, io, e);
  } finally {
    if (entry.runsGpu && loaded) {
      // The command's module loaded the runtime already, so this import costs nothing.
      const { GpuRuntime } = await import('../target/index.js');
      gpuAbandoned ||= GpuRuntime.anyAbandoned;
    }
  }
}

/**
 * Whether `scf kernel ARGS` may run a kernel on WebGPU (`--run` without `--emit js` or `--backend
 * js`; read leniently: the command itself checks its flags). Such a run stays on the main thread,
 * with MAX_TREE_DEPTH: a kernel that never ends leaves Dawn waiting for its device, which keeps a
 * worker thread from ever stopping, and so the process from exiting; the main thread exits anyway.
 */
function mayRunOnGpu(args: readonly string[]): boolean {
  const { values } = parseArgs({
    args: [...args],
    strict: false,
    allowPositionals: true,
    options: {
      run: { type: 'boolean', short: 'r' },
      emit: { type: 'string', short: 'e' },
      backend: { type: 'string', short: 'b' },
    },
  });
  return values.run === true && values.emit !== 'js' && values.backend !== 'js';
}

/** Writes a command's lines to the process's stdout and stderr. */
const STDIO: CliIo = {
  out: (s) => process.stdout.write(`${s}\n`),
  err: (s) => process.stderr.write(`${s}\n`),
};

/**
 * The `scf` command: runs `argv`, setting the exit status. A command that walks kernels runs on
 * the command thread, whose worker evaluates `boot` (thread.ts; undefined: in this thread, with
 * node's default stack), the others here; all do when node was given `--stack-size`.
 */
export async function commandLine(argv: readonly string[], boot: string | undefined): Promise<void> {
  if (boot !== undefined && COMMANDS.find((c) => c.name === argv[0])?.largeStack?.(argv.slice(1))) {
    const { runOnThread, stackSizeGiven } = await import('./thread.js');
    if (!stackSizeGiven()) {
      await runOnThread(argv, boot);
      return;
    }
  }
  process.exitCode = await main(argv, STDIO);
  if (mustExit()) process.exit();
}

const isEntry = process.argv[1] !== undefined && /[\\/]cli[\\/]main\.[jt]s$/.test(process.argv[1]);
if (isEntry) await commandLine(process.argv.slice(2), undefined);

/**
 * Whether the process must be ended with process.exit: a GPU kernel that did not finish was
 * abandoned, and Dawn would keep the process waiting for it (stdout and stderr writes to files
 * and pipes are synchronous on Linux, so nothing printed is lost).
 */
export function mustExit(): boolean {
  return gpuAbandoned;
}
