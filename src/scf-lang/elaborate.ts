/**
 * Elaboration: the second half of the SCF-lang front end. It type-checks each function body
 * against the subset and desugars it to Core SCF in the same walk (the desugaring needs the
 * types: which constructors a value may have decides how a field access lowers).
 *
 * Algorithm
 * - Statements become one expression by continuation passing: each statement is elaborated
 *   with "what follows it" as a continuation. `const` becomes `let … in <rest>`; an `if` whose
 *   branch falls through puts the rest in that branch (code after such an `if` is elaborated
 *   once per path that reaches it); `return e` ends a path. A continuation never invoked marks
 *   the statements after it unreachable.
 * - `switch (x.kind)` and `x.kind === 'c'` become constructor tests `c? x`; the variable is
 *   narrowed to the matching constructors in the branch, and to the rest after it. A branch
 *   whose narrowed type is empty cannot run and is dropped, so an exhaustive switch needs no
 *   final test and `default: return absurd(x)` produces no code.
 * - A field read `x.f` is the projection `c⁻ᵏ x` when `x` has one constructor, and a chain of
 *   tests and projections when several constructors all have `f`.
 * - An object literal is a constructor application. A leading spread `{ ...x, f: e }`, where `x`
 *   has one constructor (narrowing counts), gives each field not written as the projection of
 *   `x` (bound once by `let` unless it is a variable): what TypeScript's spread gives for a value
 *   with exactly its declared fields.
 * - Operators become primitives; `&&`, `||` and `?:` become `if`; prelude calls become
 *   primitives or constructors (`prelude-sigs.ts`).
 *
 * Invariants
 * - Every rejected construct yields a diagnostic and elaboration continues with a placeholder,
 *   so all errors of a file are reported.
 * - Core names of bindings are unique within a function (a shadowing `const` is renamed), so
 *   code placed after a block by continuation passing never sees the block's bindings.
 */
import type {
  Expression,
  Function as FunctionNode,
  ObjectExpression,
  Statement,
  SwitchStatement,
  TemplateLiteral,
} from 'oxc-parser';
import { didYouMean } from '../common/index.js';
import type * as Core from './core.js';
import { tupleCtorName } from './core.js';
import {
  type Declarations,
  type FunSig,
  fieldType,
  literalValue,
  type Module,
  patternNames,
} from './declarations.js';
import { type DiagnosticLog, diag } from './diagnostics.js';
import { type Facts, mergeAnd, mergeOr, NO_FACTS } from './facts.js';
import { fieldHint, fieldProblems, methodHint } from './hints.js';
import { PRELUDE_FUNS } from './prelude-sigs.js';
import type { PrimOp } from './prims.js';
import { type SwitchGroup, switchGroups } from './switch-groups.js';
import type { Value } from './values.js';
import {
  assignable,
  BOOL,
  type DataType,
  isPrimType,
  join,
  mentionsVar,
  NUM,
  narrow,
  STR,
  showType,
  substitute,
  type Type,
  UNKNOWN,
  unify,
} from './types.js';

interface Binding {
  readonly core: string;
  readonly type: Type;
  readonly id: number;
}
type Env = ReadonlyMap<string, Binding>;

interface Typed {
  readonly e: Core.Expr;
  readonly t: Type;
  readonly whenTrue?: Facts;
  readonly whenFalse?: Facts;
}

type Cont = (env: Env) => Core.Expr;
interface Ctx {
  readonly fallthrough: Cont;
  readonly brk: Cont | null;
}

type AnyNode = { readonly type: string; readonly start: number; readonly end: number };

/** Most Core nodes one function may desugar to: a guard against exponential duplication. */
const MAX_FUNCTION_NODES = 200_000;

export class FunctionElaborator {
  private readonly usedNames = new Set<string>();
  /** Names of the (rejected, SCF2025) functions declared inside this one. */
  private readonly nestedFuns = new Set<string>();
  private nextTemp = 0;
  private nextBinding = 0;
  private nodes = 0;
  private tooBig = false;

  /** Where the code elaborated is declared (a function's name, a constant's): too big a body is reported there. */
  private readonly at: AnyNode;

  /** `sig`: the function whose body is elaborated; null for a top-level constant's value (`at`, constants.ts). */
  constructor(
    private readonly decls: Declarations,
    private readonly m: Module,
    private readonly sig: FunSig | null,
    private readonly labels: { next: number },
    private readonly log: DiagnosticLog,
    at?: AnyNode,
  ) {
    this.at = at ?? (sig === null ? { type: 'Program', start: 0, end: 0 } : (sig.node.id ?? sig.node));
  }

  elaborate(): Core.FunDef {
    if (this.sig === null) throw new Error('internal error: a constant has no body to elaborate');
    return this.functionBody(this.sig);
  }

  private functionBody(sig: FunSig): Core.FunDef {
    const env = new Map<string, Binding>();
    for (const p of sig.params) env.set(p.name, this.bind(p.name, p.type));
    const node = sig.node;
    const stmts = (node.body?.body ?? []) as Statement[];
    const body = this.stmts(stmts, 0, env, {
      fallthrough: () => {
        this.log.add(diag('SCF2020', this.span(node.id ?? node), sig.name));
        return this.placeholder(node);
      },
      brk: null,
    });
    return {
      name: sig.coreName,
      params: sig.params.map((p) => p.name),
      body,
      span: this.span(node.id ?? node),
      exported: sig.exported,
    };
  }

  // ---- helpers ----

  private span(n: { start: number; end: number }): Core.Span {
    return { file: this.m.file, start: n.start, end: n.end };
  }

  private mk<E extends Core.Expr>(at: { start: number; end: number }, fields: Omit<E, 'label' | 'span'>): E {
    if (++this.nodes > MAX_FUNCTION_NODES && !this.tooBig) {
      this.tooBig = true;
      this.log.add(
        diag(
          'SCF2013',
          this.span(this.at),
          'a function this large after desugaring (code after if statements that fall through is copied into each path)',
        ),
      );
    }
    return { ...fields, label: this.labels.next++, span: this.span(at) } as E;
  }

  private lit(at: AnyNode, value: Value): Core.Lit {
    return this.mk<Core.Lit>(at, { kind: 'lit', value });
  }

  private placeholder(at: AnyNode): Core.Expr {
    return this.lit(at, 0);
  }

  private prim(at: AnyNode, op: PrimOp, args: Core.Expr[]): Core.Prim {
    return this.mk<Core.Prim>(at, { kind: 'prim', op, args });
  }

  private ifE(at: AnyNode, cond: Core.Expr, then: Core.Expr, els: Core.Expr): Core.If {
    return this.mk<Core.If>(at, { kind: 'if', cond, then, else: els });
  }

  private bind(name: string, type: Type): Binding {
    let core = name;
    for (let i = 2; this.usedNames.has(core); i++) core = `${name}%${i}`;
    this.usedNames.add(core);
    return { core, type, id: this.nextBinding++ };
  }

  private temp(): string {
    const name = `%t${this.nextTemp++}`;
    this.usedNames.add(name);
    return name;
  }

  private letE(at: AnyNode, name: string, value: Core.Expr, body: Core.Expr): Core.Let {
    return this.mk<Core.Let>(at, { kind: 'let', name, value, body });
  }

  private varE(at: AnyNode, name: string): Core.Var {
    return this.mk<Core.Var>(at, { kind: 'var', name });
  }

  /** Binds `e` to a temporary unless it is already a variable, and builds `body` over it. */
  private share(at: AnyNode, e: Core.Expr, body: (v: () => Core.Expr) => Core.Expr): Core.Expr {
    if (e.kind === 'var') return body(() => this.varE(at, e.name));
    const t = this.temp();
    return this.letE(
      at,
      t,
      e,
      body(() => this.varE(at, t)),
    );
  }

  /** Reports `actual` where `expected` is required, unless it fits (for a constant's value, constants.ts). */
  expectType(at: AnyNode, actual: Type, expected: Type | undefined): void {
    this.expect(at, actual, expected);
  }

