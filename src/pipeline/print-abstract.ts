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
 * Algorithm: the kernel's one C printer (src/kernel/c-printer.ts, which also prints concrete
 * ASTs) over a view of abstract values (`AbstractView`: a `con` of a kernel constructor is that
 * node, a field one constant is that constant), with hooks (`Fig6Hooks`) for what is not one
 * constructor:
 * - a union of expressions is `a | b`, binding looser than any C operator: parenthesized as an
 *   operand, alternatives that are not atomic parenthesized (`x | (x * 'Int)`);
 * - a union of commands is a block per alternative, `{ … } | { … }`, one line each brace;
 * - a field that is not one constant prints its set: `'Int`, `'Float`, `'Str`, `3 | 7`,
 *   `'Bool`; `1` prints `'Any`, `0` `'Empty`; a cast that may be implicit prints both readings;
 * - `fix α. …` and `α` as in printAbs (a command `fix` opens a block `fix α {`, `α;` recurs);
 *   a list tail that is not a cons chain prints `e...` for "any number of e" and `...<set>`
 *   otherwise; anything else off the AST's shape falls back to `printAbs` with this printer's
 *   hooks;
 * - past `maxNodes` printed nodes every part not yet printed is `…` (`elide`).
 *
 * Invariant (tested on every benchmark input and on generated programs): for a singleton value,
 * `printAbstractFun(fromConcrete(f))` is exactly `printFun(f)` — one printer, so they differ only
 * where the views ask it to: a combinator's composed lambda (fusion builds them; the concrete
 * printer lifts each into a helper function) prints inline, `(const float x) => { …; return e; }`;
 * and a function returning an array keeps the AST's type, `float[] f(…)`, where C needs
 * `float *f(…)` (`pointerReturn`). Constants keep their sign: `-0.0f` prints as such.
 * Field order comes from `KERNEL_CTORS`, read from the kernel's field table (generated from
 * src/kernel/ast.ts) and checked against the constructor table the SCF-lang front end builds from it.
 */
import { assertNever } from '../common/index.js';
import {
  type AbsValue,
  type CtorInfo,
  type CtorTable,
  isNeverOneMemberForm,
  PRELUDE_CTORS,
  printAbs,
  printPrim,
  withPrelude,
} from '../abstract-values/index.js';
import {
  ARG,
  CPrinter,
  type Ctor,
  KERNEL_NODES,
  KERNEL_UNIONS,
  type NodeView,
  pad,
  type Place,
  type PrintHooks,
  type Render,
  type Scalar,
  UNARY,
  wrap,
} from '../kernel/index.js';

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

export interface PrintAbstractOptions {
  /** Constructor table giving field order (default `KERNEL_CTORS`). */
  readonly ctors?: CtorTable;
  /**
   * How many nodes of the value are printed (default PRINT_NODES); past them every expression,
   * command or other part not yet printed is `…`.
   */
  readonly maxNodes?: number;
  /**
   * Print every alternative of every union (`scf stage --full`). Otherwise a part that is not one
   * constructor prints in at most `PRINT_LINE` characters, and a union of commands shows its first
   * `PRINT_ALTS` blocks, each cut with a note of what was left out.
   */
  readonly full?: boolean;
}

/** Longest text a union or other off-AST part prints as, unless `full`. */
export const PRINT_LINE = 400;
/** Blocks of a union of commands printed, unless `full`. */
export const PRINT_ALTS = 4;

/**
 * The nodes a description prints at most. An abstract value is a DAG (a result that shares a
 * sub-value at several places, like a statement list that follows each alternative of an
 * unrolled loop); printed as a tree it can be exponentially bigger: on 20 nested loops the
 * uncut descriptions take 40 s and 90 MB to write, on 30 nested loops almost 5 minutes. On the
 * benchmark configurations the inputs I1–I3 print in at most 600 nodes; the last pass's output
 * in up to 1.1 · 10⁶ (doconvol's: 9 MB of text), which is cut.
 */
export const PRINT_NODES = 50_000;

/** What stands for the parts not printed. */
export const ELIDED = '…';

/** An abstract kernel `Fun` (or a union of them) in Fig. 6 notation. */
export function printAbstractFun(v: AbsValue, opts: PrintAbstractOptions = {}): string {
  const { p, hooks } = printer(opts);
  const text = p.fun(v);
  const notes = [...(hooks.elided ? [hooks.note()] : []), ...(hooks.abbreviated ? [ABBREVIATED_NOTE] : [])];
  return [text, ...notes].join('\n');
}

/** The note under a description whose big unions were cut short. */
export const ABBREVIATED_NOTE = `(* ${ELIDED}: big unions cut short; scf stage --full prints them whole *)`;

