/**
 * `scf stage CONFIG.json --out DIR [--k N] [--quiet] [--explain] [--json]`: stages the config's pipeline against its
 * early-stage description (SCF Fig. 4), writes the staged optimizers (`*.staged.mjs`), the stub
 * and the abstract programs into DIR, and prints I1, I2, … in Fig. 6 notation with what each
 * stage took (time, sizes, why partial evaluation stopped).
 *
 * Bad input (unreadable or malformed config, description that does not fit the function,
 * unknown pass, kernel parse errors, an optimizer outside SCF-lang) is reported as
 * `FILE:LINE:COL: error CODE: …` where the position is known (a config's `Cnnnn`, a kernel's `Knnnn`),
 * exit 2; never a stack trace. The folder is published atomically (pipeline/staged-folder.ts).
 */
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { printAbs } from '../abstract-values/index.js';
import { K } from '../partial-eval/index.js';
import { OptimizerError, PassError } from '../optimizers/index.js';
import {
  ConfigError,
  describeStages,
  explainStages,
  FolderBusy,
  LOCK_FILE,
  LOCK_WAIT_MS,
  makeRule,
  PassTrialError,
  PRINT_ALTS,
  PRINT_LINE,
  type StagedEntry,
  type StagedFile as PipelineStagedFile,
  stageConfigFile,
  stageReport,
} from '../pipeline/index.js';
import { fileProblem } from '../common/index.js';
import {
  type CliIo,
  type CommandArgs,
  type CommandSpec,
  defineCommand,
  type ErrorRule,
  reportError,
  stderrIsTerminal,
} from './io.js';
import { UsageError } from './kernel-input.js';
import { prepareOutDir, prepareOutFile, writeOutFile } from './out-path.js';
import { type JobResult, type StageJob, stageFolder } from './stage-dir.js';

export const STAGE = {
  name: 'stage',
  usage: `scf stage CONFIG.json --out DIR [--k N] [--per-pass] [--quiet] [--full] [--explain] [--json] [--deps FILE]
       scf stage DIR --out OUT [--jobs N] [--force] [--k N] [--per-pass] [--deps FILE]`,
  about: `Stages the optimizer pipeline of CONFIG for what it says is known early about the function's
formals, writes into DIR one staged optimizer per pass (NAME.PASS.staged.mjs; or, where the
pipeline stages as one program, the composition of its passes, NAME.whole.staged.mjs), a stub
(NAME.stub.mjs, whose specialize(values) runs the staged pipeline; typed by NAME.stub.d.mts),
a manifest of what it was staged from (NAME.manifest.json) and NAME.abstract.txt, and prints
the abstract programs I1, I2, ... (SCF Fig. 6 notation). The modules import only scf/runtime.

CONFIG is JSON: { "input": "file.c", "function": "mul_add", "pipeline": ["const-prop","copy-prop","dae"],
                  "bind": { "a": "'Int" }, "sample": { "a": 1 } }
  bind values: 'Int, 'Float, 'Bool, literals (3, 1.5), unions (0|1), arrays ([0,1,7]), 'Array, 'Array[3]
  pipeline entries: built-in passes, or paths of your own SCF-lang optimizers ("./passes/mine.ts")

An entry config stages one SCF-lang function of yours over your own types instead (docs/own-ir.md):
  { "entry": "./interp.ts#run", "bind": { "program": [{ "kind": "push", "value": 1 }, ...] } }
  writes EXPORT.staged.mjs and EXPORT.stub.mjs, which exports EXPORT with the entry's parameters

Given a folder DIR, it stages every config in it (*.json with "input" or "entry"; other JSON is
skipped) into OUT/<config name>/, on N worker threads, and skips a config whose folder is up to
date: its build record (NAME.build.json) lists the files the last stage read and wrote, and none
of them, nor scf, nor --k, changed since. A failing config does not stop the others.`,
  notes: `The files are written into a temporary folder inside DIR and renamed into place under a lock
(DIR/${LOCK_FILE}), the stub last, so that an interrupted or concurrent stage never leaves a stub
that runs another stage's modules; the stub checks each staged module's SHA-256 before importing it.

Exit status: 0 staged; 2 bad input: an unreadable or malformed config (FILE:LINE:COL), a kernel or
an optimizer that does not check, a user's pass that fails as it stages, DIR not writable or held
by another stage for over ${LOCK_WAIT_MS / 1000} s; 3 an internal error (a bug in scf). On a folder: 0 every
config staged or up to date; 1 some config failed (each is reported); 2 bad input to the command.`,
  flags: {
    out: { type: 'string', short: 'o', value: 'DIR', help: 'where to write the staged modules (required)' },
    k: {
      type: 'string',
      short: 'k',
      value: 'N',
      help: 'call-chain bound of the partial evaluator (default 2)',
    },
    'per-pass': {
      type: 'boolean',
      help: `stage one module per pass (NAME.PASS.staged.mjs), whatever the config's "staging" says; by
default a pipeline of built-in passes whose composition stages within the trial budget is staged
as one program (NAME.whole.staged.mjs, docs/config.md)`,
    },
    quiet: { type: 'boolean', short: 'q', help: 'do not print the abstract programs' },
    jobs: {
      type: 'string',
      short: 'j',
      value: 'N',
      help: 'on a folder: stage up to N configs at once, on worker threads (default: the core count)',
    },
    force: { type: 'boolean', help: 'on a folder: stage every config, up to date or not' },
    deps: {
      type: 'string',
      value: 'FILE',
      help: `write into FILE, as a make rule per config (gcc -MD's format), the files each stage
read: a build system with a cache keys the action by them (docs/build.md)`,
    },
    full: {
      type: 'boolean',
      help: `print the abstract programs whole: by default a union longer than ${PRINT_LINE} characters,
or of more than ${PRINT_ALTS} blocks, is cut short (NAME.abstract.txt holds them whole)`,
    },
    explain: {
      type: 'boolean',
      short: 'e',
      help: `list, per pass, every loss of precision of the partial evaluator: each
specialization parameter or result cut to a skeleton or widened to 1, and each
specialization given up, with the function, what it handled and the reason`,
    },
    json: {
      type: 'boolean',
      help: `print a JSON report instead (the manifest; per pass: stop, reason, stats,
sizes, events)`,
    },
  },
} satisfies CommandSpec;

