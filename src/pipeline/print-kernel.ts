/**
 * Abstract kernel programs in the notation of SCF Fig. 6: the stager's abstract outputs I2, I3, …
 * (sets of optimized functions) printed as C with holes and alternatives:
 *
 *   int mul_add(int x, int y, int a) {
 *     int u;
 *     int w;
 *     u = x | (x * 'Int);
 *     w = (u | x) + y;
 *     return w;
 *   }
 *
 * Algorithm: a dedicated walker over the abstract value that mirrors src/kernel/print.ts case
 * by case (statement lists flattened, `for` rebuilt from `isFor` loops, `x = x + e` as `x += e`,
 * `else if` chains, C precedence plus the same clarifying parentheses, implicit casts omitted,
 * labels never printed). Where the value is not one constructor it prints the set:
 * - a union of expressions is `a | b`, binding looser than any C operator: parenthesized as an
 *   operand, alternatives that are not atomic parenthesized (`x | (x * 'Int)`);
 * - a union of commands is a block per alternative, `{ … } | { … }`, one line each brace;
 * - a field that is not one constant prints its set: `'Int`, `'Float`, `'Str`, `3 | 7`,
 *   `'Bool`; `1` prints `'Any`, `0` `'Empty`;
 * - `fix α. …` and `α` as in printAbs (a command `fix` opens a block `fix α {`, `α;` recurs);
 *   a list tail that is not a cons chain prints `e...` for "any number of e" and `...<set>`
 *   otherwise; anything else off the AST's shape falls back to `printAbs` with this printer's
 *   hooks.
 *
 * Invariant (tested on every benchmark input and on generated programs): for a singleton value,
 * `printAbstractFun(fromConcrete(f))` is exactly `printFun(f)` — the only difference the
 * abstract domain forces is that a float `-0.0f` prints as `0.0f`, since constant sets identify
 * -0 with 0 (SameValueZero); and a combinator's composed lambda (fusion builds them; the concrete
 * printer lifts each into a helper function) prints inline, `(const float x) => { …; return e; }`.
 * Field order comes from `KERNEL_CTORS`, read from the kernel's field table (generated from
 * src/kernel/ast.ts) and checked against the constructor table the SCF-lang front end builds from it.
 */
import {
  type AbsValue,
  type Con,
  type CtorInfo,
  type CtorTable,
  PRELUDE_CTORS,
  type Prim,
  printAbs,
  printPrim,
} from '../abstract-values/index.js';
import { ARRAY_OPS, equalModuloLabels, formatFloat32Magnitude, KERNEL_NODES } from '../kernel/index.js';

/**
 * The kernel AST's constructors with the prelude's, fields in declaration order: read from the
 * kernel's field table (src/kernel/fields.generated.ts, generated from ast.ts).
 */
export const KERNEL_CTORS: CtorTable = new Map<string, CtorInfo>([
  ...PRELUDE_CTORS,
  ...Object.entries(KERNEL_NODES).map(([name, info]): [string, CtorInfo] => [
    name,
    { fields: info.fields.map((f) => f.name) },
  ]),
]);

export interface PrintKernelOptions {
  /** Constructor table giving field order (default `KERNEL_CTORS`). */
  readonly ctors?: CtorTable;
  /**
   * How many nodes of the value are printed (default PRINT_NODES); past them every expression,
   * command or other part not yet printed is `…`.
   */
  readonly maxNodes?: number;
}

/**
 * The nodes a description prints at most. An abstract value is a DAG (a result that shares a
 * sub-value at several places, like a statement list that follows each alternative of an
 * unrolled loop); printed as a tree it can be exponentially bigger: on 20 nested loops the
 * descriptions took 40 s and 90 MB to write, on 30 nested loops almost 5 minutes. On the
 * benchmark configurations the inputs I1–I3 print in at most 600 nodes; the last pass's output
 * in up to 1.1 · 10⁶ (doconvol's: 9 MB of text), which is now cut.
 */
export const PRINT_NODES = 50_000;

/** What stands for the parts not printed. */
export const ELIDED = '…';

/** An abstract kernel `Fun` (or a union of them) in Fig. 6 notation. */
export function printAbstractFun(v: AbsValue, opts: PrintKernelOptions = {}): string {
  const p = new KernelPrinter(opts.ctors ?? KERNEL_CTORS, opts.maxNodes ?? PRINT_NODES);
  const text = p.fun(v);
  return p.elided ? `${text}\n${p.note()}` : text;
}

