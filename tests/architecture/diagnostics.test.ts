/**
 * One diagnostics system: every language scf reads has one table of codes,
 * sorted, with a prefix of its own; every diagnostic is printed by common's `formatDiagnostic`
 * from an offset span, its line and column computed from the text only then.
 */
import { describe, expect, it } from 'vitest';
import { DESCRIPTION_CODES } from '../../src/abstract-values/index.js';
import { formatDiagnostic, unsortedCodes } from '../../src/common/index.js';
import { codes, KERNEL_MESSAGES, parseKernel } from '../../src/kernel/index.js';
import { MESSAGES as SCF_MESSAGES } from '../../src/scf-lang/index.js';
import { CONFIG_CODES } from '../../src/pipeline/index.js';

const TABLES: readonly [string, RegExp, Readonly<Record<string, unknown>>][] = [
  ['SCF-lang', /^SCF\d{4}$/, SCF_MESSAGES],
  ['kernel', /^K\d{4}$/, KERNEL_MESSAGES],
  ['configuration', /^C\d{4}$/, CONFIG_CODES],
  ['description', /^D\d{4}$/, DESCRIPTION_CODES],
];

describe('one code table per language', () => {
  for (const [name, pattern, table] of TABLES) {
    it(`${name}: codes sorted, each with the language's prefix`, () => {
      expect(unsortedCodes(table as never), name).toEqual([]);
      for (const code of Object.keys(table)) expect(code, name).toMatch(pattern);
    });
  }

  it("the kernel's named codes are exactly its table's, each code's forms of message sorted", () => {
    expect(Object.values(codes).sort()).toEqual(Object.keys(KERNEL_MESSAGES));
    for (const [code, forms] of Object.entries(KERNEL_MESSAGES)) {
      const names = Object.keys(forms);
      expect(names, code).toEqual([...names].sort());
    }
  });

  it('unsortedCodes finds a table out of order', () => {
    expect(unsortedCodes({ K2: () => '', K1: () => '', K3: () => '' })).toEqual(['K1']);
  });
});

describe('positions are computed when printed', () => {
  it('a kernel diagnostic keeps offsets; line, column and frame come from the text', async () => {
    const text = 'int f(int x) {\n  // é\n  return y;\n}\n';
    const r = await parseKernel(text, 'k.c');
    const d = r.diagnostics[0];
    expect(d?.code).toBe('K1005');
    expect(d?.span).toEqual({ file: 'k.c', start: text.indexOf('y;'), end: text.indexOf('y;') + 1 });
    expect(formatDiagnostic(d as never, r.sources)).toBe(
      "k.c:3:10: error K1005: 'y' is not declared\n3 |   return y;\n  |          ^",
    );
    expect(formatDiagnostic(d as never, r.sources, false)).toBe("k.c:3:10: error K1005: 'y' is not declared");
  });
});
