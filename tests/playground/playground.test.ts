/**
 * The playground (examples/playground) as a user gets it from `npm run playground`: built into a
 * temporary folder (the page and its staging worker bundled from dist/), served on 127.0.0.1 and
 * driven in headless Chromium (Debian's /usr/bin/chromium, puppeteer-core):
 * - with --enable-unsafe-webgpu, Stage on each demo config stages it in the page's worker — the
 *   staged modules are node's, byte for byte (their hashes equal the manifest `stageConfig` +
 *   `writeStaged` give) — and Run on its sample specializes staged with node's function, runs on
 *   WebGPU (SwiftShader's adapter named on the page) and the JS back end with outputs equal, the
 *   JS back end's outputs node's bit for bit (node's stub and `compileFor(fun, 'js')` on the
 *   config's `args`, drawn by `argValue`). The time from Stage to the stub loaded, and the page's
 *   round trips beside `scf bench --kernel`'s in node, are printed and written to SHOT's folder
 *   (scf-playground-staging.json), and asserted on by nothing;
 * - values outside the description (nine ops where `nops` is 0…8) run the unstaged pipeline: the
 *   page says staged false and shows the stub's warning;
 * - bad input — a kernel that does not parse, a description that does not parse, late values that
 *   are not JSON or that a formal cannot take, a kernel whose shader the device rejects — shows a
 *   message, positioned where there is a position, with no error in the console, and the page
 *   stages and runs again afterwards;
 * - a device lost between runs (destroyed by the test): the next Run opens a new one, says so and
 *   gives the same results;
 * - without the flag the page has no adapter, says why and runs the JS back end;
 * - the page opens on the op-code program; the convolution's note says why it gains little under
 *   exact math, and the finite-math switch sets `"math": "finite"` in its config, stages and runs
 *   again: the specialized kernel loses the zero taps' loads (9 loads of the image → 5 for the
 *   sample's sharpen filter), and switched off gets them back.
 * A screenshot of the page after the op-code program's run, cropped to the late values, the result
 * and the chart, is kept in the system's temporary folder (SHOT, printed); with UPDATE_GOLDEN=1, or where it is
 * missing, it is also written to docs/playground.png, which docs/playground.md shows. Nothing is
 * asserted on it (it shows times).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPlayground, type PlaygroundBuild } from '../../examples/playground/build.js';
import { servePlayground } from '../../examples/playground/serve.js';
import type { ArgValue } from '../../src/kernel/index.js';
import {
  argValue,
  importStub,
  type LoadedStub,
  loadConfig,
  stageConfig,
  writeStaged,
} from '../../src/pipeline/index.js';
import type { ManifestFile } from '../../src/runtime/index.js';
import { compileFor, type KernelResult } from '../../src/target/index.js';
import { runKernelConfigBench } from '../../src/bench/index.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const CHROMIUM = '/usr/bin/chromium';
const OUT = mkdtempSync(path.join(tmpdir(), 'scf-playground-'));
const SHOT = path.join(tmpdir(), 'scf-playground-screenshot.png');
const DOC_SHOT = path.join(ROOT, 'docs/playground.png');
const TIMES = path.join(tmpdir(), 'scf-playground-staging.json');

/** What the page leaves in `globalThis.__playground.staging` after a Stage. */
interface StagingState {
  config: string;
  lines: string[];
  error?: string;
  ms?: number;
  workerMs?: number;
  fn?: string;
  stagedBytes?: number;
  modules?: ManifestFile[];
}

/** What the page leaves in `globalThis.__playground.run` after a Run. */
interface RunState {
  config: string;
  staged?: boolean;
  warnings: string[];
  error?: string;
  adapter?: string;
  noAdapter?: string;
  equal?: boolean;
  fun?: string;
  js?: KernelResult;
  /** Why the page's last GPU device was lost, when this Run had to open a new one. */
  deviceLost?: string;
  /** The chart's bars: round trips, e.g. { label: 'JS back end, generic', ms }. */
  times?: { label: string; ms: number }[];
}

interface PageState {
  stages: number;
  runs: number;
  staging?: StagingState;
  run?: RunState;
}

let built: PlaygroundBuild;
let server: Server | undefined;
let url = '';
const browsers: Browser[] = [];

