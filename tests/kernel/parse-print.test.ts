/**
 * One-line parser and printer tests: each C snippet (a function body) is parsed and printed back, and
 * the printed body must be the expected text; printing must also round-trip (parse ∘ print = id
 * modulo labels). Plus a property test of the round trip over generated programs and a check of the
 * AST's shape (labels unique, elaborated casts).
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  equalModuloLabels,
  listToArray,
  loadKernelParser,
  maxLabel,
  parseKernelSync,
  printProgram,
  relabel,
} from '../../src/kernel/index.js';
import { formatDiagnostic } from '../../src/common/index.js';
import { generate } from './gen.js';

beforeAll(loadKernelParser);

const HEADER = 'int f(int x, int y, float u, const float a[], int b[], bool c)';

/** Parses `HEADER { body }`, prints it, and returns the printed body lines joined by a space. */
function roundTrip(body: string): string {
  const src = `${HEADER} {\n${body}\n}\n`;
  const p = parseKernelSync(src, 't.c');
  expect(p.diagnostics.map((d) => formatDiagnostic(d, p.sources, false))).toEqual([]);
  const printed = printProgram(p.program);
  const again = parseKernelSync(printed, 'printed.c');
  expect(again.diagnostics.map((d) => formatDiagnostic(d, again.sources, false))).toEqual([]);
  expect(equalModuloLabels(again.program, p.program)).toBe(true);
  const lines = printed.split('\n');
  const start = lines.findIndex((l) => l.startsWith('int f('));
  return lines
    .slice(start + 1, lines.lastIndexOf('}'))
    .map((l) => l.trim())
    .join(' ');
}

function expectPrinted(body: string, expected: string): void {
  expect(roundTrip(body)).toBe(expected);
}

