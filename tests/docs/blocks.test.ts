/**
 * Docs that run: every fenced block of README.md and docs/*.md is executed, in order, as a user
 * following that document would, so a renamed file, export or formal fails here before it fails
 * a reader.
 *
 * Where the blocks run. README.md starts in a fresh copy of the repository (`scf/`: its tracked
 * and untracked, not ignored, files — what a clone holds — with no node_modules and no dist/),
 * where its own commands install, build and pack it, and continues in an app beside it (`app/`)
 * where it installs that tarball. Every docs/*.md runs in an app of its own with that tarball
 * installed (plus the files `FIXTURES` gives it, which the document names as the reader's own).
 *
 * The convention, for whoever writes a block:
 * - ```sh / ```bash / ```shell: each line is a command (`#` comments allowed), run by bash in
 *   the block's folder; a block stops at its first failing command. ```console: the lines after
 *   a `$ ` prompt are the commands, the other lines their output (not checked).
 * - ```ts: type-checked with tsc (strict, nodenext) against the installed package, checked by
 *   `scf check` when it imports `scf/prelude` or `scf/kernel` and nothing else but relative
 *   modules (an SCF-lang optimizer), then run under node. ```js (```mjs): run under node.
 * - Any other language (```json, ```c) is a file: it needs a `file:` marker (below).
 * - ```text, or a fence without a language: output, diagrams, synopses — never run. Such a block
 *   may not hold a line that reads as a command or code (`$ `, `npx `, `npm `, `import `, …).
 * - Markers: HTML comments on the lines right above a fence, `key: value` pairs split by `;`:
 *   `<!-- not run: REASON -->` never runs the block; `<!-- file: PATH -->` writes the block to PATH
 *   (relative to its folder) before it runs (ts and js blocks without one are written to a
 *   module of their own), and with `not run` only writes it (a module a later block bundles); `<!-- in: app -->` or `<!-- in: scf -->` names the block's folder
 *   (README.md: `scf` unless said; docs/*.md: `app`).
 *
 * Commands too long for a test are narrowed: `npm test` runs one test file there (CI runs the
 * suite as a step of its own). README's Commands table is checked too: `npx scf --help` answers
 * in the fresh copy and lists every command of the table, and each `npm run` script it names
 * exists. npm installs prefer its cache (`prefer-offline`), so a warm cache needs no network.
 */
import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import { transformSync } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const W = mkdtempSync(path.join(tmpdir(), 'scf-docs-'));
/** The fresh copy of the repository README.md's commands install, build and pack. */
const CLONE = path.join(W, 'scf');
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const TSC = path.join(ROOT, 'node_modules/typescript/bin/tsc');
const BLOCK_TIMEOUT = 300_000;

const DOCS = [
  'README.md',
  ...readdirSync(path.join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`),
];

// ---- the blocks of a document ------------------------------------------------------------------

interface Block {
  readonly doc: string;
  /** Line of the opening fence, from 1. */
  readonly line: number;
  readonly lang: string;
  readonly text: string;
  readonly notRun?: string;
  readonly file?: string;
  readonly in?: 'app' | 'scf';
}

const SHELL = new Set(['sh', 'bash', 'shell', 'console']);
const TS = new Set(['ts', 'typescript']);
const JS = new Set(['js', 'mjs', 'javascript']);
const NOT_CODE = new Set(['', 'text']);
/** A line of a block without a language that reads as a command or code. */
const LOOKS_RUNNABLE = /^\s*(\$ |npx |npm |node |import |export |const |let |function )/;

/** The fenced blocks of `doc` with their markers; a malformed marker throws. */
function blocksOf(doc: string): Block[] {
  const lines = readFileSync(path.join(ROOT, doc), 'utf8').split('\n');
  const out: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(`{3,}|~{3,})\s*(\S*)/.exec(lines[i] as string);
    if (!open) continue;
    const fence = open[1] as string;
    const body: string[] = [];
    let j = i + 1;
    while (j < lines.length && !(lines[j] as string).startsWith(fence)) body.push(lines[j++] as string);
    const markers: Record<string, string> = {};
    for (let k = i - 1; k >= 0; k--) {
      const m = /^<!--(.*)-->\s*$/.exec(lines[k] as string);
      if (!m) break;
      for (const pair of (m[1] as string).split(';')) {
        const kv = /^\s*(not run|file|in):\s*(.*?)\s*$/.exec(pair);
        if (!kv) throw new Error(`${doc}:${k + 1}: not a marker: '${pair.trim()}'`);
        markers[kv[1] as string] = kv[2] as string;
      }
    }
    const where = markers.in;
    if (where !== undefined && where !== 'app' && where !== 'scf')
      throw new Error(`${doc}:${i + 1}: 'in:' is app or scf, not '${where}'`);
    out.push({
      doc,
      line: i + 1,
      lang: (open[2] as string).toLowerCase(),
      text: `${body.join('\n')}\n`,
      ...(markers['not run'] !== undefined ? { notRun: markers['not run'] } : {}),
      ...(markers.file !== undefined ? { file: markers.file } : {}),
      ...(where !== undefined ? { in: where } : {}),
    });
    i = j;
  }
  return out;
}

