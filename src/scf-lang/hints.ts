/**
 * What a rejected method call or member read should be written as instead: the hints the front
 * end's messages end with (SCF2022, SCF3004). SCF-lang values have no methods; what TypeScript
 * offers as a method of `Math` or of a string is a prelude function here, and the hint names it.
 *
 * Each hint names only functions the prelude has (`prelude-sigs.ts`; a test checks every name
 * mentioned here against it), so following a hint never leads to another error.
 */
import type { Type } from './types.js';

/** `Math.<name>` → the prelude function of the same meaning. */
const MATH_FUNS: Readonly<Record<string, string>> = {
  abs: 'abs',
  floor: 'floor',
  fround: 'fround',
  imul: 'imul',
  max: 'max',
  min: 'min',
  sqrt: 'sqrt',
  trunc: 'trunc',
};

/** String methods → how to write them with the prelude's string functions. */
const STRING_METHODS: Readonly<Record<string, string>> = {
  charAt: 'charAt(s, i)',
  charCodeAt: 'charCodeAt(s, i)',
  codePointAt: 'charCodeAt(s, i)',
  slice: 'substring(s, start, end)',
  substring: 'substring(s, start, end)',
  substr: 'substring(s, start, end)',
  concat: "'+' or a template literal",
  toString: "the string itself (numToString for a number's text)",
};

/** Every prelude function a hint here names (for the test that keeps the hints true). */
export const HINTED_PRELUDE_FUNCTIONS: readonly string[] = [
  ...Object.values(MATH_FUNS),
  'cmath',
  'charAt',
  'charCodeAt',
  'substring',
  'strLength',
  'numToString',
];

/**
 * The end of SCF2022's message for `receiver.method(…)`: `isMath` when the receiver is the
 * global `Math` (no binding of that name), `receiver` the receiver's type otherwise.
 */
export function methodHint(method: string, isMath: boolean, receiver: Type | undefined): string {
  if (isMath) {
    const f = MATH_FUNS[method];
    if (f !== undefined) return `use the prelude's '${f}' (import { ${f} } from 'scf/prelude')`;
    return `use the prelude's math functions (${Object.values(MATH_FUNS).join(', ')}; cmath for C's float functions)`;
  }
  const s = STRING_METHODS[method];
  if (s !== undefined && (receiver === undefined || receiver.tag === 'str' || receiver.tag === 'unknown'))
    return `use the prelude's ${s}`;
  if (receiver?.tag === 'str')
    return "strings have no methods: use the prelude's string functions (strLength, charAt, charCodeAt, substring)";
  if (receiver?.tag === 'map' || receiver?.tag === 'set')
    return "use the prelude's functions on maps and sets";
  return 'SCF-lang values have no methods: call a function (the prelude has those on maps, sets, strings and numbers)';
}

/** The end of SCF3004's message for a read of `field` on a value of primitive type `t`, or ''. */
export function fieldHint(field: string, t: Type): string {
  if (t.tag === 'str' && field === 'length') return " (use the prelude's strLength(s))";
  if (t.tag === 'str')
    return " (use the prelude's string functions: strLength, charAt, charCodeAt, substring)";
  if (t.tag === 'map' || t.tag === 'set') return ' (use the prelude functions)';
  return '';
}
