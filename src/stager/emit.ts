/**
 * The code emitter: a residual Core SCF program becomes a readable, fast JavaScript ES module —
 * the `*.staged.mjs` of SCF §2.2 (Fig. 4's ".staged.scf-ml" files; Fig. 7 shows what such code looks
 * like: one straight-line fragment per input node, case tests folded away).
 *
 * Algorithm. One JavaScript function per Core function reachable from the entry, compiled by one
 * walk that knows whether the expression is in *tail* position (it becomes statements ending in
 * `return`), is the value of a `let` (a `const`), or is an operand (a JavaScript expression):
 * - `let x = e1 in e2` ⇒ `const x = e1;` then `e2`; lets nested in operands are hoisted to the
 *   statement before (Core is pure, so only the order of errors could change, never a value);
 * - `if` in tail position ⇒ `if (…) { … return … } else if (…) { … }`; elsewhere a conditional
 *   expression, `c && e` for `if c then e else false`, `c || e` for `if c then true else e`, and
 *   a `let` temporary assigned in both branches when a branch needs statements (lets are never
 *   hoisted out of a branch: the branch not taken may not terminate). No IIFEs;
 * - `c? x` ⇒ `x.kind === 'c'`, `#n? x` ⇒ `isTuple(x, n)`; `c⁻ᵏ x` ⇒ `x.field`, `#n⁻ᵏ x` ⇒ `x[k-1]`;
 *   `c(e…)` ⇒ `{ kind: 'c', field: e, … }` (fields in declaration order), `#n(e…)` ⇒ `[e, …]`;
 * - operators ⇒ the JavaScript operators of their `prims.ts` implementations (`eq` ⇒ `===`,
 *   `mod` ⇒ `%`, `shr` ⇒ `>>`), everything else ⇒ the prelude function the primitive *is*
 *   (`imul`, `equal`, `mapInsert`, `setHas`, …), imported by name;
 * - a `lit` holding a non-primitive value (the partial evaluator folds known constructor trees,
 *   tuples, maps and sets into one literal) ⇒ a module-level constant built once, with the same
 *   shape (objects `kind` first, fields in declaration order; maps and sets in their iteration
 *   order), so every run shares it as the interpreter shares the literal; parts nested deeper
 *   than 48 levels become constants of their own (JavaScript parsers limit nesting);
 * - `not` of a kind test or (in)equality ⇒ `x.kind !== 'c'`, `a !== b`, `a === b` (exact);
 * - a function that calls itself in tail position (`callsSelfInTail`: through `if` branches and
 *   `let` bodies, as `stmts` walks them) ⇒ its body inside `for (;;) { … }`, each such call ⇒ the
 *   parameters rebound to the arguments' values and `continue` (`rebind`), so the recursion runs
 *   in constant stack as in the interpreter; no boolean shortcut (`c || f(…)`) is taken around
 *   one. Every other function, and every other call, is emitted as it would be without this:
 *   calls to other functions stay calls (mutual tail recursion takes a frame per call).
 *
 * With `admission`, the module also exports the input checker `admit-emit.ts` emits for it.
 *
 * Exactness (the contract tests check: emitted ≡ Core interpreter ≡ native optimizer).
 * - A condition is compared `=== true` (as the interpreter does) unless it is known boolean:
 *   a test, comparison, `not`, `equal`, `has`, `subset`, a boolean literal, a `let`-bound or
 *   `if` of those, or a call of a function all of whose results are (greatest fixpoint).
 * - Projections are not checked: a well-typed program never projects the wrong constructor (the
 *   front end only lowers a field read after narrowing). `checked: true` emits checked ones.
 *
 * Names. Core names (`dae.daeCmd`, `%t0`, residual variants with `@`, `#`, `$`) are sanitized;
 * a function gets the part after its module unless two collide (then `module_name`); the entry
 * is named `exportName`. Locals never take a reserved word, a global the code uses, an import,
 * a constant (`K0`…) or a function name, so nothing is shadowed.
 *
 * Types. The module is plain JavaScript (it runs under node and bundlers with no TypeScript
 * loader) and carries no annotations: Core is untyped, and residual code is type-correct by
 * construction rather than in a way TypeScript infers. `scf stage` writes a `.d.mts` beside it;
 * the staging stub's declarations give the pipeline its real types.
 */
import { assertNever, commentText, jsString } from '../common/index.js';
import { Map as IMap, Set as ISet } from 'immutable';
import type { AbsValue, CtorTable } from '../abstract-values/index.js';
import {
  coreChildren,
  type CtorDecl,
  type CoreExpr,
  type FunDef,
  forEachExpr,
  type CoreProgram,
  programSize,
} from '../scf-lang/index.js';
import { BOOL_PRIMS, type PrimOp } from '../scf-lang/index.js';
import { showValue } from '../scf-lang/index.js';
import { ADMISSION_RUNTIME_IMPORTS, emitAdmission } from './admit-emit.js';
import { freeVars } from './outline.js';

