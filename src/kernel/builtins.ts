/**
 * The kernel language's builtins: the functions of C's `<math.h>` on float (and `abs` on int, of
 * `<stdlib.h>`) that a kernel may call without defining them (or including their header). This table is the one place each is declared; every tool
 * reads it:
 * - the parser (parse.ts) types a call by `params`/`ret`, inserting C's implicit conversions of
 *   the arguments, refuses a double-precision name (`sqrt`) naming the float function, and refuses
 *   a definition of a builtin's name (C reserves them);
 * - the reference evaluator (eval.ts) computes a call with the prelude's `cmath`, which is C's
 *   meaning on binary32 (src/scf-lang/prelude.ts states it case by case);
 * - the C printer (print.ts) prints the call as it is, and includes its `header`;
 * - the back ends (src/target): `js` is the JavaScript the JS back end emits (the same operations
 *   as `cmath`, so bit for bit the evaluator's), `simd` the WebAssembly SIMD lowering where one is
 *   exact (else the map stays in JS), `wgsl` the WGSL, with C's meaning written out where WGSL's
 *   builtin differs in domain or rounding (`round` is ties-to-even in WGSL, `pow` undefined for a
 *   negative base, no `fmod`);
 * - the optimizers (SCF-lang, which imports no table): scripts/gen-builtins.ts writes
 *   builtins.generated.ts from it, `isBuiltin` (a builtin call is pure: no effects, reads no array,
 *   so DAE, copy propagation and fusion move and drop it as any operator) and `foldsExactly` (whether
 *   constant propagation folds a call on known arguments under exact math: only where `exact`, the
 *   result C specifies to the bit; under `"math": "finite"` every builtin folds, to the evaluator's
 *   value).
 *
 * Accuracy (docs/kernel-math.md's table is written from `accuracy`): `exact` functions give the
 * same bits on the evaluator, the JS back end and gcc with glibc; the others are the
 * double-precision function rounded once to binary32 (within 1 ulp of the exact value), which
 * tests/kernel/builtins-gcc.test.ts checks against glibc within 2 ulp, and the JS back end computes
 * them with the same operations. On WGSL each is as the WGSL specification bounds its builtin.
 */

import type { Param } from './ast.js';

/** One builtin function. */
export interface Builtin {
  /** Its C name (`sqrtf`). */
  readonly name: string;
  /** Its parameters' scalar types, in order. */
  readonly params: readonly ('int' | 'float')[];
  /** Its result's scalar type. */
  readonly ret: 'int' | 'float';
  /** The C header that declares it. */
  readonly header: '<math.h>' | '<stdlib.h>';
  /** The double-precision function of the same meaning, which kernels do not have (`sqrt`). */
  readonly double?: string;
  /** Whether C specifies its result to the bit (exact or correctly rounded): folds under exact math. */
  readonly exact: boolean;
  /** What it computes, for the docs. */
  readonly meaning: string;
  /**
   * The JavaScript of a call on the operands `a` (binary32 / int32 values); `helper` gives the name
   * of one of JS_HELPERS, which the back end then includes.
   */
  readonly js: (a: readonly string[], helper: (name: JsHelper) => string) => string;
  /** The WGSL of a call on the operands `a`; `helper` as for `js`, of WGSL_HELPERS. */
  readonly wgsl: (a: readonly string[], helper: (name: WgslHelper) => string) => string;
  /** The WebAssembly SIMD lowering, when one computes the JS back end's bits: see SimdBuiltin. */
  readonly simd?: SimdBuiltin;
  /** Accuracy on each target, for the docs' table. */
  readonly accuracy: { readonly reference: string; readonly wgsl: string };
  /**
   * The WGSL bound in ulps of the value or of the data's scale, at arguments of the magnitudes
   * kernels see (|x| up to about 30 for `expf`, [-π, π] for `sinf`): what a comparison of a GPU's
   * outputs adds to its tolerance for a kernel calling it (target/compare.ts); 0 where exact.
   */
  readonly gpuUlps: number;
}

/**
 * How the SIMD lowering (target/simd.ts) computes a builtin on four lanes: one f32x4/i32x4 opcode
 * of the operands, or C's `fminf`/`fmaxf`/`roundf` written with compares and selects.
 */
export type SimdBuiltin =
  | {
      readonly kind: 'op';
      readonly op: 'f32Sqrt' | 'f32Abs' | 'f32Floor' | 'f32Ceil' | 'f32Trunc' | 'i32Abs';
    }
  | { readonly kind: 'min' | 'max' | 'round' };

