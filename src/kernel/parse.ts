/**
 * C source → kernel AST, through tree-sitter-c (web-tree-sitter). The grammar does the parsing; this
 * file checks that the tree stays inside the kernel subset, type-checks it, and elaborates it:
 *
 * - implicit C conversions become `cast` nodes with `implicit: true` (usual arithmetic conversions,
 *   assignment/argument/return conversions), so every typed node's operands already have its type;
 * - sugar is removed: `for` → init; `while` (isFor), `x op= e` → `x = x op e`, `x++` → `x = x + 1`,
 *   `T x = e;` → hoisted local + assignment, `T a[3] = {..}` → stores (missing elements are zero);
 * - block scoping is resolved: declarations are hoisted into `Fun.locals`; a declaration that shadows
 *   a visible name, or reuses a name with another type, gets a fresh name (`x_1`); one that reuses a
 *   name no longer visible with the same type shares the earlier local;
 * - a unary minus applied to a literal is folded into a negative literal;
 * - statement lists become right-nested `seq`s without `skip` elements (canonical, so that
 *   parse(print(parse(s))) equals parse(s) modulo labels).
 *
 * Errors never throw: each is a `Diagnostic` (one per statement at most, to avoid cascades) and the
 * returned program is only meaningful when there are none. Labels are unique; `spans` maps each
 * label to the position of the syntax it came from (used for runtime error positions).
 */
import type { Node, Parser } from 'web-tree-sitter';
import type { Option } from '../scf-lang/prelude.js';
import type { Cmd, Decl, Expr, Fun, Lam, Param, Program, Soac, SoacArg } from './ast.js';
import type { SourceSpan } from '../common/index.js';
import {
  codes,
  type Diagnostic,
  diag,
  type FactsOf,
  type KernelCode,
  type MessageForm,
} from './diagnostics.js';
import { decimalToFloat32 } from './float.js';
import { treeSitter } from './tree-sitter-files.js';
import { article, exprType, listFromArray } from './util.js';
import { BUILTIN_HEADERS, builtin, builtinForDouble, builtinSignature } from './builtins.js';

export interface ParseResult {
  readonly program: Program;
  readonly diagnostics: readonly Diagnostic[];
  /** Where in `source` the syntax each label came from is (offsets). */
  readonly spans: ReadonlyMap<number, SourceSpan>;
  readonly file: string;
  /**
   * The kernel's text by file name (one entry), as SCF-lang's `compileFile` gives its sources:
   * `formatDiagnostic(d, sources)` prints a diagnostic with its line, column and code frame.
   */
  readonly sources: ReadonlyMap<string, string>;
}

let parserPromise: Promise<Parser> | undefined;
let loadedParser: Parser | undefined;

/** Loads tree-sitter and the C grammar once (cached); `parseKernelSync` needs this to have finished. */
export function loadKernelParser(): Promise<void> {
  parserPromise ??= (async () => {
    const { ts, grammar } = await treeSitter();
    const { Language, Parser } = ts;
    await Parser.init();
    const language = await Language.load(grammar);
    const parser = new Parser();
    parser.setLanguage(language);
    loadedParser = parser;
    return parser;
  })();
  return parserPromise.then(() => undefined);
}

/** Parses and checks a kernel source file. */
export async function parseKernel(source: string, file = '<input>'): Promise<ParseResult> {
  await loadKernelParser();
  return parseKernelSync(source, file);
}

/** As `parseKernel`, once `loadKernelParser()` has resolved. */
export function parseKernelSync(source: string, file = '<input>'): ParseResult {
  if (!loadedParser) throw new Error('internal error: call loadKernelParser() before parseKernelSync()');
  const tree = loadedParser.parse(source);
  if (!tree) throw new Error('internal error: tree-sitter returned no tree');
  try {
    const ctx: Ctx = { file, diags: [], spans: new Map(), nextLbl: 1, funs: new Map(), suffixes: new Map() };
    // The conversion recurses along the tree: it only runs on trees of bounded depth.
    const program: Program = checkTree(ctx, tree.rootNode)
      ? convertUnit(ctx, tree.rootNode)
      : { kind: 'nil' };
    const diagnostics = [...ctx.diags].sort((a, b) => (a.span?.start ?? 0) - (b.span?.start ?? 0));
    return { program, diagnostics, spans: ctx.spans, file, sources: new Map([[file, source]]) };
  } finally {
    tree.delete();
  }
}

// ---- context -------------------------------------------------------------------------------------

interface Sig {
  readonly name: string;
  readonly ret: string;
  readonly params: readonly Param[];
}

interface Ctx {
  readonly file: string;
  readonly diags: Diagnostic[];
  readonly spans: Map<number, SourceSpan>;
  nextLbl: number;
  readonly funs: Map<string, Sig>;
  /**
   * Per base name, the least k for which `${base}_${k}` may still be free in the function being
   * converted (every smaller k is taken: names are only ever added), so fresh names cost O(1).
   */
  readonly suffixes: Map<string, number>;
}

interface VarInfo {
  readonly name: string;
  readonly ty: string;
  readonly isArray: boolean;
  readonly isConst: boolean;
  /** Array size for local arrays (-1 for parameters and scalars). */
  readonly size: number;
}

interface FunCtx {
  readonly ctx: Ctx;
  readonly sig: Sig;
  readonly scopes: Map<string, VarInfo>[];
  readonly locals: { decl: Decl; orig: string }[];
  /** The locals by source name, in declaration order (the candidates for sharing a local). */
  readonly localsByOrig: Map<string, { decl: Decl; orig: string }[]>;
  /** How many visible declarations (over all scopes) use each unique name. */
  readonly visible: Map<string, number>;
  /** Names taken in this function, besides the program's function names (`isUsed`). */
  readonly used: Set<string>;
  /** Lambdas made so far in this function (numbers their parameters: `x_1`, `x_2`, …). */
  lams: number;
}

/** Thrown inside a statement's conversion after its diagnostic is recorded; caught per statement. */
class Bail extends Error {}

function spanOf(ctx: Ctx, n: { readonly startIndex: number; readonly endIndex: number }): SourceSpan {
  return { file: ctx.file, start: n.startIndex, end: n.endIndex };
}

/** A diagnostic at a node: the node, the code, the form of its message and its facts (diagnostics.ts). */
type At<C extends KernelCode, F extends MessageForm<C>> = [
  n: Node,
  code: C,
  form: F,
  ...facts: FactsOf<C, F>,
];

/** Records the diagnostic `at` describes. */
function report<C extends KernelCode, F extends MessageForm<C>>(ctx: Ctx, ...at: At<C, F>): void {
  const [n, code, form, ...facts] = at;
  ctx.diags.push(diag(code, form, spanOf(ctx, n), ...(facts as FactsOf<C, F>)));
}

/** `report`, then leaves the statement being converted. */
function fail<C extends KernelCode, F extends MessageForm<C>>(ctx: Ctx, ...at: At<C, F>): never {
  report(ctx, ...at);
  throw new Bail();
}

function label(ctx: Ctx, n: Node): number {
  const l = ctx.nextLbl++;
  ctx.spans.set(l, spanOf(ctx, n));
  return l;
}

function named(n: Node): Node[] {
  return n.namedChildren.filter((c): c is Node => c !== null && c.type !== 'comment');
}

function field(n: Node, name: string): Node | null {
  return n.childForFieldName(name);
}

const NONE: Option<never> = { kind: 'none' };

function some<T>(value: T): Option<T> {
  return { kind: 'some', value };
}