/** An abstract kernel `Expr` in Fig. 6 notation (`x | (x * 'Int)`). */
export function printAbstractExpr(v: AbsValue, opts: PrintKernelOptions = {}): string {
  return new KernelPrinter(opts.ctors ?? KERNEL_CTORS, opts.maxNodes ?? PRINT_NODES).expr(v, 0);
}

/** An abstract kernel `Cmd` in Fig. 6 notation, one line per statement, indented `indent` levels. */
export function printAbstractCmd(v: AbsValue, indent = 0, opts: PrintKernelOptions = {}): string {
  const lines: string[] = [];
  const p = new KernelPrinter(opts.ctors ?? KERNEL_CTORS, opts.maxNodes ?? PRINT_NODES);
  p.printList(p.flatten(v), indent, lines);
  if (p.elided) lines.push(p.note());
  return lines.join('\n');
}

// C precedences, as src/kernel/print.ts
const PREC: Readonly<Record<string, number>> = {
  '*': 13,
  '/': 13,
  '%': 13,
  '+': 12,
  '-': 12,
  '<<': 11,
  '>>': 11,
  '<': 10,
  '<=': 10,
  '>': 10,
  '>=': 10,
  '==': 9,
  '!=': 9,
  '&': 8,
  '^': 7,
  '|': 6,
  '&&': 5,
  '||': 4,
};
const UNARY = 14;
const PRIMARY = 15;
/** A union of expressions binds looser than every C operator (and than a call argument's 2). */
const ALT = 1;
const BITWISE = new Set(['&', '|', '^', '<<', '>>']);
const COMPOUND = new Set(['+', '-', '*', '/', '%', '&', '|', '^', '<<', '>>']);
const EXPR_CTORS = new Set([
  'var',
  'intLit',
  'floatLit',
  'boolLit',
  'binary',
  'unary',
  'load',
  'call',
  'cast',
  'ternary',
  'arrayRef',
]);
const CMD_CTORS = new Set([
  'assign',
  'store',
  'seq',
  'if',
  'while',
  'return',
  'skip',
  'callCmd',
  'soac',
  'hfused',
]);
/** Combinators whose result is an array (declared `T dest[] = …`), as src/kernel/print.ts. */
const GREEK = 'αβγδεζηθικλμνξοπρστυφχψω';

function wrap(text: string, prec: number, min: number): string {
  return prec < min ? `(${text})` : text;
}

/** Whether a concrete kernel expression contains a call (src/kernel/expr-info.ts's hasCall, reflectively). */
function containsCall(x: unknown): boolean {
  if (typeof x !== 'object' || x === null) return false;
  if ((x as { kind?: unknown }).kind === 'call') return true;
  return Object.values(x).some(containsCall);
}

function pad(indent: number): string {
  return '  '.repeat(indent);
}

/** The alternatives of a value (itself when it is not a union). */
function alts(v: AbsValue): readonly AbsValue[] {
  return v.kind === 'union' ? v.alts : [v];
}

function intText(n: number): { text: string; prec: number } {
  if (n === -2147483648) return { text: '(-2147483647 - 1)', prec: PRIMARY };
  return { text: String(n), prec: n < 0 ? UNARY : PRIMARY };
}

function floatText(v: number): { text: string; prec: number } {
  if (Number.isNaN(v)) return { text: '(0.0f / 0.0f)', prec: PRIMARY };
  if (!Number.isFinite(v)) return { text: v > 0 ? '(1.0f / 0.0f)' : '(-1.0f / 0.0f)', prec: PRIMARY };
  const neg = v < 0 || Object.is(v, -0);
  return { text: `${neg ? '-' : ''}${formatFloat32Magnitude(v)}f`, prec: neg ? UNARY : PRIMARY };
}

class KernelPrinter {
  /** Enclosing `fix` binders, for naming recursion variables as printAbs does. */
  private depth = 0;
  /** Nodes printed so far. */
  private nodes = 0;
  /** Whether some part was not printed (`maxNodes` reached). */
  elided = false;

  constructor(
    private readonly ctors: CtorTable,
    private readonly maxNodes: number,
  ) {}

  /** Counts one more node; true once past `maxNodes` (the caller prints ELIDED instead). */
  private full(): boolean {
    if (this.nodes >= this.maxNodes) {
      this.elided = true;
      return true;
    }
    this.nodes++;
    return false;
  }

