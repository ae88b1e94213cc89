/**
 * Module loading and declarations: the first half of the SCF-lang front end.
 *
 * Algorithm
 * 1. Parse the entry file with oxc-parser (an optional package, loaded by the first parse:
 *    common/optional.ts) and follow its relative imports, transitively.
 *    Imports of the prelude (`scf/prelude`, or a relative path to this package's prelude) bind
 *    prelude names; `scf/kernel` names the kernel AST and the built-in optimizers' shared helpers
 *    (for a user's optimizer outside this package); any other import is rejected.
 * 2. Collect each module's top-level declarations: functions, type aliases, interfaces,
 *    constants, imports. Everything else at the top level is a diagnostic. A constant whose
 *    value is not a plain literal is kept pending and evaluated on its first read (the front
 *    end's `ConstEvaluator`, constants.ts), so constants may read one another in any order.
 * 3. Resolve type syntax to `Type`s. A type naming an interface with a `kind: 'lit'` field is
 *    a one-constructor data type; a union of such members is a data type with every
 *    constructor. Constructors are registered by kind, which must be unique program-wide.
 *    Data types are resolved by name first (only constructor sets are needed), field types
 *    afterwards, so recursive types need no fixpoint.
 * 4. Resolve function signatures (every parameter and the result annotated). A generic
 *    function's type parameters are type variables in its signature (no bounds, no defaults),
 *    instantiated at each call by the elaborator.
 *
 * Invariant: nothing here throws on bad input; every problem becomes a diagnostic and
 * resolution continues with `unknown` so later errors are still found.
 */
import path from 'node:path';
import type {
  Expression,
  Function as FunctionNode,
  ImportDeclaration,
  Program as OxcProgram,
  Statement,
  TSInterfaceDeclaration,
  TSSignature,
  TSType,
  TSTypeAliasDeclaration,
} from 'oxc-parser';
import { optionalPackage, readFailure, readSourceFile, SOURCE_ROOT } from '../common/index.js';
import type { Span } from './core.js';
import type { CtorInfo, FieldInfo, SourceReader } from './compile-types.js';
import { type Diagnostic, type DiagnosticLog, diag } from './diagnostics.js';
import { firstTooDeepOffset, MAX_SCF_NESTING } from './nesting.js';
import { BOOL, listType, NUM, optionType, STR, substitute, type Type, UNKNOWN } from './types.js';
import type { Value } from './values.js';

export const PRELUDE_SPECIFIER = 'scf/prelude';

/** `scf/kernel`: the kernel AST and the helpers shared by the built-in optimizers, for a user's optimizer. */
export const KERNEL_SPECIFIER = 'scf/kernel';

/** The SCF-lang modules `scf/kernel` names, searched in this order (see src/kernel/public.ts). */
export const KERNEL_MODULES: readonly string[] = [
  'kernel/ast.ts',
  'optimizers/kernel-walk.ts',
  'optimizers/leaf.generated.ts',
  'kernel/expr-info.ts',
  'kernel/builtins.generated.ts',
  'optimizers/lattice.ts',
].map((f) => path.join(SOURCE_ROOT, f));
export const PRELUDE_PATH = path.join(SOURCE_ROOT, 'scf-lang/prelude.ts');
/** Most modules imported inside one another (a longer chain is SCF1007). */
export const MAX_IMPORT_DEPTH = 200;

/** A top-level constant: its value, known when the module is compiled, and its type. */
export interface ConstDecl {
  readonly value: Value;
  readonly type: Type;
}

/** A top-level constant whose value is not a literal: evaluated when first read (`constants.ts`). */
export interface PendingConst {
  readonly name: string;
  readonly init: Expression;
  readonly annotation: TSType | undefined;
  /** The declared name, where diagnostics about the constant point. */
  readonly at: { readonly type: string; readonly start: number; readonly end: number };
}

/** Evaluates a pending constant of module `m` (set by the front end, `constants.ts`). */
export type ConstEvaluator = (m: Module, c: PendingConst) => ConstDecl;

export interface ImportBinding {
  readonly from: Module | 'prelude';
  readonly name: string;
  readonly span: Span;
}

export interface Module {
  /** Absolute path. */
  readonly path: string;
  /** The path as shown in diagnostics (relative to the working directory). */
  readonly file: string;
  /** Qualifier of this module's functions in Core. */
  coreName: string;
  readonly text: string;
  readonly ast: OxcProgram;
  readonly typeDecls: Map<string, TSTypeAliasDeclaration | TSInterfaceDeclaration>;
  readonly funs: Map<string, FunctionNode>;
  readonly consts: Map<string, ConstDecl>;
  /** Constants not yet evaluated (their value is data, not a literal). */
  readonly pendingConsts: Map<string, PendingConst>;
  readonly imports: Map<string, ImportBinding>;
  readonly exports: Set<string>;
  /** Names imported from a module that could not be loaded: their uses are not reported again. */
  readonly brokenImports: Set<string>;
}

