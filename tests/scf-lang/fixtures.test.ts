/**
 * Fixture tests of the SCF-lang front end: every program under tests/fixtures/scf-lang/reject
 * must be rejected with exactly the diagnostics in its expected.txt (as `scf check` prints
 * them); every program under accept/ must be accepted, desugaring to the Core in
 * expected.core.txt.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { compileFile, formatDiagnostic, printCoreProgram } from '../../src/scf-lang/index.js';
import { expectGolden } from '../golden.js';

const root = path.join('tests', 'fixtures', 'scf-lang');
const cases = (kind: string) => readdirSync(path.join(root, kind)).sort();

describe('rejected programs', () => {
  it('has a corpus of at least 30', () => {
    expect(cases('reject').length).toBeGreaterThanOrEqual(30);
  });
  for (const name of cases('reject')) {
    it(name, () => {
      const dir = path.join(root, 'reject', name);
      const r = compileFile(path.join(dir, 'input.ts'));
      expect(r.program).toBeNull();
      expect(r.diagnostics.length).toBeGreaterThan(0);
      const text = `${r.diagnostics.map((d) => formatDiagnostic(d, r.sources)).join('\n')}\n`;
      expectGolden(dir, 'expected.txt', text);
    });
  }
});

describe('accepted programs', () => {
  for (const name of cases('accept')) {
    it(name, () => {
      const dir = path.join(root, 'accept', name);
      const r = compileFile(path.join(dir, 'input.ts'));
      expect(r.diagnostics.map((d) => formatDiagnostic(d, r.sources))).toEqual([]);
      expect(r.program).not.toBeNull();
      if (r.program) expectGolden(dir, 'expected.core.txt', printCoreProgram(r.program));
    });
  }
});
