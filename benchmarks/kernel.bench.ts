/**
 * `npm run bench:latency [-- --sets N] [--size N] [--runs N] [--backend auto|js] [--json] [--no-save]`:
 * the latency benchmark on the demo's convolution (configs/kernel/01-conv.json).
 *
 * Latency from "coefficients known" to "kernel ready" (and to the first result) of: the staged
 * pipeline + WGSL codegen + pipeline creation, the same with the unstaged pipeline, a generic
 * kernel taking the coefficients in a uniform buffer (prepared beforehand), and a generic kernel
 * with WGSL `override` constants (pipeline created at the first run with the values); then the
 * kernels' run times. Method: src/bench/kernel-latency.ts. Writes docs/benchmarks/kernel.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import cliProgress from 'cli-progress';
import { type KernelBenchReport, runKernelBench } from '../src/bench/kernel-latency.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const SAVE = path.join(ROOT, 'docs/benchmarks/kernel.json');

const HELP = `Usage: npm run bench:latency [-- --sets N] [--size N] [--runs N] [--backend auto|js] [--json] [--no-save]

  --sets N      fresh coefficient sets per latency variant (default 20)
  --size N      the image is N x N (default 256)
  --runs N      timed runs per kernel for the run times (default 30)
  --backend B   auto (default: WebGPU when there is an adapter, else the JS back end) or js
  --json        print the report as JSON
  --no-save     do not write docs/benchmarks/kernel.json`;

function positiveInt(text: string | undefined, fallback: number, what: string): number {
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) {
    console.error(`bench:latency: ${what} must be a positive integer, not '${text}'\n\n${HELP}`);
    process.exit(2);
  }
  return n;
}

let parsed: ReturnType<typeof parse>;
try {
  parsed = parse();
} catch (e) {
  console.error(`bench:latency: ${e instanceof Error ? e.message : String(e)}\n\n${HELP}`);
  process.exit(2);
}
const v = parsed.values;
if (v.help) {
  console.log(HELP);
  process.exit(0);
}
const backend = v.backend ?? 'auto';
if (backend !== 'auto' && backend !== 'js') {
  console.error(`bench:latency: --backend must be auto or js, not '${backend}'`);
  process.exit(2);
}
const size = positiveInt(v.size, 256, '--size');

const progress = progressDisplay();
let report: KernelBenchReport;
try {
  report = await runKernelBench({
    sets: positiveInt(v.sets, 20, '--sets'),
    width: size,
    height: size,
    runs: positiveInt(v.runs, 30, '--runs'),
    backend,
    onProgress: progress.update,
  });
} finally {
  progress.stop();
}
if (!v['no-save']) {
  mkdirSync(path.dirname(SAVE), { recursive: true });
  writeFileSync(SAVE, `${JSON.stringify(report, null, 2)}\n`);
}
console.log(v.json ? JSON.stringify(report, null, 2) : formatReport(report));
if (!v['no-save'] && !v.json) console.log(`\nwrote ${path.relative(process.cwd(), SAVE)}`);
if (!(report.maxAbsDiff <= 1e-5)) {
  console.error(`bench:latency: an output differs from the original kernel's by ${report.maxAbsDiff}`);
  process.exitCode = 1;
}

function parse() {
  return parseArgs({
    args: process.argv.slice(2),
    strict: true,
    options: {
      sets: { type: 'string' },
      size: { type: 'string' },
      runs: { type: 'string' },
      backend: { type: 'string' },
      json: { type: 'boolean' },
      'no-save': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}

function progressDisplay(): {
  update: (step: string, done: number, total: number) => void;
  stop: () => void;
} {
  if (!process.stderr.isTTY) {
    let last = '';
    return {
      update: (step) => {
        const head = step
          .replace(/ (round \d+\/\d+|warm-up)/, '')
          .replace(/: [\w-]+$/, '')
          .replace(/:$/, '');
        if (head !== last && head !== 'done') console.error(`bench:latency: ${head} …`);
        last = head;
      },
      stop: () => {},
    };
  }
  const bar = new cliProgress.SingleBar(
    {
      format: 'bench:latency [{bar}] {value}/{total} | {step}',
      stream: process.stderr,
      clearOnComplete: true,
    },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  return {
    update: (step, done, total) => {
      if (!started) {
        bar.start(total, 0, { step });
        started = true;
      }
      bar.setTotal(total);
      bar.update(done, { step });
    },
    stop: () => bar.stop(),
  };
}

function f(ms: number): string {
  if (ms === 0) return '—';
  return ms < 1 ? `${(ms * 1000).toFixed(0)} µs` : `${ms.toFixed(1)} ms`;
}

function formatReport(r: KernelBenchReport): string {
  const out: string[] = [];
  out.push(
    `Kernel latency and run time: ${r.backend === 'webgpu' ? `WebGPU on ${r.device}` : r.device}`,
    `${r.image.width}x${r.image.height} image, ${r.coefficientSets} fresh coefficient sets per variant; ` +
      `${r.machine.cpus} × ${r.machine.cpuModel}, Node ${r.machine.node}; staging took ${r.stagingSeconds.toFixed(1)} s`,
    '',
    'Values known → kernel ready → first result (medians):',
  );
  const head = [
    'variant',
    'specialize',
    'codegen',
    'pipeline',
    'ready',
    'first run',
    'first result',
    'new pipelines',
  ];
  const rows = r.latency.map((l) => [
    l.variant,
    f(l.median.specializeMs),
    f(l.median.codegenMs),
    f(l.median.prepareMs),
    f(l.median.readyMs),
    f(l.median.firstRunMs),
    f(l.median.totalMs),
    String(l.median.pipelinesCreated),
  ]);
  out.push(...table([head, ...rows]));
  for (const l of r.latency) out.push(`  ${l.variant}: ${l.description}`);
  out.push('', 'Kernel run times (same values, after warm-up; upload, dispatch and readback included):');
  out.push(
    ...table([
      ['kernel', 'median', 'runs'],
      ...r.runTimes.map((t) => [t.kernel, f(t.medianMs), String(t.runs)]),
    ]),
  );
  for (const t of r.runTimes) out.push(`  ${t.kernel}: ${t.description}`);
  out.push(
    '',
    `Pipelines alone, side by side: staged ${r.pipelines.stagedUs.toFixed(1)} µs (admission check of the formals ${r.pipelines.admitFormalsUs.toFixed(2)} µs; of kernel and formals, a stub's first run only, ${r.pipelines.admitUs.toFixed(1)} µs), ` +
      `unstaged ${r.pipelines.unstagedUs.toFixed(1)} µs: ${r.pipelines.speedup.toFixed(2)}×`,
    '',
    'Ratios:',
  );
  for (const [k, x] of Object.entries(r.ratios)) out.push(`  ${k.padEnd(34)} ${x.toFixed(2)}`);
  out.push(
    '',
    `Outputs: every image equals the original kernel's on the JS back end (max |difference| ${r.maxAbsDiff}).`,
  );
  return out.join('\n');
}

function table(rows: readonly (readonly string[])[]): string[] {
  const widths = (rows[0] ?? []).map((_, c) => Math.max(...rows.map((r) => (r[c] ?? '').length)));
  return rows.map(
    (r) =>
      `  ${r
        .map((cell, c) => (c === 0 ? cell.padEnd(widths[c] ?? 0) : cell.padStart(widths[c] ?? 0)))
        .join('  ')}`,
  );
}