/** A constructor as declared: what `CtorInfo` tells, and its field syntax until it is resolved. */
export interface DeclaredCtor extends CtorInfo {
  /** Unresolved field syntax, resolved in `resolveFieldTypes`. */
  readonly pending?: { readonly module: Module; readonly members: readonly TSSignature[] };
}

export interface FunSig {
  readonly name: string;
  readonly coreName: string;
  readonly module: Module;
  readonly node: FunctionNode;
  readonly params: readonly { readonly name: string; readonly type: Type; readonly span: Span }[];
  readonly ret: Type;
  readonly exported: boolean;
  /** A parameter was rejected (default, rest, destructured): calls are not held to the arity. */
  readonly paramsRejected: boolean;
  /** The type parameters (`function nth<T>(…)`): type variables in `params` and `ret`, instantiated per call. */
  readonly typeParams: readonly string[];
}

// ---- prelude types ------------------------------------------------------------------------

const T: Type = { tag: 'var', name: 'T' };

export { listType, optionType } from './types.js';

function preludeCtors(): CtorInfo[] {
  return [
    { kind: 'none', typeName: 'Option', fields: [], typeParams: ['T'], span: null },
    { kind: 'some', typeName: 'Option', fields: [{ name: 'value', type: T }], typeParams: ['T'], span: null },
    { kind: 'nil', typeName: 'List', fields: [], typeParams: ['T'], span: null },
    {
      kind: 'cons',
      typeName: 'List',
      fields: [
        { name: 'head', type: T },
        { name: 'tail', type: listType(T) },
      ],
      typeParams: ['T'],
      span: null,
    },
  ];
}

/** Field `field` of constructor `c` at the type arguments of the data type it was read from. */
export function fieldType(c: CtorInfo, field: FieldInfo, args: readonly Type[]): Type {
  if (c.typeParams.length === 0) return field.type;
  const s = new Map<string, Type>();
  c.typeParams.forEach((p, i) => {
    s.set(p, args[i] ?? UNKNOWN);
  });
  return substitute(field.type, s);
}

// ---- the program's declarations -----------------------------------------------------------

export class Declarations {
  readonly modules = new Map<string, Module>();
  readonly ctors = new Map<string, DeclaredCtor>();
  readonly sigs = new Map<Module, Map<string, FunSig>>();
  readonly sources = new Map<string, string>();
  private readonly named = new Map<string, Type | 'resolving'>();
  /** Modules too deeply nested to parse (SCF1006, reported once). */
  private readonly tooDeep = new Set<string>();
  /** Type parameters of the generic function whose signature is being resolved: type variables. */
  private typeParamsInScope: ReadonlySet<string> = new Set();
  /** Modules being loaded inside one another (`load`). */
  private importDepth = 0;

  constructor(
    readonly log: DiagnosticLog,
    private readonly read: SourceReader = readSourceFile,
    private readonly cwd: string = process.cwd(),
  ) {
    for (const c of preludeCtors()) this.ctors.set(c.kind, c);
  }

  /** Reports `d` about a type, which then stands as `unknown` (the checker's wildcard: no errors follow). */
  private unknownType(d: Diagnostic): Type {
    this.log.add(d);
    return UNKNOWN;
  }

  span(m: Module, node: { start: number; end: number }): Span {
    return { file: m.file, start: node.start, end: node.end };
  }

  // ---- 1. loading ----

  /**
   * Loads `absPath` and everything it imports; null when the entry itself cannot be read. Imports
   * are loaded depth first, one call per module: a chain of imports deeper than
   * `MAX_IMPORT_DEPTH` modules is one diagnostic (SCF1007), not a stack overflow.
   */
  load(absPath: string, from?: { module: Module; span: Span }): Module | null {
    if (from !== undefined && !this.modules.has(absPath) && this.importDepth >= MAX_IMPORT_DEPTH) {
      this.log.add(diag('SCF1007', from.span, MAX_IMPORT_DEPTH));
      return null;
    }
    this.importDepth++;
    try {
      return this.loadModule(absPath, from);
    } finally {
      this.importDepth--;
    }
  }

