/**
 * const-prop, copy-prop and DAE on combinators (`soac`, `hfused`, src/kernel/ast.ts):
 * - every pass alone and the whole pipeline, with and without bindings, preserve the results of
 *   random successful executions (fast-check), and keep labels unique;
 * - constants reach the combinators' atoms (iota lengths, neutral elements, scalar arguments), copies
 *   too; a lambda changes only to call a clone of its function; a reduce's scalar is not known afterwards;
 * - DAE removes a reduce whose scalar is dead and a combinator whose array nothing reads;
 * - a hand-built horizontally fused loop goes through every pass;
 * - kernel-walk's label helpers cover every node of a combinator, lambdas included;
 * - the optimizers desugared to Core give what they give natively; the abstract printer prints a
 *   combinator as the concrete printer does.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { fromConcrete } from '../../src/abstract-values/index.js';
import {
  type ArgValue,
  type Cmd,
  type EvalResult,
  type Expr,
  equalModuloLabels,
  type Fun,
  type Lam,
  listFromArray,
  listToArray,
  loadKernelParser,
  maxLabel,
  type Program,
  printFun,
  type Soac,
} from '../../src/kernel/index.js';
import { optimize as constProp } from '../../src/optimizers/const-prop.js';
import { optimize as copyProp } from '../../src/optimizers/copy-prop.js';
import { optimize as dae } from '../../src/optimizers/dae.js';
import {
  type Bindings,
  formalsFromBindings,
  runPipeline,
  validateLabels,
} from '../../src/optimizers/index.js';
import { maxLabelFun, relabelCmd } from '../../src/optimizers/kernel-walk.js';
import { compileFile, Interpreter } from '../../src/scf-lang/index.js';
import { equal } from '../../src/scf-lang/prelude.js';
import { KERNEL_CTORS, printAbstractFun } from '../../src/pipeline/print-abstract.js';
import { expectOpt, parseC, passes, ROOT, replaceFun, tryEval } from './helpers.js';

beforeAll(loadKernelParser);

// ---- programs ------------------------------------------------------------------------------------

const BASIC = `
float sq(float x) { return x * x; }
float add(float a, float b) { return a + b; }
float f(const float xs[], int k) {
  float ys[] = map(sq, xs);
  float s = reduce(add, 0.0f, ys);
  float dead = reduce(add, 1.0f, xs);
  float zs[] = scan(add, s, ys);
  float unused[] = map(sq, zs);
  return s + zs[0] * (float)k;
}`;

const CONV = `
float conv_at(int k, const float img[], int w, int h) {
  int l = k > 0 ? k - 1 : k;
  return img[l] * 0.5f + img[k] + (float)(w - h);
}
float add(float a, float b) { return a + b; }
float f(const float img[], int w, int h, float out[]) {
  int n = w * h;
  int m = n;
  int ix[] = iota(m);
  float cs[] = map(conv_at, iota(w * h), img, w, h);
  float t = reduce(add, 0.0f, cs);
  int i;
  for (i = 0; i < n; i++) out[i] = cs[i] + (float)ix[i];
  return t;
}`;

const LOOP = `
int pos(float x) { return x > 0.0f; }
float add(float a, float b) { return a + b; }
float scale(float x, float c) { return x * c; }
float fold(float acc, float x, float c) { return acc + x * c; }
float f(const float xs[], float c, int reps) {
  float acc = 0.0f;
  int r;
  for (r = 0; r < reps; r++) {
    float ys[] = map(scale, xs, c);
    float ps[] = filter(pos, ys);
    float s = redomap(add, fold, acc, ps, c);
    acc = s;
  }
  float zs[] = scanomap(add, fold, 0.0f, xs, c);
  float tot = reduce(add, 0.0f, zs);
  return acc + tot;
}`;

const COPIES = `
int addi(int a, int b) { return a + b; }
int f(const int xs[], int b) {
  int a = b;
  int t = a;
  a = reduce(addi, a, xs);
  int u = a;
  int m = b;
  int ix[] = iota(m);
  int v = reduce(addi, m, ix);
  return t + u + a + v;
}`;

/** Two reductions over xs and two maps, to be fused horizontally by hand (`fusedProgram`). */
const fusable = (result: string) => `
float add(float a, float b) { return a + b; }
float mul(float a, float b) { return a * b; }
float sq(float x) { return x * x; }
float neg(float x) { return -x; }
float f(const float xs[], float z, int k) {
  float one = z;
  float s = reduce(add, one, xs);
  float p = reduce(mul, one, xs);
  float sqs[] = map(sq, xs);
  float negs[] = map(neg, xs);
  return ${result};
}`;
/** p and negs are dead. */
const FUSABLE = fusable('s + sqs[k]');

