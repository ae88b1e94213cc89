/**
 * The bundler plugins as a user gets them: scf packed and installed in an app outside the
 * repository (pack-copy.ts), with the repository's esbuild, Vite and Rolldown linked into the app's
 * node_modules as its own devDependencies would be, and real builds run there in child processes,
 * as `node build.mjs` in the app:
 * - `import { specialize } from './conv.json?scf'` (a Table 2 kernel config and its kernel, copied
 *   into the app) bundles with `scf/esbuild` for node and for the browser, and with `scf/vite` for
 *   the browser and as an SSR build for node, and with `scf/vite` under Rolldown alone (the
 *   Rollup plugin API) for node; each bundle runs staged (`staged: true`: the stub's
 *   check of every staged module's hash passed in the bundle), under node equal to the unstaged
 *   pipeline and in headless Chromium equal to node's result; a second build reuses the cache;
 *   an entry config (examples/own-ir's interpreter) bundles too, its function running staged;
 *   esbuild's watch mode rebuilds, staging again, when the kernel changes;
 * - Vite's dev server stages again when the kernel or the config is edited and reloads the page,
 *   which then runs the new stage; a config error shows in the page's error overlay;
 * - a `?scf` import of JSON that is no config, and a config with an error, fail the build, the
 *   latter at the config's line and column (esbuild's `location`, Vite's `loc`);
 * - a cache entry whose files were edited or truncated, or staged by another version or build of
 *   scf, is staged again; two builds staging one config wait for one lock, and it stages once;
 * - `scf/client` types the import for TypeScript.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import puppeteer, { type Browser } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installPacked, userEnv } from './pack-copy.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const APP = mkdtempSync(path.join(tmpdir(), 'scf-bundlers-'));
const CHROMIUM = '/usr/bin/chromium';
const KERNEL = path.join(ROOT, 'benchmarks/inputs/mul_add.c');

/** A Table 2 config (configs/table2/01-mul_add.json) with its kernel beside it. */
const CONFIG = {
  input: './mul_add.c',
  function: 'mul_add',
  pipeline: ['const-prop', 'copy-prop', 'dae'],
  bind: { a: "'Int" },
};

/** The app's build script: `node build.mjs esbuild|vite|rolldown ENTRY OUT node|browser`, a JSON line out. */
const BUILD = `
const [tool, entry, out, platform] = process.argv.slice(2);
const events = [];
const onStage = (config, s) => events.push({ config, staged: s.staged ?? null });
try {
  if (tool === 'esbuild') {
    const { build } = await import('esbuild');
    const { scf } = await import('scf/esbuild');
    await build({ entryPoints: [entry], bundle: true, platform, format: 'esm', outfile: out,
      plugins: [scf({ onStage })], logLevel: 'silent' });
  } else if (tool === 'rolldown') {
    const { build } = await import('rolldown');
    const { default: scf } = await import('scf/vite');
    await build({ input: entry, platform, plugins: [scf({ onStage })], logLevel: 'silent',
      output: { dir: out, entryFileNames: '[name].mjs', format: 'esm' } });
  } else {
    const { build } = await import('vite');
    const { default: scf } = await import('scf/vite');
    await build({ root: process.cwd(), configFile: false, logLevel: 'silent', plugins: [scf({ onStage })],
      build: platform === 'node' ? { ssr: entry, outDir: out } : { outDir: out, rollupOptions: { input: entry } } });
  }
  console.log(JSON.stringify({ ok: true, events }));
} catch (e) {
  // esbuild's messages; Rollup's error, or Rolldown's with the plugins' errors in it
  const errors = (e.errors ?? [e]).map((x) =>
    x.location !== undefined ? x : { text: x.text ?? x.message, id: x.id, loc: x.loc, plugin: x.plugin });
  console.log(JSON.stringify({ ok: false, events, errors }));
}
`;