  private loadModule(absPath: string, from?: { module: Module; span: Span }): Module | null {
    const existing = this.modules.get(absPath);
    if (existing) return existing;
    if (this.tooDeep.has(absPath)) return null;
    const file = path.relative(this.cwd, absPath) || absPath;
    let text: string;
    try {
      text = this.read(absPath);
    } catch (e) {
      const why = readFailure(e);
      this.log.add(diag('SCF1002', from?.span ?? null, file, why));
      return null;
    }
    this.sources.set(file, text);
    // oxc-parser overflows the native stack (a segmentation fault) on deep enough syntax, and the
    // front end after it the JS stack: too deep a module is one diagnostic, and is not parsed.
    const deep = firstTooDeepOffset(text);
    if (deep !== undefined) {
      this.tooDeep.add(absPath);
      this.log.add(diag('SCF1006', { file, start: deep.offset, end: deep.offset + 1 }, MAX_SCF_NESTING));
      return null;
    }
    const { parseSync } = optionalPackage<typeof import('oxc-parser')>('oxc-parser');
    const parsed = parseSync(absPath, text, { lang: 'ts', sourceType: 'module', preserveParens: true });
    const m: Module = {
      path: absPath,
      file,
      coreName: path.basename(absPath).replace(/\.[cm]?tsx?$/, ''),
      text,
      ast: parsed.program,
      typeDecls: new Map(),
      funs: new Map(),
      consts: new Map(),
      pendingConsts: new Map(),
      imports: new Map(),
      exports: new Set(),
      brokenImports: new Set(),
    };
    this.modules.set(absPath, m);
    if (parsed.errors.length > 0) {
      for (const err of parsed.errors) {
        const label = err.labels[0];
        const span: Span = label ? { file, start: label.start, end: label.end } : { file, start: 0, end: 0 };
        this.log.add(diag('SCF1001', span, err.message));
      }
      return m;
    }
    this.collect(m);
    return m;
  }

  /** Gives modules with the same file name distinct Core qualifiers. */
  disambiguateNames(): void {
    const byName = new Map<string, Module[]>();
    for (const m of this.modules.values()) byName.set(m.coreName, [...(byName.get(m.coreName) ?? []), m]);
    for (const group of byName.values()) {
      if (group.length < 2) continue;
      for (const m of group) m.coreName = m.file.replace(/\.[cm]?tsx?$/, '').replace(/[\\/]/g, '.');
    }
  }

  // ---- 2. top-level declarations ----

  private collect(m: Module): void {
    for (const stmt of m.ast.body) this.collectTop(m, stmt as Statement, false);
  }

  private declare(m: Module, name: string, node: { start: number; end: number }): boolean {
    if (m.funs.has(name) || m.consts.has(name) || m.pendingConsts.has(name) || m.imports.has(name)) {
      this.log.add(diag('SCF3008', this.span(m, node), name));
      return false;
    }
    return true;
  }

  private collectTop(m: Module, stmt: Statement, exported: boolean): void {
    const sp = this.span(m, stmt);
    switch (stmt.type) {
      case 'ImportDeclaration':
        this.collectImport(m, stmt);
        return;
      case 'ExportNamedDeclaration':
        if (stmt.source !== null || stmt.declaration === null) {
          this.log.add(diag('SCF1004', sp, "'export { … }' lists and re-exports"));
          return;
        }
        this.collectTop(m, stmt.declaration as Statement, true);
        return;
      case 'FunctionDeclaration': {
        const name = stmt.id?.name ?? '';
        if (!this.declare(m, name, stmt.id ?? stmt)) return;
        m.funs.set(name, stmt);
        if (exported) m.exports.add(name);
        return;
      }
      case 'TSTypeAliasDeclaration':
      case 'TSInterfaceDeclaration': {
        const name = stmt.id.name;
        if (m.typeDecls.has(name)) {
          this.log.add(diag('SCF3008', this.span(m, stmt.id), name));
          return;
        }
        m.typeDecls.set(name, stmt);
        if (exported) m.exports.add(name);
        return;
      }
      case 'VariableDeclaration':
        this.collectConst(m, stmt, exported);
        return;
      case 'EmptyStatement':
        return;
      case 'ClassDeclaration':
        this.log.add(diag('SCF2006', sp));
        return;
      case 'TSEnumDeclaration':
        this.log.add(diag('SCF1004', sp, 'an enum (use a union of string literals or kinds)'));
        return;
      case 'ExportDefaultDeclaration':
        this.log.add(diag('SCF1004', sp, "'export default'"));
        return;
      case 'ExportAllDeclaration':
        this.log.add(diag('SCF1004', sp, "'export *'"));
        return;
      default:
        this.log.add(diag('SCF1004', sp, describeStatement(stmt)));
    }
  }

