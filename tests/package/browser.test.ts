/**
 * Staged output in a browser, as a user gets it: scf packed and installed in an app outside the
 * repository, a kernel config staged there under node, and its stub bundled by esbuild for
 * `platform: 'browser'`, splitting chunks (package.json's "browser" map swaps scf's node-only
 * modules for their `*.browser.js` twins, and puts the unstaged fallback's built-in passes behind
 * a dynamic import, a chunk of their own):
 * - the bundle resolves every import (no `node:` module, no native binding), and its size —
 *   minified and gzipped, each file as a page gets it — is reported: what a page loads up front
 *   (the stub with its staged modules and all of scf/runtime it reaches) held under
 *   UP_FRONT_BUDGET_GZIP, and with the fallback's chunk under BUNDLE_BUDGET_GZIP;
 * - in headless Chromium (Debian's /usr/bin/chromium, driven by puppeteer-core), `specialize` on
 *   the config's sample runs staged and returns node's function, byte for byte as JSON, and the
 *   page never requests the fallback's chunk;
 * - a stub whose manifest names a built-in source other than this package's (as after an upgrade)
 *   is stale there too, checked against the hashes recorded at build time with no file to read;
 *   and values outside the staged description are refused by the staged code: either way
 *   `specialize` throws `FallbackNotLoaded` (having warned nothing), and `specializeAsync` loads
 *   the fallback's chunk, warns, and returns node's unstaged result;
 * - `scf/gpu` in the page: `GpuRuntime.open()` finds `navigator.gpu`'s adapter (SwiftShader, with
 *   --enable-unsafe-webgpu) and the specialized kernel runs on it and on the JS back end with
 *   node's outputs (JS bit for bit, WebGPU within 4 ulps of the data's scale); a page with no
 *   adapter gets a `NoAdapter` saying why and runs the JS back end.
 */
import { spawnSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import puppeteer, { type Browser } from 'puppeteer-core';
import { installPacked, userEnv } from './pack-copy.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const APP = mkdtempSync(path.join(tmpdir(), 'scf-browser-app-'));
const CHROMIUM = '/usr/bin/chromium';

/**
 * The most a page loads up front for the curve config's stub (bytes, each file gzipped): the
 * stub, its staged modules and what its bundler keeps of scf/runtime, without the unstaged
 * fallback's chunk. Its staged copy-prop and DAE rewrite the clone of the curve function too,
 * whose shape depends on the late degree.
 */
const UP_FRONT_BUDGET_GZIP = 60 * 1024;
/** The most the whole bundle may weigh, the fallback's chunk included (bytes, each file gzipped). */
const BUNDLE_BUDGET_GZIP = 78 * 1024;

const CONFIG = JSON.parse(readFileSync(path.join(ROOT, 'configs/kernel/02-curve.json'), 'utf8')) as {
  sample: Record<string, unknown>;
};

/** The module a page runs: specialize on the sample, the result and the warnings on `window`. */
function pageEntry(stub: string): string {
  return `import { specialize } from ${JSON.stringify(stub)};
const warnings = [];
const r = specialize(${JSON.stringify(CONFIG.sample)}, (w) => warnings.push(w));
globalThis.__scf = { staged: r.staged, fun: JSON.stringify(r.fun), warnings };
`;
}

/** Late values outside the curve config's early description (`deg` is at most 7). */
const OUTSIDE = { ...CONFIG.sample, deg: 9 };

/**
 * The page module for values that need the unstaged pipeline: `specialize` first (which must
 * throw, the fallback not being loaded), then `specializeAsync`.
 */
function fallbackEntry(values: Record<string, unknown>): (stub: string) => string {
  return (stub) => `import { specialize, specializeAsync } from ${JSON.stringify(stub)};
const warnings = [];
let thrown;
try {
  specialize(${JSON.stringify(values)}, (w) => warnings.push(w));
} catch (e) {
  thrown = { name: e.name, message: e.message };
}
const warnedBefore = warnings.length;
const r = await specializeAsync(${JSON.stringify(values)}, (w) => warnings.push(w));
globalThis.__scf = { thrown, warnedBefore, staged: r.staged, fun: JSON.stringify(r.fun), warnings };
`;
}

/** The arguments the kernel runs on in the page and in node: 1,024 samples in [0, 1). */
const XS = Array.from({ length: 1024 }, (_, i) => ((i * 37) % 1024) / 1024);

/** A module that runs the specialized kernel on scf/gpu's back ends (node or page). */
function kernelEntry(stub: string): string {
  return `import { specialize } from ${JSON.stringify(stub)};
import { compileFor, emitKernelJs, GpuRuntime, programOf } from 'scf/gpu';
const values = ${JSON.stringify(CONFIG.sample)};
const args = { xs: ${JSON.stringify(XS)}, ...values };
const fun = specialize(values, () => {}).fun;
const out = { js: await (await compileFor(fun, 'js')).run(args) };
// the specialized curve is a straight-line map: the JS back end runs it in WebAssembly SIMD
out.simd = emitKernelJs(programOf(fun), fun.name).includes('$simd(') && typeof WebAssembly === 'object';
const rt = await GpuRuntime.open();
if (rt instanceof GpuRuntime) {
  out.adapter = rt.adapterName;
  out.webgpu = await (await compileFor(fun, rt)).run(args);
} else out.noAdapter = rt.reason;
globalThis.__scf = out;
`;
}

/** A page's bundle: its files by name, the entry's name, and the fallback's chunk. */
interface Bundle {
  readonly files: ReadonlyMap<string, string>;
  readonly entry: string;
  /** The chunk of the unstaged fallback's built-in passes, which the stub imports on demand. */
  readonly lazy: string | undefined;
  /** What a page loads before its code runs: the entry and every import, the fallback's chunk aside. */
  readonly upFront: readonly string[];
  readonly errors: number;
}

/** The page entry for `stub`, bundled for the browser in chunks. */
async function bundle(stub: string, make: (stub: string) => string = pageEntry): Promise<Bundle> {
  const name = `entry-${path.basename(stub, '.mjs')}-${make.name || 'fallback'}`;
  const entry = path.join(APP, `${name}.mjs`);
  writeFileSync(entry, make(stub));
  const outdir = path.join(APP, 'out', name);
  const r = await build({
    entryPoints: [entry],
    bundle: true,
    platform: 'browser',
    format: 'esm',
    splitting: true,
    minify: true,
    metafile: true,
    outdir,
    write: false,
    logLevel: 'silent',
    absWorkingDir: APP,
  });
  const files = new Map(r.outputFiles.map((f) => [path.relative(outdir, f.path), f.text]));
  const outputs = Object.entries(r.metafile?.outputs ?? {}).map(
    ([out, o]) => [path.relative(outdir, path.join(APP, out)), o] as const,
  );
  const lazy = outputs.find(([, o]) => o.entryPoint?.endsWith('optimizers/fallback-passes.js'))?.[0];
  // the staged modules are dynamic imports too, made before the stub's module finishes
  const upFront = new Set([`${name}.js`]);
  for (const file of upFront)
    for (const i of outputs.find(([f]) => f === file)?.[1].imports ?? []) {
      const to = path.relative(outdir, path.join(APP, i.path));
      if (to !== lazy) upFront.add(to);
    }
  return { files, entry: `${name}.js`, lazy, upFront: [...upFront], errors: r.errors.length };
}

/** The gzipped size of `names` among the bundle's files, each gzipped as a page gets it. */
function gzipped(b: Bundle, names: readonly string[]): number {
  return names.reduce((n, f) => n + gzipSync(b.files.get(f) ?? '', { level: 9 }).length, 0);
}

const browsers = new Map<boolean, Browser>();
/** The pages' modules by path, served from localhost (WebGPU needs a secure context). */
const served = new Map<string, string>();
let server: Server | undefined;

/** The server's origin, started on first use. */
async function origin(): Promise<string> {
  if (!server) {
    const s = createServer((req, res) => {
      const body = served.get(req.url ?? '');
      res.writeHead(body === undefined ? 404 : 200, {
        'content-type': req.url?.endsWith('.js') ? 'text/javascript' : 'text/html',
      });
      res.end(body ?? '');
    });
    server = s;
    await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  }
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/**
 * Runs a bundled module in a fresh page of headless Chromium (with WebGPU on SwiftShader when
 * `webgpu`) and returns what it left in `globalThis.__scf`.
 */
async function inPage<T = { staged: boolean; fun: string; warnings: string[] }>(
  b: Bundle,
  webgpu = false,
  requested: string[] = [],
): Promise<T> {
  let browser = browsers.get(webgpu);
  if (!browser) {
    browser = await puppeteer.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--no-sandbox', '--disable-dev-shm-usage', ...(webgpu ? ['--enable-unsafe-webgpu'] : [])],
    });
    browsers.set(webgpu, browser);
  }
  const n = served.size;
  for (const [f, text] of b.files) served.set(`/b${n}/${f}`, text);
  served.set(`/p${n}.html`, `<!doctype html><script type="module" src="/b${n}/${b.entry}"></script>`);
  const page = await browser.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('request', (r) => requested.push(new URL(r.url()).pathname.replace(`/b${n}/`, '')));
  try {
    await page.goto(`${await origin()}/p${n}.html`);
    await page
      .waitForFunction(() => '__scf' in globalThis, { timeout: 60_000 })
      .catch(() => {
        throw new Error(`the page did not finish: ${errors.join('; ') || 'no error reported'}`);
      });
    return (await page.evaluate(() => (globalThis as unknown as { __scf: unknown }).__scf)) as T;
  } finally {
    await page.close();
  }
}

