/**
 * Test helper: random combinator programs (kernel C) for the WGSL back end's differential test,
 * each with a *derived error bound* for every value it returns.
 *
 * Why not tests/fusion/gen.ts: that generator's arrays have lengths 0..6 (a GPU test wants lengths
 * past a workgroup, up to ~300), and its floats may overflow or give NaN (compared with Object.is
 * there; here WGSL reassociates reductions, so only a bounded computation can be compared).
 *
 * The entry is
 *
 *   RET f(const float xs[], const float ys[], const int ks[], int n, float c, float out[], int outk[])
 *
 * where xs, ys and ks have length n, out and outk have length OUT_SLOTS, and RET is float*, int*,
 * float or int. Its body is a random sequence of combinator statements over xs, ys, ks, iota(n) and
 * earlier results: maps (unary, zipped, with a broadcast scalar — a literal, `c` or an earlier
 * reduction's result —, over iota, int↔float), stencils (a map over iota(n) reading a broadcast
 * array at i-1, i, i+1, clamped), reduce and scan (add/0, mul/1 on ±1/0 values, max and min with a
 * literal, `c` or an earlier result as the neutral element: max and min are idempotent, so any ne
 * satisfies ⊕(ne, ne) = ne and chunked evaluation equals the sequential fold; sometimes add with
 * ne = c, 1.0f or 5, where ⊕(ne, ne) ≠ ne and the runtime must fold in order), filters, redomap and
 * scanomap written directly, two reductions or maps of one source in a row (so fusion forms hfused
 * groups), combinators nested as arguments, an `if (n > K)` and a two-iteration `for` around a
 * reduction that updates `c`. Scalar results go to out/outk slots, so one run checks several
 * results. Running the fusion pass on these programs gives map∘map chains, redomaps, scanomaps,
 * filter compositions and hfused groups (the differential test runs the original and the fused
 * program).
 *
 * Error bounds. Inputs are dyadic: xs, ys = k/8 with |k| ≤ 64, c = k/8 with |k| ≤ 16, ks in
 * -100..100. For every float value the generator tracks, as a function of n, an abstract value
 * {M, q, r}:
 * - M bounds |v| and the magnitude of every intermediate quantity of its computation (for a sum,
 *   Σ|terms| — whatever order the GPU adds them in, each partial sum is at most that);
 * - while r = 0, v and every intermediate are integer multiples of q (a power of two); when also
 *   M/q ≤ 2^24 (and q ≥ 2^-120, no denormals), every operation is exact in binary32, so both back
 *   ends compute the exact real value, in any association order: r stays 0;
 * - otherwise r bounds |computed − exact| / M on either back end, first order, by the rules
 *     a ± b: max(ra, rb) + u          a·b: ra + rb + ra·rb + u        x/3: r + 2.5·2^-23
 *     Σ of n terms (reduce/scan/redomap/scanomap with +, any order): r_term + (n-1)·u
 *     max/min, negation, ·2^k: r unchanged
 *   with u = 2^-24 (binary32 round to nearest: WGSL's f32 + - * are correctly rounded; its
 *   division is 2.5 ULP, the JS back end's 0.5 ULP).
 * A float result is compared with |gpu − js| ≤ tol = 4·r·M + 2^-100: 2·r·M because both sides may
 * err, times 2 for the second-order terms the rules drop. For n = 300 a sum of divided terms has
 * r ≈ 300·2^-24 + 1.5e-7 ≈ 1.8e-5, i.e. tol ≈ 7e-5·Σ|terms| — within a "1e-4 · Σ|terms|" tolerance,
 * derived rather than guessed. Exact values (r = 0) are compared exactly (−0 = +0: a chunked max
 * may meet ±0 in another order).
 *
 * The generator keeps values in a safe range: every float bound stays ≤ 2^50 (no overflow, so no
 * inf or NaN) and every quantum ≥ 2^-60 (no denormals, which SwiftShader flushes to zero);
 * operations whose results are discontinuous in their inputs — predicates of filters, `sgn`,
 * float→int conversion — only take exact values, so both back ends decide the same way and filters
 * keep the same elements; int→float conversion only takes ints below 2^24 (WGSL may round others
 * either way). Ints wrap identically on both sides (WGSL i32 and the JS back end are two's
 * complement), so int results are compared exactly whatever they overflow to. No integer division.
 *
 * Choices come from a tape of random integers, as in tests/fusion/gen.ts (an exhausted tape reads
 * as zeros), so fast-check shrinks a failing program by shrinking the tape.
 */
import fc from 'fast-check';
import type { ArgValue } from '../../src/kernel/index.js';

/** The longest input array the generator plans for (its bounds hold for every n ≤ NMAX). */
export const NMAX = 300;
/** Slots of the out / outk output arrays that scalar results are written to. */
export const OUT_SLOTS = 6;

const U = 2 ** -24;
const DIV_ERR = 2.5 * 2 ** -23;
const MAX_BOUND = 2 ** 50;
const MIN_QUANTUM = 2 ** -60;

