/**
 * `scf kernel FILE.c --function F [--bind N=V …] [--passes P1,P2,…] --emit wgsl|js [--run --args JSON]
 * [--backend auto|webgpu|js]`: generates code for kernel function F — the WGSL compute shaders of
 * its combinators (`emitKernelWgsl`) or the JavaScript back end's source (`emitKernelJs`) — and
 * prints it; with `--run`, runs it instead and prints `{"backend": "webgpu"|"js", "result": …}`
 * as one line of JSON (the result as `scf eval` prints it).
 *
 * With `--bind` or `--passes` the function is first optimized exactly as `scf opt` optimizes it
 * (the bindings are constants for the passes; without `--passes`, the default pipeline), and the
 * code is generated for the optimized program; a run then also takes the bound values as
 * arguments, as `scf eval` does.
 *
 * Backends of a run: `--emit js` runs the JS back end; `--emit wgsl` runs on WebGPU, by default
 * (`--backend auto`) falling back to the JS back end with a note on stderr when there is no
 * adapter, with `--backend webgpu` treating a missing adapter as an error.
 *
 * Every failure is one message on `io.err`, never a stack trace: bad flags, an unreadable or
 * malformed file (positioned diagnostics), an unknown function, a function that cannot run on the
 * GPU, arguments that do not fit the function (wrong count, an array for a scalar, mapped arrays
 * of different lengths), a shader the device rejects, no adapter — exit 2, naming the function and
 * the reason; a kernel's run-time error found by the reference evaluator (KernelRuntimeError) —
 * exit 1, as `scf eval`.
 */
import {
  type ArgValue,
  emptyRecord,
  type Fun,
  findFun,
  KernelArgumentError,
  KernelRuntimeError,
  listToArray,
} from '../kernel/index.js';
import { BindError, defaultPipeline, PassError, PassOutputError } from '../optimizers/index.js';
import {
  emitKernelJs,
  emitKernelWgsl,
  GpuRunError,
  GpuUnsupported,
  NoGpuAdapter,
  runKernel,
  ShaderRejected,
} from '../target/index.js';
import { parseArgsJson, resultJson } from './eval.js';
import {
  type CliIo,
  type CommandArgs,
  type CommandSpec,
  defineCommand,
  EXIT_BAD_INPUT,
  shortLines,
} from './io.js';
import {
  CHECK_FLAG,
  loadKernelFunction,
  MATH_FLAG,
  parsePasses,
  tooDeepTo,
  UsageError,
} from './kernel-input.js';
import { optimizeUnstaged, parseBinds } from './opt.js';

export const KERNEL = {
  name: 'kernel',
  usage: `scf kernel FILE.c [--function F] [--bind NAME=VALUE ...] [--passes P1,P2,...] [--check] [--math exact|finite]
                  --emit wgsl|js [--run [--args JSON] [--backend auto|webgpu|js]]`,
  about: `Generates code for kernel function F of FILE.c and prints it: with --emit wgsl the WGSL compute
shaders of its combinators, with --emit js the JavaScript back end's source. With --run, runs the
function instead and prints {"backend": "webgpu"|"js", "result": ...}.`,
  flags: {
    function: {
      type: 'string',
      short: 'f',
      value: 'F',
      help: "the function (default: the file's only function)",
    },
    emit: { type: 'string', short: 'e', value: 'TARGET', help: 'wgsl or js' },
    bind: {
      type: 'string',
      short: 'b',
      multiple: true,
      value: 'N=V',
      help: `formal N is the constant V (repeatable), as in 'scf opt': an int or float
literal, true/false, or an array [1,2,1]; the function is optimized first
and a run takes V as N's argument`,
    },
    math: MATH_FLAG,
    check: CHECK_FLAG,
    passes: {
      type: 'string',
      short: 'p',
      value: 'LIST',
      help: `optimize first with these passes, as 'scf opt' does
(default with --bind: ${defaultPipeline.map((p) => p.name).join(',')})`,
    },
    run: {
      type: 'boolean',
      short: 'r',
      help: 'run the function: on WebGPU for --emit wgsl, on the JS back end for --emit js',
    },
    args: {
      type: 'string',
      short: 'a',
      value: 'JSON',
      help: `the run's arguments, as in 'scf eval': an object by parameter name, e.g.
{"x":1,"a":[1,2,3]}, or an array in parameter order`,
    },
    backend: {
      type: 'string',
      value: 'B',
      help: `for --emit wgsl --run: auto (default: WebGPU when an adapter exists, else
the JS back end, with a note), webgpu (no adapter is an error) or js`,
    },
  },
  notes: 'Floats may be given as "NaN", "Infinity" or "-Infinity".',
} satisfies CommandSpec;

