/**
 * Test helper: a generator of random, well-typed combinator programs (kernel C) for the fusion pass,
 * with arguments.
 *
 * The entry is `float* f(const float xs[], const float ys[], int n)` (or the same returning a float):
 * xs and ys have length n (0..6). Its body is a random DAG of combinator statements over xs, ys,
 * iota(n) and earlier results, drawn from a fixed pool of small pure helper functions (HELPERS), with
 * the situations fusion must get right: results used by two consumers, by indexing, by returning, as
 * a broadcast (whole) array of a stencil; statements inside an `if` or a `for` loop (producer outside,
 * consumer inside, or both inside); a scalar reassigned between a producer that reads it and a
 * consumer; combinators nested as arguments of combinators (the parser computes them into
 * temporaries).
 *
 * Every program is free of runtime errors by construction: mapped arrays always have equal lengths
 * (each array has a length class: 'n' for xs, ys, iota(n) and what maps or scans them; each filter
 * output has its own class), indexing is guarded by `n > 0` and only reads arrays of length n, the
 * stencil clamps its neighbours, and there is no int division. Floats may still overflow to inf or
 * give NaN; results are compared with Object.is.
 *
 * Choices come from a tape of random integers (a fast-check array), so fast-check shrinks a failing
 * program by shrinking the tape; an exhausted tape reads as zeros, which picks the first alternative.
 */
import fc from 'fast-check';
import type { ArgValue } from '../../src/kernel/index.js';

/** The helper functions every generated program starts with. */
export const HELPERS = `float sq(float x) { return x * x; }
float neg(float x) { return -x; }
float half(float x) { return x * 0.5f; }
float plus1(float x) { return x + 1.0f; }
float add(float a, float b) { return a + b; }
float maxf(float a, float b) { return a > b ? a : b; }
float minf(float a, float b) { return a < b ? a : b; }
float mul(float a, float b) { return a * b; }
float scale(float x, float c) { return x * c; }
int pos(float x) { return x > 0.0f; }
int small(float x) { return x < 2.0f && x > -2.0f; }
int above(float x, float lo) { return x > lo; }
float fold(float acc, float x) { return acc + 2.0f * x; }
float fold2(float acc, float x, float y) { return acc + x * y; }
float tof(int i) { return (float)i * 0.5f; }
int addi(int a, int b) { return a + b; }
int odd(int i) { return i % 2 == 1; }
float stencil(int i, const float a[], int n) {
  int l = i > 0 ? i - 1 : 0;
  int r = i < n - 1 ? i + 1 : n - 1;
  return a[l] - 2.0f * a[i] + a[r];
}
`;

/** Situations a generated program contains (the sanity test checks that each one is produced). */
export const FEATURES = [
  'map',
  'reduce',
  'scan',
  'filter',
  'iota',
  'redomap',
  'scanomap',
  'zip',
  'broadcast-scalar',
  'stencil',
  'nested',
  'int-array',
  'index',
  'return-array',
  'return-scalar',
  'two-consumers',
  'if',
  'loop',
  'loop-outer-producer',
  'reassign-after-broadcast',
] as const;
export type Feature = (typeof FEATURES)[number];

export interface FusionProgram {
  readonly source: string;
  readonly entry: string;
  /** Argument lists for the entry (xs, ys, n), of different lengths. */
  readonly argSets: readonly ArgValue[][];
  /** How many combinators (soac commands) the parsed entry contains. */
  readonly soacs: number;
  readonly features: ReadonlySet<Feature>;
}

class Tape {
  private i = 0;
  constructor(private readonly xs: readonly number[]) {}
  /** A choice in 0..n-1. */
  pick(n: number): number {
    const x = this.xs[this.i++] ?? 0;
    return x % n;
  }
  oneOf<T>(options: readonly T[]): T {
    return options[this.pick(options.length)] as T;
  }
  /** True with probability about p (false once the tape is exhausted). */
  chance(p: number): boolean {
    return this.pick(1000) >= 1000 - p * 1000;
  }
}

type Ty = 'float' | 'int';

interface Arr {
  readonly name: string;
  readonly ty: Ty;
  /** Length class: arrays of one class have equal lengths. */
  readonly cls: string;
  /** Generated here (not a parameter). */
  readonly made: boolean;
  /** Loop nesting depth where it was defined. */
  readonly loop: number;
}