// ---- helpers -------------------------------------------------------------------------------------

const entry = (p: Program): Fun => {
  const fs = listToArray(p);
  return fs[fs.length - 1] as Fun;
};

/** Results and output arrays equal bit for bit (also when the function returns an array). */
function sameEval(a: EvalResult, b: EvalResult): boolean {
  const same = (x: unknown, y: unknown): boolean =>
    Array.isArray(x) && Array.isArray(y)
      ? x.length === y.length && x.every((v, i) => Object.is(v, y[i]))
      : Object.is(x, y);
  const ka = Object.keys(a.outputs).sort();
  const kb = Object.keys(b.outputs).sort();
  return (
    same(a.result, b.result) && ka.join() === kb.join() && ka.every((k) => same(a.outputs[k], b.outputs[k]))
  );
}

const PIPELINES = ['const-prop', 'copy-prop', 'dae', 'const-prop,copy-prop,dae', 'copy-prop,dae,dae'];

function pick(args: Record<string, ArgValue>, names: readonly string[]): Bindings {
  return Object.fromEntries(names.map((n) => [n, args[n] as ArgValue]));
}

/** Each pipeline, under each set of bound formals (bound to the drawn values), preserves results. */
function checkPreserved(
  program: Program,
  args: fc.Arbitrary<Record<string, ArgValue>>,
  bound: readonly (readonly string[])[],
  numRuns = 40,
): void {
  const fn = entry(program).name;
  let succeeded = 0;
  fc.assert(
    fc.property(args, (a) => {
      const before = tryEval(program, fn, a);
      if (before === undefined) return;
      succeeded++;
      for (const names of [[], ...bound]) {
        for (const ps of PIPELINES) {
          const out = runPipeline(program, fn, passes(ps), pick(a, names));
          expect(validateLabels(out.fun), `${ps} ${names}`).toBeUndefined();
          const after = tryEval(out.program, fn, a);
          expect(after, `${ps} bound ${names}\n${printFun(out.fun)}`).toBeDefined();
          expect(sameEval(before, after as EvalResult), `${ps} bound ${names}\n${printFun(out.fun)}`).toBe(
            true,
          );
        }
      }
    }),
    { numRuns, seed: 42 },
  );
  expect(succeeded).toBeGreaterThan(numRuns / 2);
}

const float = fc.float({ noNaN: true, noDefaultInfinity: true, min: -100, max: 100 });
const floats = (min: number, max: number) => fc.array(float, { minLength: min, maxLength: max });

/** `f` with its body's commands i and i+1 (both soacs) made one `hfused` (fresh labels). */
function fuseAdjacent(f: Fun, i: number): Fun {
  const flat = (c: Cmd): Cmd[] => (c.kind === 'seq' ? [...flat(c.first), ...flat(c.second)] : [c]);
  const cmds = flat(f.body);
  const a = cmds[i] as Soac;
  const b = cmds[i + 1] as Soac;
  if (a.kind !== 'soac' || b.kind !== 'soac') throw new Error('not two soacs');
  let next = maxLabel(f) + 1;
  const fused: Cmd = { kind: 'hfused', members: listFromArray([a, b]), lbl: next++ };
  const all = [...cmds.slice(0, i), fused, ...cmds.slice(i + 2)];
  let body = all[all.length - 1] as Cmd;
  for (let j = all.length - 2; j >= 0; j--)
    body = { kind: 'seq', first: all[j] as Cmd, second: body, lbl: next++ };
  return { ...f, body };
}

/** `src` (FUSABLE's shape) with its two reduces fused (and, with `maps`, its two maps too). */
function fusedProgram(maps: boolean, src = FUSABLE): Program {
  const p = parseC(src);
  let f = fuseAdjacent(entry(p), 1);
  if (maps) f = fuseAdjacent(f, 2);
  return replaceFun(p, f);
}

/**
 * FUSABLE with the map over `sq` made a composed lambda, as fusion builds them:
 * `(float x) => { float t = sq(x); float u = neg(t); return u * x; }` (bindings and a result that
 * is not a call).
 */