/** What node's stub gives on `values` (the sample by default). */
function inNode(
  stub: string,
  values: Record<string, unknown> = CONFIG.sample,
): { staged: boolean; fun: string } {
  const script = path.join(APP, 'node-run.mjs');
  writeFileSync(
    script,
    `import { specialize } from ${JSON.stringify(stub)};
const r = specialize(${JSON.stringify(values)}, () => {});
process.stdout.write(JSON.stringify({ staged: r.staged, fun: JSON.stringify(r.fun) }));
`,
  );
  const r = spawnSync(process.execPath, [script], { cwd: APP, env: userEnv(), encoding: 'utf8' });
  expect(r.stderr).toBe('');
  return JSON.parse(r.stdout) as { staged: boolean; fun: string };
}

beforeAll(() => {
  installPacked(APP);
  const stage = spawnSync(
    path.join(APP, 'node_modules/.bin/scf'),
    ['stage', 'node_modules/scf/configs/kernel/02-curve.json', '--out', 'staged'],
    { cwd: APP, env: userEnv(), encoding: 'utf8', timeout: 120_000 },
  );
  expect(stage.status, stage.stderr).toBe(0);
}, 300_000);

afterAll(async () => {
  for (const b of browsers.values()) await b.close();
  server?.close();
  rmSync(APP, { recursive: true, force: true });
});