  private collectConst(
    m: Module,
    stmt: Statement & { type: 'VariableDeclaration' },
    exported: boolean,
  ): void {
    if (stmt.kind !== 'const') {
      this.log.add(
        diag('SCF2032', this.span(m, { start: stmt.start, end: stmt.start + stmt.kind.length }), stmt.kind),
      );
    }
    for (const d of stmt.declarations) {
      if (d.id.type !== 'Identifier') {
        this.log.add(diag('SCF1004', this.span(m, d), 'a destructuring declaration'));
        continue;
      }
      if (d.init === null) {
        this.log.add(diag('SCF2018', this.span(m, d), 'a declaration without a value'));
        continue;
      }
      if (!this.declare(m, d.id.name, d.id)) continue;
      const lit = literalValue(d.init);
      const annotation = d.id.typeAnnotation?.typeAnnotation;
      if (lit !== null && annotation === undefined) {
        const type = typeof lit === 'number' ? NUM : typeof lit === 'string' ? STR : BOOL;
        m.consts.set(d.id.name, { value: lit, type });
      } else {
        const at = { type: 'Identifier', start: d.id.start, end: d.id.start + d.id.name.length };
        m.pendingConsts.set(d.id.name, { name: d.id.name, init: d.init, annotation, at });
      }
      if (exported) m.exports.add(d.id.name);
    }
  }

  private collectImport(m: Module, stmt: ImportDeclaration): void {
    const spec = stmt.source.value;
    const sp = this.span(m, stmt.source);
    let target: Module | 'prelude' | null = null;
    if (spec === KERNEL_SPECIFIER) {
      this.collectKernelImport(m, stmt, sp);
      return;
    }
    if (spec === PRELUDE_SPECIFIER) target = 'prelude';
    else if (spec.startsWith('./') || spec.startsWith('../')) {
      const abs = resolveRelative(m.path, spec);
      if (abs === PRELUDE_PATH) target = 'prelude';
      else target = this.load(abs, { module: m, span: sp });
    } else {
      this.log.add(diag('SCF1003', sp, spec));
      return;
    }
    if (target === null) {
      for (const s of stmt.specifiers) m.brokenImports.add(s.local.name);
      return;
    }
    const from = target;
    this.bindImports(m, stmt, () => from);
  }

  /**
   * `import { … } from 'scf/kernel'`: each name comes from the first of the kernel's SCF-lang
   * modules (`KERNEL_MODULES`: the AST types and the helpers the built-in optimizers share) that
   * exports it; a name none exports is reported against the first, as an unknown export.
   */
  private collectKernelImport(m: Module, stmt: ImportDeclaration, sp: Span): void {
    const mods: Module[] = [];
    for (const file of KERNEL_MODULES) {
      const k = this.load(file, { module: m, span: sp });
      if (k === null) {
        for (const s of stmt.specifiers) m.brokenImports.add(s.local.name);
        return;
      }
      mods.push(k);
    }
    this.bindImports(m, stmt, (imported) => mods.find((k) => k.exports.has(imported)) ?? (mods[0] as Module));
  }

  /**
   * Declares in `m` each name that `stmt` imports, bound to the module `source(imported)`
   * (SCF1004 for a default or namespace import).
   */
  private bindImports(
    m: Module,
    stmt: ImportDeclaration,
    source: (imported: string) => Module | 'prelude',
  ): void {
    for (const s of stmt.specifiers) {
      if (s.type !== 'ImportSpecifier') {
        this.log.add(
          diag('SCF1004', this.span(m, s), 'a default or namespace import (import names: { a, b })'),
        );
        continue;
      }
      const imported = s.imported.type === 'Identifier' ? s.imported.name : String(s.imported.value);
      const local = s.local.name;
      if (!this.declare(m, local, s.local)) continue;
      m.imports.set(local, { from: source(imported), name: imported, span: this.span(m, s) });
    }
  }

  /** Checks that every imported name exists in its module (after all modules are loaded). */
  checkImports(isPreludeName: (name: string) => boolean): void {
    for (const m of this.modules.values()) {
      for (const [, b] of m.imports) {
        if (b.from === 'prelude') {
          if (!isPreludeName(b.name) && !PRELUDE_TYPES.has(b.name))
            this.log.add(diag('SCF1005', b.span, b.name));
        } else if (!b.from.exports.has(b.name)) {
          this.log.add(diag('SCF1005', b.span, b.name));
        }
      }
    }
  }

  // ---- 3. types ----

  /** Resolves a named type as seen from module `m`; null when no such name exists. */
  resolveName(m: Module, name: string, args: readonly Type[], at: Span): Type | null {
    const local = m.typeDecls.get(name);
    if (local) return this.resolveDecl(m, local);
    const imp = m.imports.get(name);
    if (imp) {
      if (imp.from === 'prelude') return preludeType(imp.name, args);
      const target = imp.from;
      if (!target.exports.has(imp.name)) return UNKNOWN;
      return this.resolveName(target, imp.name, args, at);
    }
    return null;
  }