  private expect(at: AnyNode, actual: Type, expected: Type | undefined): void {
    if (expected !== undefined && !assignable(actual, expected)) {
      this.log.add(diag('SCF3001', this.span(at), showType(expected), showType(actual)));
    }
  }

  /**
   * The narrowing key of a reference: a variable's name, or for a read-only field path such as
   * `e.l.r` the root binding's id and the fields (`@3.l.r`), so narrowing `e.l.kind` narrows
   * later reads of `e.l` (as TypeScript does) and a shadowing binding never inherits it.
   */
  private pathOf(node: AnyNode, env: Env): string | null {
    const n = node as Expression;
    if (n.type === 'ParenthesizedExpression') return this.pathOf(n.expression, env);
    if (n.type === 'Identifier') return env.has(n.name) ? n.name : null;
    if (n.type === 'MemberExpression' && !n.computed && !n.optional && n.property.type === 'Identifier') {
      const base = this.pathOf(n.object, env);
      if (base === null) return null;
      const root = base.startsWith('@') ? base : `@${(env.get(base) as Binding).id}`;
      return `${root}.${n.property.name}`;
    }
    return null;
  }

  private readonly pathTypes = new Map<string, DataType>();

  private applyFacts(env: Env, facts: Facts | undefined): { env: Env; dead: boolean } {
    if (!facts || facts.size === 0) return { env, dead: false };
    const out = new Map(env);
    let dead = false;
    for (const [name, keep] of facts) {
      const b = env.get(name);
      const base =
        b?.type.tag === 'data' ? b.type : name.startsWith('@') ? this.pathTypes.get(name) : undefined;
      if (base === undefined) continue;
      const t = narrow(base, (c) => keep.has(c));
      if (t.ctors.length === 0) dead = true;
      out.set(name, { core: b?.core ?? '', id: b?.id ?? -1, type: t });
    }
    return { env: out, dead };
  }

  /** Facts saying the reference `path` (of type `t`) has one of `ctors`. */
  private factsFor(path: string | null, t: DataType, ctors: Iterable<string>): Facts {
    if (path === null) return NO_FACTS;
    if (path.startsWith('@')) this.pathTypes.set(path, t);
    return new Map([[path, new Set(ctors)]]);
  }

  // ---- statements ----

  private stmts(list: readonly Statement[], i: number, env: Env, ctx: Ctx): Core.Expr {
    // a nested function is hoisted, as in TypeScript: calls before it know it too
    if (i === 0)
      for (const s of list) if (s.type === 'FunctionDeclaration' && s.id) this.nestedFuns.add(s.id.name);
    if (i >= list.length) return ctx.fallthrough(env);
    const s = list[i] as Statement;
    let reached = false;
    const rest: Cont = (env2) => {
      reached = true;
      return this.stmts(list, i + 1, env2, ctx);
    };
    const e = this.stmt(s, env, { fallthrough: rest, brk: ctx.brk });
    if (!reached && i + 1 < list.length) {
      this.log.add(diag('SCF2019', this.span(list[i + 1] as Statement)));
      // Still check the unreachable statements, so their errors are reported too.
      this.stmts(list, i + 1, env, {
        fallthrough: () => this.placeholder(s),
        brk: ctx.brk === null ? null : () => this.placeholder(s),
      });
    }
    return e;
  }

  private stmt(s: Statement, env: Env, ctx: Ctx): Core.Expr {
    const sp = this.span(s);
    switch (s.type) {
      case 'BlockStatement': {
        const outer = env;
        return this.stmts(s.body, 0, env, {
          fallthrough: (inner) => ctx.fallthrough(this.leaveBlock(outer, inner)),
          brk: ctx.brk === null ? null : (inner) => (ctx.brk as Cont)(this.leaveBlock(outer, inner)),
        });
      }
      case 'EmptyStatement':
        return ctx.fallthrough(env);
      case 'ReturnStatement': {
        if (s.argument === null) {
          this.log.add(diag('SCF3016', sp));
          return this.placeholder(s);
        }
        const ret = this.sig?.ret;
        const r = this.expr(s.argument, env, ret);
        this.expect(s.argument, r.t, ret);
        return r.e;
      }
      case 'VariableDeclaration':
        return this.constDecl(s, 0, env, ctx);
      case 'IfStatement': {
        const c = this.cond(s.test, env);
        const t = this.applyFacts(env, c.whenTrue);
        const f = this.applyFacts(env, c.whenFalse);
        const thenPart = () => this.stmt(s.consequent, t.env, ctx);
        const elsePart = () => (s.alternate ? this.stmt(s.alternate, f.env, ctx) : ctx.fallthrough(f.env));
        if (t.dead && !f.dead) {
          this.discard(() => thenPart());
          return elsePart();
        }
        if (f.dead && !t.dead) {
          if (s.alternate) this.discard(() => this.stmt(s.alternate as Statement, f.env, ctx));
          return thenPart();
        }
        return this.ifE(s, c.e, thenPart(), elsePart());
      }
      case 'SwitchStatement':
        return this.switchStmt(s, env, ctx);
      case 'BreakStatement':
        if (s.label === null && ctx.brk !== null) return ctx.brk(env);
        this.log.add(diag('SCF2028', sp));
        return ctx.fallthrough(env);
      case 'ExpressionStatement': {
        const x = s.expression;
        if (
          x.type === 'AssignmentExpression' ||
          x.type === 'UpdateExpression' ||
          (x.type === 'UnaryExpression' && x.operator === 'delete') ||
          (x.type === 'CallExpression' && x.callee.type === 'MemberExpression')
        ) {
          this.expr(x, env);
        } else if (!('directive' in s && s.directive)) {
          this.log.add(diag('SCF2021', sp));
        }
        return ctx.fallthrough(env);
      }
      case 'ForStatement':
      case 'ForInStatement':
      case 'ForOfStatement':
      case 'WhileStatement':
      case 'DoWhileStatement': {
        const word = {
          ForStatement: 'for',
          ForInStatement: 'for…in',
          ForOfStatement: 'for…of',
          WhileStatement: 'while',
          DoWhileStatement: 'do…while',
        }[s.type];
        this.log.add(
          diag(
            'SCF2003',
            this.span({
              start: s.start,
              end: s.start + (word === 'do…while' ? 2 : word.startsWith('for') ? 3 : 5),
            }),
            word,
          ),
        );
        this.discard(() => this.rejectedLoop(s, env));
        return ctx.fallthrough(env);
      }
      case 'ContinueStatement':
        // inside a rejected loop, part of that loop (reported once, as the loop)
        if (this.rejectedLoops > 0 && s.label === null) return this.placeholder(s);
        this.log.add(diag('SCF2014', sp, 'continue'));
        return ctx.fallthrough(env);
      case 'ThrowStatement':
        this.log.add(diag('SCF2009', this.span({ start: s.start, end: s.start + 5 })));
        return this.placeholder(s);
      case 'TryStatement':
        this.log.add(diag('SCF2010', this.span({ start: s.start, end: s.start + 3 })));
        return this.stmt(s.block, env, ctx);
      case 'FunctionDeclaration':
        this.log.add(diag('SCF2025', this.span(s.id ?? s), s.id?.name ?? '?'));
        return ctx.fallthrough(env);
      case 'ClassDeclaration':
        this.log.add(diag('SCF2006', sp));
        return ctx.fallthrough(env);
      default:
        this.log.add(diag('SCF2014', sp, s.type.replace(/Statement$|Declaration$/, '').toLowerCase()));
        return ctx.fallthrough(env);
    }
  }

