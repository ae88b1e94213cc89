/**
 * The Core printer, in the ML-like notation of SCF Fig. 9:
 *
 *   fun dae.analyzeExpr(e, lSet) =
 *     if var_ref?(e) then set_add(lSet, var_ref⁻¹(e))
 *     else …
 *
 * Constructor tests print as `c?(e)`, projections as `c⁻ᵏ(e)` with k counted from 1 as in the
 * paper, tuples as `(a, b)`. Arithmetic and comparisons print infix; other primitives print
 * qualified (`Map.insert(m, k, v)`, `Set.add(s, x)`, `Prim.fround(x)`). `let` chains and `if`s
 * that do not fit on a line are broken and indented. With `labels`, every node shows `@label`.
 */
import { assertNever, type Expr, type FunDef, type Program } from './core.js';
import type { PrimOp } from './prims.js';
import { showValue } from './values.js';

export interface PrintOptions {
  readonly labels?: boolean;
  readonly width?: number;
}

const INFIX: Partial<Record<PrimOp, string>> = {
  add: '+',
  sub: '-',
  mul: '*',
  div: '/',
  mod: '%',
  bitand: '&',
  bitor: '|',
  bitxor: '^',
  shl: '<<',
  shr: '>>',
  ushr: '>>>',
  eq: '=',
  ne: '<>',
  lt: '<',
  le: '<=',
  gt: '>',
  ge: '>=',
  concat: '^^',
};

const UNARY: Partial<Record<PrimOp, string>> = { neg: '-', not: 'not ', bitnot: '~' };

/** Named primitives print qualified (`Map.insert`, `Set.add`, `Prim.fround`), never like a constructor. */
function primName(op: PrimOp): string {
  if (op.startsWith('map_')) return `Map.${op.slice(4)}`;
  if (op.startsWith('set_')) return `Set.${op.slice(4)}`;
  return `Prim.${op}`;
}

const SUPERSCRIPT = '⁰¹²³⁴⁵⁶⁷⁸⁹';
function sup(n: number): string {
  return String(n)
    .split('')
    .map((d) => SUPERSCRIPT[Number(d)])
    .join('');
}

export function printProgram(p: Program, options: PrintOptions = {}): string {
  return [...p.funs.values()].map((f) => printFun(f, options)).join('\n\n') + '\n';
}

export function printFun(f: FunDef, options: PrintOptions = {}): string {
  return `fun ${f.name}(${f.params.join(', ')}) =\n  ${printExpr(f.body, options, 2)}`;
}

export function printExpr(e: Expr, options: PrintOptions = {}, indent = 0): string {
  const width = options.width ?? 100;
  const lab = (x: Expr) => (options.labels ? `@${x.label}` : '');
  const flat = (x: Expr): string | null => {
    switch (x.kind) {
      case 'var':
        return x.name + lab(x);
      case 'lit':
        return showValue(x.value) + lab(x);
      case 'con': {
        const args = list(x.args);
        if (args === null) return null;
        if (x.ctor.startsWith('#')) return `(${args})${lab(x)}`;
        return (x.args.length === 0 ? x.ctor : `${x.ctor}(${args})`) + lab(x);
      }
      case 'test': {
        const a = flat(x.arg);
        return a === null ? null : `${x.ctor}?(${a})${lab(x)}`;
      }
      case 'proj': {
        const a = flat(x.arg);
        return a === null
          ? null
          : `${x.ctor.startsWith('#') ? 'tuple' : x.ctor}⁻${sup(x.index + 1)}(${a})${lab(x)}`;
      }
      case 'call': {
        const args = list(x.args);
        return args === null ? null : `${x.fn}(${args})${lab(x)}`;
      }
      case 'prim': {
        const op = INFIX[x.op];
        if (op && x.args.length === 2) {
          const a = flat(x.args[0] as Expr);
          const b = flat(x.args[1] as Expr);
          return a === null || b === null ? null : `(${a} ${op} ${b})${lab(x)}`;
        }
        const unary = UNARY[x.op];
        if (unary && x.args.length === 1) {
          const a = flat(x.args[0] as Expr);
          return a === null ? null : `(${unary}${a})${lab(x)}`;
        }
        const args = list(x.args);
        return args === null ? null : `${primName(x.op)}(${args})${lab(x)}`;
      }
      case 'if': {
        const c = flat(x.cond);
        const t = flat(x.then);
        const f = flat(x.else);
        if (c === null || t === null || f === null) return null;
        return `(if ${c} then ${t} else ${f})${lab(x)}`;
      }
      case 'let':
        return null;
      default:
        return assertNever(x);
    }
  };
  const list = (xs: readonly Expr[]): string | null => {
    const parts: string[] = [];
    for (const a of xs) {
      const s = flat(a);
      if (s === null) return null;
      parts.push(s);
    }
    return parts.join(', ');
  };
  const pad = (n: number) => ' '.repeat(n);
  const block = (x: Expr, ind: number): string => {
    const f = flat(x);
    if (f !== null && f.length + ind <= width) return f;
    switch (x.kind) {
      case 'let':
        return `let ${x.name}${lab(x)} = ${block(x.value, ind + 4)} in\n${pad(ind)}${block(x.body, ind)}`;
      case 'if':
        return (
          `if ${block(x.cond, ind + 3)}${lab(x)}\n${pad(ind)}then ${block(x.then, ind + 5)}` +
          `\n${pad(ind)}else ${block(x.else, ind + 5)}`
        );
      default: {
        if (f !== null) return f;
        // A constructor, call or primitive with a let or long if inside: one argument a line.
        const args =
          x.kind === 'con' || x.kind === 'call' || x.kind === 'prim'
            ? x.args
            : x.kind === 'test' || x.kind === 'proj'
              ? [x.arg]
              : [];
        const head =
          x.kind === 'con'
            ? x.ctor
            : x.kind === 'call'
              ? x.fn
              : x.kind === 'prim'
                ? x.op
                : x.kind === 'test'
                  ? `${x.ctor}?`
                  : x.kind === 'proj'
                    ? `${x.ctor}⁻${sup(x.index + 1)}`
                    : '';
        const inner = args.map((a) => `${pad(ind + 2)}${block(a, ind + 2)}`).join(',\n');
        return `${head}(\n${inner})${lab(x)}`;
      }
    }
  };
  return block(e, indent);
}
