/**
 * Kernel templates: a specialized program with its float constants made run-time arguments, so
 * that programs differing only in those constants share one compiled kernel (the code templates of
 * run-time specializers such as Tempo and DyC, whose holes are filled with values at run time).
 *
 * Why. A pipeline specialized for new late values gives a new program; where only float values
 * changed (new taps of the same stencil, new coefficients of a curve of the same degree) its shape
 * — loops unrolled, branches folded, loads dropped — is the one already compiled. Compiling it
 * again costs code generation and, on WebGPU, pipeline creation, for code that runs no faster
 * than the compiled one given the new constants. Int and bool values are never lifted: they shape
 * control (trip counts, op codes, indices), and a kernel whose int literals changed is a new shape.
 *
 * Algorithm (`kernelTemplate`). Each float literal of the program is numbered in pre-order,
 * function by function in program order. A function's *slots* are its own literals and the slots
 * of the functions it calls (a fixpoint over the call graph). Each function gets one float
 * parameter per slot, after its own; each call passes its callee's slots on; each `map`-like
 * combinator's lambda gets a parameter per slot it uses, fed by a broadcast scalar argument (so
 * lambdas stay closed). Not lifted: neutral elements (`ne`), and the literals of a combine
 * operator ⊕ (`comb`, and a reduce's or scan's `fn`, which is its ⊕) and of the functions it
 * calls, whose arity the combinator fixes; the literals of a recursive function (and of what it
 * calls), whose frames would grow; and literal-only subexpressions, which a back end may fold
 * exactly where the device would compute them from arguments (WGSL, fold.ts).
 *
 * Two passes. The first numbers the literals, notes whom each function calls and what ⊕ calls,
 * and yields the program with each literal to lift replaced by a nameless variable; the slots and
 * the functions whose literals stay follow from that. The second, made only when the template is
 * compiled (`lifted()`), rewrites the program. The key names the entry (one program compiled for
 * another entry is other code) and the program: where no function's literals stay, the first
 * pass's output, which decides the second's; else the lifted program itself. Labels are part of
 * it (a reused kernel reports errors where its own program would), and so are the literals left in
 * place that JSON prints alike (-0 as 0, NaN and ±Infinity as null), named with their places.
 * `constants` gives each new entry parameter its value.
 *
 * Invariants. Running the template's entry with `constants` added to the arguments computes what
 * the original program computes, bit for bit: a parameter holds the literal's binary32 value, and
 * reading a parameter and a literal cost the same in the evaluator (no fuel, no fault). Parameter
 * names are fresh in the program. No template is made (`undefined`) for a program with more than
 * `MAX_TEMPLATE_CONSTANTS` float literals to lift or with none, or with a function nested more
 * than MAX_TREE_DEPTH levels (the bound on the project's recursive walks, depth.ts); the lifted
 * program is undefined where its functions would take more parameters than WGSL allows.
 */
import { assertNever } from '../common/index.js';
import {
  builtin,
  type Call,
  type CallCmd,
  children,
  type Expr,
  type Fun,
  type Lam,
  listFromArray,
  listToArray,
  maxTreeDepth,
  mapChildren,
  type Param,
  type Program,
  type Soac,
  type SoacArg,
} from '../kernel/index.js';

/** The most float constants a template lifts; a program with more is compiled as it is. */
export const MAX_TEMPLATE_CONSTANTS = 64;

/**
 * The most parameters a function or lambda of a template may have (WGSL allows 255 per function):
 * a program whose lifted functions would take more is compiled as it is.
 */
const MAX_PARAMS = 255;

/** A program with its float literals lifted into parameters of the entry function. */
export interface KernelTemplate {
  /** What identifies the compiled code: equal keys, interchangeable compiled kernels. */
  readonly key: string;
  /** The value of each parameter added to the entry function. */
  readonly constants: Readonly<Record<string, number>>;
  /**
   * The lifted program (the same functions with float parameters in place of float literals),
   * made on first use — a key found compiled needs none; undefined where its functions would take
   * more parameters than WGSL allows (no template for this key then).
   */
  lifted(): Program | undefined;
}

/** Where the walk is: naming the lifted value of slot `id` in the current scope. */
interface Scope {
  name(id: number): string;
}

/**
 * The program's float literals lifted into parameters (see the header), or `undefined`. Literals
 * whose value is in `keep` stay (and are part of the key): the code's own constants, such as a
 * clamp's bounds, which a device's compiler may fold, and which no late value changes.
 */