/** Human-readable names of tree-sitter node types we reject. */
const UNSUPPORTED: Record<string, string> = {
  break_statement: "'break'",
  continue_statement: "'continue'",
  goto_statement: "'goto'",
  labeled_statement: 'labels',
  switch_statement: "'switch'",
  case_statement: "'case'",
  do_statement: "'do ... while'",
  pointer_expression: 'pointer dereference and address-of',
  field_expression: 'struct fields',
  sizeof_expression: "'sizeof'",
  string_literal: 'string literals',
  concatenated_string: 'string literals',
  char_literal: 'character literals',
  comma_expression: 'the comma operator',
  compound_literal_expression: 'compound literals',
  struct_specifier: 'structs',
  union_specifier: 'unions',
  enum_specifier: 'enums',
  type_definition: "'typedef'",
  preproc_def: "'#define'",
  preproc_function_def: "'#define'",
  preproc_if: "'#if'",
  preproc_ifdef: "'#ifdef'",
  null: "'NULL'",
  gnu_asm_expression: 'inline assembly',
  generic_expression: "'_Generic'",
  offsetof_expression: "'offsetof'",
};

function unsupported(ctx: Ctx, n: Node): never {
  const what = UNSUPPORTED[n.type] ?? `'${n.type.replace(/_/g, ' ')}'`;
  return fail(ctx, n, codes.unsupported, 'construct', what);
}

// ---- the tree as a whole: depth, syntax errors, identifiers -----------------------------------

/**
 * Most levels of syntax one inside another (tree-sitter nodes: `((x))` is two levels, an `if` with
 * a block two per `if`) that a kernel may have. The conversion below, the evaluator, the printer,
 * the optimizers and the back ends walk the tree recursively; each of them handles well over twice
 * this depth on node's default stack, so a deeper kernel gets one positioned error instead of a
 * stack overflow somewhere. (C requires compilers to accept 63 levels of parentheses and 127 of
 * blocks.) Long runs of statements do not nest: a block's statements are siblings.
 */
export const MAX_NESTING = 500;

/** A C identifier of the subset: ASCII letters, digits and `_` (no `$`, no Unicode). */
const C_IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
const IDENTIFIER_NODES = new Set([
  'identifier',
  'type_identifier',
  'field_identifier',
  'statement_identifier',
]);

/**
 * One iterative walk over the whole tree before the conversion: reports syntax errors (ERROR and
 * MISSING nodes, not those inside an ERROR), identifiers outside `C_IDENTIFIER` (tree-sitter
 * accepts Unicode letters and `$`, which no back end could name), and the first node nested more
 * than MAX_NESTING levels deep. Returns false when the tree is too deep to be converted.
 */
function checkTree(ctx: Ctx, root: Node): boolean {
  const cursor = root.walk();
  const hasError = root.hasError;
  const at = (): SourceSpan => spanOf(ctx, cursor);
  const push = <C extends KernelCode, F extends MessageForm<C>>(
    code: C,
    form: F,
    ...facts: FactsOf<C, F>
  ): void => {
    ctx.diags.push(diag(code, form, at(), ...facts));
  };
  try {
    let depth = 0;
    // The depth of the ERROR node being walked through (its contents are not reported), or -1.
    let inError = -1;
    for (;;) {
      if (depth > MAX_NESTING) {
        push(codes.tooDeep, 'nesting', MAX_NESTING);
        return false;
      }
      const type = cursor.nodeType;
      if (inError < 0) {
        if (hasError && cursor.nodeIsMissing) push(codes.missingToken, 'expected', type);
        else if (hasError && type === 'ERROR') {
          const text = cursor.nodeText.split('\n')[0]?.slice(0, 30) ?? '';
          push(codes.syntaxError, 'near', text);
          inError = depth;
        } else if (IDENTIFIER_NODES.has(type) && !C_IDENTIFIER.test(cursor.nodeText)) {
          push(codes.badIdentifier, 'identifier', cursor.nodeText);
        }
      }
      if (cursor.gotoFirstChild()) {
        depth++;
        continue;
      }
      for (;;) {
        if (inError === depth) inError = -1;
        if (cursor.gotoNextSibling()) break;
        if (!cursor.gotoParent()) return true;
        depth--;
      }
    }
  } finally {
    cursor.delete();
  }
}

// ---- types ---------------------------------------------------------------------------------------

/** The scalar type named by a type node: 'int' | 'float' | 'bool' | 'void'. */
function typeName(ctx: Ctx, n: Node | null, owner: Node): string {
  if (!n) return fail(ctx, owner, codes.unsupportedType, 'missing');
  if (n.type === 'primitive_type' || n.type === 'type_identifier') {
    switch (n.text) {
      case 'int':
      case 'float':
      case 'void':
        return n.text;
      case 'bool':
      case '_Bool':
        return 'bool';
      case 'double':
        return fail(ctx, n, codes.unsupportedType, 'double');
      default:
        return fail(ctx, n, codes.unsupportedType, 'type', n.text);
    }
  }
  if (n.type === 'sized_type_specifier') {
    return fail(ctx, n, codes.unsupportedType, 'type', n.text);
  }
  if (UNSUPPORTED[n.type]) return unsupported(ctx, n);
  return fail(ctx, n, codes.unsupportedType, 'type', n.text);
}

/** Whether a declaration-like node carries `const`, and rejects storage classes other than allowed ones. */
function qualifiers(ctx: Ctx, n: Node, allowStatic: boolean): boolean {
  let isConst = false;
  for (const c of named(n)) {
    if (c.type === 'type_qualifier') {
      if (c.text === 'const') isConst = true;
      else fail(ctx, c, codes.unsupported, 'qualifier', c.text);
    } else if (c.type === 'storage_class_specifier') {
      if (!(allowStatic && (c.text === 'static' || c.text === 'inline'))) {
        fail(ctx, c, codes.unsupported, 'storageClass', c.text);
      }
    } else if (c.type === 'attribute_specifier' || c.type === 'ms_declspec_modifier') {
      unsupported(ctx, c);
    }
  }
  return isConst;
}

// ---- translation unit ----------------------------------------------------------------------------

function convertUnit(ctx: Ctx, root: Node): Program {
  const defs: { node: Node; sig: Sig }[] = [];
  for (const item of named(root)) {
    if (item.hasError) continue;
    try {
      switch (item.type) {
        case 'preproc_include': {
          const path = field(item, 'path')?.text ?? '';
          // <math.h> and <stdlib.h> declare the builtins (builtins.ts), which kernels have without them
          if (path !== '<stdbool.h>' && !BUILTIN_HEADERS.has(path))
            fail(ctx, item, codes.unsupported, 'include', path);
          break;
        }
        case 'function_definition': {
          const sig = signature(ctx, item);
          if (COMBINATORS.has(sig.name)) {
            fail(ctx, item, codes.redefinition, 'combinator', sig.name);
          }
          if (builtin(sig.name) || builtinForDouble(sig.name)) {
            fail(ctx, definedName(item) ?? item, codes.redefinition, 'builtin', sig.name);
          }
          if (ctx.funs.has(sig.name)) {
            fail(ctx, item, codes.redefinition, 'function', sig.name);
          }
          ctx.funs.set(sig.name, sig);
          defs.push({ node: item, sig });
          break;
        }
        case 'declaration': {
          const decl = field(item, 'declarator');
          if (decl?.type === 'function_declarator') break; // a prototype: definitions are found anyway
          fail(ctx, item, codes.unsupported, 'globals');
          break;
        }
        case 'expression_statement':
          if (named(item).length > 0) unsupported(ctx, item);
          break;
        default:
          unsupported(ctx, item);
      }
    } catch (e) {
      if (!(e instanceof Bail)) throw e;
    }
  }
  const funs: Fun[] = [];
  for (const { node, sig } of defs) {
    const f = convertFun(ctx, node, sig);
    if (f) funs.push(f);
  }
  return listFromArray(funs);
}

/** The identifier a function definition defines. */
function definedName(n: Node): Node | undefined {
  let d = field(n, 'declarator');
  if (d?.type === 'pointer_declarator') d = field(d, 'declarator');
  const name = d?.type === 'function_declarator' ? field(d, 'declarator') : undefined;
  return name?.type === 'identifier' ? name : undefined;
}