export const HELPERS = `float neg(float x) { return -x; }
float half(float x) { return x * 0.5f; }
float twicef(float x) { return x * 2.0f; }
float plus1(float x) { return x + 1.0f; }
float sq(float x) { return x * x; }
float third(float x) { return x / 3.0f; }
float sgn(float x) { return x > 0.0f ? 1.0f : (x < 0.0f ? -1.0f : 0.0f); }
float add(float a, float b) { return a + b; }
float sub(float a, float b) { return a - b; }
float mul(float a, float b) { return a * b; }
float maxf(float a, float b) { return a > b ? a : b; }
float minf(float a, float b) { return a < b ? a : b; }
float scale(float x, float s) { return x * s; }
float tof(int i) { return (float)i * 0.5f; }
int toi(float x) { return (int)(x * 8.0f); }
int negi(int x) { return -x; }
int inc(int x) { return x + 1; }
int twice(int x) { return 2 * x + 1; }
int addi(int a, int b) { return a + b; }
int muli(int a, int b) { return a * b; }
int maxi(int a, int b) { return a > b ? a : b; }
int mini(int a, int b) { return a < b ? a : b; }
int pos(float x) { return x > 0.0f; }
int small(float x) { return x < 2.0f && x > -2.0f; }
int above(float x, float lo) { return x > lo; }
int odd(int i) { return (i & 1) == 1; }
int posi(int i) { return i > 0; }
float fold(float acc, float x) { return acc + 2.0f * x; }
float fold2(float acc, float x, float y) { return acc + x * y; }
float stencil(int i, const float a[], int n) {
  int l = i > 0 ? i - 1 : 0;
  int r = i < n - 1 ? i + 1 : n - 1;
  return a[l] - 2.0f * a[i] + a[r];
}
float blur(int i, const float a[], int n) {
  int l = i > 0 ? i - 1 : 0;
  int r = i < n - 1 ? i + 1 : n - 1;
  return (a[l] + a[i] + a[r]) / 3.0f;
}
int stencili(int i, const int a[], int n) {
  int l = i > 0 ? i - 1 : 0;
  int r = i < n - 1 ? i + 1 : n - 1;
  return a[l] + 2 * a[i] - a[r];
}
`;

// ---- abstract values -------------------------------------------------------------------------

/** A float value's bound (see the file comment): |v| ≤ M, multiple of q while r = 0, error ≤ r·M. */
export interface FAbs {
  readonly M: number;
  readonly q: number;
  readonly r: number;
}
/** An int value's bound: |v| ≤ B; Infinity when it may wrap (then it is compared exactly anyway). */
export interface IAbs {
  readonly B: number;
}

/** A bound as a function of the input length n. */
type F = (n: number) => FAbs;
type I = (n: number) => IAbs;

function fits(M: number, q: number): boolean {
  return M / q <= 2 ** 24 && q >= 2 ** -120;
}
/** The result of an operation: exact when its operands are and it fits, else with error rate r. */
function result(M: number, q: number, exactOperands: boolean, r: number): FAbs {
  return exactOperands && fits(M, q) ? { M, q, r: 0 } : { M, q, r };
}
const fconst =
  (M: number, q: number): F =>
  () => ({ M, q, r: 0 });
/** ·f for f a power of two (or its negation): exact scaling. */
const fscale =
  (a: F, f: number): F =>
  (n) => {
    const x = a(n);
    return { M: x.M * Math.abs(f), q: x.q * Math.abs(f), r: x.r };
  };
const fadd =
  (a: F, b: F): F =>
  (n) => {
    const x = a(n);
    const y = b(n);
    return result(x.M + y.M, Math.min(x.q, y.q), x.r === 0 && y.r === 0, Math.max(x.r, y.r) + U);
  };
const fmul =
  (a: F, b: F): F =>
  (n) => {
    const x = a(n);
    const y = b(n);
    return result(x.M * y.M, x.q * y.q, x.r === 0 && y.r === 0, x.r + y.r + x.r * y.r + U);
  };
const fdiv3 =
  (a: F): F =>
  (n) => {
    const x = a(n);
    return { M: x.M / 3, q: x.q, r: x.r + DIV_ERR };
  };
const fmax =
  (a: F, b: F): F =>
  (n) => {
    const x = a(n);
    const y = b(n);
    return { M: Math.max(x.M, y.M), q: Math.min(x.q, y.q), r: Math.max(x.r, y.r) };
  };
/** A sum of `len(n)` terms bounded by `t`, in any order, starting from an exact ne of bound `ne`. */
const fsum =
  (t: F, len: (n: number) => number): F =>
  (n) => {
    const x = t(n);
    const k = len(n);
    return result(k * x.M, x.q, x.r === 0, x.r + Math.max(k - 1, 0) * U);
  };
const iconst =
  (B: number): I =>
  () => ({ B });
const iwrap = (B: number): IAbs => ({ B: B >= 2 ** 31 ? Number.POSITIVE_INFINITY : B });
const iop =
  (f: (...bs: number[]) => number, ...xs: I[]): I =>
  (n) =>
    iwrap(f(...xs.map((x) => x(n).B)));

/** The tolerance of a float value of bound `a` (see the file comment). */
export function tolerance(a: FAbs): number {
  return a.r === 0 ? 0 : 4 * a.r * a.M + 2 ** -100;
}

// ---- the generator ---------------------------------------------------------------------------

class Tape {
  private i = 0;
  constructor(private readonly xs: readonly number[]) {}
  pick(n: number): number {
    return (this.xs[this.i++] ?? 0) % n;
  }
  oneOf<T>(options: readonly T[]): T {
    return options[this.pick(options.length)] as T;
  }
  chance(p: number): boolean {
    return this.pick(1000) >= 1000 - p * 1000;
  }
}

