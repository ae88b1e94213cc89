/**
 * `scf eval FILE.c --function F --args JSON [--bind v=c ...] [--fuel N]`: runs a kernel function on
 * the reference evaluator and prints `{"result": ..., "outputs": {...}}` as one line of JSON.
 *
 * `argv` is what follows `eval` on the command line. Every failure (unreadable file, parse errors,
 * bad JSON or arguments, runtime errors) is reported on `io.err` as `FILE:LINE:COL: error: ...` or a
 * one-line `scf eval: ...` message, with exit code 1; never a stack trace. NaN and infinities, which
 * JSON cannot express, are written (and may be given) as the strings "NaN", "Infinity", "-Infinity".
 */
import {
  type ArgValue,
  emptyRecord,
  evaluate,
  type Fun,
  KernelArgumentError,
  KernelRuntimeError,
  listToArray,
  type Param,
} from '../kernel/index.js';
import { BindError, type BindValue, PassError, PassOutputError, runPipeline } from '../optimizers/index.js';
import {
  type CliIo as CommandIO,
  type CommandArgs,
  type CommandSpec,
  defineCommand,
  EXIT_BAD_INPUT,
} from './io.js';
import {
  CHECK_FLAG,
  loadKernelFunction,
  parsePasses,
  sourcePlace,
  tooDeepTo,
  UsageError,
} from './kernel-input.js';
import { clip } from '../common/index.js';

export const EVAL = {
  name: 'eval',
  usage:
    'scf eval FILE.c [--function F] [--args JSON] [--bind NAME=VALUE ...] [--passes LIST] [--check] [--fuel N]',
  about: `Runs kernel function F of FILE.c on the reference evaluator (C semantics: wrapping int,
binary32 float) and prints {"result": ..., "outputs": {ARRAY_PARAM: [...], ...}}.`,
  flags: {
    function: {
      type: 'string',
      short: 'f',
      value: 'F',
      help: "the function to run (default: the file's only function)",
    },
    args: {
      type: 'string',
      short: 'a',
      value: 'JSON',
      help: `arguments: an object by parameter name, e.g. {"x":1,"a":[1,2,3]},
or an array in parameter order`,
    },
    bind: {
      type: 'string',
      short: 'b',
      multiple: true,
      value: 'N=V',
      help: 'one argument (repeatable); V is a number, true, false or an array',
    },
    check: CHECK_FLAG,
    passes: {
      type: 'string',
      short: 'p',
      value: 'LIST',
      help: `optimize first with these passes (e.g. const-prop,copy-prop,dae),
treating the --bind values as constants, then run the result`,
    },
    fuel: { type: 'string', value: 'N', help: 'step budget (default 100000000)' },
  },
  notes: `Floats may be given as "NaN", "Infinity" or "-Infinity". Outputs list the non-const
array parameters after the call.`,
} satisfies CommandSpec;

export const evalCommand = defineCommand(EVAL, run, [
  { type: KernelArgumentError },
  { type: BindError },
  // a user's pass that failed as it ran (out of fuel or stack, a result that is no Fun)
  { type: PassError },
  { type: PassOutputError, status: 1 },
  // the kernel failed at run time (its own diagnostic, file:line:col): exit 1
  { type: KernelRuntimeError, status: 1, asIs: true },
]);