interface Scope {
  readonly arrays: Arr[];
  readonly floats: string[];
  readonly ints: string[];
  readonly loop: number;
}

const UNARY = ['sq', 'neg', 'half', 'plus1'];
const BINARY = ['add', 'mul', 'maxf', 'minf'];
const NE: Record<string, string> = { add: '0.0f', mul: '1.0f', maxf: '-1000.0f', minf: '1000.0f' };

class Gen {
  private next = 1;
  private loops = 0;
  soacs = 0;
  readonly features = new Set<Feature>();
  /** Uses of each generated array (as any operand), to spot two consumers. */
  private readonly uses = new Map<string, number>();
  /** Whether `c` has been passed to a combinator as a broadcast scalar. */
  private cBroadcast = false;

  constructor(private readonly t: Tape) {}

  fresh(base: string): string {
    return `${base}${this.next++}`;
  }

  private use(a: Arr, s: Scope): string {
    if (a.made) {
      const k = (this.uses.get(a.name) ?? 0) + 1;
      this.uses.set(a.name, k);
      if (k === 2) this.features.add('two-consumers');
      if (a.loop < s.loop) this.features.add('loop-outer-producer');
    }
    return a.name;
  }

  private arrays(s: Scope, ty: Ty, cls?: string): Arr[] {
    return s.arrays.filter((a) => a.ty === ty && (cls === undefined || a.cls === cls));
  }

  /** A float array operand of class `cls` (any class if undefined): a name, or a nested map. */
  private floatSrc(s: Scope, cls?: string): { text: string; cls: string } {
    const t = this.t;
    if (t.chance(0.15)) {
      const inner = this.floatSrc(s, cls);
      this.soacs++;
      this.features.add('nested');
      this.features.add('map');
      return { text: `map(${t.oneOf(UNARY)}, ${inner.text})`, cls: inner.cls };
    }
    const a = t.oneOf(this.arrays(s, 'float', cls));
    return { text: this.use(a, s), cls: a.cls };
  }

  /** A float scalar operand: a literal or a float scalar in scope (often `c`). */
  private scalar(s: Scope): string {
    const t = this.t;
    if (t.chance(0.3)) return t.oneOf(['0.5f', '2.0f', '-1.0f']);
    const v = t.chance(0.5) ? 'c' : t.oneOf(s.floats);
    if (v === 'c') this.cBroadcast = true;
    return v;
  }

  private declareArr(s: Scope, ty: Ty, cls: string): Arr {
    const a: Arr = { name: this.fresh(ty === 'float' ? 'a' : 'k'), ty, cls, made: true, loop: s.loop };
    s.arrays.push(a);
    return a;
  }