export function kernelTemplate(
  program: Program,
  entry: string,
  keep: ReadonlySet<number> = new Set(),
): KernelTemplate | undefined {
  try {
    return liftProgram(program, entry, keep);
  } catch (e) {
    // a function nested deeper than the recursive walks may go is compiled as it is
    if (e === TOO_DEEP) return undefined;
    throw e;
  }
}

/** Thrown by the first pass at a function nested more than MAX_TREE_DEPTH levels (depth.ts). */
const TOO_DEEP = new Error('nested too deeply for a template');

function liftProgram(program: Program, entry: string, keep: ReadonlySet<number>): KernelTemplate | undefined {
  const funs = listToArray(program);
  if (!funs.some((f) => f.name === entry)) return undefined;
  // pass 1: the literals each function owns, whom it calls, what ⊕ calls, the names taken
  const scan = new Lifter(new Map(), new Set(), keep, '', () => 0);
  const owned = new Map<string, number>();
  const calls = new Map<string, Set<string>>();
  const scanned = funs.map((f) => {
    const before = scan.next;
    scan.callees = new Set();
    const out = scan.fun(f, { name: () => '' });
    owned.set(f.name, scan.next - before);
    calls.set(f.name, scan.callees);
    return out;
  });
  const frozen = frozenFuns(funs, calls, scan.combCallees);
  for (const name of frozen) owned.set(name, 0);
  let total = 0;
  for (const n of owned.values()) total += n;
  if (total === 0 || total > MAX_TEMPLATE_CONSTANTS) return undefined;
  const slots = slotsOf(funs, owned, calls);
  let prefix = 'scf_k';
  while ([...scan.taken].some((n) => n.startsWith(prefix))) prefix += '_';
  // pass 2: the rewrite, numbering literals in the same order
  let made: Lifter | undefined;
  let lifted: Program | undefined;
  const rewrite = (): Lifter => {
    if (made) return made;
    let label = labelsAndSpecials(program).maxLabel;
    made = new Lifter(slots, frozen, keep, prefix, () => ++label);
    const lifter = made;
    lifted = listFromArray(funs.map((f) => lifter.fun(f, { name: (id) => `${prefix}${id}` })));
    return made;
  };
  // With no frozen function, pass 1 saw every literal pass 2 lifts, numbered alike, and left the
  // rest as they are: its output, with the literals JSON prints alike, decides pass 2's. Else the
  // lifted program itself is the key.
  let key: string;
  if (frozen.size === 0) key = `${entry}|${JSON.stringify(scanned)}${scan.specials()}`;
  else {
    rewrite();
    key = `${entry}|${JSON.stringify(lifted)}${labelsAndSpecials(lifted).specials}`;
  }
  const values = frozen.size === 0 ? scan.values : rewrite().values;
  const constants: Record<string, number> = Object.create(null);
  for (const id of slots.get(entry) ?? []) constants[`${prefix}${id}`] = values[id] as number;
  return {
    key,
    constants,
    lifted: () => (rewrite().widest > MAX_PARAMS ? undefined : lifted),
  };
}

/**
 * The functions whose literals stay, with every function they call (which they pass no slots):
 * those a combine operator ⊕ calls, and those on a cycle of calls — a parameter per literal makes
 * each frame of a recursion larger, and a deep one would run out of stack sooner than the original.
 */
function frozenFuns(
  funs: readonly Fun[],
  calls: ReadonlyMap<string, ReadonlySet<string>>,
  combCallees: ReadonlySet<string>,
): Set<string> {
  const frozen = new Set<string>();
  const freeze = (name: string): void => {
    if (frozen.has(name)) return;
    frozen.add(name);
    for (const g of calls.get(name) ?? []) freeze(g);
  };
  for (const name of combCallees) freeze(name);
  for (const f of funs) {
    // whether f reaches itself
    const seen = new Set<string>();
    const stack = [...(calls.get(f.name) ?? [])];
    while (stack.length > 0) {
      const g = stack.pop() as string;
      if (g === f.name) {
        freeze(f.name);
        break;
      }
      if (seen.has(g)) continue;
      seen.add(g);
      stack.push(...(calls.get(g) ?? []));
    }
  }
  return frozen;
}