  /**
   * Checks a rejected loop's parts, so the errors inside it are reported with the loop's: the
   * iterated value or condition, and the body, where the names the loop binds stand as
   * `unknown` and `break`/`continue` end the path (the loop's own syntax is not reported again).
   */
  private rejectedLoop(
    s: Statement & {
      type: 'ForStatement' | 'ForInStatement' | 'ForOfStatement' | 'WhileStatement' | 'DoWhileStatement';
    },
    env: Env,
  ): void {
    let inner = env;
    if (s.type === 'ForOfStatement' || s.type === 'ForInStatement') {
      this.expr(s.right, env);
      if (s.left.type === 'VariableDeclaration')
        for (const d of s.left.declarations) inner = this.bindUnknown(d.id, inner);
    } else if (s.type === 'ForStatement') {
      if (s.init?.type === 'VariableDeclaration')
        for (const d of s.init.declarations) inner = this.bindUnknown(d.id, inner);
      if (s.test) this.cond(s.test, inner);
    } else this.cond(s.test, env);
    this.rejectedLoops++;
    const end = () => this.placeholder(s);
    this.stmt(s.body, inner, { fallthrough: end, brk: end });
    this.rejectedLoops--;
  }

  /** How many rejected loops the statement being elaborated is inside. */
  private rejectedLoops = 0;

  /** Elaborates for diagnostics only; the code is thrown away (a branch the types prove dead). */
  private discard(f: () => unknown): void {
    f();
  }

  /** The environment after a block: outer names, keeping narrowing learned inside on the same bindings. */
  private leaveBlock(outer: Env, inner: Env): Env {
    const out = new Map<string, Binding>();
    for (const [name, b] of outer) {
      const i = inner.get(name);
      out.set(name, i && i.id === b.id ? i : b);
    }
    return out;
  }

  private constDecl(
    s: Statement & { type: 'VariableDeclaration' },
    i: number,
    env: Env,
    ctx: Ctx,
  ): Core.Expr {
    if (i === 0 && s.kind !== 'const')
      this.log.add(diag('SCF2001', this.span({ start: s.start, end: s.start + s.kind.length }), s.kind));
    if (i >= s.declarations.length) return ctx.fallthrough(env);
    const d = s.declarations[i];
    if (d === undefined) return ctx.fallthrough(env);
    if (d.init === null) {
      this.log.add(diag('SCF2018', this.span(d), 'a declaration without a value'));
      return this.constDecl(s, i + 1, this.bindUnknown(d.id, env), ctx);
    }
    const id = d.id;
    const ann =
      id.type === 'Identifier' || id.type === 'ArrayPattern' || id.type === 'ObjectPattern'
        ? id.typeAnnotation?.typeAnnotation
        : undefined;
    const declared = ann ? this.decls.resolveTypeIn(this.m, ann, this.sig?.typeParams ?? []) : undefined;
    // `const [a, b] = [x, y]`: the pattern makes the literal a tuple, as in TypeScript
    const fromPattern: Type | undefined =
      id.type === 'ArrayPattern' ? { tag: 'tuple', elems: id.elements.map(() => UNKNOWN) } : undefined;
    const v = this.expr(d.init, env, declared ?? fromPattern);
    this.expect(d.init, v.t, declared);
    return this.bindPattern(id, v.e, declared ?? v.t, env, (env2) => this.constDecl(s, i + 1, env2, ctx));
  }

  /** `env` with the names `pat` binds standing as `unknown` (after an error: their uses add none). */
  private bindUnknown(pat: AnyNode, env: Env): Env {
    const out = new Map(env);
    for (const name of patternNames(pat)) out.set(name, this.bind(name, UNKNOWN));
    return out;
  }

  /** Binds a const pattern (identifier, tuple or object destructuring) to `value`. */
  private bindPattern(pat: AnyNode, value: Core.Expr, type: Type, env: Env, k: Cont): Core.Expr {
    const p = pat;
    if (p.type === 'Identifier') {
      const name = (pat as unknown as { name: string }).name;
      const b = this.bind(name, type);
      const out = new Map(env);
      out.set(name, b);
      return this.letE(pat, b.core, value, k(out));
    }
    if (p.type === 'ArrayPattern') {
      const elems = (pat as unknown as { elements: (AnyNode | null)[] }).elements;
      if (type.tag !== 'tuple' && type.tag !== 'unknown') {
        this.log.add(diag('SCF3001', this.span(pat), 'a tuple', showType(type)));
      }
      const n = type.tag === 'tuple' ? type.elems.length : elems.length;
      return this.share(pat, value, (v) => {
        const go = (j: number, envJ: Env): Core.Expr => {
          if (j >= elems.length) return k(envJ);
          const el = elems[j];
          if (el === null || el === undefined) return go(j + 1, envJ);
          if (el.type === 'RestElement') {
            this.log.add(diag('SCF2026', this.span(el)));
            return go(j + 1, envJ);
          }
          if (j >= n) {
            this.log.add(diag('SCF2027', this.span(el)));
            return go(j + 1, envJ);
          }
          const et = type.tag === 'tuple' ? (type.elems[j] as Type) : UNKNOWN;
          const proj = this.mk<Core.Proj>(el, { kind: 'proj', ctor: tupleCtorName(n), index: j, arg: v() });
          return this.bindPattern(el, proj, et, envJ, (e2) => go(j + 1, e2));
        };
        return go(0, env);
      });
    }
    if (p.type === 'ObjectPattern') {
      const props = (pat as unknown as { properties: AnyNode[] }).properties;
      return this.share(pat, value, (v) => {
        const go = (j: number, envJ: Env): Core.Expr => {
          if (j >= props.length) return k(envJ);
          const prop = props[j] as AnyNode & {
            key?: AnyNode & { name?: string };
            value?: AnyNode;
            computed?: boolean;
          };
          if (prop.type !== 'Property' || prop.computed || prop.key?.type !== 'Identifier' || !prop.value) {
            this.log.add(diag('SCF2026', this.span(prop)));
            return go(j + 1, envJ);
          }
          const f = this.field(prop, v(), type, prop.key.name as string, prop.key);
          return this.bindPattern(prop.value, f.e, f.t, envJ, (e2) => go(j + 1, e2));
        };
        return go(0, env);
      });
    }
    this.log.add(diag('SCF2013', this.span(pat), 'this binding pattern'));
    return k(this.bindUnknown(pat, env));
  }

  private switchStmt(s: SwitchStatement, env: Env, ctx: Ctx): Core.Expr {
    const after = ctx.fallthrough;
    const ordered = switchGroups(s);

    const d = s.discriminant;
    const isKind =
      d.type === 'MemberExpression' &&
      !d.computed &&
      d.property.type === 'Identifier' &&
      d.property.name === 'kind';
    const body = (g: SwitchGroup, envG: Env, last: boolean): Core.Expr =>
      this.stmts(g.body, 0, envG, {
        fallthrough: last
          ? after
          : (e2) => {
              if (g.body.length > 0)
                this.log.add(diag('SCF2029', this.span(g.body[g.body.length - 1] as Statement)));
              return after(e2);
            },
        brk: after,
      });

    if (isKind) {
      const obj = d.object;
      const subject = this.pathOf(obj, env);
      const o = this.expr(obj, env);
      if (o.t.tag !== 'data') {
        if (o.t.tag !== 'unknown') this.log.add(diag('SCF3014', this.span(obj), '.kind', showType(o.t)));
        return after(env);
      }
      const otype = o.t;
      const withCtors = (envX: Env, ctors: ReadonlySet<string>) =>
        this.applyFacts(envX, this.factsFor(subject, otype, ctors)).env;
      return this.share(obj, o.e, (v) => {
        const chain = (gi: number, remaining: readonly string[]): Core.Expr => {
          if (gi >= ordered.length) {
            return remaining.length === 0 ? this.placeholder(s) : after(withCtors(env, new Set(remaining)));
          }
          const g = ordered[gi] as SwitchGroup;
          const last = gi === ordered.length - 1;
          if (g.isDefault) {
            const envD = withCtors(env, new Set(remaining));
            if (remaining.length === 0) {
              this.discard(() => body(g, envD, true));
              return this.placeholder(s);
            }
            return body(g, envD, true);
          }
          const match: string[] = [];
          for (const lab of g.labels) {
            const k = literalValue(lab);
            if (typeof k !== 'string') {
              this.log.add(diag('SCF3011', this.span(lab), 'a kind case must be a string literal'));
            } else if (!otype.ctors.includes(k)) {
              this.log.add(diag('SCF3011', this.span(lab), `'${k}' is not a kind of ${showType(otype)}`));
            } else if (!remaining.includes(k) || match.includes(k)) {
              this.log.add(diag('SCF3011', this.span(lab), `kind '${k}' is already handled`));
            } else match.push(k);
          }
          const rest = remaining.filter((c) => !match.includes(c));
          const envM = withCtors(env, new Set(match));
          if (match.length === 0) {
            this.discard(() => body(g, envM, last));
            return chain(gi + 1, remaining);
          }
          if (rest.length === 0) {
            for (const later of ordered.slice(gi + 1)) {
              if (!later.isDefault) this.discard(() => body(later, withCtors(env, new Set()), true));
            }
            if (ordered.slice(gi + 1).some((x) => x.isDefault)) {
              const dg = ordered[ordered.length - 1] as SwitchGroup;
              this.discard(() => body(dg, withCtors(env, new Set()), true));
            }
            return body(g, envM, true);
          }
          const test = this.anyCtor(g.at, match, v);
          return this.ifE(g.at, test, body(g, envM, last), chain(gi + 1, rest));
        };
        return chain(0, otype.ctors);
      });
    }

    return this.primSwitch(s, env, ordered, body, after);
  }

