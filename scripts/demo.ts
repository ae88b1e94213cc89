/**
 * `npm run demo [-- --coef sharpen|blur|edge|emboss|c0,…,c8] [--size N] [--backend auto|js]`:
 * staged compilation of an image kernel, end to end.
 *
 * 1. Build time: stages configs/kernel/01-conv.json in memory — the optimizer pipeline
 *    const-prop → copy-prop → dae → fusion, specialized to "conv3x3 with nine coefficients that
 *    are some floats, unknown now" — and prints what each stage knows (I1, I2).
 * 2. Run time: the coefficients arrive. The staged pipeline (the stub's `specialize`) optimizes
 *    the kernel for them: literals in the stencil map, the clamp fused in. The demo checks it
 *    equals the unstaged pipeline's output, prints the specialized C and its WGSL, runs it on
 *    WebGPU (the JS back end when there is no adapter, saying why) and checks the image against
 *    the reference evaluator running the original, unoptimized kernel.
 * 3. Timings, side by side in this process after warm-up: the staged against the unstaged
 *    pipeline, and values-known → kernel-ready for this run. `npm run bench:latency` measures more.
 * 4. Tiers: for new coefficients, a tiered handle answers first with the generic kernel, then
 *    switches to the specialized one when it is ready; the run time of each.
 *
 * Exit status 1 when a check fails (outputs differ, the staged pipeline did not admit the values,
 * a GPU error), 2 on bad arguments.
 */
import { parseArgs } from 'node:util';
import cliProgress from 'cli-progress';
import {
  CONV_CONFIG,
  coefValues,
  configPasses,
  convArgs,
  importStaged,
  maxAbsDiff,
  sameFun,
  testImage,
} from '../src/bench/kernel-latency.js';
import { alternate } from '../src/bench/timing.js';
import { evaluate, listFromArray, printFun, programWith } from '../src/kernel/index.js';
import { runPipeline } from '../src/optimizers/index.js';
import { describeStages, loadConfig, stageConfig } from '../src/pipeline/index.js';
import { compileKernelJs, GpuRuntime, planKernelWgsl, tieredKernels } from '../src/target/index.js';

const PRESETS: Record<string, readonly number[]> = {
  sharpen: [0, -1, 0, -1, 5, -1, 0, -1, 0],
  blur: [1 / 16, 2 / 16, 1 / 16, 2 / 16, 4 / 16, 2 / 16, 1 / 16, 2 / 16, 1 / 16],
  edge: [-1, -1, -1, -1, 8, -1, -1, -1, -1],
  emboss: [-2, -1, 0, -1, 1, 1, 0, 1, 2],
};

const HELP = `Usage: npm run demo [-- --coef NAME|c0,...,c8] [--size N] [--backend auto|js]

  --coef     the 3x3 coefficients known at run time: ${Object.keys(PRESETS).join(', ')} (default sharpen),
             or nine numbers, row-major
  --size N   the image is N x N (default 128)
  --backend  auto (default: WebGPU when there is an adapter, else the JS back end) or js`;

const TOLERANCE = 1e-5;

function fail(message: string, code = 1): never {
  console.error(`demo: ${message}`);
  process.exit(code);
}

function options() {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse();
  } catch (e) {
    fail(`${e instanceof Error ? e.message : String(e)}\n\n${HELP}`, 2);
  }
  const v = parsed.values;
  if (v.help) {
    console.log(HELP);
    process.exit(0);
  }
  const text = v.coef ?? 'sharpen';
  let coef: number[];
  const preset = PRESETS[text];
  if (preset) coef = preset.map(Math.fround);
  else {
    coef = text.split(',').map((s) => Number(s.trim()));
    if (coef.length !== 9 || coef.some((c) => !Number.isFinite(c)))
      fail(
        `--coef: expected a preset (${Object.keys(PRESETS).join(', ')}) or nine numbers, got '${text}'`,
        2,
      );
    coef = coef.map(Math.fround);
  }
  const size = Number(v.size ?? 128);
  if (!Number.isInteger(size) || size < 3 || size > 2048)
    fail(`--size: expected an integer in 3..2048, got '${v.size}'`, 2);
  const backend = v.backend ?? 'auto';
  if (backend !== 'auto' && backend !== 'js') fail(`--backend: expected auto or js, got '${backend}'`, 2);
  return { coef, coefName: preset ? text : 'custom', size, backend };
}