const runnable = (b: Block) => b.notRun === undefined && !NOT_CODE.has(b.lang);

// ---- where blocks run --------------------------------------------------------------------------

/** The environment of a user's shell: none of the test runner's loaders; npm from its cache first. */
function userEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    npm_config_prefer_offline: 'true',
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
  };
  for (const k of Object.keys(env)) if (k.startsWith('VITEST') || k === 'NODE_OPTIONS') delete env[k];
  return env;
}

function run(cmd: string, args: readonly string[], cwd: string): { code: number; out: string } {
  const r = spawnSync(cmd, args, { cwd, env: userEnv(), encoding: 'utf8', timeout: BLOCK_TIMEOUT });
  return { code: r.status ?? -1, out: `${r.stdout ?? ''}${r.stderr ?? ''}${r.error ? String(r.error) : ''}` };
}

/** The app folder of `doc`. */
const appOf = (doc: string) => path.join(W, doc === 'README.md' ? 'app' : path.basename(doc, '.md'));

/** The tarball README.md's commands packed into its app. */
function tarball(): string {
  const app = appOf('README.md');
  const tgz = existsSync(app) ? readdirSync(app).find((f) => /^scf-.*\.tgz$/.test(f)) : undefined;
  if (tgz === undefined) throw new Error("no tarball: README.md's blocks did not pack scf into app/");
  return path.join(app, tgz);
}

/** The blocks of docs/writing-an-optimizer.md written to a file, by path. */
function guideFiles(): Map<string, string> {
  const files = blocksOf('docs/writing-an-optimizer.md').filter((b) => b.file !== undefined);
  return new Map(files.map((b) => [b.file as string, b.text]));
}

/** Files a document takes as the reader's own, written into its app before its blocks run. */
const FIXTURES: Readonly<Record<string, (app: string) => void>> = {
  // "interp.ts from examples/own-ir in your folder"
  'docs/own-ir.md': (app) => {
    copyFileSync(path.join(ROOT, 'examples/own-ir/interp.ts'), path.join(app, 'interp.ts'));
  },
  // "your config": the demo's, beside its kernel; kernel.c and the pass of the optimizer guide
  'docs/api.md': (app) => {
    mkdirSync(path.join(app, 'optimizer'), { recursive: true });
    copyFileSync(path.join(ROOT, 'benchmarks/inputs/kernel/conv.c'), path.join(app, 'optimizer/conv.c'));
    const config = JSON.parse(readFileSync(path.join(ROOT, 'configs/kernel/01-conv.json'), 'utf8'));
    writeFileSync(path.join(app, 'optimizer/conv.json'), JSON.stringify({ ...config, input: './conv.c' }));
    const guide = guideFiles();
    for (const f of ['kernel.c', 'passes/add-zero.ts']) {
      const text = guide.get(f);
      if (text === undefined) throw new Error(`docs/writing-an-optimizer.md has no block for ${f}`);
      write(app, f, text);
    }
  },
};

function write(folder: string, file: string, text: string): string {
  const to = path.join(folder, file);
  mkdirSync(path.dirname(to), { recursive: true });
  writeFileSync(to, text);
  return to;
}