  note(): string {
    return `(* ${ELIDED}: not printed — this description prints as more than ${this.maxNodes} nodes (shared parts are printed once per place) *)`;
  }

  // ---- access ------------------------------------------------------------------------------

  private isCon<C extends string>(v: AbsValue, ctor: C): v is Con & { readonly ctor: C } {
    return v.kind === 'con' && v.ctor === ctor;
  }

  private field(v: Con, name: string): AbsValue {
    const i = this.ctors.get(v.ctor)?.fields.indexOf(name) ?? -1;
    const x = i >= 0 ? v.args[i] : undefined;
    if (x === undefined) throw new Error(`internal error: constructor '${v.ctor}' has no field '${name}'`);
    return x;
  }

  /** The field's value when it is one constant. */
  private one(v: Con, name: string): Prim | undefined {
    const x = this.field(v, name);
    return x.kind === 'consts' && x.values.length === 1 ? x.values[0] : undefined;
  }

  private str(v: Con, name: string): string | undefined {
    const x = this.one(v, name);
    return typeof x === 'string' ? x : undefined;
  }

  private flag(v: Con, name: string): boolean | undefined {
    const x = this.one(v, name);
    return typeof x === 'boolean' ? x : undefined;
  }

  /**
   * A primitive field: its constant(s) rendered by `render` (`a | b` as a union, parenthesized
   * below `min`), or its set (`'Int`, `'Any`).
   */
  private prim(
    x: AbsValue,
    min: number,
    render: (p: Prim) => { text: string; prec: number } = (p) => ({
      text: typeof p === 'string' ? p : printPrim(p),
      prec: PRIMARY,
    }),
  ): string {
    switch (x.kind) {
      case 'consts': {
        if (x.values.length === 2 && x.values[0] === false && x.values[1] === true) return "'Bool";
        if (x.values.length === 1) {
          const r = render(x.values[0] as Prim);
          return wrap(r.text, r.prec, min);
        }
        return wrap(x.values.map((p) => wrap(render(p).text, render(p).prec, UNARY)).join(' | '), ALT, min);
      }
      case 'base':
        return `'${x.base}`;
      case 'top':
        return "'Any";
      case 'bottom':
        return "'Empty";
      case 'union':
        return wrap(x.alts.map((a) => this.prim(a, UNARY, render)).join(' | '), ALT, min);
      default:
        return wrap(this.generic(x), ALT, min);
    }
  }

  private name(v: Con, field: string, min = PRIMARY): string {
    return this.prim(this.field(v, field), min);
  }

  private recName(index: number): string {
    const d = this.depth - 1 - index;
    return d >= 0 && d < GREEK.length ? (GREEK[d] as string) : `α${d}`;
  }

  private inFix<T>(f: () => T): T {
    this.depth++;
    try {
      return f();
    } finally {
      this.depth--;
    }
  }

  /**
   * Anything off the AST's shape, in printAbs notation (`c(a, b)`, `a | b`, `fix α. …`), with
   * kernel constructors printed as C and recursion variables named by this printer's binders.
   * `nested`: a union or fix is parenthesized.
   */
  private generic(v: AbsValue, nested = false): string {
    if (this.full()) return ELIDED;
    const paren = (s: string) => (nested ? `(${s})` : s);
    switch (v.kind) {
      case 'con': {
        if (EXPR_CTORS.has(v.ctor)) return paren(this.expr(v, 0));
        if (CMD_CTORS.has(v.ctor)) {
          const lines: string[] = [];
          this.printList(this.flatten(v), 0, lines);
          return `{ ${lines.join(' ')} }`;
        }
        const args = v.args.map((a) => this.generic(a));
        if (v.ctor.startsWith('#')) return `(${args.join(', ')})`;
        return args.length === 0 ? v.ctor : `${v.ctor}(${args.join(', ')})`;
      }
      case 'union':
        return paren(v.alts.map((a) => this.generic(a, true)).join(' | '));
      case 'fix':
        return paren(this.inFix(() => `fix ${this.recName(0)}. ${this.generic(v.body)}`));
      case 'rec':
        return this.recName(v.index);
      default:
        return printAbs(v);
    }
  }

  // ---- lists -------------------------------------------------------------------------------

  /** The items of an abstract cons list; an abstract tail becomes one printed item. */
  private list(v: AbsValue, item: (x: AbsValue) => string): string[] {
    const out: string[] = [];
    let l = v;
    for (;;) {
      if (this.isCon(l, 'cons')) {
        out.push(item(l.args[0] as AbsValue));
        l = l.args[1] as AbsValue;
      } else if (this.isCon(l, 'nil')) {
        return out;
      } else {
        out.push(this.listTail(l, item));
        return out;
      }
    }
  }