  private resolveDecl(m: Module, decl: TSTypeAliasDeclaration | TSInterfaceDeclaration): Type {
    const key = `${m.path}#${decl.id.name}`;
    const cached = this.named.get(key);
    if (cached === 'resolving') {
      return this.unknownType(
        diag('SCF2015', this.span(m, decl.id), 'a type alias that refers to itself without a constructor'),
      );
    }
    if (cached) return cached;
    this.named.set(key, 'resolving');
    if (decl.typeParameters) {
      this.log.add(diag('SCF2015', this.span(m, decl.typeParameters), 'generic type declarations'));
    }
    let t: Type;
    if (decl.type === 'TSInterfaceDeclaration') {
      if (decl.extends.length > 0)
        this.log.add(diag('SCF2015', this.span(m, decl), "'extends' on interfaces"));
      const kind = this.registerCtor(m, decl.id.name, decl.body.body, this.span(m, decl.id));
      t = kind === null ? UNKNOWN : { tag: 'data', name: decl.id.name, ctors: [kind], args: [] };
    } else {
      t = this.resolveAliasBody(m, decl.id.name, decl.typeAnnotation);
    }
    this.named.set(key, t);
    return t;
  }

  /** An alias body: a union of constructor members becomes one data type; anything else is an alias. */
  private resolveAliasBody(m: Module, name: string, body: TSType): Type {
    const members = body.type === 'TSUnionType' ? body.types : [body];
    const isDataMember = (t: TSType) =>
      t.type === 'TSTypeLiteral' || (t.type === 'TSTypeReference' && this.refersToData(m, t));
    if (body.type !== 'TSUnionType' && body.type !== 'TSTypeLiteral') return this.resolveType(m, body);
    if (!members.some(isDataMember)) return this.resolveType(m, body);
    const ctors: string[] = [];
    for (const mem of members) {
      if (mem.type === 'TSTypeLiteral') {
        const k = this.registerCtor(m, name, mem.members, this.span(m, mem));
        if (k !== null) ctors.push(k);
        continue;
      }
      const t = this.resolveType(m, mem);
      if (t.tag === 'data' && t.args.length === 0) ctors.push(...t.ctors.filter((c) => !ctors.includes(c)));
      else if (t.tag !== 'unknown') {
        this.log.add(diag('SCF2015', this.span(m, mem), 'a union mixing constructors with other types'));
      }
    }
    return { tag: 'data', name, ctors, args: [] };
  }

  private refersToData(m: Module, t: TSType & { type: 'TSTypeReference' }): boolean {
    if (t.typeName.type !== 'Identifier') return false;
    const r = this.resolveName(m, t.typeName.name, [], this.span(m, t));
    return r !== null && r.tag === 'data';
  }

  /** Registers the constructor declared by an object type with a `kind` literal; returns its kind. */
  private registerCtor(
    m: Module,
    typeName: string,
    members: readonly TSSignature[],
    at: Span,
  ): string | null {
    let kind: string | null = null;
    const fields: FieldInfo[] = [];
    let ok = true;
    for (const mem of members) {
      if (mem.type !== 'TSPropertySignature' || mem.computed || mem.key.type !== 'Identifier') {
        this.log.add(diag('SCF2015', this.span(m, mem), 'a member that is not a plain field'));
        ok = false;
        continue;
      }
      if (mem.optional) {
        this.log.add(diag('SCF2015', this.span(m, mem), 'an optional field (use Option<T>)'));
        ok = false;
      }
      const fname = mem.key.name;
      const ann = mem.typeAnnotation?.typeAnnotation;
      if (fname === 'kind') {
        if (
          ann?.type === 'TSLiteralType' &&
          ann.literal.type === 'Literal' &&
          typeof ann.literal.value === 'string'
        ) {
          kind = ann.literal.value;
        } else {
          this.log.add(
            diag('SCF3006', this.span(m, mem), "the 'kind' field must have a string literal type"),
          );
          ok = false;
        }
        continue;
      }
      if (fields.some((f) => f.name === fname)) {
        this.log.add(diag('SCF3008', this.span(m, mem.key), fname));
        continue;
      }
      fields.push({ name: fname, type: UNKNOWN });
    }
    if (kind === null) {
      if (ok)
        this.log.add(diag('SCF3006', at, `'${typeName}' has no 'kind' field: data types are tagged unions`));
      return null;
    }
    if (kind.startsWith('#')) {
      this.log.add(diag('SCF3006', at, `kind '${kind}' is reserved`));
      return null;
    }
    const existing = this.ctors.get(kind);
    const info: DeclaredCtor = {
      kind,
      typeName,
      fields,
      typeParams: [],
      span: at,
      pending: { module: m, members },
    };
    if (existing) {
      const same =
        existing.span !== null &&
        existing.fields.length === fields.length &&
        existing.fields.every((f, i) => f.name === fields[i]?.name);
      if (!same || existing.span === null) {
        this.log.add(diag('SCF3007', at, kind));
        return null;
      }
      return kind;
    }
    this.ctors.set(kind, info);
    return kind;
  }

