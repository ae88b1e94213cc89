/**
 * `npm run gen:fields`: writes src/kernel/fields.generated.ts, the kernel AST's field table, from
 * src/kernel/ast.ts, with src/optimizers/leaf.generated.ts (below) and docs/kernel-ast.md (the pass
 * writer's reference, scripts/gen-kernel-ast-doc.ts). ast.ts stays the one place a node kind is
 * declared; the table is what tools read instead of repeating its fields: per node kind, its
 * interface, the unions it belongs to and its fields in declaration order with a type descriptor
 * (number, string, boolean, a node type, `List<T>`, `Option<T>`). tests/kernel/fields.test.ts
 * regenerates it in memory and fails when the committed file is stale, as oxc's CI does with its
 * generated visitor keys.
 *
 * The generator also checks the rules ast.ts's header states for the SCF-lang checker (every node
 * `{ readonly kind: '…'; …; readonly lbl: number }`, fields of the allowed types, unique kinds) and
 * fails with the interface and field that break one. Its output is data, one line per kind, left
 * out of the formatter (biome.json).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseSync } from 'oxc-parser';
import { NAME_FIELDS } from '../src/kernel/tree-walk.js';

export const ROOT = path.resolve(import.meta.dirname, '..');
export const AST_FILE = path.join(ROOT, 'src/kernel/ast.ts');
export const FIELDS_FILE = path.join(ROOT, 'src/kernel/fields.generated.ts');

/** A field type, as the table writes it. */
export type Ty =
  | { readonly tag: 'number' | 'string' | 'boolean' }
  | { readonly tag: 'node'; readonly name: string }
  | { readonly tag: 'list' | 'option'; readonly of: Ty };

export interface Iface {
  readonly name: string;
  readonly kind: string;
  readonly fields: readonly { readonly name: string; readonly type: Ty }[];
  /** The tags of its doc comment (`@leaf`, `@ends`). */
  readonly tags: ReadonlySet<string>;
}

/** The doc-comment tags of a command kind (ast.ts's header says what they mean). */
const TAGS: readonly string[] = ['leaf', 'ends'];

// biome-ignore lint/suspicious/noExplicitAny: oxc's ESTree nodes, read structurally
type Node = any;

const KEYWORDS: Readonly<Record<string, 'number' | 'string' | 'boolean'>> = {
  TSNumberKeyword: 'number',
  TSStringKeyword: 'string',
  TSBooleanKeyword: 'boolean',
};

function fieldType(t: Node, where: string): Ty {
  const keyword = KEYWORDS[t?.type];
  if (keyword) return { tag: keyword };
  if (t?.type !== 'TSTypeReference' || t.typeName?.type !== 'Identifier')
    throw new Error(`${where}: field types are number, string, boolean, AST types, List<T>, Option<T>`);
  const name: string = t.typeName.name;
  const args: Node[] = t.typeArguments?.params ?? [];
  if (name === 'List' || name === 'Option') {
    if (args.length !== 1) throw new Error(`${where}: ${name} takes one type argument`);
    return { tag: name === 'List' ? 'list' : 'option', of: fieldType(args[0], where) };
  }
  if (args.length !== 0) throw new Error(`${where}: '${name}' is not generic`);
  return { tag: 'node', name };
}

