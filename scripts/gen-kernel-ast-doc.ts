/**
 * `npm run gen:ast-doc` (and `npm run gen:fields`, which writes it with the field table): writes
 * docs/kernel-ast.md, the pass writer's reference to the kernel AST, from the doc comments of
 * - src/kernel/ast.ts: its header (the invariants a pass keeps, the file's rules and tags) and, per
 *   `// ---- section ----` banner, its types in declaration order: each union with its members, each
 *   node kind with its `kind` string, its unions, its tags and a table of its fields (types as the
 *   field table reads them, `readAst` of gen-kernel-fields.ts, and each field's own doc comment);
 * - src/kernel/validate.ts: the bullet list of its header's rules;
 * - src/kernel/eval.ts: its header (the evaluator's semantics and run-time errors);
 * - src/kernel/public.ts (`scf/kernel`): each value and type it exports but the AST's, read from the
 *   module that declares it, in that module's declaration order: its signature and the first
 *   sentence of its doc comment.
 *
 * Invariants: the output is a function of those sources alone (tests/kernel/ast-doc.test.ts
 * regenerates it in memory and fails when the committed file is stale). The generator fails, naming
 * what is missing, when a rule of `ValidationProblem` is not in validate.ts's rule list or not
 * cited by ast.ts's header as "rule `name`", when an export of public.ts cannot be found, and when
 * two headings would get the same anchor. Doc comments are copied as markdown: their lines without
 * the leading ` * `, tag lines (`@leaf @ends`) left out of a kind's text and listed after it. The
 * page is then formatted by the repository's biome (`biome format`, which `biome ci` checks
 * markdown with), so the committed file is what both the test and the formatter expect.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseSync } from 'oxc-parser';
import { docBefore, type Iface, ROOT, readAst, type Ty } from './gen-kernel-fields.js';

export const AST_DOC_FILE = path.join(ROOT, 'docs/kernel-ast.md');

/** The sources the reference is generated from (paths relative to the repository root). */
const AST = 'src/kernel/ast.ts';
const VALIDATE = 'src/kernel/validate.ts';
const EVAL = 'src/kernel/eval.ts';
const PUBLIC = 'src/kernel/public.ts';

/** Reads a source file by its path relative to the repository root. */
export type ReadSource = (rel: string) => string;

export const readRepoFile: ReadSource = (rel) => readFileSync(path.join(ROOT, rel), 'utf8');

// biome-ignore lint/suspicious/noExplicitAny: oxc's ESTree nodes, read structurally
type Node = any;

interface Parsed {
  readonly source: string;
  readonly body: readonly Node[];
  readonly comments: readonly Node[];
}

function parse(rel: string, source: string): Parsed {
  const parsed = parseSync(rel, source, { lang: 'ts', sourceType: 'module' });
  if (parsed.errors.length > 0) throw new Error(`${rel}: ${parsed.errors[0]?.message}`);
  return { source, body: parsed.program.body, comments: parsed.comments };
}

// ---- doc comments as markdown ------------------------------------------------------------------

/** The lines of a block comment's text, without the leading ` * ` and the blank lines around. */
function commentLines(doc: string): string[] {
  const lines = doc.split('\n').map((l) => l.replace(/^\s*\*+ ?/, '').trimEnd());
  while (lines.length > 0 && lines[0]?.trim() === '') lines.shift();
  while (lines.length > 0 && lines.at(-1)?.trim() === '') lines.pop();
  return lines;
}

/** A doc comment's text as markdown, without its tag lines. */
function docText(doc: string): string {
  return commentLines(doc)
    .filter((l) => !/^(@\w+\s*)+$/.test(l.trim()))
    .join('\n');
}

/** The file's header: its first block comment, as paragraphs (blank-line separated) of markdown. */
function headerParagraphs(p: Parsed, rel: string): string[] {
  const first = p.comments[0];
  if (first?.type !== 'Block' || p.source.slice(0, first.start).trim() !== '')
    throw new Error(`${rel}: no header comment`);
  return commentLines(first.value)
    .join('\n')
    .split(/\n\s*\n/)
    .map((x) => x.trim());
}

/** `text` on one line (whitespace collapsed). */
function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** The first sentence of `text` (up to a full stop outside backticks followed by a blank), one line. */
function firstSentence(text: string): string {
  const s = oneLine(text);
  let code = false;
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '`') code = !code;
    else if (!code && s[i] === '.' && s[i + 1] === ' ') return s.slice(0, i + 1);
  }
  return s;
}

/** `text` for a table cell: one line, `|` escaped. */
function cell(text: string): string {
  return oneLine(text).replaceAll('|', '\\|');
}

/** The anchor GitHub gives a heading. */
function slug(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replaceAll(' ', '-');
}

/** Headings with their anchors, failing on a repeated anchor. */
class Headings {
  private readonly seen = new Set<string>();

