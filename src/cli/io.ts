/**
 * What every CLI command shares: where it writes, its exit statuses, and how it reads its flags.
 * This module is loaded by `scf --help` and `scf --version` too, so it imports nothing heavier
 * than node:util and the words of a missing optional package.
 */
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { MissingPackage } from '../common/optional-errors.js';

/** Where a CLI command writes: injected so tests run commands in-process and read their output. */
export interface CliIo {
  readonly out: (s: string) => void;
  readonly err: (s: string) => void;
}

let stderrTerminal = false;

/**
 * Whether the command's stderr is a terminal (progress is shown once a second there): the
 * process's, or the one the command thread writes to (thread.ts tells it with `setStderrTerminal`).
 */
export function stderrIsTerminal(): boolean {
  return process.stderr.isTTY === true || stderrTerminal;
}

export function setStderrTerminal(terminal: boolean): void {
  stderrTerminal = terminal;
}

/** Exit status for bad input: unreadable or malformed files, bad flags or arguments. */
export const EXIT_BAD_INPUT = 2;
/** Exit status for an internal error (a bug in scf, reported without a stack trace). */
export const EXIT_INTERNAL = 3;

/**
 * Bad input to a command: printed as `scf CMD: MESSAGE` (the message may span lines), exit
 * status 2; with `showHelp`, the command's help follows (for a call that names no input or
 * combines flags wrongly). The `scf` dispatcher reports one that a command lets escape the same way.
 */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly showHelp = false,
  ) {
    super(message);
  }
}

/**
 * How a command reports an error class of its own: the exit status (bad input unless said) and
 * whether the message is printed as it is (it names its own place, `file:line:col: …`) rather
 * than after `scf CMD: `.
 */
export interface ErrorRule {
  readonly type: abstract new (...args: never[]) => Error;
  readonly status?: number;
  readonly asIs?: boolean;
}

/**
 * What every command does with what its body throws: an error of one of `rules` as the rule says,
 * a `UsageError` or a `MissingPackage` (an optional package a feature needs, common/optional.ts)
 * as `scf NAME: MESSAGE` with exit status 2, anything else as an internal error
 * (exit 3) without a stack trace — unless `SCF_DEBUG` is set, which adds it.
 */
export function reportError(name: string, io: CliIo, e: unknown, rules: readonly ErrorRule[] = []): number {
  for (const r of rules) {
    if (e instanceof r.type) {
      io.err(shortLines(r.asIs ? e.message : `scf ${name}: ${e.message}`));
      return r.status ?? EXIT_BAD_INPUT;
    }
  }
  if (e instanceof UsageError || e instanceof MissingPackage) {
    io.err(shortLines(`scf ${name}: ${e.message}`));
    return EXIT_BAD_INPUT;
  }
  io.err(shortLines(`scf ${name}: internal error: ${e instanceof Error ? e.message : String(e)}`));
  if (process.env.SCF_DEBUG) io.err(String(e instanceof Error ? e.stack : e));
  return EXIT_INTERNAL;
}

/** Longest line of a message: what a user typed (a megabyte-long flag or name) is cut, not echoed. */
export const MESSAGE_LINE_MAX = 1000;

/** `message` with every line longer than MESSAGE_LINE_MAX cut, ending in `…`. */
export function shortLines(message: string): string {
  return message
    .split('\n')
    .map((l) => (l.length <= MESSAGE_LINE_MAX ? l : `${l.slice(0, MESSAGE_LINE_MAX - 1)}…`))
    .join('\n');
}

/** A command's flags, as node's `parseArgs` takes them. */
export type CommandOptions = NonNullable<ParseArgsConfig['options']>;

/** What `parseCommandArgs` returns for options `O`: parseArgs' result, typed per flag. */
export type ParsedCommandArgs<O extends CommandOptions> = ReturnType<
  typeof parseArgs<{ args: string[]; options: O; allowPositionals: true; strict: true }>
>;

/**
 * One flag of a command: what node's `parseArgs` needs (`type`, `short`, `multiple`) and what its
 * help says (`value`, the placeholder of a string flag's value; `help`, lines joined by `\n`).
 * The same record drives the parser and the help, so the help lists exactly the accepted flags.
 */
export interface Flag {
  readonly type: 'string' | 'boolean';
  readonly short?: string;
  readonly multiple?: boolean;
  readonly value?: string;
  readonly help: string;
}

/** A command's flags by long name, in the order its help lists them (`--help` is added last). */
export type Flags = Readonly<Record<string, Flag>>;