/** How `scf stage` reports the errors of staging one config (see `defineCommand`). */
export const STAGE_RULES: readonly ErrorRule[] = [
  // a user's pass whose output broke the kernel on the run before staging: its error, as below
  { type: PassTrialError, status: 1, asIs: true },
  { type: ConfigError, asIs: true },
  { type: OptimizerError },
  { type: PassError },
];

export const stageCommand = defineCommand(STAGE, run, STAGE_RULES);

async function run({ values, positionals }: CommandArgs<typeof STAGE.flags>, io: CliIo): Promise<number> {
  if (positionals.length !== 1) throw new UsageError('expected exactly one CONFIG.json or DIR (see --help)');
  if (values.out === undefined) throw new UsageError('--out DIR is required (see --help)');
  const k = values.k === undefined ? K : Number(values.k);
  if (!Number.isInteger(k) || k < 1)
    throw new UsageError(`--k must be a positive integer, got '${values.k}'`);
  const file = positionals[0] as string;
  if (isFolder(file))
    return stageFolder(
      file,
      values.out,
      {
        k,
        perPass: values['per-pass'] ?? false,
        jobs: values.jobs,
        force: values.force ?? false,
        deps: values.deps,
      },
      io,
      stageJob,
    );
  for (const flag of ['jobs', 'force'] as const)
    if (values[flag] !== undefined)
      throw new UsageError(`--${flag} applies to a folder of configs, not to one config`);
  // found before staging, not after
  if (values.deps !== undefined) prepareOutFile(values.deps, '--deps');
  const staged = await stageFile(file, values.out, { ...values, k, perPass: values['per-pass'] }, io);
  if (values.deps !== undefined)
    writeOutFile(
      values.deps,
      makeRule(path.resolve(values.out, `${staged.name}.stub.mjs`), [...staged.reads.keys()], process.cwd()),
      '--deps',
    );
  return 0;
}

/**
 * Stages one config of a folder (`scf stage DIR`), printing nothing but its error: what a worker
 * thread runs (stage-worker.ts).
 */
export async function stageJob(job: StageJob): Promise<JobResult> {
  const lines: string[] = [];
  const quiet: CliIo = { out: () => {}, err: () => {} };
  try {
    const staged = await stageFile(
      job.file,
      job.out,
      { k: job.k, quiet: true, perPass: job.perPass ?? false },
      quiet,
    );
    return { ok: true, name: staged.name, reads: [...staged.reads] };
  } catch (e) {
    const status = reportError(
      STAGE.name,
      { out: (l) => lines.push(l), err: (l) => lines.push(l) },
      e,
      STAGE_RULES,
    );
    return { ok: false, status, message: lines.join('\n') };
  }
}

/** What `scf stage` prints for one config, besides the progress lines. */
export interface StageFileOptions {
  readonly k: number;
  readonly perPass?: boolean | undefined;
  readonly quiet?: boolean | undefined;
  readonly full?: boolean | undefined;
  readonly explain?: boolean | undefined;
  readonly json?: boolean | undefined;
}

/** A config staged by `stageFile`: its function's name (the files' base name) and what it read. */
export interface StagedFile {
  readonly name: string;
  readonly config: string;
  readonly reads: ReadonlyMap<string, string>;
}

/**
 * Stages the config `file` (a kernel config or an entry config) into `outDir`, printing what
 * `scf stage CONFIG` prints; throws what `STAGE_RULES` report.
 */
