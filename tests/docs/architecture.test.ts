/**
 * docs/ARCHITECTURE.md stays true to the code it maps: every backticked path names a file or
 * folder of the checkout, every claim that a file defines a name holds, and every constant's
 * value it states is the code's.
 *
 * Paths. A code span outside fenced blocks is a path when it has no space and holds a `/` or ends
 * in a file extension (`.ts`, `.md`, `.json`, … `EXTENSION`); a lone extension (`.d.mts`) is not
 * one. It resolves, as the document writes paths, against the repository root, then against
 * `src/` (`stager/emit.ts`), with `.ts` added when it has no extension (`common/optional`); a
 * bare file name (`core.ts`) against the names of every file; a folder when it holds a file; a
 * glob (`src/optimizers/*.ts`, `*` within one name) when it matches one. The files are what a
 * clone holds: git's tracked files and its untracked ones that it does not ignore. What names no
 * file of the checkout is allowed only in these forms (`unresolved`): a package specifier, which
 * must be one of package.json's exports (`scf/runtime`); a file of the build, `dist/X.js`, whose
 * source `src/X.ts` must exist (`dist/vendor/` is copied there by the build); a system path
 * (`/proc`); a path under `node_modules/`; a name with a placeholder, an all-capitals part or
 * `<…>` (`NAME.stub.mjs`, `OUT/<name>/`, `X.browser.ts`).
 *
 * Claims. Where `N` is an identifier (`stage`, `Interpreter.run`, `open()`) and `F` a path of a
 * TypeScript or JavaScript file or a folder, these forms claim that `F` defines `N`:
 * - "`N` in `F`" and "`N` (`F`" and "(`N`, `F`)";
 * - "`F`'s `N`";
 * - "`F` (`N1`, `N2`/`N3`" — the backticked names that open the parenthesis, split by `,` or `/`;
 * - a `###` heading "— `F`, `N`" (the stage's file and its entry function).
 * `F` defines `N` when `N` is declared at its top level or exported by it (re-exports included),
 * or is a member of a class or interface it declares (a method, a field); for `A.b`, `A` is
 * declared or exported and `b` is a member or a top-level name. A folder defines what any of its
 * files defines; a bare file name that several files share defines what any of them defines.
 * Spans that are no declaration are not read as names: keywords (`default`), the package
 * (`scf`), code patterns (`Knnnn`).
 *
 * Values. A constant's value stated beside its name — "`NAME` = V", "`NAME = V`" or "`NAME` (V",
 * with `NAME` in capitals and V a number written `2000`, `50,000`, `5·10⁷` or `2^22` — must be
 * the value of a top-level `const NAME` of src/ (a literal, or arithmetic on literals and other
 * such constants; a name declared in several files holds when one of them has the value).
 *
 * Figures. No measured figure (a speed-up `3.7×`, a time `8 s`, `60–80 ms`, a size `3 GB`) stands
 * in the prose outside code spans: figures are docs/benchmarks.md's, which says how each was
 * measured.
 *
 * Counts are not tested: the document states none that only the code could confirm (how many
 * exceptions a list holds, how many switches a folder has), so none can drift.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { parseSync } from 'oxc-parser';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const DOC = 'docs/ARCHITECTURE.md';
/** A measured figure: a ratio, a time or a size written with its unit. */
const FIGURE =
  /(?<![\w.-])\d[\d.,·⁰¹²³⁴⁵⁶⁷⁸⁹]*(?:[–-]\d[\d.,]*)?\s?(?:×|ms|µs|ns|s|seconds?|minutes?|hours?|[KMG]i?B|bytes)(?![\w])/g;
const EXTENSION = /\.(?:[cm]?[jt]s|md|jsonc?|txt|wasm|svg|png|html|c|h|sh|ya?ml)$/;
const IDENT = /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)?(?:\(\))?$/;
/** Code spans that look like identifiers but name no declaration: keywords, the package, code patterns. */
const NOT_NAMES = /^(?:default|if|else|return|switch|case|for|while|const|let|scf|[A-Z]+nnnn)$/;

// ---- the checkout -------------------------------------------------------------------------------