  /** A switch on a primitive value: each group's labels compared with `eq`, in order. */
  private primSwitch(
    s: SwitchStatement,
    env: Env,
    ordered: readonly SwitchGroup[],
    body: (g: SwitchGroup, envG: Env, last: boolean) => Core.Expr,
    after: (env: Env) => Core.Expr,
  ): Core.Expr {
    const d = s.discriminant;
    const dv = this.expr(d, env);
    if (!isPrimType(dv.t) && dv.t.tag !== 'unknown') {
      this.log.add(diag('SCF3014', this.span(d), 'switch', showType(dv.t)));
      return after(env);
    }
    return this.share(d, dv.e, (v) => {
      const chain = (gi: number): Core.Expr => {
        if (gi >= ordered.length) return after(env);
        const g = ordered[gi] as SwitchGroup;
        const last = gi === ordered.length - 1;
        if (g.isDefault) return body(g, env, true);
        let test: Core.Expr | null = null;
        for (const lab of g.labels) {
          const l = this.expr(lab, env, dv.t);
          if (literalValue(lab) === null)
            this.log.add(diag('SCF3011', this.span(lab), 'a case label must be a literal'));
          this.expect(lab, l.t, dv.t);
          const eq = this.prim(lab, 'eq', [v(), l.e]);
          test = test === null ? eq : this.ifE(lab, test, this.lit(lab, true), eq);
        }
        if (test === null) return chain(gi + 1);
        return this.ifE(g.at, test, body(g, env, last), chain(gi + 1));
      };
      return chain(0);
    });
  }

  /** `c1? v || c2? v || …` */
  private anyCtor(at: AnyNode, ctors: readonly string[], v: () => Core.Expr): Core.Expr {
    let out: Core.Expr | null = null;
    for (const c of [...ctors].reverse()) {
      const t = this.mk<Core.Test>(at, { kind: 'test', ctor: c, arg: v() });
      out = out === null ? t : this.ifE(at, t, this.lit(at, true), out);
    }
    return out ?? this.lit(at, false);
  }

  // ---- expressions ----

  /** A boolean condition, with what it teaches about variables' constructors. */
  private cond(e: Expression, env: Env): Typed {
    const r = this.expr(e, env, BOOL);
    if (r.t.tag !== 'bool' && r.t.tag !== 'unknown')
      this.log.add(diag('SCF3013', this.span(e), showType(r.t)));
    return r;
  }

  expr(e: Expression, env: Env, expected?: Type): Typed {
    const sp = this.span(e);
    switch (e.type) {
      case 'ParenthesizedExpression': {
        const inner = this.expr(e.expression, env, expected);
        return inner;
      }
      case 'Literal': {
        const v = e.value;
        if (typeof v === 'number') return { e: this.lit(e, v), t: NUM };
        if (typeof v === 'string') return { e: this.lit(e, v), t: STR };
        if (typeof v === 'boolean') return { e: this.lit(e, v), t: BOOL };
        this.log.add(
          diag('SCF2013', sp, v === null ? "'null' (use Option from the prelude)" : 'this literal'),
        );
        return { e: this.placeholder(e), t: UNKNOWN };
      }
      case 'Identifier':
        return this.identifier(e, e.name, env);
      case 'TemplateLiteral':
        return this.template(e, env);
      case 'ObjectExpression':
        return this.object(e, env, expected);
      case 'ArrayExpression':
        return this.arrayLit(e, env, expected);
      case 'MemberExpression':
        return this.member(e, env);
      case 'CallExpression':
        return this.call(e, env, expected);
      case 'ConditionalExpression':
        return this.conditional(e, env, expected);
      case 'LogicalExpression':
        return this.logical(e, env);
      case 'BinaryExpression':
        return this.binary(e, env);
      case 'UnaryExpression':
        return this.unary(e, env);
      case 'AssignmentExpression':
        if (e.left.type === 'MemberExpression')
          this.log.add(diag('SCF2008', sp, 'assignment to a field or element'));
        else this.log.add(diag('SCF2002', sp));
        return { e: this.placeholder(e), t: UNKNOWN };
      case 'UpdateExpression':
        if (e.argument.type === 'MemberExpression')
          this.log.add(diag('SCF2008', sp, `'${e.operator}' on a field or element`));
        else this.log.add(diag('SCF2002', sp));
        return { e: this.placeholder(e), t: UNKNOWN };
      case 'ArrowFunctionExpression':
        this.log.add(diag('SCF2004', sp, 'arrow functions'));
        return { e: this.placeholder(e), t: UNKNOWN };
      case 'FunctionExpression':
        this.log.add(diag('SCF2004', sp, 'function expressions'));
        return { e: this.placeholder(e), t: UNKNOWN };
      case 'ThisExpression':
        this.log.add(diag('SCF2007', sp));
        return { e: this.placeholder(e), t: UNKNOWN };
      case 'NewExpression':
        this.log.add(diag('SCF2023', sp));
        return { e: this.placeholder(e), t: UNKNOWN };
      case 'ClassExpression':
        this.log.add(diag('SCF2006', sp));
        return { e: this.placeholder(e), t: UNKNOWN };
      case 'AwaitExpression':
      case 'YieldExpression':
        this.log.add(
          diag('SCF2024', sp, e.type === 'AwaitExpression' ? "'await' expressions" : "'yield' expressions"),
        );
        return { e: this.placeholder(e), t: UNKNOWN };
      case 'TSAsExpression':
      case 'TSSatisfiesExpression':
      case 'TSTypeAssertion':
      case 'TSNonNullExpression':
        this.log.add(diag('SCF2013', sp, 'a type assertion'));
        // what the assertion claims is not checked: the value stands as `unknown`
        this.expr(e.expression, env);
        return { e: this.placeholder(e), t: UNKNOWN };
      default:
        this.log.add(
          diag(
            'SCF2013',
            sp,
            `'${e.type
              .replace(/Expression$/, '')
              .replace(/([a-z])([A-Z])/g, '$1 $2')
              .toLowerCase()}' expression`,
          ),
        );
        return { e: this.placeholder(e), t: UNKNOWN };
    }
  }

  private joinArms(at: AnyNode, a: Type, b: Type, expected: Type | undefined): Type {
    if (expected) return join(a, b) ?? expected;
    const j = join(a, b);
    if (j === null) {
      this.log.add(diag('SCF3001', this.span(at), showType(a), showType(b)));
      return UNKNOWN;
    }
    return j;
  }