/** Situations a generated program contains (the generator's sanity test checks each shows up). */
export const FEATURES = [
  'map',
  'zip',
  'broadcast-scalar',
  'broadcast-result',
  'reduce',
  'scan',
  'filter',
  'redomap',
  'scanomap',
  'stencil',
  'iota',
  'int',
  'float',
  'inexact',
  'mul-fold',
  'max-min-fold',
  'ne-variable',
  'non-neutral-ne',
  'nested',
  'pair',
  'if',
  'loop',
  'filter-chain',
  'return-array',
  'return-scalar',
] as const;
export type Feature = (typeof FEATURES)[number];

interface FArr {
  readonly ty: 'float';
  readonly name: string;
  /** Length class: 'n', or a filter's own class. */
  readonly cls: string;
  readonly abs: F;
  /** Length as a function of n (filters: at most their source's). */
  readonly len: (n: number) => number;
}
interface IArr {
  readonly ty: 'int';
  readonly name: string;
  readonly cls: string;
  readonly abs: I;
  readonly len: (n: number) => number;
}
type Arr = FArr | IArr;
interface FScalar {
  readonly name: string;
  abs: F;
}
interface IScalar {
  readonly name: string;
  abs: I;
}

/** What to compare a returned value or output slot with. */
export type Check = { readonly ty: 'int' } | { readonly ty: 'float'; readonly abs: F };

export interface WgslProgram {
  readonly source: string;
  readonly entry: 'f';
  readonly returns: 'float*' | 'int*' | 'float' | 'int';
  /** How to compare the result. */
  readonly result: Check;
  /** How to compare out[j] / outk[j] (unwritten slots are exact zeros). */
  readonly out: readonly Check[];
  readonly outk: readonly Check[];
  readonly features: ReadonlySet<Feature>;
  /** Combinators written in the source (nested ones included). */
  readonly soacs: number;
}

const F_UNARY: readonly { fn: string; abs: (a: F) => F; exactOnly?: boolean }[] = [
  { fn: 'neg', abs: (a) => fscale(a, -1) },
  { fn: 'half', abs: (a) => fscale(a, 0.5) },
  { fn: 'twicef', abs: (a) => fscale(a, 2) },
  { fn: 'plus1', abs: (a) => fadd(a, fconst(1, 1)) },
  { fn: 'sq', abs: (a) => fmul(a, a) },
  { fn: 'third', abs: (a) => fdiv3(a) },
  { fn: 'sgn', abs: () => fconst(1, 1), exactOnly: true },
];
const F_BINARY: readonly { fn: string; abs: (a: F, b: F) => F }[] = [
  { fn: 'add', abs: fadd },
  { fn: 'sub', abs: fadd },
  { fn: 'mul', abs: fmul },
  { fn: 'maxf', abs: fmax },
  { fn: 'minf', abs: fmax },
];

class Gen {
  private next = 1;
  soacs = 0;
  readonly features = new Set<Feature>();
  readonly arrays: Arr[] = [];
  readonly floats: FScalar[] = [];
  readonly ints: IScalar[] = [];
  readonly lines: string[] = [];
  readonly out: Check[] = [];
  readonly outk: Check[] = [];
  readonly c: FScalar = { name: 'c', abs: fconst(2, 1 / 8) };

  constructor(private readonly t: Tape) {
    const n = (k: number) => k;
    this.arrays.push(
      { ty: 'float', name: 'xs', cls: 'n', abs: fconst(8, 1 / 8), len: n },
      { ty: 'float', name: 'ys', cls: 'n', abs: fconst(8, 1 / 8), len: n },
      { ty: 'int', name: 'ks', cls: 'n', abs: iconst(100), len: n },
    );
    this.floats.push(this.c);
  }

  private fresh(base: string): string {
    return `${base}${this.next++}`;
  }
  private ok(a: F): boolean {
    const x = a(NMAX);
    return x.M <= MAX_BOUND && x.q >= MIN_QUANTUM;
  }
  private exact(a: F): boolean {
    return a(NMAX).r === 0;
  }
  private floatsOf(pred: (a: FArr) => boolean = () => true): FArr[] {
    return this.arrays.filter((a): a is FArr => a.ty === 'float' && pred(a));
  }
  private intsOf(pred: (a: IArr) => boolean = () => true): IArr[] {
    return this.arrays.filter((a): a is IArr => a.ty === 'int' && pred(a));
  }
  private emit(line: string): void {
    this.lines.push(`  ${line}`);
  }
  private noteFloat(a: F): void {
    this.features.add('float');
    if (!this.exact(a)) this.features.add('inexact');
  }

