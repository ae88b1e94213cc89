/**
 * Entry configs benchmarked (`scf bench --dir DIR` on a folder holding them): each config staged
 * into a temporary folder, its stub imported, and the staged function timed side by side with the
 * unstaged one (the entry's source compiled as the stub's fallback runs it: the same emitter, no
 * staging) on the config's run-time values, after warm-up (`sideBySide`: alternating batches,
 * medians). Also reported: whether the two results are equal (the prelude's `equal`) and how long
 * staging took. Staging's output is deterministic; only the times vary with the machine.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { readSourceFile } from '../common/index.js';
import {
  ConfigError,
  importStub,
  isEntryConfigText,
  loadEntry,
  loadEntryConfig,
  stageEntry,
  writeStagedEntry,
} from '../pipeline/index.js';
import type { EntryStub } from '../runtime/index.js';
import { equal } from '../scf-lang/prelude.js';
import { sideBySide } from './table3.js';

export interface EntryBenchRow {
  readonly config: string;
  readonly entry: string;
  /** Staging time (ms). */
  readonly stageMs: number;
  /** Per call (µs), measured side by side. */
  readonly stagedUs: number;
  readonly unstagedUs: number;
  readonly speedup: number;
  readonly equal: boolean;
}

/** The entry configs of folder `dir` (its `*.json` with an `entry` key), sorted by name. */
export function entryConfigsIn(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => path.join(dir, f))
    .filter((f) => {
      try {
        return isEntryConfigText(readSourceFile(f));
      } catch {
        return false;
      }
    });
}

/** Benchmarks one entry config; throws `ConfigError` when it gives no value for some parameter. */
export async function benchEntryConfig(file: string, budgetMs = 600): Promise<EntryBenchRow> {
  const loaded = loadEntry(loadEntryConfig(file));
  const args = loaded.runArgs;
  if (args === undefined) {
    const missing = loaded.signature.params
      .filter((p) => !loaded.config.args.has(p.name) && !loaded.config.sample.has(p.name))
      .map((p) => `'${p.name}'`);
    throw new ConfigError(
      file,
      1,
      1,
      `scf bench runs the entry on the config's values: give ${missing.join(', ')} in "args" (or, for a described parameter with holes, in "sample")`,
      'C1011',
    );
  }
  const dir = mkdtempSync(path.join(tmpdir(), 'scf-bench-'));
  try {
    const t0 = performance.now();
    const staged = stageEntry(loaded);
    const stageMs = performance.now() - t0;
    writeStagedEntry(staged, dir);
    const stub = (await importStub(path.join(dir, `${loaded.config.export}.stub.mjs`))) as unknown as {
      readonly SCF: EntryStub;
    };
    const a = stub.SCF.staged(...args);
    const b = stub.SCF.unstaged(...args);
    const t = sideBySide(
      () => stub.SCF.staged(...args),
      () => stub.SCF.unstaged(...args),
      budgetMs,
    );
    return {
      config: path.relative(process.cwd(), file) || file,
      entry: loaded.config.entry,
      stageMs,
      stagedUs: t.a,
      unstagedUs: t.b,
      speedup: t.b / t.a,
      equal: equal(a, b),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The rows as a table. */
export function formatEntryTable(rows: readonly EntryBenchRow[]): string {
  const head = ['config', 'entry', 'staged in', 'staged', 'unstaged', 'speed-up', 'equal'];
  const body = rows.map((r) => [
    path.basename(r.config),
    r.entry,
    `${r.stageMs.toFixed(0)} ms`,
    `${r.stagedUs.toFixed(2)} µs`,
    `${r.unstagedUs.toFixed(2)} µs`,
    `${r.speedup.toFixed(1)}×`,
    r.equal ? 'yes' : 'NO',
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => (b[i] as string).length)));
  const line = (cells: readonly string[]) => cells.map((c, i) => c.padEnd(widths[i] as number)).join('  ');
  return [
    'Entry configs: the staged function against the unstaged one per call (side by side, after warm-up; medians)',
    line(head),
    ...body.map(line),
  ].join('\n');
}