/** The files a clone holds (tracked, and untracked ones git does not ignore), relative to ROOT. */
function checkoutFiles(): string[] {
  const r = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`git ls-files: ${r.stderr}`);
  return r.stdout
    .split('\0')
    .filter((f) => f !== '' && existsSync(path.join(ROOT, f)) && statSync(path.join(ROOT, f)).isFile());
}

interface Checkout {
  readonly files: ReadonlySet<string>;
  readonly folders: ReadonlySet<string>;
  readonly byName: ReadonlyMap<string, readonly string[]>;
  readonly exports: ReadonlySet<string>;
}

function checkout(list: readonly string[], exports: readonly string[]): Checkout {
  const folders = new Set<string>();
  const byName = new Map<string, string[]>();
  for (const f of list) {
    const parts = f.split('/');
    for (let i = 1; i < parts.length; i++) folders.add(parts.slice(0, i).join('/'));
    const name = parts[parts.length - 1] as string;
    byName.set(name, [...(byName.get(name) ?? []), f]);
  }
  return { files: new Set(list), folders, byName, exports: new Set(exports) };
}

// ---- paths --------------------------------------------------------------------------------------

/** Whether a code span's text is a path (see the header). */
function isPath(span: string): boolean {
  if (!/^[\w@.+\-<>*/]+(?:[?#][\w.=&-]*)?$/.test(span)) return false;
  if (/^\.[\w.]+$/.test(span)) return false; // an extension alone
  const bare = span.replace(/[?#].*$/, '');
  return bare.includes('/') || EXTENSION.test(bare);
}

/** The files and folders of the checkout a path names (none: it names nothing there). */
function resolvePath(span: string, co: Checkout): string[] {
  const p = span
    .replace(/[?#].*$/, '')
    .replace(/^\.\//, '')
    .replace(/\/$/, '');
  if (p.includes('*')) {
    // a glob (`src/optimizers/*.ts`): `*` stands for any part of one name
    const glob = new RegExp(
      `^(?:src/)?${p
        .split('*')
        .map((x) => x.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
        .join('[^/]*')}$`,
    );
    return [...co.files].filter((f) => glob.test(f));
  }
  const bases = [p, `src/${p}`];
  const candidates = EXTENSION.test(p) ? bases : [...bases, ...bases.map((b) => `${b}.ts`)];
  const found = candidates.filter((c) => co.files.has(c) || co.folders.has(c));
  if (found.length > 0 || p.includes('/')) return found;
  return [...(co.byName.get(p) ?? [])];
}

/** Why a path that names no file of the checkout is allowed, or undefined: it is not. */
function unresolved(span: string, co: Checkout): string | undefined {
  const p = span.replace(/[?#].*$/, '');
  if (/^scf(?:\/|$)/.test(p)) return co.exports.has(p.replace(/^scf/, '.')) ? 'package export' : undefined;
  if (p === 'dist' || p === 'dist/' || p.startsWith('dist/vendor/')) return 'the build';
  if (p.startsWith('dist/')) {
    const src = `src/${p.slice('dist/'.length).replace(/\.(?:d\.)?[cm]?js$/, '.ts')}`;
    return co.files.has(src) ? 'the build' : undefined;
  }
  if (p.startsWith('/')) return 'system path';
  if (p.startsWith('node_modules/')) return 'an install';
  if (span.split(/[/.#?-]/).some((part) => /^[A-Z]+$/.test(part) || /^<[^>]*>$/.test(part)))
    return 'placeholder';
  return undefined;
}

// ---- the document -------------------------------------------------------------------------------

interface Span {
  readonly text: string;
  readonly line: number;
  /** Offsets in the document's text without fenced blocks. */
  readonly start: number;
  readonly end: number;
}

/** The document's text with fenced blocks blanked (lines kept, so line numbers hold). */
function prose(doc: string): string {
  let fenced = false;
  return doc
    .split('\n')
    .map((l) => {
      if (/^\s*```/.test(l)) {
        fenced = !fenced;
        return '';
      }
      return fenced ? '' : l;
    })
    .join('\n');
}

function spans(text: string): Span[] {
  const out: Span[] = [];
  for (const m of text.matchAll(/`([^`\n]+)`/g)) {
    const start = m.index as number;
    out.push({
      text: m[1] as string,
      line: text.slice(0, start).split('\n').length,
      start,
      end: start + m[0].length,
    });
  }
  return out;
}

interface Claim {
  readonly name: string;
  readonly file: string;
  readonly line: number;
  readonly form: string;
}

/** The claims "`F` defines `N`" of a document's prose, in the forms of the header. */
function claims(text: string): Claim[] {
  const all = spans(text);
  const out: Claim[] = [];
  const isName = (s: Span) => IDENT.test(s.text) && !NOT_NAMES.test(s.text) && !isPath(s.text);
  const between = (a: Span, b: Span) => text.slice(a.end, b.start);
  const add = (n: Span, f: Span, form: string) =>
    out.push({ name: n.text, file: f.text, line: n.line, form });
  all.forEach((s, i) => {
    const next = all[i + 1];
    if (next === undefined) return;
    const gap = between(s, next);
    if (isName(s) && isPath(next.text)) {
      if (/^\s+in\s+$/.test(gap)) add(s, next, 'N in F');
      else if (/^\s+\($/.test(gap)) add(s, next, 'N (F');
      else if (/^,\s+$/.test(gap) && /\($/.test(text.slice(0, s.start)) && text[next.end] === ')')
        add(s, next, '(N, F)');
    }
    if (isPath(s.text) && isName(next)) {
      if (/^'s\s+$/.test(gap)) add(next, s, "F's N");
      else if (/^\s+\($/.test(gap)) {
        // the names that open the parenthesis: `F` (`a`, `b`/`c`
        for (let j = i + 1; j < all.length; j++) {
          const n = all[j] as Span;
          if (!isName(n)) break;
          add(n, s, 'F (N');
          const after = all[j + 1];
          if (after === undefined || !/^(?:,\s*|\/)$/.test(between(n, after))) break;
        }
      }
    }
  });
  // `### …` headings: "— `F`, `N`"
  for (const m of text.matchAll(/^###[^\n]*?—([^\n]*)$/gm)) {
    const list = spans(m[1] as string);
    let file: Span | undefined;
    for (const s of list) {
      if (isPath(s.text)) file = s;
      else if (file !== undefined && isName(s)) {
        out.push({
          name: s.text,
          file: file.text,
          line: text.slice(0, m.index as number).split('\n').length,
          form: 'heading',
        });
      }
    }
  }
  return out;
}

// ---- what a file defines ------------------------------------------------------------------------

interface Defined {
  readonly top: ReadonlySet<string>;
  readonly members: ReadonlySet<string>;
}

type Node = { readonly type: string; readonly [k: string]: unknown };

function bindingNames(pattern: unknown, out: Set<string>): void {
  const p = pattern as Node | null;
  if (p === null || typeof p !== 'object') return;
  if (p.type === 'Identifier') out.add(p.name as string);
  else if (p.type === 'ObjectPattern')
    for (const prop of p.properties as Node[])
      bindingNames(prop.type === 'RestElement' ? prop.argument : prop.value, out);
  else if (p.type === 'ArrayPattern') for (const e of p.elements as unknown[]) bindingNames(e, out);
  else if (p.type === 'AssignmentPattern') bindingNames(p.left, out);
  else if (p.type === 'RestElement') bindingNames(p.argument, out);
}

const nameOf = (n: unknown): string | undefined => {
  const x = n as { name?: unknown; value?: unknown } | null;
  if (x === null || x === undefined) return undefined;
  return typeof x.name === 'string' ? x.name : typeof x.value === 'string' ? x.value : undefined;
};

function declared(node: Node, top: Set<string>, members: Set<string>): void {
  switch (node.type) {
    case 'FunctionDeclaration':
    case 'TSTypeAliasDeclaration':
    case 'TSEnumDeclaration':
    case 'TSModuleDeclaration': {
      const n = nameOf(node.id);
      if (n !== undefined) top.add(n);
      return;
    }
    case 'ClassDeclaration':
    case 'TSInterfaceDeclaration': {
      const n = nameOf(node.id);
      if (n !== undefined) top.add(n);
      for (const m of (node.body as { body: Node[] }).body) {
        const k = nameOf(m.key);
        if (k !== undefined) members.add(k);
      }
      return;
    }
    case 'VariableDeclaration':
      for (const d of node.declarations as Node[]) bindingNames(d.id, top);
      return;
    case 'ExportNamedDeclaration':
      if (node.declaration) declared(node.declaration as Node, top, members);
      for (const s of node.specifiers as Node[]) {
        const n = nameOf(s.exported);
        if (n !== undefined) top.add(n);
      }
      return;
    case 'ExportAllDeclaration': {
      const n = nameOf(node.exported);
      if (n !== undefined) top.add(n);
      return;
    }
    case 'ExportDefaultDeclaration':
      top.add('default');
      if (node.declaration) declared(node.declaration as Node, top, members);
      return;
    default:
      return;
  }
}

const definitions = new Map<string, Defined>();

/** What a TypeScript or JavaScript file of the checkout defines (see the header). */
function defines(file: string): Defined {
  const known = definitions.get(file);
  if (known !== undefined) return known;
  const text = readFileSync(path.join(ROOT, file), 'utf8');
  const { program } = parseSync(file, text, {
    lang: /\.[cm]?ts$/.test(file) ? 'ts' : 'js',
    sourceType: 'module',
  });
  const top = new Set<string>();
  const members = new Set<string>();
  for (const node of program.body as unknown as Node[]) declared(node, top, members);
  const d = { top, members };
  definitions.set(file, d);
  return d;
}

function holds(claim: Claim, co: Checkout): boolean | 'not code' {
  const targets = resolvePath(claim.file, co).flatMap((t) =>
    co.folders.has(t) ? [...co.files].filter((f) => f.startsWith(`${t}/`)) : [t],
  );
  const code = targets.filter((t) => /\.[cm]?[jt]s$/.test(t) && !t.endsWith('.d.ts'));
  if (code.length === 0) return 'not code';
  const [a, b] = claim.name.replace(/\(\)$/, '').split('.') as [string, string | undefined];
  return code.some((t) => {
    const d = defines(t);
    if (b === undefined) return d.top.has(a) || d.members.has(a);
    return d.top.has(a) && (d.members.has(b) || d.top.has(b));
  });
}

// ---- constants' values -------------------------------------------------------------------------

interface ValueClaim {
  readonly name: string;
  readonly value: number;
  readonly text: string;
  readonly line: number;
}

const SUPERSCRIPT = '⁰¹²³⁴⁵⁶⁷⁸⁹';

/** A number as the document writes it (`2000`, `50,000`, `5·10⁷`, `2^22`), or undefined. */
function docNumber(text: string): number | undefined {
  const power = /^2\^(\d+)$/.exec(text);
  if (power) return 2 ** Number(power[1]);
  const m = /^(\d[\d,]*(?:\.\d+)?)(?:·10([⁰¹²³⁴⁵⁶⁷⁸⁹]+))?$/.exec(text);
  if (!m) return undefined;
  const mantissa = Number((m[1] as string).replace(/,/g, ''));
  const exp = m[2] ? Number([...m[2]].map((c) => SUPERSCRIPT.indexOf(c)).join('')) : 0;
  return mantissa * 10 ** exp;
}

/** The constants' values the document states beside their names (see the header). */
function valueClaims(text: string): ValueClaim[] {
  const out: ValueClaim[] = [];
  const at = (i: number) => text.slice(0, i).split('\n').length;
  const num = String.raw`(2\^\d+|\d[\d,]*(?:\.\d+)?(?:·10[⁰¹²³⁴⁵⁶⁷⁸⁹]+)?)`;
  const forms = [
    new RegExp(String.raw`\x60([A-Z][A-Z0-9_]+)\x60 = ${num}`, 'g'),
    new RegExp(String.raw`\x60([A-Z][A-Z0-9_]+) = ${num}\x60`, 'g'),
    new RegExp(String.raw`\x60([A-Z][A-Z0-9_]+)\x60 \(${num}`, 'g'),
  ];
  for (const re of forms)
    for (const m of text.matchAll(re)) {
      const written = (m[2] as string).replace(/,$/, '');
      const value = docNumber(written);
      if (value !== undefined)
        out.push({ name: m[1] as string, value, text: m[0], line: at(m.index as number) });
    }
  return out;
}

/** The values of the top-level `const NAME = …` of src/ (undefined where one is not arithmetic). */
function constantValues(name: string, co: Checkout): (number | undefined)[] {
  const decl = new RegExp(String.raw`\bconst ${name}\b[^=]*=`);
  const out: (number | undefined)[] = [];
  for (const f of co.files) {
    if (!f.startsWith('src/') || !/\.ts$/.test(f)) continue;
    const text = readFileSync(path.join(ROOT, f), 'utf8');
    if (!decl.test(text)) continue;
    const { program } = parseSync(f, text, { lang: 'ts', sourceType: 'module' });
    for (const node of program.body as unknown as Node[]) {
      const d = (node.type === 'ExportNamedDeclaration' ? node.declaration : node) as Node | null;
      if (d?.type !== 'VariableDeclaration') continue;
      for (const v of d.declarations as Node[])
        if (nameOf(v.id) === name) out.push(evaluate(v.init as Node, co, new Set([name])));
    }
  }
  return out;
}

/** Arithmetic on numeric literals and on other constants of src/; undefined for anything else. */
function evaluate(e: Node | null, co: Checkout, seen: Set<string>): number | undefined {
  if (e === null) return undefined;
  switch (e.type) {
    case 'Literal':
      return typeof e.value === 'number' ? e.value : undefined;
    case 'ParenthesizedExpression':
    case 'TSAsExpression':
    case 'TSSatisfiesExpression':
      return evaluate(e.expression as Node, co, seen);
    case 'UnaryExpression':
      return e.operator === '-' ? -(evaluate(e.argument as Node, co, seen) ?? Number.NaN) : undefined;
    case 'BinaryExpression': {
      const a = evaluate(e.left as Node, co, seen);
      const b = evaluate(e.right as Node, co, seen);
      if (a === undefined || b === undefined) return undefined;
      const ops: Record<string, (x: number, y: number) => number> = {
        '+': (x, y) => x + y,
        '-': (x, y) => x - y,
        '*': (x, y) => x * y,
        '/': (x, y) => x / y,
        '**': (x, y) => x ** y,
        '<<': (x, y) => x << y,
      };
      const op = ops[e.operator as string];
      return op ? op(a, b) : undefined;
    }
    case 'Identifier': {
      const n = e.name as string;
      if (seen.has(n)) return undefined;
      const vs = constantValues(n, co).filter((v) => v !== undefined);
      return vs.length === 1 ? vs[0] : undefined;
    }
    default:
      return undefined;
  }
}

// ---- the tests ----------------------------------------------------------------------------------

const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { exports: object };
const co = checkout(checkoutFiles(), Object.keys(pkg.exports));
const text = prose(readFileSync(path.join(ROOT, DOC), 'utf8'));

describe('the recogniser', () => {
  const sample = [
    '### 3. Parsing — `src/a/b.ts`, `Parser.load`',
    "Here `f` in `b.ts` and `g` (`src/a/b.ts`: …), then (`h`, `a/b.ts`) and `a/b.ts`'s `k`;",
    'then `a/b.ts` (`m`, `n`/`o`, the `p`), `x` in `docs/x.md` and `NAME.stub.mjs`.',
    '```',
    '`inside` in `fence.ts`',
    '```',
  ].join('\n');
  const found = claims(prose(sample)).map((c) => `${c.name}@${c.file}:${c.form}`);

  it('finds each form of claim, and none in a fenced block', () => {
    expect(found.sort()).toEqual(
      [
        'Parser.load@src/a/b.ts:heading',
        'f@b.ts:N in F',
        'g@src/a/b.ts:N (F',
        'h@a/b.ts:(N, F)',
        "k@a/b.ts:F's N",
        'm@a/b.ts:F (N',
        'n@a/b.ts:F (N',
        'o@a/b.ts:F (N',
        'x@docs/x.md:N in F',
      ].sort(),
    );
  });

  it('tells a measured figure from other numbers', () => {
    const found = (t: string) => [...t.matchAll(FIGURE)].map((m) => m[0]);
    expect(found('3.73× in instructions, 8 s, 60–80 ms, 3 GB, 16 MiB')).toEqual([
      '3.73×',
      '8 s',
      '60–80 ms',
      '3 GB',
      '16 MiB',
    ]);
    expect(found('Fig. 6, exit 2, 128-bit lanes, int32, SHA-256s, 0.x, §3.4, 2 changes')).toEqual([]);
  });

  it('tells paths from other code', () => {
    for (const p of ['src/stager/emit.ts', 'common/optional', 'core.ts', 'scf/runtime', './C.json?scf'])
      expect(isPath(p), p).toBe(true);
    for (const s of ['.d.mts', 'a | b', "x.f === 's'", 'children', 'map_find', '1 / x'])
      expect(isPath(s), s).toBe(false);
  });

  it('resolves paths as the document writes them, and refuses what names nothing', () => {
    expect(resolvePath('stager/emit.ts', co)).toEqual(['src/stager/emit.ts']);
    expect(resolvePath('common/optional', co)).toEqual(['src/common/optional.ts']);
    expect(resolvePath('src/kernel', co)).toEqual(['src/kernel']);
    expect(resolvePath('src/kernel/no-such-file.ts', co)).toEqual([]);
    expect(resolvePath('src/optimizers/*.ts', co)).toContain('src/optimizers/dae.ts');
    expect(resolvePath('src/optimizers/*.tsx', co)).toEqual([]);
    expect(unresolved('src/kernel/no-such-file.ts', co)).toBeUndefined();
    expect(unresolved('scf/no-such-entry', co)).toBeUndefined();
    expect(unresolved('dist/no/such.js', co)).toBeUndefined();
    expect(unresolved('dist/cli/bin.js', co)).toBe('the build');
    expect(unresolved('NAME.stub.mjs', co)).toBe('placeholder');
  });

  it('reads the values the document states and the constants of src/', () => {
    const text = 'caps (`CAP` = 2000, `BB = 5·10⁷`, `CC` (50,000), `DD` = 2^22; not `e` = 3)';
    expect(valueClaims(text).map((c) => [c.name, c.value])).toEqual([
      ['CAP', 2000],
      ['DD', 4194304],
      ['BB', 5e7],
      ['CC', 50000],
    ]);
    expect(constantValues('MAX_SOURCE_BYTES', co)).toEqual([16 * 1024 * 1024]);
    expect(constantValues('NO_SUCH_CONSTANT', co)).toEqual([]);
  });

  it('reads what a file defines: declarations, exports, class and interface members', () => {
    const d = defines('src/stager/index.ts');
    expect(d.top.has('stage')).toBe(true);
    expect(d.top.has('stagedRuntime')).toBe(true);
    const s = defines('src/scf-lang/interp.ts');
    expect(s.top.has('Interpreter')).toBe(true);
    expect(s.members.has('run')).toBe(true);
  });
});

describe(DOC, () => {
  const paths = spans(text).filter((s) => isPath(s.text));
  const found = claims(text);

  it('finds the paths and claims it checks', () => {
    // a recogniser that lost them would pass vacuously
    expect(paths.length).toBeGreaterThan(300);
    expect(found.length).toBeGreaterThan(40);
  });

  it('names only files and folders of the checkout (or the allowed forms of the header)', () => {
    const missing = paths
      .filter((s) => resolvePath(s.text, co).length === 0 && unresolved(s.text, co) === undefined)
      .map((s) => `line ${s.line}: \`${s.text}\``);
    expect(missing).toEqual([]);
  });

  it('states the values its constants have', () => {
    const values = valueClaims(text);
    expect(values.length).toBeGreaterThan(5);
    const wrong = values
      .map((c) => ({ c, found: constantValues(c.name, co) }))
      .filter(({ c, found }) => !found.includes(c.value))
      .map(
        ({ c, found }) =>
          `line ${c.line}: ${c.text}: ${found.length === 0 ? 'no such constant in src/' : `src/ has ${found.join(', ')}`}`,
      );
    expect(wrong).toEqual([]);
  });

  it('states no measured figure (docs/benchmarks.md holds them)', () => {
    const figures = text
      .split('\n')
      .flatMap((l, i) =>
        [...l.replace(/`[^`]*`/g, '').matchAll(FIGURE)].map((m) => `line ${i + 1}: ${m[0]}`),
      );
    expect(figures).toEqual([]);
  });

  it('claims only names its files define', () => {
    const wrong = found
      .filter((c) => resolvePath(c.file, co).length > 0 && holds(c, co) === false)
      .map((c) => `line ${c.line}: \`${c.name}\` is not defined in \`${c.file}\` (${c.form})`);
    expect(wrong).toEqual([]);
  });
});