  /** A float array operand: an array in scope, or (sometimes) a map nested as an argument. */
  private fsrc(pred: (a: FArr) => boolean = () => true): FArr {
    const t = this.t;
    const base = t.oneOf(this.floatsOf(pred).length > 0 ? this.floatsOf(pred) : this.floatsOf());
    if (t.chance(0.15)) {
      const u = t.oneOf(F_UNARY.filter((o) => !o.exactOnly));
      const abs = u.abs(base.abs);
      if (this.ok(abs) && pred({ ...base, abs })) {
        this.soacs++;
        this.features.add('nested');
        this.features.add('map');
        return { ...base, name: `map(${u.fn}, ${base.name})`, abs };
      }
    }
    return base;
  }
  private declare(a: Arr, decl: string): void {
    this.arrays.push(a);
    this.emit(`${a.ty} ${a.name}[] = ${decl};`);
  }
  /** A float scalar operand for a broadcast: a literal, c or an earlier result. */
  private fscalar(exactOnly: boolean): { text: string; abs: F } {
    const t = this.t;
    const pool = this.floats.filter((s) => !exactOnly || this.exact(s.abs));
    // a literal always, when no scalar in scope is exact enough (c may be inexact by now)
    if (pool.length === 0 || t.chance(0.35)) {
      const [text, v] = t.oneOf([
        ['0.5f', 0.5],
        ['2.0f', 2],
        ['-1.0f', 1],
        ['0.25f', 0.25],
      ] as const);
      return { text, abs: fconst(v, v === 0.25 ? 0.25 : 0.5) };
    }
    const results = pool.filter((s) => s !== this.c);
    const s = t.oneOf(results.length > 0 && t.chance(0.6) ? results : pool);
    if (s !== this.c) this.features.add('broadcast-result');
    this.features.add('broadcast-scalar');
    return { text: s.name, abs: s.abs };
  }