export async function stageFile(
  file: string,
  outDir: string,
  opts: StageFileOptions,
  io: CliIo,
): Promise<StagedFile> {
  // on a terminal, a pass that takes longer than a second shows how far it got, once a second
  const progress = stderrIsTerminal();
  let started = Date.now();
  let shown = started;
  const due = (): boolean => {
    const now = Date.now();
    if (now - shown < 1000) return false;
    shown = now;
    return true;
  };
  const secs = (): number => Math.round((Date.now() - started) / 1000);
  const staged = await stageConfigFile(file, outDir, {
    k: opts.k,
    ...(opts.perPass ? { staging: 'per-pass' as const } : {}),
    onStage: (line) => {
      io.err(line);
      started = Date.now();
      shown = started;
    },
    ...(progress
      ? {
          onKernelWork: (pass, index, total, stats) => {
            if (due())
              io.err(
                `[${index + 1}/${total}] ${pass}: ${secs()} s, ${stats.visits} visits, ${stats.specs} specializations …`,
              );
          },
          onEntryWork: (name, stats) => {
            if (due())
              io.err(`${name}: ${secs()} s, ${stats.visits} visits, ${stats.specs} specializations …`);
          },
        }
      : {}),
    // Staging takes seconds: a folder it could not write is found before, not after.
    prepare: (dir) => prepareOutDir(dir, '--out'),
    write: writeInto,
  });
  if (staged.kind === 'kernel') printKernel(staged, opts, io);
  else printEntry(staged, opts, io);
  return { name: staged.name, config: file, reads: staged.reads };
}

/** What `scf stage CONFIG.json` prints for a kernel config: the abstract programs, or --json's report. */
function printKernel(
  staged: Extract<PipelineStagedFile, { kind: 'kernel' }>,
  values: StageFileOptions,
  io: CliIo,
): void {
  const { result, files, loaded: config } = staged;
  if (values.json) {
    const manifest = JSON.parse(readFileSync(files.manifest, 'utf8')) as unknown;
    io.out(JSON.stringify({ config: config.file, manifest, ...stageReport(result.stages) }, null, 2));
  } else {
    if (!values.quiet) io.out(describeStages(result.stages, values.full ?? false).trimEnd());
    if (values.explain) io.out(explainStages(result.stages, config.pe).trimEnd());
  }
  io.err(
    `wrote ${[...files.modules, files.stub, files.types, files.manifest, files.descriptions].join(', ')}`,
  );
}

/**
 * `write()`'s result; when it fails, the folders made for `--out` are removed (`cleanUp`) and a
 * folder held by another stage, a full disk or a folder changed since it was checked is a usage
 * error naming `out`.
 */
function writeInto<T>(out: string, cleanUp: () => void, write: () => T): T {
  try {
    return write();
  } catch (e) {
    cleanUp();
    if (e instanceof FolderBusy) throw new UsageError(`--out '${out}': ${e.message}`);
    // The disk filled up, or the folder changed since it was checked.
    if (typeof (e as { syscall?: unknown } | null)?.syscall !== 'string') throw e;
    throw new UsageError(`cannot write into --out '${out}': ${fileProblem(e)}`);
  }
}

/** Whether `file` names a folder (of configs, for `stageFolder`). */
function isFolder(file: string): boolean {
  try {
    return statSync(file).isDirectory();
  } catch {
    return false; // stageFile reports why it cannot be read
  }
}

/** What `scf stage` prints for an entry config (pipeline/entry-config.ts): one staged function. */
function printEntry(
  staged: Extract<PipelineStagedFile, { kind: 'entry' }>,
  values: StageFileOptions,
  io: CliIo,
): void {
  const { loaded, written, name } = staged;
  const r = staged.staged.result;
  io.err(
    `${name}: ${(r.ms.pe + r.ms.dae).toFixed(0)} ms, ${r.peStats.residualFuns} residual functions, ${r.sizes.original} → ${r.sizes.residual} → ${r.sizes.staged} Core nodes (unstaged → residual → after DAE), stop: ${r.stop}`,
  );
  if (values.json) {
    const manifest = JSON.parse(readFileSync(written[1] as string, 'utf8')) as unknown;
    io.out(
      JSON.stringify(
        {
          config: staged.config,
          manifest,
          stop: r.stop,
          reason: r.reason,
          stats: r.peStats,
          sizes: r.sizes,
          events: r.events,
        },
        null,
        2,
      ),
    );
  } else if (!values.quiet) {
    loaded.signature.params.forEach((p, i) => {
      const d = loaded.inputs[i];
      io.out(
        Object.hasOwn(loaded.bindText, p.name) && d
          ? `${p.name} = ${printAbs(d)}`
          : `${p.name}: unknown early`,
      );
    });
  }
  if (values.explain) io.out(explainEntry(r.events));
  io.err(`wrote ${written.join(', ')}`);
}

/** `--explain` for an entry: each loss of precision the partial evaluator reported. */
function explainEntry(events: StagedEntry['result']['events']): string {
  if (events.length === 0) return 'no loss of precision: every specialization kept its parameters';
  return [
    `${events.length} loss(es) of precision (specialization, what it handled, what was cut: why -> what it became):`,
    ...events.map((e) => `  ${e.spec}  ${e.key}  ${e.what}: ${e.reason} -> ${e.to}`),
  ].join('\n');
}