const fround = (x: string): string => `Math.fround(${x})`;
/** A float function computed in double and rounded once. */
const viaDouble = (
  name: string,
  math: string,
  wgslName: string,
  meaning: string,
  wgslAccuracy: string,
  gpuUlps: number,
): Builtin => ({
  name,
  params: ['float'],
  ret: 'float',
  header: '<math.h>',
  double: name.slice(0, -1),
  exact: false,
  meaning,
  js: (a) => fround(`${math}(${a[0]})`),
  wgsl: (a) => `${wgslName}(${a[0]})`,
  accuracy: { reference: 'double result rounded once (≤ 1 ulp)', wgsl: wgslAccuracy },
  gpuUlps,
});

/** Every builtin, in the order the docs list them. */
export const BUILTINS: readonly Builtin[] = [
  {
    name: 'sqrtf',
    params: ['float'],
    ret: 'float',
    header: '<math.h>',
    double: 'sqrt',
    exact: true,
    meaning: 'square root; NaN below 0, -0 at -0',
    js: (a) => fround(`Math.sqrt(${a[0]})`),
    wgsl: (a) => `sqrt(${a[0]})`,
    simd: { kind: 'op', op: 'f32Sqrt' },
    accuracy: {
      reference: 'correctly rounded',
      wgsl: 'as 1.0 / inverseSqrt(x): 2 ulp of inverseSqrt, then 2.5 ulp',
    },
    gpuUlps: 5,
  },
  viaDouble('expf', 'Math.exp', 'exp', 'e to the x', '3 + 2·|x| ulp', 64),
  {
    ...viaDouble('exp2f', '', 'exp2', '2 to the x', '3 + 2·|x| ulp', 64),
    js: (a) => fround(`2 ** ${a[0]}`),
  },
  viaDouble(
    'logf',
    'Math.log',
    'log',
    'natural logarithm; -inf at 0, NaN below 0',
    '3 ulp outside [0.5, 2], absolute 2^-21 inside',
    8,
  ),
  viaDouble(
    'log2f',
    'Math.log2',
    'log2',
    'base-2 logarithm; -inf at 0, NaN below 0',
    '3 ulp outside [0.5, 2], absolute 2^-21 inside',
    8,
  ),
  {
    name: 'powf',
    params: ['float', 'float'],
    ret: 'float',
    header: '<math.h>',
    double: 'pow',
    exact: false,
    meaning: 'x to the y; a negative x only to an integral y (else NaN); powf(1, y) and powf(x, 0) are 1',
    js: (a, h) => fround(`${h('$cpow')}(${a[0]}, ${a[1]})`),
    wgsl: (a, h) => `${h('c_powf')}(${a[0]}, ${a[1]})`,
    accuracy: {
      reference: 'double result rounded once (≤ 1 ulp)',
      wgsl: 'as exp2(y · log2(|x|)), C’s cases written out',
    },
    gpuUlps: 256,
  },
  viaDouble(
    'sinf',
    'Math.sin',
    'sin',
    'sine (radians)',
    'absolute 2^-11 in [-π, π]; unbounded outside',
    4096,
  ),
  viaDouble(
    'cosf',
    'Math.cos',
    'cos',
    'cosine (radians)',
    'absolute 2^-11 in [-π, π]; unbounded outside',
    4096,
  ),
  viaDouble('tanf', 'Math.tan', 'tan', 'tangent (radians)', 'as sin(x) / cos(x)', 4096),
  {
    ...viaDouble(
      'tanhf',
      'Math.tanh',
      'tanh',
      'hyperbolic tangent',
      'as sinh(x) / cosh(x); ±1 exactly beyond |x| > 10',
      64,
    ),
    wgsl: (a, h) => `${h('c_tanhf')}(${a[0]})`,
  },
  {
    name: 'atan2f',
    params: ['float', 'float'],
    ret: 'float',
    header: '<math.h>',
    double: 'atan2',
    exact: false,
    meaning: 'the angle of (x, y), y first as in C: atan2f(y, x)',
    js: (a) => fround(`Math.atan2(${a[0]}, ${a[1]})`),
    wgsl: (a) => `atan2(${a[0]}, ${a[1]})`,
    accuracy: { reference: 'double result rounded once (≤ 1 ulp)', wgsl: '4096 ulp' },
    gpuUlps: 4096,
  },
  {
    name: 'fabsf',
    params: ['float'],
    ret: 'float',
    header: '<math.h>',
    double: 'fabs',
    exact: true,
    meaning: 'absolute value',
    js: (a) => `Math.abs(${a[0]})`,
    wgsl: (a) => `abs(${a[0]})`,
    simd: { kind: 'op', op: 'f32Abs' },
    accuracy: { reference: 'exact', wgsl: 'exact' },
    gpuUlps: 0,
  },
  {
    name: 'fminf',
    params: ['float', 'float'],
    ret: 'float',
    header: '<math.h>',
    double: 'fmin',
    exact: true,
    meaning: 'the smaller; the other operand when one is NaN; of ±0 the second',
    js: (a, h) => `${h('$cmin')}(${a[0]}, ${a[1]})`,
    wgsl: (a, h) => `${h('c_fminf')}(${a[0]}, ${a[1]})`,
    simd: { kind: 'min' },
    accuracy: { reference: 'exact', wgsl: 'exact (NaN operands as the device keeps them)' },
    gpuUlps: 0,
  },
  {
    name: 'fmaxf',
    params: ['float', 'float'],
    ret: 'float',
    header: '<math.h>',
    double: 'fmax',
    exact: true,
    meaning: 'the larger; the other operand when one is NaN; of ±0 the second',
    js: (a, h) => `${h('$cmax')}(${a[0]}, ${a[1]})`,
    wgsl: (a, h) => `${h('c_fmaxf')}(${a[0]}, ${a[1]})`,
    simd: { kind: 'max' },
    accuracy: { reference: 'exact', wgsl: 'exact (NaN operands as the device keeps them)' },
    gpuUlps: 0,
  },
  {
    name: 'floorf',
    params: ['float'],
    ret: 'float',
    header: '<math.h>',
    double: 'floor',
    exact: true,
    meaning: 'round down to an integer',
    js: (a) => `Math.floor(${a[0]})`,
    wgsl: (a) => `floor(${a[0]})`,
    simd: { kind: 'op', op: 'f32Floor' },
    accuracy: { reference: 'exact', wgsl: 'exact' },
    gpuUlps: 0,
  },
  {
    name: 'ceilf',
    params: ['float'],
    ret: 'float',
    header: '<math.h>',
    double: 'ceil',
    exact: true,
    meaning: 'round up to an integer',
    js: (a) => `Math.ceil(${a[0]})`,
    wgsl: (a) => `ceil(${a[0]})`,
    simd: { kind: 'op', op: 'f32Ceil' },
    accuracy: { reference: 'exact', wgsl: 'exact' },
    gpuUlps: 0,
  },
  {
    name: 'roundf',
    params: ['float'],
    ret: 'float',
    header: '<math.h>',
    double: 'round',
    exact: true,
    meaning: 'round to the nearest integer, halves away from zero',
    js: (a, h) => `${h('$cround')}(${a[0]})`,
    wgsl: (a, h) => `${h('c_roundf')}(${a[0]})`,
    simd: { kind: 'round' },
    accuracy: { reference: 'exact', wgsl: 'exact (written out: WGSL’s round is ties-to-even)' },
    gpuUlps: 0,
  },
  {
    name: 'truncf',
    params: ['float'],
    ret: 'float',
    header: '<math.h>',
    double: 'trunc',
    exact: true,
    meaning: 'round toward zero',
    js: (a) => `Math.trunc(${a[0]})`,
    wgsl: (a) => `trunc(${a[0]})`,
    simd: { kind: 'op', op: 'f32Trunc' },
    accuracy: { reference: 'exact', wgsl: 'exact' },
    gpuUlps: 0,
  },
  {
    name: 'fmodf',
    params: ['float', 'float'],
    ret: 'float',
    header: '<math.h>',
    double: 'fmod',
    exact: true,
    meaning: 'the remainder of x / y truncated, with the sign of x; NaN for y = 0 or x infinite',
    js: (a) => `(${a[0]} % ${a[1]})`,
    wgsl: (a, h) => `${h('c_fmodf')}(${a[0]}, ${a[1]})`,
    accuracy: { reference: 'exact', wgsl: 'exact (written out by exact subtractions; WGSL has no fmod)' },
    gpuUlps: 0,
  },
  {
    name: 'abs',
    params: ['int'],
    ret: 'int',
    header: '<stdlib.h>',
    exact: true,
    meaning: 'absolute value of an int; abs(INT_MIN) wraps to INT_MIN (as gcc -fwrapv)',
    js: (a) => `(Math.abs(${a[0]}) | 0)`,
    wgsl: (a) => `abs(${a[0]})`,
    simd: { kind: 'op', op: 'i32Abs' },
    accuracy: { reference: 'exact', wgsl: 'exact' },
    gpuUlps: 0,
  },
];

