/** binary32 literal reading and printing: exact rounding, shortest round-tripping text. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decimalToFloat32, float32FromBits, formatFloat32Magnitude } from '../../src/kernel/index.js';

describe('binary32 literals', () => {
  it('reads decimals with correct rounding', () => {
    expect(decimalToFloat32('0.1')).toBe(Math.fround(0.1));
    expect(decimalToFloat32('.5')).toBe(0.5);
    expect(decimalToFloat32('1e10')).toBe(Math.fround(1e10));
    expect(decimalToFloat32('3.4028235e38')).toBe(float32FromBits(0x7f7fffff));
    expect(decimalToFloat32('1e39')).toBe(Number.POSITIVE_INFINITY);
    expect(decimalToFloat32('1e-50')).toBe(0);
    // 1 + 2^-24 is the midpoint between 1 and the next float: ties to even gives 1; a hair above gives next.
    expect(decimalToFloat32('1.000000059604644775390625')).toBe(1);
    expect(decimalToFloat32('1.000000059604644775390626')).toBe(float32FromBits(0x3f800001));
    // A case where rounding through binary64 first goes wrong: the double nearest this decimal is the
    // binary32 midpoint, but the decimal itself lies just below it.
    expect(decimalToFloat32('1.00000005960464477539062499999999999')).toBe(1);
    expect(decimalToFloat32('abc')).toBeUndefined();
  });

  it('prints the shortest text that reads back', () => {
    expect(formatFloat32Magnitude(Math.fround(0.1))).toBe('0.1');
    expect(formatFloat32Magnitude(1)).toBe('1.0');
    expect(formatFloat32Magnitude(100)).toBe('100.0');
    expect(formatFloat32Magnitude(Math.fround(1e10))).toBe('1e10');
    expect(formatFloat32Magnitude(float32FromBits(1))).toBe('1e-45');
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0x7f7fffff }), (bits) => {
        const v = float32FromBits(bits);
        const text = formatFloat32Magnitude(v);
        expect(/[.e]/.test(text)).toBe(true);
        expect(decimalToFloat32(text)).toBe(v);
      }),
      { numRuns: 3000, seed: 3 },
    );
  });
});
