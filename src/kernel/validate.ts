/**
 * The kernel AST's validator: checks the invariants ast.ts's header states, on a program the parser
 * produced or any optimizer's output (Binaryen's pass-runner validation, Futhark's
 * `pipelineValidate`). `runPipeline` (optimizers/index.ts) and the stub's pipelines run it after
 * every user's pass (every pass under `--check`) and name the pass that broke the program;
 * `stageConfig` runs it on the loaded kernel under `SCF_PASS_DEBUG=1`.
 *
 * Rules (each problem names its rule and the label of the node it is at):
 * - `shape`: every node has a kind of the field table (fields.generated.ts) and each field the
 *   declared type (number, string, boolean, a node of the declared type or union, a `cons`/`nil`
 *   list, a `some`/`none` option); names (`name`, `array`, `dest`) are identifiers;
 * - `label`: labels are unique (within a function by `validateFun`, program-wide by
 *   `validateProgram`; an optimizer numbers fresh labels above its function's largest);
 * - `type`: type strings are legal: 'int' | 'float' | 'bool' for values, also 'void' and 'T[]' for a
 *   function's `ret`; combinator ops are the six of ast.ts;
 * - `elaborated`: arithmetic operands and result share `ty`, comparison operands share a type and give
 *   'int', logical operators give 'int'; an index is an int; a ternary's branches have its `ty`; the
 *   right-hand side of `assign`/`store`, a `return` value (for an array-returning function, the
 *   array's element type) and every call argument have the target's type (scalar variables, arrays
 *   and callees found among the function's parameters, locals and combinator results, and the
 *   program's functions); a scalar assigned (by `assign` or as a reduction's `dest`) is a parameter
 *   or local, and so is a scalar a `var` reads; an array stored into, loaded from, passed by name
 *   (`arrayRef`) or to a combinator (`argArray`) is one, a function called is one of the program's
 *   (when it is known); inside a lambda, a `var`, `load` or `arrayRef` names its own parameters and
 *   the bindings before it (lambdas are closed);
 * - `seq`: statement lists are right-nested `seq`s without `skip` elements (a `seq`'s first is no
 *   `seq` and neither part is `skip`); after passes only the second half holds (`ValidateOptions`);
 * - `soac`: `comb` is some exactly for redomap/scanomap, `ne` some exactly for the folds, and an atom.
 * `isFor` is not checked: it is a printing hint the printer re-checks (ast.ts).
 *
 * The check after a user's pass runs on every run of a pipeline, so its common case is one walk:
 * `isBoundedTree` tells in a single bounded walk along the declared fields that a function has the
 * right shape, distinct labels and a depth the tools can walk, and `validateBoundedTree` then checks
 * the remaining rules; only a function it refuses goes through the slower checks that name the
 * problem (pass-io.ts's `checkPassOutput`). Fields the table does not declare are read by no walk,
 * and by neither check.
 * Not SCF-lang; reads the field table for `shape` and for the walk.
 */
import { clip } from '../common/index.js';
import type { Binary, Cmd, Expr, Fun, Lam, Program, Soac } from './ast.js';
import { exprType } from './expr-info.js';
import { children, KERNEL_NODES, KERNEL_UNIONS, nodeInfo, nodesOfType } from './fields.js';
import type { FieldType } from './fields.generated.js';
import { ARRAY_OPS, FOLD_OPS } from './structure.js';
import { listToArray } from './util.js';
import { builtin } from './builtins.js';
import { shapeFun } from './shape.generated.js';
import { isIdentifier, NAME_FIELDS, newWalk } from './tree-walk.js';

export interface ValidationProblem {
  readonly rule: 'shape' | 'label' | 'type' | 'elaborated' | 'seq' | 'soac';
  /** The label of the node the problem is at (the nearest labelled one). */
  readonly lbl: number | undefined;
  readonly message: string;
}

const SCALARS = new Set(['int', 'float', 'bool']);
const RETS = new Set(['int', 'float', 'bool', 'void', 'int[]', 'float[]', 'bool[]']);
const SOAC_OPS = new Set(['map', 'filter', 'reduce', 'scan', 'redomap', 'scanomap']);
const ARITH = new Set(['+', '-', '*', '/', '%', '&', '|', '^', '<<', '>>']);
const COMPARE = new Set(['<', '<=', '>', '>=', '==', '!=']);