  stmt(): void {
    const t = this.t;
    const f = this.features;
    switch (t.pick(20)) {
      case 0:
      case 1: {
        const src = this.fsrc();
        const u = t.oneOf(F_UNARY);
        let fn = u.fn;
        let abs = u.abs(src.abs);
        if ((u.exactOnly && !this.exact(src.abs)) || !this.ok(abs)) {
          fn = 'neg';
          abs = fscale(src.abs, -1);
        }
        this.declare(
          { ty: 'float', name: this.fresh('a'), cls: src.cls, abs, len: src.len },
          `map(${fn}, ${src.name})`,
        );
        this.soacs++;
        f.add('map');
        this.noteFloat(abs);
        return;
      }
      case 2: {
        const a = this.fsrc();
        const b = this.fsrc((x) => x.cls === a.cls);
        const op = t.oneOf(F_BINARY);
        const abs = op.abs(a.abs, b.abs);
        const [fn, r] = this.ok(abs) ? [op.fn, abs] : ['maxf', fmax(a.abs, b.abs)];
        this.declare(
          { ty: 'float', name: this.fresh('a'), cls: a.cls, abs: r, len: a.len },
          `map(${fn}, ${a.name}, ${b.name})`,
        );
        this.soacs++;
        f.add('map');
        f.add('zip');
        this.noteFloat(r);
        return;
      }
      case 3: {
        const src = this.fsrc();
        const s = this.fscalar(false);
        let abs = fmul(src.abs, s.abs);
        let text = s.text;
        if (!this.ok(abs)) {
          text = '0.5f';
          abs = fscale(src.abs, 0.5);
        }
        this.declare(
          { ty: 'float', name: this.fresh('a'), cls: src.cls, abs, len: src.len },
          `map(scale, ${src.name}, ${text})`,
        );
        this.soacs++;
        f.add('map');
        this.noteFloat(abs);
        return;
      }
      case 4: {
        // stencil over iota(n), a broadcast array of length n
        f.add('stencil');
        f.add('iota');
        f.add('map');
        this.soacs++;
        if (t.chance(0.3)) {
          const src = t.oneOf(this.intsOf((a) => a.cls === 'n'));
          const abs = iop((b) => 4 * b, src.abs);
          f.add('int');
          this.declare(
            { ty: 'int', name: this.fresh('k'), cls: 'n', abs, len: src.len },
            `map(stencili, iota(n), ${src.name}, n)`,
          );
          return;
        }
        const src = t.oneOf(this.floatsOf((a) => a.cls === 'n'));
        const blur = t.chance(0.4);
        const abs = blur
          ? fdiv3(fadd(fadd(src.abs, src.abs), src.abs))
          : fadd(fadd(src.abs, fscale(src.abs, 2)), src.abs);
        this.declare(
          { ty: 'float', name: this.fresh('a'), cls: 'n', abs, len: src.len },
          `map(${blur ? 'blur' : 'stencil'}, iota(n), ${src.name}, n)`,
        );
        this.noteFloat(abs);
        return;
      }
      case 5: {
        // iota and int maps
        f.add('int');
        f.add('map');
        this.soacs++;
        const k = t.pick(5);
        if (k === 0) {
          f.add('iota');
          this.declare(
            { ty: 'int', name: this.fresh('k'), cls: 'n', abs: (n) => ({ B: n }), len: (n) => n },
            'iota(n)',
          );
          return;
        }
        if (k === 1) {
          f.add('iota');
          this.declare(
            {
              ty: 'float',
              name: this.fresh('a'),
              cls: 'n',
              abs: (n) => ({ M: n / 2, q: 0.5, r: 0 }),
              len: (n) => n,
            },
            'map(tof, iota(n))',
          );
          f.add('float');
          return;
        }
        if (k === 2) {
          const src = this.intsOf((a) => a.abs(NMAX).B <= 2 ** 24);
          if (src.length > 0) {
            const s = t.oneOf(src);
            this.declare(
              {
                ty: 'float',
                name: this.fresh('a'),
                cls: s.cls,
                abs: (n) => ({ M: s.abs(n).B / 2, q: 0.5, r: 0 }),
                len: s.len,
              },
              `map(tof, ${s.name})`,
            );
            f.add('float');
            return;
          }
        }
        if (k === 3) {
          const src = this.floatsOf((a) => {
            const x = a.abs(NMAX);
            return x.r === 0 && x.M <= 2 ** 24;
          });
          if (src.length > 0) {
            const s = t.oneOf(src);
            this.declare(
              {
                ty: 'int',
                name: this.fresh('k'),
                cls: s.cls,
                abs: iop(
                  (m) => 8 * m,
                  (n) => ({ B: s.abs(n).M }),
                ),
                len: s.len,
              },
              `map(toi, ${s.name})`,
            );
            return;
          }
        }
        const src = t.oneOf(this.intsOf());
        const [fn, abs] = t.oneOf([
          ['negi', src.abs],
          ['inc', iop((b) => b + 1, src.abs)],
          ['twice', iop((b) => 2 * b + 1, src.abs)],
        ] as const);
        this.declare(
          { ty: 'int', name: this.fresh('k'), cls: src.cls, abs, len: src.len },
          `map(${fn}, ${src.name})`,
        );
        return;
      }
      case 6: {
        // zip of ints
        f.add('int');
        f.add('map');
        f.add('zip');
        this.soacs++;
        const a = t.oneOf(this.intsOf());
        const b = t.oneOf(this.intsOf((x) => x.cls === a.cls));
        const [fn, abs] = t.oneOf([
          ['addi', iop((x, y) => x + y, a.abs, b.abs)],
          ['muli', iop((x, y) => x * y, a.abs, b.abs)],
          ['maxi', iop(Math.max, a.abs, b.abs)],
        ] as const);
        this.declare(
          { ty: 'int', name: this.fresh('k'), cls: a.cls, abs, len: a.len },
          `map(${fn}, ${a.name}, ${b.name})`,
        );
        return;
      }
      case 7:
      case 8:
        this.fold('reduce');
        return;
      case 9:
      case 10:
        this.fold('scan');
        return;
      case 11:
      case 12: {
        // filter (predicates only on exact values)
        f.add('filter');
        this.soacs++;
        const cls = this.fresh('f');
        if (t.chance(0.3)) {
          f.add('int');
          const src = t.oneOf(this.intsOf());
          const text = `filter(${t.oneOf(['odd', 'posi'])}, ${src.name})`;
          this.declare({ ty: 'int', name: this.fresh('k'), cls, abs: src.abs, len: src.len }, text);
          return;
        }
        const filtered = this.floatsOf((a) => a.cls !== 'n' && this.exact(a.abs));
        const src =
          filtered.length > 0 && t.chance(0.5) ? t.oneOf(filtered) : this.fsrc((a) => this.exact(a.abs));
        if (!this.exact(src.abs)) {
          // no exact float array at hand: filter the inputs
          const s = t.oneOf(this.floatsOf((a) => a.name === 'xs' || a.name === 'ys'));
          this.declare(
            { ty: 'float', name: this.fresh('a'), cls, abs: s.abs, len: s.len },
            `filter(pos, ${s.name})`,
          );
          return;
        }
        if (src.cls !== 'n') f.add('filter-chain');
        let text: string;
        if (t.chance(0.3)) {
          const lo = this.fscalar(true);
          text = `filter(above, ${src.name}, ${lo.text})`;
        } else text = `filter(${t.oneOf(['pos', 'small'])}, ${src.name})`;
        this.declare({ ty: 'float', name: this.fresh('a'), cls, abs: src.abs, len: src.len }, text);
        this.noteFloat(src.abs);
        return;
      }
      case 13: {
        // redomap written directly
        f.add('redomap');
        this.soacs++;
        const a = this.fsrc();
        const v = this.fresh('s');
        let abs: F;
        let text: string;
        if (t.chance(0.4)) {
          const b = this.fsrc((x) => x.cls === a.cls);
          abs = fsum(fmul(a.abs, b.abs), a.len);
          text = `redomap(add, fold2, 0.0f, ${a.name}, ${b.name})`;
          if (!this.ok(abs)) {
            abs = fsum(fscale(a.abs, 2), a.len);
            text = `redomap(add, fold, 0.0f, ${a.name})`;
          }
        } else {
          abs = fsum(fscale(a.abs, 2), a.len);
          text = `redomap(add, fold, 0.0f, ${a.name})`;
        }
        this.emit(`float ${v} = ${text};`);
        this.floats.push({ name: v, abs });
        this.noteFloat(abs);
        return;
      }
      case 14: {
        f.add('scanomap');
        this.soacs++;
        const a = this.fsrc();
        const abs = fsum(fscale(a.abs, 2), a.len);
        this.declare(
          { ty: 'float', name: this.fresh('a'), cls: a.cls, abs, len: a.len },
          `scanomap(add, fold, 0.0f, ${a.name})`,
        );
        this.noteFloat(abs);
        return;
      }
      case 15: {
        // two combinators over one source in a row: fusion groups them (hfused)
        f.add('pair');
        const src = t.oneOf(this.floatsOf());
        if (t.chance(0.5)) {
          const s1 = this.fresh('s');
          const s2 = this.fresh('s');
          const abs1 = fsum(src.abs, src.len);
          const abs2 = fmax(src.abs, fconst(1000, 1));
          this.emit(`float ${s1} = reduce(add, 0.0f, ${src.name});`);
          this.emit(`float ${s2} = reduce(maxf, -1000.0f, ${src.name});`);
          this.floats.push({ name: s1, abs: abs1 }, { name: s2, abs: abs2 });
          f.add('reduce');
          this.noteFloat(abs1);
        } else {
          const a1: FArr = {
            ty: 'float',
            name: this.fresh('a'),
            cls: src.cls,
            abs: fscale(src.abs, 0.5),
            len: src.len,
          };
          const a2: FArr = {
            ty: 'float',
            name: this.fresh('a'),
            cls: src.cls,
            abs: fscale(src.abs, -1),
            len: src.len,
          };
          this.declare(a1, `map(half, ${src.name})`);
          this.declare(a2, `map(neg, ${src.name})`);
          f.add('map');
          this.noteFloat(src.abs);
        }
        this.soacs += 2;
        return;
      }
      case 16: {
        // a reduction under a condition on n, updating c
        f.add('if');
        f.add('reduce');
        f.add('map');
        this.soacs += 2;
        const src = t.oneOf(this.floatsOf((a) => a.cls === 'n'));
        const k = t.oneOf([0, 1, 200, 256]);
        const before = this.c.abs;
        const sum = fsum(fscale(src.abs, 0.5), src.len);
        const after = fadd(before, sum);
        const v = this.fresh('s');
        this.emit(`if (n > ${k}) {`);
        this.emit(`  float ${v} = reduce(add, 0.0f, map(half, ${src.name}));`);
        this.emit(`  c = c + ${v};`);
        this.emit('}');
        this.c.abs = (n) => {
          const a = before(n);
          const b = after(n);
          return { M: Math.max(a.M, b.M), q: Math.min(a.q, b.q), r: Math.max(a.r, b.r) };
        };
        this.noteFloat(sum);
        return;
      }
      case 17: {
        // a reduction in a loop: the site runs twice, with c different each time
        f.add('loop');
        f.add('reduce');
        f.add('map');
        f.add('broadcast-scalar');
        this.soacs += 2;
        const src = t.oneOf(this.floatsOf((a) => a.cls === 'n'));
        const t0 = this.fresh('t');
        this.emit(`for (int ${t0} = 0; ${t0} < 2; ${t0}++) {`);
        const v = this.fresh('s');
        this.emit(`  float ${v} = reduce(maxf, c, map(scale, ${src.name}, 0.25f));`);
        this.emit(`  c = c * 0.5f + ${v};`);
        this.emit('}');
        f.add('max-min-fold');
        f.add('ne-variable');
        let abs = this.c.abs;
        for (let i = 0; i < 2; i++) abs = fadd(fscale(abs, 0.5), fmax(abs, fscale(src.abs, 0.25)));
        this.c.abs = abs;
        return;
      }
      default: {
        // write a scalar result to an output slot now (later statements may still use it)
        const pending = this.floats.filter((v) => v !== this.c && !this.written.has(v.name));
        if (pending.length > 0 && this.out.length < OUT_SLOTS) {
          this.writeFloat(t.oneOf(pending));
          return;
        }
        const ipending = this.ints.filter((v) => !this.written.has(v.name));
        if (ipending.length > 0 && this.outk.length < OUT_SLOTS) {
          this.writeInt(t.oneOf(ipending));
          return;
        }
        this.fold('reduce');
      }
    }
  }

