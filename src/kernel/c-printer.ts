/**
 * The one C printer of kernel programs, written over a *node view*: it asks of each node "which
 * constructor are you, exactly, and what are your fields?" (`NodeView`) and hands whatever is not
 * one constructor to its *hooks* (`PrintHooks`). Two views use it:
 * - concrete kernel ASTs (print.ts: `printFun`, `printCmd`, …), where every node is one
 *   constructor and the hooks are never called;
 * - abstract kernel programs (pipeline/print-abstract.ts), sets of ASTs with holes `'Int`,
 *   alternatives `a | b`, `fix α.` recursion and list tails `e...` (SCF Fig. 6), which the hooks
 *   print in that notation.
 *
 * Algorithm: statement lists are flattened (seq chains, skips dropped); a `for` is rebuilt from a
 * `while` marked `isFor` whose body ends in its step (with the assignment before it as its init
 * when that sets the step's variable); `x = x + e` prints as `x += e` (or `x++`), `a[i] = a[i] + e`
 * as `a[i] += e` when `i` is call-free; `else if` chains are rebuilt; parentheses follow C
 * precedence plus a few for clarity (`&&` inside `||` and the reverse, binary operands of bitwise
 * operators); implicit casts are omitted; combinators print as calls (`float ys[] = map(sq, xs)`),
 * a lambda that only calls a function with its parameters as that function's name, any other
 * lambda inline (`(float x) => { float t = x * x; return t + 1.0f; }`; the concrete printer lifts
 * those into helper functions first). Values the parser never produces (NaN, infinities, INT_MIN)
 * print as constant expressions. Labels are never printed. What the parser removes again
 * (implicit casts, sugar, `for`) is all the printer adds, so parse(print(p)) equals p modulo
 * labels (tested).
 *
 * A field that is not one constant (a name, an operator) is the hooks' too, but for flags: a
 * parameter whose `isConst` or `isArray` is unknown gets a C comment (`const?`, `[]?`) where the
 * keyword or brackets go, a cast whose `implicit` is unknown prints both readings
 * (`hooks.alternatives`), a loop whose `isFor` is unknown prints as `while`. `hooks.elide` is
 * asked once per expression and statement, so a view can bound what it prints.
 */
import type { Cmd, Expr } from './ast.js';
import { hasCall } from './expr-info.js';
import { KERNEL_UNIONS, type KernelNode } from './fields.js';
import { formatFloat32Magnitude } from './float.js';
import { ARRAY_OPS } from './structure.js';
import { assertNever } from './util.js';
import { equalModuloLabels } from './walk.js';

/** A scalar field's value. */
export type Scalar = string | number | boolean;

/** The constructors a view reports: the AST's node kinds, and the prelude's lists and options. */
export type Ctor = KernelNode['kind'] | 'cons' | 'nil' | 'some' | 'none';

/** What the printer asks of the nodes it prints (`N`: a concrete kernel value, an abstract value…). */
export interface NodeView<N> {
  /** The constructor `n` is, when it is exactly one; undefined for anything else (the hooks print it). */
  ctor(n: N): Ctor | undefined;
  /** Field `name` of `n`, which `ctor` names (`head`/`tail` of a `cons`, `value` of a `some`). */
  field(n: N, name: string): N;
  /** The constants `n` may be, when it is a finite set of them (one for a concrete scalar). */
  consts(n: N): readonly Scalar[] | undefined;
  /** A constant printed where a name is expected but which is not a string (or not a number in a literal). */
  constText(c: Scalar): string;
  /** The one concrete kernel value `n` stands for, labels read as 0, when there is one. */
  concrete(n: N): unknown;
}

/** Places that want one kind of node; what stands there otherwise goes to `PrintHooks.other`. */
export type Place = 'fun' | 'param' | 'decl' | 'size' | 'return' | 'soac' | 'lam' | 'bind' | 'soacArg';

/** How one constant prints, with the precedence of its text. */
export type Render = (c: Scalar) => { readonly text: string; readonly prec: number };

/**
 * What the printer does with what is not one constructor (or one constant). Each hook gets the
 * printer, to print the parts it holds (the alternatives of a union, the body of a `fix`).
 */
