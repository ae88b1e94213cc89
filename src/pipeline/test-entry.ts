/**
 * `scf test` for entry configs: staged ≡ unstaged on arguments drawn from the config's own
 * descriptions, the property scf checks of its own passes, given to the writer of an entry.
 *
 * Algorithm. The config is staged into a temporary folder and its stub imported; fast-check draws
 * each described parameter from its description (`arbMembers`, so equal identity tags give equal
 * values), each other parameter (unknown early) from any value of its type (`anyOfType`). Each draw runs the staged code (`SCF.staged`, which must admit it) and
 * the unstaged function (the entry's source compiled with a user pass's fuel) and compares their
 * results with the prelude's `equal`. A draw on which the unstaged function runs out of fuel or
 * stack, or the staged code out of stack, decides nothing and is counted as skipped (a loop that
 * does not end, or a recursion too deep for the JavaScript stack, is not a wrong result).
 *
 * Invariants. The run is reproducible from its seed (reported with a failure, with fast-check's
 * path); the temporary folder is removed whatever happens; work is bounded by the runs and the
 * fuel, never by time.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type FastCheck from 'fast-check';
import type { AbsValue } from '../abstract-values/index.js';
import { arbMembers } from '../abstract-values/arbitrary.js';
import { optionalPackage } from '../common/index.js';
import { PassError } from '../optimizers/index.js';
import type { EntryStub } from '../runtime/index.js';
import { equal } from '../scf-lang/prelude.js';
import { InputNotAdmitted } from '../stager/index.js';
import { anyOfType } from './entry-describe.js';
import type { LoadedEntry } from './entry-config.js';
import { importStub } from './load.js';
import { stageEntry, writeStagedEntry } from './stage-entry.js';

export interface EntryTestOptions {
  /** Draws compared (default 100). */
  readonly runs?: number;
  readonly seed?: number;
  /** Called after each draw with the number done. */
  readonly onRun?: (done: number) => void;
}

export interface EntryTestResult {
  readonly runs: number;
  /** Draws on which both ran to a result (equal ones, unless `failure`). */
  readonly compared: number;
  /** Draws that decided nothing (fuel or stack ran out). */
  readonly skipped: number;
  readonly seed: number;
  /** The first draw on which staged and unstaged differ, shrunk. */
  readonly failure?: {
    readonly args: readonly unknown[];
    readonly staged: string;
    readonly unstaged: string;
    readonly path: string;
  };
}

/** What a run gave, for the report: its value, or what it threw. */
type Outcome = { readonly value: unknown } | { readonly error: unknown };

function outcome(f: () => unknown): Outcome {
  try {
    return { value: f() };
  } catch (error) {
    return { error };
  }
}

function undecided(o: Outcome): boolean {
  return (
    'error' in o &&
    (o.error instanceof PassError || (o.error instanceof RangeError && /call stack/i.test(o.error.message)))
  );
}

function shown(o: Outcome): string {
  if ('error' in o) return `threw ${o.error instanceof Error ? o.error.message : String(o.error)}`;
  try {
    return JSON.stringify(o.value) ?? String(o.value);
  } catch {
    return String(o.value);
  }
}

/** Stages `loaded` and compares staged with unstaged on draws from its descriptions (see the header). */
export async function testEntry(loaded: LoadedEntry, opts: EntryTestOptions = {}): Promise<EntryTestResult> {
  // an optional package (common/optional.ts): missing, it is said before any staging
  const fc = optionalPackage<typeof FastCheck>('fast-check');
  const dir = mkdtempSync(path.join(tmpdir(), 'scf-test-'));
  try {
    writeStagedEntry(stageEntry(loaded), dir);
    const stub = (await importStub(path.join(dir, `${loaded.config.export}.stub.mjs`))) as unknown as {
      readonly SCF: EntryStub;
    };
    const params = loaded.signature.params;
    const ctors = loaded.program.ctors;
    const drawn = params.map((p, i) =>
      Object.hasOwn(loaded.bindText, p.name)
        ? (loaded.inputs[i] as AbsValue)
        : anyOfType({ ctors: loaded.ctorTypes }, p.type),
    );
    const arb = arbMembers(drawn, { ctors });
    const seed = opts.seed ?? Date.now() % 2 ** 31;
    let compared = 0;
    let skipped = 0;
    let done = 0;
    let last: { staged: Outcome; unstaged: Outcome } | undefined;
    const property = fc.property(arb, (args) => {
      // unstaged first: a draw on which it runs out of fuel is not run staged
      const unstaged = outcome(() => stub.SCF.unstaged(...args));
      if (undecided(unstaged)) {
        opts.onRun?.(++done);
        skipped++;
        return true;
      }
      const staged = outcome(() => stub.SCF.staged(...args));
      opts.onRun?.(++done);
      if ('error' in staged && staged.error instanceof InputNotAdmitted) {
        last = { staged, unstaged };
        return false;
      }
      if (undecided(staged)) {
        skipped++;
        return true;
      }
      const same =
        'value' in staged && 'value' in unstaged
          ? equal(staged.value, unstaged.value)
          : 'error' in staged && 'error' in unstaged && shown(staged) === shown(unstaged);
      if (!same) {
        last = { staged, unstaged };
        return false;
      }
      compared++;
      return true;
    });
    const runs = opts.runs ?? 100;
    const r = fc.check(property, { numRuns: runs, seed });
    if (!r.failed) return { runs, compared, skipped, seed };
    const args = (r.counterexample?.[0] ?? []) as unknown[];
    const failed = last ?? {
      staged: outcome(() => stub.SCF.staged(...args)),
      unstaged: outcome(() => stub.SCF.unstaged(...args)),
    };
    return {
      runs,
      compared,
      skipped,
      seed,
      failure: {
        args,
        staged: shown(failed.staged),
        unstaged: shown(failed.unstaged),
        path: r.counterexamplePath ?? '',
      },
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