function composedProgram(): Program {
  const p = parseC(FUSABLE);
  const f = entry(p);
  let next = maxLabel(f) + 1;
  const x = { kind: 'var', name: 'x_c', ty: 'float', lbl: 0 } as const;
  const v = (name: string): Expr => ({ ...x, name, lbl: next++ });
  const call = (name: string, arg: Expr): Expr => ({
    kind: 'call',
    name,
    args: listFromArray([arg]),
    ty: 'float',
    lbl: next++,
  });
  const fn: Lam = {
    kind: 'lam',
    params: listFromArray([
      { kind: 'param', name: 'x_c', ty: 'float', isArray: false, isConst: true, lbl: next++ },
    ]),
    binds: listFromArray([
      { kind: 'bind', name: 't_c', ty: 'float', rhs: call('sq', v('x_c')), lbl: next++ },
      { kind: 'bind', name: 'u_c', ty: 'float', rhs: call('neg', v('t_c')), lbl: next++ },
    ]),
    result: { kind: 'binary', op: '*', ty: 'float', left: v('u_c'), right: v('x_c'), lbl: next++ },
    ret: 'float',
    lbl: next++,
  };
  const go = (c: Cmd): Cmd => {
    if (c.kind === 'seq') return { ...c, first: go(c.first), second: go(c.second) };
    if (c.kind === 'soac' && c.dest === 'sqs') return { ...c, fn };
    return c;
  };
  return replaceFun(p, { ...f, body: go(f.body) });
}

/** The combinators of `f`, in order (members of fused loops included). */
function soacsOf(f: Fun): Soac[] {
  const out: Soac[] = [];
  const go = (x: unknown): void => {
    if (typeof x !== 'object' || x === null) return;
    if ((x as { kind?: string }).kind === 'soac') out.push(x as Soac);
    for (const v of Object.values(x)) go(v);
  };
  go(f.body);
  return out;
}

function count(x: unknown, kind: string): number {
  if (typeof x !== 'object' || x === null) return 0;
  let n = (x as { kind?: string }).kind === kind ? 1 : 0;
  for (const v of Object.values(x)) n += count(v, kind);
  return n;
}

// ---- semantics preserved -------------------------------------------------------------------------

describe('the passes preserve results on programs with combinators', () => {
  it('map, reduce, scan (a dead reduce, an unread map; an array formal bound to constants)', () => {
    checkPreserved(parseC(BASIC), fc.record({ xs: floats(1, 6), k: fc.integer({ min: -3, max: 3 }) }), [
      ['k'],
      ['xs'],
      ['xs', 'k'],
    ]);
  });

  it('iota, a map with broadcast array and scalars, a loop over the results', () => {
    const args = fc
      .record({ w: fc.integer({ min: 0, max: 3 }), h: fc.integer({ min: 0, max: 3 }) })
      .chain(({ w, h }) =>
        fc.record({
          w: fc.constant(w),
          h: fc.constant(h),
          img: floats(w * h, w * h),
          out: floats(w * h, w * h),
        }),
      );
    checkPreserved(parseC(CONV), args, [['w'], ['w', 'h'], ['w', 'h', 'img']]);
  });

  it('filter, redomap and scanomap, combinators inside a loop (not unrolled)', () => {
    checkPreserved(
      parseC(LOOP),
      fc.record({ xs: floats(0, 5), c: float, reps: fc.integer({ min: 0, max: 4 }) }),
      [['reps'], ['c'], ['c', 'reps']],
    );
  });

  it('copies into and out of a reduce, an iota of a copy', () => {
    checkPreserved(
      parseC(COPIES),
      fc.record({
        xs: fc.array(fc.integer({ min: -1000, max: 1000 }), { maxLength: 5 }),
        b: fc.integer({ min: 0, max: 50 }),
      }),
      [['b'], ['xs', 'b']],
    );
  });

  it('horizontally fused reductions and maps', () => {
    for (const maps of [false, true]) {
      checkPreserved(
        fusedProgram(maps),
        fc
          .integer({ min: 1, max: 5 })
          .chain((n) => fc.record({ xs: floats(n, n), z: float, k: fc.integer({ min: 0, max: n - 1 }) })),
        [['z'], ['z', 'k']],
      );
    }
  });

  it('a composed lambda (bindings, a result that is not a call)', () => {
    checkPreserved(
      composedProgram(),
      fc
        .integer({ min: 1, max: 5 })
        .chain((n) => fc.record({ xs: floats(n, n), z: float, k: fc.integer({ min: 0, max: n - 1 }) })),
      [['z'], ['xs', 'z', 'k']],
    );
  });
});