  /** Resolves every registered constructor's field types (after all names are known). */
  resolveFieldTypes(): void {
    let progress = true;
    const done = new Set<string>();
    while (progress) {
      progress = false;
      for (const c of [...this.ctors.values()]) {
        if (done.has(c.kind) || !c.pending) continue;
        done.add(c.kind);
        progress = true;
        const { module, members } = c.pending;
        for (const mem of members) {
          if (mem.type !== 'TSPropertySignature' || mem.key.type !== 'Identifier' || mem.key.name === 'kind')
            continue;
          const key = mem.key.name;
          const f = c.fields.find((x) => x.name === key);
          const ann = mem.typeAnnotation?.typeAnnotation;
          if (!f) continue;
          if (!ann) {
            this.log.add(diag('SCF2018', this.span(module, mem), `field '${f.name}'`));
            continue;
          }
          f.type = this.resolveType(module, ann);
        }
      }
    }
  }

  /** `resolveType` where the type parameters `typeParams` (of a generic function's body) are in scope. */
  resolveTypeIn(m: Module, t: TSType, typeParams: readonly string[]): Type {
    const outer = this.typeParamsInScope;
    this.typeParamsInScope = new Set(typeParams);
    try {
      return this.resolveType(m, t);
    } finally {
      this.typeParamsInScope = outer;
    }
  }

  /** TS type syntax → `Type`, with diagnostics for what the subset does not have. */
  resolveType(m: Module, t: TSType): Type {
    const sp = this.span(m, t);
    switch (t.type) {
      case 'TSNumberKeyword':
        return NUM;
      case 'TSStringKeyword':
        return STR;
      case 'TSBooleanKeyword':
        return BOOL;
      case 'TSNeverKeyword':
        return { tag: 'data', name: 'never', ctors: [], args: [] };
      case 'TSAnyKeyword':
        return this.unknownType(diag('SCF2011', sp, 'any'));
      case 'TSUnknownKeyword':
        return this.unknownType(diag('SCF2011', sp, 'unknown'));
      case 'TSParenthesizedType':
        return this.resolveType(m, t.typeAnnotation);
      case 'TSLiteralType': {
        const v = t.literal.type === 'Literal' ? t.literal.value : undefined;
        if (typeof v === 'string') return STR;
        if (typeof v === 'number') return NUM;
        if (typeof v === 'boolean') return BOOL;
        return this.unknownType(diag('SCF2015', sp, 'this literal type'));
      }
      case 'TSUnionType': {
        // A union of literal types of one primitive type is that primitive type.
        const parts = t.types.map((x) => this.resolveType(m, x));
        const first = parts[0];
        if (
          first &&
          parts.every((p) => p.tag === first.tag && (p.tag === 'num' || p.tag === 'str' || p.tag === 'bool'))
        ) {
          return first;
        }
        if (parts.every((p) => p.tag === 'data' && p.args.length === 0)) {
          const ctors = [...new Set(parts.flatMap((p) => (p.tag === 'data' ? p.ctors : [])))];
          return {
            tag: 'data',
            name: parts.map((p) => (p.tag === 'data' ? p.name : '')).join(' | '),
            ctors,
            args: [],
          };
        }
        return this.unknownType(diag('SCF2015', sp, 'an untagged union (declare a tagged union type)'));
      }
      case 'TSTypeOperator':
        if (t.operator === 'readonly') {
          const inner = this.resolveType(m, t.typeAnnotation);
          return inner;
        }
        return this.unknownType(diag('SCF2015', sp, t.operator));
      case 'TSTupleType': {
        const elems: Type[] = [];
        for (const el of t.elementTypes) {
          if (el.type === 'TSNamedTupleMember') elems.push(this.resolveType(m, el.elementType as TSType));
          else if (el.type === 'TSOptionalType' || el.type === 'TSRestType') {
            this.log.add(diag('SCF2015', this.span(m, el), 'optional or rest tuple elements'));
            elems.push(UNKNOWN);
          } else elems.push(this.resolveType(m, el));
        }
        return { tag: 'tuple', elems };
      }
      case 'TSTypeReference': {
        if (t.typeName.type !== 'Identifier') {
          return this.unknownType(diag('SCF2015', sp, 'a qualified type name'));
        }
        const name = t.typeName.name;
        if (this.typeParamsInScope.has(name)) {
          if (t.typeArguments) this.log.add(diag('SCF2015', sp, 'type arguments on a type parameter'));
          return { tag: 'var', name };
        }
        const args = (t.typeArguments?.params ?? []).map((a) => this.resolveType(m, a));
        if (name === 'Array' || name === 'ReadonlyArray') {
          return this.unknownType(diag('SCF2015', sp, 'arrays (use List<T> from the prelude, or a tuple)'));
        }
        if (name === 'Map' || name === 'Set') {
          return this.unknownType(
            diag('SCF2015', sp, `the built-in ${name} (use PMap/PSet from the prelude)`),
          );
        }
        const r = this.resolveName(m, name, args, sp);
        if (r === null) {
          return this.unknownType(diag('SCF3003', sp, name));
        }
        if (r.tag === 'map' || r.tag === 'set') {
          const keyT = r.tag === 'map' ? r.key : r.elem;
          if (keyT.tag !== 'num' && keyT.tag !== 'str' && keyT.tag !== 'bool' && keyT.tag !== 'unknown') {
            this.log.add(diag('SCF3012', sp, `${keyT.tag === 'data' ? keyT.name : keyT.tag}`));
          }
        }
        return r;
      }
      case 'TSArrayType':
        return this.unknownType(diag('SCF2015', sp, 'arrays (use List<T> from the prelude, or a tuple)'));
      case 'TSFunctionType':
      case 'TSConstructorType':
        return this.unknownType(diag('SCF2004', sp, 'function types (higher-order parameters)'));
      case 'TSTypeLiteral':
        return this.unknownType(diag('SCF2015', sp, 'an inline object type outside a type declaration'));
      default:
        return this.unknownType(diag('SCF2015', sp, sourceText(m, t)));
    }
  }

