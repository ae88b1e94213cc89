/**
 * `scf test CONFIG.json [--runs N] [--seed S] [--fuel F]`: for an entry config, stages it and
 * checks staged ≡ unstaged on arguments drawn from its own descriptions (pipeline/test-entry.ts),
 * printing how many draws were compared and skipped, or the first draw that differs (shrunk),
 * with the seed that replays it.
 *
 * Exit status: 0 equal on every draw; 1 a draw differs; 2 bad input (a config that does not load,
 * positioned); 3 an internal error.
 */
import { ConfigError, isEntryConfigText, loadEntry, loadEntryConfig, testEntry } from '../pipeline/index.js';
import { PassError } from '../optimizers/index.js';
import { readSourceFile } from '../common/index.js';
import { type CliIo, type CommandArgs, type CommandSpec, defineCommand } from './io.js';
import { UsageError } from './kernel-input.js';

export const TEST = {
  name: 'test',
  usage: 'scf test CONFIG.json [--runs N] [--seed S] [--fuel F]',
  about: `Stages the entry config CONFIG (docs/own-ir.md) into a temporary folder and checks that its
staged function returns what the unstaged function returns, on arguments drawn from the config's
own descriptions (fast-check): each described parameter from its description, each other one
(unknown early) from any value of its type. A draw on which the unstaged function runs
out of fuel or the stack decides nothing and is counted as skipped.`,
  notes: `Exit status: 0 equal on every draw; 1 a draw differs (printed, shrunk, with the seed that
replays it); 2 bad input; 3 an internal error (a bug in scf).`,
  flags: {
    runs: { type: 'string', short: 'n', value: 'N', help: 'draws to compare (default 100)' },
    seed: { type: 'string', value: 'S', help: 'the random seed (default: from the clock; printed)' },
    fuel: {
      type: 'string',
      value: 'F',
      help: 'calls the unstaged function may make per draw (default 1000000; SCF_PASS_FUEL otherwise)',
    },
  },
} satisfies CommandSpec;

export const testCommand = defineCommand(TEST, run, [{ type: ConfigError, asIs: true }, { type: PassError }]);

function positive(flag: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < 0)
    throw new UsageError(`--${flag} must be a non-negative integer, got '${text}'`);
  return n;
}

async function run({ values, positionals }: CommandArgs<typeof TEST.flags>, io: CliIo): Promise<number> {
  if (positionals.length !== 1) throw new UsageError('expected exactly one CONFIG.json (see --help)');
  const file = positionals[0] as string;
  const runs = positive('runs', values.runs, 100);
  const fuel = positive('fuel', values.fuel, 1_000_000);
  const seed = values.seed === undefined ? undefined : positive('seed', values.seed, 0);
  let text: string | undefined;
  try {
    text = readSourceFile(file);
  } catch {
    text = undefined; // loadEntryConfig says why
  }
  if (text !== undefined && !isEntryConfigText(text))
    throw new UsageError(
      `'${file}' is a kernel config: scf test takes an entry config ("entry": "./file.ts#name"; docs/own-ir.md)`,
    );
  const loaded = loadEntry(loadEntryConfig(file));
  if (fuel > 0) process.env.SCF_PASS_FUEL = String(fuel);
  io.err(`staging ${loaded.config.entry} and comparing ${runs} draws …`);
  const r = await testEntry(loaded, { runs, ...(seed !== undefined ? { seed } : {}) });
  if (r.failure) {
    io.out(
      [
        `${file}: staged and unstaged differ (seed ${r.seed}, path ${r.failure.path})`,
        `  arguments: ${JSON.stringify(r.failure.args)}`,
        `  staged:    ${r.failure.staged}`,
        `  unstaged:  ${r.failure.unstaged}`,
      ].join('\n'),
    );
    return 1;
  }
  io.out(
    `${file}: staged ≡ unstaged on ${r.compared} of ${r.runs} draws (${r.skipped} skipped: out of fuel or stack; seed ${r.seed})`,
  );
  return 0;
}