// ---- what each pass does -------------------------------------------------------------------------

describe('const-prop on combinators', () => {
  const cp = (src: string, out: string, binds: Bindings = {}) => expectOpt('const-prop', src, out, binds);

  it('a known length reaches iota', () => {
    cp(
      'int f(int k) { int n = 4; int ix[] = iota(n); return ix[k]; }',
      'int f(int k) { int n = 4; int ix[] = iota(4); return ix[k]; }',
    );
    cp(
      'float g(int k, const float a[]) { return a[k]; } float f(const float a[], int w) { float cs[] = map(g, iota(w), a); return cs[0]; }',
      'float g(int k, const float a[]) { return a[k]; } float f(const float a[], int w) { float cs[] = map(g, iota(3), a); return cs[0]; }',
      { w: 3 },
    );
  });

  it('known neutral elements and scalar arguments become literals of their type', () => {
    const src = (c: string, z: string) => `
      float scale(float x, float c) { return x * c; }
      float add(float a, float b) { return a + b; }
      float f(const float xs[], float c) {
        float z = 0.5f;
        float ys[] = map(scale, xs, ${c});
        float s = reduce(add, ${z}, ys);
        return s;
      }`;
    // the map's function is specialized for c (const-prop's clones: tests/optimizers/clones.test.ts)
    const clone = 'float scale_1(float x) { return x * 2.0f; }';
    cp(src('c', 'z'), clone + src('2.0f', '0.5f').replace('map(scale, xs, 2.0f)', 'map(scale_1, xs)'), {
      c: 2,
    });
  });

  it('a reduce’s scalar is unknown afterwards; lambdas without known arguments are not rewritten', () => {
    cp(
      'int addi(int a, int b) { return a + b; } int f(const int xs[]) { int s = 0; s = reduce(addi, s, xs); return s + 1; }',
      'int addi(int a, int b) { return a + b; } int f(const int xs[]) { int s = 0; s = reduce(addi, 0, xs); return s + 1; }',
    );
    for (const [src, binds] of [
      [BASIC, { k: 2 }],
      [LOOP, { reps: 3 }],
      [CONV, {}],
    ] as const) {
      const p = parseC(src);
      const lams = (f: Fun) => soacsOf(f).map((s) => [s.fn, s.comb]);
      const out = runPipeline(p, 'f', passes('const-prop'), binds).fun;
      expect(equal(lams(out), lams(entry(p)))).toBe(true);
    }
  });

  it('an array result is not confused with a constant array formal of another name', () => {
    cp(
      'float sq(float x) { return x * x; } float f(const float k[]) { float ys[] = map(sq, k); return ys[1] + k[1]; }',
      'float sq(float x) { return x * x; } float f(const float k[]) { float ys[] = map(sq, k); return ys[1] + 2.0f; }',
      { k: [1, 2, 3] },
    );
  });

  it('does not unroll a loop that contains a combinator (its copies would redefine the array)', () => {
    const src =
      'float sq(float x) { return x * x; } float f(const float xs[]) { float t = 0.0f; int i; for (i = 0; i < 2; i++) { float ys[] = map(sq, xs); t = t + ys[i]; } return t; }';
    const out = runPipeline(parseC(src), 'f', passes('const-prop')).fun;
    expect(count(out, 'while')).toBe(1);
    expect(count(out, 'soac')).toBe(1);
  });
});

describe('copy-prop on combinators', () => {
  const cy = (src: string, out: string) => expectOpt('copy-prop', src, out);

  it('rewrites atoms through copies and kills facts about a reduce’s scalar', () => {
    cy(
      COPIES,
      COPIES.replace('int t = a;', 'int t = b;')
        .replace('a = reduce(addi, a, xs)', 'a = reduce(addi, b, xs)')
        .replace('iota(m)', 'iota(b)')
        .replace('reduce(addi, m, ix)', 'reduce(addi, b, ix)')
        .replace('return t + u + a + v', 'return b + a + a + v'),
    );
  });

  it('a copy of a reduce’s old value is not rewritten to its new one', () => {
    cy(
      'int addi(int a, int b) { return a + b; } int f(const int xs[], int s) { int t = s; s = reduce(addi, t, xs); return t + s; }',
      'int addi(int a, int b) { return a + b; } int f(const int xs[], int s) { int t = s; s = reduce(addi, s, xs); return t + s; }',
    );
  });
});

