/**
 * `scf bench [--json] [--config N …] [--budget MS] [--chart FILE.svg] [--save FILE.json]`: the
 * Table 3 benchmark (src/bench): stages each Table 2 configuration, times the staged pipeline
 * against the unstaged one side by side, counts Core instructions, and prints a table beside
 * SCF's figures with the targets met or missed — or, with `--json`, the machine-readable report.
 * Progress goes to stderr: a progress bar on a terminal, one line per step otherwise.
 *
 * `--dir DIR` takes a user's configs: a config is chosen by its id (`configId`: its `id`, else its
 * file's name), its kernel timed on its `args`; configs without `args` are named in one note
 * before the run (their kernels run on made-up arguments), and a config whose kernel fails on them
 * gets a note and no code ×. A kernel that fails on its config's own `args` (`KernelBenchError`,
 * exit 1) or does not take them (a `ConfigError`, exit 2) is reported with the config named, under
 * `--kernel` too.
 */
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import cliProgress from 'cli-progress';
import {
  type BenchProgress,
  benchEntryConfig,
  type EntryBenchRow,
  entryConfigsIn,
  formatEntryTable,
  formatKernelConfigReport,
  formatTable,
  KernelBenchError,
  type KernelConfigReport,
  listConfigs,
  requireSample,
  runBenchmarks,
  runKernelConfigBench,
  speedupChartSvg,
} from '../bench/index.js';
import { KernelArgumentError, KernelRuntimeError } from '../kernel/index.js';
import { BindError, PassError, PassOutputError } from '../optimizers/index.js';
import { ConfigError, configFilesIn, PassTrialError } from '../pipeline/index.js';
import { GpuRuntime } from '../target/index.js';
import { type CliIo, type CommandArgs, type CommandSpec, defineCommand, UsageError } from './io.js';
import { prepareOutFiles, writeOutFile } from './out-path.js';
import { clip } from '../common/index.js';

/** The largest `--budget`, in milliseconds: ten minutes per comparison. */
const MAX_BUDGET_MS = 600_000;

export const BENCH = {
  name: 'bench',
  usage:
    'scf bench [--json] [--dir DIR] [--config N ...] [--budget MS] [--chart FILE.svg] [--save FILE.json]\n' +
    '       scf bench --kernel CONFIG.json|DIR [CONFIG.json|DIR ...] [--json] [--backend auto|js|webgpu] [--save FILE.json]',
  about: `Benchmarks staged against unstaged optimizer pipelines on the configurations of SCF Table 2
(configs/table2, or the configurations in DIR, e.g. configs/fusion): compiler speed-up, instruction
and map-operation reduction, size ratio, compiled-code speed-up, distance to the lower bound,
break-even, and whether the outputs are equal. A configuration is named by its "id", else by its
file's name without .json; it needs a 'sample' (the late values timed). The compiled-code speed-up
runs the kernel on the config's 'args' (as with --kernel); a config without 'args' runs it on
arguments made up from the parameters' names, and is named in a note (as is one whose kernel
fails on them: its code × is left out). Exit 1 when a kernel fails on its config's own 'args'.

--save and --chart make the folders missing on FILE's path, and remove them again (those still
empty) when the run fails; a symbolic link at FILE is refused, never written through.

With --kernel: the generic kernel against the kernel specialized for the config's late values
('sample'), on the JS back end and on WebGPU when there is an adapter: the kernel's run time
(on WebGPU with its data on the device), the round trip, values known → first result (generic,
specialized, tiered) and the staged against the unstaged pipeline. The config gives every other
argument of the kernel in 'args': a literal, or {"random": N, "seed": S} for N floats in [0, 1)
({"random": N, "seed": S, "max": M} for N ints in [0, M)).`,
  flags: {
    json: { type: 'boolean', help: 'print the report as JSON instead of the table' },
    dir: {
      type: 'string',
      value: 'DIR',
      help: 'benchmark the configuration files in DIR (default: configs/table2); other JSON files (package.json, …) are skipped',
    },
    config: {
      type: 'string',
      short: 'c',
      multiple: true,
      value: 'ID',
      help: 'run configuration ID only (its "id", else its file\'s name; repeatable; default: all)',
    },
    budget: {
      type: 'string',
      value: 'MS',
      help: `timing budget per comparison in milliseconds, from 1 to ${MAX_BUDGET_MS} (default 600)`,
    },
    chart: {
      type: 'string',
      value: 'FILE',
      help: `also write the speed-up chart (SVG) to FILE (needs the optional packages
'vega' and 'vega-lite'; without them the chart is skipped with a note)`,
    },
    save: {
      type: 'string',
      value: 'FILE',
      help: `also write the JSON report to FILE (see above for the folders made and for links)`,
    },
    kernel: {
      type: 'string',
      multiple: true,
      value: 'CONFIG',
      help: 'benchmark generic against specialized kernels for a kernel config (or every *.json in a folder); more configs may follow as arguments',
    },
    backend: {
      type: 'string',
      value: 'auto|js|webgpu',
      help: 'with --kernel: js skips WebGPU, webgpu skips the JS back end (no adapter is an error); default auto: WebGPU too when there is an adapter',
    },
  },
} satisfies CommandSpec;

