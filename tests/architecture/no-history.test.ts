/**
 * The sources, tests, benchmarks, scripts, docs and README state what the code is, not how it came to be:
 * no text names an issue number, a work session, a review, or a before/after of some change.
 * History lives in CHANGELOG.md only (not scanned, nor are the saved benchmark reports,
 * docs/benchmarks/*.json, which are data).
 *
 * Every pattern but one is matched against a file's whole text (code, strings, test titles,
 * comments). The exception is a bare `#12`, which code uses legitimately (Core's tuple
 * constructors `#2`, node labels `assign #9`): it is looked for in prose only — comments of
 * TypeScript and JavaScript files (found by oxc-parser) and markdown outside fenced blocks — and
 * never inside `inline code`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseSync } from 'oxc-parser';
import { describe, expect, it } from 'vitest';
import { lineCol } from '../../src/common/index.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const SCANNED = ['src', 'tests', 'benchmarks', 'scripts', 'docs', 'README.md'];
const TEXT = /\.(?:ts|mts|mjs|js|md|c|json|txt)$/;
/** Not scanned: this file (it spells the patterns out) and the saved benchmark reports. */
const EXEMPT = [/^tests\/architecture\/no-history\.test\.ts$/, /^docs\/benchmarks\/[^/]+\.json$/];

interface Rule {
  readonly what: string;
  readonly pattern: RegExp;
}

/** Matched against the whole text of every scanned file. */
const RULES: readonly Rule[] = [
  { what: 'an issue number', pattern: /\b(?:issues?|tickets?|bugs?|PRs?|pull requests?)\s*#?\d+/i },
  // a GPU's or a browser's session is a thing the code may hold; a work session is history
  { what: 'a session', pattern: /(?<!\b(?:device|GPU|browser|user|login|WebGPU)\s)\bsessions?\b/i },
  {
    what: 'a review',
    pattern:
      /\b(?:(?:the|a|first|second|third|final|held-out|hostile|code)\s+review|reviews?'?s? fix(?:es)?|after review)\b/i,
  },
  {
    what: 'a before/after of a change',
    pattern: /\b(?:before|after|since|until) (?:this|that|the last) (?:change|commit|refactor(?:ing)?)\b/i,
  },
];

/** Matched against prose only (comments, markdown outside fences), inline code removed. */
const PROSE_RULE: Rule = { what: 'an issue number', pattern: /(?:^|[\s(,;])#\d+\b/ };

/**
 * Matched against the comments of src only: a timing that goes stale as the code changes. Code
 * gives the reason for a design; the figures live in docs/benchmarks.md, which measures them.
 */
const FIGURE_RULE: Rule = {
  what: 'a measured figure',
  pattern:
    /\b\d+(?:\.\d+)?(?:[–-]\d+(?:\.\d+)?)?× (?:slower|faster)\b|\bmeasured:|\d ?(?:µs|ms) per (?:run|call)\b/i,
};

function files(dir: string): string[] {
  if (TEXT.test(dir)) return [dir];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : files(p);
    return e.isFile() && TEXT.test(e.name) ? [p] : [];
  });
}

interface Prose {
  readonly text: string;
  /** The 1-based line of the text's first character. */
  readonly line: number;
}

/** The comments of a TypeScript or JavaScript file. */
function codeComments(file: string, text: string): Prose[] {
  const { comments } = parseSync(file, text, {
    lang: file.endsWith('.ts') ? 'ts' : 'js',
    sourceType: 'module',
  });
  return comments.map((c) => ({ text: text.slice(c.start, c.end), line: lineCol(text, c.start).line }));
}

/** The lines of a markdown file outside fenced blocks. */
function markdownProse(text: string): Prose[] {
  const out: Prose[] = [];
  let fenced = false;
  text.split('\n').forEach((l, i) => {
    if (/^\s*(?:```|~~~)/.test(l)) fenced = !fenced;
    else if (!fenced) out.push({ text: l, line: i + 1 });
  });
  return out;
}

function prose(file: string, text: string): Prose[] {
  if (file.endsWith('.md')) return markdownProse(text);
  if (/\.(?:ts|mts|mjs|js)$/.test(file)) return codeComments(file, text);
  return [];
}

/** `file:line: what — the words`, for each hit in one file. */
function hits(rel: string, text: string): string[] {
  const out: string[] = [];
  const report = (line: number, rule: Rule, words: string) =>
    out.push(`${rel}:${line}: ${rule.what} — '${words.trim()}'`);
  text.split('\n').forEach((l, i) => {
    for (const rule of RULES) {
      const m = rule.pattern.exec(l);
      if (m) report(i + 1, rule, m[0]);
    }
  });
  for (const p of prose(rel, text)) {
    p.text.split('\n').forEach((l, i) => {
      const m = PROSE_RULE.pattern.exec(l.replace(/`[^`\n]*`/g, '``'));
      if (m) report(p.line + i, PROSE_RULE, m[0]);
      const f = rel.startsWith('src/') ? FIGURE_RULE.pattern.exec(l) : null;
      if (f) report(p.line + i, FIGURE_RULE, f[0]);
    });
  }
  return out;
}

describe('no history outside CHANGELOG.md', () => {
  it('no file names an issue number, a session, a review or a before/after of a change', () => {
    const found = SCANNED.flatMap((d) => files(path.join(ROOT, d)))
      .map((f) => path.relative(ROOT, f).split(path.sep).join('/'))
      .filter((rel) => !EXEMPT.some((e) => e.test(rel)))
      .flatMap((rel) => hits(rel, readFileSync(path.join(ROOT, rel), 'utf8')));
    expect(found).toEqual([]);
  });

  it('tells history from the words code and docs use legitimately', () => {
    const flagged = (s: string, file = 'x.md') => hits(file, s).length > 0;
    for (const s of [
      'as issue 18 item 2 asks',
      'fixed in the eleventh session',
      'the review found a bug',
      'a second review (a helper reading the change)',
      'review fixes: one helper',
      'measured before this change',
      'see #15 for the plan',
    ]) {
      expect(flagged(s), s).toBe(true);
    }
    for (const s of ['// 1.29× slower with it there', '/* measured: 40 µs */', '// ~1.7 ms per run cold']) {
      expect(flagged(s, 'src/x.ts'), s).toBe(true);
      expect(flagged(s, 'docs/x.md'), s).toBe(false);
    }
    for (const s of [
      'rewritten instead (review the diff before committing)',
      'then `UPDATE_GOLDEN=1 npm test` and review `expected.txt`',
      'a GPU session opened per test file',
      'the tuple constructor `#2` and the label in `assign #9`',
      'the command changes and is checked again',
    ]) {
      expect(flagged(s), s).toBe(false);
    }
    expect(flagged("const t = con('#2', [a, b]); // a pair", 'x.ts')).toBe(false);
    expect(flagged('// fixes #12\nconst x = 1;', 'x.ts')).toBe(true);
  });
});