export interface ValidateOptions {
  /**
   * Whether statement lists must be *right-nested* `seq`s, as the parser builds them (default), or
   * only free of `skip`s: copy-prop's output nests some to the left (a `seq` whose first part is a
   * `seq`; the printers flatten both alike), so the checks after passes ask only for `'skip-free'`.
   */
  readonly seqs?: 'right-nested' | 'skip-free';
}

/** Problems of every function of `program`, and labels repeated across functions. */
export function validateProgram(program: Program, opts: ValidateOptions = {}): ValidationProblem[] {
  const funs = listToArray(program);
  const out = funs.flatMap((f) => validateFun(f, program, opts));
  if (out.some((p) => p.rule === 'shape')) return out; // labels are read through the field table
  const seen = new Map<number, string>();
  for (const f of funs)
    for (const l of new Set(labelsOf(f))) {
      const other = seen.get(l);
      if (other !== undefined && other !== f.name)
        out.push({ rule: 'label', lbl: l, message: `label ${l} occurs in '${other}' and '${f.name}'` });
      seen.set(l, f.name);
    }
  return out;
}

/** Problems of function `f` (`program`, when given, has the functions `f` calls). */
export function validateFun(f: Fun, program?: Program, opts: ValidateOptions = {}): ValidationProblem[] {
  return problemsOf(f, program, opts);
}

/**
 * `validateFun` of a function `isBoundedTree` accepted: its shape and labels are known to be right,
 * so only the other rules are checked (the same problems, two walks fewer).
 */
export function validateBoundedTree(
  f: Fun,
  program?: Program,
  opts: ValidateOptions = {},
): ValidationProblem[] {
  const out: ValidationProblem[] = [];
  new FunChecker(f, program, opts.seqs ?? 'right-nested', out).run();
  return out;
}

function problemsOf(f: Fun, program: Program | undefined, opts: ValidateOptions): ValidationProblem[] {
  const out: ValidationProblem[] = [];
  checkShape(f, FUN_TYPE, undefined, out);
  if (out.length > 0) return out; // the other rules read the fields
  for (const [l, n] of labelRepeats(f))
    out.push({ rule: 'label', lbl: l, message: `label ${l} occurs ${n === 2 ? 'twice' : `${n} times`}` });
  new FunChecker(f, program, opts.seqs ?? 'right-nested', out).run();
  return out;
}

const FUN_TYPE: FieldType = { tag: 'node', name: 'Fun' };

/**
 * Whether `root` is a function of the right shape (the `shape` rule), a tree of at most `limit`
 * levels (the root is level 1 and every object a level, as `firstTooDeep` counts) whose labels are
 * all distinct (the `label` rule); false at the first place where it is not. One recursive walk
 * along the declared fields (`shapeFun`, generated from the field table), at most `limit` frames
 * deep, that allocates only the set of labels and ends after a number of steps linear in the labels
 * it meets (tree-walk.ts): the fast way to tell that a pass's output has none of the problems
 * `checkShape`, `firstSharedNode`, `firstTooDeep` and the `label` rule look for, so that only the
 * remaining rules need checking (`validateBoundedTree`); where it answers false, those checks find
 * and name the problem.
 */
export function isBoundedTree(root: unknown, limit: number): boolean {
  return shapeFun(root, 1, newWalk(limit));
}

/** One line per problem: `rule at label N: message`. */
export function formatProblems(problems: readonly ValidationProblem[]): string {
  return problems.map((p) => `${p.rule} at label ${p.lbl ?? '?'}: ${p.message}`).join('\n');
}

/** The labels that occur more than once in kernel value `x`, each once, in pre-order of their second occurrence. */
export function repeatedLabels(x: unknown): number[] {
  return [...labelRepeats(x).keys()];
}

/** How often each label that occurs more than once in `x` occurs, in `repeatedLabels`' order (one walk). */
function labelRepeats(x: unknown): Map<number, number> {
  const times = new Map<number, number>();
  const out = new Map<number, number>();
  for (const l of labelsOf(x)) {
    const n = (times.get(l) ?? 0) + 1;
    times.set(l, n);
    if (n > 1) out.set(l, n);
  }
  return out;
}