export const kernelCommand = defineCommand(KERNEL, run, [
  { type: BindError },
  { type: PassError },
  { type: PassOutputError, status: 1 },
]);

async function run({ values, positionals }: CommandArgs<typeof KERNEL.flags>, io: CliIo): Promise<number> {
  if (positionals.length !== 1) throw new UsageError('expected exactly one FILE.c', true);
  const file = positionals[0] as string;
  const emit = values.emit;
  if (emit === undefined) throw new UsageError('--emit wgsl|js is required', true);
  if (emit !== 'wgsl' && emit !== 'js')
    throw new UsageError(`--emit must be wgsl or js, got '${emit}'`, true);
  const backend = values.backend;
  if (backend !== undefined && backend !== 'auto' && backend !== 'webgpu' && backend !== 'js')
    throw new UsageError(`--backend must be auto, webgpu or js, got '${backend}'`, true);
  if (!values.run && (values.args !== undefined || backend !== undefined))
    throw new UsageError(`${values.args !== undefined ? '--args' : '--backend'} needs --run`, true);
  if (emit === 'js' && backend !== undefined && backend !== 'js')
    throw new UsageError(`--emit js runs on the JS back end; --backend ${backend} needs --emit wgsl`, true);

  const optimize = values.passes !== undefined || values.bind !== undefined || values.math !== undefined;
  const passes = parsePasses(values.passes, values.math);
  const binds = parseBinds(values.bind);
  const input = await loadKernelFunction(file, values.function, io);
  if (input === null) return EXIT_BAD_INPUT;
  const { fnName } = input;
  let program = input.program;
  if (optimize) {
    const optimized = optimizeUnstaged(input, passes, binds, 'scf kernel', io, values.check);
    if (optimized === null) return EXIT_BAD_INPUT;
    program = optimized.program;
  }
  const fun = findFun(program, fnName) as Fun;
  // The back ends compile the function and its callees, walking each recursively.
  for (const g of listToArray(program)) if (tooDeepTo('compile', input, io, g)) return EXIT_BAD_INPUT;

  try {
    if (!values.run) {
      const code = emit === 'wgsl' ? emitKernelWgsl(program, fnName) : emitKernelJs(program, fnName);
      io.out(code.replace(/\n+$/, ''));
      return 0;
    }
    const args =
      values.args === undefined
        ? emptyRecord<ArgValue>()
        : parseArgsJson(values.args, fnName, listToArray(fun.params));
    // As in `scf eval`, a bound formal's argument is its bound value.
    for (const [name, v] of Object.entries(binds)) args[name] = v;
    const r = await runKernel(program, fnName, args, {
      backend: emit === 'js' ? 'js' : (backend ?? 'auto'),
      wgsl: {},
      // run-time errors positioned as scf eval positions them (the optimizers keep labels)
      js: { spans: input.spans, source: input.source },
    });
    if (r.note !== undefined) io.err(shortLines(`scf kernel: note: ${r.note}`));
    io.out(JSON.stringify({ backend: r.backend, result: resultJson(r.result, fun) }));
    return 0;
  } catch (e) {
    // These name the function themselves (NoGpuAdapter: --backend webgpu and no adapter; its
    // message says what to install).
    if (
      e instanceof GpuUnsupported ||
      e instanceof GpuRunError ||
      e instanceof ShaderRejected ||
      e instanceof NoGpuAdapter
    ) {
      io.err(shortLines(`scf kernel: ${e.message}`));
      return EXIT_BAD_INPUT;
    }
    if (e instanceof UsageError || e instanceof KernelArgumentError || isJsInputCheck(e)) {
      io.err(shortLines(`scf kernel: ${naming(fnName, (e as Error).message)}`));
      return EXIT_BAD_INPUT;
    }
    if (e instanceof KernelRuntimeError) {
      io.err(shortLines(e.message));
      return 1;
    }
    throw e;
  }
}

/**
 * `message`, prefixed with `function 'F': ` unless it names the function already, as the
 * argument checks' messages do (`'F' takes 2 argument(s), …`, `… of 'F'`).
 */
function naming(fnName: string, message: string): string {
  const q = `'${fnName}'`;
  return message.startsWith(`${q} `) || message.endsWith(` of ${q}`) ? message : `function ${q}: ${message}`;
}

/**
 * The checks the JS back end's code makes before a combinator's loop — mapped arrays of one
 * length, iotas of non-negative lengths, fused members of one length (src/target/js.ts) — throw
 * plain Errors; they are the input's fault, not scf's.
 */
function isJsInputCheck(e: unknown): e is Error {
  return (
    e instanceof Error &&
    e.constructor === Error &&
    /lengths differ|of a negative length|^fused loop: /.test(e.message)
  );
}