/** A new app: a package.json, then (docs/*.md) the packed scf installed and the fixtures. */
function makeApp(doc: string): string {
  const app = appOf(doc);
  if (existsSync(app)) return app;
  mkdirSync(app, { recursive: true });
  writeFileSync(
    path.join(app, 'package.json'),
    JSON.stringify({ name: 'app', private: true, type: 'module' }),
  );
  if (doc !== 'README.md') {
    try {
      const r = run(NPM, ['install', tarball()], app);
      if (r.code !== 0) throw new Error(`npm install of the tarball failed in ${app}:\n${r.out}`);
      FIXTURES[doc]?.(app);
    } catch (e) {
      rmSync(app, { recursive: true, force: true }); // the next block tries again
      throw e;
    }
  }
  return app;
}

/** A copy of the repository's files as a clone has them. */
function makeClone(): void {
  const r = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`git ls-files: ${r.stderr}`);
  for (const f of new Set(r.stdout.split('\0').filter((f) => f !== ''))) {
    const from = path.join(ROOT, f);
    if (!existsSync(from)) continue; // deleted in the working tree
    mkdirSync(path.dirname(path.join(CLONE, f)), { recursive: true });
    copyFileSync(from, path.join(CLONE, f));
  }
}

// ---- running one block -------------------------------------------------------------------------

/** The block's commands as one bash script that stops at the first failing one. */
function shellScript(b: Block): string {
  const raw =
    b.lang === 'console' ? b.text.split('\n').filter((l) => l.startsWith('$ ')) : b.text.split('\n');
  const lines: string[] = [];
  for (const l of raw.map((l) => l.replace(/^\$ /, ''))) {
    const prev = lines.at(-1);
    if (prev?.endsWith('\\')) lines[lines.length - 1] = `${prev}\n${l}`;
    else if (l.trim() !== '' && !l.trim().startsWith('#')) lines.push(l);
  }
  // `a && b` does not stop `bash -e` when `a` fails: each line stops the script itself
  return lines
    .map((l) => l.replace(/\bnpm test\b(?![ \t]+--)/g, 'npm test -- tests/fc-seed.test.ts'))
    .map((l) => `{ ${l}\n} || exit $?`)
    .join('\n');
}

