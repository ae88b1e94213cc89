/**
 * No function of src/ is longer than MAX_LINES lines: a longer one is split into
 * named steps. Functions are found with oxc-parser (declarations, methods, function expressions
 * and arrows, nested ones each on their own), measured from their first line to their last. No
 * file of src/ is longer than MAX_FILE_LINES lines, and the partial evaluator's core (pe.ts) than
 * MAX_CORE_LINES: a file that grows past them holds more than one idea, and is split along them.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseSync } from 'oxc-parser';
import { describe, expect, it } from 'vitest';
import { lineCol } from '../../src/common/index.js';

const SRC = path.resolve(import.meta.dirname, '../../src');
const MAX_LINES = 120;
const MAX_FILE_LINES = 1500;
const MAX_CORE_LINES = 1000;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(p);
    return /\.ts$/.test(e.name) && !e.name.endsWith('.d.ts') ? [p] : [];
  });
}

interface Found {
  readonly where: string;
  readonly lines: number;
}

/** Every function of `file` with its length in lines. */
function functions(file: string): Found[] {
  const text = readFileSync(file, 'utf8');
  const lineOf = (offset: number): number => lineCol(text, offset).line;
  const { program } = parseSync(file, text, { lang: 'ts', sourceType: 'module' });
  const out: Found[] = [];
  const visit = (node: unknown, name: string): void => {
    if (Array.isArray(node)) {
      for (const x of node) visit(x, name);
      return;
    }
    if (node === null || typeof node !== 'object') return;
    const n = node as {
      type?: string;
      start: number;
      end: number;
      id?: { name?: string };
      key?: { name?: string };
    };
    let here = name;
    if ((n.type === 'MethodDefinition' || n.type === 'PropertyDefinition') && n.key?.name) here = n.key.name;
    if ((n.type === 'FunctionDeclaration' || n.type === 'VariableDeclarator') && n.id?.name) here = n.id.name;
    if (
      n.type === 'FunctionDeclaration' ||
      n.type === 'FunctionExpression' ||
      n.type === 'ArrowFunctionExpression'
    ) {
      const first = lineOf(n.start);
      out.push({ where: `${path.relative(SRC, file)}:${first} ${here}`, lines: lineOf(n.end) - first + 1 });
    }
    for (const [k, v] of Object.entries(n)) if (k !== 'parent') visit(v, here);
  };
  visit(program, '');
  return out;
}

describe('function length in src/', () => {
  const all = sourceFiles(SRC).flatMap(functions);

  it('finds the functions it measures', () => {
    expect(all.length).toBeGreaterThan(1000);
  });

  it(`has no function over ${MAX_LINES} lines`, () => {
    const long = all.filter((f) => f.lines > MAX_LINES).map((f) => `${f.where} (${f.lines} lines)`);
    expect(long).toEqual([]);
  });
});

describe('file length in src/', () => {
  const lengths = sourceFiles(SRC).map((file) => ({
    file: path.relative(SRC, file),
    lines: readFileSync(file, 'utf8').split('\n').length,
  }));

  it(`has no file over ${MAX_FILE_LINES} lines, and pe.ts under ${MAX_CORE_LINES}`, () => {
    const long = lengths
      .filter(
        (f) => f.lines > (f.file === path.join('partial-eval', 'pe.ts') ? MAX_CORE_LINES : MAX_FILE_LINES),
      )
      .map((f) => `${f.file} (${f.lines} lines)`);
    expect(long).toEqual([]);
    expect(lengths.some((f) => f.file === path.join('partial-eval', 'pe.ts'))).toBe(true);
  });
});
