/**
 * The one exhaustiveness check every IR switch ends in: reaching it is an internal error (a
 * node kind the switch does not know), never a user error.
 */
export function assertNever(x: never): never {
  throw new Error(`internal error: unexpected ${JSON.stringify(x)}`);
}
