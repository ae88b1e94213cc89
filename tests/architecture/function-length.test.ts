/**
 * No function of src/ is longer than MAX_LINES lines: a longer one is split into
 * named steps. Functions are found with oxc-parser (declarations, methods, function expressions
 * and arrows, nested ones each on their own), measured from their first line to their last.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseSync } from 'oxc-parser';
import { describe, expect, it } from 'vitest';
import { lineCol } from '../../src/common/index.js';

const SRC = path.resolve(import.meta.dirname, '../../src');
const MAX_LINES = 120;

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
