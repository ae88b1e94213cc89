/**
 * `npm run demo [-- --kernel ops|conv] [--math exact|finite] [--coef …] [--size N] [--backend auto|js]`:
 * staged compilation of an image kernel, end to end. It opens on the per-pixel op-code program
 * (configs/kernel/03-ops.json), where the late values shape the kernel's control: specialized for
 * a program, the kernel keeps no loop over the ops, no load of an op code and no test of one, and
 * runs several times faster than the generic kernel. `--kernel conv` runs the 3×3 convolution
 * (configs/kernel/01-conv.json) instead, which gains little under exact math (a zero tap stays:
 * 0 × x is NaN for x NaN or infinite) and drops its zero taps under `--math finite`.
 *
 * 1. Build time: stages the config in memory — the optimizer pipeline const-prop → copy-prop →
 *    dae → fusion, specialized to the config's description of the late formals, values unknown
 *    now — and prints what each stage knows (I1, I2).
 * 2. Run time: the late values arrive (the config's sample; for the convolution `--coef`). The
 *    staged pipeline (the stub's `specialize`) optimizes the kernel for them. The demo checks it
 *    equals the unstaged pipeline's output, prints the specialized C and its WGSL, runs it on
 *    WebGPU (the JS back end when there is no adapter, saying why) and checks the image against
 *    the reference evaluator running the original, unoptimized kernel.
 * 3. Timings, side by side in this process after warm-up: the staged against the unstaged
 *    pipeline, and values-known → kernel-ready for this run. `npm run bench:latency` measures more.
 * 4. Tiers: for new values, a tiered handle answers first with the generic kernel, then switches
 *    to the specialized one when it is ready; the run time of each, generic against specialized.
 *
 * Exit status 1 when a check fails (outputs differ, the staged pipeline did not admit the values,
 * a GPU error), 2 on bad arguments.
 */
import { parseArgs } from 'node:util';
import cliProgress from 'cli-progress';
import path from 'node:path';
import {
  CONV_CONFIG,
  coefValues,
  configPasses,
  importStaged,
  maxAbsDiff,
  sameFun,
  testImage,
} from '../src/bench/kernel-latency.js';
import { alternate } from '../src/bench/timing.js';
import {
  type ArgValue,
  evaluate,
  listFromArray,
  listToArray,
  printOptimized,
  programWith,
} from '../src/kernel/index.js';
import { runPipeline } from '../src/optimizers/index.js';
import { describeStages, loadConfig, stageConfig } from '../src/pipeline/index.js';
import { compileKernelJs, GpuRuntime, planKernelWgsl, tieredKernels } from '../src/target/index.js';

const PRESETS: Record<string, readonly number[]> = {
  sharpen: [0, -1, 0, -1, 5, -1, 0, -1, 0],
  blur: [1 / 16, 2 / 16, 1 / 16, 2 / 16, 4 / 16, 2 / 16, 1 / 16, 2 / 16, 1 / 16],
  edge: [-1, -1, -1, -1, 8, -1, -1, -1, -1],
  emboss: [-2, -1, 0, -1, 1, 1, 0, 1, 2],
};

/** The kernels the demo runs, the first by default. */
const KERNELS = {
  ops: {
    config: path.resolve(import.meta.dirname, '../configs/kernel/03-ops.json'),
    title: 'a per-pixel program of op codes',
  },
  conv: { config: CONV_CONFIG, title: 'a 3x3 convolution + clamp' },
} as const;
type KernelId = keyof typeof KERNELS;

const HELP = `Usage: npm run demo [-- --kernel ops|conv] [--math exact|finite] [--coef NAME|c0,...,c8] [--size N] [--backend auto|js]

  --kernel   ops (default): a per-pixel program of op codes, the program late (configs/kernel/03-ops.json);
             conv: a 3x3 convolution + clamp, its nine coefficients late (configs/kernel/01-conv.json)
  --math     exact or finite (default: the config's, exact): under finite math constant propagation
             folds x*0 to 0, so the convolution's zero taps leave its kernel
  --coef     conv's 3x3 coefficients known at run time: ${Object.keys(PRESETS).join(', ')} (default sharpen),
             or nine numbers, row-major
  --size N   the image is N x N (default 512 for ops, the config's 262,144 pixels; 128 for conv)
  --backend  auto (default: WebGPU when there is an adapter, else the JS back end) or js`;

/** Why the convolution gains little under exact math, said where it runs and where it does not. */
const CONV_EXACT = [
  'A 3x3 convolution has no loop or branch for its taps to remove, and under exact math (the default) a zero',
  'tap stays: 0 * x is not 0 when x is NaN or infinite (IEEE 754 makes it NaN), so the product may not be dropped',
  'and the specialized kernel gains little. Under finite math ("math": "finite", --math finite) constant',
  'propagation folds 0 * x to 0, and the zero taps, with their loads, leave the kernel.',
]
  .map((l) => `   ${l}`)
  .join('\n');