function signature(ctx: Ctx, n: Node): Sig {
  qualifiers(ctx, n, true);
  const ret = typeName(ctx, field(n, 'type'), n);
  let decl = field(n, 'declarator');
  let returnsArray = false;
  if (decl?.type === 'pointer_declarator' && field(decl, 'declarator')?.type === 'function_declarator') {
    if (ret === 'void') fail(ctx, decl, codes.unsupportedType, 'voidPointerReturn');
    returnsArray = true;
    decl = field(decl, 'declarator');
  }
  if (decl?.type !== 'function_declarator') {
    return fail(ctx, decl ?? n, codes.unsupported, 'pointerReturn');
  }
  const nameNode = field(decl, 'declarator');
  if (nameNode?.type !== 'identifier') return unsupported(ctx, nameNode ?? decl);
  const params: Param[] = [];
  const plist = field(decl, 'parameters');
  const pnodes = plist ? named(plist) : [];
  const seen = new Set<string>();
  for (const p of pnodes) {
    if (p.type === 'variadic_parameter') fail(ctx, p, codes.unsupported, 'variadic');
    if (p.type !== 'parameter_declaration') unsupported(ctx, p);
    const isConst = qualifiers(ctx, p, false);
    const ty = typeName(ctx, field(p, 'type'), p);
    let d = field(p, 'declarator');
    if (!d && ty === 'void' && pnodes.length === 1) break; // f(void)
    if (!d) return fail(ctx, p, codes.unsupported, 'unnamedParameter');
    if (ty === 'void') fail(ctx, p, codes.unsupportedType, 'voidParameter');
    let isArray = false;
    if (d.type === 'array_declarator' || d.type === 'pointer_declarator') {
      isArray = true;
      d = field(d, 'declarator');
      if (d?.type !== 'identifier') {
        return fail(ctx, d ?? p, codes.unsupported, 'arrayParameterRank');
      }
    }
    if (d.type !== 'identifier') return unsupported(ctx, d);
    if (seen.has(d.text)) fail(ctx, d, codes.redefinition, 'parameter', d.text);
    seen.add(d.text);
    params.push({ kind: 'param', name: d.text, ty, isArray, isConst, lbl: label(ctx, p) });
  }
  return { name: nameNode.text, ret: returnsArray ? `${ret}[]` : ret, params };
}

function convertFun(ctx: Ctx, n: Node, sig: Sig): Fun | undefined {
  const fx: FunCtx = {
    ctx,
    sig,
    scopes: [new Map()],
    locals: [],
    localsByOrig: new Map(),
    visible: new Map(),
    used: new Set(),
    lams: 0,
  };
  ctx.suffixes.clear();
  for (const p of sig.params) {
    setVisible(fx, 0, p.name, { name: p.name, ty: p.ty, isArray: p.isArray, isConst: p.isConst, size: -1 });
    fx.used.add(p.name);
  }
  const lbl = label(ctx, n);
  const bodyNode = field(n, 'body');
  const out: Cmd[] = [];
  // The body block shares the parameters' scope (C forbids redeclaring a parameter there).
  if (bodyNode) for (const s of named(bodyNode)) stmt(fx, s, out);
  return {
    kind: 'fun',
    name: sig.name,
    ret: sig.ret,
    params: listFromArray(sig.params),
    locals: listFromArray(fx.locals.map((l) => l.decl)),
    body: seqOf(ctx, n, out),
    fns: { kind: 'nil' },
    lbl,
  };
}

function seqOf(ctx: Ctx, n: Node, cmds: readonly Cmd[]): Cmd {
  if (cmds.length === 0) return { kind: 'skip', lbl: label(ctx, n) };
  let acc = cmds[cmds.length - 1] as Cmd;
  for (let i = cmds.length - 2; i >= 0; i--) {
    acc = { kind: 'seq', first: cmds[i] as Cmd, second: acc, lbl: label(ctx, n) };
  }
  return acc;
}

// ---- scopes --------------------------------------------------------------------------------------

function lookup(fx: FunCtx, name: string): VarInfo | undefined {
  for (let i = fx.scopes.length - 1; i >= 0; i--) {
    const v = fx.scopes[i]?.get(name);
    if (v) return v;
  }
  return undefined;
}

function isVisible(fx: FunCtx, unique: string): boolean {
  return (fx.visible.get(unique) ?? 0) > 0;
}

/** Binds `orig` to `info` in scope `level`, keeping the count of visible unique names. */
function setVisible(fx: FunCtx, level: number, orig: string, info: VarInfo): void {
  const scope = fx.scopes[level] as Map<string, VarInfo>;
  const before = scope.get(orig);
  if (before) fx.visible.set(before.name, (fx.visible.get(before.name) ?? 1) - 1);
  scope.set(orig, info);
  fx.visible.set(info.name, (fx.visible.get(info.name) ?? 0) + 1);
}

/** Whether `name` is taken in the function: a function of the program, or a name given out in it. */
function isUsed(fx: FunCtx, name: string): boolean {
  return fx.used.has(name) || fx.ctx.funs.has(name);
}

/** `base` if free, else the first free `${base}_${k}`, k = 1, 2, …; taken from now on. */
function takeFresh(fx: FunCtx, base: string): string {
  let name = base;
  if (isUsed(fx, name)) {
    let k = fx.ctx.suffixes.get(base) ?? 1;
    while (isUsed(fx, `${base}_${k}`)) k++;
    fx.ctx.suffixes.set(base, k + 1);
    name = `${base}_${k}`;
  }
  fx.used.add(name);
  return name;
}

function declare(
  fx: FunCtx,
  nameNode: Node,
  ty: string,
  size: number,
  isConst: boolean,
  declNode: Node,
): VarInfo {
  const ctx = fx.ctx;
  const orig = nameNode.text;
  const level = fx.scopes.length - 1;
  const scope = fx.scopes[level] as Map<string, VarInfo>;
  if (scope.has(orig)) fail(ctx, nameNode, codes.redefinition, 'inScope', orig);
  const reuse = fx.localsByOrig
    .get(orig)
    ?.find(
      (l) =>
        l.decl.ty === ty &&
        (l.decl.size.kind === 'some' ? l.decl.size.value : -1) === size &&
        !isVisible(fx, l.decl.name),
    );
  let unique: string;
  if (reuse) unique = reuse.decl.name;
  else {
    unique = takeFresh(fx, orig);
    const decl: Decl = {
      kind: 'decl',
      name: unique,
      ty,
      size: size >= 0 ? some(size) : NONE,
      lbl: label(ctx, declNode),
    };
    addLocal(fx, { decl, orig });
  }
  const info: VarInfo = { name: unique, ty, isArray: size >= 0, isConst, size };
  setVisible(fx, level, orig, info);
  return info;
}

/** A hoisted local of the function (also those the conversion makes: temporaries, results). */
function addLocal(fx: FunCtx, local: { decl: Decl; orig: string }): void {
  fx.locals.push(local);
  const same = fx.localsByOrig.get(local.orig);
  if (same) same.push(local);
  else fx.localsByOrig.set(local.orig, [local]);
}

function inScope(fx: FunCtx, f: () => void): void {
  fx.scopes.push(new Map());
  try {
    f();
  } finally {
    for (const v of (fx.scopes.pop() as Map<string, VarInfo>).values())
      fx.visible.set(v.name, (fx.visible.get(v.name) ?? 1) - 1);
  }
}

// ---- statements ----------------------------------------------------------------------------------

/** Converts one statement, appending its commands to `out`; reports (and drops) it on error. */
function stmt(fx: FunCtx, n: Node, out: Cmd[]): void {
  const start = out.length;
  try {
    stmtInner(fx, n, out);
  } catch (e) {
    if (!(e instanceof Bail)) throw e;
    out.length = start;
  }
}

function block(fx: FunCtx, n: Node | null, owner: Node): Cmd {
  const out: Cmd[] = [];
  if (n) inScope(fx, () => stmt(fx, n, out));
  return seqOf(fx.ctx, n ?? owner, out);
}