/** An abstract kernel `Expr` in Fig. 6 notation (`x | (x * 'Int)`). */
export function printAbstractExpr(v: AbsValue, opts: PrintAbstractOptions = {}): string {
  return printer(opts).p.expr(v, 0);
}

/** An abstract kernel `Cmd` in Fig. 6 notation, one line per statement, indented `indent` levels. */
export function printAbstractCmd(v: AbsValue, indent = 0, opts: PrintAbstractOptions = {}): string {
  const lines: string[] = [];
  const { p, hooks } = printer(opts);
  p.printList(p.flatten(v), indent, lines);
  if (hooks.elided) lines.push(hooks.note());
  return lines.join('\n');
}

function printer(opts: PrintAbstractOptions): { p: CPrinter<AbsValue>; hooks: Fig6Hooks } {
  const ctors = withPrelude(opts.ctors ?? KERNEL_CTORS);
  const hooks = new Fig6Hooks(opts.maxNodes ?? PRINT_NODES, opts.full ?? false);
  return { p: new CPrinter(new AbstractView(ctors), hooks, { pointerReturn: false }), hooks };
}

/** A union of expressions binds looser than every C operator (and than a call argument's ARG). */
const ALT = 1;
const EXPR_CTORS: ReadonlySet<string> = new Set(KERNEL_UNIONS.Expr);
const CMD_CTORS: ReadonlySet<string> = new Set(KERNEL_UNIONS.Cmd);
const GREEK = 'αβγδεζηθικλμνξοπρστυφχψω';

/** Abstract values as the C printer's nodes: a `con` of a kernel constructor is one node. */
class AbstractView implements NodeView<AbsValue> {
  private readonly known: ReadonlySet<string>;

  constructor(private readonly ctors: CtorTable) {
    this.known = new Set([...Object.keys(KERNEL_NODES), ...PRELUDE_CTORS.keys()]);
  }

  ctor(v: AbsValue): Ctor | undefined {
    return v.kind === 'con' && this.known.has(v.ctor) ? (v.ctor as Ctor) : undefined;
  }

  field(v: AbsValue, name: string): AbsValue {
    const ctor = v.kind === 'con' ? v.ctor : v.kind;
    const i = v.kind === 'con' ? (this.ctors.get(ctor)?.fields.indexOf(name) ?? -1) : -1;
    const x = v.kind === 'con' && i >= 0 ? v.args[i] : undefined;
    if (x === undefined) throw new Error(`internal error: constructor '${ctor}' has no field '${name}'`);
    return x;
  }

  consts(v: AbsValue): readonly Scalar[] | undefined {
    return v.kind === 'consts' ? v.values : undefined;
  }

  constText(c: Scalar): string {
    return printPrim(c);
  }

  /** The one member of `v` with labels ignored (an abstract `lbl` reads as 0), if there is one. */
  concrete(v: AbsValue): unknown {
    if (isNeverOneMemberForm(v)) return undefined;
    switch (v.kind) {
      case 'consts':
        return v.values.length === 1 ? v.values[0] : undefined;
      case 'con': {
        const fields = this.ctors.get(v.ctor)?.fields;
        if (fields === undefined) return undefined;
        const o: Record<string, unknown> = { kind: v.ctor };
        for (let i = 0; i < fields.length; i++) {
          const f = fields[i] as string;
          const x = this.concrete(v.args[i] as AbsValue);
          if (x === undefined && f !== 'lbl') return undefined;
          o[f] = x === undefined ? 0 : x;
        }
        return o;
      }
      case 'map':
      case 'set':
        return undefined;
      default:
        return assertNever(v);
    }
  }
}

/** Fig. 6 notation for what is not one constructor, recursion variables, and the node budget. */
class Fig6Hooks implements PrintHooks<AbsValue> {
  /** Enclosing `fix` binders, for naming recursion variables as printAbs does. */
  private depth = 0;
  /** Nodes printed so far. */
  private nodes = 0;
  /** Whether some part was not printed (`maxNodes` reached). */
  elided = false;
  /** Whether some union was cut short (not printing in full). */
  abbreviated = false;

  constructor(
    private readonly maxNodes: number,
    private readonly fullText: boolean,
  ) {}

  /** `s`, cut to PRINT_LINE characters with a note unless printing in full. */
  private cut(s: string): string {
    if (this.fullText || s.length <= PRINT_LINE) return s;
    this.abbreviated = true;
    return `${s.slice(0, PRINT_LINE)}${ELIDED} (${s.length - PRINT_LINE} more characters)`;
  }