  /** One statement (a combinator, a reassignment, an index use, an if or a loop) appended to out. */
  stmt(s: Scope, depth: number, indent: string, out: string[]): void {
    const t = this.t;
    const choice = t.pick(depth > 0 ? 19 : 17);
    const f = this.features;
    switch (choice) {
      case 0:
      case 1: {
        const src = this.floatSrc(s);
        const a = this.declareArr(s, 'float', src.cls);
        out.push(`${indent}float ${a.name}[] = map(${t.oneOf(UNARY)}, ${src.text});`);
        this.soacs++;
        f.add('map');
        return;
      }
      case 2: {
        const first = this.floatSrc(s);
        const second = this.floatSrc(s, first.cls);
        const a = this.declareArr(s, 'float', first.cls);
        out.push(`${indent}float ${a.name}[] = map(${t.oneOf(BINARY)}, ${first.text}, ${second.text});`);
        this.soacs++;
        f.add('map');
        f.add('zip');
        return;
      }
      case 3: {
        const src = this.floatSrc(s);
        const a = this.declareArr(s, 'float', src.cls);
        out.push(`${indent}float ${a.name}[] = map(scale, ${src.text}, ${this.scalar(s)});`);
        this.soacs++;
        f.add('map');
        f.add('broadcast-scalar');
        if (this.cBroadcast && t.chance(0.4)) {
          // c changes between this producer and its consumer, which reads the new c too
          f.add('reassign-after-broadcast');
          out.push(`${indent}c = c + 1.0f;`);
          if (t.chance(0.5)) {
            const b = this.declareArr(s, 'float', a.cls);
            out.push(`${indent}float ${b.name}[] = map(scale, ${this.use(a, s)}, c);`);
          } else {
            const v = this.fresh('s');
            out.push(`${indent}float ${v} = reduce(add, c, ${this.use(a, s)});`);
            s.floats.push(v);
            f.add('reduce');
          }
          this.soacs++;
        }
        return;
      }
      case 4: {
        const src = t.oneOf(this.arrays(s, 'float', 'n'));
        const a = this.declareArr(s, 'float', 'n');
        out.push(`${indent}float ${a.name}[] = map(stencil, iota(n), ${this.use(src, s)}, n);`);
        this.soacs++;
        f.add('map');
        f.add('stencil');
        return;
      }
      case 5: {
        // int arrays: iota(n), and maps/filters/scans/reductions over them
        const ints = this.arrays(s, 'int');
        f.add('int-array');
        if (ints.length === 0 || t.chance(0.3)) {
          const a = this.declareArr(s, 'int', 'n');
          out.push(`${indent}int ${a.name}[] = iota(n);`);
          f.add('iota');
        } else {
          const src = t.oneOf(ints);
          switch (t.pick(5)) {
            case 0: {
              const a = this.declareArr(s, 'float', src.cls);
              out.push(`${indent}float ${a.name}[] = map(tof, ${this.use(src, s)});`);
              f.add('map');
              break;
            }
            case 1: {
              const a = this.declareArr(s, 'int', this.fresh('f'));
              out.push(`${indent}int ${a.name}[] = filter(odd, ${this.use(src, s)});`);
              f.add('filter');
              break;
            }
            case 2: {
              const a = this.declareArr(s, 'int', src.cls);
              out.push(`${indent}int ${a.name}[] = scan(addi, 0, ${this.use(src, s)});`);
              f.add('scan');
              break;
            }
            default: {
              const v = this.fresh('i');
              out.push(`${indent}int ${v} = reduce(addi, 0, ${this.use(src, s)});`);
              s.ints.push(v);
              f.add('reduce');
            }
          }
        }
        this.soacs++;
        return;
      }
      case 6: {
        const a = this.declareArr(s, 'float', 'n');
        out.push(`${indent}float ${a.name}[] = map(tof, iota(n));`);
        this.soacs++;
        f.add('map');
        return;
      }
      case 7:
      case 8: {
        const op = t.oneOf(BINARY);
        const src = this.floatSrc(s);
        const v = this.fresh('s');
        out.push(`${indent}float ${v} = reduce(${op}, ${NE[op]}, ${src.text});`);
        s.floats.push(v);
        this.soacs++;
        f.add('reduce');
        return;
      }
      case 9: {
        const op = t.oneOf(BINARY);
        const src = this.floatSrc(s);
        const a = this.declareArr(s, 'float', src.cls);
        out.push(`${indent}float ${a.name}[] = scan(${op}, ${NE[op]}, ${src.text});`);
        this.soacs++;
        f.add('scan');
        return;
      }
      case 10: {
        const src = this.floatSrc(s);
        const a = this.declareArr(s, 'float', this.fresh('f'));
        const text = t.chance(0.3)
          ? `filter(above, ${src.text}, ${this.scalar(s)})`
          : `filter(${t.oneOf(['pos', 'small'])}, ${src.text})`;
        out.push(`${indent}float ${a.name}[] = ${text};`);
        this.soacs++;
        f.add('filter');
        return;
      }
      case 11: {
        const v = this.fresh('s');
        const first = this.floatSrc(s);
        const text = t.chance(0.4)
          ? `redomap(add, fold2, 0.0f, ${first.text}, ${this.floatSrc(s, first.cls).text})`
          : `redomap(add, fold, 0.0f, ${first.text})`;
        out.push(`${indent}float ${v} = ${text};`);
        s.floats.push(v);
        this.soacs++;
        f.add('redomap');
        return;
      }
      case 12: {
        const src = this.floatSrc(s);
        const a = this.declareArr(s, 'float', src.cls);
        out.push(`${indent}float ${a.name}[] = scanomap(add, fold, 0.0f, ${src.text});`);
        this.soacs++;
        f.add('scanomap');
        return;
      }
      case 13:
      case 14: {
        // reassign the scalar c (maybe after a combinator read it as a broadcast argument)
        if (this.cBroadcast) f.add('reassign-after-broadcast');
        const others = s.floats.filter((v) => v !== 'c');
        const rhs =
          others.length > 0 && t.chance(0.6)
            ? `c * 0.5f + ${t.oneOf(others)}`
            : s.ints.length > 0 && t.chance(0.3)
              ? `c + ${t.oneOf(s.ints)}`
              : 'c + 1.0f';
        out.push(`${indent}c = ${rhs};`);
        return;
      }
      case 15:
      case 16: {
        // read an element of an array of length n
        const a = t.oneOf(this.arrays(s, 'float', 'n'));
        const i = t.chance(0.5) ? '0' : 'n - 1';
        out.push(`${indent}c = c + (n > 0 ? ${this.use(a, s)}[${i}] : 0.0f);`);
        f.add('index');
        return;
      }
      case 17: {
        f.add('if');
        out.push(`${indent}if (c > ${t.oneOf(['0.0f', '1.0f', '3.0f'])}) {`);
        this.block(s, depth - 1, s.loop, `${indent}  `, out);
        if (t.chance(0.5)) {
          out.push(`${indent}} else {`);
          this.block(s, depth - 1, s.loop, `${indent}  `, out);
        }
        out.push(`${indent}}`);
        return;
      }
      default: {
        f.add('loop');
        const k = `t${this.loops++}`;
        out.push(`${indent}for (int ${k} = 0; ${k} < ${1 + t.pick(2)}; ${k}++) {`);
        this.block(s, depth - 1, s.loop + 1, `${indent}  `, out);
        out.push(`${indent}}`);
      }
    }
  }