/** Every label in `x`, in pre-order. */
function labelsOf(x: unknown): number[] {
  const out: number[] = [];
  const go = (y: unknown): void => {
    if (typeof y !== 'object' || y === null) return;
    const l = (y as { lbl?: unknown }).lbl;
    if (typeof l === 'number') out.push(l);
    for (const c of children(y)) go(c);
  };
  go(x);
  return out;
}

/** The node kinds of each node type of ast.ts (an interface or a union), by the type's name. */
const KINDS_OF: ReadonlyMap<string, ReadonlySet<string>> = (() => {
  const out = new Map<string, Set<string>>();
  const add = (name: string, kind: string) => {
    const kinds = out.get(name) ?? new Set<string>();
    kinds.add(kind);
    out.set(name, kinds);
  };
  for (const [kind, info] of Object.entries(KERNEL_NODES)) add(info.iface, kind);
  for (const [name, kinds] of Object.entries(KERNEL_UNIONS)) for (const kind of kinds) add(name, kind);
  return out;
})();

/** Whether node kind `kind` is of node type `name` (an interface or a union of ast.ts). */
function ofType(kind: string, name: string): boolean {
  return KINDS_OF.get(name)?.has(kind) ?? false;
}

/** The `shape` rule: `x` is a value of field type `t`, recursively. */
function checkShape(x: unknown, t: FieldType, at: number | undefined, out: ValidationProblem[]): void {
  // (no closure made per node: the walk visits every node of the function, after every user's pass)
  if (t.tag === 'number' || t.tag === 'string' || t.tag === 'boolean') {
    if (typeof x !== t.tag) badShape(`a ${typeof x}`, t, at, out);
    return;
  }
  const o = x as Record<string, unknown> | null;
  const kind = typeof o === 'object' && o !== null ? o.kind : undefined;
  if (t.tag === 'list') {
    for (let l = o; ; l = l.tail as Record<string, unknown>) {
      if (l?.kind === 'nil') return;
      if (typeof l !== 'object' || l === null || l.kind !== 'cons') {
        badShape('a list ending in something else', t, at, out);
        return;
      }
      checkShape(l.head, t.of, at, out);
    }
  }
  if (t.tag === 'option') {
    if (kind === 'some') checkShape((o as Record<string, unknown>).value, t.of, at, out);
    else if (kind !== 'none') badShape(`kind ${String(kind)}`, t, at, out);
    return;
  }
  if (t.tag !== 'node') return;
  if (typeof kind !== 'string' || !ofType(kind, t.name)) {
    badShape(`kind ${String(kind)}`, t, at, out);
    return;
  }
  const node = o as Record<string, unknown>;
  const own = typeof node.lbl === 'number' ? node.lbl : at;
  for (const f of FIELD_CHECKS.get(kind) ?? []) {
    if (!Object.hasOwn(node, f.name)) {
      out.push({ rule: 'shape', lbl: own, message: `${kind} has no field '${f.name}'` });
      continue;
    }
    const v = node[f.name];
    if (f.scalar === undefined) checkShape(v, f.type, own, out);
    else if (typeof v !== f.scalar) badShape(`a ${typeof v}`, f.type, own, out);
    // a name is printed into C, JavaScript and WGSL as it is: it must be an identifier
    else if (f.isName && !isIdentifier(v as string))
      out.push({
        rule: 'shape',
        lbl: own,
        message: `${kind}.${f.name} '${clipName(v as string)}' is not an identifier`,
      });
  }
}

/** A field as the `shape` rule checks it: a scalar's type checked in place, names as identifiers. */
interface FieldCheck {
  readonly name: string;
  readonly type: FieldType;
  /** The `typeof` of a scalar field; undefined for a field that holds kernel values. */
  readonly scalar: 'number' | 'string' | 'boolean' | undefined;
  /** Whether the field holds a name (`NAME_FIELDS`), which must be an identifier. */
  readonly isName: boolean;
}

