/** `nearestName`: the suggestion behind "did you mean …?" in diagnostics. */
import { describe, expect, it } from 'vitest';
import { nearestName } from '../../src/common/index.js';

describe('nearestName', () => {
  it('finds a misspelling one or two edits away, a swap of neighbours counting one', () => {
    expect(nearestName('rsh', ['name', 'rhs', 'lbl'])).toBe('rhs');
    expect(nearestName('thenCmnd', ['thenCmd', 'elseCmd'])).toBe('thenCmd');
    expect(nearestName('bdy', ['body', 'fns'])).toBe('body');
    expect(nearestName('locls', ['locals', 'params'])).toBe('locals');
  });

  it('suggests nothing far off, for short names, for the name itself, or between equals', () => {
    expect(nearestName('value', ['rhs', 'name'])).toBeUndefined();
    expect(nearestName('ab', ['ac'])).toBeUndefined();
    expect(nearestName('rhs', ['rhs'])).toBeUndefined();
    expect(nearestName('cat', ['bat', 'hat'])).toBeUndefined();
    expect(nearestName('x', [])).toBeUndefined();
  });

  it('is linear in long names: a 100,000-character misspelling is found at once, not in a table of their product', () => {
    const long = 'a'.repeat(100_000);
    expect(nearestName(`${long}b`, [`${long}c`, `x${long}y`])).toBe(`${long}c`);
    expect(nearestName(`${long}b`, [`x${long}yz`, long.slice(3)])).toBeUndefined();
    expect(nearestName('', ['a', ''])).toBeUndefined();
  });
});
