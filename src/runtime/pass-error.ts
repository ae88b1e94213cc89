/**
 * The error of a user's pass or function and the fuel it runs with (`passFuel`): the runtime's, because a stub
 * raises it for a staged run that does not end, whatever the object language; the pass registry
 * (optimizers/user.ts, which compiles the user's SCF-lang source, and its browser twin, which
 * compiles nothing) re-exports it.
 */

/**
 * A user's pass named on the command line or in a config could not be loaded, or failed as it ran
 * (out of fuel, out of stack, a result that is no `Fun`): the user's error, naming the pass.
 */
export class PassError extends Error {
  override readonly name = 'PassError';
}

/** Calls a user's pass may make in one run, unless SCF_PASS_FUEL says otherwise. */
export const DEFAULT_PASS_FUEL = 100_000_000;

/**
 * The fuel of one run of a user's pass: SCF_PASS_FUEL when set (a positive integer), else the
 * default (a page has no environment: the default).
 */
export function passFuel(): number {
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env
    ?.SCF_PASS_FUEL;
  if (env === undefined || env.trim() === '') return DEFAULT_PASS_FUEL;
  const n = Number(env);
  if (!Number.isSafeInteger(n) || n <= 0)
    throw new PassError(`SCF_PASS_FUEL must be a positive integer (calls a pass may make), not '${env}'`);
  return n;
}