/** Node's staging of a demo config, by id: its stub (written and imported) and the config. */
const nodeStaged = new Map<
  string,
  Promise<{ stub: LoadedStub; modules: readonly ManifestFile[]; file: string }>
>();
function inNodeStaged(id: string) {
  let s = nodeStaged.get(id);
  if (!s) {
    const c = built.configs.find((x) => x.id === id) as PlaygroundBuild['configs'][number];
    s = (async () => {
      const config = loadConfig(path.join(ROOT, c.file));
      const staged = await stageConfig(config);
      const w = writeStaged(staged.stages, {
        outDir: path.join(OUT, 'node', id),
        fun: staged.fun,
        bind: config.bind,
        origin: c.file,
      });
      const stub = await importStub(w.stub);
      return { stub, modules: stub.MANIFEST.modules, file: c.file };
    })();
    nodeStaged.set(id, s);
  }
  return s;
}

/** Node's specialized function (as JSON) and JS back end's outputs on the same values and arguments. */
async function inNode(
  id: string,
  values: Record<string, unknown>,
): Promise<{ fun: string; js: KernelResult }> {
  const { stub, file } = await inNodeStaged(id);
  const config = loadConfig(path.join(ROOT, file));
  const args: Record<string, ArgValue> = {};
  for (const [k, spec] of Object.entries(config.args ?? {})) args[k] = argValue(spec);
  const fun = stub.specialize(values as never, () => {}).fun;
  const js = await (await compileFor(fun, 'js')).run({ ...args, ...(values as Record<string, ArgValue>) });
  return { fun: JSON.stringify(fun), js };
}

/** A page of a fresh Chromium (WebGPU on SwiftShader when `webgpu`) on the playground, and its console's errors. */
async function open(webgpu: boolean, runs = 1): Promise<{ page: Page; errors: string[] }> {
  const browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-dev-shm-usage', ...(webgpu ? ['--enable-unsafe-webgpu'] : [])],
  });
  browsers.push(browser);
  const page = await browser.newPage();
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.setViewport({ width: 1000, height: 800 });
  await page.goto(`${url}?runs=${runs}`);
  await page.waitForFunction(() => '__playground' in globalThis);
  return { page, errors };
}

const state = (page: Page) =>
  page.evaluate(() => (globalThis as unknown as { __playground: PageState }).__playground);

/** Sets a textarea's text. */
async function setText(page: Page, id: string, text: string): Promise<void> {
  await page.$eval(`#${id}`, (el, v) => ((el as unknown as { value: string }).value = v), text);
}

/**
 * Picks `config` (its texts reset), applies `edit` to the kernel's and the config's text, clicks
 * Stage and waits for the staging to end.
 */
async function stage(
  page: Page,
  config: string,
  edit: { kernel?: (s: string) => string; config?: (s: string) => string } = {},
): Promise<StagingState> {
  const before = (await state(page)).stages;
  await page.select('#config', config);
  const c = built.configs.find((x) => x.id === config) as PlaygroundBuild['configs'][number];
  if (edit.kernel) await setText(page, 'kernel', edit.kernel(c.kernelSource));
  if (edit.config) await setText(page, 'config-text', edit.config(c.configText));
  await page.click('#stage');
  await page.waitForFunction(
    (n) => (globalThis as unknown as { __playground: PageState }).__playground.stages > n,
    { timeout: 90_000 },
    before,
  );
  return (await state(page)).staging as StagingState;
}

/** Sets the values (left as they are when undefined; a string as it is), clicks Run and waits for the result. */
async function run(page: Page, values?: unknown): Promise<RunState> {
  const before = (await state(page)).runs;
  if (values !== undefined)
    await setText(page, 'values', typeof values === 'string' ? values : JSON.stringify(values));
  await page.click('#run');
  await page.waitForFunction(
    (n) => (globalThis as unknown as { __playground: PageState }).__playground.runs > n,
    { timeout: 60_000 },
    before,
  );
  return (await state(page)).run as RunState;
}

const text = (page: Page, id: string) => page.$eval(`#${id}`, (el) => el.textContent ?? '');

/**
 * What a Run shows — the late values, the result and the chart — as SHOT, and as DOC_SHOT with
 * UPDATE_GOLDEN=1 or where that is missing: the part of the page that changes with the values,
 * small enough to keep in the repository.
 */
