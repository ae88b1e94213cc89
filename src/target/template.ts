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
 * exactly where the device would compute them from arguments (WGSL, fold.ts). The template's key is
 * the lifted program itself (labels included, so a reused kernel reports errors where its own
 * program would; with the literals JSON does not tell apart, -0 and the non-finite, named with their
 * places); `constants` gives each new entry parameter its value.
 *
 * The key names the entry too: one program compiled for another entry is other code.
 *
 * Invariants. Running the template's entry with `constants` added to the arguments computes what
 * the original program computes, bit for bit: a parameter holds the literal's binary32 value, and
 * reading a parameter and a literal cost the same in the evaluator (no fuel, no fault). Parameter
 * names are fresh in the program. No template is made (`undefined`) for a program with more than
 * `MAX_TEMPLATE_CONSTANTS` float literals to lift or with none, whose functions would take more
 * parameters than WGSL allows, or nested deeper than the walk's recursion.
 */
import { assertNever } from '../common/index.js';
import {
  type Call,
  type CallCmd,
  children,
  type Expr,
  type Fun,
  type Lam,
  listFromArray,
  listToArray,
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
  /** The lifted program: the same functions with float parameters in place of float literals. */
  readonly program: Program;
  /** What identifies the compiled code: equal keys, interchangeable compiled kernels. */
  readonly key: string;
  /** The value of each parameter added to the entry function. */
  readonly constants: Readonly<Record<string, number>>;
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
    // a program nested deeper than the walks' recursion is compiled as it is
    if (e instanceof RangeError) return undefined;
    throw e;
  }
}

function liftProgram(program: Program, entry: string, keep: ReadonlySet<number>): KernelTemplate | undefined {
  const funs = listToArray(program);
  if (!funs.some((f) => f.name === entry)) return undefined;
  // pass 1: the literals each function owns, whom it calls, what ⊕ calls, the names taken
  const scan = new Lifter(new Map(), new Set(), keep, '', () => 0);
  const owned = new Map<string, number>();
  const calls = new Map<string, Set<string>>();
  for (const f of funs) {
    const before = scan.next;
    scan.callees = new Set();
    scan.fun(f, { name: () => '' });
    owned.set(f.name, scan.next - before);
    calls.set(f.name, scan.callees);
  }
  const frozen = frozenFuns(funs, calls, scan.combCallees);
  for (const name of frozen) owned.set(name, 0);
  let total = 0;
  for (const n of owned.values()) total += n;
  if (total === 0 || total > MAX_TEMPLATE_CONSTANTS) return undefined;
  const slots = slotsOf(funs, owned, calls);
  // pass 2: the rewrite, numbering literals in the same order
  let prefix = 'scf_k';
  while ([...scan.taken].some((n) => n.startsWith(prefix))) prefix += '_';
  const { maxLabel, specials } = labelsAndSpecials(program);
  let label = maxLabel;
  const lifter = new Lifter(slots, frozen, keep, prefix, () => ++label);
  const lifted = listFromArray(funs.map((f) => lifter.fun(f, { name: (id) => `${prefix}${id}` })));
  if (lifter.widest > MAX_PARAMS) return undefined;
  const constants: Record<string, number> = Object.create(null);
  for (const id of slots.get(entry) ?? []) constants[`${prefix}${id}`] = lifter.values[id] as number;
  return { program: lifted, key: `${entry}|${JSON.stringify(lifted)}${specials}`, constants };
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
 * One walk of the original program: its largest label (new nodes are labelled above it), and the
 * float literals JSON cannot tell apart (-0 prints as 0, NaN and ±Infinity as null) with their
 * places among its float literals in pre-order — the rest of the key. (A lifted -0 named there
 * only makes another key; the lifted program's JSON says where every kept literal stands.)
 */
function labelsAndSpecials(program: Program): { maxLabel: number; specials: string } {
  let max = 0;
  let n = 0;
  const out: string[] = [];
  const visit = (x: unknown): void => {
    if (typeof x !== 'object' || x === null) return;
    const node = x as { kind?: string; value?: number; lbl?: unknown };
    if (typeof node.lbl === 'number' && node.lbl > max) max = node.lbl;
    if (node.kind === 'floatLit') {
      const v = node.value as number;
      if (Object.is(v, -0) || !Number.isFinite(v)) out.push(`${n}:${Object.is(v, -0) ? '-0' : v}`);
      n++;
    } else for (const c of children(node)) visit(c);
  };
  visit(program);
  return { maxLabel: max, specials: out.length > 0 ? `|${out.join(',')}` : '' };
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

  constructor(
    private readonly slots: ReadonlyMap<string, readonly number[]>,
    private readonly frozen: ReadonlySet<string>,
    private readonly keep: ReadonlySet<number>,
    private readonly prefix: string,
    private readonly label: () => number,
  ) {}

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

  /** Any kernel value: expressions, calls and combinators have their own cases. */
  private walk(x: unknown, scope: Scope): unknown {
    if (typeof x !== 'object' || x === null) return x;
    const node = x as { kind: string; name?: unknown };
    if (EXPR_KINDS.has(node.kind)) return this.expr(node as Expr, scope);
    if (node.kind === 'callCmd') return this.call(node as CallCmd, scope);
    if (node.kind === 'soac') return this.soac(node as Soac, scope);
    if (typeof node.name === 'string') this.note(node.name);
    return mapChildren(node, (c) => this.walk(c, scope));
  }

  private expr(e: Expr, scope: Scope): Expr {
    // a back end may fold a literal-only subexpression exactly (fold.ts) where the device would
    // compute it from arguments with its own rounding (subnormals flushed): it stays as it is
    if (e.kind !== 'floatLit' && literalOnly(e)) return e;
    switch (e.kind) {
      case 'var':
      case 'arrayRef':
        this.note(e.name);
        return e;
      case 'intLit':
      case 'boolLit':
        return e;
      case 'floatLit': {
        // -0 is lifted even when 0 is kept: `keep` (a Set) does not tell them apart
        if (this.keep.has(e.value) && !Object.is(e.value, -0)) return e;
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
    if (s.comb.kind === 'some') this.noteCalls(s.comb.value);
    if (s.op === 'reduce' || s.op === 'scan') {
      // `fn` is ⊕ itself, which a parallel back end also applies to two partial results
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

/** Whether `e` reads no variable, array or call: its value is its literals'. */
function literalOnly(e: Expr): boolean {
  const known = literalOnlyMemo.get(e);
  if (known !== undefined) return known;
  let out: boolean;
  switch (e.kind) {
    case 'intLit':
    case 'floatLit':
    case 'boolLit':
      out = true;
      break;
    case 'var':
    case 'load':
    case 'call':
    case 'arrayRef':
      out = false;
      break;
    case 'binary':
      out = literalOnly(e.left) && literalOnly(e.right);
      break;
    case 'unary':
    case 'cast':
      out = literalOnly(e.arg);
      break;
    case 'ternary':
      out = literalOnly(e.cond) && literalOnly(e.thenExpr) && literalOnly(e.elseExpr);
      break;
    default:
      return assertNever(e);
  }
  literalOnlyMemo.set(e, out);
  return out;
}
