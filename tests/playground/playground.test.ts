/**
 * The playground (examples/playground) as a user gets it from `npm run playground`: built into a
 * temporary folder (the configs staged under node, the page bundled from dist/), served on
 * 127.0.0.1 and driven in headless Chromium (Debian's /usr/bin/chromium, puppeteer-core):
 * - with --enable-unsafe-webgpu, Run on each config's sample specializes staged, runs on WebGPU
 *   (SwiftShader's adapter named on the page) and the JS back end with outputs equal, and the JS
 *   back end's outputs are node's, bit for bit (the same stub and `compileFor(fun, 'js')` on the
 *   config's `args`, drawn by `argValue` as `scf bench` draws them);
 * - values outside the description (nine ops where `nops` is 0…8) run the unstaged pipeline: the
 *   page says staged false and shows the stub's warning;
 * - without the flag the page has no adapter, says why and runs the JS back end.
 * A screenshot of the page after the runs is kept in the system's temporary folder (SHOT, printed).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPlayground, type PlaygroundBuild } from '../../examples/playground/build.js';
import { servePlayground } from '../../examples/playground/serve.js';
import { argValue } from '../../src/bench/index.js';
import type { ArgValue, Fun } from '../../src/kernel/index.js';
import { loadConfig } from '../../src/pipeline/index.js';
import { compileFor, type KernelResult } from '../../src/target/index.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const CHROMIUM = '/usr/bin/chromium';
const OUT = mkdtempSync(path.join(tmpdir(), 'scf-playground-'));
const SHOT = path.join(tmpdir(), 'scf-playground-screenshot.png');

/** What the page leaves in `globalThis.__playground` after a Run. */
interface PageState {
  runs: number;
  config: string;
  staged?: boolean;
  warnings: string[];
  error?: string;
  adapter?: string;
  noAdapter?: string;
  equal?: boolean;
  js?: KernelResult;
}

let built: PlaygroundBuild;
let server: Server | undefined;
let url = '';
const browsers: Browser[] = [];

/** A page of a fresh Chromium (WebGPU on SwiftShader when `webgpu`) on the playground. */
async function open(webgpu: boolean): Promise<Page> {
  const browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-dev-shm-usage', ...(webgpu ? ['--enable-unsafe-webgpu'] : [])],
  });
  browsers.push(browser);
  const page = await browser.newPage();
  await page.setViewport({ width: 1400, height: 1000 });
  await page.goto(`${url}?runs=1`);
  await page.waitForFunction(() => '__playground' in globalThis);
  return page;
}

/** Picks `config`, sets the values (the sample when undefined), clicks Run and waits for the result. */
async function run(page: Page, config: string, values?: unknown): Promise<PageState> {
  const before = await page.evaluate(
    () => (globalThis as unknown as { __playground: PageState }).__playground.runs,
  );
  await page.select('#config', config);
  if (values !== undefined)
    await page.$eval(
      '#values',
      (el, v) => ((el as unknown as { value: string }).value = v),
      JSON.stringify(values),
    );
  await page.click('#run');
  await page.waitForFunction(
    (n) => (globalThis as unknown as { __playground: PageState }).__playground.runs > n,
    { timeout: 50_000 },
    before,
  );
  return page.evaluate(() => (globalThis as unknown as { __playground: PageState }).__playground);
}

/** Node's JS back end on the same stub, values and arguments. */
async function inNode(id: string, values: Record<string, unknown>): Promise<KernelResult> {
  const c = built.configs.find((x) => x.id === id)!;
  const stub = (await import(path.join(built.staged[id] as string, `${c.fn}.stub.mjs`))) as {
    specialize(v: unknown, warn: (w: string) => void): { fun: Fun };
  };
  const config = loadConfig(path.join(ROOT, c.file));
  const args: Record<string, ArgValue> = {};
  for (const [k, spec] of Object.entries(config.args ?? {})) args[k] = argValue(spec);
  const fun = stub.specialize(values, () => {}).fun;
  return (await compileFor(fun, 'js')).run({ ...args, ...(values as Record<string, ArgValue>) });
}

const text = (page: Page, id: string) => page.$eval(`#${id}`, (el) => el.textContent ?? '');

beforeAll(async () => {
  if (!existsSync(path.join(ROOT, 'dist/target/index.js')))
    execFileSync(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['run', 'build'], {
      cwd: ROOT,
      stdio: 'pipe',
    });
  built = await buildPlayground(OUT);
  const s = await servePlayground(built.site, 0);
  server = s.server;
  url = s.url;
}, 120_000);

afterAll(async () => {
  for (const b of browsers) await b.close();
  server?.closeAllConnections();
  server?.close();
  rmSync(OUT, { recursive: true, force: true });
});

describe.skipIf(!existsSync(CHROMIUM))('the playground in headless Chromium', () => {
  it("Run on each config's sample: staged, WebGPU on SwiftShader, outputs equal and node's", async () => {
    const page = await open(true);
    for (const c of built.configs) {
      const state = await run(page, c.id);
      expect(state.error).toBeUndefined();
      expect(state.staged).toBe(true);
      expect(state.warnings).toEqual([]);
      expect(state.adapter).toMatch(/swiftshader/i);
      expect(state.equal).toBe(true);
      expect(await text(page, 'staged')).toBe('true');
      expect(await text(page, 'backend')).toMatch(/swiftshader/i);
      expect(await text(page, 'equal')).toMatch(/^equal/);
      expect(await text(page, 'wgsl')).toMatch(/@compute/);
      expect(await text(page, 'specialized')).toContain(c.fn);
      expect(await page.$eval('#chart svg rect', (el) => el.tagName)).toBe('rect');
      expect(state.js).toEqual(await inNode(c.id, c.sample as Record<string, unknown>));
    }
    await page.screenshot({ path: SHOT, fullPage: true });
    console.log(`screenshot: ${SHOT}`);
  }, 90_000);

  it('values outside the description: staged false and the warning, the unstaged result', async () => {
    const page = await open(true);
    const values = {
      ops: [1, 0, 2, 4, 3, 1, 0, 2, 4],
      ps: [1.5, -0.25, 0, 0.8, 1, 2, 0.5, 0.1, 0.3],
      nops: 9,
    };
    const state = await run(page, 'ops', values);
    expect(state.error).toBeUndefined();
    expect(state.staged).toBe(false);
    expect(state.warnings.join('\n')).toMatch(/formal 'nops' = 9 is outside its early description/);
    expect(await text(page, 'staged')).toBe('false');
    expect(await text(page, 'warnings')).toMatch(/outside its early description/);
    expect(state.equal).toBe(true);
    expect(state.js).toEqual(await inNode('ops', values));
  }, 60_000);

  it('without an adapter the page says why and runs the JS back end', async () => {
    const page = await open(false);
    const state = await run(page, 'conv');
    expect(state.error).toBeUndefined();
    expect(state.adapter).toBeUndefined();
    expect(state.noAdapter).toMatch(/requestAdapter|navigator\.gpu/);
    expect(await text(page, 'backend')).toMatch(/^JS back end — no WebGPU: /);
    expect(state.equal).toBe(true);
  }, 60_000);
});
