/**
 * What a rejected method call or member read should be written as instead: the hints the front
 * end's messages end with (SCF2022, SCF3004). SCF-lang values have no methods; what TypeScript
 * offers as a method of `Math` or of a string is a prelude function here, and the hint names it.
 *
 * Each hint names only functions the prelude has (`prelude-sigs.ts`; a test checks every name
 * mentioned here against it), so following a hint never leads to another error.
 *
 * Also what a constructor lacking fields should be written as (SCF3006): the spread of the input
 * of the same kind that the pass most likely rebuilds (`copyHint`).
 */
import type { Expression } from 'oxc-parser';
import { didYouMean, nearestName } from '../common/index.js';
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

/**
 * The variable of `env` last bound whose value has exactly the constructor `kind` (narrowing
 * counts): the input a pass most likely rebuilds, whose fields a spread copies.
 */
function inputOfKind(kind: string, env: ReadonlyMap<string, { readonly type: Type }>): string | undefined {
  let found: string | undefined;
  for (const [name, b] of env) {
    if (b.type.tag === 'data' && b.type.ctors.length === 1 && b.type.ctors[0] === kind) found = name;
  }
  return found;
}

/**
 * A literal of `kind` lacking `missing` fields that `input`, of the same kind, carries: the message
 * names the spread that copies them, writing only the fields the literal changes
 * (`{ kind: 'fun', name: f.name, body }` => `{ ...f, body }`); `text` is the module's source.
 */
function copyHint(
  kind: string,
  missing: readonly string[],
  input: string,
  props: ReadonlyMap<string, { readonly value: Expression }>,
  fields: readonly { readonly name: string }[],
  text: string,
): string {
  const written: string[] = [];
  for (const [name, p] of props) {
    // `kind` is the spread's; a field the kind lacks has a message of its own
    if (!fields.some((f) => f.name === name)) continue;
    const v = p.value;
    // `f.name` for field `name` is what the spread copies
    if (
      v.type === 'MemberExpression' &&
      !v.computed &&
      v.object.type === 'Identifier' &&
      v.object.name === input &&
      v.property.type === 'Identifier' &&
      v.property.name === name
    )
      continue;
    const src = text.slice(v.start, v.end);
    if (v.type === 'Identifier' && v.name === name) written.push(name);
    else written.push(`${name}: ${src.length <= 24 && !src.includes('\n') ? src : '…'}`);
  }
  const list = missing.map((f) => `'${f}'`).join(', ');
  const them = missing.length === 1 ? 'it' : 'them';
  const spread = `{ ...${input}${written.map((w) => `, ${w}`).join('')} }`;
  return `kind '${kind}' needs field${missing.length === 1 ? '' : 's'} ${list}: copy ${them} from the input, \`${spread}\``;
}

/** A literal's field written (`at`: its property, reported there) or missing (at the literal). */
interface FieldProblem<P> {
  readonly at: P | undefined;
  readonly message: string;
}

/**
 * SCF3006's messages for an object literal of `kind` written with `props`: each field `missing`
 * (one message with the spread that copies them from an input of the same kind in `env`,
 * `copyHint`, where one is there), each field written that the kind lacks (its property, so that
 * its value is still checked), with the field it is likely a typo of.
 */
export function fieldProblems<P extends { readonly value: Expression }>(
  kind: string,
  fields: readonly { readonly name: string }[],
  props: ReadonlyMap<string, P>,
  missing: readonly string[],
  env: ReadonlyMap<string, { readonly type: Type }>,
  text: string,
): FieldProblem<{ readonly name: string; readonly at: P }>[] {
  const unknown = [...props.keys()].filter((n) => n !== 'kind' && !fields.some((f) => f.name === n));
  const notWritten = fields.filter((f) => !props.has(f.name)).map((f) => f.name);
  // A field missing that a field written resembles is a typo, which its own message names.
  const misspelt = new Set(unknown.map((n) => nearestName(n, notWritten)));
  const copyable = missing.filter((n) => !misspelt.has(n));
  const input = copyable.length > 0 ? inputOfKind(kind, env) : undefined;
  const out: FieldProblem<{ readonly name: string; readonly at: P }>[] = [];
  if (input !== undefined)
    out.push({ at: undefined, message: copyHint(kind, copyable, input, props, fields, text) });
  for (const n of missing)
    if (input === undefined || !copyable.includes(n))
      out.push({ at: undefined, message: `kind '${kind}' needs field '${n}'` });
  for (const name of unknown) {
    const p = props.get(name);
    // among the fields not written: a misspelt one is also missing
    if (p !== undefined)
      out.push({
        at: { name, at: p },
        message: `kind '${kind}' has no field '${name}'${didYouMean(name, notWritten)}`,
      });
  }
  return out;
}