  private numeric(at: AnyNode, op: string, t: Type): void {
    if (t.tag !== 'num' && t.tag !== 'unknown') this.log.add(diag('SCF3014', this.span(at), op, showType(t)));
  }

  /** Whether `name` names nothing in scope here (a global of TypeScript's, such as `Math`). */
  private unbound(name: string, env: Env): boolean {
    return (
      !env.has(name) &&
      this.decls.lookupConst(this.m, name) === null &&
      this.decls.lookupFun(this.m, name) === null &&
      !this.m.imports.has(name)
    );
  }

  private identifier(at: AnyNode, name: string, env: Env): Typed {
    const b = env.get(name);
    if (b) return { e: this.varE(at, b.core), t: b.type };
    const c = this.decls.lookupConst(this.m, name);
    if (c) return { e: this.lit(at, c.value), t: c.type };
    if (this.decls.lookupFun(this.m, name) || this.m.imports.get(name)?.from === 'prelude') {
      this.log.add(diag('SCF2005', this.span(at), name));
      return { e: this.placeholder(at), t: UNKNOWN };
    }
    if (this.m.brokenImports.has(name)) return { e: this.placeholder(at), t: UNKNOWN };
    if (name === 'undefined') {
      this.log.add(diag('SCF2013', this.span(at), "'undefined' (use Option from the prelude)"));
      return { e: this.placeholder(at), t: UNKNOWN };
    }
    this.log.add(diag('SCF3002', this.span(at), name));
    return { e: this.placeholder(at), t: UNKNOWN };
  }

  /**
   * `[a, b, …]`: a tuple where one is expected (the expected tuple type guides its elements), as
   * TypeScript reads it; anywhere else TypeScript makes it an array, which SCF-lang does not have
   * (refused up front, its elements still checked).
   */
  private arrayLit(e: Expression & { type: 'ArrayExpression' }, env: Env, expected: Type | undefined): Typed {
    if (expected?.tag !== 'tuple' && expected?.tag !== 'unknown') {
      this.log.add(diag('SCF2031', this.span(e)));
      for (const el of e.elements) if (el !== null && el.type !== 'SpreadElement') this.expr(el, env);
      return { e: this.placeholder(e), t: UNKNOWN };
    }
    const exp = expected.tag === 'tuple' ? expected : undefined;
    const parts: Typed[] = [];
    for (const [i, el] of e.elements.entries()) {
      if (el === null || el.type === 'SpreadElement') {
        this.log.add(diag('SCF2026', this.span(el ?? e)));
        continue;
      }
      parts.push(this.expr(el, env, exp?.elems[i]));
    }
    return {
      e: this.mk<Core.Con>(e, {
        kind: 'con',
        ctor: tupleCtorName(parts.length),
        args: parts.map((p) => p.e),
      }),
      t: { tag: 'tuple', elems: parts.map((p) => p.t) },
    };
  }

  /** `c ? a : b`, each arm under what the test establishes (a dead arm is checked, then dropped). */
  private conditional(
    e: Expression & { type: 'ConditionalExpression' },
    env: Env,
    expected: Type | undefined,
  ): Typed {
    const c = this.cond(e.test, env);
    const t = this.applyFacts(env, c.whenTrue);
    const f = this.applyFacts(env, c.whenFalse);
    if (t.dead && !f.dead) {
      this.discard(() => this.expr(e.consequent, t.env, expected));
      return this.expr(e.alternate, f.env, expected);
    }
    if (f.dead && !t.dead) {
      this.discard(() => this.expr(e.alternate, f.env, expected));
      return this.expr(e.consequent, t.env, expected);
    }
    const a = this.expr(e.consequent, t.env, expected);
    const b = this.expr(e.alternate, f.env, expected);
    return { e: this.ifE(e, c.e, a.e, b.e), t: this.joinArms(e, a.t, b.t, expected) };
  }

  /** `a && b`, `a || b` as `if`s, with the facts each outcome establishes; `??` is rejected. */
  private logical(e: Expression & { type: 'LogicalExpression' }, env: Env): Typed {
    const sp = this.span(e);
    if (e.operator === '??') {
      this.log.add(diag('SCF2013', sp, "'??' (use getOr on an Option)"));
      return { e: this.placeholder(e), t: UNKNOWN };
    }
    const a = this.cond(e.left, env);
    if (e.operator === '&&') {
      const envB = this.applyFacts(env, a.whenTrue).env;
      const b = this.cond(e.right, envB);
      return {
        e: this.ifE(e, a.e, b.e, this.lit(e, false)),
        t: BOOL,
        whenTrue: mergeAnd(a.whenTrue, b.whenTrue),
        whenFalse: mergeOr(a.whenFalse, b.whenFalse),
      };
    }
    const envB = this.applyFacts(env, a.whenFalse).env;
    const b = this.cond(e.right, envB);
    return {
      e: this.ifE(e, a.e, this.lit(e, true), b.e),
      t: BOOL,
      whenTrue: mergeOr(a.whenTrue, b.whenTrue),
      whenFalse: mergeAnd(a.whenFalse, b.whenFalse),
    };
  }

  /** `!a` (its facts swapped), `-a`, `~a`; `delete` and the rest are rejected. */
  private unary(e: Expression & { type: 'UnaryExpression' }, env: Env): Typed {
    const sp = this.span(e);
    if (e.operator === 'delete') {
      this.log.add(diag('SCF2008', sp, "'delete'"));
      return { e: this.placeholder(e), t: UNKNOWN };
    }
    if (e.operator === '!') {
      const a = this.cond(e.argument, env);
      const r: Typed = { e: this.prim(e, 'not', [a.e]), t: BOOL };
      return {
        ...r,
        ...(a.whenFalse ? { whenTrue: a.whenFalse } : {}),
        ...(a.whenTrue ? { whenFalse: a.whenTrue } : {}),
      };
    }
    if (e.operator === '-' || e.operator === '~') {
      const lit = e.operator === '-' ? literalValue(e) : null;
      if (typeof lit === 'number') return { e: this.lit(e, lit), t: NUM };
      const a = this.expr(e.argument, env, NUM);
      this.numeric(e.argument, e.operator, a.t);
      return { e: this.prim(e, e.operator === '-' ? 'neg' : 'bitnot', [a.e]), t: NUM };
    }
    this.log.add(diag('SCF2013', sp, `unary '${e.operator}'`));
    return { e: this.placeholder(e), t: UNKNOWN };
  }

  private template(e: TemplateLiteral, env: Env): Typed {
    let out: Core.Expr | null = null;
    const push = (x: Core.Expr) => {
      out = out === null ? x : this.prim(e, 'concat', [out, x]);
    };
    e.quasis.forEach((q, i) => {
      const text = q.value.cooked ?? q.value.raw;
      if (text !== '') push(this.lit(q, text));
      const x = e.expressions[i];
      if (x) {
        const v = this.expr(x, env);
        if (v.t.tag === 'num') push(this.prim(x, 'num_to_string', [v.e]));
        else if (v.t.tag === 'str' || v.t.tag === 'unknown') push(v.e);
        else this.log.add(diag('SCF3014', this.span(x), 'template substitution', showType(v.t)));
      }
    });
    return { e: out ?? this.lit(e, ''), t: STR };
  }