  readonly written = new Set<string>();
  writeFloat(v: FScalar): void {
    this.emit(`out[${this.out.length}] = ${v.name};`);
    this.out.push({ ty: 'float', abs: v.abs });
    this.written.add(v.name);
  }
  writeInt(v: IScalar): void {
    this.emit(`outk[${this.outk.length}] = ${v.name};`);
    this.outk.push({ ty: 'int' });
    this.written.add(v.name);
  }

  /** Whether array `name` is read by a line after its declaration. */
  used(name: string): boolean {
    const decl = this.lines.findIndex((l) => l.includes(` ${name}[] = `));
    const re = new RegExp(`\\b${name}\\b`);
    return this.lines.some((l, i) => i > decl && re.test(l));
  }

  /**
   * Makes the results observable: reduces (some of) the arrays nothing reads into scalars, then
   * writes scalar results that are not written yet to free out / outk slots.
   */
  finish(returned: string | undefined): void {
    const unread = this.arrays.filter(
      (a) => !['xs', 'ys', 'ks'].includes(a.name) && a.name !== returned && !this.used(a.name),
    );
    for (const a of unread.slice(0, 3)) {
      this.soacs++;
      this.features.add('reduce');
      if (a.ty === 'float') {
        const v = this.fresh('s');
        this.emit(`float ${v} = reduce(add, 0.0f, ${a.name});`);
        this.floats.push({ name: v, abs: fsum(a.abs, a.len) });
      } else {
        const v = this.fresh('i');
        this.emit(`int ${v} = reduce(addi, 0, ${a.name});`);
        this.ints.push({ name: v, abs: () => ({ B: Number.POSITIVE_INFINITY }) });
      }
    }
    for (const v of this.floats)
      if (v !== this.c && !this.written.has(v.name) && this.out.length < OUT_SLOTS) this.writeFloat(v);
    for (const v of this.ints)
      if (!this.written.has(v.name) && this.outk.length < OUT_SLOTS) this.writeInt(v);
  }

