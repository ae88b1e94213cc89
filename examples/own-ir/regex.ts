/**
 * A backtracking matcher of regular expressions (literals, `.`, `c*` and `.*`, `^` and `$`, after
 * Kernighan and Pike) written in SCF-lang. `matches(re, text)` compiles the pattern into a list of
 * tokens, then matches them against the text's characters, read with the prelude's string
 * functions.
 *
 * Staged against a known pattern (regex.json), `compile` runs at staging time and the matcher is
 * specialized once per token suffix: the staged `matches` is the pattern compiled to code over the
 * late text. The matcher walks the pattern as a list (a suffix of it is where matching is), not
 * as an index into the string, so that the stager can tell its positions apart.
 */
import { charAt, charCodeAt, cons, type List, nil, strLength } from 'scf/prelude';

/** One token of a compiled pattern: a literal, any character, a starred one, the end. */
export type Tok = Lit | AnyChar | Star | End;

export interface Lit {
  readonly kind: 'lit';
  readonly code: number;
}

export interface AnyChar {
  readonly kind: 'any';
}

/** `c*` (`anyChar` for `.*`). */
export interface Star {
  readonly kind: 'star';
  readonly code: number;
  readonly anyChar: boolean;
}

export interface End {
  readonly kind: 'end';
}

export interface Pattern {
  readonly kind: 'pattern';
  readonly anchored: boolean;
  readonly toks: List<Tok>;
}

/** The tokens of `re` from character `i` on. */
export function tokens(re: string, i: number): List<Tok> {
  if (i >= strLength(re)) return nil();
  const c = charAt(re, i);
  if (charAt(re, i + 1) === '*') {
    const star: Tok = { kind: 'star', code: charCodeAt(re, i), anyChar: c === '.' };
    return cons(star, tokens(re, i + 2));
  }
  if (c === '$' && i + 1 === strLength(re)) return cons<Tok>({ kind: 'end' }, nil());
  const tok: Tok = c === '.' ? { kind: 'any' } : { kind: 'lit', code: charCodeAt(re, i) };
  return cons(tok, tokens(re, i + 1));
}

export function compile(re: string): Pattern {
  const anchored = charAt(re, 0) === '^';
  return { kind: 'pattern', anchored, toks: tokens(re, anchored ? 1 : 0) };
}

/** Whether `toks` match `text` from `ti` on (to the end of the tokens). */
export function here(toks: List<Tok>, text: string, ti: number): boolean {
  if (toks.kind === 'nil') return true;
  const t = toks.head;
  switch (t.kind) {
    case 'end':
      return ti === strLength(text);
    case 'star':
      return star(t, toks.tail, text, ti);
    case 'any':
      return ti < strLength(text) && here(toks.tail, text, ti + 1);
    case 'lit':
      return ti < strLength(text) && charCodeAt(text, ti) === t.code && here(toks.tail, text, ti + 1);
  }
}

/** `c*` then `rest`: the shortest run of `c` first, as the backtracking matcher tries them. */
export function star(c: Star, rest: List<Tok>, text: string, ti: number): boolean {
  if (here(rest, text, ti)) return true;
  return (
    ti < strLength(text) && (c.anyChar || charCodeAt(text, ti) === c.code) && star(c, rest, text, ti + 1)
  );
}

export function anywhere(toks: List<Tok>, text: string, ti: number): boolean {
  if (here(toks, text, ti)) return true;
  return ti < strLength(text) && anywhere(toks, text, ti + 1);
}

export function matches(re: string, text: string): boolean {
  const p = compile(re);
  return p.anchored ? here(p.toks, text, 0) : anywhere(p.toks, text, 0);
}