function iface(decl: Node, doc: string): Iface {
  const name: string = decl.id.name;
  const members: Node[] = decl.body.body;
  const fields: { name: string; type: Ty }[] = [];
  let kind: string | undefined;
  members.forEach((m, i) => {
    const field: string | undefined = m.key?.name;
    const where = `ast.ts: ${name}.${field ?? `member ${i + 1}`}`;
    if (m.type !== 'TSPropertySignature' || m.computed || field === undefined)
      throw new Error(`${where}: only plain fields`);
    if (!m.readonly || m.optional) throw new Error(`${where}: fields are readonly and not optional`);
    const t = m.typeAnnotation?.typeAnnotation;
    if (i === 0) {
      if (field !== 'kind' || t?.type !== 'TSLiteralType' || typeof t.literal?.value !== 'string')
        throw new Error(`${where}: the first field is \`kind\`, a string literal`);
      kind = t.literal.value;
      return;
    }
    fields.push({ name: field, type: fieldType(t, where) });
  });
  const last = fields[fields.length - 1];
  if (kind === undefined || last?.name !== 'lbl' || last.type.tag !== 'number')
    throw new Error(`ast.ts: ${name}: the last field is \`lbl: number\``);
  const tags = new Set<string>();
  for (const m of doc.matchAll(/(?<![\w`])@(\w+)/g)) {
    const tag = m[1] as string;
    if (!TAGS.includes(tag))
      throw new Error(
        `ast.ts: ${name}: unknown tag @${tag} (the tags are ${TAGS.map((t) => `@${t}`).join(', ')})`,
      );
    tags.add(tag);
  }
  return { name, kind, fields, tags };
}

/** The text of the block comment right before offset `at` (only blanks between), or ''. */
export function docBefore(source: string, comments: readonly Node[], at: number): string {
  let end = at;
  for (let k = comments.findLastIndex((x) => x.end <= at); k >= 0; k--) {
    const c = comments[k];
    if (source.slice(c.end, end).trim() !== '') return '';
    if (c.type === 'Block') return c.value;
    end = c.start; // a line comment (a biome-ignore, say) between the doc and the interface
  }
  return '';
}

/** The interfaces (in declaration order) and unions of ast.ts's source text. */
export function readAst(source: string): { ifaces: Iface[]; unions: Map<string, string[]> } {
  const parsed = parseSync('ast.ts', source, { lang: 'ts', sourceType: 'module' });
  if (parsed.errors.length > 0) throw new Error(`ast.ts: ${parsed.errors[0]?.message}`);
  const ifaces: Iface[] = [];
  const unions = new Map<string, string[]>();
  for (const stmt of parsed.program.body as Node[]) {
    const decl = stmt.type === 'ExportNamedDeclaration' ? stmt.declaration : stmt;
    if (decl?.type === 'TSInterfaceDeclaration')
      ifaces.push(iface(decl, docBefore(source, parsed.comments, stmt.start)));
    else if (decl?.type === 'TSTypeAliasDeclaration' && decl.typeAnnotation.type === 'TSUnionType') {
      const members = (decl.typeAnnotation.types as Node[]).map((t) => {
        if (t.type !== 'TSTypeReference') throw new Error(`ast.ts: ${decl.id.name}: a union of interfaces`);
        return t.typeName.name as string;
      });
      unions.set(decl.id.name, members);
    }
  }
  const kinds = new Set<string>();
  for (const i of ifaces) {
    if (kinds.has(i.kind)) throw new Error(`ast.ts: ${i.name}: kind '${i.kind}' is used twice`);
    kinds.add(i.kind);
  }
  const names = new Set([...ifaces.map((i) => i.name), ...unions.keys()]);
  for (const i of ifaces)
    for (const f of i.fields) {
      let t = f.type;
      while (t.tag === 'list' || t.tag === 'option') t = t.of;
      if (t.tag === 'node' && !names.has(t.name))
        throw new Error(`ast.ts: ${i.name}.${f.name}: '${t.name}' is not a node type of ast.ts`);
    }
  for (const [u, members] of unions)
    for (const m of members)
      if (!ifaces.some((i) => i.name === m)) throw new Error(`ast.ts: ${u}: '${m}' is not an interface`);
  const commands = unions.get('Cmd') ?? [];
  for (const i of ifaces) {
    if (i.tags.has('leaf') && !commands.includes(i.name))
      throw new Error(`ast.ts: ${i.name}: @leaf is for members of the Cmd union`);
    if (i.tags.has('leaf') && !leafShape(i))
      throw new Error(
        `ast.ts: ${i.name}: a @leaf's fields are scalars and expressions (Expr fields, then at most one List<Expr> or Option<Expr>)`,
      );
    if (i.tags.has('ends') && !i.tags.has('leaf'))
      throw new Error(`ast.ts: ${i.name}: @ends is read on @leaf kinds only`);
  }
  return { ifaces, unions };
}

function tyText(t: Ty): string {
  switch (t.tag) {
    case 'number':
    case 'string':
    case 'boolean':
      return `{ tag: '${t.tag}' }`;
    case 'node':
      return `{ tag: 'node', name: '${t.name}' }`;
    case 'list':
    case 'option':
      return `{ tag: '${t.tag}', of: ${tyText(t.of)} }`;
  }
}

const HEADER = `/**
 * GENERATED by scripts/gen-kernel-fields.ts from src/kernel/ast.ts: do not edit; after changing
 * ast.ts run \`npm run gen:fields\` (tests/kernel/fields.test.ts fails while this file is stale).
 * One line per kind: the file is data, left out of the formatter (biome.json).
 *
 * The kernel AST's field table: for every node kind, its interface, the unions it belongs to and
 * its fields in declaration order (\`kind\` left out, \`lbl\` last) with their types. Generic walks,
 * the constructor table of the Fig. 6 printer and the validator read it (src/kernel/fields.ts).
 */
import type * as ast from './ast.js';

/** A field's type: a scalar, a node type of ast.ts (an interface or a union), a list or an option. */
export type FieldType =
  | { readonly tag: 'number' | 'string' | 'boolean' }
  | { readonly tag: 'node'; readonly name: string }
  | { readonly tag: 'list' | 'option'; readonly of: FieldType };

export interface FieldInfo<F extends string = string> {
  readonly name: F;
  readonly type: FieldType;
}

export interface NodeInfo<N extends KernelNode = KernelNode> {
  /** The interface in ast.ts. */
  readonly iface: string;
  /** The unions of ast.ts that have it as a member. */
  readonly unions: readonly string[];
  /** Its fields but \`kind\`, in declaration order. */
  readonly fields: readonly FieldInfo<Exclude<keyof N & string, 'kind'>>[];
}

/** One entry per node kind, typed by its interface (so tsc checks the field names too). */
export type NodeTable = { readonly [K in KernelNode['kind']]: NodeInfo<Extract<KernelNode, { kind: K }>> };
`;

/** The text of fields.generated.ts for ast.ts's source text. */
export function generateKernelFields(source: string): string {
  const { ifaces, unions } = readAst(source);
  const out: string[] = [HEADER];
  out.push('/** Every node of the kernel AST. */');
  out.push('export type KernelNode =');
  for (const [k, i] of ifaces.entries()) out.push(`  | ast.${i.name}${k === ifaces.length - 1 ? ';' : ''}`);
  out.push('');
  out.push('/** The node kinds with their interfaces, unions and fields, in declaration order. */');
  out.push('export const KERNEL_NODES: NodeTable = {');
  for (const i of ifaces) {
    const member = [...unions].filter(([, ms]) => ms.includes(i.name)).map(([u]) => `'${u}'`);
    const fields = i.fields.map((f) => `{ name: '${f.name}', type: ${tyText(f.type)} }`);
    out.push(
      `  ${i.kind}: { iface: '${i.name}', unions: [${member.join(', ')}], fields: [${fields.join(', ')}] },`,
    );
  }
  out.push('};');
  out.push('');
  out.push('/** The unions of ast.ts and the kinds of their members, in declaration order. */');
  out.push("export const KERNEL_UNIONS: Readonly<Record<string, readonly KernelNode['kind'][]>> = {");
  for (const [u, members] of unions) {
    const kinds = members.map((m) => `'${ifaces.find((i) => i.name === m)?.kind}'`);
    out.push(`  ${u}: [${kinds.join(', ')}],`);
  }
  out.push('};');
  out.push('');
  return out.join('\n');
}

// ---- the leaf commands, for the SCF-lang passes -------------------------------------------------

export const LEAF_FILE = path.join(ROOT, 'src/optimizers/leaf.generated.ts');

const EXPR: Ty = { tag: 'node', name: 'Expr' };

function sameTy(a: Ty, b: Ty): boolean {
  return tyText(a) === tyText(b);
}

/**
 * Whether the fields of `i` but `lbl` are those of a leaf: scalars and expressions — `Expr` fields,
 * then at most one `List<Expr>` or `Option<Expr>` after them (so that `leafWith` can put them back).
 */
function leafShape(i: Iface): boolean {
  let tail = false;
  for (const f of i.fields.slice(0, -1)) {
    const t = f.type;
    if (t.tag === 'number' || t.tag === 'string' || t.tag === 'boolean') continue;
    if (tail) return false;
    if (sameTy(t, EXPR)) continue;
    if ((t.tag === 'list' || t.tag === 'option') && sameTy(t.of, EXPR)) tail = true;
    else return false;
  }
  return true;
}

/**
 * The SCF-lang expression listing `i`'s expressions (of `c`), in field order. One cell over
 * projections of `c` is finite to the partial evaluator (finiteness.ts); a leaf with two or more
 * `Expr` fields gets nested cells, which it takes to be unbounded, so passes over such a kind
 * would stage less precisely (no such kind today).
 */
function exprsText(i: Iface): string {
  const exprs = i.fields.filter((f) => sameTy(f.type, EXPR)).map((f) => `c.${f.name}`);
  const rest = i.fields.find((f) => f.type.tag === 'list' || f.type.tag === 'option');
  let out =
    rest === undefined
      ? NIL
      : rest.type.tag === 'list'
        ? `c.${rest.name}`
        : `c.${rest.name}.kind === 'some' ? ${cons(`c.${rest.name}.value`, NIL)} : ${NIL}`;
  for (const e of exprs.reverse()) out = cons(e, out);
  return out;
}

const NIL = "{ kind: 'nil' }";

function cons(head: string, tail: string): string {
  return `{ kind: 'cons', head: ${head}, tail: ${tail} }`;
}

/** The SCF-lang expression rebuilding `c` (of `i`) with the expressions of list `es` and label `lbl`. */
function withText(i: Iface): string {
  let rest = 'es';
  const parts = [`kind: '${i.kind}'`];
  for (const f of i.fields) {
    const t = f.type;
    if (f.name === 'lbl') parts.push('lbl');
    else if (sameTy(t, EXPR)) {
      parts.push(`${f.name}: headOr(${rest}, c.${f.name})`);
      rest = `tailOf(${rest})`;
    } else if (t.tag === 'list') parts.push(`${f.name}: ${rest}`);
    else if (t.tag === 'option') parts.push(`${f.name}: firstOf(${rest})`);
    else parts.push(`${f.name}: c.${f.name}`);
  }
  return `{ ${parts.join(', ')} }`;
}

const LEAF_HEADER = `/**
 * GENERATED by scripts/gen-kernel-fields.ts from src/kernel/ast.ts: do not edit; after changing
 * ast.ts run \`npm run gen:fields\` (tests/kernel/fields.test.ts fails while this file is stale).
 * SCF-lang (checked by \`scf check\` with the passes that import it); left out of the formatter.
 *
 * The *leaf* commands: the \`Cmd\` kinds ast.ts tags \`@leaf\` — no sub-command, fields that are
 * scalars and expressions (\`Expr\` fields, then at most one \`List<Expr>\` or \`Option<Expr>\`),
 * and a meaning the SCF-lang passes read from that alone: it evaluates its expressions in field
 * order (a call among them may store into the arrays passed to it), assigns no variable or array
 * itself, names none in a string field, then goes on to the next command or, tagged \`@ends\`,
 * leaves the function. The passes' \`default\` case handles every leaf kind they give no case of
 * their own, through \`leafExprs\` (its expressions), \`leafWith\` (the command rebuilt with new
 * expressions and label) and \`leafEnds\`, so a new leaf kind needs no case in them.
 */
`;

/** The text of leaf.generated.ts for ast.ts's source text. */
export function generateLeafCommands(source: string): string {
  const { ifaces, unions } = readAst(source);
  const members = (unions.get('Cmd') ?? []).map((m) => ifaces.find((i) => i.name === m) as Iface);
  const leaves = members.filter((i) => i.tags.has('leaf'));
  const out: string[] = [];
  out.push('/** The leaf command kinds. */');
  out.push(`export type LeafCmd = ${leaves.map((i) => i.name).join(' | ')};`);
  out.push('');
  out.push('/** The expressions of `c`, in field order. */');
  out.push('export function leafExprs(c: LeafCmd): List<Expr> {');
  out.push('  switch (c.kind) {');
  for (const i of leaves) out.push(`    case '${i.kind}':`, `      return ${exprsText(i)};`);
  out.push('  }', '}', '');
  out.push(
    '/** `c` with its expressions from `es`, in order (an `Expr` field keeps its own when `es` runs out; a list takes the rest). */',
  );
  out.push('export function leafWith(c: LeafCmd, es: List<Expr>, lbl: number): Cmd {');
  out.push('  switch (c.kind) {');
  for (const i of leaves) out.push(`    case '${i.kind}':`, `      return ${withText(i)};`);
  out.push('  }', '}', '');
  out.push('/** Whether control leaves the function at `c` (tagged `@ends` in ast.ts). */');
  out.push('export function leafEnds(c: LeafCmd): boolean {');
  out.push('  switch (c.kind) {');
  const ends = leaves.filter((i) => i.tags.has('ends'));
  const goesOn = leaves.filter((i) => !i.tags.has('ends'));
  for (const [group, value] of [
    [ends, 'true'],
    [goesOn, 'false'],
  ] as const) {
    if (group.length === 0) continue;
    for (const i of group) out.push(`    case '${i.kind}':`);
    out.push(`      return ${value};`);
  }
  out.push('  }', '}', '');
  // the helpers leafWith calls (only those: tsc rejects unused functions)
  const body = out.join('\n');
  const helpers: [string, string][] = [
    [
      'headOr',
      "function headOr(es: List<Expr>, e: Expr): Expr {\n  return es.kind === 'cons' ? es.head : e;\n}\n",
    ],
    [
      'tailOf',
      "function tailOf(es: List<Expr>): List<Expr> {\n  return es.kind === 'cons' ? es.tail : es;\n}\n",
    ],
    [
      'firstOf',
      "function firstOf(es: List<Expr>): Option<Expr> {\n  return es.kind === 'cons' ? { kind: 'some', value: es.head } : { kind: 'none' };\n}\n",
    ],
  ];
  const used = helpers.filter(([name]) => body.includes(`${name}(`)).map(([, text]) => text);
  const prelude = used.some((h) => h.includes('Option<')) ? 'List, Option' : 'List';
  const types = ['Cmd', 'Expr', ...leaves.map((i) => i.name)].sort().join(', ');
  const imports = [
    `import type { ${prelude} } from 'scf/prelude';`,
    `import type { ${types} } from '../kernel/ast.js';`,
    '',
  ];
  return [LEAF_HEADER.trimEnd(), ...imports, body, ...used].join('\n');
}

// ---- the fast shape check, for the validator ---------------------------------------------------

export const SHAPE_FILE = path.join(ROOT, 'src/kernel/shape.generated.ts');

const SHAPE_HEADER = `/**
 * GENERATED by scripts/gen-kernel-fields.ts from src/kernel/ast.ts: do not edit; after changing
 * ast.ts run \`npm run gen:fields\` (tests/kernel/fields.test.ts fails while this file is stale).
 *
 * The field table's \`shape\` rule as code, one function per node type, list and option of the
 * table, each field read by its name (so each read site sees few shapes): whether a value is of
 * the type, its depth within the walk's limit, its labels distinct and its names identifiers.
 * validate.ts's \`isBoundedTree\` calls \`shapeFun\`; tree-walk.ts holds the steps they share.
 */
import { enter, isIdentifier, type TreeWalk, takeLabel } from './tree-walk.js';
`;

/** The generated function that checks a value of field type `t` (undefined for a scalar). */
function shapeFn(t: Ty): string | undefined {
  switch (t.tag) {
    case 'number':
    case 'string':
    case 'boolean':
      return undefined;
    case 'node':
      return `shape${t.name}`;
    case 'list':
    case 'option':
      return `${t.tag}${t.of.tag === 'node' ? t.of.name : t.of.tag[0]?.toUpperCase() + t.of.tag.slice(1)}`;
  }
}

/** The check of field `name` of type `t` on node `o` at depth `d`. */
function fieldCheck(name: string, t: Ty, names: ReadonlySet<string>): string {
  const v = `o.${name}`;
  const own = `Object.hasOwn(o, '${name}')`;
  if (t.tag === 'number' || t.tag === 'boolean') return `${own} && typeof ${v} === '${t.tag}'`;
  if (t.tag === 'string')
    return names.has(name)
      ? `${own} && typeof ${v} === 'string' && isIdentifier(${v})`
      : `${own} && typeof ${v} === 'string'`;
  return `${own} && ${shapeFn(t)}(${v}, d + 1, w)`;
}

/** The text of shape.generated.ts for ast.ts's source text; `names` are the fields that hold names. */
export function generateShapeChecker(source: string, names: ReadonlySet<string>): string {
  const { ifaces, unions } = readAst(source);
  const out: string[] = [SHAPE_HEADER];
  const types = new Map<string, Ty>();
  const add = (t: Ty): void => {
    const fn = shapeFn(t);
    if (fn === undefined || types.has(fn)) return;
    types.set(fn, t);
    if (t.tag === 'list' || t.tag === 'option') add(t.of);
  };
  add({ tag: 'node', name: 'Fun' });
  for (const i of ifaces) for (const f of i.fields) add(f.type);
  for (const [k, [fn, t]] of [...types].sort(([a], [b]) => (a < b ? -1 : 1)).entries()) {
    if (k > 0) out.push('');
    if (t.tag === 'node') {
      const members = unions.get(t.name) ?? [t.name];
      out.push(`/** Whether \`x\` is a ${t.name} of the right shape (the walk's \`shape\` rule). */`);
      out.push(`export function ${fn}(x: unknown, d: number, w: TreeWalk): boolean {`);
      out.push("  if (typeof x !== 'object' || x === null || d > w.limit || !enter(w)) return false;");
      out.push('  const o = x as Record<string, unknown>;');
      out.push('  switch (o.kind) {');
      for (const m of members) {
        const i = ifaces.find((x) => x.name === m);
        if (i === undefined) throw new Error(`ast.ts: ${t.name}: no interface ${m}`);
        const checks = ['takeLabel(o.lbl, w)', ...i.fields.map((f) => fieldCheck(f.name, f.type, names))];
        out.push(`    case '${i.kind}':`);
        out.push(`      return (\n        ${checks.join(' &&\n        ')}\n      );`);
      }
      out.push('    default:');
      out.push('      return false;');
      out.push('  }');
      out.push('}');
    } else if (t.tag === 'list') {
      const el = shapeFn(t.of);
      const head = el === undefined ? `typeof l.head === '${t.of.tag}'` : `${el}(l.head, e + 1, w)`;
      out.push('/** Whether `x` is a list of the element type, each cell a level deeper. */');
      out.push(`function ${fn}(x: unknown, d: number, w: TreeWalk): boolean {`);
      out.push(
        '  for (let l = x as Record<string, unknown>, e = d; ; l = l.tail as Record<string, unknown>, e++) {',
      );
      out.push("    if (typeof l !== 'object' || l === null || e > w.limit || !enter(w)) return false;");
      out.push("    if (l.kind === 'nil') return true;");
      out.push(`    if (l.kind !== 'cons' || !(${head})) return false;`);
      out.push('  }');
      out.push('}');
    } else if (t.tag === 'option') {
      const el = shapeFn(t.of);
      const value = el === undefined ? `typeof o.value === '${t.of.tag}'` : `${el}(o.value, d + 1, w)`;
      out.push('/** Whether `x` is `none` or `some` of the value type. */');
      out.push(`function ${fn}(x: unknown, d: number, w: TreeWalk): boolean {`);
      out.push("  if (typeof x !== 'object' || x === null || d > w.limit || !enter(w)) return false;");
      out.push('  const o = x as Record<string, unknown>;');
      out.push(`  return o.kind === 'none' || (o.kind === 'some' && ${value});`);
      out.push('}');
    }
  }
  out.push('');
  return out.join('\n');
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const source = readFileSync(AST_FILE, 'utf8');
  writeFileSync(FIELDS_FILE, generateKernelFields(source));
  writeFileSync(LEAF_FILE, generateLeafCommands(source));
  writeFileSync(SHAPE_FILE, generateShapeChecker(source, NAME_FIELDS));
  // imported once this module has run (not awaited: gen-kernel-ast-doc.ts imports this module)
  void import('./gen-kernel-ast-doc.js').then(({ writeAstDoc }) => {
    const written = [FIELDS_FILE, LEAF_FILE, SHAPE_FILE, writeAstDoc()].map((f) => path.relative(ROOT, f));
    console.log(`wrote ${written.join(', ')}`);
  });
}
