/**
 * The partial evaluator's parts and what each may use (src/partial-eval): the evaluator (pe.ts)
 * composes the others, and no part imports it or anything that evaluates, so the table, the
 * growth staircase, the cursor and the limits never call back into the evaluator. Every file of
 * the folder is listed here with the parts it may import; a new file or a new import is a
 * decision to make here.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const DIR = path.resolve(import.meta.dirname, '../../src/partial-eval');

/** Each file of src/partial-eval, and the files of the folder it may import. */
const PARTS: Readonly<Record<string, readonly string[]>> = {
  'index.ts': ['context', 'finiteness', 'limits', 'pe', 'types'],
  'pe.ts': [
    'context',
    'cursor',
    'dispatch',
    'finiteness',
    'growth',
    'limits',
    'narrow',
    'raise',
    'residual',
    'residual-program',
    'table',
    'types',
  ],
  'table.ts': ['context', 'raise', 'types'],
  'growth.ts': ['limits', 'types'],
  'cursor.ts': ['context', 'types'],
  'limits.ts': ['types'],
  'raise.ts': ['limits', 'narrow', 'residual', 'types'],
  'dispatch.ts': ['limits', 'raise', 'residual'],
  'residual-program.ts': ['raise', 'residual', 'types'],
  'residual.ts': ['raise'],
  'narrow.ts': ['residual'],
  'types.ts': ['context', 'raise', 'residual'],
  'context.ts': [],
  'finiteness.ts': [],
};

function importsOf(file: string): string[] {
  const text = readFileSync(path.join(DIR, file), 'utf8');
  return [...new Set([...text.matchAll(/from '\.\/([a-z-]+)\.js'/g)].map((m) => m[1] as string))].sort();
}

describe('the parts of the partial evaluator', () => {
  it('every file is a listed part', () => {
    expect(
      readdirSync(DIR)
        .filter((f) => f.endsWith('.ts'))
        .sort(),
    ).toEqual(Object.keys(PARTS).sort());
  });

  for (const [file, allowed] of Object.entries(PARTS)) {
    it(`${file} imports only ${allowed.length === 0 ? 'nothing of the folder' : allowed.join(', ')}`, () => {
      for (const dep of importsOf(file)) expect(allowed, `${file} imports ${dep}.ts`).toContain(dep);
    });
  }

  it('only the public index imports the evaluator', () => {
    for (const file of Object.keys(PARTS))
      if (file !== 'index.ts') expect(importsOf(file), file).not.toContain('pe');
  });
});