  /** Counts one more node; true once past `maxNodes` (the caller prints ELIDED instead). */
  private full(): boolean {
    if (this.nodes >= this.maxNodes) {
      this.elided = true;
      return true;
    }
    this.nodes++;
    return false;
  }

  elide(): string | undefined {
    return this.full() ? ELIDED : undefined;
  }

  room(): number {
    return this.maxNodes - this.nodes;
  }

  note(): string {
    return `(* ${ELIDED}: not printed — this description prints as more than ${this.maxNodes} nodes (shared parts are printed once per place) *)`;
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
   * At a place that wants one node: a union prints its alternatives there (joined as the place
   * reads best), anything else in printAbs notation.
   */
  other(place: Place, v: AbsValue, p: CPrinter<AbsValue>): string {
    return this.cut(this.otherText(place, v, p));
  }

  private otherText(place: Place, v: AbsValue, p: CPrinter<AbsValue>): string {
    const alts = v.kind === 'union' ? v.alts : undefined;
    switch (place) {
      case 'fun':
        return alts ? alts.map((a) => p.fun(a)).join('\n|\n') : this.generic(v, p);
      case 'param':
        return alts ? alts.map((a) => p.param(a)).join(' | ') : this.generic(v, p);
      case 'decl':
        return alts ? alts.map((a) => p.decl(a)).join('; | ') : this.generic(v, p);
      case 'soac':
        return alts ? alts.map((a) => p.soac(a)).join(' | ') : this.generic(v, p);
      case 'lam':
        return alts ? wrap(alts.map((a) => p.lam(a)).join(' | '), ALT, ARG) : this.generic(v, p, true);
      case 'soacArg':
        return alts ? wrap(alts.map((a) => p.soacArg(a)).join(' | '), ALT, ARG) : this.generic(v, p, true);
      case 'return':
        // an abstract Option: `return; | return e;`
        return alts ? alts.map((a) => p.ret(a)).join(' | ') : `return ${this.generic(v, p)};`;
      case 'bind':
        return this.generic(v, p);
      case 'size':
        return `/*${this.generic(v, p)}*/`;
      default:
        return assertNeverPlace(place);
    }
  }

  expr(e: AbsValue, min: number, p: CPrinter<AbsValue>): string {
    switch (e.kind) {
      case 'con':
        // another constructor (`c(…)`) is atomic
        return this.generic(e, p);
      case 'union':
        // x | (x * 'Int)
        return wrap(this.cut(e.alts.map((a) => p.expr(a, UNARY)).join(' | ')), ALT, min);
      case 'top':
        return "'Any";
      case 'bottom':
        return "'Empty";
      case 'fix':
        return wrap(`fix ${this.inFix(() => `${this.recName(0)}. ${p.expr(e.body, 0)}`)}`, 0, min);
      case 'rec':
        return this.recName(e.index);
      case 'base':
      case 'consts':
      case 'map':
      case 'set':
        return p.text(e, min);
      default:
        return assertNever(e);
    }
  }

  cmd(c: AbsValue, indent: number, lines: string[], p: CPrinter<AbsValue>): void {
    const pd = pad(indent);
    switch (c.kind) {
      case 'union':
        // { c1 } | { c2 }: one block per alternative
        for (const [i, a] of c.alts.entries()) {
          if (!this.fullText && i === PRINT_ALTS) {
            this.abbreviated = true;
            const more = c.alts.length - PRINT_ALTS;
            // the alternatives left out, as one block saying how many
            lines.push(
              `${pd}} | {`,
              `${pad(indent + 1)}${ELIDED} (${more} more alternative${more === 1 ? '' : 's'})`,
            );
            break;
          }
          lines.push(i === 0 ? `${pd}{` : `${pd}} | {`);
          p.printList(p.flatten(a), indent + 1, lines);
        }
        lines.push(`${pd}}`);
        return;
      case 'fix':
        this.inFix(() => {
          lines.push(`${pd}fix ${this.recName(0)} {`);
          p.printList(p.flatten(c.body), indent + 1, lines);
        });
        lines.push(`${pd}}`);
        return;
      case 'rec':
        lines.push(`${pd}${this.recName(c.index)};`);
        return;
      case 'bottom':
      case 'top':
      case 'con':
      case 'base':
      case 'consts':
      case 'map':
      case 'set':
        lines.push(`${pd}${this.generic(c, p)};`);
        return;
      default:
        assertNever(c);
    }
  }

  /** A primitive field that is not one constant: `a | b` (parenthesized below `min`), or its set (`'Int`, `'Any`). */
  consts(x: AbsValue, min: number, render: Render, p: CPrinter<AbsValue>): string {
    switch (x.kind) {
      case 'consts': {
        if (x.values.length === 2 && x.values[0] === false && x.values[1] === true) return "'Bool";
        return wrap(x.values.map((c) => wrap(render(c).text, render(c).prec, UNARY)).join(' | '), ALT, min);
      }
      case 'base':
        return `'${x.base}`;
      case 'top':
        return "'Any";
      case 'bottom':
        return "'Empty";
      case 'union':
        return wrap(this.cut(x.alts.map((a) => p.text(a, UNARY, render)).join(' | ')), ALT, min);
      case 'con':
      case 'fix':
      case 'rec':
      case 'map':
      case 'set':
        return wrap(this.generic(x, p), ALT, min);
      default:
        return assertNever(x);
    }
  }

  /** `e...` for `fix α. cons(e, α) | nil` (any number of e), else `...<the set>`. */
  listTail(v: AbsValue, item: (x: AbsValue) => string, p: CPrinter<AbsValue>): string {
    if (v.kind === 'fix' && v.body.kind === 'union' && v.body.alts.length === 2) {
      const [a, b] = v.body.alts as [AbsValue, AbsValue];
      const isCon = (x: AbsValue, ctor: string) => x.kind === 'con' && x.ctor === ctor;
      const cons = isCon(a, 'cons') ? a : isCon(b, 'cons') ? b : undefined;
      const nil = isCon(a, 'nil') || isCon(b, 'nil');
      const tail = cons?.kind === 'con' ? cons.args[1] : undefined;
      if (cons?.kind === 'con' && nil && tail?.kind === 'rec' && tail.index === 0) {
        return `${this.inFix(() => item(cons.args[0] as AbsValue))}...`;
      }
    }
    // a union of lists of known lengths (locals that differ between paths): the rest is one of them
    const lists = finiteLists(v, 2 * PRINT_ALTS);
    if (lists !== undefined)
      return `...${this.cut(lists.map((l) => `(${l.map(item).join(', ')})`).join(' | '))}`;
    return `...${this.cut(this.generic(v, p))}`;
  }

  alternatives(texts: readonly string[], min: number): string {
    return wrap(texts.join(' | '), ALT, min);
  }

  /**
   * Anything off the AST's shape, in printAbs notation (`c(a, b)`, `a | b`, `fix α. …`), with
   * kernel constructors printed as C and recursion variables named by this printer's binders.
   * `nested`: a union or fix is parenthesized.
   */
  private generic(v: AbsValue, p: CPrinter<AbsValue>, nested = false): string {
    if (this.full()) return ELIDED;
    const paren = (s: string) => (nested ? `(${s})` : s);
    switch (v.kind) {
      case 'con': {
        if (EXPR_CTORS.has(v.ctor)) return paren(p.expr(v, 0));
        if (CMD_CTORS.has(v.ctor)) {
          const lines: string[] = [];
          p.printList(p.flatten(v), 0, lines);
          return `{ ${lines.join(' ')} }`;
        }
        const args = v.args.map((a) => this.generic(a, p));
        if (v.ctor.startsWith('#')) return `(${args.join(', ')})`;
        return args.length === 0 ? v.ctor : `${v.ctor}(${args.join(', ')})`;
      }
      case 'union':
        return paren(v.alts.map((a) => this.generic(a, p, true)).join(' | '));
      case 'fix':
        return paren(this.inFix(() => `fix ${this.recName(0)}. ${this.generic(v.body, p)}`));
      case 'rec':
        return this.recName(v.index);
      case 'bottom':
      case 'top':
      case 'base':
      case 'consts':
      case 'map':
      case 'set':
        return printAbs(v);
      default:
        return assertNever(v);
    }
  }
}

function assertNeverPlace(place: never): never {
  throw new Error(`internal error: no place '${String(place)}'`);
}

/**
 * The lists `v` stands for, each as its items, when it is a union of lists of known lengths
 * (`cons`, `nil` and unions of them, no `fix`); undefined otherwise or past `max` lists.
 */
function finiteLists(v: AbsValue, max: number): AbsValue[][] | undefined {
  if (v.kind === 'con' && v.ctor === 'nil') return [[]];
  if (v.kind === 'con' && v.ctor === 'cons') {
    const tails = finiteLists(v.args[1] as AbsValue, max);
    return tails?.map((t) => [v.args[0] as AbsValue, ...t]);
  }
  if (v.kind !== 'union') return undefined;
  const out: AbsValue[][] = [];
  for (const a of v.alts) {
    const ls = finiteLists(a, max);
    if (ls === undefined || out.length + ls.length > max) return undefined;
    out.push(...ls);
  }
  return out;
}
