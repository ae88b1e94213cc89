/**
 * Printers for abstract values.
 *
 * - `printAbs`: the human-readable notation of SCF Fig. 6 (`int u = x | (x * 'Int);`). Generic
 *   over constructors: a hook per constructor lets the object language print its own syntax
 *   (`x * 'Int` for a multiplication node); without one a constructor prints as `c(v1, …)`,
 *   tuples as `(a, b)`, unions as `a | b`, base sets as `'Int`, `1` as `'Any`, `0` as `'Empty`,
 *   maps as `{k: v, …}`, sets as `#{…}`. The default output is accepted by `parseDescription`.
 *   A value's last parts (a list's tails) are printed by a loop, so a long list takes no stack.
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

/**
 * Fig. 6 notation. The last argument of a constructor printed the default way, the last
 * alternative of a union and a fix's body are printed by a loop, not a call, so a long list
 * takes no stack (its closing parentheses are added at the end).
 */
export function printAbs(v: AbsValue, opts: PrintOptions = {}): string {
  const hooks = opts.ctors ?? {};
  // ctx 'top': anything goes; 'alt': a union member (fix needs parens); 'operand': atomic only
  const go = (x0: AbsValue, ctx0: 'top' | 'alt' | 'operand', depth0: number): string => {
    const paren = (s: string, need: boolean) => (need ? `(${s})` : s);
    // the text before and after the node being printed, for the nodes it is the last part of
    const before: string[] = [];
    const after: string[] = [];
    let x = x0;
    let ctx = ctx0;
    let depth = depth0;
    let text: string | undefined;
    while (text === undefined) {
      switch (x.kind) {
        case 'bottom':
          text = "'Empty";
          break;
        case 'top':
          text = "'Any";
          break;
        case 'base':
          text = `'${x.base}`;
          break;
        case 'consts':
          if (x.values.length === 2 && x.values[0] === false && x.values[1] === true) text = "'Bool";
          else text = paren(x.values.map(printPrim).join(' | '), x.values.length > 1 && ctx === 'operand');
          break;
        case 'union': {
          const need = ctx === 'operand';
          const init = x.alts.slice(0, -1).map((a) => `${go(a, 'alt', depth)} | `);
          before.push(`${need ? '(' : ''}${init.join('')}`);
          after.push(need ? ')' : '');
          x = x.alts[x.alts.length - 1] as AbsValue;
          ctx = 'alt';
          break;
        }
        case 'fix': {
          const need = ctx !== 'top';
          before.push(`${need ? '(' : ''}fix ${varName(depth)}. `);
          after.push(need ? ')' : '');
          x = x.body;
          ctx = 'top';
          depth++;
          break;
        }
        case 'rec':
          text = varName(depth - 1 - x.index);
          break;
        case 'con': {
          const hook = hooks[x.ctor];
          if (hook !== undefined) {
            const d = depth;
            const out = hook(x, (sub, c = 'top') => go(sub, c, d));
            if (out !== undefined) {
              text = typeof out === 'string' ? out : paren(out.text, !out.atomic && ctx !== 'top');
              break;
            }
          }
          const tuple = x.ctor.startsWith('#');
          if (x.args.length === 0) {
            text = tuple ? '()' : x.ctor;
            break;
          }
          const init = x.args.slice(0, -1).map((a) => `${go(a, 'top', depth)}, `);
          before.push(`${tuple ? (x.args.length === 1 ? '#1(' : '(') : `${x.ctor}(`}${init.join('')}`);
          after.push(')');
          x = x.args[x.args.length - 1] as AbsValue;
          ctx = 'top';
          break;
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
          text = `{${parts.join(', ')}}`;
          break;
        }
        case 'set': {
          const parts = x.must.map(printPrim);
          // a may part that is one constant is marked `c?`, so it does not read as certain
          if (x.may.kind !== 'bottom') {
            const one = x.may.kind === 'consts' && x.may.values.length === 1;
            parts.push(`${go(x.may, 'top', depth)}${one ? '?' : ''}`);
          }
          text = `#{${parts.join(', ')}}`;
          break;
        }
        default:
          return assertNever(x);
      }
    }
    if (before.length === 0) return text;
    return before.join('') + text + after.reverse().join('');
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