  heading(level: number, text: string): string {
    const anchor = slug(text);
    if (this.seen.has(anchor)) throw new Error(`kernel-ast.md: two headings have the anchor #${anchor}`);
    this.seen.add(anchor);
    return `${'#'.repeat(level)} ${text}`;
  }
}

// ---- the node kinds ----------------------------------------------------------------------------

/** A declaration of ast.ts, in order: a section banner, a type alias, or a node kind. */
type AstItem =
  | { readonly tag: 'section'; readonly title: string }
  | { readonly tag: 'alias'; readonly name: string; readonly text: string; readonly doc: string }
  | {
      readonly tag: 'node';
      readonly iface: Iface;
      readonly doc: string;
      readonly fieldDocs: ReadonlyMap<string, string>;
    };

const BANNER = /^\s*-{3,}\s+(.+?)\s+-{3,}\s*$/;

function astItems(p: Parsed, ifaces: readonly Iface[]): AstItem[] {
  const banners = p.comments.filter((c) => c.type === 'Line' && BANNER.test(c.value));
  const out: AstItem[] = [];
  let next = 0;
  for (const stmt of p.body) {
    for (; next < banners.length && banners[next].start < stmt.start; next++) {
      const title = (BANNER.exec(banners[next].value) as RegExpExecArray)[1] as string;
      out.push({ tag: 'section', title: title[0]?.toUpperCase() + title.slice(1) });
    }
    const decl = stmt.type === 'ExportNamedDeclaration' ? stmt.declaration : stmt;
    const doc = docBefore(p.source, p.comments, stmt.start);
    if (decl?.type === 'TSTypeAliasDeclaration')
      out.push({
        tag: 'alias',
        name: decl.id.name,
        text: oneLine(p.source.slice(decl.start, decl.end)),
        doc,
      });
    else if (decl?.type === 'TSInterfaceDeclaration') {
      const iface = ifaces.find((i) => i.name === decl.id.name) as Iface;
      const fieldDocs = new Map<string, string>();
      for (const m of decl.body.body as Node[])
        fieldDocs.set(m.key.name, docBefore(p.source, p.comments, m.start));
      out.push({ tag: 'node', iface, doc, fieldDocs });
    }
  }
  return out;
}

/** A field type as TypeScript writes it. */
function tyText(t: Ty): string {
  switch (t.tag) {
    case 'number':
    case 'string':
    case 'boolean':
      return t.tag;
    case 'node':
      return t.name;
    case 'list':
      return `List<${tyText(t.of)}>`;
    case 'option':
      return `Option<${tyText(t.of)}>`;
  }
}

/** A field type as markdown: code, linked to the heading of the node type it holds, if any. */
function tyDoc(t: Ty): string {
  let inner = t;
  while (inner.tag === 'list' || inner.tag === 'option') inner = inner.of;
  const code = `\`${tyText(t)}\``;
  return inner.tag === 'node' ? `[${code}](#${slug(inner.name)})` : code;
}

const LBL_DOC = 'Its label, unique within its function (see [labels](#invariants-and-rules)).';

function nodeDoc(item: Extract<AstItem, { tag: 'node' }>, unions: ReadonlyMap<string, string[]>): string[] {
  const { iface } = item;
  const member = [...unions]
    .filter(([, ms]) => ms.includes(iface.name))
    .map(([u]) => `[\`${u}\`](#${slug(u)})`);
  const facts = [`\`kind: '${iface.kind}'\``];
  if (member.length > 0) facts.push(`in ${member.join(', ')}`);
  if (iface.tags.size > 0) facts.push(`tagged ${[...iface.tags].map((t) => `\`@${t}\``).join(' ')}`);
  const out = [facts.join(' · '), ''];
  const text = docText(item.doc);
  if (text !== '') out.push(text, '');
  out.push('| Field | Type | Meaning |', '| --- | --- | --- |');
  for (const f of iface.fields) {
    const doc = item.fieldDocs.get(f.name) ?? '';
    const what = doc === '' && f.name === 'lbl' ? LBL_DOC : cell(docText(doc));
    out.push(`| \`${f.name}\` | ${tyDoc(f.type)} | ${what} |`);
  }
  return out;
}

function aliasDoc(
  item: Extract<AstItem, { tag: 'alias' }>,
  ifaces: readonly Iface[],
  unions: ReadonlyMap<string, string[]>,
): string[] {
  const out: string[] = [];
  const text = docText(item.doc);
  if (text !== '') out.push(text, '');
  const members = unions.get(item.name);
  if (members === undefined) return [...out, `\`${item.text}\``];
  const kinds = members.map((m) => {
    const i = ifaces.find((x) => x.name === m) as Iface;
    return `[\`${m}\`](#${slug(m)}) (\`'${i.kind}'\`${i.tags.has('leaf') ? ', leaf' : ''})`;
  });
  return [...out, `One of ${kinds.join(', ')}.`];
}