describe.skipIf(!existsSync(CHROMIUM))('a staged folder in a browser', () => {
  it('bundles for the browser with every import resolved; up front, without the fallback, under the size budget', async () => {
    const b = await bundle('./staged/curve.stub.mjs');
    expect(b.errors).toBe(0);
    for (const code of b.files.values()) expect(code).not.toMatch(/from\s*["']node:/);
    expect(b.lazy).toBeDefined();
    const upFront = gzipped(b, b.upFront);
    const lazy = gzipped(b, [b.lazy as string]);
    const all = gzipped(b, [...b.files.keys()]);
    console.log(
      `curve stub + staged modules + scf/runtime, loaded up front: ${upFront} B gzipped (${b.upFront.length} files); the unstaged fallback's chunk, loaded on demand: ${lazy} B gzipped (${b.files.get(b.lazy as string)?.length} B minified)`,
    );
    expect(b.upFront).not.toContain(b.lazy);
    expect(upFront).toBeLessThanOrEqual(UP_FRONT_BUDGET_GZIP);
    expect(all).toBeLessThanOrEqual(BUNDLE_BUDGET_GZIP);
  }, 120_000);

  it("specialize runs staged in headless Chromium and returns node's function, never requesting the fallback", async () => {
    const b = await bundle('./staged/curve.stub.mjs');
    const requested: string[] = [];
    const page = await inPage(b, false, requested);
    const here = inNode('./staged/curve.stub.mjs');
    expect(here.staged).toBe(true);
    expect(page.warnings).toEqual([]);
    expect(page.staged).toBe(true);
    expect(page.fun).toBe(here.fun);
    expect(requested).toContain(b.entry);
    expect(requested).not.toContain(b.lazy);
  }, 120_000);

  /** What the fallback page gives, its requests and node's result, for `values` on `stub`. */
  async function fallsBack(stub: string, values: Record<string, unknown>) {
    const b = await bundle(stub, fallbackEntry(values));
    expect(b.errors).toBe(0);
    const requested: string[] = [];
    const page = await inPage<{
      thrown?: { name: string; message: string };
      warnedBefore: number;
      staged: boolean;
      fun: string;
      warnings: string[];
    }>(b, false, requested);
    expect(page.thrown?.name).toBe('FallbackNotLoaded');
    expect(page.thrown?.message).toMatch(/await loadFallback\(\).*or call specializeAsync/);
    expect(page.warnedBefore).toBe(0);
    expect(page.staged).toBe(false);
    expect(requested).toContain(b.lazy);
    return { page, here: inNode('./staged/curve.stub.mjs', values) };
  }

  it('a stub staged from other built-in sources is stale in the page too: FallbackNotLoaded, then specializeAsync warns and runs the unstaged pipeline', async () => {
    const stubText = readFileSync(path.join(APP, 'staged/curve.stub.mjs'), 'utf8');
    const recorded = /"path":"optimizers\/dae\.ts","sha256":"([0-9a-f]{64})"/.exec(stubText)?.[1] as string;
    expect(recorded).toMatch(/^[0-9a-f]{64}$/);
    writeFileSync(path.join(APP, 'staged/curve-old.stub.mjs'), stubText.replace(recorded, '0'.repeat(64)));
    const { page, here } = await fallsBack('./staged/curve-old.stub.mjs', CONFIG.sample);
    expect(page.thrown?.message).toMatch(
      /staged from an older pipeline \(dae's source optimizers\/dae\.ts changed\)/,
    );
    expect(page.warnings.join('\n')).toMatch(
      /staged from an older pipeline \(dae's source optimizers\/dae\.ts changed\)/,
    );
    expect(page.fun).toBe(here.fun);
  }, 120_000);

  it("values outside the staged description: FallbackNotLoaded, then specializeAsync loads the fallback, with node's result", async () => {
    const { page, here } = await fallsBack('./staged/curve.stub.mjs', OUTSIDE);
    expect(here.staged).toBe(false);
    expect(page.thrown?.message).toMatch(/formal 'deg' = 9 is outside its early description/);
    expect(page.warnings.join('\n')).toMatch(/formal 'deg' = 9 is outside its early description/);
    expect(page.fun).toBe(here.fun);
  }, 120_000);

  it("the specialized kernel in the page on navigator.gpu's WebGPU and on the JS back end: node's outputs", async () => {
    const b = await bundle('./staged/curve.stub.mjs', kernelEntry);
    expect(b.errors).toBe(0);
    type KernelOut = { result: unknown; outputs: Record<string, number[]> };
    const page = await inPage<{
      js: KernelOut;
      simd: boolean;
      webgpu?: KernelOut;
      adapter?: string;
      noAdapter?: string;
    }>(b, true);
    expect(page.simd).toBe(true);
    const script = path.join(APP, 'node-kernel.mjs');
    writeFileSync(
      script,
      kernelEntry('./staged/curve.stub.mjs').replace(
        'globalThis.__scf = out;',
        'process.stdout.write(JSON.stringify(out.js));',
      ),
    );
    const r = spawnSync(process.execPath, [script], { cwd: APP, env: userEnv(), encoding: 'utf8' });
    const here = JSON.parse(r.stdout) as KernelOut;
    expect(page.js).toEqual(here);
    expect(page.noAdapter).toBeUndefined();
    expect(page.adapter).toMatch(/swiftshader/i);
    const want = here.result as number[];
    const got = page.webgpu?.result as number[];
    expect(got).toHaveLength(want.length);
    const scale = Math.max(1, ...want.map(Math.abs));
    for (const [i, w] of want.entries())
      expect(Math.abs((got[i] as number) - w)).toBeLessThanOrEqual(4 * 2 ** -23 * scale);
  }, 120_000);

  it('a page without an adapter: GpuRuntime.open says why, and the JS back end runs', async () => {
    const b = await bundle('./staged/curve.stub.mjs', kernelEntry);
    const page = await inPage<{ js: { result: number[] }; webgpu?: unknown; noAdapter?: string }>(b, false);
    expect(page.webgpu).toBeUndefined();
    expect(page.noAdapter).toMatch(/navigator\.gpu/);
    expect(page.js.result).toHaveLength(XS.length);
  }, 120_000);
});