/** A module importing a config's stub: `specialize({ a: 1 })`, staged or not, and the unstaged pipeline's result. */
function appModule(config: string): string {
  return `import { specialize, formalsOf, unstagedPipeline, loadFallback } from './${config}?scf';
const warnings = [];
const r = specialize({ a: 1 }, (m) => warnings.push(m));
await loadFallback();
const unstaged = JSON.stringify(unstagedPipeline(formalsOf({ a: 1 })));
globalThis.__scf = { staged: r.staged, fun: JSON.stringify(r.fun), unstaged, warnings };
if (typeof process !== 'undefined') console.log(JSON.stringify(globalThis.__scf));
`;
}

interface BuildResult {
  readonly ok: boolean;
  readonly events: { config: string; staged: string | null }[];
  readonly errors?: {
    text: string;
    id?: string;
    loc?: { line: number; column: number };
    location?: { file: string; line: number; column: number; lineText: string };
  }[];
}

function build(
  tool: 'esbuild' | 'vite' | 'rolldown',
  entry: string,
  out: string,
  platform: 'node' | 'browser',
): BuildResult {
  const r = spawnSync(process.execPath, ['build.mjs', tool, entry, out, platform], {
    cwd: APP,
    env: userEnv(),
    encoding: 'utf8',
    timeout: 120_000,
  });
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout.trim().split('\n').pop() as string) as BuildResult;
}

/** Runs a module of the app under node; what it printed, as JSON. */
function runNode(file: string): { staged: boolean; fun: string; unstaged: string; warnings: string[] } {
  const r = spawnSync(process.execPath, [file], {
    cwd: APP,
    env: userEnv(),
    encoding: 'utf8',
    timeout: 60_000,
  });
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout.trim().split('\n').pop() as string);
}

/** The cache entry of a config of the app (bundler/cache.ts's naming). */
function entryDir(config: string): string {
  const real = realpathSync(path.join(APP, config));
  const hash = createHash('sha256').update(real).digest('hex').slice(0, 16);
  return path.join(APP, 'node_modules/.cache/scf', `${path.basename(config, '.json')}-${hash}`);
}

let browser: Browser | undefined;
let server: Server | undefined;
/** An element of a page, as far as the tests read it (no DOM types in the repository's tsconfig). */
interface Element {
  readonly shadowRoot: { readonly textContent: string | null } | null;
}

/** The folder the static server serves. */
let served = APP;

async function origin(): Promise<string> {
  if (!server) {
    const s = createServer((req, res) => {
      const file = path.join(served, decodeURIComponent((req.url ?? '/').split('?')[0] as string));
      if (!existsSync(file) || !statSync(file).isFile()) {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, {
        'content-type': /\.m?js$/.test(file) ? 'text/javascript' : 'text/html',
      });
      res.end(readFileSync(file));
    });
    server = s;
    await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  }
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function launch(): Promise<Browser> {
  browser ??= await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-dev-shm-usage'],
  });
  return browser;
}

/** Opens `url` in headless Chromium and returns what the page left in `globalThis.__scf`. */
async function inPage(url: string): Promise<{ staged: boolean; fun: string; warnings: string[] }> {
  const page = await (await launch()).newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  try {
    await page.goto(url);
    await page
      .waitForFunction(() => '__scf' in globalThis, { timeout: 60_000 })
      .catch(() => {
        throw new Error(`the page did not finish: ${errors.join('; ') || 'no error reported'}`);
      });
    return await page.evaluate(() => (globalThis as unknown as { __scf: never }).__scf);
  } finally {
    await page.close();
  }
}