  // ---- 4. signatures ----

  resolveSignatures(): void {
    for (const m of this.modules.values()) {
      const sigs = new Map<string, FunSig>();
      this.sigs.set(m, sigs);
      for (const [name, node] of m.funs) {
        const sp = this.span(m, node.id ?? node);
        const typeParams: string[] = [];
        for (const tp of node.typeParameters?.params ?? []) {
          // a bound or a default would need subtyping the checker does not have
          if (tp.constraint || tp.default)
            this.log.add(
              diag('SCF2016', this.span(m, tp), tp.name.name, tp.constraint ? 'a bound' : 'a default'),
            );
          if (typeParams.includes(tp.name.name))
            this.log.add(diag('SCF3008', this.span(m, tp.name), tp.name.name));
          else typeParams.push(tp.name.name);
        }
        this.typeParamsInScope = new Set(typeParams);
        if (node.async || node.generator) this.log.add(diag('SCF2024', sp, 'async functions and generators'));
        const params: { name: string; type: Type; span: Span }[] = [];
        let paramsRejected = false;
        for (const p of node.params) {
          const psp = this.span(m, p);
          if (p.type === 'Identifier') {
            if (p.optional) this.log.add(diag('SCF2017', psp, 'optional'));
            const ann = p.typeAnnotation?.typeAnnotation;
            if (!ann) this.log.add(diag('SCF2018', psp, `parameter '${p.name}'`));
            params.push({ name: p.name, type: ann ? this.resolveType(m, ann) : UNKNOWN, span: psp });
          } else {
            const what =
              p.type === 'AssignmentPattern' ? 'default' : p.type === 'RestElement' ? 'rest' : 'destructured';
            this.log.add(diag('SCF2017', psp, what));
            // the names it binds stand as `unknown` in the body, so their uses add no errors
            for (const name of patternNames(p)) params.push({ name, type: UNKNOWN, span: psp });
            paramsRejected = true;
          }
        }
        const retAnn = node.returnType?.typeAnnotation;
        if (!retAnn) this.log.add(diag('SCF2018', sp, `the result of '${name}'`));
        const ret = retAnn ? this.resolveType(m, retAnn) : UNKNOWN;
        this.typeParamsInScope = new Set();
        sigs.set(name, {
          name,
          coreName: `${m.coreName}.${name}`,
          module: m,
          node,
          params,
          ret,
          exported: m.exports.has(name),
          paramsRejected,
          typeParams,
        });
      }
    }
  }

  /**
   * The signature a call to `name` in module `m` reaches, following imports; null when none does,
   * or when the imports go round in a cycle (`import { q } from './self.js'` in self.ts).
   */
  lookupFun(m: Module, name: string): FunSig | null {
    const seen = new Set<string>();
    for (let at = m, n = name; !seen.has(`${at.file}\u0000${n}`); ) {
      seen.add(`${at.file}\u0000${n}`);
      const local = this.sigs.get(at)?.get(n);
      if (local) return local;
      const imp = at.imports.get(n);
      if (!imp || imp.from === 'prelude') return null;
      at = imp.from;
      n = imp.name;
    }
    return null;
  }

