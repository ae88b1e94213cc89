/**
 * The escaping discipline of text written into generated code (src/common/generated-text.ts),
 * checked as a property over hostile strings: every piece that could end a comment, start a new
 * line or a nested comment, continue a C line, end a string, or open a template substitution.
 * JavaScript is checked by running it; C by compiling and running it with gcc; WGSL by its
 * lexical rules (line breaks and block-comment delimiters), the only way its comments end.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { clip, COMMENT_MAX, commentText, jsData, jsString } from '../../src/common/index.js';

const PIECES = [
  '\n',
  '\r',
  '\r\n',
  '\u2028',
  '\u2029',
  '\u000b',
  '\u000c',
  '\u0085',
  '\u0000',
  '\u0007',
  '*/',
  '/*',
  '*',
  '/',
  '//',
  '"',
  "'",
  '`',
  '${',
  '}',
  '\\',
  '\\\n',
  '??/',
  '??',
  '?',
  '\u202e',
  '\u200d',
  '\ufeff',
  '\ud83d\ude00',
  '\ud800',
  '\udc00',
  'a',
  ' ',
  'é',
  '<!--',
  '-->',
  'globalThis.PWNED = 1;',
  'process.exit(7)',
  '</script>',
  '#define',
  '#include',
];

const hostile = fc
  .array(
    fc.oneof(
      fc.constantFrom(...PIECES),
      fc.string({ maxLength: 3 }),
      fc.string({ unit: 'binary', maxLength: 3 }),
    ),
    {
      maxLength: 24,
    },
  )
  .map((parts) => parts.join(''));

/** WGSL's line breaks (its comments end at these) and JavaScript's. */
const LINE_BREAK = /[\n\r\v\f\u0085\u2028\u2029]/;

describe('text written into generated code', () => {
  it('a comment made of commentText(s) neither ends early nor spans lines, in JavaScript', () => {
    fc.assert(
      fc.property(hostile, (s) => {
        const c = commentText(s);
        expect(new Function(`// ${c}\nreturn 42;`)()).toBe(42);
        expect(new Function(`/* ${c} */ return 42;`)()).toBe(42);
        expect(new Function(`/**\n * ${c}\n */\nreturn 42;`)()).toBe(42);
        expect(new Function(`const x = 1; // ${c}\nreturn x + 41;`)()).toBe(42);
      }),
      { numRuns: 2000 },
    );
  });

  it('commentText(s) has no line break, no comment delimiter and no backslash but its escapes (WGSL, C)', () => {
    fc.assert(
      fc.property(hostile, (s) => {
        const c = commentText(s);
        expect(c).not.toMatch(LINE_BREAK);
        expect(c).not.toContain('*/');
        expect(c).not.toContain('/*');
        expect(c).not.toContain('??');
        expect(c.replace(/\\u\{[0-9a-f]+\}/g, '')).not.toContain('\\');
        expect(c).not.toMatch(/\p{Cs}/u);
      }),
      { numRuns: 2000 },
    );
  });

  it('comments made of commentText(s) compile and leave the C program as it was (gcc)', () => {
    const texts = fc.sample(hostile, { numRuns: 300 }).map((s) => commentText(s));
    const lines = texts.map((c, i) => `// ${c}\ns += ${i + 1}; /* ${c} */ s += ${i + 1};`);
    const n = texts.length;
    const src = `#include <stdio.h>\nint main(void) {\n  long s = 0;\n${lines.join('\n')}\n  printf("%ld\\n", s);\n  return 0;\n}\n`;
    const dir = mkdtempSync(path.join(tmpdir(), 'scf-ctext-'));
    try {
      writeFileSync(path.join(dir, 'c.c'), src);
      execFileSync('gcc', ['-std=c99', '-trigraphs', '-o', path.join(dir, 'c'), path.join(dir, 'c.c')], {
        stdio: 'pipe',
      });
      const out = execFileSync(path.join(dir, 'c'), { encoding: 'utf8' });
      expect(Number(out)).toBe(n * (n + 1));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('jsString(s) and jsData(v) read back exactly what was written', () => {
    fc.assert(
      fc.property(hostile, (s) => {
        const lit = jsString(s);
        expect(new Function(`return ${lit};`)()).toBe(s);
        expect(new Function(`return \`\${${lit}}\`;`)()).toBe(s);
        expect(lit).not.toMatch(LINE_BREAK);
        const data = { name: s, list: [s, 1] };
        expect(new Function(`return ${jsData(data)};`)()).toEqual(data);
        expect(jsData(s)).not.toMatch(/[\u2028\u2029]/);
      }),
      { numRuns: 2000 },
    );
  });

  it('long text is cut, without splitting an escape or a surrogate pair', () => {
    const huge = `${'x'.repeat(10_000_000)}`;
    expect(commentText(huge)).toHaveLength(COMMENT_MAX);
    expect(commentText(huge).endsWith('…')).toBe(true);
    fc.assert(
      fc.property(hostile, fc.integer({ min: 2, max: 40 }), (s, max) => {
        const c = commentText(s, max);
        expect(c.length).toBeLessThanOrEqual(max);
        expect(c).not.toMatch(/\p{Cs}/u);
        expect(c.replace(/\\u\{[0-9a-f]+\}/g, '')).not.toContain('\\');
        const m = clip(s, max);
        expect(m.length).toBeLessThanOrEqual(max);
        expect(m).not.toMatch(LINE_BREAK);
        if (s.length <= max && !/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]|\p{Cs}/u.test(s)) {
          expect(m).toBe(s);
        }
      }),
      { numRuns: 2000 },
    );
    expect(clip('a'.repeat(10_000_000), 80)).toHaveLength(80);
  });
});