describe('parse and print', () => {
  it('assignments and compound forms', () => {
    expectPrinted('x = y + 1; return x;', 'x = y + 1; return x;');
    expectPrinted(
      'x += 2; x -= y; x *= 3; x /= 4; x %= 5; return x;',
      'x += 2; x -= y; x *= 3; x /= 4; x %= 5; return x;',
    );
    expectPrinted('x++; ++x; x--; return x;', 'x++; x++; x--; return x;');
    expectPrinted('b[x] += 1; b[0]++; return 0;', 'b[x]++; b[0]++; return 0;');
    expectPrinted('x += u; return x;', 'x = x + u; return x;');
  });

  it('declarations are hoisted, with initialisers as assignments', () => {
    expectPrinted(
      'int z = 3; float t[2] = {1.5f}; return z;',
      'int z; float t[2]; z = 3; t[0] = 1.5f; t[1] = 0.0f; return z;',
    );
    expectPrinted('int i, j = 2; i = j; return i;', 'int i; int j; j = 2; i = j; return i;');
  });

  it('shadowing declarations are renamed; reused names of the same type are shared', () => {
    expectPrinted('{ float x = 1.0f; u = x; } return x;', 'float x_1; x_1 = 1.0f; u = x_1; return x;');
    expectPrinted(
      'for (int i = 0; i < 3; i++) { x += i; } for (int i = 0; i < 2; i++) { y += i; } return x;',
      'int i; for (i = 0; i < 3; i++) { x += i; } for (i = 0; i < 2; i++) { y += i; } return x;',
    );
  });

  it('control flow', () => {
    expectPrinted('if (x) y = 1; return y;', 'if (x) { y = 1; } return y;');
    expectPrinted(
      'if (x) y = 1; else if (c) y = 2; else y = 3; return y;',
      'if (x) { y = 1; } else if (c) { y = 2; } else { y = 3; } return y;',
    );
    expectPrinted('while (x < 10) x = x * 2; return x;', 'while (x < 10) { x *= 2; } return x;');
    expectPrinted('for (;;) { return 1; }', 'while (1) { return 1; }');
    expectPrinted('for (x = 0; x < 3;) x++; return x;', 'x = 0; while (x < 3) { x++; } return x;');
    expectPrinted('for (; x < 3; x++) ; return x;', 'for (; x < 3; x++) { } return x;');
  });

  it('precedence and parentheses', () => {
    expectPrinted('return (x + y) * 2;', 'return (x + y) * 2;');
    expectPrinted('return x - (y - 1);', 'return x - (y - 1);');
    expectPrinted('return x - y - 1;', 'return x - y - 1;');
    expectPrinted('return x << 2 & 7 | 1;', 'return ((x << 2) & 7) | 1;');
    expectPrinted('return x && y || c;', 'return (x && y) || c;');
    expectPrinted('return c ? x : y ? 1 : 2;', 'return c ? x : y ? 1 : 2;');
    expectPrinted('return -(-x);', 'return -(-x);');
    expectPrinted('return x - -1;', 'return x - -1;');
    expectPrinted('return !x + ~y;', 'return !x + ~y;');
  });

  it('literals and casts', () => {
    expectPrinted(
      'u = 0.1f; u = 1e10f; u = -0.0f; u = .5f; return 0x1F + 010;',
      'u = 0.1f; u = 1e10f; u = -0.0f; u = 0.5f; return 31 + 8;',
    );
    expectPrinted('u = x; x = (int)u; return (float)x < u;', 'u = x; x = (int)u; return (float)x < u;');
    expectPrinted('c = true; c = x > 1; return c + 1;', 'c = true; c = x > 1; return c + 1;');
    expectPrinted('b[0] = a[x] > 0.5f; return b[0];', 'b[0] = a[x] > 0.5f; return b[0];');
  });

  it('calls, and prototypes when a function is called before its definition', () => {
    const src =
      'int g(int p, float q[]);\nint f(float q[]) { return g(1, q); }\nint g(int p, float q[]) { q[0] = p; return p; }\n';
    const p = parseKernelSync(src);
    expect(p.diagnostics).toEqual([]);
    const printed = printProgram(p.program);
    expect(printed.startsWith('int f(float q[]);\nint g(int p, float q[]);\n')).toBe(true);
    expect(equalModuloLabels(parseKernelSync(printed).program, p.program)).toBe(true);
  });

  it('accepts bool without <stdbool.h>, and adds the include when printing', () => {
    const p = parseKernelSync('bool f(bool b) { return !b; }');
    expect(p.diagnostics).toEqual([]);
    expect(printProgram(p.program)).toBe('#include <stdbool.h>\n\nbool f(bool b) {\n  return !b;\n}\n');
  });

  it('elaborates implicit conversions into casts', () => {
    const p = parseKernelSync('float f(int x, float u) { return x + u; }');
    const fun = listToArray(p.program)[0];
    expect(fun?.body).toMatchObject({
      kind: 'return',
      value: {
        kind: 'some',
        value: {
          kind: 'binary',
          op: '+',
          ty: 'float',
          left: { kind: 'cast', ty: 'float', implicit: true, arg: { kind: 'var', name: 'x' } },
        },
      },
    });
  });

  it('gives every node a unique label', () => {
    const p = parseKernelSync(
      `${HEADER} { int z = x * 2; for (int i = 0; i < z; i++) b[i] = a[i] > u; return z; }`,
    );
    const labels: number[] = [];
    const walk = (x: unknown): void => {
      if (typeof x !== 'object' || x === null) return;
      const o = x as Record<string, unknown>;
      if (typeof o.lbl === 'number') labels.push(o.lbl);
      for (const v of Object.values(o)) walk(v);
    };
    walk(p.program);
    expect(new Set(labels).size).toBe(labels.length);
    expect(maxLabel(p.program)).toBe(Math.max(...labels));
    expect(equalModuloLabels(relabel(p.program, 1000), p.program)).toBe(true);
  });

  it('round-trips random programs', () => {
    fc.assert(
      fc.property(fc.array(fc.nat(), { minLength: 400, maxLength: 400 }), (tape) => {
        const g = generate(tape, 'r_');
        const p = parseKernelSync(g.source);
        expect(p.diagnostics.map((d) => formatDiagnostic(d, p.sources, false))).toEqual([]);
        expect(equalModuloLabels(parseKernelSync(printProgram(p.program)).program, p.program)).toBe(true);
      }),
      { numRuns: 150, seed: 1 },
    );
  });
});