  /** `e...` for `fix α. cons(e, α) | nil` (any number of e), else `...<the set>`. */
  private listTail(v: AbsValue, item: (x: AbsValue) => string): string {
    if (v.kind === 'fix' && v.body.kind === 'union' && v.body.alts.length === 2) {
      const [a, b] = v.body.alts as [AbsValue, AbsValue];
      const cons = this.isCon(a, 'cons') ? a : this.isCon(b, 'cons') ? b : undefined;
      const nil = this.isCon(a, 'nil') ? a : this.isCon(b, 'nil') ? b : undefined;
      const tail = cons?.args[1];
      if (cons && nil && tail?.kind === 'rec' && tail.index === 0) {
        return `${this.inFix(() => item(cons.args[0] as AbsValue))}...`;
      }
    }
    return `...${this.generic(v)}`;
  }

  // ---- functions ---------------------------------------------------------------------------

  fun(v: AbsValue): string {
    if (v.kind === 'union') return v.alts.map((a) => this.fun(a)).join('\n|\n');
    if (!this.isCon(v, 'fun')) return this.generic(v);
    const lines: string[] = [`${this.header(v)} {`];
    for (const d of this.list(this.field(v, 'locals'), (x) => this.decl(x))) lines.push(`  ${d};`);
    this.printList(this.flatten(this.field(v, 'body')), 1, lines);
    lines.push('}');
    return lines.join('\n');
  }

  private header(f: Con): string {
    const params = this.list(this.field(f, 'params'), (x) => this.param(x));
    return `${this.name(f, 'ret')} ${this.name(f, 'name')}(${params.length ? params.join(', ') : 'void'})`;
  }

  private param(p: AbsValue): string {
    if (p.kind === 'union') return p.alts.map((a) => this.param(a)).join(' | ');
    if (!this.isCon(p, 'param')) return this.generic(p);
    const isConst = this.flag(p, 'isConst');
    const isArray = this.flag(p, 'isArray');
    const cst = isConst === true ? 'const ' : isConst === false ? '' : '/*const?*/ ';
    const arr = isArray === true ? '[]' : isArray === false ? '' : '/*[]?*/';
    return `${cst}${this.name(p, 'ty')} ${this.name(p, 'name')}${arr}`;
  }

  private decl(d: AbsValue): string {
    if (d.kind === 'union') return d.alts.map((a) => this.decl(a)).join('; | ');
    if (!this.isCon(d, 'decl')) return this.generic(d);
    const size = this.field(d, 'size');
    let dims: string;
    if (this.isCon(size, 'none')) dims = '';
    else if (this.isCon(size, 'some')) dims = `[${this.prim(size.args[0] as AbsValue, 0)}]`;
    else dims = `/*${this.generic(size)}*/`;
    return `${this.name(d, 'ty')} ${this.name(d, 'name')}${dims}`;
  }

  // ---- commands ----------------------------------------------------------------------------

  /**
   * The commands of a seq chain, in order, without skips (other values stay one item); no more
   * than the nodes left to print and one (a shared seq can stand for exponentially many).
   */
  flatten(c: AbsValue, out: AbsValue[] = []): AbsValue[] {
    if (out.length > this.maxNodes - this.nodes) return out;
    if (this.isCon(c, 'seq')) {
      this.flatten(this.field(c, 'first'), out);
      this.flatten(this.field(c, 'second'), out);
    } else if (!this.isCon(c, 'skip')) out.push(c);
    return out;
  }

  /** The step of a `for`-marked loop and the rest of its body, when it can print as `for`. */
  private forParts(
    c: AbsValue,
  ): { step: string; stepTarget: string | undefined; rest: AbsValue[] } | undefined {
    if (!this.isCon(c, 'while') || this.flag(c, 'isFor') !== true) return undefined;
    const body = this.flatten(this.field(c, 'body'));
    const last = body[body.length - 1];
    if (!last || !(this.isCon(last, 'assign') || this.isCon(last, 'store') || this.isCon(last, 'callCmd')))
      return undefined;
    return {
      step: this.simple(last),
      stepTarget: this.isCon(last, 'assign') ? this.str(last, 'name') : undefined,
      rest: body.slice(0, -1),
    };
  }