/** Each function's slots: its own literals' ids and its callees' slots, to a fixpoint (sorted). */
function slotsOf(
  funs: readonly Fun[],
  owned: ReadonlyMap<string, number>,
  calls: ReadonlyMap<string, ReadonlySet<string>>,
): Map<string, number[]> {
  const slots = new Map<string, number[]>();
  let base = 0;
  for (const f of funs) {
    const n = owned.get(f.name) ?? 0;
    slots.set(
      f.name,
      Array.from({ length: n }, (_, k) => base + k),
    );
    base += n;
  }
  for (let changed = true; changed; ) {
    changed = false;
    for (const f of funs) {
      const mine = new Set(slots.get(f.name));
      for (const g of calls.get(f.name) ?? []) for (const id of slots.get(g) ?? []) mine.add(id);
      if (mine.size !== slots.get(f.name)?.length) {
        slots.set(
          f.name,
          [...mine].sort((a, b) => a - b),
        );
        changed = true;
      }
    }
  }
  return slots;
}

/**
 * One walk of a program: its largest label (pass 2 labels new nodes above the original's), and
 * the float literals JSON cannot tell apart (-0 prints as 0, NaN and ±Infinity as null) with their
 * places among its float literals in pre-order (of the lifted program: the rest of its key).
 */
function labelsAndSpecials(program: Program | undefined): { maxLabel: number; specials: string } {
  let max = 0;
  let n = 0;
  let ints = 0;
  const out: string[] = [];
  const visit = (x: unknown): void => {
    if (typeof x !== 'object' || x === null) return;
    const node = x as { kind?: string; value?: number; lbl?: unknown };
    if (typeof node.lbl === 'number' && node.lbl > max) max = node.lbl;
    if (node.kind === 'floatLit') {
      const tag = jsonAlike(node.value as number);
      if (tag !== undefined) out.push(`${n}:${tag}`);
      n++;
    } else if (node.kind === 'intLit') {
      if (Object.is(node.value, -0)) out.push(`i${ints}:-0`);
      ints++;
    } else for (const c of children(node)) visit(c);
  };
  visit(program);
  return { maxLabel: max, specials: out.length > 0 ? `|${out.join(',')}` : '' };
}

/** How a float JSON prints like another (-0 as 0, NaN and ±Infinity as null) is written in a key. */
function jsonAlike(v: number): string | undefined {
  return Object.is(v, -0) ? '-0' : Number.isFinite(v) ? undefined : String(v);
}

const floatVar = (name: string, lbl: number): Expr => ({ kind: 'var', name, ty: 'float', lbl });

