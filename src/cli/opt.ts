/**
 * `scf opt FILE.c --function F [--bind v=c …] [--passes const-prop,copy-prop,dae]`: runs the
 * unstaged optimizer pipeline over one kernel function and prints the optimized function as C.
 *
 * A binding gives a formal a constant: an int or float literal (`a=3`, `s=0.5`, `s=1.5f`), `true` /
 * `false`, or an array (`k=[1,2,1]`) for an array formal. Every failure (unreadable file, parse
 * errors, unknown function or pass, bad binding) is one line on `io.err` — `FILE:LINE:COL: error: …`
 * where the position is known, else `scf opt: …` — with exit code 2; never a stack trace. So is
 * a user's pass that fails as it runs (a `PassError` from user.ts: out of fuel, out of stack, a
 * result that is no `Fun`): `scf opt: pass 'FILE' …`, exit 2, like a pass that cannot be loaded.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { importStub, type LoadedStub } from '../pipeline/index.js';
import { emptyRecord, kernelPlace, printOptimized } from '../kernel/index.js';
import {
  allPasses,
  BindError,
  type BindValue,
  DEFAULT_PASS_FUEL,
  defaultPipeline,
  type Pass,
  PassError,
  PassOutputError,
  type PipelineResult,
  runPipeline,
  specializationNotes,
} from '../optimizers/index.js';
import { equal } from '../scf-lang/prelude.js';

export const OPT = {
  name: 'opt',
  usage:
    'scf opt FILE.c [--function F] [--bind NAME=VALUE ...] [--passes P1,P2,...] [--check] [--math exact|finite] [--staged DIR]',
  about: `Optimizes kernel function F of FILE.c with the unstaged pipeline (or, with --staged, with the
staged pipeline that 'scf stage' wrote into DIR) and prints it as C.`,
  flags: {
    function: {
      type: 'string',
      short: 'f',
      value: 'F',
      help: "the function to optimize (default: the file's only function)",
    },
    bind: {
      type: 'string',
      short: 'b',
      multiple: true,
      value: 'N=V',
      help: `formal N is the constant V (repeatable): an int or float literal
(3, -2, 0.5, 1.5f), true/false, or an array [1,2,1] for an array formal`,
    },
    math: MATH_FLAG,
    check: CHECK_FLAG,
    passes: {
      type: 'string',
      short: 'p',
      value: 'LIST',
      help: `comma-separated passes, in order (default: ${defaultPipeline.map((p) => p.name).join(',')})
an entry may be the path of your own SCF-lang optimizer (./passes/mine.ts)`,
    },
    staged: {
      type: 'string',
      short: 's',
      value: 'DIR',
      help: `run the staged pipeline of DIR/F.stub.mjs (from 'scf stage'); bindings outside
its early description fall back to the unstaged pipeline with a warning`,
    },
  },
  notes: `Passes:
${allPasses.map((p) => `  ${p.name.padEnd(11)} ${p.description}`).join('\n')}

A pass of your own runs with bounds: ${DEFAULT_PASS_FUEL} calls of fuel per run (SCF_PASS_FUEL sets
another budget) and the JavaScript stack. One that runs out of either, or returns no Fun, fails as
'scf opt: pass FILE ...' with exit status 2, as a pass that cannot be loaded does.`,
} satisfies CommandSpec;

import {
  type CliIo,
  type CommandArgs,
  type CommandSpec,
  defineCommand,
  EXIT_BAD_INPUT,
  shortLines,
} from './io.js';
import {
  type KernelInput,
  loadKernelFunction,
  CHECK_FLAG,
  MATH_FLAG,
  parsePasses,
  sourcePlace,
  tooDeepTo,
  UsageError,
} from './kernel-input.js';

export const optCommand = defineCommand(OPT, run, [
  { type: BindError },
  // a user's pass that failed as it ran (the staged pipeline's fallback runs it too)
  { type: PassError },
  // a user's pass (or, with --check, any pass) whose output breaks the kernel AST's invariants
  { type: PassOutputError, status: 1 },
]);

async function run({ values, positionals }: CommandArgs<typeof OPT.flags>, io: CliIo): Promise<number> {
  if (positionals.length !== 1) throw new UsageError('expected exactly one FILE.c (see --help)');
  const file = positionals[0] as string;
  const passes = parsePasses(values.passes, values.math);
  const binds = parseBinds(values.bind);
  const input = await loadKernelFunction(file, values.function, io);
  if (input === null) return EXIT_BAD_INPUT;
  if (values.staged !== undefined) {
    if (tooDeepTo('optimize', input, io)) return EXIT_BAD_INPUT;
    return runStaged(values.staged, input, passes, values.passes !== undefined, binds, io);
  }
  const optimized = optimizeUnstaged(input, passes, binds, 'scf opt', io, values.check);
  if (optimized === null) return EXIT_BAD_INPUT;
  io.out(printOptimized(optimized.fun, input.program));
  for (const note of specializationNotes(optimized.fun, input.program)) io.err(`scf opt: note: ${note}`);
  return 0;
}

/** The `--bind` options by formal name; a formal bound twice is a UsageError. */
export function parseBinds(options: readonly string[] | undefined): Record<string, BindValue> {
  // No prototype: a formal may be called `constructor` or `__proto__`.
  const binds = emptyRecord<BindValue>();
  for (const b of options ?? []) {
    const [name, value] = parseBind(b);
    if (Object.hasOwn(binds, name)) throw new UsageError(`'${name}' is bound twice`);
    binds[name] = value;
  }
  return binds;
}