function stmtInner(fx: FunCtx, n: Node, out: Cmd[]): void {
  const ctx = fx.ctx;
  switch (n.type) {
    case 'comment':
      return;
    case 'compound_statement':
      inScope(fx, () => {
        for (const s of named(n)) stmt(fx, s, out);
      });
      return;
    case 'declaration':
      declaration(fx, n, out);
      return;
    case 'expression_statement': {
      const kids = named(n);
      const e = kids[0];
      if (!e) return; // `;`
      exprStatement(fx, e, out);
      return;
    }
    case 'if_statement': {
      const cond = condition(fx, field(n, 'condition'), n);
      const thenCmd = block(fx, field(n, 'consequence'), n);
      const alt = field(n, 'alternative');
      const elseNode = alt ? (named(alt)[0] ?? null) : null;
      const elseCmd = block(fx, elseNode, n);
      out.push({ kind: 'if', cond, thenCmd, elseCmd, lbl: label(ctx, n) });
      return;
    }
    case 'while_statement': {
      const cond = condition(fx, field(n, 'condition'), n);
      const body = block(fx, field(n, 'body'), n);
      out.push({ kind: 'while', cond, body, isFor: false, lbl: label(ctx, n) });
      return;
    }
    case 'for_statement':
      inScope(fx, () => forStatement(fx, n, out));
      return;
    case 'return_statement': {
      const e = named(n)[0];
      const ret = fx.sig.ret;
      if (!e) {
        if (ret !== 'void') fail(ctx, n, codes.badReturn, 'missingValue', fx.sig.name);
        out.push({ kind: 'return', value: NONE, lbl: label(ctx, n) });
        return;
      }
      if (ret === 'void') fail(ctx, n, codes.badReturn, 'voidWithValue', fx.sig.name);
      if (ret.endsWith('[]')) {
        out.push({
          kind: 'return',
          value: some(returnedArray(fx, e, ret.slice(0, -2), out)),
          lbl: label(ctx, n),
        });
        return;
      }
      const value = convert(ctx, e, combinatorOf(e) ? scalarSoac(fx, e, out) : expr(fx, e), ret);
      out.push({ kind: 'return', value: some(value), lbl: label(ctx, n) });
      return;
    }
    default:
      unsupported(ctx, n);
  }
}

function condition(fx: FunCtx, n: Node | null, owner: Node): Expr {
  if (!n) return fail(fx.ctx, owner, codes.syntaxError, 'missingCondition');
  return expr(fx, n);
}

function forStatement(fx: FunCtx, n: Node, out: Cmd[]): void {
  const ctx = fx.ctx;
  const init = field(n, 'initializer');
  if (init) {
    if (init.type === 'declaration') declaration(fx, init, out);
    else exprStatement(fx, init, out);
  }
  const condNode = field(n, 'condition');
  const cond: Expr = condNode ? expr(fx, condNode) : { kind: 'intLit', value: 1, lbl: label(ctx, n) };
  const body: Cmd[] = [];
  const bodyNode = field(n, 'body');
  if (bodyNode) inScope(fx, () => stmt(fx, bodyNode, body));
  const update = field(n, 'update');
  if (update) exprStatement(fx, update, body);
  out.push({ kind: 'while', cond, body: seqOf(ctx, n, body), isFor: update !== null, lbl: label(ctx, n) });
}

function declaration(fx: FunCtx, n: Node, out: Cmd[]): void {
  const ctx = fx.ctx;
  const isConst = qualifiers(ctx, n, false);
  const ty = typeName(ctx, field(n, 'type'), n);
  if (ty === 'void') fail(ctx, n, codes.unsupportedType, 'voidVariable');
  for (const d of n.childrenForFieldName('declarator')) {
    if (!d) continue;
    let target = d;
    let value: Node | null = null;
    if (d.type === 'init_declarator') {
      target = field(d, 'declarator') ?? d;
      value = field(d, 'value');
    }
    if (target.type === 'identifier') {
      if (value?.type === 'initializer_list') fail(ctx, value, codes.typeError, 'scalarInitializerList');
      if (value && combinatorOf(value)) {
        const v = declare(fx, target, ty, -1, isConst, d);
        soacInto(fx, value, out, { name: v.name, ty: v.ty, node: target });
        continue;
      }
      // As in C, the new variable is in scope in its own initializer (`int x = x;` reads the new x).
      const v = declare(fx, target, ty, -1, isConst, d);
      const rhs = value ? expr(fx, value) : undefined;
      if (value && rhs)
        out.push({ kind: 'assign', name: v.name, rhs: convert(ctx, value, rhs, ty), lbl: label(ctx, d) });
      continue;
    }
    if (target.type === 'array_declarator') {
      const inner = field(target, 'declarator');
      if (inner?.type !== 'identifier') {
        fail(ctx, target, codes.unsupported, 'arrayRank');
      }
      const sizeNode = field(target, 'size');
      if (value && !sizeNode && combinatorOf(value)) {
        const r = arraySoac(fx, value, out, inner.text);
        if (r.ty !== ty) {
          fail(ctx, value, codes.badCombinator, 'elementType', combinatorOf(value) as string, r.ty, ty);
        }
        declareDynamic(fx, inner, ty, r.soac);
        out.push(r.soac);
        continue;
      }
      const items = value ? arrayInitializer(fx, value) : undefined;
      let size: number;
      if (sizeNode) {
        const s = sizeNode.type === 'number_literal' ? intLiteral(ctx, sizeNode) : undefined;
        if (s === undefined || s <= 0 || s > 1 << 24) {
          fail(ctx, sizeNode, codes.unsupported, 'arraySize');
        }
        size = s;
      } else if (items) size = items.length;
      else fail(ctx, target, codes.unsupported, 'variableArraySize');
      if (items && items.length > size) fail(ctx, value ?? target, codes.typeError, 'tooManyInitializers');
      const v = declare(fx, inner, ty, size, isConst, d);
      if (items) {
        for (let i = 0; i < size; i++) {
          const item = items[i];
          const at = item?.node ?? value ?? d;
          const rhs: Expr = item ? convert(ctx, item.node, item.expr, ty) : zero(ctx, at, ty);
          const index: Expr = { kind: 'intLit', value: i, lbl: label(ctx, at) };
          out.push({ kind: 'store', array: v.name, index, rhs, lbl: label(ctx, at) });
        }
      }
      continue;
    }
    if (target.type === 'pointer_declarator') fail(ctx, target, codes.unsupported, 'pointerVariable');
    unsupported(ctx, target);
  }
}

function arrayInitializer(fx: FunCtx, n: Node): { node: Node; expr: Expr }[] {
  if (n.type !== 'initializer_list') fail(fx.ctx, n, codes.typeError, 'arrayInitializer');
  return named(n).map((c) => {
    if (c.type === 'initializer_pair' || c.type === 'initializer_list') unsupported(fx.ctx, c);
    return { node: c, expr: expr(fx, c) };
  });
}

function zero(ctx: Ctx, n: Node, ty: string): Expr {
  const lbl = label(ctx, n);
  if (ty === 'float') return { kind: 'floatLit', value: 0, lbl };
  if (ty === 'bool') return { kind: 'boolLit', value: false, lbl };
  return { kind: 'intLit', value: 0, lbl };
}

/** Assignment, `++`/`--` or a call, used as a statement (also for-init and for-update). */
function exprStatement(fx: FunCtx, e: Node, out: Cmd[]): void {
  const ctx = fx.ctx;
  switch (e.type) {
    case 'assignment_expression': {
      const opText = field(e, 'operator')?.text ?? '=';
      const left = field(e, 'left');
      const right = field(e, 'right');
      if (!left || !right) unsupported(ctx, e);
      const op = opText === '=' ? undefined : opText.slice(0, -1);
      out.push(update(fx, e, left, op, right));
      return;
    }
    case 'update_expression': {
      const arg = field(e, 'argument');
      const opText = field(e, 'operator')?.text ?? '++';
      if (!arg) unsupported(ctx, e);
      out.push(update(fx, e, arg, opText === '++' ? '+' : '-', undefined));
      return;
    }
    case 'call_expression': {
      const { name, args } = callParts(fx, e);
      if (builtin(name)) fail(ctx, e, codes.unsupported, 'noEffect');
      out.push({ kind: 'callCmd', name, args: listFromArray(args), lbl: label(ctx, e) });
      return;
    }
    case 'comma_expression':
      unsupported(ctx, e);
      return;
    case 'parenthesized_expression': {
      const inner = named(e)[0];
      if (!inner) unsupported(ctx, e);
      exprStatement(fx, inner, out);
      return;
    }
    default:
      fail(ctx, e, codes.unsupported, 'noEffect');
  }
}

