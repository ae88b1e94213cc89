/**
 * The playground's script (bundled by build.ts with the staged stubs; `start` gets the configs).
 * Run: the late values from the textarea go to the stub's `specialize` in the page (staged, or the
 * unstaged pipeline with a warning for values outside the description); the specialized program is
 * printed as C and its kernel as WGSL; the generic kernel (the pipeline's output with no late
 * value known) and the specialized one run on the config's arguments (ID.args.bin) on the JS back
 * end and, when the page has a WebGPU adapter, on it; outputs are compared (JS: identical; GPU:
 * within 4 ulps of each value or of the data's scale) and timed (median of `?runs=` runs, 5 by
 * default) in a bar chart. What a run found is also left in `globalThis.__playground` for tests.
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

const $ = (id) => document.getElementById(id);
const RUNS = Math.max(1, Number(new URLSearchParams(location.search).get('runs')) || 5);

/**
 * `got` against `want`: identical, or every number within GPU_ULPS ulps of its value or of the
 * scale of `want` (`compareResults`, as `scf bench --kernel` compares).
 */
function compare(got, want) {
  const c = compareResults(got, want, dataScale(want.result, ...Object.values(want.outputs)));
  return { equal: c.equal, within: c.withinTolerance, diff: c.diff };
}

/** The median of `runs` timed runs of `k` (ms, round trip). */
async function timeRuns(k, args) {
  const ms = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    await k.run(args);
    ms.push(performance.now() - t0);
  }
  ms.sort((a, b) => a - b);
  return ms[(ms.length - 1) >> 1];
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
  return `<svg xmlns="http://www.w3.org/2000/svg" width="760" height="${bars.length * row + 4}" font-size="13" font-family="system-ui, sans-serif">${rows.join('')}</svg><div class="muted">median of ${RUNS} runs each, round trip (arguments in, outputs back)</div>`;
}

/** The config's run-time arguments, read from ID.args.bin by the layout build.ts wrote. */
const argsCache = new Map();
async function configArgs(c) {
  if (!argsCache.has(c.id)) {
    const data = new Float64Array(await (await fetch(`${c.id}.args.bin`)).arrayBuffer());
    const args = {};
    for (const a of c.args)
      args[a.name] = 'value' in a ? a.value : Array.from(data.subarray(a.offset, a.offset + a.length));
    argsCache.set(c.id, args);
  }
  return argsCache.get(c.id);
}

let gpu;
/** The page's GPU runtime, or the NoAdapter saying why there is none (opened once). */
function openGpu() {
  gpu ??= GpuRuntime.open();
  return gpu;
}

const genericFuns = new Map();
/** The generic kernel of a config: its pipeline's output with no late value known. */
function genericFun(c) {
  if (!genericFuns.has(c.id)) genericFuns.set(c.id, c.stub.unstagedPipeline(c.stub.formalsOf({})));
  return genericFuns.get(c.id);
}

/** Shows a config: its kernel, its config and its sample as the values to edit. */
function show(c) {
  $('description').textContent = c.description;
  $('kernel-file').textContent = c.kernelFile;
  $('kernel').textContent = c.kernelSource;
  $('config-file').textContent = c.file;
  $('config-text').textContent = c.configText;
  $('staged-bytes').textContent = `${(c.stagedBytes / 1024).toFixed(1)} KB`;
  $('abstract').textContent = c.abstract;
  $('values').value = JSON.stringify(c.sample, null, 1).replace(/\n\s*/g, ' ');
}

/** Specializes on the textarea's values and shows the staged flag, warnings, C and WGSL. */
function specializeShown(c) {
  const values = JSON.parse($('values').value);
  const warnings = [];
  const t0 = performance.now();
  const r = c.stub.specialize(values, (w) => warnings.push(w));
  const ms = performance.now() - t0;
  $('staged').textContent = String(r.staged);
  $('staged').className = r.staged ? 'ok' : 'bad';
  $('specialize-time').textContent = `(specialize: ${ms.toFixed(1)} ms)`;
  $('warnings').replaceChildren(
    ...warnings.map((w) => Object.assign(document.createElement('li'), { textContent: w })),
  );
  $('specialized').textContent = printOptimized(r.fun, c.stub.FUN.fns);
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
  return { outG, outS, msG: await timeRuns(g, args), msS: await timeRuns(s, args) };
}

/** Runs both kernels on the JS back end and the GPU (if any) and shows the comparison and chart. */
async function runKernels(c, spec, state) {
  const args = { ...(await configArgs(c)), ...spec.values };
  const generic = genericFun(c);
  const rt = await openGpu();
  const js = await runOn('js', generic, spec.fun, args);
  const jsCmp = compare(js.outS, js.outG);
  const bars = [
    { label: 'JS back end, generic', ms: js.msG },
    { label: 'JS back end, specialized', ms: js.msS },
  ];
  let equal = jsCmp.equal;
  let text = `JS back end: specialized ${jsCmp.equal ? 'identical to' : 'differs from'} generic`;
  if (rt instanceof GpuRuntime) {
    state.adapter = rt.adapterName;
    $('backend').textContent = `WebGPU (${rt.adapterName}) and the JS back end`;
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
  Object.assign(state, { equal, js: js.outS, times: bars });
}

let runs = 0;
/** The Run button: specialize, print, run, compare; errors are shown, never thrown. */
async function run(c) {
  const state = { config: c.id, staged: undefined, warnings: [], error: undefined };
  $('run').disabled = true;
  $('error').hidden = true;
  for (const id of ['staged', 'backend', 'equal', 'specialized', 'wgsl']) $(id).textContent = '…';
  $('chart').replaceChildren();
  $('progress').textContent = 'running…';
  try {
    const spec = specializeShown(c);
    Object.assign(state, { staged: spec.staged, warnings: spec.warnings });
    await runKernels(c, spec, state);
  } catch (e) {
    state.error = e instanceof Error ? e.message : String(e);
    $('error').textContent = state.error;
    $('error').hidden = false;
  }
  $('progress').textContent = '';
  $('run').disabled = false;
  globalThis.__playground = { ...state, runs: ++runs };
}

/** Fills the picker and wires Run; `configs` carry their stubs (build.ts's generated entry). */
export function start(configs) {
  const pick = $('config');
  for (const c of configs) pick.append(new Option(c.title, c.id));
  const current = () => configs.find((c) => c.id === pick.value);
  pick.addEventListener('change', () => show(current()));
  $('run').addEventListener('click', () => run(current()));
  show(current());
  globalThis.__playground = { runs: 0 };
}