// ---- the validator's rules ---------------------------------------------------------------------

/** The rules of validate.ts's header list (`- \`name\`: text`), checked against `ValidationProblem`. */
function validatorRules(read: ReadSource, astHeader: string): [string, string][] {
  const p = parse(VALIDATE, read(VALIDATE));
  const lines = commentLines(p.comments[0]?.value ?? '');
  const rules: [string, string][] = [];
  for (const line of lines) {
    const m = /^- `(\w+)`: (.*)$/.exec(line);
    const last = rules.at(-1);
    if (m) rules.push([m[1] as string, m[2] as string]);
    else if (last !== undefined && /^\s+\S/.test(line)) last[1] += ` ${line.trim()}`;
    else if (last !== undefined) break;
  }
  const declared = problemRules(p);
  const listed = rules.map(([r]) => r);
  for (const r of declared) {
    if (!listed.includes(r)) throw new Error(`${VALIDATE}: rule '${r}' is not in its header's rule list`);
    if (!astHeader.includes(`rule \`${r}\``))
      throw new Error(`${AST}: its header cites no invariant as rule \`${r}\` (validate.ts checks it)`);
  }
  for (const r of listed)
    if (!declared.includes(r))
      throw new Error(`${VALIDATE}: its header lists '${r}', no rule of ValidationProblem`);
  return rules;
}

/** The string literals of `ValidationProblem.rule`'s type. */
function problemRules(p: Parsed): string[] {
  for (const stmt of p.body) {
    const decl = stmt.type === 'ExportNamedDeclaration' ? stmt.declaration : stmt;
    if (decl?.type !== 'TSInterfaceDeclaration' || decl.id.name !== 'ValidationProblem') continue;
    const rule = (decl.body.body as Node[]).find((m) => m.key?.name === 'rule');
    const t = rule?.typeAnnotation?.typeAnnotation;
    const members: Node[] = t?.type === 'TSUnionType' ? t.types : [t];
    return members.map((x) => x?.literal?.value).filter((v): v is string => typeof v === 'string');
  }
  throw new Error(`${VALIDATE}: no interface ValidationProblem`);
}

// ---- the helpers of scf/kernel -----------------------------------------------------------------

interface Export {
  readonly name: string;
  readonly signature: string;
  readonly doc: string;
}

/** The declarations `rel` exports itself, in declaration order. */
function declaredExports(rel: string, read: ReadSource): Export[] {
  const p = parse(rel, read(rel));
  const out: Export[] = [];
  for (const stmt of p.body) {
    if (stmt.type !== 'ExportNamedDeclaration' || stmt.declaration === null) continue;
    const d = stmt.declaration;
    const doc = docText(docBefore(p.source, p.comments, stmt.start));
    const text = (from: number, to: number): string =>
      oneLine(p.source.slice(from, to)).replace(/,\s*\)/g, ')');
    if (d.type === 'FunctionDeclaration')
      out.push({ name: d.id.name, signature: text(d.id.start, d.body.start), doc });
    else if (d.type === 'TSInterfaceDeclaration')
      out.push({ name: d.id.name, signature: `interface ${d.id.name}`, doc });
    else if (d.type === 'TSTypeAliasDeclaration')
      out.push({ name: d.id.name, signature: text(d.start, d.end).replace(/;$/, ''), doc });
    else if (d.type === 'VariableDeclaration')
      for (const v of d.declarations as Node[])
        out.push({ name: v.id.name, signature: `${d.kind} ${text(v.start, v.end)}`, doc });
  }
  return out;
}

/** The module a relative specifier of `from` names (`./x.js` is `./x.ts`). */
function resolve(from: string, specifier: string): string {
  return path.posix.join(path.posix.dirname(from), specifier.replace(/\.js$/, '.ts'));
}

/** public.ts's exports but the AST types, grouped by the module that declares them. */
function publicExports(read: ReadSource): { module: string; exports: Export[] }[] {
  const p = parse(PUBLIC, read(PUBLIC));
  const out: { module: string; exports: Export[] }[] = [];
  for (const stmt of p.body) {
    if (stmt.source === null || stmt.source === undefined) continue;
    const module = resolve(PUBLIC, stmt.source.value);
    if (module === AST) continue; // the types above
    const declared = declaredExports(module, read);
    if (stmt.type === 'ExportAllDeclaration') {
      out.push({ module, exports: declared });
      continue;
    }
    const names = (stmt.specifiers as Node[]).map((s) => s.local.name as string);
    for (const n of names)
      if (!declared.some((e) => e.name === n))
        throw new Error(`${PUBLIC}: '${n}' is not declared by ${module}`);
    out.push({ module, exports: declared.filter((e) => names.includes(e.name)) });
  }
  return out;
}

