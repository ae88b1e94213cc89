/**
 * The one escaping discipline for text that scf writes into generated code — staged modules and
 * stubs (JavaScript, TypeScript declarations), kernels (JavaScript, WGSL, C) — and for names it
 * echoes in messages. Whatever reaches generated code from outside (file names and paths,
 * function and pass names, config strings, a description's text) goes through one of:
 *
 * - `commentText(s)`: the content of a comment, `// …` or `/* … *\/`, in any of the four
 *   languages. Every character that could end the comment or change how the following line
 *   reads is written as `\u{HEX}`: line terminators of any of the languages (LF, CR, VT, FF,
 *   NEL, U+2028, U+2029), all other control and format characters (NUL, bidirectional
 *   overrides, zero-width joiners), lone surrogates, the backslash (a C comment that ends in one
 *   continues on the next line), `*` before `/` and `/` before `*` (a block comment's end, and
 *   WGSL's nested block comments), and the second of `??` (C's trigraphs). The result is one
 *   line, cut to `max` characters with `…`.
 * - `jsString(s)`: a JavaScript string literal whose value is exactly `s`; `jsData(v)`: JSON data
 *   as a JavaScript expression (U+2028 and U+2029 escaped, so it reads the same to any parser).
 * - `clip(s, max)`: a name for a message, cut to `max` characters (never inside a surrogate
 *   pair), control characters shown as `\u{HEX}`.
 *
 * Invariants (tests/common/generated-text.test.ts, a property over hostile strings): a comment
 * made of `commentText(s)` never ends early and is one line in JavaScript, WGSL and C;
 * `eval(jsString(s)) === s`, and `eval(jsData(v))` equals `v`.
 */

/** Longest text `commentText` keeps by default (a 10 MB name is not echoed into generated code). */
export const COMMENT_MAX = 200;

/** Characters written as `\u{HEX}` in a comment (see the header). */
const UNSAFE_IN_COMMENT = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\\]|\p{Cs}|\*(?=\/)|\/(?=\*)|(?<=\?)\?/gu;

/** Control characters, separators and lone surrogates: shown as `\u{HEX}` in messages. */
const UNPRINTABLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]|\p{Cs}/gu;

function hexEscape(ch: string): string {
  return `\\u{${(ch.codePointAt(0) as number).toString(16)}}`;
}

function hexUnit(ch: string): string {
  return `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/**
 * `s` with the characters `unsafe` matches written as `\u{HEX}`, at most `max` characters: when
 * longer, cut and ended with `…`, never inside an escape or a surrogate pair. Escapes only
 * lengthen, so the first `max + 1` characters decide whether and where to cut: a long `s` costs
 * no more than a short one.
 */
function escapeAndCut(s: string, unsafe: RegExp, max: number): string {
  const out = s.slice(0, max + 1).replace(unsafe, hexEscape);
  if (out.length <= max && s.length <= max) return out;
  let end = Math.max(0, max - 1);
  const open = out.lastIndexOf('\\u{', end);
  if (open >= 0 && out.indexOf('}', open) >= end) end = open;
  const hi = out.charCodeAt(end - 1);
  if (hi >= 0xd800 && hi <= 0xdbff) end--;
  return `${out.slice(0, end)}…`;
}

/** `s` as the content of a comment in generated JavaScript, TypeScript, WGSL or C (see the header). */
export function commentText(s: string, max = COMMENT_MAX): string {
  return escapeAndCut(s, UNSAFE_IN_COMMENT, max);
}

/**
 * A JavaScript string literal in single quotes whose value is exactly `s`: quotes, backslashes,
 * line terminators, control characters and lone surrogates escaped; other characters (a
 * surrogate pair among them) kept, so names stay readable.
 */
export function jsString(s: string): string {
  let out = "'";
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const ch = s[i] as string;
    if (ch === "'" || ch === '\\') out += `\\${ch}`;
    else if (ch === '\n') out += '\\n';
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && isLowSurrogate(s.charCodeAt(i + 1))) {
      out += ch + (s[i + 1] as string);
      i++;
    } else if (
      c < 0x20 ||
      (c >= 0x7f && c <= 0x9f) ||
      c === 0x2028 ||
      c === 0x2029 ||
      (c >= 0xd800 && c <= 0xdfff)
    ) {
      out += `\\u${c.toString(16).padStart(4, '0')}`;
    } else out += ch;
  }
  return `${out}'`;
}

function isLowSurrogate(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}

/**
 * JSON data as a JavaScript expression: `JSON.stringify(v)` with U+2028 and U+2029 escaped, so
 * that the text means the same to every JavaScript parser.
 */
export function jsData(v: unknown): string {
  return (JSON.stringify(v) ?? 'undefined').replace(/[\u2028\u2029]/g, hexUnit);
}

/** A name as a message shows it: control characters as `\u{HEX}`, at most `max` characters. */
export function clip(s: string, max = 80): string {
  return escapeAndCut(s, UNPRINTABLE, max);
}