/**
 * `left = right` (op undefined), `left op= right`, or `left++/--` (right undefined, op '+'/'-').
 * The left side is converted twice for compound forms, so the read and the write get distinct labels.
 */
function update(fx: FunCtx, n: Node, left: Node, op: string | undefined, right: Node | undefined): Cmd {
  const ctx = fx.ctx;
  const rhsOf = (current: () => Expr, ty: string): Expr => {
    if (op === undefined) return convert(ctx, right ?? n, expr(fx, right ?? n), ty);
    const r: Expr = right ? expr(fx, right) : { kind: 'intLit', value: 1, lbl: label(ctx, n) };
    return convert(ctx, n, binary(ctx, n, op, current(), r), ty);
  };
  if (left.type === 'parenthesized_expression') {
    const inner = named(left)[0];
    if (inner) return update(fx, n, inner, op, right);
  }
  if (left.type === 'identifier') {
    const v = lookup(fx, left.text);
    if (!v) return fail(ctx, left, codes.undeclared, 'name', left.text);
    if (v.isArray) return fail(ctx, left, codes.notAssignable, 'wholeArray', left.text);
    if (v.isConst) return fail(ctx, left, codes.notAssignable, 'constVariable', left.text);
    if (op === undefined && right && combinatorOf(right)) {
      const before: Cmd[] = [];
      soacInto(fx, right, before, { name: v.name, ty: v.ty, node: left });
      return seqOf(ctx, n, before);
    }
    const rhs = rhsOf(() => ({ kind: 'var', name: v.name, ty: v.ty, lbl: label(ctx, left) }), v.ty);
    return { kind: 'assign', name: v.name, rhs, lbl: label(ctx, n) };
  }
  if (left.type === 'subscript_expression') {
    const { info, indexNode } = subscriptParts(fx, left);
    if (info.isConst) return fail(ctx, left, codes.notAssignable, 'constArray', info.name);
    if (op !== undefined && containsCall(indexNode)) {
      fail(ctx, indexNode, codes.unsupported, 'compoundCallIndex');
    }
    const index = indexExpr(fx, indexNode);
    const rhs = rhsOf(
      () => ({
        kind: 'load',
        array: info.name,
        index: indexExpr(fx, indexNode),
        ty: info.ty,
        lbl: label(ctx, left),
      }),
      info.ty,
    );
    return { kind: 'store', array: info.name, index, rhs, lbl: label(ctx, n) };
  }
  return fail(ctx, left, codes.notAssignable, 'notAnLvalue');
}

/** Whether `n` calls a function of the program (a builtin's call is pure, as an operator is). */
function containsCall(n: Node): boolean {
  if (n.type === 'call_expression') {
    const fn = field(n, 'function');
    if (fn?.type !== 'identifier' || !builtin(fn.text)) return true;
  }
  return named(n).some(containsCall);
}

// ---- expressions ---------------------------------------------------------------------------------

function subscriptParts(fx: FunCtx, n: Node): { info: VarInfo; indexNode: Node } {
  const ctx = fx.ctx;
  const arr = field(n, 'argument');
  const indexNode = field(n, 'index');
  if (!arr || !indexNode) return unsupported(ctx, n);
  if (arr.type !== 'identifier') {
    return fail(ctx, arr, codes.badArrayUse, 'indexedExpression');
  }
  const info = lookup(fx, arr.text);
  if (!info) return fail(ctx, arr, codes.undeclared, 'name', arr.text);
  if (!info.isArray) return fail(ctx, arr, codes.badArrayUse, 'notAnArray', arr.text);
  return { info, indexNode };
}

function indexExpr(fx: FunCtx, n: Node): Expr {
  const e = expr(fx, n);
  const ty = exprType(e);
  if (ty === 'float') fail(fx.ctx, n, codes.typeError, 'floatIndex');
  return convert(fx.ctx, n, e, 'int');
}

function callParts(fx: FunCtx, n: Node): { name: string; args: Expr[]; sig: Sig } {
  const ctx = fx.ctx;
  const fn = field(n, 'function');
  if (fn?.type !== 'identifier') return fail(ctx, fn ?? n, codes.badCall, 'notNamed');
  if (COMBINATORS.has(fn.text)) return fail(ctx, n, codes.badCombinator, 'asStatement', fn.text);
  const sig = ctx.funs.get(fn.text) ?? builtinSignature(fn.text);
  if (!sig) {
    const float = builtinForDouble(fn.text);
    if (float) return fail(ctx, fn, codes.badCall, 'doublePrecision', fn.text, float.name);
    return fail(ctx, fn, codes.undeclared, 'function', fn.text);
  }
  if (sig.ret.endsWith('[]')) return fail(ctx, n, codes.badCall, 'arrayReturn', sig.name);
  const argList = field(n, 'arguments');
  const argNodes = argList ? named(argList) : [];
  if (argNodes.length !== sig.params.length) {
    fail(ctx, n, codes.badCall, 'arity', sig.name, sig.params.length, argNodes.length);
  }
  const args = argNodes.map((a, i): Expr => {
    const p = sig.params[i] as Param;
    if (p.isArray) {
      const v = a.type === 'identifier' ? lookup(fx, a.text) : undefined;
      if (!v?.isArray) {
        return fail(ctx, a, codes.badCall, 'arrayExpected', i + 1, sig.name, p.ty);
      }
      if (v.ty !== p.ty) {
        return fail(ctx, a, codes.badCall, 'arrayElementType', i + 1, sig.name, p.ty, v.ty);
      }
      if (v.isConst && !p.isConst) {
        fail(ctx, a, codes.badCall, 'constArray', a.text, p.name);
      }
      return { kind: 'arrayRef', name: v.name, ty: v.ty, lbl: label(ctx, a) };
    }
    return convert(ctx, a, expr(fx, a), p.ty);
  });
  return { name: sig.name, args, sig };
}