/** The fields of each node kind of the table, as `checkShape` reads them (in declaration order). */
const FIELD_CHECKS: ReadonlyMap<string, readonly FieldCheck[]> = new Map(
  Object.keys(KERNEL_NODES).map((kind): [string, FieldCheck[]] => [
    kind,
    (nodeInfo(kind)?.fields ?? []).map((f) => ({
      name: f.name,
      type: f.type,
      scalar:
        f.type.tag === 'number' || f.type.tag === 'string' || f.type.tag === 'boolean'
          ? f.type.tag
          : undefined,
      isName: NAME_FIELDS.has(f.name),
    })),
  ]),
);

/** Records that a value is not of field type `t`. */
function badShape(what: string, t: FieldType, at: number | undefined, out: ValidationProblem[]): void {
  out.push({ rule: 'shape', lbl: at, message: `${what}, expected ${typeText(t)}` });
}

function typeText(t: FieldType): string {
  switch (t.tag) {
    case 'number':
    case 'string':
    case 'boolean':
      return t.tag;
    case 'node':
      return t.name;
    case 'list':
      return `List<${typeText(t.of)}>`;
    case 'option':
      return `Option<${typeText(t.of)}>`;
  }
}

/**
 * The names an expression may read: the host function's, or a lambda's (lambdas are closed: they
 * see their own parameters and the bindings before the one read, as the evaluator runs them).
 */
interface Scope {
  /** Scalar variables by name, with their types. */
  readonly scalars: Map<string, string>;
  /** Arrays by name, with their element types. */
  readonly arrays: Map<string, string>;
  /** How a problem names what a name read is not: 'parameter or local', 'parameter or binding of its lambda'. */
  readonly what: string;
}

/** The `type`, `elaborated`, `seq` and `soac` rules over one function. */
class FunChecker {
  /** Scalar variables of the function (parameters, locals) by name, with their types. */
  private readonly scalars = new Map<string, string>();
  /** Arrays (parameters, locals, combinator results) by name, with their element types. */
  private readonly arrays = new Map<string, string>();
  private readonly funs = new Map<string, Fun>();
  /** The function's names: what its commands read. */
  private readonly host: Scope = { scalars: this.scalars, arrays: this.arrays, what: 'parameter or local' };
  /** What the expression being checked may read: the function's names, or a lambda's. */
  private scope: Scope = this.host;

  constructor(
    private readonly f: Fun,
    program: Program | undefined,
    private readonly seqs: 'right-nested' | 'skip-free',
    private readonly out: ValidationProblem[],
  ) {
    for (const g of program ? listToArray(program) : []) this.funs.set(g.name, g);
    // the functions its combinators apply, and constant propagation's clones of them
    for (const g of listToArray(f.fns)) this.funs.set(g.name, g);
    for (const p of listToArray(f.params)) (p.isArray ? this.arrays : this.scalars).set(p.name, p.ty);
    for (const d of listToArray(f.locals))
      (d.size.kind === 'some' ? this.arrays : this.scalars).set(d.name, d.ty);
  }

  run(): void {
    const f = this.f;
    if (!RETS.has(f.ret)) this.problem('type', f.lbl, `'${f.name}' returns '${f.ret}'`);
    for (const p of [...listToArray(f.params), ...listToArray(f.locals)]) this.scalarType(p.ty, p.lbl);
    this.collectArrays(f.body);
    this.cmd(f.body);
  }

  private problem(rule: ValidationProblem['rule'], lbl: number, message: string): void {
    this.out.push({ rule, lbl, message });
  }

  private scalarType(ty: string, lbl: number): void {
    if (!SCALARS.has(ty)) this.problem('type', lbl, `type '${ty}' is not int, float or bool`);
  }

  private want(e: Expr, ty: string | undefined, what: string): void {
    const has = exprType(e);
    if (ty !== undefined && has !== ty)
      this.problem('elaborated', e.lbl, `${what} is ${has}, expected ${ty}`);
  }

  /** Combinator results are arrays the function does not declare. */
  private collectArrays(c: Cmd): void {
    if (c.kind === 'soac') {
      if (ARRAY_OPS.has(c.op)) this.arrays.set(c.dest, c.ty);
    } else if (c.kind === 'hfused') for (const m of listToArray(c.members)) this.collectArrays(m);
    else for (const d of nodesOfType(c, 'Cmd')) this.collectArrays(d as Cmd);
  }