/** The op codes of ops.c, as the demo prints a program. */
const OPS: Record<number, (p: string) => string> = {
  0: (p) => `x = x + ${p}`,
  1: (p) => `x = x * ${p}`,
  2: (p) => `x = max(x, ${p})`,
  3: (p) => `x = min(x, ${p})`,
  4: (p) => `x = x * x * ${p}`,
};

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
  const kernel = (v.kernel ?? 'ops') as KernelId;
  if (!Object.hasOwn(KERNELS, kernel))
    fail(`--kernel: expected ${Object.keys(KERNELS).join(' or ')}, got '${v.kernel}'`, 2);
  const math = v.math;
  if (math !== undefined && math !== 'exact' && math !== 'finite')
    fail(`--math: expected exact or finite, got '${math}'`, 2);
  const mode: 'exact' | 'finite' | undefined = math;
  if (v.coef !== undefined && kernel !== 'conv')
    fail("--coef: the coefficients are the convolution's (--kernel conv)", 2);
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
  const size = Number(v.size ?? (kernel === 'ops' ? 512 : 128));
  if (!Number.isInteger(size) || size < 3 || size > 2048)
    fail(`--size: expected an integer in 3..2048, got '${v.size}'`, 2);
  const backend = v.backend ?? 'auto';
  if (backend !== 'auto' && backend !== 'js') fail(`--backend: expected auto or js, got '${backend}'`, 2);
  return { kernel, math: mode, coef, coefName: preset ? text : 'custom', size, backend };
}

