/**
 * Vitest setup: with SCF_FC_SEED set, every fast-check property that names no seed of its own
 * runs from that seed, so a run of the suite is reproducible (CI sets it: the gate must not
 * pass or fail by chance). Without it, each run draws new cases (what local runs do, to keep
 * finding bugs); a failure prints its seed and path, which `fc.assert(…, { seed, path })` replays.
 */
import fc from 'fast-check';

const seed = process.env.SCF_FC_SEED;
if (seed !== undefined && seed !== '') {
  const n = Number(seed);
  if (!Number.isSafeInteger(n))
    throw new Error(`SCF_FC_SEED must be an integer, not ${JSON.stringify(seed)}`);
  fc.configureGlobal({ ...fc.readConfigureGlobal(), seed: n });
}