  /**
   * A nested block: 1-3 statements in a copy of the scope (its declarations stay local), ending by
   * folding one of its new scalars into c so the block's work is used.
   */
  private block(s: Scope, depth: number, loop: number, indent: string, out: string[]): void {
    const inner: Scope = { arrays: [...s.arrays], floats: [...s.floats], ints: [...s.ints], loop };
    const n = 1 + this.t.pick(3);
    for (let i = 0; i < n; i++) this.stmt(inner, depth, indent, out);
    const made = inner.floats.filter((v) => !s.floats.includes(v));
    if (made.length > 0) out.push(`${indent}c = c + ${this.t.oneOf(made)};`);
  }
}

function argArray(t: Tape, n: number): number[] {
  return Array.from({ length: n }, () => (t.pick(17) - 8) / 2);
}

/** A random program from `tape` (see the file comment). */
export function generateFusionProgram(tape: readonly number[]): FusionProgram {
  const t = new Tape(tape);
  const g = new Gen(t);
  const returnsArray = t.chance(0.5);
  const lines: string[] = [HELPERS];
  lines.push(`${returnsArray ? 'float*' : 'float'} f(const float xs[], const float ys[], int n) {`);
  lines.push(`  float c = ${t.oneOf(['1.0f', '0.5f', '-2.0f'])};`);
  const s: Scope = {
    arrays: [
      { name: 'xs', ty: 'float', cls: 'n', made: false, loop: 0 },
      { name: 'ys', ty: 'float', cls: 'n', made: false, loop: 0 },
    ],
    floats: ['c'],
    ints: [],
    loop: 0,
  };
  const target = 2 + t.pick(6);
  while (g.soacs < target) g.stmt(s, 2, '  ', lines);
  if (returnsArray) {
    g.features.add('return-array');
    const made = s.arrays.filter((a) => a.made && a.ty === 'float');
    if (made.length > 0 && t.pick(4) > 0) lines.push(`  return ${t.oneOf(made).name};`);
    else {
      lines.push('  return map(scale, xs, c);');
      g.soacs++;
      g.features.add('map');
    }
  } else {
    g.features.add('return-scalar');
    const terms = [...s.floats, ...s.ints.map((v) => `(float)${v}`)];
    lines.push(`  return ${terms.join(' + ')};`);
  }
  lines.push('}');
  const lengths = [t.pick(7), t.pick(7)];
  const argSets = lengths.map((n) => [argArray(t, n), argArray(t, n), n]);
  return { source: `${lines.join('\n')}\n`, entry: 'f', argSets, soacs: g.soacs, features: g.features };
}

/** Random programs for fast-check. */
export const fusionProgram: fc.Arbitrary<FusionProgram> = fc
  .array(fc.nat({ max: 1_000_000 }), { minLength: 60, maxLength: 400, size: 'max' })
  .map(generateFusionProgram);
