/**
 * Staging is a pure function of (optimizer sources, config, options, scf version): the partial
 * evaluator's fuel is counted in work, never in time, and nothing in the emitted modules depends
 * on absolute identity-tag numbers or on what else the process staged before. The same config is
 * staged twice in this process (with another config staged in between, so the tag counter and
 * every cache are in a different state, and under a clock that jumps a second per reading) and
 * once by `scf stage` in a child process; all three folders must hold byte-identical files.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { cli } from '../cli/helpers.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const TMP = mkdtempSync(path.join(import.meta.dirname, '.tmp-determinism-'));
afterAll(() => rmSync(TMP, { recursive: true, force: true }));

function files(dir: string): Map<string, string> {
  return new Map(
    readdirSync(dir)
      .sort()
      .map((f) => [f, readFileSync(path.join(dir, f), 'utf8')]),
  );
}

describe('staging is deterministic', () => {
  // dotproduct: a configuration whose staging runs into fuel and widening, where a time-based
  // budget would change the output with the machine's load (the fuel is counted in work)
  const CONFIG = path.join(ROOT, 'configs/table2/04-dotproduct.json');

  it('the same config staged twice in one process and once in a child gives identical files', async () => {
    const a = path.join(TMP, 'a');
    const b = path.join(TMP, 'b');
    const c = path.join(TMP, 'c');
    expect((await cli('stage', CONFIG, '--out', a, '-q')).code).toBe(0);
    // something else in between: tags, hash-consing tables and caches move on
    expect(
      (
        await cli(
          'stage',
          path.join(ROOT, 'configs/table2/01-mul_add.json'),
          '--out',
          path.join(TMP, 'x'),
          '-q',
        )
      ).code,
    ).toBe(0);
    // and a clock that races: any budget counted in time would cut this staging short
    let now = 0;
    const clock = vi.spyOn(performance, 'now').mockImplementation(() => (now += 1_000));
    try {
      expect((await cli('stage', CONFIG, '--out', b, '-q')).code).toBe(0);
    } finally {
      clock.mockRestore();
    }
    execFileSync(process.execPath, [path.join(ROOT, 'bin/scf.js'), 'stage', CONFIG, '--out', c, '-q'], {
      cwd: ROOT,
      stdio: 'pipe',
    });
    const fa = files(a);
    expect([...fa.keys()].some((f) => f.endsWith('.staged.mjs'))).toBe(true);
    for (const other of [files(b), files(c)]) {
      expect([...other.keys()]).toEqual([...fa.keys()]);
      for (const [name, text] of fa) expect(other.get(name), name).toBe(text);
    }
  }, 120_000);
});
