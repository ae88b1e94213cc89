/**
 * user.ts in a browser bundle (package.json's "browser" map puts this file in its place): a user's
 * optimizer is compiled from its SCF-lang source by the front end, which reads files and is not
 * in a page's bundle, so loading one is a `PassError` saying so. A staged folder of a user's pass
 * still runs staged in a page; only its unstaged pipeline (values outside the early description,
 * a stale stub) needs node.
 */
import type { CoreProgram } from '../scf-lang/index.js';
import type { Pass } from './index.js';
import { DEFAULT_PASS_FUEL, PassError } from '../runtime/index.js';

export { DEFAULT_PASS_FUEL, PassError } from '../runtime/index.js';

/** Whether a pipeline entry names a file (a user's optimizer) rather than a built-in pass. */
export function isPassPath(spec: string): boolean {
  return spec.includes('/') || spec.includes('\\') || /\.[cm]?ts$/.test(spec);
}

/** No user's pass is loaded in a browser. */
export function userPassProgram(_pass: Pass): CoreProgram | undefined {
  return undefined;
}

/** The fuel of one run of a user's pass (no environment in a page). */
export function passFuel(): number {
  return DEFAULT_PASS_FUEL;
}

/** Refuses: compiling a user's optimizer needs node (see the header). */
export function loadUserPass(file: string, _cwd?: string): Pass {
  throw new PassError(
    `${file}: a user's optimizer is compiled from its SCF-lang source, which needs node: its unstaged pipeline does not run in a browser`,
  );
}

/** Refuses: compiling a user's SCF-lang function needs node (see the header). */
export function loadUserFunction(
  _file: string,
  _exportName: string,
  shown: string,
): (args: readonly unknown[], fuel?: number) => unknown {
  throw new PassError(
    `${shown}: a user's SCF-lang function is compiled from its source, which needs node: its unstaged run does not happen in a browser`,
  );
}