  printList(cmds: readonly AbsValue[], indent: number, lines: string[]): void {
    for (let i = 0; i < cmds.length; i++) {
      if (this.full()) {
        lines.push(`${pad(indent)}${ELIDED}`);
        return;
      }
      const c = cmds[i] as AbsValue;
      const next = cmds[i + 1];
      const loop = next ? this.forParts(next) : undefined;
      if (
        this.isCon(c, 'assign') &&
        next !== undefined &&
        this.isCon(next, 'while') &&
        loop &&
        loop.stepTarget !== undefined &&
        loop.stepTarget === this.str(c, 'name')
      ) {
        this.printFor(this.simple(c), this.field(next, 'cond'), loop.step, loop.rest, indent, lines);
        i++;
        continue;
      }
      this.printOne(c, indent, lines);
    }
  }

  private printFor(
    init: string,
    cond: AbsValue,
    step: string,
    rest: AbsValue[],
    indent: number,
    lines: string[],
  ): void {
    lines.push(`${pad(indent)}for (${init}; ${this.expr(cond, 0)}; ${step}) {`);
    this.printList(rest, indent + 1, lines);
    lines.push(`${pad(indent)}}`);
  }

  private printOne(c: AbsValue, indent: number, lines: string[]): void {
    const p = pad(indent);
    switch (c.kind) {
      case 'con':
        break;
      case 'union':
        // { c1 } | { c2 }: one block per alternative
        c.alts.forEach((a, i) => {
          lines.push(i === 0 ? `${p}{` : `${p}} | {`);
          this.printList(this.flatten(a), indent + 1, lines);
        });
        lines.push(`${p}}`);
        return;
      case 'fix':
        this.inFix(() => {
          lines.push(`${p}fix ${this.recName(0)} {`);
          this.printList(this.flatten(c.body), indent + 1, lines);
        });
        lines.push(`${p}}`);
        return;
      case 'rec':
        lines.push(`${p}${this.recName(c.index)};`);
        return;
      default:
        lines.push(`${p}${this.generic(c)};`);
        return;
    }
    switch (c.ctor) {
      case 'assign':
      case 'store':
      case 'callCmd':
        lines.push(`${p}${this.simple(c)};`);
        return;
      case 'seq':
      case 'skip':
        this.printList(this.flatten(c), indent, lines);
        return;
      case 'if': {
        lines.push(`${p}if (${this.expr(this.field(c, 'cond'), 0)}) {`);
        let cur: Con = c;
        for (;;) {
          this.printList(this.flatten(this.field(cur, 'thenCmd')), indent + 1, lines);
          const els = this.flatten(this.field(cur, 'elseCmd'));
          if (els.length === 0) break;
          const only = els[0] as AbsValue;
          if (els.length === 1 && this.isCon(only, 'if')) {
            lines.push(`${p}} else if (${this.expr(this.field(only, 'cond'), 0)}) {`);
            cur = only;
            continue;
          }
          lines.push(`${p}} else {`);
          this.printList(els, indent + 1, lines);
          break;
        }
        lines.push(`${p}}`);
        return;
      }
      case 'while': {
        const loop = this.forParts(c);
        if (loop) {
          this.printFor('', this.field(c, 'cond'), loop.step, loop.rest, indent, lines);
          return;
        }
        lines.push(`${p}while (${this.expr(this.field(c, 'cond'), 0)}) {`);
        this.printList(this.flatten(this.field(c, 'body')), indent + 1, lines);
        lines.push(`${p}}`);
        return;
      }
      case 'soac':
        lines.push(`${p}${this.soac(c)};`);
        return;
      case 'hfused':
        lines.push(`${p}/* horizontally fused: one loop over all of these */`);
        for (const m of this.list(this.field(c, 'members'), (x) => this.soac(x))) lines.push(`${p}${m};`);
        lines.push(`${p}/* end of the fused loop */`);
        return;
      case 'return': {
        const value = this.field(c, 'value');
        // an abstract Option: `return; | return e;`
        const one = (o: AbsValue): string => {
          if (this.isCon(o, 'none')) return 'return;';
          if (this.isCon(o, 'some')) return `return ${this.expr(o.args[0] as AbsValue, 0)};`;
          return `return ${this.generic(o)};`;
        };
        lines.push(`${p}${alts(value).map(one).join(' | ')}`);
        return;
      }
      default:
        lines.push(`${p}${this.generic(c)};`);
        return;
    }
  }