export interface EmitOptions {
  /** Core name of the entry function (`dae.optimize`). */
  readonly entry: string;
  /** Name the entry is exported under (`optimize`); the module also exports `meta`. */
  readonly exportName: string;
  /** A comment placed at the top of the module. */
  readonly header?: string;
  /** Core function name → comment placed above that function (e.g. which input node it handles). */
  readonly comments?: ReadonlyMap<string, string>;
  /** Module specifiers of the prelude (`scf/prelude`) and of `scf-lang/staged-helpers.ts` (`scf/runtime`). */
  readonly imports: { readonly prelude: string; readonly runtime: string };
  /**
   * `'module'` (default): an ES module. `'function'`: the body of a function of one parameter,
   * `$scf` (an object holding the prelude and runtime functions the module would import), that
   * returns the entry — for `new Function('$scf', body)`, to run a Core program natively in the
   * running process (a user's optimizer, src/optimizers/user.ts). No admission in this form.
   */
  readonly form?: 'module' | 'function';
  /** Emit checked projections that throw `StagedRuntimeError` on the wrong constructor (debugging). */
  readonly checked?: boolean;
  /**
   * Also emit (and export) the admission checker for this description (see `admit-emit.ts`), named
   * `name` (default `admit`); `ctors` defaults to the program's constructors.
   */
  readonly admission?: {
    readonly desc: readonly AbsValue[];
    readonly name?: string;
    readonly ctors?: CtorTable;
  };
}

/** Sizes of an emitted module, also exported by it as `meta`. */
export interface EmitMeta {
  readonly entry: string;
  /** Functions emitted (those reachable from the entry). */
  readonly functions: number;
  /** Core nodes in those functions. */
  readonly coreNodes: number;
  /** Hoisted constants. */
  readonly constants: number;
}

/** A function of emitted code: its own line, at column 0 (`export ` first in a module). */
const FUNCTION_LINE = /^(?:export )?function ([A-Za-z_$][\w$]*)\(.*\) \{$/;
/** The first line of a function emitted as a loop (its self tail calls `continue` it). */
const LOOP_LINE = '  for (;;) {';

/**
 * `code`, written by `emitModule`, with the statement `charge` first in every function whose name
 * `counted` accepts — first in its loop, for a function emitted as a loop, so that a self tail
 * call is charged as any call is. What a user's pass (optimizers/user.ts) and a staged entry
 * (pipeline/stage-entry.ts) count their fuel with. Throws an internal error when a function is
 * not where this expects it, or none is counted.
 */
export function chargeEachCall(
  code: string,
  charge: string,
  counted: (name: string) => boolean = () => true,
): string {
  // lines split at '\n' only: the emitter ends lines with it, and string literals hold none
  const lines = code.split('\n');
  const out: string[] = [];
  let charged = 0;
  let misplaced = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    out.push(line);
    if (!line.startsWith('function ') && !line.startsWith('export function ')) continue;
    const m = FUNCTION_LINE.exec(line);
    if (!m) {
      misplaced = true;
      continue;
    }
    if (!counted(m[1] as string)) continue;
    charged++;
    if (lines[i + 1] === LOOP_LINE) {
      out.push(LOOP_LINE);
      i++;
      out.push(`    ${charge}`);
    } else out.push(`  ${charge}`);
  }
  if (charged === 0 || misplaced)
    throw new Error("internal error: the emitter's functions are not where the fuel counter expects them");
  return out.join('\n');
}

/** The JavaScript module for `program`, exporting `opts.exportName` (= the entry) and `meta`. */
export function emitModule(program: CoreProgram, opts: EmitOptions): string {
  return new ModuleEmitter(program, opts).emit();
}

// ---- names ---------------------------------------------------------------------------------

const RESERVED = new Set(
  (
    'break case catch class const continue debugger default delete do else enum export extends false ' +
    'finally for function if import in instanceof new null return super switch this throw true try ' +
    'typeof var void while with yield let static implements interface package private protected ' +
    'public await async of get set as any unknown never type declare module namespace keyof ' +
    'readonly infer is satisfies abstract ' +
    // globals emitted code (or readers) rely on
    'undefined NaN Infinity Array Object Number String Boolean Math Map Set Error JSON Symbol ' +
    'globalThis arguments eval constructor prototype __proto__ meta'
  ).split(' '),
);

/** The prelude function each non-operator primitive is (see `prims.ts`). */
const PRELUDE_OF: Partial<Record<PrimOp, string>> = {
  imul: 'imul',
  fround: 'fround',
  trunc: 'trunc',
  floor: 'floor',
  sqrt: 'sqrt',
  abs: 'abs',
  min: 'min',
  max: 'max',
  cmath: 'cmath',
  num_to_string: 'numToString',
  str_length: 'strLength',
  char_code_at: 'charCodeAt',
  char_at: 'charAt',
  substring: 'substring',
  equal: 'equal',
  map_empty: 'mapEmpty',
  map_insert: 'mapInsert',
  map_find: 'mapFind',
  map_delete: 'mapDelete',
  map_has: 'mapHas',
  map_size: 'mapSize',
  map_keys: 'mapKeys',
  set_empty: 'setEmpty',
  set_singleton: 'setSingleton',
  set_add: 'setAdd',
  set_delete: 'setDelete',
  set_has: 'setHas',
  set_union: 'setUnion',
  set_intersect: 'setIntersect',
  set_diff: 'setDiff',
  set_size: 'setSize',
  set_subset: 'setSubset',
  set_to_list: 'setToList',
};

/** Binary operators: JavaScript operator and precedence (higher binds tighter). */
const BINARY: Partial<Record<PrimOp, readonly [string, number]>> = {
  mul: ['*', 13],
  div: ['/', 13],
  mod: ['%', 13],
  add: ['+', 12],
  sub: ['-', 12],
  concat: ['+', 12],
  shl: ['<<', 11],
  shr: ['>>', 11],
  ushr: ['>>>', 11],
  lt: ['<', 10],
  le: ['<=', 10],
  gt: ['>', 10],
  ge: ['>=', 10],
  eq: ['===', 9],
  ne: ['!==', 9],
  bitand: ['&', 8],
  bitxor: ['^', 7],
  bitor: ['|', 6],
};

const UNARY: Partial<Record<PrimOp, string>> = { neg: '-', bitnot: '~', not: '!' };

