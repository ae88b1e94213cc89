import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

describe('fast-check seed (tests/fc-seed.ts)', () => {
  it('properties run from SCF_FC_SEED when it is set, from a fresh seed otherwise', () => {
    const env = process.env.SCF_FC_SEED;
    const seed = fc.readConfigureGlobal().seed;
    if (env === undefined || env === '') expect(seed).toBeUndefined();
    else expect(seed).toBe(Number(env));
    // the same seed draws the same cases
    const draw = () => fc.sample(fc.nat(), { numRuns: 5, ...(seed === undefined ? { seed: 3 } : {}) });
    expect(draw()).toEqual(draw());
  });
});