  // ---- combinators ---------------------------------------------------------------------------

  /**
   * A combinator without the `;`, as src/kernel/print.ts writes it (`float ys[] = map(sq, xs)`,
   * `s = reduce(add, 0.0f, ys)`, `int ix[] = iota(n)`); a lambda that is not just a named function
   * (fusion composes those; the concrete printer lifts them into helper functions) prints inline as
   * `(float x) => { float t = x * x; return t + 1.0f; }`. A union of combinators is `a | b`.
   */
  private soac(v: AbsValue): string {
    if (v.kind === 'union') return v.alts.map((a) => this.soac(a)).join(' | ');
    if (!this.isCon(v, 'soac')) return this.generic(v);
    const op = this.str(v, 'op');
    const iota = this.iotaLen(v);
    const arrayResult = iota !== undefined || (op !== undefined && ARRAY_OPS.has(op));
    const dest = this.name(v, 'dest', ALT + 1);
    const target = arrayResult ? `${this.name(v, 'ty')} ${dest}[]` : dest;
    if (iota !== undefined) return `${target} = iota(${this.expr(iota, 0)})`;
    const operands: string[] = [];
    this.option(this.field(v, 'comb'), (l) => operands.push(this.lam(l)));
    operands.push(this.lam(this.field(v, 'fn')));
    this.option(this.field(v, 'ne'), (e) => operands.push(this.expr(e, 2)));
    operands.push(...this.list(this.field(v, 'args'), (a) => this.soacArg(a)));
    return `${target} = ${op ?? this.prim(this.field(v, 'op'), PRIMARY)}(${operands.join(', ')})`;
  }

  /** Calls `item` on an Option's value when it is `some`; an abstract option prints as itself. */
  private option(o: AbsValue, item: (x: AbsValue) => void): void {
    if (this.isCon(o, 'none')) return;
    if (this.isCon(o, 'some')) item(o.args[0] as AbsValue);
    else item(o);
  }

  /** The length of `iota(n)`: a map of the identity over one iota argument (print.ts's isIota). */
  private iotaLen(s: Con): AbsValue | undefined {
    if (this.str(s, 'op') !== 'map') return undefined;
    const args = this.field(s, 'args');
    const fn = this.field(s, 'fn');
    if (!this.isCon(args, 'cons') || !this.isCon(args.args[1] as AbsValue, 'nil')) return undefined;
    const arg = args.args[0] as AbsValue;
    if (!this.isCon(arg, 'argIota') || !this.isCon(fn, 'lam')) return undefined;
    const params = this.field(fn, 'params');
    const result = this.field(fn, 'result');
    if (!this.isCon(params, 'cons') || !this.isCon(params.args[1] as AbsValue, 'nil')) return undefined;
    const p = params.args[0] as AbsValue;
    if (!this.isCon(this.field(fn, 'binds'), 'nil') || !this.isCon(result, 'var') || !this.isCon(p, 'param'))
      return undefined;
    const name = this.str(result, 'name');
    return name !== undefined && name === this.str(p, 'name') ? this.field(arg, 'len') : undefined;
  }

  /** A lambda: the function it only calls with its parameters in order (`sq`), else inline. */
  private lam(l: AbsValue): string {
    if (l.kind === 'union') return wrap(l.alts.map((a) => this.lam(a)).join(' | '), ALT, 2);
    if (!this.isCon(l, 'lam')) return this.generic(l, true);
    const named = this.lamName(l);
    if (named !== undefined) return named;
    const params = this.list(this.field(l, 'params'), (x) => this.param(x)).join(', ');
    const binds = this.list(this.field(l, 'binds'), (b) => `${this.bind(b)}; `).join('');
    return `(${params}) => { ${binds}return ${this.expr(this.field(l, 'result'), 0)}; }`;
  }

  /** `f` for `(p…) => f(p…)` (each argument the parameter of the same position), else undefined. */
  private lamName(l: Con): string | undefined {
    const result = this.field(l, 'result');
    if (!this.isCon(this.field(l, 'binds'), 'nil') || !this.isCon(result, 'call')) return undefined;
    let ps = this.field(l, 'params');
    let xs = this.field(result, 'args');
    for (;;) {
      if (this.isCon(ps, 'nil') && this.isCon(xs, 'nil')) return this.name(result, 'name');
      if (!this.isCon(ps, 'cons') || !this.isCon(xs, 'cons')) return undefined;
      const p = ps.args[0] as AbsValue;
      const a = xs.args[0] as AbsValue;
      if (!this.isCon(p, 'param') || !(this.isCon(a, 'var') || this.isCon(a, 'arrayRef'))) return undefined;
      const name = this.str(p, 'name');
      if (name === undefined || name !== this.str(a, 'name')) return undefined;
      if (this.flag(p, 'isArray') !== this.isCon(a, 'arrayRef')) return undefined;
      ps = ps.args[1] as AbsValue;
      xs = xs.args[1] as AbsValue;
    }
  }