/** A command's help and flags: `scf CMD --help` is made from it, and its flags are parsed by it. */
export interface CommandSpec<F extends Flags = Flags> {
  readonly name: string;
  /** The synopsis after `Usage: ` (it may span lines). */
  readonly usage: string;
  /** What the command does, before the options. */
  readonly about: string;
  readonly flags: F;
  /** What follows the options (formats, exit statuses, lists). */
  readonly notes?: string;
}

/** The `-h, --help` flag every command has. */
const HELP_FLAG = { type: 'boolean', short: 'h', help: 'show this help' } as const satisfies Flag;

/** A command's flags and the `-h, --help` every command has (listed last). */
function withHelp<F extends Flags>(flags: F): F & { readonly help: typeof HELP_FLAG } {
  return { ...flags, help: HELP_FLAG };
}

/** `scf CMD --help`: usage, what it does, and one aligned line (or more) per flag of `spec`. */
export function commandHelp(spec: CommandSpec): string {
  const flags: Flags = withHelp(spec.flags);
  const left = Object.entries(flags).map(
    ([name, f]) =>
      `  ${f.short === undefined ? '    ' : `-${f.short}, `}--${name}${f.value ? ` ${f.value}` : ''}`,
  );
  const col = Math.max(...left.map((l) => l.length)) + 2;
  const options = Object.values(flags).map((f, i) =>
    f.help
      .split('\n')
      .map((line, j) => `${(j === 0 ? (left[i] as string) : '').padEnd(col)}${line}`)
      .join('\n'),
  );
  const parts = [`Usage: ${spec.usage}`, spec.about, `Options:\n${options.join('\n')}`];
  if (spec.notes !== undefined) parts.push(spec.notes);
  return parts.join('\n\n');
}

/** What a command's body gets: its flags and positionals, parsed by its spec. */
export type CommandArgs<F extends Flags> = ParsedCommandArgs<F & CommandOptions>;

/**
 * A command: parses `argv` by `spec`'s flags, answers `--help` with the spec's help, runs `body`
 * otherwise, and reports what the body throws with `reportError` under `rules` (the command's
 * own error classes). Every `scf` command is one of these, so they differ only in their bodies.
 */
export function defineCommand<const F extends Flags>(
  spec: CommandSpec<F>,
  body: (args: CommandArgs<F>, io: CliIo) => number | Promise<number>,
  rules: readonly ErrorRule[] = [],
): (argv: readonly string[], io: CliIo) => Promise<number> {
  return async (argv, io) => {
    try {
      const args = parseCommand(spec, argv);
      if ((args.values as { help?: boolean }).help) {
        io.out(commandHelp(spec));
        return 0;
      }
      return await body(args, io);
    } catch (e) {
      if (e instanceof UsageError && e.showHelp) {
        io.err(`${shortLines(`scf ${spec.name}: ${e.message}`)}\n\n${commandHelp(spec)}`);
        return EXIT_BAD_INPUT;
      }
      return reportError(spec.name, io, e, rules);
    }
  };
}

/** Parses `argv` by the flags of `spec` (see `parseCommandArgs`). */
export function parseCommand<const F extends Flags>(
  spec: CommandSpec<F>,
  argv: readonly string[],
): ParsedCommandArgs<F & CommandOptions> {
  return parseCommandArgs(spec.name, argv, withHelp(spec.flags) as F & CommandOptions);
}

/**
 * Parses a command's flags with node's `parseArgs` in strict mode (positionals allowed), and
 * turns its errors into one uniform `UsageError`:
 *
 *     scf check: unknown option '--foo'
 *     Run 'scf check --help' for its options.
 *
 * `cmd` is the command's name as typed after `scf`.
 */
export function parseCommandArgs<const O extends CommandOptions>(
  cmd: string,
  argv: readonly string[],
  options: O,
): ParsedCommandArgs<O> {
  try {
    return parseArgs({ args: [...argv], options, allowPositionals: true, strict: true });
  } catch (e) {
    throw new UsageError(`${parseArgsProblem(e)}\nRun 'scf ${cmd} --help' for its options.`);
  }
}

/**
 * parseArgs' error as one short clause: `unknown option '--foo'` (without node's advice on
 * positionals that start with '-'), `option '--out <value>' argument missing`, ….
 */
function parseArgsProblem(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  const code = (e as { code?: string }).code;
  const quoted = /'([^']*)'/.exec(e.message)?.[1];
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && quoted !== undefined) return `unknown option '${quoted}'`;
  if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL' && quoted !== undefined)
    return `unexpected argument '${quoted}'`;
  // The first sentence, lower-cased to follow `scf CMD: `.
  const first = e.message.split(/\.(?:\s|$)/)[0] ?? e.message;
  return first.charAt(0).toLowerCase() + first.slice(1);
}
