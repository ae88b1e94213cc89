/**
 * The error of a user's pass and the fuel it runs with, apart from user.ts (which compiles the
 * pass with the SCF-lang front end) so that a browser bundle, whose user.ts twin compiles nothing,
 * shares them.
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
