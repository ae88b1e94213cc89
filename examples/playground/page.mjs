/**
 * The playground's script (bundled by build.ts; `start` gets the configs' texts). The page stages
 * itself: **Stage** sends the edited kernel and config to the staging worker (worker.mjs), shows
 * its progress lines as they come, then loads the staged folder from its text (`importStagedText`,
 * scf/stage) and shows the abstract programs (I1, I2 …) and the staged modules' size. **Run**: the
 * late values go to the staged stub's `specialize` (staged, or the unstaged pipeline with a warning
 * for values outside the description); the specialized program is printed as C and its kernel as
 * WGSL; the generic kernel (the pipeline's output with no late value known) and the specialized one
 * run on the config's `args` (drawn by `argValue`) on the JS back end and, when the page has a
 * WebGPU adapter, on it; outputs are compared (JS: identical; GPU: within 4 ulps of each value or
 * of the data's scale) and timed as `scf bench --kernel` times round trips (two warm-up runs, then the
 * median of `?runs=` rounds, 5 by default, the kernels in rotating order) in a bar chart. The
 * **finite math** switch sets the config's `"math"` key (`withMath`), stages again and runs: the
 * convolution's zero taps leave its kernel only under finite math.
 *
 * Bad input — a kernel that does not parse, a config that does not fit it, values its formals
 * cannot take, a shader the device rejects — is a message on the page (`FILE:LINE:COL: …` where
 * there is a position), never an exception. What a Stage and a Run found is left in
 * `globalThis.__playground` for tests.
 */
import {
  compareResults,
  compileFor,
  dataScale,
  emitKernelWgsl,
  GPU_ULPS,
  GpuRuntime,
  printOptimized,
  programOf,
} from 'scf/gpu';
import { argValue, importStagedText } from 'scf/stage';

const $ = (id) => document.getElementById(id);
const RUNS = Math.max(1, Number(new URLSearchParams(location.search).get('runs')) || 5);

/** `got` against `want`: identical, or within GPU_ULPS ulps (`compareResults`, as `scf bench --kernel`). */
function compare(got, want) {
  const c = compareResults(got, want, dataScale(want.result, ...Object.values(want.outputs)));
  return { equal: c.equal, within: c.withinTolerance, diff: c.diff };
}

/**
 * Round trips of `kernels` (by name; ms, medians): as `scf bench --kernel` times them, two
 * warm-up runs each, then RUNS rounds taking the kernels in rotating order.
 */
async function timeRuns(kernels, args) {
  const names = Object.keys(kernels);
  for (const n of names) for (let w = 0; w < 2; w++) await kernels[n].run(args);
  const ms = Object.fromEntries(names.map((n) => [n, []]));
  for (let r = 0; r < RUNS; r++)
    for (let j = 0; j < names.length; j++) {
      const n = names[(j + r) % names.length];
      const t0 = performance.now();
      await kernels[n].run(args);
      ms[n].push(performance.now() - t0);
    }
  const median = (xs) => xs.sort((a, b) => a - b)[(xs.length - 1) >> 1];
  return Object.fromEntries(names.map((n) => [n, median(ms[n])]));
}

/** An inline SVG bar chart of `bars` ({ label, ms }). */
function chart(bars) {
  const max = Math.max(...bars.map((b) => b.ms), 1e-6);
  const row = 26;
  const rows = bars.map((b, i) => {
    const w = Math.max(1, (b.ms / max) * 420);
    const y = i * row;
    const fill = b.label.includes('specialized') ? '#2da44e' : '#8c959f';
    return `<text x="0" y="${y + 17}">${b.label}</text><rect x="210" y="${y + 4}" width="${w}" height="18" fill="${fill}"/><text x="${218 + w}" y="${y + 17}">${b.ms.toFixed(2)} ms</text>`;
  });
  return `<svg xmlns="http://www.w3.org/2000/svg" width="760" height="${bars.length * row + 4}" font-size="13" font-family="system-ui, sans-serif">${rows.join('')}</svg><div class="muted">after two warm-up runs, median of ${RUNS} rounds in rotating order: round trip (arguments in, outputs back)</div>`;
}

