/**
 * Golden-file comparison for fixture tests: on a mismatch the actual output is written beside
 * the expectation as an ignored `actual.*` file; with UPDATE_GOLDEN=1 the expectation is
 * rewritten instead (review the diff before committing).
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';

export function expectGolden(dir: string, expectedName: string, actual: string): void {
  const expectedPath = path.join(dir, expectedName);
  const actualPath = path.join(dir, expectedName.replace(/^expected/, 'actual'));
  if (process.env.UPDATE_GOLDEN === '1' || !existsSync(expectedPath)) {
    if (process.env.CI && !existsSync(expectedPath)) throw new Error(`missing golden file ${expectedPath}`);
    writeFileSync(expectedPath, actual);
    rmSync(actualPath, { force: true });
    return;
  }
  const expected = readFileSync(expectedPath, 'utf8');
  if (expected !== actual) writeFileSync(actualPath, actual);
  else rmSync(actualPath, { force: true });
  expect(actual).toBe(expected);
}