export interface PrintHooks<N> {
  /** `n` at `place`, which wants one node (a `fun`, a `param`, …; `size`, `return`: an option). */
  other(place: Place, n: N, p: CPrinter<N>): string;
  /** An expression that is not one expression node, parenthesized when it binds looser than `min`. */
  expr(n: N, min: number, p: CPrinter<N>): string;
  /** A statement that is not one command node: its lines, indented `indent` levels. */
  cmd(n: N, indent: number, lines: string[], p: CPrinter<N>): void;
  /** A scalar field that is not one constant, each constant rendered by `render`. */
  consts(n: N, min: number, render: Render, p: CPrinter<N>): string;
  /** The end of a list that is not `nil`, printed as one more item. */
  listTail(n: N, item: (x: N) => string, p: CPrinter<N>): string;
  /** Readings of one node that differ by a flag the view does not know (a cast implicit or not). */
  alternatives(texts: readonly string[], min: number): string;
  /** Asked once per expression and statement: the text that stands for it instead, or undefined. */
  elide(): string | undefined;
  /** How many statements a list may still flatten to. */
  room(): number;
}

export interface CPrinterOptions {
  /**
   * A function returning `T[]` as C (`T *f(…)`), or as the type is written in the AST
   * (`T[] f(…)`, the Fig. 6 printer's, which its descriptions keep).
   */
  readonly pointerReturn: boolean;
}

// C precedences
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
export const UNARY = 14;
export const PRIMARY = 15;
/** The precedence a call argument asks of its text (above the comma operator's). */
export const ARG = 2;
const BITWISE = new Set(['&', '|', '^', '<<', '>>']);
const COMPOUND = new Set(['+', '-', '*', '/', '%', '&', '|', '^', '<<', '>>']);
const CMD_KINDS: ReadonlySet<string> = new Set(KERNEL_UNIONS.Cmd);
const EXPR_KINDS: ReadonlySet<string> = new Set(KERNEL_UNIONS.Expr);

function isCmdKind(k: Ctor): k is Cmd['kind'] {
  return CMD_KINDS.has(k);
}

function isExprKind(k: Ctor): k is Expr['kind'] {
  return EXPR_KINDS.has(k);
}

/** `text` in parentheses when `prec` binds looser than `min`. */
export function wrap(text: string, prec: number, min: number): string {
  return prec < min ? `(${text})` : text;
}