async function screenshot(page: Page): Promise<void> {
  const box = (selector: string) =>
    page.$eval(selector, (el) => {
      const r = el.getBoundingClientRect();
      const y = (globalThis as unknown as { scrollY: number }).scrollY;
      return { top: r.top + y, bottom: r.bottom + y };
    });
  const top = Math.floor((await box('h2:has(+ #values)')).top - 8);
  const bottom = Math.ceil((await box('#chart')).bottom + 8);
  const width = page.viewport()?.width ?? 1000;
  const clip = { x: 0, y: top, width, height: bottom - top };
  await page.screenshot({ path: SHOT, clip, captureBeyondViewport: true });
  console.log(`screenshot: ${SHOT}`);
  if (process.env.UPDATE_GOLDEN === '1' || !existsSync(DOC_SHOT)) {
    await page.screenshot({ path: DOC_SHOT, clip, captureBeyondViewport: true });
    console.log(`screenshot: ${DOC_SHOT}`);
  }
}

/** How many times `pattern` occurs in `s`. */
const count = (s: string, pattern: RegExp) => (s.match(pattern) ?? []).length;

beforeAll(async () => {
  if (!existsSync(path.join(ROOT, 'dist/stage.js')))
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
  it("Stage each demo config in the page's worker as node stages it; Run: staged, WebGPU, node's outputs", async () => {
    // as many timed rounds as scf bench --kernel takes by default
    const { page, errors } = await open(true, 15);
    // it opens on the first config, the op-code program
    expect(built.configs[0]?.id).toBe('ops');
    expect(await page.$eval('#config', (el) => (el as unknown as { value: string }).value)).toBe('ops');
    expect(await text(page, 'note')).toBe(built.configs[0]?.note);
    const times: Record<string, { page: number; worker: number }> = {};
    const trips: Record<string, { page: Record<string, number>; node: Record<string, number> }> = {};
    for (const c of built.configs) {
      const staging = await stage(page, c.id);
      expect(staging.error).toBeUndefined();
      times[c.id] = {
        page: Math.round(staging.ms as number),
        worker: Math.round(staging.workerMs as number),
      };
      const node = await inNodeStaged(c.id);
      expect(staging.modules).toEqual(node.modules);
      expect(staging.lines[0]).toBe(`parsing the kernel ${c.kernelFile} …`);
      expect(staging.lines.join('\n')).toMatch(/\[1\/4\] staging const-prop …[\s\S]*\[4\/4\] fusion: /);
      expect(staging.lines.at(-1)).toBe('emitting the staged modules …');
      expect(await text(page, 'abstract')).toMatch(/^\(\* I1: input of const-prop \*\)/);
      expect(await text(page, 'staged-bytes')).toMatch(/^\d+\.\d KB$/);
      const r = await run(page);
      expect(r.error).toBeUndefined();
      expect(r.staged).toBe(true);
      expect(r.warnings).toEqual([]);
      expect(r.adapter).toMatch(/swiftshader/i);
      expect(r.equal).toBe(true);
      expect(await text(page, 'backend')).toMatch(/swiftshader/i);
      expect(await text(page, 'equal')).toMatch(/^equal/);
      expect(await text(page, 'wgsl')).toMatch(/@compute/);
      expect(await text(page, 'specialized')).toContain(staging.fn);
      expect(await page.$eval('#chart svg rect', (el) => el.tagName)).toBe('rect');
      const here = await inNode(c.id, c.sample as Record<string, unknown>);
      expect(r.fun).toBe(here.fun);
      expect(r.js).toEqual(here.js);
      // the page's round trips beside `scf bench --kernel`'s in node for the same config (recorded)
      const bench = await runKernelConfigBench(path.join(ROOT, c.file), { rounds: 15, samples: 1 });
      const ms = (x: number) => Math.round(x * 100) / 100;
      trips[c.id] = {
        page: Object.fromEntries((r.times ?? []).map((b) => [b.label, ms(b.ms)])),
        node: Object.fromEntries(
          Object.entries(bench.backends).flatMap(([b, rep]) => [
            [`${b} generic`, ms(rep.roundTripMs.generic)],
            [`${b} specialized`, ms(rep.roundTripMs.specialized)],
          ]),
        ),
      };
      expect(r.times?.length).toBe(4);
      if (c.id === 'ops') await screenshot(page);
    }
    console.log(`round trips, the page and scf bench --kernel in node, ms: ${JSON.stringify(trips)}`);
    console.log(
      `staging in the page (Stage to stub loaded, and in the worker), ms: ${JSON.stringify(times)}`,
    );
    writeFileSync(TIMES, `${JSON.stringify({ staging: times, roundTrips: trips })}\n`);
    expect(errors).toEqual([]);
  }, 240_000);

  it('values outside the description: staged false and the warning, the unstaged result', async () => {
    const { page, errors } = await open(true);
    expect((await stage(page, 'ops')).error).toBeUndefined();
    const values = {
      ops: [1, 0, 2, 4, 3, 1, 0, 2, 4],
      ps: [1.5, -0.25, 0, 0.8, 1, 2, 0.5, 0.1, 0.3],
      nops: 9,
    };
    const r = await run(page, values);
    expect(r.error).toBeUndefined();
    expect(r.staged).toBe(false);
    expect(r.warnings.join('\n')).toMatch(/formal 'nops' = 9 is outside its early description/);
    expect(await text(page, 'staged')).toBe('false');
    expect(await text(page, 'warnings')).toMatch(/outside its early description/);
    expect(r.equal).toBe(true);
    expect(r.js).toEqual((await inNode('ops', values)).js);
    expect(errors).toEqual([]);
  }, 120_000);

  it('a lost device: the next Run opens a new one and says so; nothing in the console', async () => {
    const { page, errors } = await open(true);
    expect((await stage(page, 'conv')).error).toBeUndefined();
    const first = await run(page);
    expect(first.adapter).toMatch(/swiftshader/i);
    await page.evaluate(async () => {
      const g = globalThis as unknown as { __playgroundDevice: { destroy(): void; lost: Promise<unknown> } };
      g.__playgroundDevice.destroy();
      await g.__playgroundDevice.lost;
    });
    const again = await run(page);
    expect(again.error).toBeUndefined();
    expect(again.deviceLost).toMatch(/the device was lost \(destroyed\)/);
    expect(await text(page, 'backend')).toMatch(/a new device: the last one was lost/);
    expect(again.equal).toBe(true);
    expect(again.js).toEqual(first.js);
    expect(errors).toEqual([]);
  }, 120_000);

  it('bad input: a positioned message on the page, nothing in the console, and the page goes on', async () => {
    const { page, errors } = await open(true);
    const shown = async () => ({
      hidden: await page.$eval('#error', (el) => (el as unknown as { hidden: boolean }).hidden),
      text: await text(page, 'error'),
    });
    // a kernel that does not parse: the kernel's file, line and column
    const broken = await stage(page, 'conv', { kernel: (s) => s.replace('int x = k % w;', 'int x = k % ;') });
    expect(broken.error).toMatch(/^benchmarks\/inputs\/kernel\/conv\.c:\d+:\d+: error K\d{4}: /);
    expect(await shown()).toEqual({ hidden: false, text: broken.error });
    expect(await page.$eval('#run', (el) => (el as unknown as { disabled: boolean }).disabled)).toBe(true);
    // a description that does not parse: the config's file, line and column
    const desc = await stage(page, 'conv', { config: (s) => s.replace(`"c4": "'Float"`, `"c4": "'Flaot"`) });
    expect(desc.error).toMatch(/^configs\/kernel\/01-conv\.json:\d+:\d+: error D\d{4}: bad description/);
    // late values that are not JSON, or that a formal cannot take
    expect((await stage(page, 'conv')).error).toBeUndefined();
    const notJson = await run(page, '{ "c0": 1,, }');
    expect(notJson.error).toMatch(/^late values:1:\d+: error: not JSON/);
    const wrong = await run(page, { c0: [1, 2], c1: 0, c2: 0, c3: 0, c4: 1, c5: 0, c6: 0, c7: 0, c8: 0 });
    expect(wrong.error).toMatch(/c0/);
    // a kernel whose shader the device rejects: a map over 12 arrays, past 8 storage buffers
    const n = 12;
    const names = Array.from({ length: n }, (_, i) => i);
    const kernel = `float g(float s, ${names.map((i) => `float a${i}`).join(', ')}) { return s * (${names.map((i) => `a${i}`).join(' + ')}); }
float *wide(float s, ${names.map((i) => `const float x${i}[]`).join(', ')}) { float ys[] = map(g, s, ${names.map((i) => `x${i}`).join(', ')}); return ys; }
`;
    const config = JSON.stringify({
      input: '../../benchmarks/inputs/kernel/conv.c',
      function: 'wide',
      pipeline: ['const-prop', 'copy-prop', 'dae', 'fusion'],
      bind: { s: "'Float" },
      sample: { s: 2 },
      args: Object.fromEntries(names.map((i) => [`x${i}`, [1, 2, 3]])),
    });
    const wide = await stage(page, 'conv', { kernel: () => kernel, config: () => config });
    expect(wide.error).toBeUndefined();
    const rejected = await run(page, { s: 2 });
    expect(rejected.error).toMatch(/the device rejected the shader of wide: .*storage buffers/);
    expect((await shown()).text).toBe(rejected.error);
    // the page goes on: the demo config stages and runs again
    expect((await stage(page, 'conv')).error).toBeUndefined();
    const again = await run(page);
    expect(again.error).toBeUndefined();
    expect(again.equal).toBe(true);
    expect(await shown()).toMatchObject({ hidden: true });
    expect(errors).toEqual([]);
  }, 240_000);

  it("the convolution's note, and finite math: set in its config, staged and run again without the zero taps", async () => {
    const { page, errors } = await open(false);
    const conv = built.configs.find((x) => x.id === 'conv') as PlaygroundBuild['configs'][number];
    expect(conv.note).toMatch(/NaN/);
    expect(conv.note).toMatch(/"math": "finite"/);
    expect((await stage(page, 'conv')).error).toBeUndefined();
    expect(await text(page, 'note')).toBe(conv.note);
    const isChecked = () => page.$eval('#finite', (el) => (el as unknown as { checked: boolean }).checked);
    expect(await isChecked()).toBe(false);
    const exact = await run(page);
    expect(exact.error).toBeUndefined();
    const exactC = await text(page, 'specialized');
    // the sample is a sharpen filter: four zero taps, kept under exact math
    expect(count(exactC, /img\[(?!\])/g)).toBe(9);
    expect(count(exactC, /0\.0f \* img\[(?!\])/g)).toBe(4);
    // the switch: the config's text says finite math, the page stages and runs again
    const before = await state(page);
    await page.click('#finite');
    await page.waitForFunction(
      (n) => (globalThis as unknown as { __playground: PageState }).__playground.runs > n,
      { timeout: 120_000 },
      before.runs,
    );
    const after = await state(page);
    expect(after.stages).toBe(before.stages + 1);
    expect(after.staging?.error).toBeUndefined();
    expect(await isChecked()).toBe(true);
    const configText = await page.$eval('#config-text', (el) => (el as unknown as { value: string }).value);
    expect(JSON.parse(configText).math).toBe('finite');
    const finite = after.run as RunState;
    expect(finite.error).toBeUndefined();
    expect(finite.staged).toBe(true);
    expect(finite.equal).toBe(true);
    const finiteC = await text(page, 'specialized');
    expect(count(finiteC, /img\[(?!\])/g)).toBe(5);
    expect(count(finiteC, /0\.0f \*/g)).toBe(0);
    // on the test image (no NaN, no infinity) the outputs are those of exact math
    expect(finite.js).toEqual(exact.js);
    // switched off: exact math again, the zero taps back
    await page.click('#finite');
    await page.waitForFunction(
      (n) => (globalThis as unknown as { __playground: PageState }).__playground.runs > n,
      { timeout: 120_000 },
      after.runs,
    );
    expect(
      JSON.parse(await page.$eval('#config-text', (el) => (el as unknown as { value: string }).value)).math,
    ).toBe('exact');
    expect(count(await text(page, 'specialized'), /img\[(?!\])/g)).toBe(9);
    expect(errors).toEqual([]);
  }, 240_000);

  it('without an adapter the page says why and runs the JS back end', async () => {
    const { page, errors } = await open(false);
    expect((await stage(page, 'conv')).error).toBeUndefined();
    const r = await run(page);
    expect(r.error).toBeUndefined();
    expect(r.adapter).toBeUndefined();
    expect(r.noAdapter).toMatch(/requestAdapter|navigator\.gpu/);
    expect(await text(page, 'backend')).toMatch(/^JS back end — no WebGPU: /);
    expect(r.equal).toBe(true);
    expect(errors).toEqual([]);
  }, 120_000);
});
