/**
 * Exact binary32 helpers: decimal text → nearest float (round-to-nearest-even, as a C compiler reads a
 * `1.1f` literal), and the shortest decimal text that reads back as a given float.
 *
 * Why not `Math.fround(Number(s))`: that rounds twice (decimal → binary64 → binary32) and can land on
 * the wrong neighbour when the binary64 value sits on a binary32 midpoint. We use it as a first guess
 * and then settle the choice between the guess and its two neighbours with exact BigInt comparisons.
 */

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);
const f64 = new Float64Array(1);
const u64 = new BigUint64Array(f64.buffer);

export function float32Bits(x: number): number {
  f32[0] = x;
  return u32[0] as number;
}

export function float32FromBits(bits: number): number {
  u32[0] = bits >>> 0;
  return f32[0] as number;
}

/** x = m · 2^e exactly, for a finite non-negative double x. */
function dyadic(x: number): { m: bigint; e: number } {
  f64[0] = x;
  const bits = u64[0] as bigint;
  const exp = Number((bits >> 52n) & 0x7ffn);
  const frac = bits & 0xfffffffffffffn;
  if (exp === 0) return { m: frac, e: -1074 };
  return { m: frac | 0x10000000000000n, e: exp - 1075 };
}

/** Sign of (digits · 10^e10) − x, for a finite non-negative double x. */
function compareDecimal(digits: bigint, e10: number, x: number): number {
  const { m, e } = dyadic(x);
  let l = digits;
  let r = m;
  if (e10 >= 0) l *= 10n ** BigInt(e10);
  else r *= 10n ** BigInt(-e10);
  if (e >= 0) r *= 2n ** BigInt(e);
  else l *= 2n ** BigInt(-e);
  return l < r ? -1 : l > r ? 1 : 0;
}

const DECIMAL = /^(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;

/**
 * The binary32 value nearest to the unsigned decimal `text` (e.g. "1.5", ".5e-3"), ties to even;
 * `undefined` when the text is not a decimal literal. Overflow gives Infinity.
 */
export function decimalToFloat32(text: string): number | undefined {
  const m = DECIMAL.exec(text);
  if (!m) return undefined;
  const intPart = m[1] ?? '';
  const fracPart = m[2] ?? '';
  if (intPart === '' && fracPart === '') return undefined;
  const guess = Math.fround(Number(text));
  const exp = Number(m[3] ?? '0');
  const digits = BigInt((intPart + fracPart).replace(/^0+(?=\d)/, '') || '0');
  if (digits === 0n) return 0;
  const e10 = exp - fracPart.length;
  // Far outside binary32's range the guess (0 or Infinity) is certainly right; avoid huge powers.
  if (!Number.isFinite(guess) && e10 > 0 && e10 > 400) return guess;
  if (guess === 0 && e10 < -400) return guess;
  if (!Number.isFinite(guess)) {
    // Infinity unless the value is below the midpoint between FLT_MAX and 2^128.
    const max = float32FromBits(0x7f7fffff);
    return compareDecimal(digits, e10, max + 2 ** 103) < 0 ? max : guess;
  }
  const bits = float32Bits(guess);
  const candidates = [guess];
  if (bits > 0) candidates.unshift(float32FromBits(bits - 1));
  if (bits < 0x7f7fffff) candidates.push(float32FromBits(bits + 1));
  // Pick the candidate nearest to the exact value; midpoints of adjacent floats are exact doubles.
  let best = candidates[0] as number;
  for (let i = 1; i < candidates.length; i++) {
    const lo = candidates[i - 1] as number;
    const hi = candidates[i] as number;
    const c = compareDecimal(digits, e10, (lo + hi) / 2);
    if (c > 0 || (c === 0 && (float32Bits(hi) & 1) === 0)) best = hi;
  }
  if (bits >= 0x7f7fffff && compareDecimal(digits, e10, guess + 2 ** 103) >= 0) return Infinity;
  return best;
}

/**
 * Shortest decimal text (without sign or suffix, always containing '.' or 'e') that reads back as the
 * finite binary32 value `|v|` under `decimalToFloat32`.
 */
export function formatFloat32Magnitude(v: number): string {
  const a = Math.abs(v);
  if (a === 0) return '0.0';
  for (let p = 1; p <= 9; p++) {
    const s = a.toPrecision(p);
    if (decimalToFloat32(s.replace('e+', 'e')) !== a) continue;
    // Exponent form far from 1 (1e10 rather than 10000000000.0), plain decimals otherwise.
    const text = a >= 1e7 || a < 1e-4 ? a.toExponential(p - 1).replace('e+', 'e') : String(Number(s));
    const chosen = decimalToFloat32(text) === a ? text : s;
    return /[.e]/.test(chosen) ? chosen : `${chosen}.0`;
  }
  return a.toExponential(8);
}
