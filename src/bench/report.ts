/**
 * The benchmark's terminal table and, for SCF's Table 2 configurations, its verdict on the
 * project's targets (every configuration's compiler speed-up at or above SCF Table 3's, median
 * ≥ 10×; map-op reduction at or above SCF's column 3 on every row; staged time within 10× of the
 * output-construction limit; size ratio ≤ 10×; staged output equal on all), each figure beside
 * SCF's Table 3, then the per-pass and whole-pipeline staged pipelines side by side (`formatStaging`)
 * and a per-pass table. A user's own configs get the tables and a summary.
 */
import { PAPER_TABLE3 } from './paper.js';
import type { BenchReport, BenchRow } from './table3.js';

export interface TargetCheck {
  readonly target: string;
  readonly met: boolean;
  readonly actual: string;
}

export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  if (s.length === 0) return Number.NaN;
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
}

export function checkTargets(rows: readonly BenchRow[]): TargetCheck[] {
  const speed = rows.map((r) => r.compilerSpeedup);
  const maxSize = Math.max(...rows.map((r) => r.sizeRatio));
  const maxLimit = Math.max(...rows.map((r) => r.limitRatio));
  const unequal = rows.filter((r) => !r.equal).map((r) => r.id);
  const paper = (r: BenchRow) => PAPER_TABLE3.find((p) => p.id === r.id);
  // rows the paper has a figure for: ours must be at or above it
  const belowSpeed = rows.filter((r) => {
    const p = paper(r);
    return p !== undefined && r.compilerSpeedup < p.compilerSpeedup;
  });
  // SCF's instruction column counts map-manipulation instructions: compared with our map-op ×
  const belowMapOps = rows.filter((r) => {
    const p = paper(r);
    return p !== undefined && (r.mapOpReduction ?? Number.POSITIVE_INFINITY) < p.instructionReduction;
  });
  const ids = (rs: readonly BenchRow[]) => rs.map((r) => r.id).join(', ');
  return [
    { target: 'median compiler speed-up ≥ 10×', met: median(speed) >= 10, actual: `${fmt(median(speed))}×` },
    {
      target: "every compiler speed-up ≥ SCF Table 3's",
      met: belowSpeed.length === 0,
      actual: belowSpeed.length === 0 ? 'all at or above' : `below on ${ids(belowSpeed)}`,
    },
    {
      target: "every map-op reduction ≥ SCF Table 3's (its column 3)",
      met: belowMapOps.length === 0,
      actual: belowMapOps.length === 0 ? 'all at or above' : `below on ${ids(belowMapOps)}`,
    },
    {
      target: 'staged time within 10× of the output-construction limit',
      met: maxLimit <= 10,
      actual: `max ${fmt(maxLimit)}×`,
    },
    { target: 'size ratio ≤ 10× everywhere', met: maxSize <= 10, actual: `max ${fmt(maxSize)}×` },
    {
      target: 'staged output equal on every config',
      met: unequal.length === 0,
      actual: unequal.length === 0 ? 'all equal' : `differs on ${unequal.join(', ')}`,
    },
  ];
}

/**
 * Per pass of each configuration: instruction × / map-op × of that pass alone, and what staging
 * it lost (parameters or results widened to 1 / cut to a skeleton) — where to look first.
 */
function formatPasses(rows: readonly BenchRow[]): string[] {
  const out = ['Per pass: instr × / map-op × (widened to 1, cut to a skeleton):'];
  for (const r of rows) {
    const cells = r.passes.map(
      (p) =>
        `${p.pass} ${fmt(p.instructionReduction)}/${fmt(p.mapOpReduction)} (${p.widenedToTop}, ${p.skeletons})`,
    );
    out.push(`  ${`${r.id} ${r.function}`.padEnd(18)} ${cells.join('   ')}`);
  }
  return out;
}

/**
 * Per config, the two ways of staging it side by side: the per-pass staged pipeline's time and
 * × limit, the whole pipeline's, per-pass / whole time (measured side by side), how the whole
 * pipeline's staging stopped, and which one `scf stage` writes by default. Rows of a report made
 * without them are left out.
 */
