/**
 * Fixture tests of the front end's diagnostics: for each tests/fixtures/kernel/<case>/input.c the
 * formatted diagnostics (one per line, or `ok` when there are none) must equal expected.txt.
 * On a mismatch the actual output is written to actual.txt (ignored by git); UPDATE_GOLDEN=1 rewrites
 * expected.txt instead, for review.
 */
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadKernelParser, parseKernelSync } from '../../src/kernel/index.js';
import { formatDiagnostic } from '../../src/common/index.js';

const ROOT = join(import.meta.dirname, '../fixtures/kernel');
const CASES = readdirSync(ROOT, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name)
  .sort();

beforeAll(loadKernelParser);

describe('kernel diagnostics fixtures', () => {
  for (const name of CASES) {
    it(name, () => {
      const dir = join(ROOT, name);
      const source = readFileSync(join(dir, 'input.c'), 'utf8');
      const r = parseKernelSync(source, 'input.c');
      const actual = `${r.diagnostics.length ? r.diagnostics.map((d) => formatDiagnostic(d, r.sources, false)).join('\n') : 'ok'}\n`;
      const expectedPath = join(dir, 'expected.txt');
      const actualPath = join(dir, 'actual.txt');
      if (process.env.UPDATE_GOLDEN === '1') {
        writeFileSync(expectedPath, actual);
        rmSync(actualPath, { force: true });
        return;
      }
      const expected = existsSync(expectedPath) ? readFileSync(expectedPath, 'utf8') : '';
      if (actual !== expected) writeFileSync(actualPath, actual);
      else rmSync(actualPath, { force: true });
      expect(actual).toBe(expected);
    });
  }
});