async function run({ values, positionals }: CommandArgs<typeof EVAL.flags>, io: CommandIO): Promise<number> {
  if (positionals.length !== 1) throw new UsageError('expected exactly one FILE.c (see --help)');
  const file = positionals[0] as string;
  const input = await loadKernelFunction(file, values.function, io);
  if (input === null) return EXIT_BAD_INPUT;
  const { program, fnName, fun } = input;
  const params = listToArray(fun.params);

  const args =
    values.args === undefined ? emptyRecord<ArgValue>() : parseArgsJson(values.args, fnName, params);
  const bindValues = emptyRecord<BindValue>();
  for (const b of values.bind ?? []) {
    const eq = b.indexOf('=');
    if (eq <= 0) throw new UsageError(`--bind expects NAME=VALUE, got '${clip(b)}'`);
    const name = b.slice(0, eq).trim();
    const text = b.slice(eq + 1).trim();
    let v: unknown;
    try {
      v = JSON.parse(text);
    } catch {
      v = text;
    }
    args[name] = argValue(v, name);
    if (typeof v === 'number' || typeof v === 'boolean' || Array.isArray(v))
      bindValues[name] = v as BindValue;
  }
  let fuel: number | undefined;
  if (values.fuel !== undefined) {
    fuel = Number(values.fuel);
    if (!Number.isInteger(fuel) || fuel <= 0)
      throw new UsageError(`--fuel must be a positive integer, got '${values.fuel}'`);
  }
  let runProgram = program;
  if (values.passes !== undefined) {
    // Optimize first, with the --bind values as the constants const-prop may assume.
    const passes = parsePasses(values.passes);
    if (tooDeepTo('optimize', input, io)) return EXIT_BAD_INPUT;
    runProgram = runPipeline(program, fnName, passes, bindValues, {
      check: values.check ? 'all' : 'user',
      at: sourcePlace(input),
    }).program;
  }
  const r = evaluate(runProgram, fnName, args, { fuel, spans: input.spans, source: input.source });
  const outputs = emptyRecord<unknown>();
  for (const p of params) {
    const arr = Object.hasOwn(r.outputs, p.name) ? r.outputs[p.name] : undefined;
    if (arr) outputs[p.name] = arr.map((x) => jsonValue(x, p.ty));
  }
  io.out(JSON.stringify({ result: resultJson(r.result, fun), outputs }));
  return 0;
}

/**
 * The `--args` JSON: an object by parameter name, or an array in parameter order (checked against
 * `params`' count); "NaN", "Infinity", "-Infinity" stand for those floats. Malformed: a UsageError.
 * The result has no prototype, so every parameter name is a key like any other (JSON.parse makes
 * `"__proto__"` an own key, and `Object.entries` keeps it).
 */
export function parseArgsJson(
  text: string,
  fnName: string,
  params: readonly Param[],
): Record<string, ArgValue> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new UsageError(`--args is not valid JSON: ${e instanceof Error ? e.message : String(e)}`);
  }
  const args = emptyRecord<ArgValue>();
  if (Array.isArray(json)) {
    if (json.length !== params.length) {
      throw new UsageError(`'${fnName}' takes ${params.length} argument(s), --args gives ${json.length}`);
    }
    params.forEach((p, i) => {
      args[p.name] = argValue(json[i], p.name);
    });
  } else if (typeof json === 'object' && json !== null) {
    for (const [k, v] of Object.entries(json)) args[k] = argValue(v, k);
  } else {
    throw new UsageError('--args must be a JSON object (by parameter name) or array (in parameter order)');
  }
  return args;
}

/** A function's result as the JSON `scf eval` prints: null for void, bools as booleans, NaN as "NaN". */
export function resultJson(result: number | readonly number[] | undefined, fun: Fun): unknown {
  if (result === undefined) return null;
  if (Array.isArray(result)) return result.map((x) => jsonValue(x, fun.ret.slice(0, -2)));
  return jsonValue(result as number, fun.ret);
}

const SPECIAL: ReadonlyMap<string, number> = new Map([
  ['NaN', Number.NaN],
  ['nan', Number.NaN],
  ['Infinity', Number.POSITIVE_INFINITY],
  ['inf', Number.POSITIVE_INFINITY],
  ['-Infinity', Number.NEGATIVE_INFINITY],
  ['-inf', Number.NEGATIVE_INFINITY],
]);

function scalarValue(v: unknown, what: string): number | boolean {
  if (typeof v === 'number' || typeof v === 'boolean') return v;
  const special = typeof v === 'string' ? SPECIAL.get(v) : undefined;
  if (special !== undefined) return special;
  throw new UsageError(`argument '${what}' must be a number or boolean, got ${shortJson(v)}`);
}

/** A value for a message: JSON if short and shallow, else what kind of value it is. */
function shortJson(v: unknown): string {
  if (Array.isArray(v)) return `an array of ${v.length}`;
  if (typeof v === 'object' && v !== null) return 'an object';
  const text = JSON.stringify(v) ?? String(v);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function argValue(v: unknown, what: string): ArgValue {
  if (Array.isArray(v)) return v.map((x, i) => scalarValue(x, `${what}[${i}]`));
  return scalarValue(v, what);
}

function jsonValue(x: number, ty: string): number | boolean | string {
  if (ty === 'bool') return x !== 0;
  if (Number.isNaN(x)) return 'NaN';
  if (!Number.isFinite(x)) return x > 0 ? 'Infinity' : '-Infinity';
  return x;
}