beforeAll(() => {
  installPacked(APP);
  // the bundlers, and oxc-parser: the optional peer an entry config's staging needs (docs/own-ir.md)
  for (const tool of ['esbuild', 'vite', 'rolldown', 'oxc-parser'])
    symlinkSync(path.join(ROOT, 'node_modules', tool), path.join(APP, 'node_modules', tool), 'dir');
  copyFileSync(KERNEL, path.join(APP, 'mul_add.c'));
  for (const name of ['conv', 'conc', 'dev'])
    writeFileSync(path.join(APP, `${name}.json`), `${JSON.stringify(CONFIG, null, 2)}\n`);
  writeFileSync(path.join(APP, 'build.mjs'), BUILD);
  for (const name of ['conv', 'conc', 'dev'])
    writeFileSync(path.join(APP, `${name}.mjs`), appModule(`${name}.json`));
  writeFileSync(
    path.join(APP, 'index.html'),
    '<!doctype html><script type="module" src="/conv.mjs"></script>\n',
  );
  writeFileSync(
    path.join(APP, 'dev.html'),
    '<!doctype html><script type="module" src="/dev.mjs"></script>\n',
  );
}, 300_000);

afterAll(async () => {
  await browser?.close();
  server?.close();
  rmSync(APP, { recursive: true, force: true });
});

