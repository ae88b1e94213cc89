/**
 * The late-shape benchmark (`npm run bench:late`): staged against unstaged pipelines on kernels
 * whose loop trip counts arrive late — a stencil's radius, a polynomial's degree — so that the
 * staged constant propagation unrolls a loop whose number of rounds it learns only at run time.
 *
 * Method (per configuration, in one process, as the Table 3 benchmark measures, table3.ts):
 * - Stage the config, write the staged folder, import its stub (`stagedSample`, table3.ts).
 * - Stage-2 input: the config's `sample`.
 * - Pipeline times: `sideBySide` — both pipelines warmed up, then alternating batches of about
 *   2 ms until the budget is spent; medians of the per-run times; the speed-up is their ratio.
 * - × limit: the staged time over the output-construction limit (`outputLimitUs`: building the
 *   unstaged pipeline's output afresh as an object literal).
 * - equal: the staged output is deep-strictly equal to the unstaged one.
 *
 * The targets (`LATE_TARGETS`) are benchmark figures, never timed tests.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { loadKernelParser } from '../kernel/index.js';
import { loadConfig } from '../pipeline/index.js';
import {
  configId,
  type MachineInfo,
  machineInfo,
  outputLimitUs,
  requireSample,
  sideBySide,
  stagedSample,
  WARMUP_RUNS,
} from './table3.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** The configs benchmarked by default, relative to the repository: late radius, late degree, and a user's pass. */
export const LATE_SHAPE_CONFIGS: readonly string[] = [
  'configs/kernel/04-conv-r.json',
  'configs/kernel/02-curve.json',
  'configs/late/01-stencil-r.json',
];

/** What each row should reach: staged ≥ `speedup` × faster than unstaged, within `limitRatio` × the limit. */
export const LATE_TARGETS = { speedup: 5, limitRatio: 3 } as const;

export const LATE_METHOD =
  'one process; per config: staged modules emitted and imported; stage-2 input = the config sample; ' +
  `pipeline times are medians of per-run times over alternating ~2 ms batches after a warm-up of ${WARMUP_RUNS} runs ` +
  'of each side; × limit = staged time / time to build the output as an object literal.';

export interface LateShapeRow {
  readonly id: number | string;
  /** The config's path, relative to the repository when it lies inside it. */
  readonly config: string;
  /** The pipeline's passes, as the config names them. */
  readonly pipeline: readonly string[];
  readonly stagingSeconds: number;
  readonly unstagedUs: number;
  readonly stagedUs: number;
  /** Unstaged / staged pipeline time. */
  readonly speedup: number;
  readonly limitUs: number;
  /** Staged time / the output-construction limit. */
  readonly limitRatio: number;
  readonly equal: boolean;
}

export interface LateShapeReport {
  readonly rows: LateShapeRow[];
  readonly machine: MachineInfo;
  readonly method: string;
}

export interface LateShapeOptions {
  /** Config files (default `LATE_SHAPE_CONFIGS`, from the repository). */
  readonly files?: readonly string[];
  /** Milliseconds of timing per comparison (default 600). */
  readonly budgetMs?: number;
  readonly onProgress?: (file: string, index: number, total: number) => void;
}

export async function runLateShapes(opts: LateShapeOptions = {}): Promise<LateShapeReport> {
  await loadKernelParser();
  const files = (opts.files ?? LATE_SHAPE_CONFIGS.map((f) => path.join(ROOT, f))).map((f) => path.resolve(f));
  const configs = files.map((file) => loadConfig(file));
  for (const config of configs) requireSample(config);
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'scf-bench-late-'));
  const rows: LateShapeRow[] = [];
  try {
    for (const [i, config] of configs.entries()) {
      const file = files[i] as string;
      opts.onProgress?.(file, i, files.length);
      rows.push(await benchLate(config, file, path.join(tmp, String(i)), opts.budgetMs ?? 600));
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  return { rows, machine: machineInfo(), method: LATE_METHOD };
}

async function benchLate(
  config: ReturnType<typeof loadConfig>,
  file: string,
  dir: string,
  budgetMs: number,
): Promise<LateShapeRow> {
  const { staged, stagingSeconds, stub, formals, outStaged, outUnstaged } = await stagedSample(config, dir);
  const pipe = sideBySide(
    () => stub.unstagedPipeline(formals),
    () => stub.stagedPipeline(formals),
    budgetMs,
  );
  const limitUs = outputLimitUs(outUnstaged, budgetMs);
  const rel = path.relative(ROOT, file);
  return {
    id: configId(config),
    config: rel.startsWith('..') ? file : rel.split(path.sep).join('/'),
    pipeline: staged.stages.map((s) => s.pass.name),
    stagingSeconds: round(stagingSeconds),
    unstagedUs: round(pipe.a),
    stagedUs: round(pipe.b),
    speedup: round(pipe.a / pipe.b),
    limitUs: round(limitUs, 3),
    limitRatio: round(pipe.b / limitUs),
    equal: isDeepStrictEqual(outStaged, outUnstaged),
  };
}

/** The report as a terminal table, with the targets met or missed. */
export function formatLateTable(report: LateShapeReport): string {
  const head = ['config', 'pipeline', 'unstaged µs', 'staged µs', 'speed-up', 'limit µs', '× limit', 'equal'];
  const body = report.rows.map((r) => [
    r.config,
    r.pipeline.join(' → '),
    r.unstagedUs.toFixed(1),
    r.stagedUs.toFixed(1),
    `${r.speedup.toFixed(2)}×`,
    r.limitUs.toFixed(2),
    `${r.limitRatio.toFixed(1)}×`,
    r.equal ? 'yes' : 'NO',
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((row) => (row[i] as string).length)));
  const line = (cells: readonly string[]) => cells.map((c, i) => c.padEnd(widths[i] as number)).join('  ');
  const slow = report.rows.filter((r) => r.speedup < LATE_TARGETS.speedup).map((r) => r.id);
  const far = report.rows.filter((r) => r.limitRatio > LATE_TARGETS.limitRatio).map((r) => r.id);
  const verdict = (ids: readonly (number | string)[]) =>
    ids.length === 0 ? 'met' : `missed on ${ids.join(', ')}`;
  return [
    line(head),
    ...body.map(line),
    '',
    `target: staged ≥ ${LATE_TARGETS.speedup}× unstaged: ${verdict(slow)}`,
    `target: staged ≤ ${LATE_TARGETS.limitRatio}× the limit: ${verdict(far)}`,
    `target: staged output equal: ${verdict(report.rows.filter((r) => !r.equal).map((r) => r.id))}`,
  ].join('\n');
}

function round(x: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}