  /**
   * An object literal: a constructor. A leading spread `{ ...x, f: e }` takes the fields it does
   * not write from `x`, whose kind must be known (one constructor, or narrowed to one): each is
   * the projection `x.f`, as if written out, and `x` is evaluated once.
   */
  private object(e: ObjectExpression, env: Env, expected: Type | undefined): Typed {
    const sp = this.span(e);
    const props = new Map<string, { value: Expression; at: AnyNode }>();
    let spreadAt: (AnyNode & { argument: Expression }) | undefined;
    let bad = false;
    for (const [i, p] of e.properties.entries()) {
      if (p.type === 'SpreadElement') {
        if (i === 0) spreadAt = p;
        else
          this.log.add(
            diag(
              'SCF2030',
              this.span(p),
              'comes first in a literal, once (a field written before it would be overwritten)',
            ),
          );
        bad ||= i !== 0;
        continue;
      }
      if (p.computed || p.method || p.kind !== 'init') {
        this.log.add(
          diag('SCF2013', this.span(p), 'a computed key, method or accessor in an object literal'),
        );
        continue;
      }
      const key = p.key.type === 'Identifier' ? p.key.name : literalValue(p.key);
      if (typeof key !== 'string') {
        this.log.add(diag('SCF2013', this.span(p.key), 'this property key'));
        continue;
      }
      if (props.has(key)) this.log.add(diag('SCF3008', this.span(p.key), key));
      props.set(key, { value: p.value, at: p });
    }
    // a literal given up still has its values checked, so the errors in them are reported too
    const giveUp = (): Typed => {
      for (const p of props.values()) this.discard(() => this.expr(p.value, env));
      return { e: this.placeholder(e), t: UNKNOWN };
    };
    const source = spreadAt && this.spreadSource(spreadAt, env);
    if (bad || source === null) return giveUp();
    const kindProp = props.get('kind');
    const kind = kindProp ? literalValue(kindProp.value) : source?.t.ctors[0];
    if (typeof kind !== 'string' || (source && kind !== source.t.ctors[0])) {
      const want = source ? `the spread value's own, '${source.t.ctors[0]}'` : 'a string literal';
      this.log.add(
        diag(
          'SCF3006',
          kindProp ? this.span(kindProp.value) : sp,
          `an object literal needs a 'kind' field with ${want}`,
        ),
      );
      return giveUp();
    }
    const c = this.decls.ctors.get(kind);
    if (!c) {
      this.log.add(diag('SCF3006', this.span(kindProp?.value ?? e), `no data type declares kind '${kind}'`));
      return giveUp();
    }
    // A type argument is the spread value's where a field copied from it mentions it (a list's
    // tail fixes its element type), else the expected type's; the fields written fix the rest.
    // One all of whose fields are written is theirs, as in TypeScript: { ...o, value: 'a' } is an
    // Option<string> whatever o's type argument.
    const subst = new Map<string, Type>();
    if (source) {
      for (const f of c.fields) if (!props.has(f.name)) unify(f.type, fieldType(c, f, source.t.args), subst);
    }
    const expArgs = expected?.tag === 'data' && expected.ctors.includes(kind) ? expected.args : [];
    c.typeParams.forEach((p, i) => {
      const a = expArgs[i];
      if (a && a.tag !== 'unknown' && (subst.get(p) ?? UNKNOWN).tag === 'unknown') subst.set(p, a);
    });
    // the fields missing without a spread: reported after the build, with the fix where one shows
    const missing: string[] = [];
    const build = (from: (() => Core.Expr) | undefined): Core.Expr => {
      const args: Core.Expr[] = [];
      for (const f of c.fields) {
        const p = props.get(f.name);
        if (!p) {
          if (from && source) args.push(this.field(source.at, from(), source.t, f.name, source.at).e);
          else {
            missing.push(f.name);
            args.push(this.placeholder(e));
          }
          continue;
        }
        const want = c.typeParams.length > 0 ? substitute(f.type, subst) : f.type;
        const v = this.expr(p.value, env, want);
        if (c.typeParams.length > 0) {
          if (!unify(f.type, v.t, subst))
            this.log.add(diag('SCF3001', this.span(p.value), showType(want), showType(v.t)));
        } else this.expect(p.value, v.t, f.type);
        args.push(v.e);
      }
      return this.mk<Core.Con>(e, { kind: 'con', ctor: kind, args });
    };
    const built = source ? this.share(source.at, source.e, build) : build(undefined);
    for (const p of fieldProblems(kind, c.fields, props, missing, env, this.m.text)) {
      const prop = p.at?.at;
      this.log.add(diag('SCF3006', prop ? this.span(prop.at) : sp, p.message));
      if (prop) this.discard(() => this.expr(prop.value, env));
    }
    const t: DataType = {
      tag: 'data',
      name: c.typeName,
      ctors: [kind],
      args: c.typeParams.map((p) => subst.get(p) ?? UNKNOWN),
    };
    return { e: built, t };
  }

  /**
   * The value a spread `...x` in an object literal copies fields from, with its type (narrowed,
   * as a field read's is): undefined without a spread, null (reported) where its kind is unknown.
   */
  private spreadSource(
    at: AnyNode & { argument: Expression },
    env: Env,
  ): { at: AnyNode; e: Core.Expr; t: DataType } | null {
    const s = this.expr(at.argument, env);
    const path = this.pathOf(at.argument, env);
    const t = (path === null ? undefined : env.get(path)?.type) ?? s.t;
    if (t.tag === 'unknown') return null;
    if (t.tag !== 'data' || t.ctors.length !== 1) {
      // a union narrowed to a few kinds says which: the test that would narrow it further is plain
      const kinds =
        t.tag === 'data' && t.ctors.length <= 4 ? ` (kind ${t.ctors.map((k) => `'${k}'`).join(' or ')})` : '';
      const why = `of a value of type ${showType(t)}${kinds}: its kind must be known (one constructor, or narrowed to one by a test of its 'kind')`;
      this.log.add(diag('SCF2030', this.span(at), why));
      return null;
    }
    return { at: at.argument, e: s.e, t };
  }

  private member(e: Expression & { type: 'MemberExpression' }, env: Env): Typed {
    const sp = this.span(e);
    if (e.optional) {
      this.log.add(diag('SCF2013', sp, "optional chaining '?.'"));
      this.expr(e.object, env);
      return { e: this.placeholder(e), t: UNKNOWN };
    }
    if (e.property.type === 'PrivateIdentifier') {
      this.log.add(diag('SCF2006', sp));
      return { e: this.placeholder(e), t: UNKNOWN };
    }
    const o = this.expr(e.object, env);
    if (e.computed) {
      const idx = literalValue(e.property);
      if (o.t.tag !== 'tuple') {
        if (o.t.tag !== 'unknown')
          this.log.add(diag('SCF2013', sp, `indexing a value of type ${showType(o.t)}`));
        return { e: this.placeholder(e), t: UNKNOWN };
      }
      if (typeof idx !== 'number' || !Number.isInteger(idx) || idx < 0 || idx >= o.t.elems.length) {
        this.log.add(diag('SCF2027', this.span(e.property)));
        return { e: this.placeholder(e), t: UNKNOWN };
      }
      return {
        e: this.mk<Core.Proj>(e, {
          kind: 'proj',
          ctor: tupleCtorName(o.t.elems.length),
          index: idx,
          arg: o.e,
        }),
        t: o.t.elems[idx] as Type,
      };
    }
    const name = (e.property as { name: string }).name;
    if (name === 'kind' && o.t.tag === 'data') {
      const ctors = o.t.ctors;
      if (ctors.length === 1) return { e: this.lit(e, ctors[0] as string), t: STR };
      return {
        e: this.share(e.object, o.e, (v) => {
          let out: Core.Expr = this.lit(e, ctors[ctors.length - 1] ?? '');
          for (const c of ctors.slice(0, -1).reverse()) {
            out = this.ifE(
              e,
              this.mk<Core.Test>(e, { kind: 'test', ctor: c, arg: v() }),
              this.lit(e, c),
              out,
            );
          }
          return out;
        }),
        t: STR,
      };
    }
    const r = this.field(e, o.e, o.t, name, e.property);
    const path = this.pathOf(e, env);
    const narrowed = path === null ? undefined : env.get(path)?.type;
    return narrowed?.tag === 'data' && r.t.tag === 'data' ? { ...r, t: narrowed } : r;
  }