describe('scf/esbuild and scf/vite in an app', () => {
  let nodeFun = '';

  it('esbuild: the bundle runs staged under node, equal to the unstaged pipeline; a second build reuses the cache', () => {
    const first = build('esbuild', 'conv.mjs', 'out/esbuild-node.mjs', 'node');
    expect(first).toMatchObject({ ok: true, events: [{ staged: 'not staged yet' }] });
    const record = path.join(entryDir('conv.json'), 'mul_add.build.json');
    const mtime = statSync(record).mtimeMs;
    const r = runNode('out/esbuild-node.mjs');
    expect(r.warnings).toEqual([]);
    expect(r.staged).toBe(true);
    expect(r.fun).toBe(r.unstaged);
    nodeFun = r.fun;
    const again = build('esbuild', 'conv.mjs', 'out/esbuild-node.mjs', 'node');
    expect(again).toMatchObject({ ok: true, events: [{ staged: null }] });
    expect(statSync(record).mtimeMs).toBe(mtime);
  });

  it("esbuild's watch mode rebuilds when the kernel changes, and the rebuild stages again", () => {
    const script = `import { context } from 'esbuild';
import { readFileSync, writeFileSync } from 'node:fs';
import scf from 'scf/esbuild';
const events = [];
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const ctx = await context({ entryPoints: ['conv.mjs'], bundle: true, platform: 'node', format: 'esm',
  outfile: 'out/watch.mjs', logLevel: 'silent', plugins: [scf({ onStage: (c, s) => events.push(s.staged ?? null) }),
  { name: 'end', setup: (b) => b.onEnd(() => events.push('built')) }] });
await ctx.watch();
while (!events.includes('built')) await sleep(50);
const kernel = readFileSync('mul_add.c', 'utf8');
writeFileSync('mul_add.c', kernel.replace('return w;', 'return w + 1;'));
while (events.filter((e) => e === 'built').length < 2) await sleep(50);
writeFileSync('mul_add.c', kernel);
while (events.filter((e) => e === 'built').length < 3) await sleep(50);
await ctx.dispose();
console.log(JSON.stringify(events));
`;
    writeFileSync(path.join(APP, 'watch.mjs'), script);
    const r = spawnSync(process.execPath, ['watch.mjs'], {
      cwd: APP,
      env: userEnv(),
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([
      null,
      'built',
      '../../../../mul_add.c changed',
      'built',
      '../../../../mul_add.c changed',
      'built',
    ]);
  });

  it.skipIf(!existsSync(CHROMIUM))(
    "esbuild for the browser: staged in Chromium, node's function",
    async () => {
      expect(build('esbuild', 'conv.mjs', 'out/esbuild-page.mjs', 'browser').ok).toBe(true);
      writeFileSync(
        path.join(APP, 'out/esbuild.html'),
        '<!doctype html><script type="module" src="/out/esbuild-page.mjs"></script>\n',
      );
      served = APP;
      const r = await inPage(`${await origin()}/out/esbuild.html`);
      expect(r).toMatchObject({ staged: true, warnings: [] });
      expect(r.fun).toBe(nodeFun);
    },
  );

  it.skipIf(!existsSync(CHROMIUM))(
    'Vite: vite build runs staged in Chromium; an SSR build runs staged under node',
    async () => {
      const page = build('vite', 'index.html', 'vite-out', 'browser');
      expect(page).toMatchObject({ ok: true, events: [{ staged: null }] });
      served = path.join(APP, 'vite-out');
      const r = await inPage(`${await origin()}/index.html`);
      expect(r).toMatchObject({ staged: true, warnings: [] });
      expect(r.fun).toBe(nodeFun);
      expect(build('vite', 'conv.mjs', 'vite-ssr', 'node').ok).toBe(true);
      const ssr = runNode('vite-ssr/conv.js');
      expect(ssr).toMatchObject({ staged: true, warnings: [] });
      expect(ssr.fun).toBe(nodeFun);
    },
  );

  it('the Vite plugin as a Rollup plugin, under Rolldown alone: the bundle runs staged under node', () => {
    expect(build('rolldown', 'conv.mjs', 'out/rolldown', 'node')).toMatchObject({
      ok: true,
      events: [{ staged: null }],
    });
    expect(runNode('out/rolldown/conv.mjs')).toMatchObject({ staged: true, warnings: [], fun: nodeFun });
  });

  it("an entry config: its stub's function runs the staged code in the bundle, with no fallback", () => {
    for (const f of ['interp.json', 'interp.ts'])
      copyFileSync(path.join(ROOT, 'examples/own-ir', f), path.join(APP, f));
    writeFileSync(
      path.join(APP, 'entry.mjs'),
      `import { run, SCF } from './interp.json?scf';
import config from './interp.json' with { type: 'json' };
const list = (xs) => xs.reduceRight((tail, head) => ({ kind: 'cons', head, tail }), { kind: 'nil' });
const program = list(config.bind.program);
const warnings = [];
SCF.onFallback((m) => warnings.push(m));
console.log(JSON.stringify({ out: run(program, 40), staged: SCF.staged(program, 40),
  unstaged: SCF.unstaged(program, 40), staleness: SCF.staleness() ?? null, warnings }));
`,
    );
    expect(build('esbuild', 'entry.mjs', 'out/entry.mjs', 'node')).toMatchObject({
      ok: true,
      events: [{ staged: 'not staged yet' }],
    });
    const r = runNode('out/entry.mjs') as unknown as Record<string, unknown>;
    expect(r).toEqual({
      out: r.unstaged,
      staged: r.unstaged,
      unstaged: 22880,
      staleness: null,
      warnings: [],
    });
  });

  it("an entry config's stub under node: its import reads no file; the first call reads and checks the staged module, which edited never runs", () => {
    for (const f of ['interp.json', 'interp.ts'])
      copyFileSync(path.join(ROOT, 'examples/own-ir', f), path.join(APP, f));
    const staged = spawnSync(
      path.join(APP, 'node_modules/.bin/scf'),
      ['stage', 'interp.json', '--out', 'staged-interp', '-q'],
      { cwd: APP, env: userEnv(), encoding: 'utf8', timeout: 120_000 },
    );
    expect(staged.status, staged.stderr).toBe(0);
    cpSync(path.join(APP, 'staged-interp'), path.join(APP, 'edited-interp'), { recursive: true });
    const module = readdirSync(path.join(APP, 'edited-interp')).find((f) => f.endsWith('.staged.mjs'));
    expect(module).toBeDefined();
    const file = path.join(APP, 'edited-interp', module as string);
    writeFileSync(file, `globalThis.EDITED = 1;\n${readFileSync(file, 'utf8')}`);
    writeFileSync(
      path.join(APP, 'entry-cold.mjs'),
      `import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import config from './interp.json' with { type: 'json' };
const reads = [];
for (const k of ['readFileSync', 'openSync', 'readFile', 'open']) {
  const f = fs[k];
  fs[k] = function (p, ...rest) { reads.push(String(p)); return f.call(this, p, ...rest); };
}
syncBuiltinESMExports();
const list = (xs) => xs.reduceRight((tail, head) => ({ kind: 'cons', head, tail }), { kind: 'nil' });
const out = {};
for (const dir of ['staged-interp', 'edited-interp']) {
  const before = reads.length;
  const stub = await import('./' + dir + '/run.stub.mjs');
  const atImport = reads.slice(before);
  const warnings = [];
  stub.SCF.onFallback((m) => warnings.push(m));
  const result = stub.run(list(config.bind.program), 40);
  out[dir] = { atImport, atCall: reads.slice(before + atImport.length), result, warnings, ran: globalThis.EDITED ?? 0 };
}
console.log(JSON.stringify(out));
`,
    );
    const r = spawnSync(process.execPath, ['entry-cold.mjs'], {
      cwd: APP,
      env: userEnv(),
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(r.status, r.stderr).toBe(0);
    type Run = { atImport: string[]; atCall: string[]; result: number; warnings: string[]; ran: number };
    const got = JSON.parse(r.stdout.trim().split('\n').pop() as string) as Record<string, Run>;
    const fresh = got['staged-interp'] as Run;
    const edited = got['edited-interp'] as Run;
    expect(fresh.atImport.filter((f) => f.includes('staged-interp'))).toEqual([]);
    expect(fresh.atCall.some((f) => f.endsWith('.staged.mjs'))).toBe(true);
    expect(fresh).toMatchObject({ result: 22880, warnings: [], ran: 0 });
    expect(edited.atImport.filter((f) => f.includes('edited-interp'))).toEqual([]);
    expect(edited.result).toBe(22880);
    expect(edited.ran).toBe(0);
    expect(edited.warnings.join('\n')).toMatch(/is not the one staged with this stub/);
  });

  it("a ?scf import of JSON that is no config, or of a config with an error, fails the build at the config's line and column", () => {
    writeFileSync(path.join(APP, 'other.json'), '{ "name": "not a config" }\n');
    writeFileSync(
      path.join(APP, 'bad.json'),
      '{\n  "input": "./mul_add.c",\n  "function": "mul_add",\n  "pipeline": ["const-prop"],\n  "bind": { "a": "Intt" }\n}\n',
    );
    writeFileSync(path.join(APP, 'other.mjs'), "export * from './other.json?scf';\n");
    writeFileSync(path.join(APP, 'bad.mjs'), "export * from './bad.json?scf';\n");
    for (const tool of ['esbuild', 'vite'] as const) {
      const other = build(tool, 'other.mjs', `out/${tool}-other.mjs`, 'node');
      expect(other.ok, tool).toBe(false);
      expect(other.errors?.[0]?.text, tool).toMatch(/other\.json: not an scf config/);
      const bad = build(tool, 'bad.mjs', `out/${tool}-bad.mjs`, 'node');
      expect(bad.ok, tool).toBe(false);
      expect(bad.errors?.[0]?.text, tool).toMatch(/D1001: bad description: unknown constructor 'Intt'/);
      if (tool === 'esbuild')
        expect(bad.errors?.[0]?.location).toEqual({
          file: 'bad.json',
          namespace: 'file',
          line: 5,
          column: 18,
          length: 0,
          lineText: '  "bind": { "a": "Intt" }',
          suggestion: '',
        });
      else {
        expect(bad.errors?.[0]?.id).toBe(realpathSync(path.join(APP, 'bad.json')));
        expect(bad.errors?.[0]?.loc).toMatchObject({ line: 5, column: 18 });
      }
    }
  });

  it('a cache entry edited, truncated, or staged by another scf is staged again', () => {
    const dir = entryDir('conv.json');
    const rebuild = (): BuildResult => build('esbuild', 'conv.mjs', 'out/esbuild-node.mjs', 'node');
    const module = path.join(dir, 'mul_add.whole.staged.mjs');
    const original = readFileSync(module, 'utf8');
    writeFileSync(module, `${original}// edited\n`);
    expect(rebuild().events[0]?.staged).toBe('mul_add.whole.staged.mjs was edited');
    expect(readFileSync(module, 'utf8')).toBe(original);
    writeFileSync(path.join(dir, 'mul_add.stub.mjs'), '');
    expect(rebuild().events[0]?.staged).toBe('mul_add.stub.mjs was edited');
    const record = path.join(dir, 'mul_add.build.json');
    const edit = (key: string, value: string): void =>
      writeFileSync(record, JSON.stringify({ ...JSON.parse(readFileSync(record, 'utf8')), [key]: value }));
    edit('scf', '0.0.1');
    expect(rebuild().events[0]?.staged).toMatch(/^staged by scf 0\.0\.1, this is \d+\.\d+\.\d+/);
    edit('engine', '0'.repeat(64));
    expect(rebuild().events[0]?.staged).toBe('staged by another build of scf');
    expect(rebuild().events[0]?.staged).toBeNull();
    expect(runNode('out/esbuild-node.mjs')).toMatchObject({ staged: true, fun: nodeFun });
  });

  it('two builds staging one config at once: each waits for the lock, and it stages once', async () => {
    const cache = path.join(APP, 'node_modules/.cache/scf');
    const lock = path.join(cache, `${path.basename(entryDir('conc.json'))}.lock`);
    writeFileSync(lock, String(process.pid)); // held by a live process: this one
    const start = (n: number): Promise<BuildResult> =>
      new Promise((resolve, reject) => {
        const p = spawn(process.execPath, ['build.mjs', 'esbuild', 'conc.mjs', `out/conc-${n}.mjs`, 'node'], {
          cwd: APP,
          env: userEnv(),
        });
        let out = '';
        p.stdout.on('data', (d) => {
          out += String(d);
        });
        p.on('error', reject);
        p.on('exit', () => resolve(JSON.parse(out.trim().split('\n').pop() as string) as BuildResult));
      });
    const builds = [start(1), start(2)];
    await new Promise((r) => setTimeout(r, 2000));
    expect(existsSync(path.join(APP, 'out/conc-1.mjs')) || existsSync(path.join(APP, 'out/conc-2.mjs'))).toBe(
      false,
    );
    rmSync(lock);
    const results = await Promise.all(builds);
    expect(results.every((r) => r.ok)).toBe(true);
    expect(results.map((r) => r.events[0]?.staged).sort()).toEqual(['not staged yet', null].sort());
    for (const n of [1, 2])
      expect(runNode(`out/conc-${n}.mjs`)).toMatchObject({ staged: true, fun: nodeFun });
  });

  it.skipIf(!existsSync(CHROMIUM))(
    "Vite's dev server stages again when the kernel or the config is edited and reloads the page; a config error shows in its overlay",
    async () => {
      const dev = spawn(
        process.execPath,
        [
          '--input-type=module',
          '-e',
          `import { createServer } from 'vite';
import scf from 'scf/vite';
const server = await createServer({ root: process.cwd(), configFile: false, logLevel: 'silent',
  plugins: [scf({ onStage: (c, s) => console.log(JSON.stringify({ staged: s.staged ?? null })) })],
  server: { port: 0, host: '127.0.0.1' } });
await server.listen();
console.log(JSON.stringify({ url: server.resolvedUrls.local[0] }));`,
        ],
        { cwd: APP, env: userEnv() },
      );
      const lines: Record<string, unknown>[] = [];
      let buffer = '';
      dev.stdout.on('data', (d) => {
        buffer += String(d);
        const parts = buffer.split('\n');
        buffer = parts.pop() as string;
        for (const l of parts) if (l.startsWith('{')) lines.push(JSON.parse(l));
      });
      const waitFor = async (test: () => boolean, what: string): Promise<void> => {
        const until = Date.now() + 60_000;
        while (!test()) {
          if (Date.now() > until || dev.exitCode !== null)
            throw new Error(`dev server: no ${what} in ${JSON.stringify(lines)}`);
          await new Promise((r) => setTimeout(r, 100));
        }
      };
      const page = await (await launch()).newPage();
      try {
        await waitFor(() => lines.some((l) => 'url' in l), 'url');
        const url = lines.find((l) => 'url' in l)?.url as string;
        await page.goto(`${url}dev.html`);
        const read = () => page.evaluate(() => (globalThis as unknown as { __scf?: { fun: string } }).__scf);
        await page.waitForFunction(() => '__scf' in globalThis, { timeout: 60_000 });
        const first = await read();
        expect(first).toMatchObject({ staged: true, warnings: [] });
        const staged = lines.filter((l) => 'staged' in l).length;
        writeFileSync(
          path.join(APP, 'mul_add.c'),
          readFileSync(KERNEL, 'utf8').replace('return w;', 'return w + 1;'),
        );
        await waitFor(
          () => lines.filter((l) => l.staged === '../../../../mul_add.c changed').length > 0,
          'stage',
        );
        await page.waitForFunction(
          (before) => {
            const now = (globalThis as unknown as { __scf?: { fun: string } }).__scf;
            return now !== undefined && now.fun !== before;
          },
          { timeout: 60_000 },
          first?.fun,
        );
        const second = await read();
        expect(second).toMatchObject({ staged: true, warnings: [] });
        expect(lines.filter((l) => 'staged' in l).length).toBeGreaterThan(staged);
        // a config error shows in the page's overlay; fixing the config stages and reloads
        const good = readFileSync(path.join(APP, 'dev.json'), 'utf8');
        writeFileSync(path.join(APP, 'dev.json'), good.replace("'Int", 'Intt'));
        await page.waitForFunction(
          () =>
            (globalThis as unknown as { document: { querySelector(s: string): Element | null } }).document
              .querySelector('vite-error-overlay')
              ?.shadowRoot?.textContent?.includes('Intt') === true,
          { timeout: 60_000 },
        );
        await page.evaluate(() => {
          (globalThis as unknown as { __before: boolean }).__before = true;
        });
        writeFileSync(path.join(APP, 'dev.json'), good.replace("'Int", '0|1'));
        await waitFor(() => lines.some((l) => l.staged === '../../../../dev.json changed'), 'stage');
        // a new page: the reload ran the new stage
        await page.waitForFunction(() => !('__before' in globalThis) && '__scf' in globalThis, {
          timeout: 60_000,
        });
        expect(await read()).toMatchObject({ staged: true, warnings: [] });
      } finally {
        await page.close();
        stop(dev);
        copyFileSync(KERNEL, path.join(APP, 'mul_add.c'));
      }
    },
    120_000,
  );

  it('scf/client types a ?scf import for TypeScript', () => {
    writeFileSync(
      path.join(APP, 'typed.ts'),
      [
        '/// <reference types="scf/client" />',
        "import { MANIFEST, specialize } from './conv.json?scf';",
        'const staged: boolean = specialize({ a: 1 }).staged;',
        'const name: string = MANIFEST.function;',
        '// @ts-expect-error the values are an object of the formals',
        'specialize(3);',
        'export const used = [staged, name];',
      ].join('\n'),
    );
    writeFileSync(
      path.join(APP, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          module: 'esnext',
          moduleResolution: 'bundler',
          target: 'es2022',
          noEmit: true,
          skipLibCheck: false,
          types: [],
        },
        files: ['typed.ts'],
      }),
    );
    const tsc = spawnSync(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', APP], {
      cwd: APP,
      encoding: 'utf8',
    });
    expect(tsc.stdout + tsc.stderr).toBe('');
    expect(tsc.status).toBe(0);
    expect(readdirSync(path.join(APP, 'node_modules/scf'))).toContain('client.d.ts');
  });
});

function stop(p: ChildProcess): void {
  if (p.exitCode === null) p.kill();
}