function formatStaging(rows: readonly BenchRow[]): string[] {
  const shown = rows.filter((r) => r.perPass !== undefined);
  if (shown.length === 0) return [];
  const head = [
    'config',
    'default',
    'per-pass µs',
    '× limit',
    'whole µs',
    '× limit',
    'whole ×',
    'whole stop',
    'stage s',
  ];
  const body = shown.map((r) => {
    const p = r.perPass as NonNullable<BenchRow['perPass']>;
    const w = r.whole;
    return [
      `${r.id} ${r.function}`,
      r.staging ?? 'per-pass',
      fmt(p.stagedUs),
      fmt(p.limitRatio),
      w ? fmt(w.stagedUs) : '—',
      w ? fmt(w.limitRatio) : '—',
      w ? fmt(w.vsPerPass) : '—',
      w ? w.stop : 'user pass',
      `${fmt(p.stagingSeconds)} / ${w ? fmt(w.stagingSeconds) : '—'}`,
    ];
  });
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((row) => (row[i] as string).length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => (i === 0 ? c.padEnd(widths[i] as number) : c.padStart(widths[i] as number)))
      .join('  ');
  return [
    'Per-pass and whole-pipeline staging (whole ×: per-pass / whole time, side by side; stage s: per-pass / whole):',
    line(head),
    widths.map((w) => '-'.repeat(w)).join('  '),
    ...shown.map((_, i) => line(body[i] as string[])),
  ];
}

function fmt(x: number | null): string {
  if (x === null) return '—';
  if (!Number.isFinite(x)) return String(x);
  // below 0.1, two significant digits, as ratioOf keeps them (a small staged pass is not 0.00)
  if (x > 0 && x < 0.1) return x.toPrecision(2);
  return x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2);
}

/** Columns: ours, then the paper's figure in parentheses. */
export function formatTable(report: BenchReport): string {
  const head = [
    'config',
    'compiler ×',
    'instr ×',
    'map-op ×',
    'loc',
    'nodes',
    'size ×',
    'code ×',
    '× limit',
    'break-even',
    'equal',
    'stage s',
  ];
  const body = report.configs.map((r) => {
    const p = PAPER_TABLE3.find((x) => x.id === r.id);
    const paper = (v: number | undefined) => (v === undefined ? '' : ` (${String(v)})`);
    return [
      `${r.id} ${r.function}`,
      `${fmt(r.compilerSpeedup)}${paper(p?.compilerSpeedup)}`,
      `${fmt(r.instructionReduction)}${paper(p?.instructionReduction)}`,
      fmt(r.mapOpReduction),
      `${r.inputLoc}${paper(p?.inputLoc)}`,
      `${r.inputNodes}${paper(p?.inputNodes)}`,
      `${fmt(r.sizeRatio)}${paper(p?.sizeRatio)}`,
      `${fmt(r.codeSpeedup)}${paper(p?.codeSpeedup)}`,
      fmt(r.limitRatio),
      r.breakEven === null ? 'never' : String(r.breakEven),
      r.equal ? 'yes' : 'NO',
      fmt(r.stagingSeconds),
    ];
  });
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((row) => (row[i] as string).length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => (i === 0 ? c.padEnd(widths[i] as number) : c.padStart(widths[i] as number)))
      .join('  ');
  const out = [line(head), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(line)];
  // SCF's figures and the project's targets are about Table 2's configurations; a user's own
  // configs get the table and a summary
  const table2 = report.configs.some((r) => PAPER_TABLE3.some((p) => p.id === r.id));
  const legend = '×: unstaged / staged; size ×: staged / unstaged.';
  out.push('', table2 ? `In parentheses: SCF Table 3 (POPL 2002). ${legend}` : legend);
  const staging = formatStaging(report.configs);
  if (staging.length > 0) out.push('', ...staging);
  out.push('', ...formatPasses(report.configs));
  if (table2) {
    out.push('Targets:');
    for (const t of checkTargets(report.configs))
      out.push(`  ${t.met ? 'met   ' : 'MISSED'} ${t.target}: ${t.actual}`);
  } else {
    const unequal = report.configs.filter((r) => !r.equal).map((r) => r.id);
    out.push(
      `Summary: median compiler speed-up ${fmt(median(report.configs.map((r) => r.compilerSpeedup)))}×; staged output ${unequal.length === 0 ? 'equal on every config' : `DIFFERS on ${unequal.join(', ')}`}`,
    );
  }
  out.push(`Machine: ${report.machine.cpus} × ${report.machine.cpuModel}, Node ${report.machine.node}`);
  return out.join('\n');
}