/**
 * Runs the unstaged pipeline over `input`'s function with `binds`. A binding that does not fit the
 * function's formals is printed on `io.err` (at the function, else as `COMMAND: …`) and gives null;
 * so does a user's pass that fails as it runs (`COMMAND: pass 'FILE' …`).
 */
export function optimizeUnstaged(
  input: KernelInput,
  passes: readonly Pass[],
  binds: Readonly<Record<string, BindValue>>,
  command: string,
  io: CliIo,
  checkAll = false,
): PipelineResult | null {
  if (tooDeepTo('optimize', input, io)) return null;
  try {
    return runPipeline(input.program, input.fnName, passes, binds, {
      check: checkAll ? 'all' : 'user',
      at: sourcePlace(input),
    });
  } catch (e) {
    if (e instanceof PassError) {
      // a user's pass failed as it ran: the message names the pass
      io.err(shortLines(`${command}: ${e.message}`));
      return null;
    }
    if (!(e instanceof BindError)) throw e;
    // Bindings are checked against the function's formals: point at the function.
    const span = input.spans.get(input.fun.lbl);
    io.err(span ? `${kernelPlace(span, input.source)}: error: ${e.message}` : `${command}: ${e.message}`);
    return null;
  }
}

/** Runs the stub `scf stage` wrote for this function; its embedded function must be this one. */
async function runStaged(
  dir: string,
  input: KernelInput,
  passes: readonly Pass[],
  passesGiven: boolean,
  binds: Record<string, BindValue>,
  io: { out: (s: string) => void; err: (s: string) => void },
): Promise<number> {
  const fun = input.fun;
  const stubFile = path.resolve(dir, `${fun.name}.stub.mjs`);
  if (!existsSync(stubFile))
    throw new UsageError(
      `${dir} has no staged pipeline for '${fun.name}' (no ${fun.name}.stub.mjs; run 'scf stage' first)`,
    );
  const stub = await importStub(stubFile);
  if (!equal(stub.FUN, fun)) {
    throw new UsageError(`${stubFile} was staged for a different version of '${fun.name}'; stage it again`);
  }
  if (passesGiven && passes.map((p) => p.name).join(',') !== stub.PIPELINE.join(',')) {
    throw new UsageError(
      `--passes ${passes.map((p) => p.name).join(',')} differs from the staged pipeline ${stub.PIPELINE.join(',')}`,
    );
  }
  let r: ReturnType<typeof stub.specialize>;
  try {
    r = stub.specialize(binds, (m) => io.err(m));
  } catch (e) {
    throw stagedStackError(stub, dir, e) ?? e;
  }
  io.out(printOptimized(r.fun, input.program));
  for (const note of specializationNotes(r.fun, input.program)) io.err(`scf opt: note: ${note}`);
  return 0;
}

/**
 * The user's error that `e`, thrown by the staged pipeline of `dir`, is, if it is one: the
 * JavaScript stack exhausted where the pipeline has passes of the user's (their staged code keeps
 * their recursion, and carries no bound of its own, so that it runs at full speed) is a
 * `PassError` naming them. Otherwise it stays what it is.
 */
function stagedStackError(stub: LoadedStub, dir: string, e: unknown): PassError | undefined {
  if (!(e instanceof RangeError && /call stack/i.test(e.message))) return undefined;
  const mine = stub.MANIFEST.passes
    .filter((p) => !p.builtin)
    .map((p) => `'${path.relative(process.cwd(), path.resolve(dir, p.files[0]?.path ?? p.name))}'`);
  if (mine.length === 0) return undefined;
  return new PassError(
    `the staged pipeline of '${dir}' exhausted the JavaScript stack in a pass of yours (${mine.join(', ')}): its recursion, kept in the staged code, goes deeper than the stack allows; recurse over the kernel's tree, whose depth scf bounds`,
  );
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