const EXPR_KINDS: ReadonlySet<string> = new Set<Expr['kind']>([
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

/**
 * The walk of both passes: numbers float literals in pre-order (outside neutral elements, combine
 * operators and frozen functions) and rewrites them into the variables of their slots (pass 1, with
 * no slots, only counts; it also notes the callees, the functions ⊕ calls and the names that start
 * like the lifted parameters').
 */
class Lifter {
  /** The value of each literal, by id. */
  readonly values: number[] = [];
  /** The next literal's id. */
  next = 0;
  /** The functions called in the function being walked. */
  callees = new Set<string>();
  /** The functions a combine operator ⊕ calls. */
  readonly combCallees = new Set<string>();
  /** Names in the program that start with 'scf_k'. */
  readonly taken = new Set<string>();
  /** The most parameters a lifted function or lambda has. */
  widest = 0;
  private lambdas = 0;
  /** How deep the walk is (levels of nodes and list cells). */
  private depth = 0;
  /** Int literals seen, in the walk's order. */
  private ints = 0;
  /** Float literals left as they are, counted in the walk's order. */
  private kept = 0;
  /** Those of them JSON prints alike (-0 as 0, NaN and ±Infinity as null), with their places. */
  private readonly ambiguous: string[] = [];

  constructor(
    private readonly slots: ReadonlyMap<string, readonly number[]>,
    private readonly frozen: ReadonlySet<string>,
    private readonly keep: ReadonlySet<number>,
    private readonly prefix: string,
    private readonly label: () => number,
  ) {}

  /** The literals left as they are that JSON prints alike, with their places: the rest of a key. */
  specials(): string {
    return this.ambiguous.length > 0 ? `|${this.ambiguous.join(',')}` : '';
  }

  fun(f: Fun, scope: Scope): Fun {
    this.note(f.name);
    if (this.frozen.has(f.name)) return f;
    this.lambdas = 0;
    const added = (this.slots.get(f.name) ?? []).map((id) => this.param(scope.name(id)));
    const walked = mapChildren(f, (c) => this.walk(c, scope));
    const params = [...listToArray(f.params), ...added];
    this.widest = Math.max(this.widest, params.length);
    return { ...walked, params: listFromArray(params) };
  }

  private param(name: string): Param {
    return { kind: 'param', name, ty: 'float', isArray: false, isConst: false, lbl: this.label() };
  }

  /**
   * One level down; past MAX_TREE_DEPTH the walk stops (`TOO_DEEP` abandons this Lifter, so the
   * level is not given back on the way out of a throw).
   */
  private enter(): void {
    if (++this.depth > maxTreeDepth()) throw TOO_DEEP;
  }

  /** Any kernel value: expressions, calls and combinators have their own cases. */
  private walk(x: unknown, scope: Scope): unknown {
    if (typeof x !== 'object' || x === null) return x;
    this.enter();
    const out = this.walkNode(x, scope);
    this.depth--;
    return out;
  }

  private walkNode(x: object, scope: Scope): unknown {
    const node = x as { kind: string; name?: unknown };
    if (EXPR_KINDS.has(node.kind)) return this.expr(node as Expr, scope);
    if (node.kind === 'callCmd') return this.call(node as CallCmd, scope);
    if (node.kind === 'soac') return this.soac(node as Soac, scope);
    if (typeof node.name === 'string') this.note(node.name);
    return mapChildren(node, (c) => this.walk(c, scope));
  }

  private expr(e: Expr, scope: Scope): Expr {
    this.enter();
    const out = this.exprNode(e, scope);
    this.depth--;
    return out;
  }

  private exprNode(e: Expr, scope: Scope): Expr {
    // a back end may fold a literal-only subexpression exactly (fold.ts) where the device would
    // compute it from arguments with its own rounding (subnormals flushed): it stays as it is
    if (e.kind !== 'floatLit' && literalOnly(e, this.depth)) return this.keepAll(e);
    switch (e.kind) {
      case 'var':
      case 'arrayRef':
        this.note(e.name);
        return e;
      case 'intLit':
        this.intLit(e.value);
        return e;
      case 'boolLit':
        return e;
      case 'floatLit': {
        // -0 is lifted even when 0 is kept: `keep` (a Set) does not tell them apart
        if (this.keep.has(e.value) && !Object.is(e.value, -0)) return this.keepAll(e);
        const id = this.next++;
        this.values[id] = e.value;
        return floatVar(scope.name(id), e.lbl);
      }
      case 'binary':
        return { ...e, left: this.expr(e.left, scope), right: this.expr(e.right, scope) };
      case 'unary':
        return { ...e, arg: this.expr(e.arg, scope) };
      case 'load':
        return { ...e, index: this.expr(e.index, scope) };
      case 'call':
        return this.call(e, scope);
      case 'cast':
        return { ...e, arg: this.expr(e.arg, scope) };
      case 'ternary': {
        const cond = this.expr(e.cond, scope);
        const thenExpr = this.expr(e.thenExpr, scope);
        return { ...e, cond, thenExpr, elseExpr: this.expr(e.elseExpr, scope) };
      }
      default:
        return assertNever(e);
    }
  }

  /**
   * `x` left as it is: its float literals counted (and noted where JSON prints them alike), its
   * names noted.
   */
  private keepAll<T>(x: T): T {
    const visit = (y: unknown, depth: number): void => {
      if (typeof y !== 'object' || y === null) return;
      if (depth > maxTreeDepth()) throw TOO_DEEP;
      const node = y as { kind?: string; value?: number; name?: unknown };
      if (typeof node.name === 'string') this.note(node.name);
      if (node.kind === 'floatLit') {
        const tag = jsonAlike(node.value as number);
        if (tag !== undefined) this.ambiguous.push(`${this.kept}:${tag}`);
        this.kept++;
      } else if (node.kind === 'intLit') this.intLit(node.value as number);
      else for (const c of children(node)) visit(c, depth + 1);
    };
    visit(x, this.depth);
    return x;
  }

  /** Ints are never lifted; one JSON prints as 0 (-0, which bindings never make) is noted all the same. */
  private intLit(v: number): void {
    if (Object.is(v, -0)) this.ambiguous.push(`i${this.ints}:-0`);
    this.ints++;
  }

  private note(name: string): void {
    if (name.startsWith('scf_k')) this.taken.add(name);
  }

  private call<C extends Call | CallCmd>(c: C, scope: Scope): C {
    this.callees.add(c.name);
    this.note(c.name);
    const args = listToArray(c.args).map((a) => this.expr(a, scope));
    for (const id of this.slots.get(c.name) ?? []) args.push(floatVar(scope.name(id), this.label()));
    return { ...c, args: listFromArray(args) };
  }

  /** The lambda `fn` gets a parameter per slot it uses; `ne` and `comb` are left as they are. */
  private soac(s: Soac, scope: Scope): Soac {
    this.note(s.dest);
    const args = listToArray(s.args).map((a) => this.walk(a, scope) as SoacArg);
    this.keepAll(s.ne);
    this.keepAll(s.comb);
    if (s.comb.kind === 'some') this.noteCalls(s.comb.value);
    if (s.op === 'reduce' || s.op === 'scan') {
      // `fn` is ⊕ itself, which a parallel back end also applies to two partial results
      this.keepAll(s.fn);
      this.noteCalls(s.fn);
      return { ...s, args: listFromArray(args) };
    }
    const lam = this.lambdas++;
    const used: number[] = [];
    const inner: Scope = {
      name: (id) => {
        if (!used.includes(id)) used.push(id);
        return `${this.prefix}${id}_${lam}`;
      },
    };
    const fn = mapChildren(s.fn, (c) => this.walk(c, inner)) as Lam;
    used.sort((a, b) => a - b);
    const params = [...listToArray(fn.params), ...used.map((id) => this.param(inner.name(id)))];
    this.widest = Math.max(this.widest, params.length);
    const broadcast: SoacArg[] = used.map((id) => ({
      kind: 'argScalar',
      value: floatVar(scope.name(id), this.label()),
      lbl: this.label(),
    }));
    return {
      ...s,
      fn: { ...fn, params: listFromArray(params) },
      args: listFromArray([...args, ...broadcast]),
    };
  }

  /** The functions `x` calls, as ⊕'s callees (their literals stay). */
  private noteCalls(x: unknown): void {
    if (typeof x !== 'object' || x === null) return;
    const node = x as { kind?: string; name?: string };
    if (node.kind === 'call' || node.kind === 'callCmd') {
      this.combCallees.add(node.name as string);
      this.callees.add(node.name as string);
    }
    for (const c of children(node)) this.noteCalls(c);
  }
}

/** The values of `program`'s float literals: a generic kernel's own constants (`keep` above). */
export function floatConstants(program: Program): Set<number> {
  const out = new Set<number>();
  const visit = (x: unknown): void => {
    if (typeof x !== 'object' || x === null) return;
    const node = x as { kind?: string; value?: number };
    if (node.kind === 'floatLit') out.add(node.value as number);
    else for (const c of children(node)) visit(c);
  };
  visit(program);
  return out;
}

/** Memo of `literalOnly` (nodes are immutable), so the checks on nested expressions stay linear. */
const literalOnlyMemo = new WeakMap<Expr, boolean>();

/** Whether `e` (`depth` levels down its function) reads no variable, array or call. */
function literalOnly(e: Expr, depth: number): boolean {
  const known = literalOnlyMemo.get(e);
  if (known !== undefined) return known;
  if (depth > maxTreeDepth()) throw TOO_DEEP;
  const sub = (x: Expr) => literalOnly(x, depth + 1);
  let out: boolean;
  switch (e.kind) {
    case 'intLit':
    case 'floatLit':
    case 'boolLit':
      out = true;
      break;
    case 'var':
    case 'load':
    case 'arrayRef':
      out = false;
      break;
    case 'call':
      // a builtin of literals is folded too (fold.ts)
      out = builtin(e.name) !== undefined && listToArray(e.args).every(sub);
      break;
    case 'binary':
      out = sub(e.left) && sub(e.right);
      break;
    case 'unary':
    case 'cast':
      out = sub(e.arg);
      break;
    case 'ternary':
      out = sub(e.cond) && sub(e.thenExpr) && sub(e.elseExpr);
      break;
    default:
      return assertNever(e);
  }
  literalOnlyMemo.set(e, out);
  return out;
}