  /** A reduce or scan, float or int, with an operator and a neutral element that suit each other. */
  private fold(op: 'reduce' | 'scan'): void {
    const t = this.t;
    const f = this.features;
    f.add(op);
    this.soacs++;
    if (t.chance(0.35)) {
      f.add('int');
      const src = t.oneOf(this.intsOf());
      const ivars = this.ints.map((s) => s.name);
      const kind = t.pick(3);
      let text: string;
      let abs: I;
      if (kind === 0) {
        // mostly 0; sometimes an ne with ⊕(ne, ne) ≠ ne (the runtime then folds in order)
        const ne = t.chance(0.75) ? '0' : ivars.length > 0 && t.chance(0.5) ? t.oneOf(ivars) : '5';
        if (ne !== '0') f.add('non-neutral-ne');
        text = `addi, ${ne}`;
        abs = ne === '0' ? (n) => iwrap(src.abs(n).B * src.len(n)) : () => ({ B: Number.POSITIVE_INFINITY });
      } else if (kind === 1) {
        f.add('mul-fold');
        text = 'muli, 1';
        abs = () => ({ B: Number.POSITIVE_INFINITY });
      } else {
        f.add('max-min-fold');
        const ne = ivars.length > 0 && t.chance(0.4) ? t.oneOf(ivars) : t.oneOf(['0', '-1000', '7']);
        if (ivars.includes(ne)) f.add('ne-variable');
        text = `${t.oneOf(['maxi', 'mini'])}, ${ne}`;
        abs = () => ({ B: Number.POSITIVE_INFINITY });
      }
      const call = `${op}(${text}, ${src.name})`;
      if (op === 'reduce') {
        const v = this.fresh('i');
        this.emit(`int ${v} = ${call};`);
        this.ints.push({ name: v, abs });
      } else this.declare({ ty: 'int', name: this.fresh('k'), cls: src.cls, abs, len: src.len }, call);
      return;
    }
    const src = this.fsrc();
    let text: string;
    let abs: F;
    const kind = t.pick(4);
    if (kind === 0 || kind === 1) {
      text = 'add, 0.0f';
      abs = fsum(src.abs, src.len);
      if (t.chance(0.2)) {
        // ⊕(ne, ne) ≠ ne (unless c happens to be 0): the runtime's in-order fallback
        f.add('non-neutral-ne');
        const ne = t.chance(0.5) ? { text: 'c', abs: this.c.abs } : { text: '1.0f', abs: fconst(1, 1) };
        text = `add, ${ne.text}`;
        abs = fadd(ne.abs, fsum(src.abs, src.len));
      }
    } else if (kind === 2) {
      f.add('max-min-fold');
      const pool = this.floats.filter((s) => s.abs(NMAX).M <= MAX_BOUND);
      let ne: { text: string; abs: F };
      if (t.chance(0.4) && pool.length > 0) {
        const s = t.oneOf(pool);
        ne = { text: s.name, abs: s.abs };
        f.add('ne-variable');
      } else
        ne = t.oneOf([
          { text: '-1000.0f', abs: fconst(1000, 1) },
          { text: '0.0f', abs: fconst(0, 1) },
          { text: '1000.0f', abs: fconst(1000, 1) },
        ]);
      text = `${t.oneOf(['maxf', 'minf'])}, ${ne.text}`;
      abs = fmax(src.abs, ne.abs);
    } else {
      // mul over values in {-1, 0, 1}: products stay exact and bounded
      f.add('mul-fold');
      const unit: FArr = { ...src, name: `map(sgn, ${src.name})`, abs: fconst(1, 1) };
      if (this.exact(src.abs)) {
        this.soacs++;
        f.add('nested');
        f.add('map');
        text = 'mul, 1.0f';
        abs = fconst(1, 1);
        const call = `${op}(${text}, ${unit.name})`;
        if (op === 'reduce') {
          const v = this.fresh('s');
          this.emit(`float ${v} = ${call};`);
          this.floats.push({ name: v, abs });
        } else this.declare({ ty: 'float', name: this.fresh('a'), cls: src.cls, abs, len: src.len }, call);
        f.add('float');
        return;
      }
      text = 'add, 0.0f';
      abs = fsum(src.abs, src.len);
    }
    const call = `${op}(${text}, ${src.name})`;
    if (op === 'reduce') {
      const v = this.fresh('s');
      this.emit(`float ${v} = ${call};`);
      this.floats.push({ name: v, abs });
    } else this.declare({ ty: 'float', name: this.fresh('a'), cls: src.cls, abs, len: src.len }, call);
    this.noteFloat(abs);
  }
}