const RUNTIME_HELPERS = ['mapOf', 'setOf', 'isTuple', 'projField', 'projIndex', 'tupleWith'] as const;

/** An identifier made of a Core name's letters (`%t0` → `t0`, `daeCmd@2` → `daeCmd_2`). */
function sanitize(name: string): string {
  let s = name.replace(/^[^A-Za-z_$]+(?=[A-Za-z_$])/, '').replace(/[^A-Za-z0-9_$]/g, '_');
  if (s === '' || /^[0-9]/.test(s)) s = `_${s}`;
  return s;
}

function isIdent(s: string): boolean {
  return /^[A-Za-z_$][\w$]*$/.test(s) && !RESERVED.has(s);
}

// ---- literals --------------------------------------------------------------------------------

/** A JavaScript expression (with its precedence) for a primitive value. */
function primLit(v: number | string | boolean): Js {
  if (typeof v === 'string') return { code: jsString(v), prec: PRIMARY, bool: false };
  if (typeof v === 'boolean') return { code: String(v), prec: PRIMARY, bool: true };
  if (Number.isNaN(v)) return { code: 'NaN', prec: PRIMARY, bool: false };
  if (v === Number.POSITIVE_INFINITY) return { code: 'Infinity', prec: PRIMARY, bool: false };
  if (v === Number.NEGATIVE_INFINITY) return { code: '-Infinity', prec: UNARY_PREC, bool: false };
  if (Object.is(v, -0)) return { code: '-0', prec: UNARY_PREC, bool: false };
  return { code: String(v), prec: v < 0 ? UNARY_PREC : NUMBER, bool: false };
}

// ---- JavaScript expressions with precedence ---------------------------------------------------

interface Js {
  readonly code: string;
  /** JavaScript precedence of the outermost operator (PRIMARY for atoms). */
  readonly prec: number;
  /** Known to evaluate to a boolean. */
  readonly bool: boolean;
}

const PRIMARY = 20;
/** A numeric literal: an atom, except that `5.x` does not parse. */
const NUMBER = 17;
const MEMBER = 18;
const UNARY_PREC = 15;
const COND = 3;

function wrap(e: Js, min: number): string {
  return e.prec >= min ? e.code : `(${e.code})`;
}

/** `x` as the base of a member access or call. */
function base(e: Js): string {
  return wrap(e, MEMBER);
}

function prop(name: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(name) && name !== '__proto__' ? `.${name}` : `[${jsString(name)}]`;
}

function objKey(name: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(name) && name !== '__proto__' ? name : jsString(name);
}

// ---- the module --------------------------------------------------------------------------------

type Sink = { readonly k: 'return' } | { readonly k: 'assign'; readonly name: string };
const RETURN: Sink = { k: 'return' };

class ModuleEmitter {
  private readonly funs: FunDef[];
  private readonly fnName = new Map<string, string>();
  private readonly reserved = new Set<string>(RESERVED);
  private readonly preludeUsed = new Set<string>();
  private readonly runtimeUsed = new Set<string>();
  private readonly constName = new Map<unknown, string>();
  private readonly constDecls: string[] = [];
  /** Functions all of whose results are booleans (greatest fixpoint). */
  private readonly boolFuns = new Set<string>();
  private readonly hasLetCache = new WeakMap<CoreExpr, boolean>();
  private readonly admitName: string | undefined;

  constructor(
    private readonly program: CoreProgram,
    private readonly opts: EmitOptions,
  ) {
    const entry = program.funs.get(opts.entry);
    if (entry === undefined) throw new Error(`emitModule: no function '${opts.entry}'`);
    if (!/^[A-Za-z_$][\w$]*$/.test(opts.exportName)) {
      throw new Error(`emitModule: export name '${opts.exportName}' is not an identifier`);
    }
    this.funs = reachable(program, entry);
    this.admitName = opts.admission ? (opts.admission.name ?? 'admit') : undefined;
    if (opts.exportName === 'meta' || opts.exportName === this.admitName) {
      throw new Error(`emitModule: export name '${opts.exportName}' is taken by the module's own exports`);
    }
    for (const n of Object.values(PRELUDE_OF)) this.reserved.add(n as string);
    for (const n of RUNTIME_HELPERS) this.reserved.add(n);
    if (this.admitName !== undefined) {
      for (const n of ADMISSION_RUNTIME_IMPORTS) this.reserved.add(n);
      this.reserved.add(this.admitName);
    }
    this.nameFunctions(entry);
    this.inferBoolFuns();
  }

  private isFree(name: string): boolean {
    if (this.reserved.has(name)) return false;
    if (/^K\d+$/.test(name)) return false; // constants
    if (this.admitName !== undefined && name.startsWith(`${this.admitName}_`)) return false;
    return true;
  }

  private nameFunctions(entry: FunDef): void {
    let entryName = this.opts.exportName;
    // a reserved word (`default`) is exported under its name from a local binding `default_`
    for (let i = 1; !isIdent(entryName) || !this.isFree(entryName); i++) {
      entryName = `${sanitize(this.opts.exportName)}_${i === 1 ? '' : i}`;
    }
    this.fnName.set(entry.name, entryName);
    this.reserved.add(entryName);
    const short = (f: FunDef) => {
      const dot = f.name.indexOf('.');
      return sanitize(dot >= 0 ? f.name.slice(dot + 1) : f.name);
    };
    const counts = new Map<string, number>();
    for (const f of this.funs) if (f !== entry) counts.set(short(f), (counts.get(short(f)) ?? 0) + 1);
    for (const f of this.funs) {
      if (f === entry) continue;
      let name = short(f);
      if ((counts.get(name) ?? 0) > 1 || !this.isFree(name)) name = sanitize(f.name);
      let n = name;
      for (let i = 2; !this.isFree(n); i++) n = `${name}_${i}`;
      this.fnName.set(f.name, n);
      this.reserved.add(n);
    }
  }