function parse() {
  return parseArgs({
    args: process.argv.slice(2),
    strict: true,
    options: {
      kernel: { type: 'string' },
      math: { type: 'string' },
      coef: { type: 'string' },
      size: { type: 'string' },
      backend: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}

/**
 * `late` with its float values (scalars and array elements, by the formal's type) scaled by
 * `by`, ints kept: new values of the same shape, so the template compiled for `late` serves them.
 */
function scaleFloats(late: Record<string, ArgValue>, by: number): Record<string, ArgValue> {
  const ty = new Map(formals.map((f) => [f.name, f.ty]));
  const scale = (v: ArgValue): ArgValue =>
    typeof v === 'number' ? Math.fround(v * by) : Array.isArray(v) ? v.map((x) => Math.fround(x * by)) : v;
  return Object.fromEntries(Object.entries(late).map(([n, v]) => [n, ty.get(n) === 'float' ? scale(v) : v]));
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
const chosen = KERNELS[opts.kernel];
const loaded = loadConfig(chosen.config);
const config = opts.math === undefined ? loaded : { ...loaded, math: opts.math };
const math = config.math ?? 'exact';
const fn = config.function;
console.log(
  `scf demo: staged compilation of ${chosen.title} (SCF, POPL 2002 → WGSL → WebGPU), ${math} math\n`,
);
if (opts.kernel === 'ops')
  console.log(
    '   The program of op codes is late: specialized for it, the kernel keeps no loop over the ops, no load of an op\n' +
      '   code and no test of one, so it runs several times faster than the generic kernel (4. below).\n' +
      `   The 3x3 convolution (--kernel conv) gains little by comparison.\n${CONV_EXACT}\n`,
  );
else if (math === 'exact') console.log(`${CONV_EXACT}\n`);
else
  console.log(
    '   Under finite math constant propagation folds 0 * x to 0: the zero taps, with their loads, leave the kernel.\n',
  );

// ---- 1. build time ----------------------------------------------------------------------------------

const lateFormals = Object.entries(config.bind)
  .map(([n, d]) => `${n} = ${d.text}`)
  .join(', ');
console.log(`1. Build time: stage ${config.pipeline.join(' → ')} for ${fn}, ${lateFormals} (unknown now)`);
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
  `\n   I1, what is known of the kernel (the host function; the functions it applies are fixed):\n${indent(blocks[0] ?? '', '     ')}`,
);
console.log(
  `\n   I2, what const-prop's output is known to be (the late values become some constants):\n${indent(blocks[1] ?? '', '     ')}`,
);
const { stub, admit, dir, dispose } = await importStaged(staged);
process.on('exit', dispose);
console.log(
  `\n   staged in ${(stagingMs / 1000).toFixed(1)} s; staged optimizers and stub written to ${dir} and imported`,
);

// ---- 2. run time ------------------------------------------------------------------------------------

const { coef, size } = opts;
const program = staged.program;
/** The kernel's formals and their scalar types (the element type of an array). */
const formals = listToArray(staged.fun.params).map((p) => ({ name: p.name, ty: p.ty }));
const values: Record<string, ArgValue> =
  opts.kernel === 'conv' ? coefValues(coef) : { ...(config.sample as Record<string, ArgValue>) };
/** The kernel's arguments: the image, its size where the kernel takes one, and the late values. */
const argsFor = (img: readonly number[], late: Record<string, ArgValue>): Record<string, ArgValue> =>
  opts.kernel === 'conv' ? { img, w: size, h: size, ...late } : { img, ...late };
if (opts.kernel === 'conv') {
  const grid = [0, 3, 6].map((i) =>
    coef
      .slice(i, i + 3)
      .map((c) => String(+c.toPrecision(4)).padStart(7))
      .join(''),
  );
  console.log(
    `\n2. Run time: the coefficients are known (${opts.coefName}):\n${grid.map((g) => `     [${g} ]`).join('\n')}`,
  );
} else {
  const ops = values.ops as number[];
  const ps = values.ps as number[];
  const steps = ops
    .slice(0, values.nops as number)
    .map((op, i) => `     ${i + 1}. ${(OPS[op] ?? OPS[4] ?? String)(String(ps[i]))}`);
  console.log(
    `\n2. Run time: the program is known (the config's sample), for each pixel x:\n${steps.join('\n')}`,
  );
}
const warnings: string[] = [];
const t0 = performance.now();
const spec = stub.specialize(values, (m) => warnings.push(m));
const specializeMs = performance.now() - t0;
if (!spec.staged) fail(`the staged pipeline did not admit the coefficients: ${warnings.join('; ')}`);
const passes = configPasses(config);
const unstagedFun = runPipeline(program, fn, passes, values).fun;
if (!sameFun(spec.fun, unstagedFun))
  fail('the staged pipeline returned a different function from the unstaged pipeline');
console.log(
  `   staged pipeline: ${ms(specializeMs)} (first call); its output equals the unstaged pipeline's. The specialized kernel:\n`,
);
const specialized = programWith(program, spec.fun);
console.log(indent(printOptimized(spec.fun, program)));

const img = testImage(size, size);
const args = argsFor(img, values);
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
    '\n4. Tiers (src/target/tiers.ts): new late values arrive; the generic kernel answers at once, the specialized one takes over when ready',
  );
  const tiers = await tieredKernels(stub, { backend: gpu ?? 'js' });
  const freshValues = scaleFloats(values, 1 + 1 / 1024);
  const imageArgs = argsFor(img, {});
  const tA = performance.now();
  const handle = tiers.forValues(freshValues);
  const firstTier = handle.tier;
  const first = (await handle.run(imageArgs)).result;
  const firstMs = performance.now() - tA;
  await handle.ready;
  const readyAfterMs = performance.now() - tA;
  if (handle.failure !== undefined) fail(`the specialized tier could not be made: ${handle.failure}`);
  const second = (await handle.run(imageArgs)).result;
  const freshRef = evaluate(program, fn, argsFor(img, freshValues)).result;
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
  // the kernel alone, as scf bench --kernel's runMs times it on the JS back end: arguments converted once
  const genericJs = compileKernelJs(programWith(program, runPipeline(program, fn, passes, {}).fun), fn);
  const specializedJs = compileKernelJs(specialized, fn);
  const alone = alternate({ generic: genericJs.bind(args), specialized: specializedJs.bind(args) }, 15, 50);
  console.log(
    `   the kernel alone (JS back end, its arguments converted once; medians of 15 rounds): generic ${ms(alone.generic / 1000)}, specialized ${ms(alone.specialized / 1000)} → ${(alone.generic / alone.specialized).toFixed(1)}×`,
  );
  if (opts.kernel === 'conv' && math === 'exact')
    console.log('   (the zero taps stay under exact math: --math finite drops them)');
  // other coefficients of the same shape: the kernel comes from the template compiled for these
  const otherValues = scaleFloats(values, 1 - 1 / 512);
  const tO = performance.now();
  const made = await tiers.specializedKernel(otherValues);
  const third = (await made.run({ ...imageArgs, ...otherValues })).result;
  const otherMs = performance.now() - tO;
  const otherRef = evaluate(program, fn, argsFor(img, otherValues)).result;
  const dOther = maxAbsDiff(third, otherRef);
  if (!(dOther <= TOLERANCE))
    fail(`the template's image differs from the reference evaluator's by ${dOther}`);
  console.log(
    `   other values of the same shape: the specialized kernel from its template (src/target/template.ts), first result in ${ms(otherMs)} with no code generation${backend === 'webgpu' ? ' or pipeline creation' : ''} (max |difference| ${dOther})`,
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
