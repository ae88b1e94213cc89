/**
 * Staged output in a browser, as a user gets it: scf packed and installed in an app outside the
 * repository, a kernel config staged there under node, and its stub bundled by esbuild for
 * `platform: 'browser'` (package.json's "browser" map swaps scf's node-only modules for their
 * `*.browser.js` twins):
 * - the bundle resolves every import (no `node:` module, no native binding), and its size —
 *   minified and gzipped, the stub with its staged modules and all of scf/runtime it reaches — is
 *   reported and held under BUNDLE_BUDGET_GZIP;
 * - in headless Chromium (Debian's /usr/bin/chromium, driven by puppeteer-core), `specialize` on
 *   the config's sample runs staged and returns node's function, byte for byte as JSON;
 * - a stub whose manifest names a built-in source other than this package's (as after an upgrade)
 *   is stale there too, checked against the hashes recorded at build time with no file to read:
 *   it warns and runs the unstaged pipeline, with node's result;
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

/** The largest gzipped bundle of the curve config's stub, staged modules and runtime (bytes). */
const BUNDLE_BUDGET_GZIP = 72 * 1024;

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

/** The arguments the kernel runs on in the page and in node: 1,024 samples in [0, 1). */
const XS = Array.from({ length: 1024 }, (_, i) => ((i * 37) % 1024) / 1024);

/** A module that runs the specialized kernel on scf/gpu's back ends (node or page). */
function kernelEntry(stub: string): string {
  return `import { specialize } from ${JSON.stringify(stub)};
import { compileFor, GpuRuntime } from 'scf/gpu';
const values = ${JSON.stringify(CONFIG.sample)};
const args = { xs: ${JSON.stringify(XS)}, ...values };
const fun = specialize(values, () => {}).fun;
const out = { js: await (await compileFor(fun, 'js')).run(args) };
const rt = await GpuRuntime.open();
if (rt instanceof GpuRuntime) {
  out.adapter = rt.adapterName;
  out.webgpu = await (await compileFor(fun, rt)).run(args);
} else out.noAdapter = rt.reason;
globalThis.__scf = out;
`;
}

/** The page entry for `stub`, bundled for the browser: its text and its errors. */
async function bundle(
  stub: string,
  make: (stub: string) => string = pageEntry,
): Promise<{ code: string; errors: number }> {
  const entry = path.join(APP, `entry-${path.basename(stub, '.mjs')}-${make.name}.mjs`);
  writeFileSync(entry, make(stub));
  const r = await build({
    entryPoints: [entry],
    bundle: true,
    platform: 'browser',
    format: 'esm',
    minify: true,
    write: false,
    logLevel: 'silent',
    absWorkingDir: APP,
  });
  return { code: r.outputFiles[0]?.text ?? '', errors: r.errors.length };
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
  code: string,
  webgpu = false,
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
  served.set(`/m${n}.js`, code);
  served.set(`/p${n}.html`, `<!doctype html><script type="module" src="/m${n}.js"></script>`);
  const page = await browser.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(String(e)));
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

/** What node's stub gives on the sample. */
function inNode(stub: string): { staged: boolean; fun: string } {
  const script = path.join(APP, 'node-run.mjs');
  writeFileSync(
    script,
    `import { specialize } from ${JSON.stringify(stub)};
const r = specialize(${JSON.stringify(CONFIG.sample)}, () => {});
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
  it('bundles for the browser with every import resolved, under the size budget', async () => {
    const { code, errors } = await bundle('./staged/curve.stub.mjs');
    expect(errors).toBe(0);
    expect(code).not.toMatch(/from\s*["']node:/);
    const gz = gzipSync(code, { level: 9 }).length;
    console.log(`curve stub + staged modules + scf/runtime: ${code.length} B minified, ${gz} B gzipped`);
    expect(gz).toBeLessThanOrEqual(BUNDLE_BUDGET_GZIP);
  }, 120_000);

  it("specialize runs staged in headless Chromium and returns node's function", async () => {
    const { code } = await bundle('./staged/curve.stub.mjs');
    const page = await inPage(code);
    const here = inNode('./staged/curve.stub.mjs');
    expect(here.staged).toBe(true);
    expect(page.warnings).toEqual([]);
    expect(page.staged).toBe(true);
    expect(page.fun).toBe(here.fun);
  }, 120_000);

  it('a stub staged from other built-in sources is stale in the page too: a warning, the unstaged result', async () => {
    const stubText = readFileSync(path.join(APP, 'staged/curve.stub.mjs'), 'utf8');
    const recorded = /"path":"optimizers\/dae\.ts","sha256":"([0-9a-f]{64})"/.exec(stubText)?.[1] as string;
    expect(recorded).toMatch(/^[0-9a-f]{64}$/);
    writeFileSync(path.join(APP, 'staged/curve-old.stub.mjs'), stubText.replace(recorded, '0'.repeat(64)));
    const { code, errors } = await bundle('./staged/curve-old.stub.mjs');
    expect(errors).toBe(0);
    const page = await inPage(code);
    const here = inNode('./staged/curve.stub.mjs');
    expect(page.staged).toBe(false);
    expect(page.warnings.join('\n')).toMatch(
      /staged from an older pipeline \(dae's source optimizers\/dae\.ts changed\)/,
    );
    expect(page.fun).toBe(here.fun);
  }, 120_000);

  it("the specialized kernel in the page on navigator.gpu's WebGPU and on the JS back end: node's outputs", async () => {
    const { code, errors } = await bundle('./staged/curve.stub.mjs', kernelEntry);
    expect(errors).toBe(0);
    type KernelOut = { result: unknown; outputs: Record<string, number[]> };
    const page = await inPage<{ js: KernelOut; webgpu?: KernelOut; adapter?: string; noAdapter?: string }>(
      code,
      true,
    );
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
    const { code } = await bundle('./staged/curve.stub.mjs', kernelEntry);
    const page = await inPage<{ js: { result: number[] }; webgpu?: unknown; noAdapter?: string }>(
      code,
      false,
    );
    expect(page.webgpu).toBeUndefined();
    expect(page.noAdapter).toMatch(/navigator\.gpu/);
    expect(page.js.result).toHaveLength(XS.length);
  }, 120_000);
});