  /**
   * The functions that return only booleans: the greatest fixpoint, from all of them, with a
   * worklist — a function found not to return a boolean puts its callers back on it — so a chain
   * of n functions costs O(n) checks, not the O(n²) of sweeping all functions until none changes.
   */
  private inferBoolFuns(): void {
    const byName = new Map<string, FunDef>();
    const callers = new Map<string, FunDef[]>();
    for (const f of this.funs) {
      this.boolFuns.add(f.name);
      byName.set(f.name, f);
      for (const callee of callsIn(f.body)) {
        const cs = callers.get(callee);
        if (cs === undefined) callers.set(callee, [f]);
        else cs.push(f);
      }
    }
    const work = [...this.funs];
    for (let f = work.pop(); f !== undefined; f = work.pop()) {
      if (!this.boolFuns.has(f.name) || this.returnsBool(f.body, new Set())) continue;
      this.boolFuns.delete(f.name);
      for (const c of callers.get(f.name) ?? []) if (this.boolFuns.has(c.name)) work.push(c);
    }
  }

  /** Whether every value `e` can return is a boolean (`boolVars`: let-bound booleans in scope). */
  private returnsBool(e: CoreExpr, boolVars: ReadonlySet<string>): boolean {
    switch (e.kind) {
      case 'lit':
        return typeof e.value === 'boolean';
      case 'var':
        return boolVars.has(e.name);
      case 'test':
        return true;
      case 'prim':
        return BOOL_PRIMS.has(e.op);
      case 'call':
        return this.boolFuns.has(e.fn);
      case 'if':
        return this.returnsBool(e.then, boolVars) && this.returnsBool(e.else, boolVars);
      case 'let': {
        const inner = new Set(boolVars);
        let x: CoreExpr = e;
        while (x.kind === 'let') {
          if (this.returnsBool(x.value, inner)) inner.add(x.name);
          else inner.delete(x.name);
          x = x.body;
        }
        return this.returnsBool(x, inner);
      }
      case 'con':
      case 'proj':
        return false;
      default:
        return assertNever(e);
    }
  }

  emit(): string {
    const fns = this.funs.map((f) => this.emitFun(f));
    const parts: string[] = [];
    parts.push(this.headerText());
    const imports = this.importLines();
    if (imports.length > 0) parts.push(imports.join('\n'));
    if (this.constDecls.length > 0) parts.push(this.constDecls.join('\n'));
    parts.push(...fns);
    const entryJs = this.fnName.get(this.opts.entry) as string;
    if (this.opts.form === 'function') {
      parts.push(`return ${entryJs};`);
      return `${parts.join('\n\n')}\n`;
    }
    if (entryJs !== this.opts.exportName) parts.push(`export { ${entryJs} as ${this.opts.exportName} };`);
    const adm = this.opts.admission;
    if (adm !== undefined && this.admitName !== undefined) {
      parts.push(
        emitAdmission(adm.desc, {
          name: this.admitName,
          ctors: adm.ctors ?? this.program.ctors,
          exported: true,
        }),
      );
    }
    const meta: EmitMeta = {
      entry: this.opts.entry,
      functions: this.funs.length,
      coreNodes: programSize({ ...this.program, funs: new Map(this.funs.map((f) => [f.name, f])) }),
      constants: this.constDecls.length,
    };
    parts.push(
      `/** Sizes of this module. */\nexport const meta = {\n` +
        `  entry: ${jsString(meta.entry)},\n  functions: ${meta.functions},\n` +
        `  coreNodes: ${meta.coreNodes},\n  constants: ${meta.constants},\n};`,
    );
    return `${parts.join('\n\n')}\n`;
  }

  private headerText(): string {
    const lines = [
      `Generated by scf (src/stager/emit.ts) from Core SCF, entry ${this.opts.entry}. Do not edit.`,
      '',
      ...(this.opts.header !== undefined ? [...this.opts.header.split('\n'), ''] : []),
      'Values are SCF-lang native values (constructor objects, arrays, Immutable maps and sets).',
      'Plain JavaScript without types: Core is untyped, and the code is type-correct by construction',
      '(the front end checked the optimizer), not in a way TypeScript infers — a variable may hold',
      'either of two constructors that TypeScript would see as unrelated object types.',
    ];
    const body = lines.map((l) => ` *${l === '' ? '' : ` ${commentText(l, 1000)}`}`);
    return `/**\n${body.join('\n')}\n */`;
  }

  private importLines(): string[] {
    const out: string[] = [];
    const prelude = [...this.preludeUsed].sort();
    const runtime = new Set(this.runtimeUsed);
    if (this.admitName !== undefined) for (const n of ADMISSION_RUNTIME_IMPORTS) runtime.add(n);
    const { prelude: preludeFrom, runtime: runtimeFrom } = this.opts.imports;
    if (this.opts.form === 'function') {
      const all = [...new Set([...prelude, ...runtime])].sort();
      if (all.length > 0) out.push(`const { ${all.join(', ')} } = $scf;`);
      return out;
    }
    if (preludeFrom === runtimeFrom) {
      // one module (`scf/runtime`) provides both
      const all = [...new Set([...prelude, ...runtime])].sort();
      if (all.length > 0) out.push(`import { ${all.join(', ')} } from ${jsString(runtimeFrom)};`);
      return out;
    }
    if (prelude.length > 0) out.push(`import { ${prelude.join(', ')} } from ${jsString(preludeFrom)};`);
    if (runtime.size > 0) {
      out.push(`import { ${[...runtime].sort().join(', ')} } from ${jsString(runtimeFrom)};`);
    }
    return out;
  }