describe('dae on combinators', () => {
  const d = (src: string, out: string) => expectOpt('dae', src, out);

  it('removes a reduce whose scalar is dead, and its local', () => {
    d(
      'float add(float a, float b) { return a + b; } float f(const float xs[], float y) { float d = reduce(add, y, xs); return y; }',
      'float add(float a, float b) { return a + b; } float f(const float xs[], float y) { return y; }',
    );
    d(
      'float add(float a, float b) { return a + b; } float f(const float xs[]) { float s = reduce(add, 0.0f, xs); s = 1.0f; return s; }',
      'float add(float a, float b) { return a + b; } float f(const float xs[]) { float s; s = 1.0f; return s; }',
    );
  });

  it('keeps a live reduce and makes its atoms live', () => {
    const src =
      'float add(float a, float b) { return a + b; } float f(const float xs[], float y) { float z = y; float s = reduce(add, z, xs); return s; }';
    d(src, src);
  });

  it('removes a combinator whose array nothing reads (one link of a chain per run)', () => {
    const src = `float sq(float x) { return x * x; } float add(float a, float b) { return a + b; }
      float f(const float xs[]) { int n = 3; int ix[] = iota(n); float ys[] = map(sq, xs); float d = reduce(add, 0.0f, ys); float zs[] = map(sq, xs); return zs[0]; }`;
    d(
      src,
      `float sq(float x) { return x * x; } float add(float a, float b) { return a + b; }
      float f(const float xs[]) { float ys[] = map(sq, xs); float zs[] = map(sq, xs); return zs[0]; }`,
    );
    expectOpt(
      'dae,dae',
      src,
      `float sq(float x) { return x * x; } float add(float a, float b) { return a + b; }
      float f(const float xs[]) { float zs[] = map(sq, xs); return zs[0]; }`,
    );
  });

  it('keeps arrays that are returned, passed to calls or to combinators', () => {
    const src = `float sq(float x) { return x * x; } float h(const float a[]) { return a[0]; }
      float* f(const float xs[]) { float ys[] = map(sq, xs); float zs[] = map(sq, ys); float t = h(zs); return ys; }`;
    const out = runPipeline(parseC(src), 'f', passes('dae')).fun;
    expect(count(out, 'soac')).toBe(2);
  });

  it('drops dead members of a fused loop; one member left is that combinator alone', () => {
    const p = fusedProgram(true);
    const out = runPipeline(p, 'f', passes('dae')).fun;
    // p is dead, bs is never read
    expect(count(out, 'hfused')).toBe(0);
    expect(count(out, 'soac')).toBe(2);
    expect(printFun(out)).not.toMatch(/\bp = |bs\[\]/);
    expect(validateLabels(out)).toBeUndefined();
    // with every member live the fused loops stay
    const keep = fusedProgram(true, fusable('s + p + sqs[k] + negs[k]'));
    const kept = runPipeline(keep, 'f', passes('dae')).fun;
    expect(count(kept, 'hfused')).toBe(2);
    expect(count(kept, 'soac')).toBe(4);
    expect(validateLabels(kept)).toBeUndefined();
  });
});

describe('hfused through const-prop and copy-prop', () => {
  it('each member’s atoms are rewritten, in order', () => {
    const p = fusedProgram(false);
    const cy = runPipeline(p, 'f', passes('copy-prop')).fun;
    expect(printFun(cy)).toContain('s = reduce(add, z, xs);\n  p = reduce(mul, z, xs);');
    const cp = runPipeline(p, 'f', passes('const-prop'), { z: 1.5 }).fun;
    expect(printFun(cp)).toContain('s = reduce(add, 1.5f, xs);\n  p = reduce(mul, 1.5f, xs);');
    expect(count(cp, 'hfused')).toBe(1);
  });
});

// ---- labels ----------------------------------------------------------------------------------------