function helperLines(groups: { module: string; exports: Export[] }[], h: Headings): string[] {
  const out: string[] = [];
  for (const g of groups) {
    out.push(h.heading(3, g.module), '');
    for (const e of g.exports) {
      const what = e.doc === '' ? '' : ` — ${firstSentence(e.doc)}`;
      out.push(`- \`${e.signature}\`${what}`);
    }
    out.push('');
  }
  return out;
}

// ---- the page ----------------------------------------------------------------------------------

const PREAMBLE = `<!--
GENERATED by scripts/gen-kernel-ast-doc.ts from the doc comments of src/kernel/ast.ts,
src/kernel/validate.ts, src/kernel/eval.ts and src/kernel/public.ts (with the modules it
re-exports): do not edit; run \`npm run gen:ast-doc\` after changing them
(tests/kernel/ast-doc.test.ts fails while this file is stale).
-->

# The kernel AST: a reference for pass writers

A pass ([docs/writing-an-optimizer.md](writing-an-optimizer.md)) takes a kernel function and
returns one: a tree of the node kinds below, every node an immutable record
\`{ kind, …fields, lbl }\`, lists and options the prelude's \`List<T>\` (\`cons\`/\`nil\`) and
\`Option<T>\` (\`some\`/\`none\`). It imports their types, and the helpers listed last, from
\`scf/kernel\`, and switches on \`kind\`. What follows is generated from the sources that define
them: the kinds, fields and invariants from src/kernel/ast.ts, the checks from
src/kernel/validate.ts, the run-time errors from src/kernel/eval.ts and the helpers from
src/kernel/public.ts.
`;

/** `text` formatted as biome formats docs/kernel-ast.md (tables padded, lists set off, …). */
function formatMarkdown(text: string): string {
  const biome = createRequire(import.meta.url).resolve('@biomejs/biome/bin/biome');
  const file = path.relative(ROOT, AST_DOC_FILE);
  return execFileSync(process.execPath, [biome, 'format', `--stdin-file-path=${file}`], {
    cwd: ROOT,
    input: text,
    encoding: 'utf8',
    stdio: ['pipe', 'pipe', 'pipe'],
  });
}

/** The text of docs/kernel-ast.md, from the sources `read` gives. */
export function generateAstDoc(read: ReadSource = readRepoFile): string {
  const astSource = read(AST);
  const { ifaces, unions } = readAst(astSource);
  const ast = parse(AST, astSource);
  const header = headerParagraphs(ast, AST);
  const rules = validatorRules(read, header.join('\n'));
  const items = astItems(ast, ifaces);
  const h = new Headings();
  const sections = items.filter((i) => i.tag === 'section').map((i) => i.title);

  const out: string[] = [PREAMBLE];
  out.push(h.heading(2, 'Contents'), '');
  const toc = ['Invariants and rules', ...sections, 'Run-time errors', 'Helpers from scf/kernel'];
  for (const t of toc) out.push(`- [${t}](#${slug(t)})`);
  out.push(
    '',
    h.heading(2, 'Invariants and rules'),
    '',
    'From the header of src/kernel/ast.ts ("this file"):',
    '',
  );
  out.push(header.slice(1).join('\n\n'), '');
  out.push(h.heading(3, 'What validate.ts checks'), '');
  out.push(
    '`validateProgram` and `validateFun` (src/kernel/validate.ts) report each problem with its rule:',
    '',
  );
  for (const [rule, text] of rules) out.push(`- \`${rule}\`: ${text}`);
  out.push('');
  for (const item of items) {
    if (item.tag === 'section') out.push(h.heading(2, item.title), '');
    else if (item.tag === 'alias')
      out.push(h.heading(3, item.name), '', ...aliasDoc(item, ifaces, unions), '');
    else out.push(h.heading(3, item.iface.name), '', ...nodeDoc(item, unions), '');
  }
  const evalHeader = headerParagraphs(parse(EVAL, read(EVAL)), EVAL);
  out.push(h.heading(2, 'Run-time errors'), '', 'From the header of src/kernel/eval.ts:', '');
  out.push(evalHeader.join('\n\n'), '');
  const publicHeader = headerParagraphs(parse(PUBLIC, read(PUBLIC)), PUBLIC);
  out.push(h.heading(2, 'Helpers from scf/kernel'), '', publicHeader[0] as string, '');
  out.push(...helperLines(publicExports(read), h));
  return formatMarkdown(`${out.join('\n').trimEnd()}\n`);
}

/** Writes docs/kernel-ast.md; its path. */
export function writeAstDoc(): string {
  writeFileSync(AST_DOC_FILE, generateAstDoc());
  return AST_DOC_FILE;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(`wrote ${path.relative(ROOT, writeAstDoc())}`);
}