function expr(fx: FunCtx, n: Node): Expr {
  const ctx = fx.ctx;
  switch (n.type) {
    case 'parenthesized_expression': {
      const inner = named(n)[0];
      if (!inner) return unsupported(ctx, n);
      return expr(fx, inner);
    }
    case 'identifier': {
      const v = lookup(fx, n.text);
      if (!v) {
        if (ctx.funs.has(n.text)) return fail(ctx, n, codes.unsupported, 'functionValue');
        return fail(ctx, n, codes.undeclared, 'name', n.text);
      }
      if (v.isArray) return fail(ctx, n, codes.badArrayUse, 'asValue', n.text);
      return { kind: 'var', name: v.name, ty: v.ty, lbl: label(ctx, n) };
    }
    case 'true':
    case 'false':
      return { kind: 'boolLit', value: n.type === 'true', lbl: label(ctx, n) };
    case 'number_literal':
      return numberLiteral(ctx, n);
    case 'binary_expression': {
      const op = field(n, 'operator')?.text ?? '';
      const l = field(n, 'left');
      const r = field(n, 'right');
      if (!l || !r) return unsupported(ctx, n);
      return binary(ctx, n, op, expr(fx, l), expr(fx, r));
    }
    case 'unary_expression': {
      const op = field(n, 'operator')?.text ?? '';
      const a = field(n, 'argument');
      if (!a) return unsupported(ctx, n);
      return unary(ctx, n, op, expr(fx, a));
    }
    case 'cast_expression': {
      const td = field(n, 'type');
      const v = field(n, 'value');
      if (!td || !v) return unsupported(ctx, n);
      if (named(td).some((c) => c.type === 'abstract_pointer_declarator')) {
        fail(ctx, td, codes.unsupported, 'pointerCast');
      }
      const ty = typeName(ctx, field(td, 'type'), td);
      if (ty === 'void') fail(ctx, td, codes.unsupportedType, 'voidCast');
      const arg = expr(fx, v);
      return { kind: 'cast', ty, arg, implicit: false, lbl: label(ctx, n) };
    }
    case 'conditional_expression': {
      const c = field(n, 'condition');
      const t = field(n, 'consequence');
      const f = field(n, 'alternative');
      if (!c || !t || !f) return unsupported(ctx, n);
      const cond = expr(fx, c);
      const te = promote(ctx, t, expr(fx, t));
      const fe = promote(ctx, f, expr(fx, f));
      const ty = exprType(te) === 'float' || exprType(fe) === 'float' ? 'float' : 'int';
      return {
        kind: 'ternary',
        cond,
        thenExpr: convert(ctx, t, te, ty),
        elseExpr: convert(ctx, f, fe, ty),
        ty,
        lbl: label(ctx, n),
      };
    }
    case 'call_expression': {
      const comb = combinatorOf(n);
      if (comb) {
        return fail(ctx, n, codes.badCombinator, 'placement', comb);
      }
      const { name, args, sig } = callParts(fx, n);
      if (sig.ret.endsWith('[]')) return fail(ctx, n, codes.badCall, 'arrayReturn', name);
      if (sig.ret === 'void') return fail(ctx, n, codes.badCall, 'voidAsValue', name);
      return { kind: 'call', name, args: listFromArray(args), ty: sig.ret, lbl: label(ctx, n) };
    }
    case 'subscript_expression': {
      const { info, indexNode } = subscriptParts(fx, n);
      const index = indexExpr(fx, indexNode);
      return { kind: 'load', array: info.name, index, ty: info.ty, lbl: label(ctx, n) };
    }
    case 'assignment_expression':
      return fail(ctx, n, codes.unsupported, 'assignmentInExpression');
    case 'update_expression':
      return fail(ctx, n, codes.unsupported, 'incrementInExpression', field(n, 'operator')?.text ?? '++');
    default:
      return unsupported(ctx, n);
  }
}