  private cmd(c: Cmd): void {
    switch (c.kind) {
      case 'assign':
        this.expr(c.rhs);
        if (!this.scalars.has(c.name))
          this.problem('elaborated', c.lbl, `'${clipName(c.name)}' is assigned but is no parameter or local`);
        this.want(c.rhs, this.scalars.get(c.name), `the value assigned to '${clipName(c.name)}'`);
        return;
      case 'store':
        this.expr(c.index);
        this.expr(c.rhs);
        if (!this.arrays.has(c.array))
          this.problem('elaborated', c.lbl, `'${clipName(c.array)}' is stored into but is no array`);
        this.want(c.index, 'int', 'an index');
        this.want(c.rhs, this.arrays.get(c.array), `the value stored into '${clipName(c.array)}'`);
        return;
      case 'seq':
        if (c.first.kind === 'skip' || c.second.kind === 'skip')
          this.problem('seq', c.lbl, 'a statement list holds a skip');
        else if (c.first.kind === 'seq' && this.seqs === 'right-nested')
          this.problem('seq', c.lbl, 'a statement list holds a left-nested seq');
        this.cmd(c.first);
        this.cmd(c.second);
        return;
      case 'return':
        if (c.value.kind === 'some') {
          this.expr(c.value.value);
          this.want(c.value.value, this.f.ret.replace('[]', ''), 'the returned value');
        } else if (this.f.ret !== 'void')
          this.problem('elaborated', c.lbl, `'${this.f.name}' returns no value`);
        return;
      case 'callCmd':
        this.call(c.name, listToArray(c.args), c.lbl);
        return;
      case 'soac':
        this.soac(c);
        return;
      case 'hfused':
        for (const m of listToArray(c.members)) this.soac(m);
        return;
      default:
        // `if`, `while`, `skip` and any kind without rules of its own: its expressions and its
        // sub-commands, in field order (the field table)
        for (const e of nodesOfType(c, 'Expr')) this.expr(e as Expr);
        for (const d of nodesOfType(c, 'Cmd')) this.cmd(d as Cmd);
    }
  }

  private soac(s: Soac): void {
    if (!SOAC_OPS.has(s.op)) this.problem('type', s.lbl, `'${s.op}' is not a combinator`);
    this.scalarType(s.ty, s.lbl);
    const composed = s.op === 'redomap' || s.op === 'scanomap';
    if ((s.comb.kind === 'some') !== composed)
      this.problem('soac', s.lbl, `'${s.op}' ${composed ? 'needs' : 'has'} a combine operator`);
    if ((s.ne.kind === 'some') !== FOLD_OPS.has(s.op))
      this.problem('soac', s.lbl, `'${s.op}' ${FOLD_OPS.has(s.op) ? 'needs' : 'has'} a neutral element`);
    if (s.ne.kind === 'some' && !['var', 'intLit', 'floatLit', 'boolLit'].includes(s.ne.value.kind))
      this.problem('soac', s.lbl, `the neutral element of '${s.op}' is no atom`);
    if (s.ne.kind === 'some') this.expr(s.ne.value);
    if (!ARRAY_OPS.has(s.op) && !this.scalars.has(s.dest))
      this.problem('elaborated', s.lbl, `'${clipName(s.dest)}' is assigned but is no parameter or local`);
    for (const l of s.comb.kind === 'some' ? [s.fn, s.comb.value] : [s.fn]) this.lambda(l);
    for (const a of listToArray(s.args)) {
      if (a.kind === 'argArray') {
        this.scalarType(a.ty, a.lbl);
        this.arrayName(a.name, a.lbl, 'passed to a combinator');
      } else this.expr(a.kind === 'argIota' ? a.len : a.value);
    }
  }

  /** A lambda's rules, its expressions read in its own scope. */
  private lambda(l: Lam): void {
    const scope: Scope = {
      scalars: new Map(),
      arrays: new Map(),
      what: 'parameter or binding of its lambda',
    };
    this.scalarType(l.ret, l.lbl);
    for (const p of listToArray(l.params)) {
      this.scalarType(p.ty, p.lbl);
      (p.isArray ? scope.arrays : scope.scalars).set(p.name, p.ty);
    }
    this.scope = scope;
    try {
      for (const b of listToArray(l.binds)) {
        this.scalarType(b.ty, b.lbl);
        this.expr(b.rhs);
        this.want(b.rhs, b.ty, `the value bound to '${b.name}'`);
        scope.scalars.set(b.name, b.ty);
      }
      this.expr(l.result);
      this.want(l.result, l.ret, 'the result of a lambda');
    } finally {
      this.scope = this.host;
    }
  }