  private bind(b: AbsValue): string {
    if (!this.isCon(b, 'bind')) return this.generic(b);
    return `${this.name(b, 'ty')} ${this.name(b, 'name')} = ${this.expr(this.field(b, 'rhs'), 0)}`;
  }

  private soacArg(a: AbsValue): string {
    if (a.kind === 'union') return wrap(a.alts.map((x) => this.soacArg(x)).join(' | '), ALT, 2);
    if (this.isCon(a, 'argArray')) return this.name(a, 'name', 2);
    if (this.isCon(a, 'argIota')) return `iota(${this.expr(this.field(a, 'len'), 0)})`;
    if (this.isCon(a, 'argScalar')) return this.expr(this.field(a, 'value'), 2);
    return this.generic(a, true);
  }

  /** An assignment, store or call without the `;` (also a for-init or for-step). */
  private simple(c: Con): string {
    switch (c.ctor) {
      case 'assign': {
        const r = this.field(c, 'rhs');
        const name = this.str(c, 'name');
        if (this.isCon(r, 'binary')) {
          const op = this.str(r, 'op');
          const left = this.field(r, 'left');
          if (
            op !== undefined &&
            COMPOUND.has(op) &&
            this.isCon(left, 'var') &&
            name !== undefined &&
            this.str(left, 'name') === name &&
            this.sameString(r, left, 'ty')
          ) {
            return this.sugared(name, op, this.field(r, 'right'));
          }
        }
        return `${this.name(c, 'name', ALT + 1)} = ${this.expr(r, 0)}`;
      }
      case 'store': {
        const r = this.field(c, 'rhs');
        const index = this.field(c, 'index');
        const target = `${this.name(c, 'array')}[${this.expr(index, 0)}]`;
        if (this.isCon(r, 'binary')) {
          const op = this.str(r, 'op');
          const left = this.field(r, 'left');
          const array = this.str(c, 'array');
          if (
            op !== undefined &&
            COMPOUND.has(op) &&
            this.isCon(left, 'load') &&
            array !== undefined &&
            this.str(left, 'array') === array &&
            this.sameString(r, left, 'ty') &&
            this.sameIndex(this.field(left, 'index'), index)
          ) {
            return this.sugared(target, op, this.field(r, 'right'));
          }
        }
        return `${target} = ${this.expr(r, 0)}`;
      }
      case 'callCmd':
        return `${this.name(c, 'name')}(${this.list(this.field(c, 'args'), (a) => this.expr(a, 2)).join(', ')})`;
      default:
        return this.generic(c);
    }
  }

  /** Both fields one and the same string constant. */
  private sameString(a: Con, b: Con, field: string): boolean {
    const x = this.str(a, field);
    return x !== undefined && x === this.str(b, field);
  }

  /** `a[i] op= e` needs the load's index to be the store's, and call-free: checked on singletons. */
  private sameIndex(a: AbsValue, b: AbsValue): boolean {
    const ca = this.concrete(a);
    const cb = this.concrete(b);
    return (
      ca !== undefined && cb !== undefined && equalModuloLabels(ca.value, cb.value) && !containsCall(cb.value)
    );
  }

  /** The one member of `v` with labels ignored (an abstract `lbl` reads as 0), if there is one. */
  private concrete(v: AbsValue): { value: unknown } | undefined {
    switch (v.kind) {
      case 'consts':
        return v.values.length === 1 ? { value: v.values[0] } : undefined;
      case 'con': {
        const fields = this.ctors.get(v.ctor)?.fields;
        if (fields === undefined) return undefined;
        const o: Record<string, unknown> = { kind: v.ctor };
        for (let i = 0; i < fields.length; i++) {
          const f = fields[i] as string;
          const x = this.concrete(v.args[i] as AbsValue);
          if (x === undefined && f !== 'lbl') return undefined;
          o[f] = x === undefined ? 0 : x.value;
        }
        return { value: o };
      }
      default:
        return undefined;
    }
  }

