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
});