export function pad(indent: number): string {
  return '  '.repeat(indent);
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

export class CPrinter<N> {
  constructor(
    private readonly view: NodeView<N>,
    private readonly hooks: PrintHooks<N>,
    private readonly options: CPrinterOptions,
  ) {}

  // ---- access ------------------------------------------------------------------------------

  private is(n: N, ctor: Ctor): boolean {
    return this.view.ctor(n) === ctor;
  }

  private field(n: N, name: string): N {
    return this.view.field(n, name);
  }

  /** The field's value when it is one constant. */
  private one(n: N, name: string): Scalar | undefined {
    const cs = this.view.consts(this.field(n, name));
    return cs !== undefined && cs.length === 1 ? cs[0] : undefined;
  }

  private str(n: N, name: string): string | undefined {
    const x = this.one(n, name);
    return typeof x === 'string' ? x : undefined;
  }

  private flag(n: N, name: string): boolean | undefined {
    const x = this.one(n, name);
    return typeof x === 'boolean' ? x : undefined;
  }

  private readonly plain: Render = (c) => ({
    text: typeof c === 'string' ? c : this.view.constText(c),
    prec: PRIMARY,
  });

  /** A scalar: its constant rendered by `render`, parenthesized below `min`; a set by the hooks. */
  text(x: N, min: number, render: Render = this.plain): string {
    const cs = this.view.consts(x);
    if (cs !== undefined && cs.length === 1) {
      const r = render(cs[0] as Scalar);
      return wrap(r.text, r.prec, min);
    }
    return this.hooks.consts(x, min, render, this);
  }

  private name(n: N, field: string, min = PRIMARY): string {
    return this.text(this.field(n, field), min);
  }

  /** The items of a list; a tail that is not `nil` becomes one more item (the hooks'). */
  private list(v: N, item: (x: N) => string): string[] {
    const out: string[] = [];
    let l = v;
    for (;;) {
      if (this.is(l, 'cons')) {
        out.push(item(this.field(l, 'head')));
        l = this.field(l, 'tail');
      } else if (this.is(l, 'nil')) {
        return out;
      } else {
        out.push(this.hooks.listTail(l, item, this));
        return out;
      }
    }
  }

  /** Calls `item` on an option's value when it is `some`; what is not an option stands for its value. */
  private option(o: N, item: (x: N) => void): void {
    if (this.is(o, 'none')) return;
    item(this.is(o, 'some') ? this.field(o, 'value') : o);
  }

  // ---- functions ---------------------------------------------------------------------------

  fun(v: N): string {
    if (!this.is(v, 'fun')) return this.hooks.other('fun', v, this);
    const lines: string[] = [`${this.header(v)} {`];
    for (const d of this.list(this.field(v, 'locals'), (x) => this.decl(x))) lines.push(`  ${d};`);
    this.printList(this.flatten(this.field(v, 'body')), 1, lines);
    lines.push('}');
    return lines.join('\n');
  }

  /** `int f(int x, const float a[])`, without the body. */
  header(f: N): string {
    const params = this.list(this.field(f, 'params'), (x) => this.param(x));
    const ret = this.str(f, 'ret');
    const retText =
      this.options.pointerReturn && ret?.endsWith('[]') ? `${ret.slice(0, -2)} *` : `${this.name(f, 'ret')} `;
    return `${retText}${this.name(f, 'name')}(${params.length ? params.join(', ') : 'void'})`;
  }

  param(p: N): string {
    if (!this.is(p, 'param')) return this.hooks.other('param', p, this);
    const isConst = this.flag(p, 'isConst');
    const isArray = this.flag(p, 'isArray');
    const cst = isConst === true ? 'const ' : isConst === false ? '' : '/*const?*/ ';
    const arr = isArray === true ? '[]' : isArray === false ? '' : '/*[]?*/';
    return `${cst}${this.name(p, 'ty')} ${this.name(p, 'name')}${arr}`;
  }

  decl(d: N): string {
    if (!this.is(d, 'decl')) return this.hooks.other('decl', d, this);
    const size = this.field(d, 'size');
    let dims: string;
    if (this.is(size, 'none')) dims = '';
    else if (this.is(size, 'some')) dims = `[${this.text(this.field(size, 'value'), 0)}]`;
    else dims = this.hooks.other('size', size, this);
    return `${this.name(d, 'ty')} ${this.name(d, 'name')}${dims}`;
  }

  // ---- commands ----------------------------------------------------------------------------

  /**
   * The commands of a seq tree, in order, without skips (what is not one command stays one item),
   * no more than the hooks' `room` and one: by an explicit stack, since a long run of statements
   * is one long seq chain.
   */
  flatten(c: N): N[] {
    const out: N[] = [];
    const todo: N[] = [c];
    for (let next = todo.pop(); next !== undefined; next = todo.pop()) {
      if (out.length > this.hooks.room()) break;
      if (this.is(next, 'seq')) todo.push(this.field(next, 'second'), this.field(next, 'first'));
      else if (!this.is(next, 'skip')) out.push(next);
    }
    return out;
  }

  /** The step of a `for`-marked loop and the rest of its body, when it can print as `for`. */
  private forParts(c: N): { step: string; stepTarget: string | undefined; rest: N[] } | undefined {
    if (!this.is(c, 'while') || this.flag(c, 'isFor') !== true) return undefined;
    const body = this.flatten(this.field(c, 'body'));
    const last = body[body.length - 1];
    if (
      last === undefined ||
      !(this.is(last, 'assign') || this.is(last, 'store') || this.is(last, 'callCmd'))
    )
      return undefined;
    return {
      step: this.simple(last),
      stepTarget: this.is(last, 'assign') ? this.str(last, 'name') : undefined,
      rest: body.slice(0, -1),
    };
  }

  /** Statements, one line each (blocks over several), indented `indent` levels. */
  printList(cmds: readonly N[], indent: number, lines: string[]): void {
    for (let i = 0; i < cmds.length; i++) {
      const elided = this.hooks.elide();
      if (elided !== undefined) {
        lines.push(`${pad(indent)}${elided}`);
        return;
      }
      const c = cmds[i] as N;
      const next = cmds[i + 1];
      const loop = next !== undefined ? this.forParts(next) : undefined;
      if (
        next !== undefined &&
        loop !== undefined &&
        this.is(c, 'assign') &&
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

  private printFor(init: string, cond: N, step: string, rest: N[], indent: number, lines: string[]): void {
    lines.push(`${pad(indent)}for (${init}; ${this.expr(cond, 0)}; ${step}) {`);
    this.printList(rest, indent + 1, lines);
    lines.push(`${pad(indent)}}`);
  }

  private printOne(c: N, indent: number, lines: string[]): void {
    const kind = this.view.ctor(c);
    if (kind === undefined || !isCmdKind(kind)) {
      this.hooks.cmd(c, indent, lines, this);
      return;
    }
    const p = pad(indent);
    switch (kind) {
      case 'assign':
      case 'store':
      case 'callCmd':
        lines.push(`${p}${this.simple(c)};`);
        return;
      case 'seq':
      case 'skip':
        this.printList(this.flatten(c), indent, lines);
        return;
      case 'if':
        this.printIf(c, indent, lines);
        return;
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
      case 'return':
        lines.push(`${p}${this.ret(this.field(c, 'value'))}`);
        return;
      case 'soac':
        lines.push(`${p}${this.soac(c)};`);
        return;
      case 'hfused':
        lines.push(`${p}/* horizontally fused: one loop over all of these */`);
        for (const m of this.list(this.field(c, 'members'), (x) => this.soac(x))) lines.push(`${p}${m};`);
        lines.push(`${p}/* end of the fused loop */`);
        return;
      default:
        assertNever(kind);
    }
  }

  /** An `if` and the `else if` chain that follows it. */
  private printIf(c: N, indent: number, lines: string[]): void {
    const p = pad(indent);
    lines.push(`${p}if (${this.expr(this.field(c, 'cond'), 0)}) {`);
    let cur = c;
    for (;;) {
      this.printList(this.flatten(this.field(cur, 'thenCmd')), indent + 1, lines);
      const els = this.flatten(this.field(cur, 'elseCmd'));
      if (els.length === 0) break;
      const only = els[0] as N;
      if (els.length === 1 && this.is(only, 'if')) {
        lines.push(`${p}} else if (${this.expr(this.field(only, 'cond'), 0)}) {`);
        cur = only;
        continue;
      }
      lines.push(`${p}} else {`);
      this.printList(els, indent + 1, lines);
      break;
    }
    lines.push(`${p}}`);
  }

  /** A return statement, of a return's value option. */
  ret(o: N): string {
    if (this.is(o, 'none')) return 'return;';
    if (this.is(o, 'some')) return `return ${this.expr(this.field(o, 'value'), 0)};`;
    return this.hooks.other('return', o, this);
  }

  /** An assignment, store or call without the `;` (also a for-init or for-step). */
  private simple(c: N): string {
    const kind = this.view.ctor(c);
    if (kind === 'assign') {
      const r = this.field(c, 'rhs');
      const name = this.str(c, 'name');
      const op = this.compound(r, 'var', (left) => name !== undefined && this.str(left, 'name') === name);
      if (op !== undefined && name !== undefined) return this.sugared(name, op, this.field(r, 'right'));
      return `${this.name(c, 'name', ARG)} = ${this.expr(r, 0)}`;
    }
    if (kind === 'store') return this.store(c);
    if (kind === 'callCmd')
      return `${this.name(c, 'name')}(${this.list(this.field(c, 'args'), (a) => this.expr(a, ARG)).join(', ')})`;
    throw new Error(`internal error: '${kind}' is not a simple command`);
  }

  private store(c: N): string {
    const r = this.field(c, 'rhs');
    const index = this.field(c, 'index');
    const target = `${this.name(c, 'array')}[${this.expr(index, 0)}]`;
    const array = this.str(c, 'array');
    const op = this.compound(
      r,
      'load',
      (left) =>
        array !== undefined &&
        this.str(left, 'array') === array &&
        this.sameIndex(this.field(left, 'index'), index),
    );
    if (op !== undefined) return this.sugared(target, op, this.field(r, 'right'));
    return `${target} = ${this.expr(r, 0)}`;
  }

  /**
   * The operator of `rhs` when it is `left op e` with `op` one that has a compound assignment,
   * `left` a `leftKind` node of the same type that `isTarget` accepts (`x = x + e` → `x += e`).
   */
  private compound(rhs: N, leftKind: 'var' | 'load', isTarget: (left: N) => boolean): string | undefined {
    if (!this.is(rhs, 'binary')) return undefined;
    const op = this.str(rhs, 'op');
    const left = this.field(rhs, 'left');
    const ok =
      op !== undefined &&
      COMPOUND.has(op) &&
      this.is(left, leftKind) &&
      this.sameString(rhs, left, 'ty') &&
      isTarget(left);
    return ok ? op : undefined;
  }

  /** Both fields one and the same string constant. */
  private sameString(a: N, b: N, field: string): boolean {
    const x = this.str(a, field);
    return x !== undefined && x === this.str(b, field);
  }

  /** `a[i] op= e` needs the load's index to be the store's (one expression each), and call-free. */
  private sameIndex(a: N, b: N): boolean {
    const ca = this.view.concrete(a);
    const cb = this.view.concrete(b);
    return ca !== undefined && cb !== undefined && equalModuloLabels(ca, cb) && !hasCall(cb as Expr);
  }

  private sugared(target: string, op: string, right: N): string {
    if ((op === '+' || op === '-') && this.is(right, 'intLit') && this.one(right, 'value') === 1)
      return `${target}${op}${op}`;
    return `${target} ${op}= ${this.expr(right, 0)}`;
  }

  // ---- combinators -------------------------------------------------------------------------

  /**
   * A combinator without the `;`: `float ys[] = map(sq, xs)`, `s = reduce(add, 0.0f, ys)`,
   * `int ix[] = iota(n)`.
   */
  soac(v: N): string {
    if (!this.is(v, 'soac')) return this.hooks.other('soac', v, this);
    const op = this.str(v, 'op');
    const iota = this.iotaLen(v);
    const arrayResult = iota !== undefined || (op !== undefined && ARRAY_OPS.has(op));
    const dest = this.name(v, 'dest', ARG);
    const target = arrayResult ? `${this.name(v, 'ty')} ${dest}[]` : dest;
    if (iota !== undefined) return `${target} = iota(${this.expr(iota, 0)})`;
    const operands: string[] = [];
    this.option(this.field(v, 'comb'), (l) => operands.push(this.lam(l)));
    operands.push(this.lam(this.field(v, 'fn')));
    this.option(this.field(v, 'ne'), (e) => operands.push(this.expr(e, ARG)));
    operands.push(...this.list(this.field(v, 'args'), (a) => this.soacArg(a)));
    return `${target} = ${op ?? this.name(v, 'op')}(${operands.join(', ')})`;
  }

  /** The length of `iota(n)`: a map of the identity over one iota argument (structure.ts's isIota). */
  private iotaLen(s: N): N | undefined {
    if (this.str(s, 'op') !== 'map') return undefined;
    const args = this.field(s, 'args');
    const fn = this.field(s, 'fn');
    if (!this.is(args, 'cons') || !this.is(this.field(args, 'tail'), 'nil')) return undefined;
    const arg = this.field(args, 'head');
    if (!this.is(arg, 'argIota') || !this.is(fn, 'lam')) return undefined;
    const params = this.field(fn, 'params');
    const result = this.field(fn, 'result');
    if (!this.is(params, 'cons') || !this.is(this.field(params, 'tail'), 'nil')) return undefined;
    const p = this.field(params, 'head');
    if (!this.is(this.field(fn, 'binds'), 'nil') || !this.is(result, 'var') || !this.is(p, 'param'))
      return undefined;
    const name = this.str(result, 'name');
    return name !== undefined && name === this.str(p, 'name') ? this.field(arg, 'len') : undefined;
  }

  /** A lambda: the function it only calls with its parameters in order (`sq`), else inline. */
  lam(l: N): string {
    if (!this.is(l, 'lam')) return this.hooks.other('lam', l, this);
    const named = this.lamName(l);
    if (named !== undefined) return named;
    const params = this.list(this.field(l, 'params'), (x) => this.param(x)).join(', ');
    const binds = this.list(this.field(l, 'binds'), (b) => `${this.bind(b)}; `).join('');
    return `(${params}) => { ${binds}return ${this.expr(this.field(l, 'result'), 0)}; }`;
  }

  /** `f` for `(p…) => f(p…)` (each argument the parameter of the same position), else undefined. */
  private lamName(l: N): string | undefined {
    const result = this.field(l, 'result');
    if (!this.is(this.field(l, 'binds'), 'nil') || !this.is(result, 'call')) return undefined;
    let ps = this.field(l, 'params');
    let xs = this.field(result, 'args');
    for (;;) {
      if (this.is(ps, 'nil') && this.is(xs, 'nil')) return this.name(result, 'name');
      if (!this.is(ps, 'cons') || !this.is(xs, 'cons')) return undefined;
      const p = this.field(ps, 'head');
      const a = this.field(xs, 'head');
      if (!this.is(p, 'param') || !(this.is(a, 'var') || this.is(a, 'arrayRef'))) return undefined;
      const name = this.str(p, 'name');
      if (name === undefined || name !== this.str(a, 'name')) return undefined;
      if (this.flag(p, 'isArray') !== this.is(a, 'arrayRef')) return undefined;
      ps = this.field(ps, 'tail');
      xs = this.field(xs, 'tail');
    }
  }

  private bind(b: N): string {
    if (!this.is(b, 'bind')) return this.hooks.other('bind', b, this);
    return `${this.name(b, 'ty')} ${this.name(b, 'name')} = ${this.expr(this.field(b, 'rhs'), 0)}`;
  }

  soacArg(a: N): string {
    const kind = this.view.ctor(a);
    if (kind === 'argArray') return this.name(a, 'name', ARG);
    if (kind === 'argIota') return `iota(${this.expr(this.field(a, 'len'), 0)})`;
    if (kind === 'argScalar') return this.expr(this.field(a, 'value'), ARG);
    return this.hooks.other('soacArg', a, this);
  }

  // ---- expressions -------------------------------------------------------------------------

  /** Extra parentheses, for readers (and gcc -Wparentheses), where C's precedence is easily misread. */
  private clarify(parent: string | undefined, child: N): boolean {
    if (!this.is(child, 'binary') || parent === undefined) return false;
    const op = this.str(child, 'op');
    if (op === parent) return false;
    const logical = (o: string | undefined) => o === '&&' || o === '||';
    if (logical(parent) && (op === undefined || logical(op))) return true;
    return BITWISE.has(parent);
  }

  /** An expression, parenthesized when it binds looser than `min` (C precedence). */
  expr(e: N, min: number): string {
    const elided = this.hooks.elide();
    if (elided !== undefined) return elided;
    const kind = this.view.ctor(e);
    if (kind === undefined || !isExprKind(kind)) return this.hooks.expr(e, min, this);
    switch (kind) {
      case 'var':
      case 'arrayRef':
        return this.name(e, 'name', min);
      case 'intLit':
        return this.text(this.field(e, 'value'), min, (c) =>
          typeof c === 'number' ? intText(c) : { text: this.view.constText(c), prec: PRIMARY },
        );
      case 'floatLit':
        return this.text(this.field(e, 'value'), min, (c) =>
          typeof c === 'number' ? floatText(c) : { text: this.view.constText(c), prec: PRIMARY },
        );
      case 'boolLit':
        return this.name(e, 'value', min);
      case 'binary':
        return this.binary(e, min);
      case 'unary': {
        const op = this.str(e, 'op') ?? this.name(e, 'op');
        const arg = this.expr(this.field(e, 'arg'), UNARY);
        const text = op === '-' && arg.startsWith('-') ? `-(${arg})` : `${op}${arg}`;
        return wrap(text, UNARY, min);
      }
      case 'load':
        return `${this.name(e, 'array')}[${this.expr(this.field(e, 'index'), 0)}]`;
      case 'call':
        return `${this.name(e, 'name')}(${this.list(this.field(e, 'args'), (a) => this.expr(a, ARG)).join(', ')})`;
      case 'cast': {
        const arg = this.field(e, 'arg');
        const implicit = this.flag(e, 'implicit');
        if (implicit === true) return this.expr(arg, min);
        const explicit = `(${this.name(e, 'ty')})${this.expr(arg, UNARY)}`;
        if (implicit === false) return wrap(explicit, UNARY, min);
        return this.hooks.alternatives([this.expr(arg, UNARY), explicit], min);
      }
      case 'ternary':
        return wrap(
          `${this.expr(this.field(e, 'cond'), 4)} ? ${this.expr(this.field(e, 'thenExpr'), 0)} : ${this.expr(this.field(e, 'elseExpr'), 3)}`,
          3,
          min,
        );
      default:
        return assertNever(kind);
    }
  }

  private binary(e: N, min: number): string {
    const op = this.str(e, 'op');
    // an operator that is not known binds as its loosest alternative
    const ops = this.view.consts(this.field(e, 'op'));
    const p =
      op !== undefined
        ? (PREC[op] ?? 0)
        : Math.min(...(ops !== undefined ? ops.map((o) => PREC[String(o)] ?? 0) : [0]));
    const opText = op ?? this.name(e, 'op');
    const side = (x: N, m: number): string =>
      this.clarify(op, x) ? `(${this.expr(x, 0)})` : this.expr(x, m);
    return wrap(`${side(this.field(e, 'left'), p)} ${opText} ${side(this.field(e, 'right'), p + 1)}`, p, min);
  }
}