/** What `scf bench --chart` prints, on stderr, when Vega or Vega-Lite is not installed. */
export const CHART_SKIPPED = "scf bench: chart skipped: install 'vega' and 'vega-lite' to draw it";

export const benchCommand = defineCommand(BENCH, run, [
  // a user's pass whose output broke the kernel on the run before staging: its error, as below
  { type: PassTrialError, status: 1, asIs: true },
  { type: ConfigError, asIs: true },
  { type: KernelBenchError, status: 1 },
  { type: BindError },
  { type: PassError },
  // a user's pass whose output breaks the kernel AST's invariants
  { type: PassOutputError, status: 1 },
]);

async function run(args: CommandArgs<typeof BENCH.flags>, io: CliIo): Promise<number> {
  // after --kernel, further configs may follow as arguments (a shell glob: --kernel configs/kernel/*.json)
  if (args.values.kernel !== undefined) return runKernel(args, io);
  if (args.positionals.length > 0)
    throw new UsageError(`unexpected argument '${clip(args.positionals[0] ?? '')}'`, true);
  if (args.values.backend !== undefined) throw new UsageError('--backend goes with --kernel');
  const dir = args.values.dir === undefined ? undefined : path.resolve(args.values.dir);
  if (dir !== undefined && !(existsSync(dir) && statSync(dir).isDirectory()))
    throw new UsageError(
      `--dir ${args.values.dir}: ${existsSync(dir) ? 'not a directory' : 'no such folder'}`,
    );
  const configs = listConfigs(dir);
  const entries = dir === undefined ? [] : entryConfigsIn(dir);
  if (configs.length === 0 && entries.length === 0)
    throw new UsageError(`${args.values.dir ?? 'configs/table2'} has no configuration (*.json)`);
  if (configs.length === 0) return runEntries(args, io, entries);
  const ids: (number | string)[] = [];
  for (const c of args.values.config ?? []) {
    const found = configs.find((k) => String(k.id) === c);
    if (found === undefined)
      throw new UsageError(
        `--config ${clip(c)}: no such configuration (known: ${configs.map((k) => k.id).join(', ')})`,
      );
    ids.push(found.id);
  }
  const budget = budgetOf(args.values.budget);
  // The run takes half a minute: places it cannot write are found first; the folders made for
  // them are removed again when it fails.
  const out = prepareOutFiles([
    ['--save', args.values.save],
    ['--chart', args.values.chart],
  ]);
  try {
    return await runTable(args, io, { dir, ids, configs, budget });
  } catch (e) {
    out.removeCreated();
    throw e;
  }
}