const BY_NAME: ReadonlyMap<string, Builtin> = new Map(BUILTINS.map((b) => [b.name, b]));
const BY_DOUBLE: ReadonlyMap<string, Builtin> = new Map(
  BUILTINS.flatMap((b) => (b.double === undefined ? [] : [[b.double, b] as const])),
);

/** The headers that declare builtins: a kernel may include them (and needs not). */
export const BUILTIN_HEADERS: ReadonlySet<string> = new Set(BUILTINS.map((b) => b.header));

/** The builtin called `name`, if it is one. */
export function builtin(name: string): Builtin | undefined {
  return BY_NAME.get(name);
}

/** The builtin `name`'s signature as a function's (parameters `x`, `y`), for the parser. */
export function builtinSignature(
  name: string,
): { readonly name: string; readonly ret: string; readonly params: readonly Param[] } | undefined {
  const b = BY_NAME.get(name);
  if (!b) return undefined;
  const param = (ty: string, i: number): Param => {
    return { kind: 'param', name: i === 0 ? 'x' : 'y', ty, isArray: false, isConst: false, lbl: 0 };
  };
  return { name, ret: b.ret, params: b.params.map(param) };
}

/** The float builtin whose double-precision twin is `name` (`sqrt` → `sqrtf`), if there is one. */
export function builtinForDouble(name: string): Builtin | undefined {
  return BY_DOUBLE.get(name);
}