/**
 * An error as the page shows it: a shader the device rejected at WGSL LINE:COL as
 * `FN.wgsl:LINE:COL: error: …`, a late value JSON.parse refused at its line and column of the
 * values, anything else by its message.
 */
function messageOf(e, where) {
  if (!(e instanceof Error)) return String(e);
  if (e.name === 'ShaderRejected' && e.line !== undefined)
    return `${e.fn}.wgsl:${e.line}:${e.col}: error: the device rejected the shader of ${e.pass}: ${e.detail}`;
  if (e instanceof SyntaxError && where === 'values') {
    const text = $('values').value;
    const at = /line (\d+) column (\d+)/.exec(e.message);
    const pos = /position (\d+)/.exec(e.message);
    const before = pos ? text.slice(0, Number(pos[1])).split('\n') : undefined;
    const lc = at ? `${at[1]}:${at[2]}` : before ? `${before.length}:${before.at(-1).length + 1}` : '1:1';
    return `late values:${lc}: error: not JSON: ${e.message}`;
  }
  return e.message;
}

let gpu;
/**
 * The page's GPU runtime, or the NoAdapter saying why there is none: opened once, and again when
 * its device was lost (`lost` says why). The device is left in `globalThis.__playgroundDevice`,
 * where a test can lose it on purpose.
 */
async function openGpu() {
  let lost;
  const before = gpu && (await gpu);
  if (before instanceof GpuRuntime && before.lostReason !== undefined) {
    lost = before.lostReason;
    gpu = undefined;
  }
  gpu ??= GpuRuntime.open();
  const rt = await gpu;
  if (rt instanceof GpuRuntime) globalThis.__playgroundDevice = rt.device;
  return { rt, lost };
}

/** The config's run-time arguments, drawn from its `args` (cached by their specs). */
const argsCache = new Map();
function configArgs(specs) {
  const key = JSON.stringify(specs);
  if (!argsCache.has(key))
    argsCache.set(key, Object.fromEntries(Object.entries(specs).map(([k, s]) => [k, argValue(s)])));
  return argsCache.get(key);
}

/** What is staged now: the stub, what the worker said of it, and its generic kernel (made once). */
let current;

function showError(message, state) {
  state.error = message;
  $('error').textContent = message;
  $('error').hidden = false;
}

/**
 * `text`, a config's JSON, with its math mode set to `mode`: the `"math"` key's value replaced,
 * or (for finite math) the key added first. The rest of the text is left as it was written.
 */
export function withMath(text, mode) {
  const key = /("math"\s*:\s*)"[^"]*"/;
  if (key.test(text)) return text.replace(key, `$1"${mode}"`);
  if (mode !== 'finite') return text;
  return text.replace(/^(\s*\{)(\s*)/, (_, open, ws) => `${open}${ws}"math": "${mode}",${ws || ' '}`);
}

/** Whether a config's text asks for finite math. */
const finiteIn = (text) => /"math"\s*:\s*"finite"/.test(text);

/** Shows a config: its kernel and config to edit, its sample as the values; nothing staged for it yet. */
function show(c) {
  $('description').textContent = c.description;
  $('note').textContent = c.note;
  $('finite').checked = finiteIn(c.configText);
  $('kernel-file').textContent = c.kernelFile;
  $('kernel').value = c.kernelSource;
  $('config-file').textContent = c.file;
  $('config-text').value = c.configText;
  $('values').value = JSON.stringify(c.sample, null, 1).replace(/\n\s*/g, ' ');
  unstage('not staged yet: press Stage');
}

/** Forgets the staged stub (the kernel or the config changed). */
function unstage(why) {
  current = undefined;
  $('run').disabled = true;
  $('stage-status').textContent = why;
  $('staged-bytes').textContent = '–';
  $('abstract').textContent = '';
}

