/**
 * The `scf` command line: dispatches to one module per command. Every command takes its
 * arguments and a `CliIo` and returns an exit status; none lets an exception reach the user
 * as a stack trace — an unexpected one is reported as an internal error.
 *
 * Exit statuses: 0 success; 1 the input was examined and found wanting (`scf check`
 * diagnostics, a kernel's runtime error); 2 bad input (unreadable or malformed files, bad
 * flags, arguments or bindings); 3 internal error.
 */
import { benchCommand } from './bench.js';
import { checkCommand } from './check.js';
import { evalCommand } from './eval.js';
import { type CliIo, EXIT_BAD_INPUT, EXIT_INTERNAL } from './io.js';
import { kernelCommand } from './kernel.js';
import { optCommand } from './opt.js';
import { stageCommand } from './stage.js';
import { GpuRuntime } from '../target/index.js';

const HELP = `scf — a staged compilation framework

Usage: scf <command> [options]

Commands:
  check FILE.ts                     check an optimizer against the SCF-lang subset
  eval FILE.c --function F --args JSON
                                    run a kernel function on the reference evaluator
  opt FILE.c --function F [--bind v=c …] [--passes const-prop,copy-prop,dae]
                                    optimize a kernel function (unstaged pipeline); prints C
  kernel FILE.c --function F --emit wgsl|js [--bind v=c …] [--run --args JSON]
                                    generate WGSL or JavaScript for a kernel function; with
                                    --run, run it on WebGPU or the JS back end
  stage CONFIG.json --out DIR       stage an optimizer pipeline for an early-stage description;
                                    writes staged optimizers and a stub, prints I2, I3, …
  bench [--json] [--config N]       staged vs unstaged pipelines on SCF Table 2's configurations

Run 'scf <command> --help' for a command's options.`;

type Command = (argv: string[], io: CliIo) => number | Promise<number>;

const COMMANDS: Record<string, Command> = {
  bench: benchCommand,
  check: checkCommand,
  eval: evalCommand,
  kernel: kernelCommand,
  opt: optCommand,
  stage: stageCommand,
};

export async function main(argv: readonly string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.out(HELP);
    return name === undefined ? EXIT_BAD_INPUT : 0;
  }
  const cmd = COMMANDS[name];
  if (cmd === undefined) {
    io.err(`scf: unknown command '${name}'\n\n${HELP}`);
    return EXIT_BAD_INPUT;
  }
  try {
    return await cmd(rest, io);
  } catch (e) {
    io.err(`scf ${name}: internal error: ${e instanceof Error ? e.message : String(e)}`);
    if (process.env.SCF_DEBUG) io.err(String(e instanceof Error ? e.stack : e));
    return EXIT_INTERNAL;
  }
}

const isEntry = process.argv[1] !== undefined && /[\\/]main\.ts$/.test(process.argv[1]);
if (isEntry) {
  process.exitCode = await main(process.argv.slice(2), {
    out: (s) => process.stdout.write(`${s}\n`),
    err: (s) => process.stderr.write(`${s}\n`),
  });
  if (mustExit()) process.exit();
}

/**
 * Whether the process must be ended with process.exit: a GPU kernel that did not finish was
 * abandoned, and Dawn would keep the process waiting for it (stdout and stderr writes to files
 * and pipes are synchronous on Linux, so nothing printed is lost).
 */
export function mustExit(): boolean {
  return GpuRuntime.anyAbandoned;
}