  /** A problem when `name`, read where `how` says, is no array of the scope. */
  private arrayName(name: string, lbl: number, how: string): void {
    if (!this.scope.arrays.has(name))
      this.problem('elaborated', lbl, `'${clipName(name)}' is ${how} but is no array`);
  }

  private call(name: string, args: readonly Expr[], lbl: number): void {
    for (const a of args) this.expr(a);
    const b = builtin(name);
    if (b !== undefined) {
      if (b.params.length !== args.length) {
        this.problem('elaborated', lbl, `'${name}' takes ${b.params.length} argument(s), not ${args.length}`);
        return;
      }
      args.forEach((a, i) => {
        this.want(a, b.params[i], `argument ${i + 1} of '${name}'`);
      });
      return;
    }
    const callee = this.funs.get(name);
    if (callee === undefined) {
      if (this.funs.size > 0 && !this.arrays.has(name))
        this.problem('elaborated', lbl, `'${clipName(name)}' is called but the program has no such function`);
      return;
    }
    const params = listToArray(callee.params);
    if (params.length !== args.length) {
      this.problem('elaborated', lbl, `'${name}' takes ${params.length} arguments, not ${args.length}`);
      return;
    }
    args.forEach((a, i) => {
      this.want(a, params[i]?.ty, `argument ${i + 1} of '${name}'`);
    });
  }

  private expr(e: Expr): void {
    switch (e.kind) {
      case 'binary':
        this.expr(e.left);
        this.expr(e.right);
        this.binary(e);
        return;
      case 'unary':
      case 'cast':
        this.scalarType(e.ty, e.lbl);
        this.expr(e.arg);
        return;
      case 'load':
        this.scalarType(e.ty, e.lbl);
        this.arrayName(e.array, e.lbl, 'loaded from');
        this.expr(e.index);
        this.want(e.index, 'int', 'an index');
        return;
      case 'call':
        this.scalarType(e.ty, e.lbl);
        this.call(e.name, listToArray(e.args), e.lbl);
        return;
      case 'ternary':
        this.scalarType(e.ty, e.lbl);
        for (const x of [e.cond, e.thenExpr, e.elseExpr]) this.expr(x);
        this.want(e.thenExpr, e.ty, 'a branch of ?:');
        this.want(e.elseExpr, e.ty, 'a branch of ?:');
        return;
      case 'var':
        this.scalarType(e.ty, e.lbl);
        if (!this.scope.scalars.has(e.name))
          this.problem('elaborated', e.lbl, `'${clipName(e.name)}' is read but is no ${this.scope.what}`);
        return;
      case 'arrayRef':
        this.scalarType(e.ty, e.lbl);
        this.arrayName(e.name, e.lbl, 'passed by name');
        return;
      case 'intLit':
      case 'floatLit':
      case 'boolLit':
        return;
    }
  }

  private binary(e: Binary): void {
    this.scalarType(e.ty, e.lbl);
    const l = exprType(e.left);
    const r = exprType(e.right);
    if (ARITH.has(e.op)) {
      if (l !== e.ty || r !== e.ty)
        this.problem('elaborated', e.lbl, `operands of '${e.op}' are ${l} and ${r}, expected ${e.ty}`);
    } else if (COMPARE.has(e.op)) {
      if (l !== r) this.problem('elaborated', e.lbl, `operands of '${e.op}' are ${l} and ${r}`);
      if (e.ty !== 'int') this.problem('elaborated', e.lbl, `'${e.op}' gives ${e.ty}, expected int`);
    } else if (e.op === '&&' || e.op === '||') {
      if (e.ty !== 'int') this.problem('elaborated', e.lbl, `'${e.op}' gives ${e.ty}, expected int`);
    } else this.problem('type', e.lbl, `'${e.op}' is not a binary operator`);
  }
}

/** A name as a problem shows it: at most 60 characters, control characters escaped. */
function clipName(name: string): string {
  return clip(name, 60);
}