  /** Field `name` of a value `obj` of type `t`: a projection, or a test chain over several constructors. */
  private field(at: AnyNode, obj: Core.Expr, t: Type, name: string, nameAt: AnyNode): Typed {
    if (t.tag === 'unknown') return { e: this.placeholder(at), t: UNKNOWN };
    if (t.tag !== 'data') {
      this.log.add(diag('SCF3004', this.span(nameAt), name, showType(t), fieldHint(name, t)));
      return { e: this.placeholder(at), t: UNKNOWN };
    }
    const hits: { kind: string; index: number; type: Type }[] = [];
    const missing: string[] = [];
    for (const k of t.ctors) {
      const c = this.decls.ctors.get(k);
      const idx = c ? c.fields.findIndex((f) => f.name === name) : -1;
      if (!c || idx < 0) missing.push(k);
      else hits.push({ kind: k, index: idx, type: fieldType(c, c.fields[idx] as never, t.args) });
    }
    if (hits.length === 0 && t.ctors.length > 0) {
      // a union narrowed to one kind is named with it; a misspelt field with the one it resembles
      const only = t.ctors.length === 1 ? this.decls.ctors.get(t.ctors[0] as string) : undefined;
      const shown = only && only.typeName !== t.name ? `${showType(t)} (kind '${only.kind}')` : showType(t);
      const fields = t.ctors.flatMap((k) => this.decls.ctors.get(k)?.fields.map((f) => f.name) ?? []);
      this.log.add(diag('SCF3004', this.span(nameAt), name, shown, didYouMean(name, fields)));
      return { e: this.placeholder(at), t: UNKNOWN };
    }
    if (missing.length > 0) {
      this.log.add(
        diag('SCF3010', this.span(nameAt), name, showType(t), missing.map((k) => `'${k}'`).join(', ')),
      );
      return { e: this.placeholder(at), t: UNKNOWN };
    }
    let ft: Type = UNKNOWN;
    for (const h of hits) {
      const j = join(ft, h.type);
      if (j === null) {
        this.log.add(diag('SCF3001', this.span(nameAt), showType(ft), showType(h.type)));
        break;
      }
      ft = j;
    }
    if (hits.length === 0) return { e: this.placeholder(at), t: UNKNOWN };
    if (hits.length === 1) {
      const h = hits[0] as (typeof hits)[number];
      return { e: this.mk<Core.Proj>(at, { kind: 'proj', ctor: h.kind, index: h.index, arg: obj }), t: ft };
    }
    const e = this.share(at, obj, (v) => {
      const lastHit = hits[hits.length - 1] as (typeof hits)[number];
      let out: Core.Expr = this.mk<Core.Proj>(at, {
        kind: 'proj',
        ctor: lastHit.kind,
        index: lastHit.index,
        arg: v(),
      });
      for (const h of hits.slice(0, -1).reverse()) {
        const test = this.mk<Core.Test>(at, { kind: 'test', ctor: h.kind, arg: v() });
        const proj = this.mk<Core.Proj>(at, { kind: 'proj', ctor: h.kind, index: h.index, arg: v() });
        out = this.ifE(at, test, proj, out);
      }
      return out;
    });
    return { e, t: ft };
  }

  private binary(e: Expression & { type: 'BinaryExpression' }, env: Env): Typed {
    const sp = this.span(e);
    const op = e.operator;
    if (op === '===' || op === '!==') {
      const kindTest = this.kindTest(e, env);
      if (kindTest) return kindTest;
      const a = this.expr(e.left as Expression, env);
      const b = this.expr(e.right, env, a.t);
      for (const x of [a.t, b.t]) {
        if (!isPrimType(x) && x.tag !== 'unknown') {
          this.log.add(diag('SCF2012', sp, op, showType(x)));
          return { e: this.placeholder(e), t: BOOL };
        }
      }
      if (join(a.t, b.t) === null)
        this.log.add(diag('SCF3001', this.span(e.right), showType(a.t), showType(b.t)));
      return { e: this.prim(e, op === '===' ? 'eq' : 'ne', [a.e, b.e]), t: BOOL };
    }
    if (op === '==' || op === '!=') {
      this.log.add(diag('SCF2013', sp, `loose equality '${op}' (use '${op}=')`));
      return { e: this.placeholder(e), t: BOOL };
    }
    if (op === 'in' || op === 'instanceof' || op === '**') {
      this.log.add(diag('SCF2013', sp, `operator '${op}'`));
      return { e: this.placeholder(e), t: UNKNOWN };
    }
    const a = this.expr(e.left as Expression, env);
    const b = this.expr(e.right, env);
    if (op === '+' && (a.t.tag === 'str' || b.t.tag === 'str')) {
      const asStr = (x: Typed, at: AnyNode) => {
        if (x.t.tag === 'num') return this.prim(at, 'num_to_string', [x.e]);
        if (x.t.tag !== 'str' && x.t.tag !== 'unknown')
          this.log.add(diag('SCF3014', this.span(at), '+', showType(x.t)));
        return x.e;
      };
      return { e: this.prim(e, 'concat', [asStr(a, e.left), asStr(b, e.right)]), t: STR };
    }
    const cmp: Partial<Record<string, PrimOp>> = { '<': 'lt', '<=': 'le', '>': 'gt', '>=': 'ge' };
    const cop = cmp[op];
    if (cop) {
      const ok = (t: Type) => t.tag === 'num' || t.tag === 'str' || t.tag === 'unknown';
      if (!ok(a.t) || !ok(b.t) || join(a.t, b.t) === null) {
        this.log.add(diag('SCF3014', sp, op, `${showType(a.t)} and ${showType(b.t)}`));
      }
      return { e: this.prim(e, cop, [a.e, b.e]), t: BOOL };
    }
    const arith: Partial<Record<string, PrimOp>> = {
      '+': 'add',
      '-': 'sub',
      '*': 'mul',
      '/': 'div',
      '%': 'mod',
      '&': 'bitand',
      '|': 'bitor',
      '^': 'bitxor',
      '<<': 'shl',
      '>>': 'shr',
      '>>>': 'ushr',
    };
    const aop = arith[op];
    if (!aop) {
      this.log.add(diag('SCF2013', sp, `operator '${op}'`));
      return { e: this.placeholder(e), t: UNKNOWN };
    }
    this.numeric(e.left, op, a.t);
    this.numeric(e.right, op, b.t);
    // `+` of values whose types an error left unknown may be a concatenation: unknown too
    const t = op === '+' && a.t.tag !== 'num' && b.t.tag !== 'num' ? UNKNOWN : NUM;
    return { e: this.prim(e, aop, [a.e, b.e]), t };
  }

  /**
   * The kinds of a data type as declared, before any narrowing: a test for a kind that earlier
   * tests ruled out on this path is statically false, not an error (statements after an `if`
   * are elaborated once per path, with that path's facts).
   */
  private declaredCtors(t: DataType, at: Expression): readonly string[] {
    const full = this.decls.resolveName(this.m, t.name, t.args, this.span(at));
    return full !== null && full.tag === 'data' ? full.ctors : t.ctors;
  }

  /** `x.kind === 'c'` (either way round) as a constructor test, with narrowing facts for `x`. */
  private kindTest(e: Expression & { type: 'BinaryExpression' }, env: Env): Typed | null {
    const isKindRead = (x: Expression | { type: string }) =>
      x.type === 'MemberExpression' &&
      !(x as { computed: boolean }).computed &&
      (x as { property: { type: string; name?: string } }).property.name === 'kind';
    let member: (Expression & { type: 'MemberExpression' }) | null = null;
    let litNode: Expression | null = null;
    if (isKindRead(e.left) && typeof literalValue(e.right) === 'string') {
      member = e.left as Expression & { type: 'MemberExpression' };
      litNode = e.right;
    } else if (isKindRead(e.right) && typeof literalValue(e.left) === 'string') {
      member = e.right as Expression & { type: 'MemberExpression' };
      litNode = e.left as Expression;
    }
    if (member === null || litNode === null) return null;
    const o = this.expr(member.object, env);
    if (o.t.tag !== 'data') return null;
    const kind = literalValue(litNode) as string;
    if (!o.t.ctors.includes(kind) && !this.declaredCtors(o.t, litNode).includes(kind)) {
      this.log.add(diag('SCF3011', this.span(litNode), `'${kind}' is not a kind of ${showType(o.t)}`));
    }
    const test = this.mk<Core.Test>(e, { kind: 'test', ctor: kind, arg: o.e });
    const obj = member.object;
    const subject = this.pathOf(obj, env);
    const yes = this.factsFor(subject, o.t, [kind]);
    const no = this.factsFor(
      subject,
      o.t,
      o.t.ctors.filter((c) => c !== kind),
    );
    if (e.operator === '===') return { e: test, t: BOOL, whenTrue: yes, whenFalse: no };
    return { e: this.prim(e, 'not', [test]), t: BOOL, whenTrue: no, whenFalse: yes };
  }