/** `scf bench --dir DIR` on a folder of entry configs (docs/own-ir.md): one row each. */
async function runEntries(
  args: CommandArgs<typeof BENCH.flags>,
  io: CliIo,
  files: readonly string[],
): Promise<number> {
  for (const flag of ['config', 'chart'] as const)
    if (args.values[flag] !== undefined)
      throw new UsageError(`--${flag} does not go with a folder of entry configs`);
  const budget = budgetOf(args.values.budget);
  const out = prepareOutFiles([['--save', args.values.save]]);
  try {
    const rows: EntryBenchRow[] = [];
    for (const [i, file] of files.entries()) {
      io.err(`[${i + 1}/${files.length}] ${file} …`);
      rows.push(await benchEntryConfig(file, budget));
    }
    if (args.values.save) writeOutFile(args.values.save, `${JSON.stringify(rows, null, 2)}\n`, '--save');
    io.out(args.values.json ? JSON.stringify(rows, null, 2) : formatEntryTable(rows));
    return rows.every((r) => r.equal) ? 0 : 1;
  } catch (e) {
    out.removeCreated();
    throw e;
  }
}

/** `--budget`'s milliseconds (default 600), from 1 to `MAX_BUDGET_MS`. */
function budgetOf(text: string | undefined): number {
  if (text === undefined) return 600;
  const ms = text.trim() === '' ? Number.NaN : Number(text);
  if (!(ms >= 1 && ms <= MAX_BUDGET_MS))
    throw new UsageError(
      `--budget must be a number of milliseconds from 1 to ${MAX_BUDGET_MS}, not '${clip(text)}'`,
    );
  return ms;
}

/** The Table 3 run of `run`, its flags checked. */
async function runTable(
  args: CommandArgs<typeof BENCH.flags>,
  io: CliIo,
  opts: {
    readonly dir: string | undefined;
    readonly ids: readonly (number | string)[];
    readonly configs: ReturnType<typeof listConfigs>;
    readonly budget: number;
  },
): Promise<number> {
  const { dir, ids, configs, budget } = opts;
  const chosen = ids.length > 0 ? configs.filter((c) => ids.includes(c.id)) : configs;
  for (const c of chosen) requireSample(c.config);
  const noArgs = chosen.filter((c) => c.config.args === undefined).map((c) => c.id);
  if (noArgs.length > 0)
    io.err(
      `scf bench: no "args" in ${noArgs.join(', ')}: code × runs ${noArgs.length === 1 ? 'its kernel' : 'their kernels'} on arguments made up from the parameters' names (a 32×32 image, 256-element signals, arrays of 16 small numbers); give a config the kernel's run-time arguments in "args"`,
    );
  const progress = progressDisplay(io, chosen.length);
  let report: Awaited<ReturnType<typeof runBenchmarks>>;
  try {
    report = await runBenchmarks({
      ...(ids.length > 0 ? { ids } : {}),
      ...(dir !== undefined ? { dir } : {}),
      budgetMs: budget,
      onProgress: progress.update,
    });
  } finally {
    progress.stop();
  }
  for (const row of report.configs)
    if (row.codeSkipped !== undefined) io.err(`scf bench: ${row.id}: code × left out: ${row.codeSkipped}`);
  if (args.values.save) writeOutFile(args.values.save, `${JSON.stringify(report, null, 2)}\n`, '--save');
  if (args.values.chart) {
    const title = `Late-stage speed-ups, staged vs unstaged (${report.machine.cpus} × ${report.machine.cpuModel.trim()})`;
    const svg = await speedupChartSvg(report.configs, title);
    // Vega and Vega-Lite are optional: without them the report is still printed.
    if (svg === null) io.err(CHART_SKIPPED);
    else writeOutFile(args.values.chart, svg, '--chart');
  }
  io.out(args.values.json ? JSON.stringify(report, null, 2) : formatTable(report));
  return 0;
}