  /** Evaluates the constants whose value is data (set by the front end). */
  constEvaluator: ConstEvaluator | null = null;
  /** Constants being evaluated (`module path#name`): reading one again is a cycle. */
  private readonly evaluating = new Set<string>();

  /**
   * The constant `name` in module `m` is, following exported imports (null on a cycle of imports
   * too). A constant whose value is data is evaluated on its first read; one whose value reads
   * itself, directly or through other constants, is SCF3018 and stands as `unknown`.
   */
  lookupConst(m: Module, name: string): ConstDecl | null {
    const seen = new Set<string>();
    for (let at = m, n = name; !seen.has(`${at.file}\u0000${n}`); ) {
      seen.add(`${at.file}\u0000${n}`);
      const local = at.consts.get(n);
      if (local) return local;
      const pending = at.pendingConsts.get(n);
      if (pending && this.constEvaluator) return this.evaluateConst(at, pending, this.constEvaluator);
      const imp = at.imports.get(n);
      if (!imp || imp.from === 'prelude' || !imp.from.exports.has(imp.name)) return null;
      at = imp.from;
      n = imp.name;
    }
    return null;
  }

  private evaluateConst(m: Module, c: PendingConst, evaluate: ConstEvaluator): ConstDecl {
    const key = `${m.path}#${c.name}`;
    if (this.evaluating.has(key)) {
      this.log.add(diag('SCF3018', this.span(m, c.at), c.name));
      return { value: 0, type: UNKNOWN };
    }
    this.evaluating.add(key);
    const done = evaluate(m, c);
    this.evaluating.delete(key);
    m.pendingConsts.delete(c.name);
    m.consts.set(c.name, done);
    return done;
  }
}

const PRELUDE_TYPES = new Set(['PMap', 'PSet', 'Option', 'List', 'Prim']);

function preludeType(name: string, args: readonly Type[]): Type | null {
  const a = (i: number) => args[i] ?? UNKNOWN;
  switch (name) {
    case 'PMap':
      return { tag: 'map', key: a(0), val: a(1) };
    case 'PSet':
      return { tag: 'set', elem: a(0) };
    case 'Option':
      return optionType(a(0));
    case 'List':
      return listType(a(0));
    default:
      return null;
  }
}

function resolveRelative(fromPath: string, spec: string): string {
  const base = path.resolve(path.dirname(fromPath), spec);
  if (/\.js$/.test(base)) return base.replace(/\.js$/, '.ts');
  if (/\.ts$/.test(base)) return base;
  return `${base}.ts`;
}

export function literalValue(e: unknown): number | string | boolean | null {
  const node = e as { type?: string; value?: unknown; operator?: string; argument?: unknown } | null;
  if (!node) return null;
  if (node.type === 'Literal') {
    const v = node.value;
    return typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean' ? v : null;
  }
  if (node.type === 'UnaryExpression' && node.operator === '-') {
    const inner = literalValue(node.argument);
    return typeof inner === 'number' ? -inner : null;
  }
  if (node.type === 'ParenthesizedExpression')
    return literalValue((node as { expression?: unknown }).expression);
  return null;
}

/** The names a binding pattern binds (an identifier, or those inside a destructuring, rest or default). */
export function patternNames(p: unknown): string[] {
  const n = p as { type?: string; name?: string; left?: unknown; argument?: unknown; value?: unknown } | null;
  switch (n?.type) {
    case 'Identifier':
      return [n.name as string];
    case 'AssignmentPattern':
      return patternNames(n.left);
    case 'RestElement':
      return patternNames(n.argument);
    case 'ArrayPattern':
      return (p as { elements: unknown[] }).elements.flatMap(patternNames);
    case 'ObjectPattern':
      return (p as { properties: unknown[] }).properties.flatMap((q) =>
        (q as { type: string }).type === 'RestElement'
          ? patternNames(q)
          : patternNames((q as { value: unknown }).value),
      );
    default:
      return [];
  }
}

function sourceText(m: Module, node: { start: number; end: number }): string {
  const s = m.text.slice(node.start, node.end);
  return s.length > 40 ? `${s.slice(0, 37)}...` : s;
}

export function describeStatement(s: { type: string }): string {
  const names: Record<string, string> = {
    ExpressionStatement: 'an expression statement',
    IfStatement: 'an if statement',
    ForStatement: 'a for loop',
    WhileStatement: 'a while loop',
    ClassDeclaration: 'a class',
  };
  return names[s.type] ?? `a ${s.type.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase()}`;
}