  private call(e: Expression & { type: 'CallExpression' }, env: Env, expected: Type | undefined): Typed {
    const sp = this.span(e);
    const callee = e.callee;
    if (callee.type === 'MemberExpression') {
      const method = callee.property.type === 'Identifier' ? callee.property.name : '…';
      const o = callee.object;
      const isMath = o.type === 'Identifier' && o.name === 'Math' && this.unbound('Math', env);
      // the receiver is checked too (its errors are its own); its type picks the hint
      const receiver = isMath ? undefined : this.expr(o, env).t;
      this.log.add(diag('SCF2022', this.span(callee.property), method, methodHint(method, isMath, receiver)));
      for (const a of e.arguments) if (a.type !== 'SpreadElement') this.expr(a, env);
      return { e: this.placeholder(e), t: UNKNOWN };
    }
    if (callee.type !== 'Identifier') {
      this.log.add(diag('SCF2004', this.span(callee), 'calls of computed functions'));
      return { e: this.placeholder(e), t: UNKNOWN };
    }
    const name = callee.name;
    const args = e.arguments.filter((a): a is Expression => {
      if (a.type === 'SpreadElement') {
        this.log.add(diag('SCF2026', this.span(a)));
        return false;
      }
      return true;
    });
    if (env.has(name)) {
      this.log.add(diag('SCF3009', this.span(callee), name));
      return { e: this.placeholder(e), t: UNKNOWN };
    }
    if (this.nestedFuns.has(name)) {
      // a nested function, reported where it is declared: its calls add nothing
      for (const a of args) this.expr(a, env);
      return { e: this.placeholder(e), t: UNKNOWN };
    }
    const sig = this.decls.lookupFun(this.m, name);
    if (sig) {
      if (args.length !== sig.params.length && !sig.paramsRejected)
        this.log.add(diag('SCF3005', sp, name, sig.params.length, args.length));
      if (sig.typeParams.length > 0 || e.typeArguments)
        return this.genericCall(e, name, sig, args, env, expected);
      const core = args.map((a, i) => {
        const want = sig.params[i]?.type;
        const v = this.expr(a, env, want);
        this.expect(a, v.t, want);
        return v.e;
      });
      return { e: this.mk<Core.Call>(e, { kind: 'call', fn: sig.coreName, args: core }), t: sig.ret };
    }
    const imp = this.m.imports.get(name);
    if (imp?.from === 'prelude') {
      const pf = PRELUDE_FUNS[imp.name];
      if (pf) return this.preludeCall(e, name, pf, args, env, expected);
    }
    if (!this.m.brokenImports.has(name)) this.log.add(diag('SCF3002', this.span(callee), name));
    for (const a of args) this.expr(a, env);
    return { e: this.placeholder(e), t: UNKNOWN };
  }

  /**
   * A call of a generic function, its type parameters instantiated for this call: from explicit
   * type arguments (`nth<number>(…)`), then the expected type, then each argument's type in turn
   * (each argument is checked against its parameter's type as instantiated so far, as a prelude
   * call's are). A type parameter that no parameter's type mentions and nothing else fixes
   * cannot be inferred (SCF3019); one left `unknown` by its arguments' types is the wildcard.
   */
  private genericCall(
    e: Expression & { type: 'CallExpression' },
    name: string,
    sig: FunSig,
    args: readonly Expression[],
    env: Env,
    expected: Type | undefined,
  ): Typed {
    const subst = new Map<string, Type>();
    const targs = e.typeArguments?.params ?? [];
    if (targs.length > 0 && targs.length !== sig.typeParams.length)
      this.log.add(
        diag('SCF3005', this.span(e.typeArguments ?? e), `${name}<…>`, sig.typeParams.length, targs.length),
      );
    targs.forEach((ta, i) => {
      const resolved = this.decls.resolveTypeIn(this.m, ta, this.sig?.typeParams ?? []);
      if (i < sig.typeParams.length) subst.set(sig.typeParams[i] as string, resolved);
    });
    if (expected) unify(sig.ret, expected, subst);
    const core = args.map((a, i) => {
      const p = sig.params[i]?.type;
      if (p === undefined) return this.expr(a, env).e;
      const v = this.expr(a, env, substitute(p, subst));
      if (!unify(p, v.t, subst))
        this.log.add(diag('SCF3001', this.span(a), showType(substitute(p, subst)), showType(v.t)));
      return v.e;
    });
    for (const tp of sig.typeParams) {
      const fixed = subst.get(tp);
      if (
        (fixed === undefined || fixed.tag === 'unknown') &&
        !sig.params.some((p) => mentionsVar(p.type, tp))
      )
        this.log.add(diag('SCF3019', this.span(e.callee), tp, name));
    }
    return {
      e: this.mk<Core.Call>(e, { kind: 'call', fn: sig.coreName, args: core }),
      t: substitute(sig.ret, subst),
    };
  }

  private preludeCall(
    e: AnyNode,
    name: string,
    pf: (typeof PRELUDE_FUNS)[string],
    args: Expression[],
    env: Env,
    expected: Type | undefined,
  ): Typed {
    if (args.length !== pf.params.length) {
      this.log.add(diag('SCF3005', this.span(e), name, pf.params.length, args.length));
      return { e: this.placeholder(e), t: UNKNOWN };
    }
    const subst = new Map<string, Type>();
    if (expected) unify(pf.ret, expected, subst);
    if (pf.lower.kind === 'absurd') {
      const v = this.expr(args[0] as Expression, env);
      if (!(v.t.tag === 'data' && v.t.ctors.length === 0)) this.log.add(diag('SCF3015', this.span(e)));
      return { e: v.e, t: expected ?? UNKNOWN };
    }
    const core: Core.Expr[] = [];
    args.forEach((a, i) => {
      const p = pf.params[i] as Type;
      const v = this.expr(a, env, substitute(p, subst));
      if (!unify(p, v.t, subst))
        this.log.add(diag('SCF3001', this.span(a), showType(substitute(p, subst)), showType(v.t)));
      core.push(v.e);
    });
    for (const pv of pf.primVars ?? []) {
      const t = subst.get(pv);
      if (t && !isPrimType(t) && t.tag !== 'unknown')
        this.log.add(diag('SCF3012', this.span(e), showType(t)));
    }
    const ret = substitute(pf.ret, subst);
    switch (pf.lower.kind) {
      case 'prim':
        return { e: this.prim(e, pf.lower.op, core), t: ret };
      case 'ctor':
        return { e: this.mk<Core.Con>(e, { kind: 'con', ctor: pf.lower.ctor, args: core }), t: ret };
      case 'getOr': {
        const [o, d] = core as [Core.Expr, Core.Expr];
        return {
          e: this.share(e, o, (v) =>
            this.ifE(
              e,
              this.mk<Core.Test>(e, { kind: 'test', ctor: 'some', arg: v() }),
              this.mk<Core.Proj>(e, { kind: 'proj', ctor: 'some', index: 0, arg: v() }),
              d,
            ),
          ),
          t: ret,
        };
      }
    }
  }
}

export type { FunctionNode };