  private sugared(target: string, op: string, right: AbsValue): string {
    if ((op === '+' || op === '-') && this.isCon(right, 'intLit') && this.one(right, 'value') === 1)
      return `${target}${op}${op}`;
    return `${target} ${op}= ${this.expr(right, 0)}`;
  }

  // ---- expressions -------------------------------------------------------------------------

  /** Extra parentheses where C's precedence is easily misread (as src/kernel/print.ts). */
  private clarify(parent: string | undefined, child: AbsValue): boolean {
    if (!this.isCon(child, 'binary') || parent === undefined) return false;
    const op = this.str(child, 'op');
    if (op === parent) return false;
    const logical = (o: string | undefined) => o === '&&' || o === '||';
    if (logical(parent) && (op === undefined || logical(op))) return true;
    return BITWISE.has(parent);
  }

  /** An expression, parenthesized when it binds looser than `min` (C precedence). */
  expr(e: AbsValue, min: number): string {
    if (this.full()) return ELIDED;
    switch (e.kind) {
      case 'con':
        return this.exprCon(e, min);
      case 'union':
        // x | (x * 'Int)
        return wrap(e.alts.map((a) => this.expr(a, UNARY)).join(' | '), ALT, min);
      case 'top':
        return "'Any";
      case 'bottom':
        return "'Empty";
      case 'fix':
        return wrap(`fix ${this.inFix(() => `${this.recName(0)}. ${this.expr(e.body, 0)}`)}`, 0, min);
      case 'rec':
        return this.recName(e.index);
      default:
        return this.prim(e, min);
    }
  }

  private exprCon(e: Con, min: number): string {
    switch (e.ctor) {
      case 'var':
      case 'arrayRef':
        return this.name(e, 'name', min);
      case 'intLit':
        return this.prim(this.field(e, 'value'), min, (p) =>
          typeof p === 'number' ? intText(p) : { text: printPrim(p), prec: PRIMARY },
        );
      case 'floatLit':
        return this.prim(this.field(e, 'value'), min, (p) =>
          typeof p === 'number' ? floatText(p) : { text: printPrim(p), prec: PRIMARY },
        );
      case 'boolLit':
        return this.prim(this.field(e, 'value'), min);
      case 'binary': {
        const op = this.str(e, 'op');
        const opField = this.field(e, 'op');
        // an abstract operator binds as its loosest alternative
        const p =
          op !== undefined
            ? (PREC[op] ?? 0)
            : Math.min(
                ...(opField.kind === 'consts' ? opField.values.map((o) => PREC[String(o)] ?? 0) : [0]),
              );
        const opText = op ?? this.prim(opField, PRIMARY);
        const side = (x: AbsValue, m: number): string =>
          this.clarify(op, x) ? `(${this.expr(x, 0)})` : this.expr(x, m);
        return wrap(
          `${side(this.field(e, 'left'), p)} ${opText} ${side(this.field(e, 'right'), p + 1)}`,
          p,
          min,
        );
      }
      case 'unary': {
        const op = this.str(e, 'op') ?? this.prim(this.field(e, 'op'), PRIMARY);
        const arg = this.expr(this.field(e, 'arg'), UNARY);
        const text = op === '-' && arg.startsWith('-') ? `-(${arg})` : `${op}${arg}`;
        return wrap(text, UNARY, min);
      }
      case 'load':
        return `${this.name(e, 'array')}[${this.expr(this.field(e, 'index'), 0)}]`;
      case 'call':
        return `${this.name(e, 'name')}(${this.list(this.field(e, 'args'), (a) => this.expr(a, 2)).join(', ')})`;
      case 'cast': {
        const arg = this.field(e, 'arg');
        const implicit = this.flag(e, 'implicit');
        if (implicit === true) return this.expr(arg, min);
        const explicit = `(${this.name(e, 'ty')})${this.expr(arg, UNARY)}`;
        if (implicit === false) return wrap(explicit, UNARY, min);
        // implicit or not: both readings
        return wrap(`${this.expr(arg, UNARY)} | ${explicit}`, ALT, min);
      }
      case 'ternary':
        return wrap(
          `${this.expr(this.field(e, 'cond'), 4)} ? ${this.expr(this.field(e, 'thenExpr'), 0)} : ${this.expr(this.field(e, 'elseExpr'), 3)}`,
          3,
          min,
        );
      default:
        // another constructor (`c(…)`) is atomic
        return this.generic(e);
    }
  }
}