/** A random program from `tape` (see the file comment). */
export function generateWgslProgram(tape: readonly number[]): WgslProgram {
  const t = new Tape(tape);
  const g = new Gen(t);
  const target = 2 + t.pick(6);
  while (g.soacs < target) g.stmt();
  const returnsArray = t.chance(0.6);
  let returns: WgslProgram['returns'];
  let result: Check;
  let ret: string;
  if (returnsArray) {
    g.features.add('return-array');
    const made = g.arrays.filter((a) => a.name !== 'xs' && a.name !== 'ys' && a.name !== 'ks');
    const unread = made.filter((a) => !g.used(a.name));
    const pool = unread.length > 0 ? unread : made;
    const a = pool.length > 0 ? t.oneOf(pool) : undefined;
    g.finish(a?.name);
    if (a === undefined) {
      ret = 'map(scale, xs, c)';
      g.soacs++;
      returns = 'float*';
      result = { ty: 'float', abs: fmul(fconst(8, 1 / 8), g.c.abs) };
    } else {
      ret = a.name;
      returns = a.ty === 'float' ? 'float*' : 'int*';
      result = a.ty === 'float' ? { ty: 'float', abs: a.abs } : { ty: 'int' };
    }
  } else {
    g.features.add('return-scalar');
    g.finish(undefined);
    if (g.ints.length > 0 && t.chance(0.3)) {
      const s = t.oneOf(g.ints);
      ret = s.name;
      returns = 'int';
      result = { ty: 'int' };
    } else {
      const terms = g.floats.filter((s) => s !== g.c);
      const s = terms.length > 0 ? t.oneOf(terms) : g.c;
      // the host adds c: host arithmetic on a GPU result
      ret = `${s.name} + c`;
      returns = 'float';
      result = { ty: 'float', abs: fadd(s.abs, g.c.abs) };
    }
  }
  g.lines.push(`  return ${ret};`);
  const header = `${returns} f(const float xs[], const float ys[], const int ks[], int n, float c, float out[], int outk[]) {`;
  const source = `${HELPERS}\n${header}\n${g.lines.join('\n')}\n}\n`;
  return {
    source,
    entry: 'f',
    returns,
    result,
    out: g.out,
    outk: g.outk,
    features: g.features,
    soacs: g.soacs,
  };
}

/** The arguments of a generated entry for a given length n and data. */
export interface WgslArgs {
  readonly n: number;
  readonly xs: readonly number[];
  readonly ys: readonly number[];
  readonly ks: readonly number[];
  readonly c: number;
}

export function argList(a: WgslArgs): ArgValue[] {
  return [
    [...a.xs],
    [...a.ys],
    [...a.ks],
    a.n,
    a.c,
    new Array(OUT_SLOTS).fill(0),
    new Array(OUT_SLOTS).fill(0),
  ];
}

/** Lengths: often 0, 1, 2 and around one workgroup (255..257), else anything up to NMAX. */
export const lengthArb: fc.Arbitrary<number> = fc.oneof(
  { weight: 1, arbitrary: fc.constantFrom(0, 1, 2, 255, 256, 257, NMAX) },
  { weight: 2, arbitrary: fc.nat({ max: NMAX }) },
);

export const argsArb: fc.Arbitrary<WgslArgs> = lengthArb.chain((n) =>
  fc.record({
    n: fc.constant(n),
    xs: fc.array(
      fc.integer({ min: -64, max: 64 }).map((k) => k / 8),
      { minLength: n, maxLength: n },
    ),
    ys: fc.array(
      fc.integer({ min: -64, max: 64 }).map((k) => k / 8),
      { minLength: n, maxLength: n },
    ),
    ks: fc.array(fc.integer({ min: -100, max: 100 }), { minLength: n, maxLength: n }),
    c: fc.integer({ min: -16, max: 16 }).map((k) => k / 8),
  }),
);

/** The random choices one generated program is built from. */
export const wgslTapeArb: fc.Arbitrary<number[]> = fc.array(fc.nat({ max: 1_000_000 }), {
  minLength: 40,
  maxLength: 200,
  size: 'max',
});

export const wgslProgramArb: fc.Arbitrary<WgslProgram> = wgslTapeArb.map(generateWgslProgram);

/** Where `actual` differs from `expected` beyond the check's tolerance at length n, or undefined. */
export function compareValue(
  what: string,
  check: Check,
  n: number,
  actual: number | number[] | undefined,
  expected: number | number[] | undefined,
): string | undefined {
  const tol = check.ty === 'int' ? 0 : tolerance(check.abs(n));
  const one = (w: string, a: number | undefined, e: number | undefined): string | undefined => {
    if (typeof a !== 'number' || typeof e !== 'number') return `${w}: ${a} vs expected ${e}`;
    if (Object.is(a, e)) return undefined;
    if (!Number.isFinite(a) || !Number.isFinite(e)) return `${w}: ${a} vs expected ${e} (not finite)`;
    if (check.ty === 'int') return a === e ? undefined : `${w}: ${a} vs expected ${e} (ints: exact)`;
    return Math.abs(a - e) <= tol
      ? undefined
      : `${w}: ${a} vs expected ${e}, |diff| ${Math.abs(a - e)} > tolerance ${tol}`;
  };
  if (Array.isArray(expected) || Array.isArray(actual)) {
    if (!Array.isArray(expected) || !Array.isArray(actual))
      return `${what}: ${JSON.stringify(actual)} vs expected ${JSON.stringify(expected)}`;
    if (actual.length !== expected.length)
      return `${what}: length ${actual.length} vs expected ${expected.length}`;
    for (let i = 0; i < expected.length; i++) {
      const d = one(`${what}[${i}]`, actual[i], expected[i]);
      if (d !== undefined) return d;
    }
    return undefined;
  }
  return one(what, actual as number | undefined, expected as number | undefined);
}
