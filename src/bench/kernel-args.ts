/**
 * Run-time arguments for the Table 2 kernels, to time the original and the optimized function
 * (compiled-code speed-up): the staged formals take the config's sample values, the others
 * deterministic pseudo-random data of a realistic size (a 32×32 image, a 256-sample signal, a
 * 512-access cache trace). Generated from a fixed seed, so every run times the same work.
 */
import type { ArgValue, Fun } from '../kernel/index.js';
import { listToArray } from '../kernel/index.js';
import { seededRandom } from '../pipeline/index.js';

const IMAGE = 32;
const SIGNAL = 256;
const TRACE = 512;

/**
 * Arguments by parameter name for `fun`, with `sample` for the staged formals. Unknown kernels get
 * small ints, and arrays of 16 small ints.
 */
export function kernelArgs(
  fun: Fun,
  sample: Readonly<Record<string, unknown>> = {},
): Record<string, ArgValue> {
  const next = seededRandom(0x5cf2002);
  const small = () => next() % 200;
  const ints = (n: number, f: () => number = small) => Array.from({ length: n }, f);
  const out: Record<string, ArgValue> = {};
  const given = (name: string): ArgValue | undefined => sample[name] as ArgValue | undefined;
  const rows = IMAGE;
  const cols = IMAGE;
  for (const p of listToArray(fun.params)) {
    const s = given(p.name);
    if (s !== undefined) {
      out[p.name] = s;
      continue;
    }
    switch (p.name) {
      case 'rows':
        out[p.name] = rows;
        break;
      case 'cols':
        out[p.name] = cols;
        break;
      case 'image':
        out[p.name] = ints(rows * cols, () => next() % 256);
        break;
      case 'n':
        out[p.name] = fun.name.startsWith('main_loop') ? TRACE : SIGNAL;
        break;
      case 'signal':
        out[p.name] = ints(SIGNAL, () => next() % 256);
        break;
      case 'maxval':
        out[p.name] = 255;
        break;
      case 'out':
        out[p.name] = ints(fun.name === 'doconvol' ? rows * cols : SIGNAL, () => 0);
        break;
      case 'kinds':
        out[p.name] = ints(TRACE, () => next() % 3);
        break;
      case 'addrs':
        // a working set of 64 KB with some locality: hits and misses both happen
        out[p.name] = ints(TRACE, () => (next() % 4096) * 16 + (next() % 16));
        break;
      case 'stats':
        out[p.name] = ints(5, () => 0);
        break;
      default:
        if (p.isArray) out[p.name] = ints(16, () => (p.ty === 'float' ? (next() % 64) / 8 : small()));
        else out[p.name] = p.ty === 'float' ? (next() % 64) / 8 : small();
    }
  }
  // dotproduct: v1 as long as the known size
  if (fun.name === 'dotproduct' && typeof out.s === 'number') out.v1 = ints(out.s);
  return out;
}