describe('kernel-walk labels cover combinators', () => {
  const programs = () =>
    [BASIC, CONV, LOOP, COPIES].map((src) => parseC(src)).concat([fusedProgram(true), composedProgram()]);

  it('maxLabelFun is the largest label anywhere (lambdas, parameters, bindings included)', () => {
    /** `x` with the label of its k-th labelled node (pre-order) set to `to`. */
    const bump = (x: unknown, k: number, to: number): unknown => {
      let i = 0;
      const go = (y: unknown): unknown => {
        if (typeof y !== 'object' || y === null) return y;
        const o = y as Record<string, unknown>;
        const out: Record<string, unknown> = {};
        const mine = typeof o.lbl === 'number' ? i++ : -1;
        for (const [key, v] of Object.entries(o)) out[key] = key === 'lbl' ? (mine === k ? to : v) : go(v);
        return out;
      };
      return go(x);
    };
    for (const p of programs()) {
      const f = entry(p);
      expect(maxLabelFun(f)).toBe(maxLabel(f));
      const big = maxLabel(f) + 1000;
      const labelled = (JSON.stringify(f).match(/"lbl":/g) ?? []).length;
      for (let k = 0; k < labelled; k++) expect(maxLabelFun(bump(f, k, big) as Fun)).toBe(big);
    }
  });

  it('relabelCmd renumbers every node from n, pre-order, without changing anything else', () => {
    for (const p of programs()) {
      const f = entry(p);
      const n = maxLabel(f) + 1;
      const [body, next] = relabelCmd(f.body, n);
      expect(equalModuloLabels(body, f.body)).toBe(true);
      const labels: number[] = [];
      const go = (x: unknown): void => {
        if (typeof x !== 'object' || x === null) return;
        const o = x as Record<string, unknown>;
        if (typeof o.lbl === 'number') labels.push(o.lbl);
        for (const [k, v] of Object.entries(o)) if (k !== 'lbl') go(v);
      };
      go(body);
      expect(labels).toEqual(Array.from({ length: next - n }, (_, i) => n + i));
    }
  });
});

// ---- SCF-lang: native and Core agree; the abstract printer ------------------------------------------

describe('native and Core runs agree on combinators', () => {
  const core = new Map<string, Interpreter>();
  const run = (file: string, entryName: string, args: unknown[]): unknown => {
    let i = core.get(file);
    if (!i) {
      const r = compileFile(`${ROOT}/src/optimizers/${file}`, { cwd: ROOT });
      if (!r.program) throw new Error(`${file} does not compile`);
      i = new Interpreter(r.program);
      core.set(file, i);
    }
    return i.run(entryName, args).value;
  };
  it('const-prop, copy-prop and dae on every program', () => {
    const cases: [Program, Bindings][] = [
      [parseC(BASIC), { k: 2 }],
      [parseC(CONV), { w: 2, h: 3 }],
      [parseC(LOOP), { reps: 2, c: 0.5 }],
      [parseC(COPIES), { b: 7 }],
      [fusedProgram(true), { z: 2 }],
      [composedProgram(), { z: 2, k: 1 }],
    ];
    for (const [p, binds] of cases) {
      const f = entry(p);
      const formals = listFromArray(formalsFromBindings(f, binds));
      const natCp = constProp(f, formals);
      expect(equal(run('const-prop.ts', 'const-prop.optimize', [f, formals]), natCp)).toBe(true);
      const natCy = copyProp(natCp);
      expect(equal(run('copy-prop.ts', 'copy-prop.optimize', [natCp]), natCy)).toBe(true);
      const natDae = dae(natCy);
      expect(equal(run('dae.ts', 'dae.optimize', [natCy]), natDae)).toBe(true);
      expect(equal(run('dae.ts', 'dae.optimize', [f]), dae(f))).toBe(true);
    }
  });
});

describe('the abstract printer prints combinators as the concrete printer', () => {
  it('singletons, before and after the pipeline', () => {
    const cases: [Program, Bindings][] = [
      [parseC(BASIC), {}],
      [parseC(CONV), { w: 2 }],
      [parseC(LOOP), {}],
      [parseC(COPIES), { b: 1 }],
      [fusedProgram(true), {}],
    ];
    for (const [p, binds] of cases) {
      const f = entry(p);
      const g = runPipeline(p, f.name, passes('const-prop,copy-prop,dae'), binds).fun;
      for (const h of [f, g]) expect(printAbstractFun(fromConcrete(h, KERNEL_CTORS))).toBe(printFun(h));
    }
  });

  it('a composed lambda prints inline (the concrete printer lifts it into a helper function)', () => {
    const text = printAbstractFun(fromConcrete(entry(composedProgram()), KERNEL_CTORS));
    expect(text).toContain(
      'float sqs[] = map((const float x_c) => { float t_c = sq(x_c); float u_c = neg(t_c); return u_c * x_c; }, xs);',
    );
  });
});
