/**
 * Printers for abstract values.
 *
 * - `printAbs`: the human-readable notation of SCF Fig. 6 (`int u = x | (x * 'Int);`). Generic
 *   over constructors: a hook per constructor lets the object language print its own syntax
 *   (`x * 'Int` for a multiplication node); without one a constructor prints as `c(v1, …)`,
 *   tuples as `(a, b)`, unions as `a | b`, base sets as `'Int`, `1` as `'Any`, `0` as `'Empty`,
 *   maps as `{k: v, …}`, sets as `#{…}`. The default output is accepted by `parseDescription`.
 * - `printDebug`: every node with its identity tag (`1#3`) and maps with both lists
 *   (`map(must[1 ↦ 7#4], may['Int#5 ↦ 'Int#6])#7`).
 */
import { type AbsValue, assertNever, type Con, type Prim } from './value.js';

/** How a constructor hook's text binds: atomic text never needs parentheses. */
export interface Printed {
  readonly text: string;
  readonly atomic: boolean;
}

/**
 * Prints a constructor node its own way, or returns `undefined` for the default. `print`
 * prints a sub-value; pass `'operand'` where a union or fix must be parenthesized.
 * A plain string result counts as atomic.
 */
export type CtorPrinter = (
  v: Con,
  print: (sub: AbsValue, ctx?: 'top' | 'operand') => string,
) => Printed | string | undefined;

export interface PrintOptions {
  /** Hooks by constructor name. */
  readonly ctors?: Readonly<Record<string, CtorPrinter>>;
}

const GREEK = 'αβγδεζηθικλμνξοπρστυφχψω';

function varName(depth: number): string {
  return depth < GREEK.length ? (GREEK[depth] as string) : `α${depth}`;
}

export function printPrim(p: Prim): string {
  if (typeof p === 'string') return JSON.stringify(p);
  if (typeof p === 'number' && Object.is(p, -0)) return '-0';
  return String(p);
}

/** Fig. 6 notation. */
export function printAbs(v: AbsValue, opts: PrintOptions = {}): string {
  const hooks = opts.ctors ?? {};
  // ctx 'top': anything goes; 'alt': a union member (fix needs parens); 'operand': atomic only
  const go = (x: AbsValue, ctx: 'top' | 'alt' | 'operand', depth: number): string => {
    const paren = (s: string, need: boolean) => (need ? `(${s})` : s);
    switch (x.kind) {
      case 'bottom':
        return "'Empty";
      case 'top':
        return "'Any";
      case 'base':
        return `'${x.base}`;
      case 'consts':
        if (x.values.length === 2 && x.values[0] === false && x.values[1] === true) return "'Bool";
        return paren(x.values.map(printPrim).join(' | '), x.values.length > 1 && ctx === 'operand');
      case 'union':
        return paren(x.alts.map((a) => go(a, 'alt', depth)).join(' | '), ctx === 'operand');
      case 'fix':
        return paren(`fix ${varName(depth)}. ${go(x.body, 'top', depth + 1)}`, ctx !== 'top');
      case 'rec':
        return varName(depth - 1 - x.index);
      case 'con': {
        const hook = hooks[x.ctor];
        if (hook !== undefined) {
          const out = hook(x, (sub, c = 'top') => go(sub, c, depth));
          if (out !== undefined) {
            if (typeof out === 'string') return out;
            return paren(out.text, !out.atomic && ctx !== 'top');
          }
        }
        const args = x.args.map((a) => go(a, 'top', depth));
        if (x.ctor.startsWith('#')) return x.args.length === 1 ? `#1(${args[0]})` : `(${args.join(', ')})`;
        return args.length === 0 ? x.ctor : `${x.ctor}(${args.join(', ')})`;
      }
      case 'map': {
        const parts = [
          ...x.must.map(([k, y]) => `${printPrim(k)}: ${go(y, 'top', depth)}`),
          // a may key that is one constant is marked `k?:`, so it does not read as certain
          ...x.may.map(
            ([k, y]) =>
              `${go(k, 'top', depth)}${k.kind === 'consts' && k.values.length === 1 ? '?' : ''}: ${go(y, 'top', depth)}`,
          ),
        ];
        return `{${parts.join(', ')}}`;
      }
      case 'set': {
        const parts = x.must.map(printPrim);
        // a may part that is one constant is marked `c?`, so it does not read as certain
        if (x.may.kind !== 'bottom') {
          const one = x.may.kind === 'consts' && x.may.values.length === 1;
          parts.push(`${go(x.may, 'top', depth)}${one ? '?' : ''}`);
        }
        return `#{${parts.join(', ')}}`;
      }
      default:
        return assertNever(x);
    }
  };
  return go(v, 'top', 0);
}

/** Debug notation: tags on every node, maps and sets with their must and may lists. */
export function printDebug(v: AbsValue): string {
  const go = (x: AbsValue, depth: number): string => {
    const t = `#${x.tag}`;
    switch (x.kind) {
      case 'bottom':
        return `0${t}`;
      case 'top':
        return `1${t}`;
      case 'base':
        return `'${x.base}${t}`;
      case 'consts':
        return `{${x.values.map(printPrim).join(', ')}}${t}`;
      case 'union':
        return `(${x.alts.map((a) => go(a, depth)).join(' | ')})${t}`;
      case 'fix':
        return `(fix ${varName(depth)}. ${go(x.body, depth + 1)})${t}`;
      case 'rec':
        return `${varName(depth - 1 - x.index)}${t}`;
      case 'con':
        return `${x.ctor}(${x.args.map((a) => go(a, depth)).join(', ')})${t}`;
      case 'map':
        return (
          `map(must[${x.must.map(([k, y]) => `${printPrim(k)} ↦ ${go(y, depth)}`).join(', ')}], ` +
          `may[${x.may.map(([k, y]) => `${go(k, depth)} ↦ ${go(y, depth)}`).join(', ')}])${t}`
        );
      case 'set':
        return `set(must[${x.must.map(printPrim).join(', ')}], may ${go(x.may, depth)})${t}`;
      default:
        return assertNever(x);
    }
  };
  return go(v, 0);
}