/** Imports of a module's text. */
const importsOf = (text: string) =>
  [...text.matchAll(/^\s*import\b[^'"]*['"]([^'"]+)['"]/gm)].map((m) => m[1]);

/** `scf` in a folder: the app's installed one, or the fresh copy's build. */
function scfIn(folder: string, args: readonly string[]) {
  const bin = path.join(folder, 'node_modules/.bin/scf');
  return existsSync(bin)
    ? run(bin, args, folder)
    : run(process.execPath, [path.join(CLONE, 'dist/cli/bin.js'), ...args], folder);
}

function runTs(b: Block, folder: string, file: string): void {
  const tsconfig = write(
    folder,
    `tsconfig.docs-${b.line}.json`,
    JSON.stringify({
      compilerOptions: {
        strict: true,
        module: 'nodenext',
        target: 'es2022',
        noEmit: true,
        skipLibCheck: true,
        types: ['node'],
        typeRoots: [path.join(ROOT, 'node_modules/@types')],
      },
      files: [file],
    }),
  );
  const tsc = run(process.execPath, [TSC, '-p', tsconfig], folder);
  expect(tsc.code, `tsc on ${b.doc}:${b.line}:\n${tsc.out}`).toBe(0);
  const imports = importsOf(b.text);
  const scfLang = (m: string | undefined) => m === 'scf/prelude' || m === 'scf/kernel';
  if (imports.some(scfLang) && imports.every((m) => scfLang(m) || m?.startsWith('.'))) {
    const check = scfIn(folder, ['check', file]);
    expect(check.code, `scf check on ${b.doc}:${b.line}:\n${check.out}`).toBe(0);
  }
  const js = transformSync(b.text, { loader: 'ts', format: 'esm' }).code;
  const mjs = write(folder, `${file.replace(/\.ts$/, '')}.docs-run.mjs`, js);
  try {
    const r = run(process.execPath, [mjs], folder);
    expect(r.code, `${b.doc}:${b.line} under node:\n${r.out}`).toBe(0);
  } finally {
    rmSync(mjs, { force: true });
  }
}

/** A block marked `file` and `not run`: written into its folder, not run. */
function writeBlock(b: Block): void {
  const where = b.in ?? (b.doc === 'README.md' ? 'scf' : 'app');
  write(where === 'scf' ? CLONE : makeApp(b.doc), b.file as string, b.text);
}

function runBlock(b: Block): void {
  const where = b.in ?? (b.doc === 'README.md' ? 'scf' : 'app');
  const folder = where === 'scf' ? CLONE : makeApp(b.doc);
  const stem = `docs-block-${path.basename(b.doc, '.md')}-${b.line}`;
  if (SHELL.has(b.lang)) {
    const r = run('bash', ['-c', shellScript(b)], folder);
    expect(r.code, `${b.doc}:${b.line} in ${folder}:\n${r.out.slice(-6000)}`).toBe(0);
  } else if (TS.has(b.lang)) {
    const file = b.file ?? `${stem}.ts`;
    write(folder, file, b.text);
    runTs(b, folder, file);
  } else if (JS.has(b.lang)) {
    const file = write(folder, b.file ?? `${stem}.mjs`, b.text);
    const r = run(process.execPath, [file], folder);
    expect(r.code, `${b.doc}:${b.line} under node:\n${r.out}`).toBe(0);
  } else {
    expect(
      b.file,
      `${b.doc}:${b.line}: a \`${b.lang}\` block needs <!-- file: PATH --> or <!-- not run: … -->`,
    ).toBeDefined();
    write(folder, b.file as string, b.text);
  }
}

// ---- the tests ---------------------------------------------------------------------------------

beforeAll(() => {
  makeClone();
  makeApp('README.md');
}, 120_000);

afterAll(() => {
  rmSync(W, { recursive: true, force: true });
  // `npx scf` in the fresh copy installed it into npx's cache, under a folder of its own
  const npx = path.join(process.env.npm_config_cache ?? path.join(homedir(), '.npm'), '_npx');
  for (const d of existsSync(npx) ? readdirSync(npx) : []) {
    const manifest = path.join(npx, d, 'package.json');
    if (existsSync(manifest) && readFileSync(manifest, 'utf8').includes(W))
      rmSync(path.join(npx, d), { recursive: true, force: true });
  }
}, 120_000);

for (const doc of DOCS) {
  const blocks = blocksOf(doc);
  describe(doc, () => {
    it('blocks that do not run are output, not commands', () => {
      for (const b of blocks.filter((b) => NOT_CODE.has(b.lang) && b.notRun === undefined)) {
        const bad = b.text.split('\n').find((l) => LOOKS_RUNNABLE.test(l));
        expect(bad, `${doc}:${b.line}: give it a language, or mark it <!-- not run: … -->`).toBeUndefined();
      }
    });
    for (const b of blocks.filter((b) => runnable(b) || (b.notRun !== undefined && b.file !== undefined)))
      it(
        `${doc}:${b.line} (${b.lang}${b.file ? ` ${b.file}` : ''})`,
        () => (runnable(b) ? runBlock(b) : writeBlock(b)),
        BLOCK_TIMEOUT,
      );
    for (const b of blocks.filter((b) => b.notRun !== undefined))
      it(`${doc}:${b.line} is not run, and says why`, () => expect(b.notRun?.trim()).not.toBe(''));
    if (doc === 'README.md')
      it(
        'the Commands table: npx scf answers in the fresh copy, and every npm run script exists',
        () => {
          const readme = readFileSync(path.join(ROOT, doc), 'utf8');
          const commands = [...new Set([...readme.matchAll(/^\| `npx scf ([a-z]+) /gm)].map((m) => m[1]))];
          expect(commands.length).toBeGreaterThan(0);
          const help = run('npx', ['scf', '--help'], CLONE);
          expect(help.code, help.out).toBe(0);
          for (const c of commands) expect(help.out, c).toMatch(new RegExp(`^ {2}${c} `, 'm'));
          const scripts = JSON.parse(readFileSync(path.join(CLONE, 'package.json'), 'utf8')).scripts;
          for (const [, name] of readme.matchAll(/^\| `npm run ([a-z:]+)`/gm))
            expect(Object.keys(scripts), name).toContain(name);
        },
        BLOCK_TIMEOUT,
      );
  });
}
