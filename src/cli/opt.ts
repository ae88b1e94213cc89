/**
 * `scf opt FILE.c --function F [--bind v=c …] [--passes const-prop,copy-prop,dae]`: runs the
 * unstaged optimizer pipeline over one kernel function and prints the optimized function as C.
 *
 * A binding gives a formal a constant: an int or float literal (`a=3`, `s=0.5`, `s=1.5f`), `true` /
 * `false`, or an array (`k=[1,2,1]`) for an array formal. Every failure (unreadable file, parse
 * errors, unknown function or pass, bad binding) is one line on `io.err` — `FILE:LINE:COL: error: …`
 * where the position is known, else `scf opt: …` — with exit code 2; never a stack trace.
 */
import { parseArgs } from 'node:util';
import { type Fun, printFun } from '../kernel/index.js';
import { allPasses, BindError, type BindValue, defaultPipeline, runPipeline } from '../optimizers/index.js';

const HELP = `Usage: scf opt FILE.c [--function F] [--bind NAME=VALUE ...] [--passes P1,P2,...]

Optimizes kernel function F of FILE.c with the unstaged pipeline and prints it as C.

Options:
  -f, --function F     the function to optimize (default: the file's only function)
  -b, --bind N=V       formal N is the constant V (repeatable): an int or float literal
                       (3, -2, 0.5, 1.5f), true/false, or an array [1,2,1] for an array formal
  -p, --passes LIST    comma-separated passes, in order (default: ${defaultPipeline.map((p) => p.name).join(',')})
  -h, --help           show this help

Passes:
${allPasses.map((p) => `  ${p.name.padEnd(11)} ${p.description}`).join('\n')}`;

import { EXIT_BAD_INPUT, EXIT_INTERNAL } from './io.js';
import { loadKernelFunction, parsePasses, UsageError } from './kernel-input.js';

export async function optCommand(
  argv: string[],
  io: { out: (s: string) => void; err: (s: string) => void },
): Promise<number> {
  try {
    return await run(argv, io);
  } catch (e) {
    if (e instanceof UsageError || e instanceof BindError) {
      io.err(`scf opt: ${e.message}`);
      return EXIT_BAD_INPUT;
    }
    io.err(`scf opt: internal error: ${e instanceof Error ? e.message : String(e)}`);
    return EXIT_INTERNAL;
  }
}

async function run(
  argv: string[],
  io: { out: (s: string) => void; err: (s: string) => void },
): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (e) {
    throw new UsageError(`${e instanceof Error ? e.message : String(e)} (see --help)`);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.out(HELP);
    return 0;
  }
  if (positionals.length !== 1) throw new UsageError('expected exactly one FILE.c (see --help)');
  const file = positionals[0] as string;
  const passes = parsePasses(values.passes);
  const binds: Record<string, BindValue> = {};
  for (const b of values.bind ?? []) {
    const [name, value] = parseBind(b);
    if (name in binds) throw new UsageError(`'${name}' is bound twice`);
    binds[name] = value;
  }
  const input = await loadKernelFunction(file, values.function, io);
  if (input === null) return EXIT_BAD_INPUT;
  const { program, fnName, fun } = input;
  let optimized: Fun;
  try {
    optimized = runPipeline(program, fnName, passes, binds).fun;
  } catch (e) {
    if (!(e instanceof BindError)) throw e;
    // Bindings are checked against the function's formals: point at the function.
    const span = input.spans.get(fun.lbl);
    io.err(span ? `${file}:${span.line}:${span.col}: error: ${e.message}` : `scf opt: ${e.message}`);
    return EXIT_BAD_INPUT;
  }
  io.out(printFun(optimized));
  return 0;
}

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      function: { type: 'string', short: 'f' },
      bind: { type: 'string', short: 'b', multiple: true },
      passes: { type: 'string', short: 'p' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}

const NUMBER = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?[fF]?$/;

function parseScalar(text: string, what: string): number | boolean {
  const t = text.trim();
  if (t === 'true') return true;
  if (t === 'false') return false;
  if (!NUMBER.test(t)) throw new UsageError(`--bind ${what}: '${t}' is not an int or float literal`);
  return Number(t.replace(/[fF]$/, ''));
}

/** `name=value` => [name, value]; value a scalar literal or `[v, …]`. */
export function parseBind(b: string): [string, BindValue] {
  const eq = b.indexOf('=');
  if (eq <= 0) throw new UsageError(`--bind expects NAME=VALUE, got '${b}'`);
  const name = b.slice(0, eq).trim();
  if (!/^[A-Za-z_]\w*$/.test(name)) throw new UsageError(`--bind: '${name}' is not a parameter name`);
  const text = b.slice(eq + 1).trim();
  if (text.startsWith('[')) {
    if (!text.endsWith(']')) throw new UsageError(`--bind ${name}: array '${text}' lacks its closing ']'`);
    const inner = text.slice(1, -1).trim();
    if (inner === '') return [name, []];
    return [name, inner.split(',').map((s, i) => parseScalar(s, `${name}[${i}]`))];
  }
  return [name, parseScalar(text, name)];
}
