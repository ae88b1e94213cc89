/**
 * A compiler writer's own optimizer as a pass: an SCF-lang module, named by a path, whose exported
 * `optimize(f: Fun): Fun` — or `optimize(f: Fun, formals: List<LatticeVal>): Fun` — is the pass.
 *
 * The module is checked against the subset and the pass contract (the same front end as `scf
 * check`, `passCheck: 'pass'`; its diagnostics, with FILE:LINE:COL, make a `PassError`), desugared
 * to Core, and compiled to JavaScript by the stager's code emitter (`emitModule`, function form) —
 * so it runs natively, at the speed of the staged code's own emitted JavaScript, under plain node
 * with no TypeScript loader (emitted code ≡ the Core interpreter ≡ the native optimizer is what
 * tests/stager/emit.test.ts checks). The stager specializes the same source (`Pass.file`), exactly
 * as it does the built-in passes.
 *
 * Bounds. The pass is the user's code run inside scf, so how it fails is the user's to hear, as a
 * `PassError` naming the pass — never an internal error:
 * - fuel: every function of the emitted code counts its calls against a budget set at each run
 *   (`passFuel`: SCF_PASS_FUEL, default `DEFAULT_PASS_FUEL` calls). Core has no loops, so a run
 *   that never ends either recurses without bound (and meets the stack) or spends calls without
 *   end (and meets the fuel); work, not time, so the same run stops at the same place everywhere.
 *   The counter is one decrement and test per call, added here to the emitted text (a line after
 *   each `function NAME(…) {`, or after its `for (;;) {` when the emitter made it a loop), so the built-in passes and the staged modules carry none;
 * - stack: a RangeError for an exhausted JavaScript stack, caught at the pass boundary;
 * - result: what `optimize` returns must be a `Fun` (its kind is checked, not the whole tree).
 */
import path from 'node:path';
import { readFailure, readSourceFile } from '../common/index.js';
import type { Fun } from '../kernel/index.js';
import { listFromArray } from '../kernel/index.js';
import * as prelude from '../scf-lang/prelude.js';
import { compileFile, type CoreProgram, formatDiagnostic, stagedRuntime } from '../scf-lang/index.js';
import { chargeEachCall, emitModule } from '../stager/emit.js';
import type { Pass } from './index.js';
import { DEFAULT_PASS_FUEL, PassError, passFuel } from '../runtime/index.js';
import { KERNEL_CONTRACT } from './pass-io.js';

export { DEFAULT_PASS_FUEL, PassError, passFuel } from '../runtime/index.js';

/** Whether a pipeline entry names a file (a user's optimizer) rather than a built-in pass. */
export function isPassPath(spec: string): boolean {
  return spec.includes('/') || spec.includes(path.sep) || /\.[cm]?ts$/.test(spec);
}

const loaded = new Map<string, { pass: Pass; program: CoreProgram }>();

/** The Core program of a user's pass loaded by `loadUserPass`. */
export function userPassProgram(pass: Pass): CoreProgram | undefined {
  return loaded.get(pass.file)?.program;
}

/**
 * Loads (once per process) the user's optimizer at `file` (relative to `base`: a config's folder
 * for a config's pipeline) as a pass; throws `PassError`. Paths in messages are relative to the
 * working directory, where the user's shell and editor are.
 */
export function loadUserPass(file: string, base: string = process.cwd()): Pass {
  const abs = path.resolve(base, file);
  const known = loaded.get(abs);
  if (known) return known.pass;
  const cwd = process.cwd();
  const shown = path.relative(cwd, abs) || abs;
  try {
    readSourceFile(abs); // only a regular file is a pass (a FIFO or a device would never end)
  } catch (e) {
    throw new PassError(`${shown}: ${readFailure(e)}`);
  }
  const r = compileFile(abs, { cwd, passCheck: 'pass', contract: KERNEL_CONTRACT });
  if (!r.program) {
    throw new PassError(
      `${shown}: not a valid SCF-lang optimizer\n${r.diagnostics.map((d) => formatDiagnostic(d, r.sources)).join('\n')}`,
    );
  }
  const entry = r.entries.get('optimize');
  const def = entry === undefined ? undefined : r.program.funs.get(entry);
  if (entry === undefined || def === undefined) {
    throw new PassError(`${shown}: exports no function 'optimize' (the pass's entry: optimize(f: Fun): Fun)`);
  }
  const program = r.program;
  // (the contract holds: one parameter, or two with the formals)
  const takesFormals = def.params.length === 2;
  const native = compileCounted(program, entry);
  const pass: Pass = {
    name: path.basename(abs).replace(/\.[cm]?ts$/, ''),
    description: `${shown} (a user's optimizer)`,
    file: abs,
    entry,
    takesFormals,
    builtin: false,
    run: (f, ctx) => runBounded(shown, native, takesFormals ? [f, listFromArray([...ctx.formals])] : [f]),
  };
  loaded.set(abs, { pass, program });
  return pass;
}

/** A pass compiled with its fuel counter: runs the entry on `args` with `fuel` calls to spend. */
type CountedEntry = (fuel: number, args: readonly unknown[]) => unknown;

/** What the counter throws when the fuel runs out (caught in `runBounded`, never seen outside). */
const OUT_OF_FUEL: unique symbol = Symbol('out of fuel');