  // -- constants

  /** The name of a module-level constant holding `v` (a non-primitive literal). */
  private constant(v: unknown): string {
    const known = this.constName.get(v);
    if (known !== undefined) return known;
    const code = this.serialize(v, 0);
    const name = `K${this.constDecls.length}`;
    this.constName.set(v, name);
    this.constDecls.push(`const ${name} = ${code}; // ${oneLine(v)}`);
    return name;
  }

  /** Source that rebuilds `v`; nesting past 48 levels moves into its own constant (parser depth). */
  private serialize(v: unknown, depth: number): string {
    if (typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean') return primLit(v).code;
    if (depth > 48) return this.constant(v);
    const sub = (x: unknown) => this.serialize(x, depth + 1);
    if (Array.isArray(v)) return `[${v.map(sub).join(', ')}]`;
    if (IMap.isMap(v)) {
      this.runtimeUsed.add('mapOf');
      const entries = [...(v as IMap<unknown, unknown>)].map(([k, x]) => `[${sub(k)}, ${sub(x)}]`);
      return `mapOf([${entries.join(', ')}])`;
    }
    if (ISet.isSet(v)) {
      this.runtimeUsed.add('setOf');
      return `setOf([${[...(v as ISet<unknown>)].map(sub).join(', ')}])`;
    }
    if (typeof v === 'object' && v !== null && typeof (v as { kind?: unknown }).kind === 'string') {
      const o = v as Record<string, unknown>;
      const decl = this.program.ctors.get(o.kind as string);
      const keys = Object.keys(o).filter((k) => k !== 'kind');
      const order = decl
        ? [...decl.fields.filter((f) => f in o), ...keys.filter((k) => !decl.fields.includes(k))]
        : keys;
      const fields = order.map((f) => `${objKey(f)}: ${sub(o[f])}`);
      return `{ kind: ${jsString(o.kind as string)}${fields.map((f) => `, ${f}`).join('')} }`;
    }
    throw new Error(`emitModule: literal ${String(v)} is not an SCF-lang value`);
  }

  // -- functions

  private emitFun(f: FunDef): string {
    const loops = callsSelfInTail(f.name, f.body);
    const scope = new FunScope(this, loops ? f.name : undefined);
    const params = f.params.map((p) => scope.declare(p));
    scope.params = params;
    const out: string[] = [];
    let env = new Map<string, Local>();
    f.params.forEach((p, i) => {
      env = new Map(env).set(p, { js: params[i] as string, bool: false });
    });
    if (loops) {
      // a self tail call rebinds the parameters and goes round again: constant stack
      out.push('  for (;;) {');
      this.stmts(f.body, env, scope, out, '    ', RETURN);
      out.push('  }');
    } else {
      this.stmts(f.body, env, scope, out, '  ', RETURN);
    }
    const name = this.fnName.get(f.name) as string;
    const doc: string[] = [`// ${commentText(f.name)}`];
    const comment = this.opts.comments?.get(f.name);
    if (comment !== undefined) for (const l of comment.split('\n')) doc.push(`// ${commentText(l)}`);
    const exported =
      this.opts.form !== 'function' && f.name === this.opts.entry && name === this.opts.exportName
        ? 'export '
        : '';
    const sig = `${exported}function ${name}(${params.join(', ')}) {`;
    return [...doc, sig, ...out, '}'].join('\n');
  }

  /** Whether `e` contains a `let` (then it needs statements, not just an expression). */
  private hasLet(e: CoreExpr): boolean {
    const cached = this.hasLetCache.get(e);
    if (cached !== undefined) return cached;
    const found = e.kind === 'let' || coreChildren(e).some((c) => this.hasLet(c));
    this.hasLetCache.set(e, found);
    return found;
  }

  /** Statements computing `e` into `sink` (a `return`, or an assignment to a declared temporary). */
  private stmts(e0: CoreExpr, env0: Env, scope: FunScope, out: string[], ind: string, sink: Sink): void {
    let e = e0;
    let env = env0;
    // let chains (long in residual code: one binding per input node, as in Fig. 7) iteratively
    for (;;) {
      if (e.kind === 'let') {
        env = this.bind(e.name, e.value, env, scope, out, ind);
        e = e.body;
      } else if (e.kind === 'if' && e.cond.kind === 'lit') {
        e = e.cond.value === true ? e.then : e.else; // if true then a else b  =>  a
      } else break;
    }
    const loopsHere = sink.k === 'return' && scope.loop !== undefined;
    if (e.kind !== 'if') {
      if (loopsHere && e.kind === 'call' && e.fn === scope.loop) {
        this.rebind(e, env, scope, out, ind);
        return;
      }
      out.push(finish(ind, sink, this.expr(e, env, scope, out, ind)));
      return;
    }
    // `return c && e` reads well; `return c || (if …)` does not: keep if/else chains as statements
    // (and an `if` whose branches loop, as `continue` is a statement)
    const shape = this.boolFormShape(e);
    const chain = (shape === 'and' && e.then.kind === 'if') || (shape === 'or' && e.else.kind === 'if');
    const loopsIn = loopsHere && callsSelfInTail(scope.loop as string, e);
    const bool = chain || loopsIn ? undefined : this.boolForm(e, env, scope, out, ind);
    if (bool !== undefined) {
      out.push(finish(ind, sink, bool));
      return;
    }
    let c = cond(this.expr(e.cond, env, scope, out, ind));
    out.push(`${ind}if (${c.code}) {`);
    this.stmts(e.then, env, scope, out, `${ind}  `, sink);
    // else-if chains while the next condition needs no statements
    let rest = e.else;
    while (
      rest.kind === 'if' &&
      rest.cond.kind !== 'lit' &&
      !this.hasLet(rest.cond) &&
      (!this.isBoolForm(rest) || (loopsHere && callsSelfInTail(scope.loop as string, rest)))
    ) {
      c = cond(this.expr(rest.cond, env, scope, out, ind));
      out.push(`${ind}} else if (${c.code}) {`);
      this.stmts(rest.then, env, scope, out, `${ind}  `, sink);
      rest = rest.else;
    }
    out.push(`${ind}} else {`);
    this.stmts(rest, env, scope, out, `${ind}  `, sink);
    out.push(`${ind}}`);
  }

  /**
   * A self tail call in a function emitted as a loop: the parameters take the arguments' values,
   * then `continue`. An argument that reads another parameter being rebound, or whose parameter
   * another argument reads, goes through a `const` first, so all of them read the old values:
   * `count(n - step, step, acc + n % 7)` ⇒ `const n_2 = n - step; const acc_2 = acc + n % 7;
   * n = n_2; acc = acc_2; continue;` (`step` unchanged), `run(pc + 1, fuel - 1)` ⇒ `pc = pc + 1;
   * fuel = fuel - 1; continue;`.
   */
  private rebind(
    e: Extract<CoreExpr, { kind: 'call' }>,
    env: Env,
    scope: FunScope,
    out: string[],
    ind: string,
  ): void {
    const params = scope.params;
    const args = e.args.map((a) => this.expr(a, env, scope, out, ind).code);
    const changed = params.flatMap((p, i) => (args[i] === p ? [] : [i]));
    // the parameters (by their JavaScript names) each changed argument reads
    const reads = new Map<number, Set<string>>();
    for (const i of changed) {
      const names = new Set<string>();
      for (const x of freeVars(e.args[i] as CoreExpr)) {
        const local = env.get(x);
        if (local !== undefined) names.add(local.js);
      }
      reads.set(i, names);
    }
    const direct = (i: number) =>
      changed.every(
        (j) =>
          j === i ||
          (!(reads.get(i) as Set<string>).has(params[j] as string) &&
            !(reads.get(j) as Set<string>).has(params[i] as string)),
      );
    const value = new Map<number, string>();
    for (const i of changed) {
      if (direct(i)) value.set(i, args[i] as string);
      else {
        const t = scope.declare(params[i] as string);
        out.push(`${ind}const ${t} = ${args[i]};`);
        value.set(i, t);
      }
    }
    for (const i of changed) out.push(`${ind}${params[i]} = ${value.get(i)};`);
    out.push(`${ind}continue;`);
  }

  /** `let name = value`: a `const`, or a `let` assigned in the branches of an `if` that needs statements. */
  private bind(name: string, value0: CoreExpr, env0: Env, scope: FunScope, out: string[], ind: string): Env {
    let value = value0;
    let env = env0;
    // let x = (let y = a in b) in …  =>  const y = a; const x = b;
    while (value.kind === 'let') {
      env = this.bind(value.name, value.value, env, scope, out, ind);
      value = value.body;
    }
    const bool = this.returnsBool(value, boolVarsOf(env));
    const js = scope.declare(name);
    if (
      value.kind === 'if' &&
      value.cond.kind !== 'lit' &&
      (this.hasLet(value.then) || this.hasLet(value.else))
    ) {
      out.push(`${ind}let ${js};`);
      this.stmts(value, env, scope, out, ind, { k: 'assign', name: js });
    } else {
      const v = this.expr(value, env, scope, out, ind);
      out.push(`${ind}const ${js} = ${v.code};`);
    }
    return new Map(env).set(name, { js, bool });
  }

  /** Whether `stmts` prints this `if` as one boolean expression (`c && e`, `c || e`, `!c`, `c`). */
  private isBoolForm(e: Extract<CoreExpr, { kind: 'if' }>): boolean {
    const shape = this.boolFormShape(e);
    if (shape === 'and') return e.then.kind !== 'if';
    if (shape === 'or') return e.else.kind !== 'if';
    return shape !== undefined;
  }

  /** Which boolean shortcut an `if` has, judged on its shape alone. */
  private boolFormShape(e: Extract<CoreExpr, { kind: 'if' }>): 'id' | 'not' | 'and' | 'or' | undefined {
    const t = e.then.kind === 'lit' ? e.then.value : undefined;
    const f = e.else.kind === 'lit' ? e.else.value : undefined;
    if (t === true && f === false) return 'id';
    if (t === false && f === true) return 'not';
    if (f === false && !this.hasLet(e.then)) return 'and';
    if (t === true && !this.hasLet(e.else)) return 'or';
    return undefined;
  }

  /**
   * `if c then true else false` ⇒ `c`; `… then false else true` ⇒ `!c`; `if c then e else false`
   * ⇒ `c && e`; `if c then true else e` ⇒ `c || e` (c a boolean; otherwise `c === true`).
   */
  private boolForm(
    e: Extract<CoreExpr, { kind: 'if' }>,
    env: Env,
    scope: FunScope,
    out: string[],
    ind: string,
  ): Js | undefined {
    const shape = this.boolFormShape(e);
    if (shape === undefined) return undefined;
    const c = cond(this.expr(e.cond, env, scope, out, ind));
    switch (shape) {
      case 'id':
        return c;
      case 'not':
        return { code: `!${wrap(c, UNARY_PREC)}`, prec: UNARY_PREC, bool: true };
      case 'and': {
        const t = this.expr(e.then, env, scope, out, ind);
        // && and || are associative (in value and in evaluation): no parentheses on the right
        return { code: `${wrap(c, 5)} && ${wrap(t, 5)}`, prec: 5, bool: t.bool };
      }
      case 'or': {
        const f = this.expr(e.else, env, scope, out, ind);
        return { code: `${wrap(c, 4)} || ${wrap(f, 4)}`, prec: 4, bool: f.bool };
      }
      default:
        return assertNever(shape);
    }
  }

  /** A JavaScript expression for `e`; statements it needs first (hoisted lets) go to `out`. */
  private expr(e: CoreExpr, env: Env, scope: FunScope, out: string[], ind: string): Js {
    switch (e.kind) {
      case 'var': {
        const local = env.get(e.name);
        if (local === undefined) throw new Error(`emitModule: unbound variable '${e.name}'`);
        return { code: local.js, prec: PRIMARY, bool: local.bool };
      }
      case 'lit': {
        const v = e.value;
        if (typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean') return primLit(v);
        return { code: this.constant(v), prec: PRIMARY, bool: false };
      }
      case 'con': {
        const decl = this.ctor(e.ctor);
        const args = e.args.map((a) => this.expr(a, env, scope, out, ind));
        if (decl.repr === 'tuple')
          return { code: `[${args.map((a) => a.code).join(', ')}]`, prec: PRIMARY, bool: false };
        const fields = args.map((a, i) => {
          const key = objKey(decl.fields[i] as string);
          return key === a.code ? `, ${key}` : `, ${key}: ${a.code}`; // { body: body } => { body }
        });
        return { code: `{ kind: ${jsString(decl.name)}${fields.join('')} }`, prec: PRIMARY, bool: false };
      }
      case 'test': {
        const decl = this.ctor(e.ctor);
        const x = this.expr(e.arg, env, scope, out, ind);
        if (decl.repr === 'tuple') {
          this.runtimeUsed.add('isTuple');
          return { code: `isTuple(${x.code}, ${decl.fields.length})`, prec: MEMBER, bool: true };
        }
        return { code: `${base(x)}.kind === ${jsString(decl.name)}`, prec: 9, bool: true };
      }
      case 'proj': {
        const decl = this.ctor(e.ctor);
        const x = this.expr(e.arg, env, scope, out, ind);
        const field = decl.fields[e.index];
        if (field === undefined)
          throw new Error(`emitModule: constructor '${e.ctor}' has no field ${e.index}`);
        if (this.opts.checked) {
          if (decl.repr === 'tuple') {
            this.runtimeUsed.add('projIndex');
            return {
              code: `projIndex(${x.code}, ${jsString(decl.name)}, ${e.index})`,
              prec: MEMBER,
              bool: false,
            };
          }
          this.runtimeUsed.add('projField');
          return {
            code: `projField(${x.code}, ${jsString(decl.name)}, ${jsString(field)})`,
            prec: MEMBER,
            bool: false,
          };
        }
        if (decl.repr === 'tuple') return { code: `${base(x)}[${e.index}]`, prec: MEMBER, bool: false };
        return { code: `${base(x)}${prop(field)}`, prec: MEMBER, bool: false };
      }
      case 'if': {
        if (e.cond.kind === 'lit')
          return this.expr(e.cond.value === true ? e.then : e.else, env, scope, out, ind);
        if (this.hasLet(e.then) || this.hasLet(e.else)) {
          // a branch needs statements: a temporary assigned in both branches
          const t = scope.temp();
          out.push(`${ind}let ${t};`);
          this.stmts(e, env, scope, out, ind, { k: 'assign', name: t });
          return { code: t, prec: PRIMARY, bool: this.returnsBool(e, boolVarsOf(env)) };
        }
        const bool = this.boolForm(e, env, scope, out, ind);
        if (bool !== undefined) return bool;
        const c = cond(this.expr(e.cond, env, scope, out, ind));
        const t = this.expr(e.then, env, scope, out, ind);
        const f = this.expr(e.else, env, scope, out, ind);
        return {
          code: `${wrap(c, 4)} ? ${wrap(t, 4)} : ${wrap(f, COND)}`,
          prec: COND,
          bool: t.bool && f.bool,
        };
      }
      case 'let': {
        const bound = this.bind(e.name, e.value, env, scope, out, ind);
        return this.expr(e.body, bound, scope, out, ind);
      }
      case 'call': {
        const fn = this.fnName.get(e.fn);
        if (fn === undefined) throw new Error(`emitModule: unknown function '${e.fn}'`);
        const args = e.args.map((a) => this.expr(a, env, scope, out, ind).code);
        return { code: `${fn}(${args.join(', ')})`, prec: MEMBER, bool: this.boolFuns.has(e.fn) };
      }
      case 'prim': {
        const arg = e.args[0];
        if (e.op === 'not' && arg !== undefined && (arg.kind === 'test' || arg.kind === 'prim')) {
          // not (c? x) => x.kind !== 'c';  not (a = b) => a !== b;  not (a <> b) => a === b
          const negated = this.negated(arg, env, scope, out, ind);
          if (negated !== undefined) return negated;
        }
        return this.prim(
          e.op,
          e.args.map((a) => this.expr(a, env, scope, out, ind)),
        );
      }
      default:
        return assertNever(e);
    }
  }

  /** The negation of a kind test or (in)equality as one operator, when that is exact. */
  private negated(e: CoreExpr, env: Env, scope: FunScope, out: string[], ind: string): Js | undefined {
    if (e.kind === 'test') {
      const decl = this.ctor(e.ctor);
      if (decl.repr === 'tuple') return undefined;
      const x = this.expr(e.arg, env, scope, out, ind);
      return { code: `${base(x)}.kind !== ${jsString(decl.name)}`, prec: 9, bool: true };
    }
    if (e.kind === 'prim' && (e.op === 'eq' || e.op === 'ne')) {
      return this.prim(
        e.op === 'eq' ? 'ne' : 'eq',
        e.args.map((a) => this.expr(a, env, scope, out, ind)),
      );
    }
    return undefined;
  }

  private prim(op: PrimOp, args: readonly Js[]): Js {
    const bool = BOOL_PRIMS.has(op);
    const bin = BINARY[op];
    if (bin !== undefined) {
      const [sym, p] = bin;
      const [a, b] = args as [Js, Js];
      return { code: `${wrap(a, p)} ${sym} ${wrap(b, p + 1)}`, prec: p, bool };
    }
    const un = UNARY[op];
    if (un !== undefined) {
      const a = args[0] as Js;
      let operand = wrap(a, UNARY_PREC);
      // `- -x` must not print as `--x`
      if (/^[-+~!]/.test(operand) && un === '-') operand = `(${operand})`;
      return { code: `${un}${operand}`, prec: UNARY_PREC, bool };
    }
    if (op === 'tuple_with') {
      this.runtimeUsed.add('tupleWith');
      return { code: `tupleWith(${args.map((a) => a.code).join(', ')})`, prec: MEMBER, bool };
    }
    const fn = PRELUDE_OF[op];
    if (fn === undefined) throw new Error(`emitModule: no code for primitive '${op}'`);
    this.preludeUsed.add(fn);
    return { code: `${fn}(${args.map((a) => a.code).join(', ')})`, prec: MEMBER, bool };
  }

  private ctor(name: string): CtorDecl {
    const d = this.program.ctors.get(name);
    if (d === undefined) throw new Error(`emitModule: unknown constructor '${name}'`);
    return d;
  }

  /** Whether a name is free for a local: not reserved, not module-level. */
  localFree(name: string): boolean {
    return isIdent(name) && this.isFree(name);
  }
}

interface Local {
  readonly js: string;
  /** Bound to a value known to be boolean. */
  readonly bool: boolean;
}
type Env = ReadonlyMap<string, Local>;

function boolVarsOf(env: Env): Set<string> {
  const out = new Set<string>();
  for (const [k, v] of env) if (v.bool) out.add(k);
  return out;
}

/** The names of the functions `e` calls anywhere in it (walked with a stack, not recursion). */
function callsIn(e: CoreExpr): Set<string> {
  const out = new Set<string>();
  const stack: unknown[] = [e];
  for (let x = stack.pop(); x !== undefined; x = stack.pop()) {
    if (typeof x !== 'object' || x === null) continue;
    if (Array.isArray(x)) {
      for (const y of x) stack.push(y);
      continue;
    }
    const node = x as { kind?: unknown; fn?: unknown };
    if (node.kind === 'lit') continue; // a constant's value holds no calls
    if (node.kind === 'call' && typeof node.fn === 'string') out.add(node.fn);
    for (const y of Object.values(x)) if (typeof y === 'object' && y !== null) stack.push(y);
  }
  return out;
}

/**
 * Whether `e` calls `fn` in tail position: as itself, in a branch of an `if` or the body of a `let`
 * in tail position (Core's form of `return fn(…)` inside `if`, `switch` and `const`). Let chains
 * are walked iteratively (residual code has long ones), branches recursively (as `stmts` does).
 */
function callsSelfInTail(fn: string, e0: CoreExpr): boolean {
  let e = e0;
  while (e.kind === 'let') e = e.body;
  if (e.kind === 'call') return e.fn === fn;
  if (e.kind !== 'if') return false;
  return callsSelfInTail(fn, e.then) || callsSelfInTail(fn, e.else);
}

/** A short one-line rendering of a constant, for the comment beside it. */
function oneLine(v: unknown): string {
  return commentText(showValue(v), 80);
}

/** A condition as the interpreter reads it: exactly `true` selects the then-branch. */
function cond(c: Js): Js {
  return c.bool ? c : { code: `${wrap(c, 9)} === true`, prec: 9, bool: true };
}

function finish(ind: string, sink: Sink, v: Js): string {
  return sink.k === 'return' ? `${ind}return ${v.code};` : `${ind}${sink.name} = ${v.code};`;
}

/** Local names of one function: unique across the whole function, so blocks never shadow. */
class FunScope {
  private readonly used = new Set<string>();
  private temps = 0;
  /** The function's parameters, by their JavaScript names. */
  params: readonly string[] = [];

  /** `loop`: the Core name of the function when it is emitted as a loop (it calls itself in tail position). */
  constructor(
    private readonly module: ModuleEmitter,
    readonly loop?: string,
  ) {}

  declare(coreName: string): string {
    const base = sanitize(coreName);
    let n = base;
    for (let i = 2; this.used.has(n) || !this.module.localFree(n); i++) n = `${base}_${i}`;
    this.used.add(n);
    return n;
  }

  temp(): string {
    let n: string;
    do n = `tmp${this.temps++}`;
    while (this.used.has(n) || !this.module.localFree(n));
    this.used.add(n);
    return n;
  }
}

/** Functions reachable from `entry` by calls, entry first, then in order of first call. */
function reachable(program: CoreProgram, entry: FunDef): FunDef[] {
  const out: FunDef[] = [entry];
  const seen = new Set<string>([entry.name]);
  for (let i = 0; i < out.length; i++) {
    forEachExpr((out[i] as FunDef).body, (e) => {
      if (e.kind !== 'call' || seen.has(e.fn)) return;
      const f = program.funs.get(e.fn);
      if (f === undefined) throw new Error(`emitModule: unknown function '${e.fn}'`);
      seen.add(e.fn);
      out.push(f);
    });
  }
  return out;
}
