/**
 * The `scf` command's commands that walk kernels (opt, kernel, stage, eval, test; not a kernel run
 * that may use WebGPU, main.ts's `mayRunOnGpu`) run on a worker
 * thread with a large stack, `CLI_STACK_MB`: the optimizers, the staged optimizers and the back
 * ends walk a function recursively, one frame or more per statement of a `seq` chain, so node's
 * default stack of about 1 MiB bounds a function to MAX_TREE_DEPTH (1,000) levels, and this one to
 * a thousand times that (kernel/depth.ts's `useStackOf`). A thread's stack is reserved, not
 * allocated: a command uses only what its input needs.
 *
 * The main thread (`runOnThread`) starts the worker with the command line, writes what the command
 * prints as the messages arrive (one channel, so stdout and stderr keep their order), sets the exit
 * status, and ends the process as `mustExit` asks (a GPU kernel abandoned). The worker
 * (`serveThread`) runs `main` and posts each line and the result. A thread that dies (out of
 * memory) is an internal error, exit 3, never a hang.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parentPort, resourceLimits, Worker, workerData } from 'node:worker_threads';
import { EXIT_INTERNAL, setStderrTerminal } from './io.js';

/** The stack of the command thread, in MiB. */
export const CLI_STACK_MB = 1024;

/**
 * Whether the process was given a stack size of its own (node's `--stack-size=KIB`): then the
 * commands run on the main thread, with that stack, as asked.
 */
export function stackSizeGiven(): boolean {
  return process.execArgv.some((a) => a.startsWith('--stack-size'));
}

type ThreadMessage =
  | { readonly out: string }
  | { readonly err: string }
  | { readonly done: number; readonly exit: boolean };

/**
 * The modules the process preloaded with `--import` (node runs them on the main thread only), as
 * specifiers a worker can import: paths made absolute file URLs, as node resolved them from the
 * working directory.
 */
function preloads(): string[] {
  const found: string[] = [];
  process.execArgv.forEach((a, i) => {
    const spec =
      a === '--import' ? process.execArgv[i + 1] : a.startsWith('--import=') ? a.slice(9) : undefined;
    if (spec === undefined) return;
    found.push(/^\.{0,2}[\\/]/.test(spec) ? pathToFileURL(path.resolve(spec)).href : spec);
  });
  return found;
}

/**
 * Runs `scf ARGV` on a worker thread evaluating `boot` (a CommonJS expression that imports this
 * module, registering a loader first where one is needed, and calls `serveThread`), after the
 * process's `--import` preloads, so that the command's thread runs with them as the main thread
 * would.
 */
export function runOnThread(argv: readonly string[], boot: string): Promise<void> {
  const code = `${preloads().reduce((chain, u) => `${chain}.then(() => import(${JSON.stringify(u)}))`, 'Promise.resolve()')}.then(() => ${boot})`;
  return new Promise((resolve) => {
    let done = false;
    const worker = new Worker(code, {
      eval: true,
      workerData: { argv: [...argv], stderrTerminal: process.stderr.isTTY === true },
      resourceLimits: { stackSizeMb: CLI_STACK_MB },
      stdout: false,
      stderr: false,
    });
    worker.on('message', (m: ThreadMessage) => {
      if ('out' in m) process.stdout.write(`${m.out}\n`);
      else if ('err' in m) process.stderr.write(`${m.err}\n`);
      else {
        done = true;
        process.exitCode = m.done;
        if (m.exit) process.exit();
      }
    });
    worker.on('error', (e) => {
      if (done) return;
      done = true;
      process.stderr.write(`scf: internal error: ${e instanceof Error ? e.message : String(e)}\n`);
      process.exitCode = EXIT_INTERNAL;
    });
    worker.on('exit', () => {
      if (!done) {
        process.stderr.write('scf: internal error: the command thread stopped before the command ended\n');
        process.exitCode = EXIT_INTERNAL;
      }
      resolve();
    });
  });
}

/** In the worker thread: runs the command line `runOnThread` gave, posting its output and status. */
export async function serveThread(): Promise<void> {
  const port = parentPort;
  if (port === null) throw new Error('serveThread runs in the worker thread of runOnThread');
  const data = workerData as { argv: string[]; stderrTerminal: boolean };
  setStderrTerminal(data.stderrTerminal);
  const { useStackOf } = await import('../kernel/index.js');
  useStackOf(resourceLimits.stackSizeMb ?? 0);
  const { main, mustExit } = await import('./main.js');
  const code = await main(data.argv, {
    out: (s) => port.postMessage({ out: s }),
    err: (s) => port.postMessage({ err: s }),
  });
  port.postMessage({ done: code, exit: mustExit() });
}