/**
 * The WGSL helper functions of the builtins whose meaning WGSL's own builtins do not give. NaN and
 * infinities are made at run time (`bitcast` of the bits, or-ed with the module's run-time zero
 * `zero`), since WGSL rejects non-finite constant expressions.
 */
export const WGSL_HELPERS = {
  c_fminf: 'fn c_fminf(x: f32, y: f32) -> f32 { return select(y, x, x < y || y != y); }',
  c_fmaxf: 'fn c_fmaxf(x: f32, y: f32) -> f32 { return select(y, x, x > y || y != y); }',
  c_roundf: [
    'fn c_roundf(x: f32) -> f32 {',
    '  let t = trunc(x);',
    '  return select(t, t + sign(x), abs(x - t) >= 0.5);',
    '}',
  ].join('\n'),
  c_tanhf: 'fn c_tanhf(x: f32) -> f32 { return select(tanh(x), sign(x), abs(x) > 10.0); }',
  c_powf: [
    'fn c_powf(x: f32, y: f32) -> f32 {',
    '  if (y == 0.0 || x == 1.0) { return 1.0; }',
    '  let ay = abs(y);',
    '  if (x == -1.0 && ay > 3.4028234e38) { return 1.0; }',
    '  let integral = trunc(y) == y;',
    '  let odd = integral && ay < 16777216.0 && (i32(ay) & 1) == 1;',
    '  if (x == 0.0) {',
    '    var m = select(0.0, bitcast<f32>(0x7f800000u | zero), y < 0.0);',
    '    if (odd && bitcast<u32>(x) != 0u) { m = -m; }',
    '    return m;',
    '  }',
    '  if (x < 0.0) {',
    '    if (!integral) { return bitcast<f32>(0x7fc00000u | zero); }',
    '    let m = exp2(y * log2(-x));',
    '    return select(m, -m, odd);',
    '  }',
    '  return exp2(y * log2(x));',
    '}',
  ].join('\n'),
  c_fmodf: [
    'fn c_fmodf(x: f32, y: f32) -> f32 {',
    '  let ay = abs(y);',
    '  var r = abs(x);',
    '  if (!(ay > 0.0) || !(r <= 3.4028234e38) || ay != ay) { return bitcast<f32>(0x7fc00000u | zero); }',
    '  // r - d for d = ay·2^k with d <= r < 2d is exact; each round at least halves r / ay',
    '  for (var i = 0; i < 300 && r >= ay; i++) {',
    '    var d = ldexp(ay, frexp(r).exp - frexp(ay).exp);',
    '    if (d > r) { d = d * 0.5; }',
    '    r = r - d;',
    '  }',
    '  return select(r, -r, x < 0.0 || bitcast<u32>(x) == 0x80000000u);',
    '}',
  ].join('\n'),
} as const;

export type WgslHelper = keyof typeof WGSL_HELPERS;

/**
 * The JavaScript helpers of the builtins whose meaning no `Math` function gives alone: the same
 * operations as the prelude's `cmath` (tests/kernel/builtins.test.ts runs both on the same values).
 * Each is a function declaration named by its key.
 */
export const JS_HELPERS = {
  $cpow: [
    'function $cpow(x, y) {',
    '  if (x === 1) return 1;',
    '  if (x === -1 && (y === Infinity || y === -Infinity)) return 1;',
    '  return x ** y;',
    '}',
  ].join('\n'),
  $cmin: 'function $cmin(x, y) { return y !== y ? x : x < y ? x : y; }',
  $cmax: 'function $cmax(x, y) { return y !== y ? x : x > y ? x : y; }',
  $cround: [
    'function $cround(x) {',
    '  const t = Math.trunc(x);',
    '  return Math.abs(x - t) >= 0.5 ? t + Math.sign(x) : t;',
    '}',
  ].join('\n'),
} as const;

export type JsHelper = keyof typeof JS_HELPERS;
