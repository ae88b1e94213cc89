/**
 * A compiler writer's own optimizer as a pass: an SCF-lang module, named by a path, whose exported
 * `optimize(f: Fun): Fun` — or `optimize(f: Fun, formals: List<LatticeVal>): Fun` — is the pass.
 *
 * The module is checked against the subset (the same front end as `scf check`; its diagnostics,
 * with FILE:LINE:COL, make a `PassError`), desugared to Core, and compiled to JavaScript by the
 * stager's code emitter (`emitModule`, function form) — so it runs natively, at the speed of
 * the staged code's own emitted JavaScript, under plain node with no TypeScript loader (emitted
 * code ≡ the Core interpreter ≡ the native optimizer is what tests/stager/emit.test.ts checks).
 * The stager specializes the same source (`Pass.file`), exactly as it does the built-in passes.
 */
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Fun } from '../kernel/index.js';
import { listFromArray } from '../kernel/index.js';
import * as prelude from '../scf-lang/prelude.js';
import { compileFile, formatDiagnostic, type CoreProgram } from '../scf-lang/index.js';
import { emitModule } from '../stager/emit.js';
import * as stagedRuntime from '../stager/runtime.js';
import type { Pass } from './index.js';

/** A pass named on the command line or in a config could not be loaded. */
export class PassError extends Error {
  override readonly name = 'PassError';
}

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
 * Loads (once per process) the user's optimizer at `file` as a pass; throws `PassError`, with
 * paths shown relative to `cwd`.
 */
export function loadUserPass(file: string, cwd: string = process.cwd()): Pass {
  const abs = path.resolve(cwd, file);
  const known = loaded.get(abs);
  if (known) return known.pass;
  if (!existsSync(abs) || !statSync(abs).isFile()) throw new PassError(`${file}: no such file`);
  const r = compileFile(abs, { cwd });
  if (!r.program) {
    throw new PassError(
      `${file}: not a valid SCF-lang optimizer\n${r.diagnostics.map((d) => formatDiagnostic(d, r.sources)).join('\n')}`,
    );
  }
  const entry = r.entries.get('optimize');
  const def = entry === undefined ? undefined : r.program.funs.get(entry);
  if (entry === undefined || def === undefined) {
    throw new PassError(`${file}: exports no function 'optimize' (the pass's entry: optimize(f: Fun): Fun)`);
  }
  if (def.params.length !== 1 && def.params.length !== 2) {
    throw new PassError(
      `${file}: 'optimize' takes ${def.params.length} parameters; a pass is optimize(f: Fun) or optimize(f: Fun, formals: List<LatticeVal>)`,
    );
  }
  const program = r.program;
  const takesFormals = def.params.length === 2;
  const body = emitModule(program, {
    entry,
    exportName: 'optimize',
    imports: { prelude: 'scf/runtime', runtime: 'scf/runtime' },
    form: 'function',
  });
  const native = new Function('$scf', body)({ ...prelude, ...stagedRuntime }) as (
    ...args: unknown[]
  ) => unknown;
  const pass: Pass = {
    name: path.basename(abs).replace(/\.[cm]?ts$/, ''),
    description: `${path.relative(cwd, abs) || abs} (a user's optimizer)`,
    file: abs,
    entry,
    takesFormals,
    builtin: false,
    run: (f, ctx) => (takesFormals ? native(f, listFromArray([...ctx.formals])) : native(f)) as Fun,
  };
  loaded.set(abs, { pass, program });
  return pass;
}