/**
 * The entry of `program` compiled to JavaScript (the emitter's function form) with a fuel counter:
 * the first statement of every function — of its loop, for one emitted as a loop — takes one unit
 * and throws OUT_OF_FUEL past the last, so a self tail call costs one unit as any call does.
 * The counter is a variable of the closure around the emitted functions, named apart from every
 * name in their text.
 */
function compileCounted(program: CoreProgram, entry: string, exportName = 'optimize'): CountedEntry {
  const body = emitModule(program, {
    entry,
    exportName,
    imports: { prelude: 'scf/runtime', runtime: 'scf/runtime' },
    form: 'function',
  });
  const fresh = (base: string): string => {
    let n = base;
    while (body.includes(n)) n = `${n}_`;
    return n;
  };
  const left = fresh('scf$fuel');
  const spent = fresh('scf$outOfFuel');
  const main = fresh('scf$entry');
  const instrumented = chargeEachCall(body, `if (--${left} < 0) ${spent}();`);
  const source = [
    `let ${left} = 0;`,
    `const ${spent} = () => { throw $outOfFuel; };`,
    `const ${main} = (() => {\n${instrumented}})();`,
    `return (fuel, args) => { ${left} = fuel; return ${main}(...args); };`,
  ].join('\n');
  return new Function('$scf', '$outOfFuel', source)(
    { ...prelude, ...stagedRuntime },
    OUT_OF_FUEL,
  ) as CountedEntry;
}

/**
 * A user's SCF-lang function: export `exportName` of the module at `file` (absolute), compiled
 * (once per process) to JavaScript with the fuel counter a user's pass has, and run within its
 * fuel (`fuel`, by default `passFuel()`'s) and the stack: what an entry config's stub runs for
 * arguments outside its description.
 * `shown` names it in messages. Throws `PassError` when the module does not check or has no such
 * function, and from a run that runs out of fuel or stack.
 */
export function loadUserFunction(
  file: string,
  exportName: string,
  shown: string,
): (args: readonly unknown[], fuel?: number) => unknown {
  const key = `${file}#${exportName}`;
  const known = functions.get(key);
  if (known) return known;
  try {
    readSourceFile(file);
  } catch (e) {
    throw new PassError(`${shown}: ${readFailure(e)}`);
  }
  const r = compileFile(file, { cwd: process.cwd() });
  if (!r.program)
    throw new PassError(
      `${shown}: not valid SCF-lang\n${r.diagnostics.map((d) => formatDiagnostic(d, r.sources)).join('\n')}`,
    );
  const entry = r.entries.get(exportName);
  if (entry === undefined) throw new PassError(`${shown}: exports no function '${exportName}'`);
  const native = compileCounted(r.program, entry, exportName);
  const run = (args: readonly unknown[], fuel = passFuel()): unknown => {
    try {
      return native(fuel, args);
    } catch (e) {
      if (e === OUT_OF_FUEL)
        throw new PassError(
          `'${shown}' did not terminate within ${fuel} calls of fuel (SCF_PASS_FUEL, default ${DEFAULT_PASS_FUEL}, sets how many a run may make)`,
        );
      if (e instanceof RangeError && /call stack/i.test(e.message))
        throw new PassError(
          `'${shown}' recursed deeper than the JavaScript stack allows (some thousands of nested calls): a recursion without end, or one call deep per step of a long count or list`,
        );
      throw e;
    }
  };
  functions.set(key, run);
  return run;
}

const functions = new Map<string, (args: readonly unknown[], fuel?: number) => unknown>();

/**
 * One run of a user's pass (`shown`: its path as the user named it) within its fuel; running out
 * of fuel or of stack, or returning something other than a `Fun`, is a `PassError` naming the pass.
 */
function runBounded(shown: string, native: CountedEntry, args: readonly unknown[]): Fun {
  const fuel = passFuel();
  let out: unknown;
  try {
    out = native(fuel, args);
  } catch (e) {
    if (e === OUT_OF_FUEL)
      throw new PassError(
        `pass '${shown}' did not terminate within ${fuel} calls of fuel (SCF_PASS_FUEL, default ${DEFAULT_PASS_FUEL}, sets how many a run may make)`,
      );
    if (e instanceof RangeError && /call stack/i.test(e.message))
      throw new PassError(
        `pass '${shown}' recursed deeper than the JavaScript stack allows (some thousands of nested calls): a recursion without end, or one call deep per step of a long count or list; recurse over the kernel's tree, whose depth scf bounds`,
      );
    throw e;
  }
  if (typeof out !== 'object' || out === null || (out as { kind?: unknown }).kind !== 'fun')
    throw new PassError(`pass '${shown}' returned ${describe(out)}, not a Fun`);
  return out as Fun;
}

/** What a value that is not a `Fun` is, in a few words (without walking it). */
function describe(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (v === null) return 'null';
  if (typeof v === 'number' || typeof v === 'boolean') return `the ${typeof v} ${String(v)}`;
  if (typeof v === 'string') return `the string ${JSON.stringify(v.length > 40 ? `${v.slice(0, 39)}…` : v)}`;
  if (Array.isArray(v)) return `a tuple of ${v.length}`;
  const kind = typeof v === 'object' ? (v as { kind?: unknown }).kind : undefined;
  return typeof kind === 'string' ? `a value of kind '${kind}'` : `a ${typeof v}`;
}