function intLiteral(ctx: Ctx, n: Node, literal: string = n.text): number {
  const text = literal.replace(/'/g, '');
  if (/[uUlL]$/.test(text)) return fail(ctx, n, codes.badLiteral, 'integerSuffix', n.text);
  let v: bigint;
  if (/^0[xX][0-9a-fA-F]+$/.test(text) || /^[1-9][0-9]*$/.test(text)) v = BigInt(text);
  else if (/^0[0-7]*$/.test(text)) v = BigInt(`0o${text.slice(1) || '0'}`);
  else if (/^0[bB][01]+$/.test(text)) v = BigInt(text);
  else return fail(ctx, n, codes.badLiteral, 'malformedInt', n.text);
  if (v > 2147483647n) return fail(ctx, n, codes.badLiteral, 'intRange', n.text);
  return Number(v);
}

function numberLiteral(ctx: Ctx, n: Node): Expr {
  // tree-sitter-c lexes a sign into the literal where a unary minus could stand: `-28` is one token.
  // It means unary minus applied to the literal, which we fold anyway.
  const sign = /^[-+]/.test(n.text) ? n.text[0] : '';
  const e = unsignedLiteral(ctx, n, n.text.slice(sign ? 1 : 0).trim());
  if (sign !== '-') return e;
  if (e.kind === 'intLit') return { ...e, value: -e.value | 0 };
  if (e.kind === 'floatLit') return { ...e, value: -e.value };
  return e;
}

function unsignedLiteral(ctx: Ctx, n: Node, text: string): Expr {
  if (/^0[xX]/.test(text) && /[pP]/.test(text)) return fail(ctx, n, codes.badLiteral, 'hexFloat');
  if (/^0[xX]/.test(text) || !/[.eE]/.test(text))
    return { kind: 'intLit', value: intLiteral(ctx, n, text), lbl: label(ctx, n) };
  if (!/[fF]$/.test(text)) {
    return fail(ctx, n, codes.badLiteral, 'double', text, text.replace(/[lL]$/, ''));
  }
  const value = decimalToFloat32(text.slice(0, -1));
  if (value === undefined) return fail(ctx, n, codes.badLiteral, 'malformedFloat', text);
  if (!Number.isFinite(value)) return fail(ctx, n, codes.badLiteral, 'floatRange', text);
  return { kind: 'floatLit', value, lbl: label(ctx, n) };
}

/** bool operands are promoted to int, as C's integer promotions do. */
function promote(ctx: Ctx, n: Node, e: Expr): Expr {
  return exprType(e) === 'bool' ? convert(ctx, n, e, 'int') : e;
}

function convert(ctx: Ctx, n: Node, e: Expr, ty: string): Expr {
  if (exprType(e) === ty) return e;
  return { kind: 'cast', ty, arg: e, implicit: true, lbl: label(ctx, n) };
}

const ARITH = new Set(['+', '-', '*', '/']);
const INT_ONLY = new Set(['%', '&', '|', '^', '<<', '>>']);
const COMPARE = new Set(['<', '<=', '>', '>=', '==', '!=']);

function binary(ctx: Ctx, n: Node, op: string, l0: Expr, r0: Expr): Expr {
  const lbl = () => label(ctx, n);
  if (op === '&&' || op === '||') return { kind: 'binary', op, ty: 'int', left: l0, right: r0, lbl: lbl() };
  const l = promote(ctx, n, l0);
  const r = promote(ctx, n, r0);
  const common = exprType(l) === 'float' || exprType(r) === 'float' ? 'float' : 'int';
  if (INT_ONLY.has(op)) {
    if (common === 'float') return fail(ctx, n, codes.typeError, 'floatOperands', op);
    return { kind: 'binary', op, ty: 'int', left: l, right: r, lbl: lbl() };
  }
  if (ARITH.has(op) || COMPARE.has(op)) {
    const left = convert(ctx, n, l, common);
    const right = convert(ctx, n, r, common);
    return { kind: 'binary', op, ty: COMPARE.has(op) ? 'int' : common, left, right, lbl: lbl() };
  }
  return fail(ctx, n, codes.unsupported, 'operator', op);
}

function unary(ctx: Ctx, n: Node, op: string, a0: Expr): Expr {
  if (op === '!') return { kind: 'unary', op, ty: 'int', arg: a0, lbl: label(ctx, n) };
  const a = promote(ctx, n, a0);
  const ty = exprType(a);
  switch (op) {
    case '+':
      return a;
    case '-':
      // -literal folds into a negative literal: `-1` is intLit(-1).
      if (a.kind === 'intLit') return { kind: 'intLit', value: -a.value | 0, lbl: label(ctx, n) };
      if (a.kind === 'floatLit') return { kind: 'floatLit', value: -a.value, lbl: label(ctx, n) };
      return { kind: 'unary', op, ty, arg: a, lbl: label(ctx, n) };
    case '~':
      if (ty === 'float') return fail(ctx, n, codes.typeError, 'floatComplement');
      return { kind: 'unary', op, ty, arg: a, lbl: label(ctx, n) };
    default:
      return fail(ctx, n, codes.unsupported, 'operator', op);
  }
}

// ---- combinators ---------------------------------------------------------------------------------
//
// `T ys[] = map(f, a, …)`, `T s = reduce(op, ne, xs)` (or `s = …`), `return …` and combinator
// arguments of combinators become `soac` commands (ast.ts states their invariants). Arguments are
// matched to the function's parameters by type: an array for a scalar parameter is mapped over, an
// array for an array parameter (which must be const: combinator functions may not write arrays) and
// a scalar are passed whole. Non-atomic scalar arguments and nested combinators are first computed
// into fresh temporaries, so a combinator's scalar operands are variables or literals.

const COMBINATORS = new Set(['map', 'reduce', 'scan', 'filter', 'iota', 'redomap', 'scanomap']);
const ARRAY_RESULT = new Set(['map', 'scan', 'filter', 'iota', 'scanomap']);
const TEMP_NAMES: Record<string, string> = {
  map: 'mapped',
  filter: 'kept',
  scan: 'scanned',
  scanomap: 'scanned',
  reduce: 'reduced',
  redomap: 'reduced',
  iota: 'idx',
};

/** The combinator a call node names, if it is a combinator call. */
function combinatorOf(n: Node): string | undefined {
  if (n.type === 'parenthesized_expression') {
    const inner = named(n)[0];
    return inner ? combinatorOf(inner) : undefined;
  }
  if (n.type !== 'call_expression') return undefined;
  const fn = field(n, 'function');
  return fn?.type === 'identifier' && COMBINATORS.has(fn.text) ? fn.text : undefined;
}

function unparen(n: Node): Node {
  while (n.type === 'parenthesized_expression') {
    const inner = named(n)[0];
    if (!inner) break;
    n = inner;
  }
  return n;
}

/** A fresh name for a temporary (unique in the function). */
function freshName(fx: FunCtx, base: string): string {
  return takeFresh(fx, base);
}

/** A fresh scalar local holding `e` (assigned in `out`), unless `e` is already an atom. */
function atom(fx: FunCtx, n: Node, e: Expr, out: Cmd[]): Expr {
  if (e.kind === 'var' || e.kind === 'intLit' || e.kind === 'floatLit' || e.kind === 'boolLit') return e;
  const ctx = fx.ctx;
  const ty = exprType(e);
  const name = freshName(fx, 'tmp');
  addLocal(fx, { decl: { kind: 'decl', name, ty, size: NONE, lbl: label(ctx, n) }, orig: name });
  out.push({ kind: 'assign', name, rhs: e, lbl: label(ctx, n) });
  return { kind: 'var', name, ty, lbl: label(ctx, n) };
}

/** Puts a combinator's array result in scope: read-only, not a hoisted local (the soac defines it). */
function declareDynamic(fx: FunCtx, nameNode: Node, ty: string, soac: { dest: string }): void {
  const level = fx.scopes.length - 1;
  if (fx.scopes[level]?.has(nameNode.text)) {
    fail(fx.ctx, nameNode, codes.redefinition, 'inScope', nameNode.text);
  }
  setVisible(fx, level, nameNode.text, { name: soac.dest, ty, isArray: true, isConst: true, size: -2 });
}

/** `return e;` in a function returning an array of `ty`: an array variable, or a combinator. */
function returnedArray(fx: FunCtx, n: Node, ty: string, out: Cmd[]): Expr {
  const ctx = fx.ctx;
  const e = unparen(n);
  let name: string;
  let elemTy: string;
  if (combinatorOf(e)) {
    const r = arraySoac(fx, e, out);
    out.push(r.soac);
    name = r.soac.dest;
    elemTy = r.ty;
  } else {
    const v = e.type === 'identifier' ? lookup(fx, e.text) : undefined;
    if (!v?.isArray) return fail(ctx, n, codes.badReturn, 'notArray', fx.sig.name, ty);
    name = v.name;
    elemTy = v.ty;
  }
  if (elemTy !== ty) {
    fail(ctx, n, codes.badReturn, 'arrayType', fx.sig.name, ty, elemTy);
  }
  return { kind: 'arrayRef', name, ty, lbl: label(ctx, n) };
}

/** A combinator giving a scalar (reduce/redomap) computed into a fresh temporary; its variable. */
function scalarSoac(fx: FunCtx, n: Node, out: Cmd[]): Expr {
  const ctx = fx.ctx;
  const comb = combinatorOf(n) as string;
  if (ARRAY_RESULT.has(comb)) {
    return fail(ctx, n, codes.badCombinator, 'arrayForScalarReturn', comb, fx.sig.ret);
  }
  const r = soacCmd(fx, unparen(n), out, undefined);
  addLocal(fx, {
    decl: { kind: 'decl', name: r.dest, ty: r.ty, size: NONE, lbl: label(ctx, n) },
    orig: r.dest,
  });
  out.push(r);
  return { kind: 'var', name: r.dest, ty: r.ty, lbl: label(ctx, n) };
}

/** A reduce/redomap into the scalar variable `dest` (of type `dest.ty`, which must be the result's). */
function soacInto(fx: FunCtx, n: Node, out: Cmd[], dest: { name: string; ty: string; node: Node }): void {
  const ctx = fx.ctx;
  const comb = combinatorOf(n) as string;
  if (ARRAY_RESULT.has(comb)) {
    fail(ctx, n, codes.badCombinator, 'arrayForScalar', comb, dest.ty, dest.node.text);
  }
  const r = soacCmd(fx, unparen(n), out, dest.name);
  if (r.ty !== dest.ty) {
    fail(ctx, n, codes.badCombinator, 'resultType', comb, article(r.ty), dest.node.text, article(dest.ty));
  }
  out.push(r);
}

/** A combinator giving an array, with a fresh destination name; the caller declares and emits it. */
function arraySoac(fx: FunCtx, n: Node, out: Cmd[], dest?: string): { soac: Soac; ty: string } {
  const comb = combinatorOf(n) as string;
  if (!ARRAY_RESULT.has(comb)) {
    fail(fx.ctx, n, codes.badCombinator, 'scalarForArray', comb);
  }
  const soac = soacCmd(fx, unparen(n), out, dest === undefined ? undefined : freshName(fx, dest));
  return { soac, ty: soac.ty };
}

/** The function a combinator's function argument names. */
function soacFunction(fx: FunCtx, n: Node | undefined, owner: Node, comb: string, what: string): Sig {
  const ctx = fx.ctx;
  if (!n) return fail(ctx, owner, codes.badCombinator, 'missingArgument', comb, what);
  const e = unparen(n);
  const sig = e.type === 'identifier' ? (ctx.funs.get(e.text) ?? builtinSignature(e.text)) : undefined;
  if (!sig) return fail(ctx, n, codes.badCombinator, 'notAFunction', what, comb);
  if (sig.ret === 'void' || sig.ret.endsWith('[]')) {
    fail(ctx, n, codes.badCombinator, 'functionReturnsArray', sig.name, comb);
  }
  return sig;
}

/**
 * The lambda `(p…) => f(p…)` for a function. Parameters are named `p_k` for the k-th lambda of the
 * host function, so names are unique across its lambdas and do not depend on labels (printing and
 * parsing again gives the same names); names fusion makes never end in `_digits`.
 */
function lamOf(fx: FunCtx, n: Node, sig: Sig): Lam {
  const ctx = fx.ctx;
  const k = ++fx.lams;
  const params: Param[] = sig.params.map((p) => {
    const lbl = label(ctx, n);
    return { kind: 'param', name: `${p.name}_${k}`, ty: p.ty, isArray: p.isArray, isConst: p.isArray, lbl };
  });
  const args: Expr[] = params.map((p) =>
    p.isArray
      ? { kind: 'arrayRef', name: p.name, ty: p.ty, lbl: label(ctx, n) }
      : { kind: 'var', name: p.name, ty: p.ty, lbl: label(ctx, n) },
  );
  const result: Expr = {
    kind: 'call',
    name: sig.name,
    args: listFromArray(args),
    ty: sig.ret,
    lbl: label(ctx, n),
  };
  return {
    kind: 'lam',
    params: listFromArray(params),
    binds: { kind: 'nil' },
    result,
    ret: sig.ret,
    lbl: label(ctx, n),
  };
}

/** The identity lambda over int (`iota`'s function). */
function identityLam(fx: FunCtx, n: Node): Lam {
  const ctx = fx.ctx;
  const lbl = label(ctx, n);
  const name = `i_${++fx.lams}`;
  const param: Param = { kind: 'param', name, ty: 'int', isArray: false, isConst: true, lbl };
  const result: Expr = { kind: 'var', name, ty: 'int', lbl: label(ctx, n) };
  return {
    kind: 'lam',
    params: listFromArray([param]),
    binds: { kind: 'nil' },
    result,
    ret: 'int',
    lbl: label(ctx, n),
  };
}

/** Arguments matched to `params` (see the section comment); computes nested combinators first. */
function soacArgs(
  fx: FunCtx,
  comb: string,
  fname: string,
  params: readonly Param[],
  nodes: readonly Node[],
  owner: Node,
  out: Cmd[],
): { args: SoacArg[]; mapped: SoacArg[] } {
  const ctx = fx.ctx;
  if (nodes.length !== params.length) {
    fail(ctx, owner, codes.badCombinator, 'arity', comb, params.length, fname, nodes.length);
  }
  const args: SoacArg[] = [];
  const mapped: SoacArg[] = [];
  nodes.forEach((raw, i) => {
    const p = params[i] as Param;
    const a = unparen(raw);
    const where = `argument ${i + 1} of '${comb}' (parameter '${p.name}' of '${fname}')`;
    const inner = combinatorOf(a);
    if (inner === 'iota' && !p.isArray) {
      if (p.ty !== 'int') fail(ctx, a, codes.badCombinator, 'iotaElementType', where, article(p.ty));
      const lenNodes = iotaArgs(fx, a);
      const arg: SoacArg = {
        kind: 'argIota',
        len: atom(fx, lenNodes, intOperand(fx, lenNodes), out),
        lbl: label(ctx, a),
      };
      args.push(arg);
      mapped.push(arg);
      return;
    }
    let arrayName: string | undefined;
    let arrayTy = '';
    if (inner) {
      const r = arraySoac(fx, a, out);
      out.push(r.soac);
      arrayName = r.soac.dest;
      arrayTy = r.ty;
    } else if (a.type === 'identifier') {
      const v = lookup(fx, a.text);
      if (v?.isArray) {
        arrayName = v.name;
        arrayTy = v.ty;
      }
    }
    if (arrayName !== undefined) {
      if (arrayTy !== p.ty) {
        fail(
          ctx,
          a,
          codes.badCombinator,
          'argumentType',
          where,
          p.isArray ? 'an array of ' : 'elements of type ',
          p.ty,
          arrayTy,
        );
      }
      if (p.isArray && !p.isConst) {
        fail(ctx, a, codes.badCombinator, 'nonConstParameter', p.name, fname);
      }
      const arg: SoacArg = { kind: 'argArray', name: arrayName, ty: arrayTy, lbl: label(ctx, a) };
      args.push(arg);
      if (!p.isArray) mapped.push(arg);
      return;
    }
    if (p.isArray) fail(ctx, a, codes.badCombinator, 'notAnArray', where, p.ty);
    const value = atom(fx, a, convert(ctx, a, expr(fx, a), p.ty), out);
    args.push({ kind: 'argScalar', value, lbl: label(ctx, a) });
  });
  return { args, mapped };
}

function iotaArgs(fx: FunCtx, n: Node): Node {
  const argNodes = named(field(n, 'arguments') ?? n);
  const len = argNodes[0];
  if (argNodes.length !== 1 || !len) return fail(fx.ctx, n, codes.badCombinator, 'iotaArity');
  return len;
}

function intOperand(fx: FunCtx, n: Node): Expr {
  const e = expr(fx, n);
  const ty = exprType(e);
  if (ty === 'float') fail(fx.ctx, n, codes.badCombinator, 'iotaLength');
  return convert(fx.ctx, n, e, 'int');
}

/** The accumulator's type of a binary operator or fold (its first parameter, equal to its result). */
function accumulator(fx: FunCtx, n: Node, sig: Sig, comb: string, binary: boolean): string {
  const ctx = fx.ctx;
  const p0 = sig.params[0];
  if (
    !p0 ||
    p0.isArray ||
    p0.ty !== sig.ret ||
    (binary && (sig.params.length !== 2 || sig.params[1]?.isArray || sig.params[1]?.ty !== sig.ret))
  ) {
    fail(
      ctx,
      n,
      codes.badCombinator,
      binary ? 'operatorSignature' : 'foldSignature',
      comb,
      sig.ret,
      sig.name,
    );
  }
  return sig.ret;
}

/** Builds the `soac` command for call node `n` (unparenthesized); nested work goes to `out` first. */
function soacCmd(fx: FunCtx, n: Node, out: Cmd[], dest: string | undefined): Soac {
  const ctx = fx.ctx;
  const comb = combinatorOf(n) as string;
  const argNodes = named(field(n, 'arguments') ?? n);
  const destName = dest ?? freshName(fx, TEMP_NAMES[comb] ?? 'tmp');
  const none = NONE;
  const needMapped = (mapped: SoacArg[]) => {
    if (mapped.length === 0) fail(ctx, n, codes.badCombinator, 'noArrays', comb);
  };
  switch (comb) {
    case 'iota': {
      const len = iotaArgs(fx, n);
      const lenAtom = atom(fx, len, intOperand(fx, len), out);
      const arg: SoacArg = { kind: 'argIota', len: lenAtom, lbl: label(ctx, n) };
      return soacNode(ctx, n, 'map', destName, 'int', identityLam(fx, n), none, none, [arg]);
    }
    case 'map':
    case 'filter': {
      const sig = soacFunction(fx, argNodes[0], n, comb, 'the function');
      const { args, mapped } = soacArgs(fx, comb, sig.name, sig.params, argNodes.slice(1), n, out);
      needMapped(mapped);
      let ty = sig.ret;
      if (comb === 'filter') {
        if (mapped.length !== 1) {
          fail(ctx, n, codes.badCombinator, 'filterArrays', sig.name, mapped.length);
        }
        const m = mapped[0] as SoacArg;
        ty = m.kind === 'argArray' ? m.ty : 'int';
      }
      return soacNode(ctx, n, comb, destName, ty, lamOf(fx, n, sig), none, none, args);
    }
    case 'reduce':
    case 'scan': {
      const sig = soacFunction(fx, argNodes[0], n, comb, 'the operator');
      const ty = accumulator(fx, argNodes[0] ?? n, sig, comb, true);
      const neNode = argNodes[1];
      if (!neNode) return fail(ctx, n, codes.badCombinator, 'noNeutral', comb);
      const ne = atom(fx, neNode, convert(ctx, neNode, expr(fx, neNode), ty), out);
      const { args, mapped } = soacArgs(fx, comb, sig.name, sig.params.slice(1), argNodes.slice(2), n, out);
      needMapped(mapped);
      return soacNode(ctx, n, comb, destName, ty, lamOf(fx, n, sig), none, some(ne), args);
    }
    case 'redomap':
    case 'scanomap': {
      const op = soacFunction(fx, argNodes[0], n, comb, 'the combine operator');
      const ty = accumulator(fx, argNodes[0] ?? n, op, comb, true);
      const g = soacFunction(fx, argNodes[1], n, comb, 'the fold function');
      const gty = accumulator(fx, argNodes[1] ?? n, g, comb, false);
      if (gty !== ty) fail(ctx, argNodes[1] ?? n, codes.badCombinator, 'foldResult', comb, ty);
      const neNode = argNodes[2];
      if (!neNode) return fail(ctx, n, codes.badCombinator, 'noNeutral', comb);
      const ne = atom(fx, neNode, convert(ctx, neNode, expr(fx, neNode), ty), out);
      const { args, mapped } = soacArgs(fx, comb, g.name, g.params.slice(1), argNodes.slice(3), n, out);
      needMapped(mapped);
      return soacNode(ctx, n, comb, destName, ty, lamOf(fx, n, g), some(lamOf(fx, n, op)), some(ne), args);
    }
    default:
      return unsupported(ctx, n);
  }
}

function soacNode(
  ctx: Ctx,
  n: Node,
  op: string,
  dest: string,
  ty: string,
  fn: Lam,
  comb: Option<Lam>,
  ne: Option<Expr>,
  args: SoacArg[],
): Soac {
  return { kind: 'soac', op, dest, ty, fn, comb, ne, args: listFromArray(args), lbl: label(ctx, n) };
}