/** `scf bench --kernel …`: each config (a folder's *.json in name order), one report each. */
async function runKernel(args: CommandArgs<typeof BENCH.flags>, io: CliIo): Promise<number> {
  for (const flag of ['dir', 'config', 'budget', 'chart'] as const)
    if (args.values[flag] !== undefined) throw new UsageError(`--${flag} does not go with --kernel`);
  const backend = args.values.backend ?? 'auto';
  if (backend !== 'auto' && backend !== 'js' && backend !== 'webgpu')
    throw new UsageError(`--backend must be auto, js or webgpu, not '${clip(backend)}'`);
  const files: string[] = [];
  for (const given of [...(args.values.kernel ?? []), ...args.positionals]) {
    if (!existsSync(given)) throw new UsageError(`--kernel ${given}: no such file or folder`);
    if (statSync(given).isDirectory()) {
      const found = configFilesIn(given);
      if (found.length === 0)
        throw new UsageError(`--kernel ${given}: the folder has no configuration (*.json)`);
      files.push(...found);
    } else files.push(given);
  }
  const out = prepareOutFiles([['--save', args.values.save]]);
  try {
    return await runKernelConfigs(args, io, files, backend);
  } catch (e) {
    out.removeCreated();
    throw e;
  }
}

/** The `--kernel` run of `runKernel`, its flags checked. */
async function runKernelConfigs(
  args: CommandArgs<typeof BENCH.flags>,
  io: CliIo,
  files: readonly string[],
  backend: 'auto' | 'js' | 'webgpu',
): Promise<number> {
  const gpu = backend === 'js' ? undefined : await GpuRuntime.open();
  if (backend === 'webgpu' && !(gpu instanceof GpuRuntime))
    throw new UsageError(`--backend webgpu: ${gpu?.reason ?? 'no adapter'}; ${gpu?.install ?? ''}`);
  const reports: KernelConfigReport[] = [];
  try {
    for (const [i, file] of files.entries()) {
      const report = await runKernelConfigBench(file, {
        backend,
        ...(gpu !== undefined ? { gpu } : {}),
        onProgress: (step) => io.err(`[${i + 1}/${files.length}] ${file}: ${step} …`),
      }).catch((e: unknown) => {
        // the kernel run on the config's arguments: their fault, named by the config
        if (e instanceof KernelRuntimeError)
          throw new KernelBenchError(
            `${file}: the kernel fails on the config's "args": ${e.message.replace(/^error: /, '')}`,
          );
        if (e instanceof KernelArgumentError)
          throw new UsageError(`${file}: the config's "args" do not fit the kernel: ${e.message}`);
        throw e;
      });
      reports.push(report);
      if (!args.values.json) io.out(formatKernelConfigReport(report));
    }
  } finally {
    if (gpu instanceof GpuRuntime) gpu.destroy();
  }
  const json = reports.length === 1 ? reports[0] : reports;
  if (args.values.save) writeOutFile(args.values.save, `${JSON.stringify(json, null, 2)}\n`, '--save');
  if (args.values.json) io.out(JSON.stringify(json, null, 2));
  return reports.every((r) => r.equal) ? 0 : 1;
}

interface Progress {
  readonly update: (p: BenchProgress) => void;
  readonly stop: () => void;
}

const PHASES: Record<BenchProgress['phase'], string> = {
  staging: 'staging',
  timing: 'timing staged vs unstaged',
  counting: 'counting instructions',
  done: 'done',
};

function progressDisplay(io: CliIo, total: number): Progress {
  if (!process.stderr.isTTY) {
    return {
      update: (p) => {
        if (p.phase !== 'done') io.err(`[${p.index + 1}/${p.total}] ${p.config}: ${PHASES[p.phase]} …`);
      },
      stop: () => {},
    };
  }
  const bar = new cliProgress.SingleBar(
    { format: 'scf bench [{bar}] {value}/{total} configs | {config}: {phase}', stream: process.stderr },
    cliProgress.Presets.shades_classic,
  );
  bar.start(total, 0, { config: '', phase: 'starting' });
  return {
    update: (p) =>
      bar.update(p.phase === 'done' ? p.index + 1 : p.index, { config: p.config, phase: PHASES[p.phase] }),
    stop: () => bar.stop(),
  };
}