let worker;
let requests = 0;
/** Stages `c`'s edited texts in the worker; progress lines go to `onLine`; the worker's last message. */
function stageInWorker(c, onLine) {
  worker ??= new Worker('worker.js', { type: 'module' });
  const id = ++requests;
  return new Promise((resolve) => {
    const onMessage = (e) => {
      if (e.data.id !== id) return;
      if (e.data.kind === 'progress') onLine(e.data.line, e.data.ms);
      else {
        worker.removeEventListener('message', onMessage);
        worker.removeEventListener('error', onError);
        resolve(e.data);
      }
    };
    const onError = (e) => {
      e.preventDefault();
      worker.removeEventListener('message', onMessage);
      worker.removeEventListener('error', onError);
      worker = undefined;
      resolve({ kind: 'error', message: `internal error: the staging worker failed: ${e.message}` });
    };
    worker.addEventListener('message', onMessage);
    worker.addEventListener('error', onError);
    worker.postMessage({ id, config: $('config-text').value, configFile: c.file, kernel: $('kernel').value });
  });
}

let stagings = 0;
/** The Stage button: stage in the worker, load the staged folder, show what was staged. */
async function stage(c) {
  const state = { config: c.id, lines: [], error: undefined };
  unstage('staging …');
  $('stage').disabled = true;
  $('error').hidden = true;
  $('stage-log').textContent = '';
  const t0 = performance.now();
  const r = await stageInWorker(c, (line, ms) => {
    state.lines.push(line);
    $('stage-log').textContent += `${(ms / 1000).toFixed(2)} s  ${line}\n`;
  });
  try {
    if (r.kind === 'error') throw new Error(r.message);
    const stub = await importStagedText(r.files, r.stub);
    state.ms = performance.now() - t0;
    Object.assign(state, { workerMs: r.ms, fn: r.fn, stagedBytes: r.stagedBytes, modules: r.modules });
    current = { stub, args: r.args, generic: undefined };
    $('stage-log').textContent +=
      `${(state.ms / 1000).toFixed(2)} s  loaded ${r.stub} and its ${r.modules.length} staged modules\n`;
    $('stage-status').textContent =
      `staged ${r.fn} in ${(state.ms / 1000).toFixed(2)} s: ${r.passes.map((p) => `${p.pass} ${p.ms.toFixed(0)} ms (${p.stop})`).join(', ')}`;
    $('staged-bytes').textContent = `${(r.stagedBytes / 1024).toFixed(1)} KB`;
    $('abstract').textContent = r.abstract;
    $('run').disabled = false;
  } catch (e) {
    $('stage-status').textContent = 'staging failed';
    showError(messageOf(e), state);
  }
  $('stage').disabled = false;
  globalThis.__playground = { ...globalThis.__playground, staging: state, stages: ++stagings };
}

/** Specializes on the textarea's values and shows the staged flag, warnings, C and WGSL. */
function specializeShown(stub) {
  let values;
  try {
    values = JSON.parse($('values').value);
  } catch (e) {
    throw new Error(messageOf(e, 'values'));
  }
  const warnings = [];
  const t0 = performance.now();
  const r = stub.specialize(values, (w) => warnings.push(w));
  const ms = performance.now() - t0;
  $('staged').textContent = String(r.staged);
  $('staged').className = r.staged ? 'ok' : 'bad';
  $('specialize-time').textContent = `(specialize: ${ms.toFixed(1)} ms)`;
  $('warnings').replaceChildren(
    ...warnings.map((w) => Object.assign(document.createElement('li'), { textContent: w })),
  );
  $('specialized').textContent = printOptimized(r.fun, stub.FUN.fns);
  try {
    $('wgsl').textContent = emitKernelWgsl(programOf(r.fun), r.fun.name);
  } catch (e) {
    $('wgsl').textContent = `no WGSL: ${e instanceof Error ? e.message : String(e)}`;
  }
  return { values, fun: r.fun, staged: r.staged, warnings };
}

/** Runs the generic and the specialized kernel on `backend`: outputs and median times. */
async function runOn(backend, generic, specialized, args) {
  const g = await compileFor(generic, backend);
  const s = await compileFor(specialized, backend);
  const outG = await g.run(args);
  const outS = await s.run(args);
  const ms = await timeRuns({ generic: g, specialized: s }, args);
  return { outG, outS, msG: ms.generic, msS: ms.specialized };
}