function parse() {
  return parseArgs({
    args: process.argv.slice(2),
    strict: true,
    options: {
      coef: { type: 'string' },
      size: { type: 'string' },
      backend: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}

const indent = (s: string, by = '    ') =>
  s
    .trimEnd()
    .split('\n')
    .map((l) => `${by}${l}`)
    .join('\n');

const ms = (x: number) => (x < 1 ? `${(x * 1000).toFixed(0)} µs` : `${x.toFixed(1)} ms`);

/** A bar on a terminal, nothing otherwise (the lines printed afterwards say the same). */
function bar(
  format: string,
  total: number,
): { update: (v: number, payload?: object) => void; stop: () => void } {
  if (!process.stderr.isTTY) return { update: () => {}, stop: () => {} };
  const b = new cliProgress.SingleBar(
    { format, stream: process.stderr, clearOnComplete: true },
    cliProgress.Presets.shades_classic,
  );
  b.start(total, 0, { step: '' });
  return { update: (v, payload) => b.update(v, payload ?? {}), stop: () => b.stop() };
}

/** A w×h image as a few lines of characters (rows and columns sampled). */
function ascii(img: readonly number[], w: number, h: number, cols = 48, rows = 12): string[] {
  const shades = ' .:-=+*#%@';
  const lines: string[] = [];
  for (let r = 0; r < rows; r++) {
    const y = Math.min(h - 1, Math.floor(((r + 0.5) * h) / rows));
    let line = '';
    for (let c = 0; c < cols; c++) {
      const x = Math.min(w - 1, Math.floor(((c + 0.5) * w) / cols));
      const v = Math.min(1, Math.max(0, img[y * w + x] ?? 0));
      line += shades[Math.min(shades.length - 1, Math.floor(v * shades.length))];
    }
    lines.push(line);
  }
  return lines;
}

// ---------------------------------------------------------------------------------------------------

const opts = options();
const tStart = performance.now();
const config = loadConfig(CONV_CONFIG);
const fn = config.function;
console.log('scf demo: staged compilation of a 3x3 convolution kernel (SCF, POPL 2002 → WGSL → WebGPU)\n');

// ---- 1. build time ----------------------------------------------------------------------------------

console.log(
  `1. Build time: stage ${config.pipeline.join(' → ')} for ${fn}, nine coefficients c0..c8 = 'Float (unknown now)`,
);
const stageBar = bar('   staging [{bar}] {value}/{total} passes | {step}', config.pipeline.length);
const stageLines: string[] = [];
const tStage = performance.now();
const staged = await stageConfig(config, {
  onProgress: (p) => {
    if (p.phase === 'start') stageBar.update(p.index, { step: p.pass });
    else if (p.result) {
      const r = p.result;
      stageBar.update(p.index + 1, { step: `${p.pass} done` });
      stageLines.push(
        `   ${p.pass.padEnd(10)} ${(r.ms.pe + r.ms.dae).toFixed(0).padStart(5)} ms  ${String(r.peStats.residualFuns).padStart(3)} residual functions, ` +
          `${r.sizes.original} → ${r.sizes.staged} Core nodes, stop: ${r.stop}`,
      );
    }
  },
});
stageBar.stop();
const stagingMs = performance.now() - tStage;
for (const l of stageLines) console.log(l);
const blocks = describeStages(staged.stages).split('\n\n');
console.log(
  `\n   I1, what is known of the kernel (the host function; conv_at and clamp01 are fixed):\n${indent(blocks[0] ?? '', '     ')}`,
);
console.log(
  `\n   I2, what const-prop's output is known to be (the coefficients become some float constants):\n${indent(blocks[1] ?? '', '     ')}`,
);
const { stub, admit, dir, dispose } = await importStaged(staged);
process.on('exit', dispose);
console.log(
  `\n   staged in ${(stagingMs / 1000).toFixed(1)} s; staged optimizers and stub written to ${dir} and imported`,
);

// ---- 2. run time ------------------------------------------------------------------------------------

const { coef, size } = opts;
const values = coefValues(coef);
const grid = [0, 3, 6].map((i) =>
  coef
    .slice(i, i + 3)
    .map((c) => String(+c.toPrecision(4)).padStart(7))
    .join(''),
);
console.log(
  `\n2. Run time: the coefficients are known (${opts.coefName}):\n${grid.map((g) => `     [${g} ]`).join('\n')}`,
);
const warnings: string[] = [];
const t0 = performance.now();
const spec = stub.specialize(values, (m) => warnings.push(m));
const specializeMs = performance.now() - t0;
if (!spec.staged) fail(`the staged pipeline did not admit the coefficients: ${warnings.join('; ')}`);
const program = staged.program;
const passes = configPasses(config);
const unstagedFun = runPipeline(program, fn, passes, values).fun;
if (!sameFun(spec.fun, unstagedFun))
  fail('the staged pipeline returned a different function from the unstaged pipeline');
console.log(
  `   staged pipeline: ${ms(specializeMs)} (first call); its output equals the unstaged pipeline's. The specialized kernel:\n`,
);
const specialized = programWith(program, spec.fun);
console.log(indent(printFun(spec.fun)));

const img = testImage(size, size);
const args = convArgs(img, size, size, coef);
let backend: 'webgpu' | 'js' = 'js';
let why = '';
let result: unknown;
let codegenMs = 0;
let prepareMs = 0;
let runMs = 0;
let gpu: GpuRuntime | undefined;
if (opts.backend === 'auto') {
  const rt = await GpuRuntime.open();
  if (rt instanceof GpuRuntime) {
    gpu = rt;
    backend = 'webgpu';
  } else why = `${rt.reason}; to use one, ${rt.install}`;
}
try {
  if (gpu) {
    const t1 = performance.now();
    const plan = planKernelWgsl(specialized, fn);
    codegenMs = performance.now() - t1;
    const passCount = plan.sites.reduce((n, s) => n + s.passes.length, 0);
    console.log(
      `\n   Its WGSL: ${plan.sites.length} combinator site${plan.sites.length === 1 ? '' : 's'}, ${passCount} compute pass${passCount === 1 ? '' : 'es'}, the coefficients written into the shader:\n`,
    );
    console.log(indent(plan.wgsl));
    const t2 = performance.now();
    const kernel = await gpu.prepare(plan);
    prepareMs = performance.now() - t2;
    const t3 = performance.now();
    result = (await kernel.run(args)).result;
    runMs = performance.now() - t3;
    console.log(`\n   WebGPU on ${gpu.adapterName}${gpu.isSoftware ? ' — a software (CPU) adapter' : ''}:`);
  } else {
    const t1 = performance.now();
    const kernel = compileKernelJs(specialized, fn);
    codegenMs = performance.now() - t1;
    const t3 = performance.now();
    result = kernel.run(args).result;
    runMs = performance.now() - t3;
    console.log(
      why
        ? `\n   No WebGPU: ${why}.\n   Ran on the JS back end instead:`
        : '\n   On the JS back end (--backend js):',
    );
  }
  console.log(
    `   ${size}x${size} image: code generation ${ms(codegenMs)}, ${backend === 'webgpu' ? `pipeline creation ${ms(prepareMs)}, ` : ''}first run ${ms(runMs)}`,
  );

  // the reference: the evaluator on the original kernel; and the JS back end on the specialized one
  const ref = evaluate(program, fn, args).result;
  const js = compileKernelJs(specialized, fn).run(args).result;
  const dRef = maxAbsDiff(result, ref);
  const dJs = maxAbsDiff(result, js);
  if (!(dRef <= TOLERANCE && dJs <= TOLERANCE))
    fail(
      `the ${backend} result differs: max |difference| ${dRef} from the reference evaluator, ${dJs} from the JS back end`,
    );
  console.log(
    `   the image equals the reference evaluator's on the original kernel (max |difference| ${dRef}) and the JS back end's (${dJs})\n`,
  );
  const before = ascii(img, size, size);
  const after = ascii(result as number[], size, size);
  console.log(`     ${'input'.padEnd(50)}output`);
  before.forEach((l, i) => {
    console.log(`     ${l}  ${after[i]}`);
  });

  // ---- 3. timings -----------------------------------------------------------------------------------

  const rounds = 15;
  console.log(
    `\n3. Timings, side by side in this process: 300 ms warm-up each, then ${rounds} rounds of ~20 ms batches of each, alternating; medians`,
  );
  const admitInput = [stub.FUN, listFromArray(stub.formalsOf(values))];
  const timeBar = bar('   timing [{bar}] {value}/{total} rounds', rounds);
  const t = alternate(
    {
      staged: () => stub.specialize(values),
      unstaged: () => runPipeline(program, fn, passes, values),
      admit: () => admit(admitInput),
    },
    rounds,
    20,
    (r) => timeBar.update(r + 1),
  );
  timeBar.stop();
  const ratio = t.unstaged / t.staged;
  console.log(
    `   unstaged pipeline (runPipeline):    ${t.unstaged.toFixed(1).padStart(7)} µs per specialization`,
  );
  console.log(
    `   staged pipeline (stub.specialize):  ${t.staged.toFixed(1).padStart(7)} µs per specialization, of which ${t.admit.toFixed(1)} µs check the input against the build-time description`,
  );
  console.log(`   → the staged pipeline is ${ratio.toFixed(1)}× ${ratio >= 1 ? 'faster' : 'slower'}`);
  const readyMs = specializeMs + codegenMs + prepareMs;
  console.log(
    `   values known → kernel ready in this run: ${ms(readyMs)} = staged pipeline ${ms(specializeMs)} (its first call)` +
      ` + codegen ${ms(codegenMs)}${backend === 'webgpu' ? ` + pipeline creation ${ms(prepareMs)}` : ''}`,
  );
  console.log(
    `   ${backend === 'webgpu' ? 'pipeline creation dominates; ' : ''}npm run bench:latency compares this latency with generic kernels (uniform buffer, override constants)`,
  );

  // ---- 4. tiers -------------------------------------------------------------------------------------

  console.log(
    '\n4. Tiers (src/target/tiers.ts): a new set of coefficients arrives; the generic kernel answers at once, the specialized one takes over when ready',
  );
  const tiers = await tieredKernels(stub, { backend: gpu ?? 'js' });
  const fresh = coef.map((c) => Math.fround(c * (1 + 1 / 1024)));
  const freshValues = coefValues(fresh);
  const imageArgs = { img, w: size, h: size };
  const tA = performance.now();
  const handle = tiers.forValues(freshValues);
  const firstTier = handle.tier;
  const first = (await handle.run(imageArgs)).result;
  const firstMs = performance.now() - tA;
  await handle.ready;
  const readyAfterMs = performance.now() - tA;
  if (handle.failure !== undefined) fail(`the specialized tier could not be made: ${handle.failure}`);
  const second = (await handle.run(imageArgs)).result;
  const freshRef = evaluate(program, fn, convArgs(img, size, size, fresh)).result;
  const dTiers = Math.max(maxAbsDiff(first, freshRef), maxAbsDiff(second, freshRef));
  if (!(dTiers <= TOLERANCE)) fail(`a tier's image differs from the reference evaluator's by ${dTiers}`);
  const timeRun = async (f: () => Promise<unknown>) => {
    for (let i = 0; i < 2; i++) await f();
    const times: number[] = [];
    for (let i = 0; i < 7; i++) {
      const t = performance.now();
      await f();
      times.push(performance.now() - t);
    }
    return times.sort((a, b) => a - b)[3] as number;
  };
  const genericMs = await timeRun(() => tiers.generic.run({ ...imageArgs, ...freshValues }));
  const specializedMs = await timeRun(() => handle.run(imageArgs));
  console.log(
    `   first result from the ${firstTier} kernel in ${ms(firstMs)}; the specialized kernel was ready ${ms(readyAfterMs)} after the values, and runs from then on (tier now: ${handle.tier})`,
  );
  console.log(
    `   a run (median of 7): generic ${ms(genericMs)}, specialized ${ms(specializedMs)} → ${(genericMs / specializedMs).toFixed(2)}×; both images equal the reference evaluator's (max |difference| ${dTiers})`,
  );
  // other coefficients of the same shape: the kernel comes from the template compiled for these
  const other = coef.map((c) => Math.fround(c * (1 - 1 / 512)));
  const otherValues = coefValues(other);
  const tO = performance.now();
  const made = await tiers.specializedKernel(otherValues);
  const third = (await made.run({ ...imageArgs, ...otherValues })).result;
  const otherMs = performance.now() - tO;
  const otherRef = evaluate(program, fn, convArgs(img, size, size, other)).result;
  const dOther = maxAbsDiff(third, otherRef);
  if (!(dOther <= TOLERANCE))
    fail(`the template's image differs from the reference evaluator's by ${dOther}`);
  console.log(
    `   other coefficients of the same shape: the specialized kernel from its template (src/target/template.ts), first result in ${ms(otherMs)} with no code generation${backend === 'webgpu' ? ' or pipeline creation' : ''} (max |difference| ${dOther})`,
  );
  console.log(
    '   npm run bench:kernel measures the kernel suite (run times with the data on the device, first results, tiers)',
  );
  console.log(
    `\ndemo: all checks passed in ${((performance.now() - tStart) / 1000).toFixed(1)} s (backend: ${backend}).`,
  );
} finally {
  gpu?.destroy();
}