/** Runs both kernels on the JS back end and the GPU (if any) and shows the comparison and chart. */
async function runKernels(spec, state) {
  const args = { ...configArgs(current.args), ...spec.values };
  current.generic ??= current.stub.unstagedPipeline(current.stub.formalsOf({}));
  const generic = current.generic;
  const { rt, lost } = await openGpu();
  if (lost !== undefined) state.deviceLost = lost;
  const js = await runOn('js', generic, spec.fun, args);
  const jsCmp = compare(js.outS, js.outG);
  const bars = [
    { label: 'JS back end, generic', ms: js.msG },
    { label: 'JS back end, specialized', ms: js.msS },
  ];
  let equal = jsCmp.equal;
  let text = `JS back end: specialized ${jsCmp.equal ? 'identical to' : 'differs from'} generic`;
  Object.assign(state, { js: js.outS });
  if (rt instanceof GpuRuntime) {
    state.adapter = rt.adapterName;
    $('backend').textContent =
      `WebGPU (${rt.adapterName}) and the JS back end` +
      (lost === undefined ? '' : ` — a new device: the last one was lost (${lost})`);
    const gp = await runOn(rt, generic, spec.fun, args);
    const cg = compare(gp.outG, js.outG);
    const cs = compare(gp.outS, js.outG);
    equal = equal && cg.within && cs.within;
    text += `; WebGPU generic ${cg.within ? 'within' : 'NOT within'} and specialized ${cs.within ? 'within' : 'NOT within'} ${GPU_ULPS} ulps of it (largest difference ${Math.max(cg.diff, cs.diff).toExponential(2)})`;
    bars.push({ label: 'WebGPU, generic', ms: gp.msG }, { label: 'WebGPU, specialized', ms: gp.msS });
  } else {
    state.noAdapter = rt.reason;
    $('backend').textContent = `JS back end — no WebGPU: ${rt.reason} (${rt.install})`;
  }
  $('equal').textContent = `${equal ? 'equal' : 'NOT equal'} — ${text}`;
  $('equal').className = equal ? 'ok' : 'bad';
  $('chart').innerHTML = chart(bars);
  Object.assign(state, { equal, times: bars });
}

let runs = 0;
/** The Run button: specialize, print, run, compare; errors are shown, never thrown. */
async function run() {
  const state = { config: $('config').value, staged: undefined, warnings: [], error: undefined };
  $('run').disabled = true;
  $('error').hidden = true;
  for (const id of ['staged', 'backend', 'equal', 'specialized', 'wgsl']) $(id).textContent = '…';
  $('chart').replaceChildren();
  $('progress').textContent = 'running…';
  try {
    // the unstaged pipeline's built-in passes are a chunk loaded on demand; a Run needs them (the
    // generic kernel is their output, and values outside the description run them), so they are
    // loaded before specialize is timed
    await current.stub.loadFallback();
    const spec = specializeShown(current.stub);
    Object.assign(state, { staged: spec.staged, warnings: spec.warnings, fun: JSON.stringify(spec.fun) });
    await runKernels(spec, state);
  } catch (e) {
    showError(messageOf(e), state);
  }
  $('progress').textContent = '';
  $('run').disabled = current === undefined;
  globalThis.__playground = { ...globalThis.__playground, run: state, runs: ++runs };
}

/** Fills the picker and wires Stage and Run; `configs` carry their texts (build.ts's entry). */
export function start(configs) {
  const pick = $('config');
  for (const c of configs) pick.append(new Option(c.title, c.id));
  const chosen = () => configs.find((c) => c.id === pick.value);
  pick.addEventListener('change', () => show(chosen()));
  for (const id of ['kernel', 'config-text'])
    $(id).addEventListener('input', () => {
      $('finite').checked = finiteIn($('config-text').value);
      unstage('edited: press Stage to stage it');
    });
  $('stage').addEventListener('click', () => stage(chosen()));
  // finite math is the config's: set it in the text, stage again, and specialize and run again
  $('finite').addEventListener('change', async () => {
    $('config-text').value = withMath($('config-text').value, $('finite').checked ? 'finite' : 'exact');
    await stage(chosen());
    if (current !== undefined) await run();
  });
  $('run').addEventListener('click', () => run());
  show(chosen());
  globalThis.__playground = { stages: 0, runs: 0 };
}
