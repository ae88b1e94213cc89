/**
 * The Fig. 6 printer for abstract kernel programs (src/pipeline/print-abstract.ts):
 * - singleton values print exactly as the concrete printer (every benchmark function, their
 *   optimized versions, and generated programs);
 * - the shapes of SCF Fig. 6, built by hand and obtained from real optimizer outputs;
 * - the readable forms of sets: unions of commands, holes, abstract fields, recursion.
 * `KERNEL_CTORS` is checked against the constructor table the SCF-lang front end builds.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  type AbsValue,
  base,
  con,
  constant,
  fix,
  fromConcrete,
  holes,
  joinAll,
  mergeAlts,
  rec,
  toAbsValue,
  top,
  union,
} from '../../src/abstract-values/index.js';
import {
  type Fun,
  listToArray,
  loadKernelParser,
  parseKernelSync,
  printFun,
} from '../../src/kernel/index.js';
import { formatDiagnostic } from '../../src/common/index.js';
import { type Bindings, defaultPipeline, findPass, runPipeline } from '../../src/optimizers/index.js';
import { compileFile } from '../../src/scf-lang/index.js';
import {
  KERNEL_CTORS,
  printAbstractCmd,
  printAbstractExpr,
  printAbstractFun,
} from '../../src/pipeline/print-abstract.js';
import { generate } from '../kernel/gen.js';
import { loadKernels, ROOT } from '../optimizers/helpers.js';

beforeAll(loadKernelParser);

const abs = (x: unknown): AbsValue => toAbsValue(x, { ctors: KERNEL_CTORS });
const concrete = (f: Fun): AbsValue => fromConcrete(f, KERNEL_CTORS);

/** A cons list of the arguments. */
function list(...xs: unknown[]): unknown {
  let l: unknown = { kind: 'nil' };
  for (let i = xs.length - 1; i >= 0; i--) l = { kind: 'cons', head: xs[i], tail: l };
  return l;
}

// Kernel nodes for hand-built values; labels are 'Int (unknown), which the printer never shows.
const L = holes.int;
const v = (name: unknown, ty = 'int') => ({ kind: 'var', name, ty, lbl: L });
const int = (value: unknown) => ({ kind: 'intLit', value, lbl: L });
const bin = (op: unknown, left: unknown, right: unknown, ty = 'int') => ({
  kind: 'binary',
  op,
  ty,
  left,
  right,
  lbl: L,
});
const assign = (name: unknown, rhs: unknown) => ({ kind: 'assign', name, rhs, lbl: L });
const seq = (...cs: unknown[]): unknown =>
  cs.length === 1 ? cs[0] : { kind: 'seq', first: cs[0], second: seq(...cs.slice(1)), lbl: L };
const ret = (e: unknown) => ({ kind: 'return', value: { kind: 'some', value: e }, lbl: L });
const param = (name: string) => ({ kind: 'param', name, ty: 'int', isArray: false, isConst: false, lbl: L });
const local = (name: string) => ({ kind: 'decl', name, ty: 'int', size: { kind: 'none' }, lbl: L });

/** mul_add (Fig. 2) with the two right-hand sides given. */
function mulAdd(uRhs: unknown, wRhs: unknown): AbsValue {
  return abs({
    kind: 'fun',
    name: 'mul_add',
    ret: 'int',
    params: list(param('x'), param('y'), param('a')),
    locals: list(local('u'), local('w')),
    body: seq(assign('u', uRhs), assign('w', wRhs), ret(v('w'))),
    fns: list(),
    lbl: L,
  });
}

const fig6 = (u: string, w: string) =>
  [
    'int mul_add(int x, int y, int a) {',
    '  int u;',
    '  int w;',
    `  u = ${u};`,
    `  w = ${w};`,
    '  return w;',
    '}',
  ].join('\n');

describe('constructor table', () => {
  it('KERNEL_CTORS agrees with the SCF-lang front end on every kernel constructor', () => {
    const r = compileFile('src/optimizers/const-prop.ts', { cwd: ROOT });
    expect(r.diagnostics.map((d) => d.message)).toEqual([]);
    const table = r.program?.ctors;
    for (const [name, info] of KERNEL_CTORS)
      expect([name, table?.get(name)?.fields]).toEqual([name, info.fields]);
  });
});

describe('singletons print as the concrete printer', () => {
  it('every benchmark function', () => {
    for (const k of loadKernels()) {
      for (const f of listToArray(k.program)) expect(printAbstractFun(concrete(f))).toBe(printFun(f));
    }
  });

  it('every benchmark function after the pipeline (Table 2 samples)', () => {
    for (const k of loadKernels()) {
      const binds: Bindings = k.name.startsWith('main_loop')
        ? { isize: 8, dsize: 8, assoc: 1, bsize: 16 }
        : {};
      const f = runPipeline(k.program, k.fn, defaultPipeline, binds).fun;
      expect(printAbstractFun(concrete(f))).toBe(printFun(f));
    }
  });

  it('generated programs and their optimized versions (-0.0f included: constants keep their sign)', () => {
    fc.assert(
      fc.property(fc.array(fc.nat(), { minLength: 400, maxLength: 400 }), (tape) => {
        const g = generate(tape, 'r_');
        const p = parseKernelSync(g.source);
        expect(p.diagnostics.map((d) => formatDiagnostic(d, p.sources, false))).toEqual([]);
        const optimized = runPipeline(p.program, g.main).fun;
        for (const f of [...listToArray(p.program), optimized]) {
          expect(printAbstractFun(concrete(f))).toBe(printFun(f));
        }
      }),
      { numRuns: 150, seed: 7 },
    );
  });

  it('values the parser never produces, as print.ts writes them', () => {
    const f = (x: number) => ({ kind: 'floatLit', value: x, lbl: 1 });
    expect(printAbstractExpr(abs(f(Number.NaN)))).toBe('(0.0f / 0.0f)');
    expect(printAbstractExpr(abs(f(Number.NEGATIVE_INFINITY)))).toBe('(-1.0f / 0.0f)');
    // -0 is a constant of its own (optimizers can tell it from 0)
    expect(printAbstractExpr(abs(f(-0)))).toBe('-0.0f');
    expect(printAbstractExpr(abs(bin('-', v('x'), int(-2147483648))))).toBe('x - (-2147483647 - 1)');
    expect(printAbstractExpr(abs({ kind: 'unary', op: '-', ty: 'int', arg: int(-3), lbl: 1 }))).toBe('-(-3)');
  });
});

describe('SCF Fig. 6', () => {
  const x = v('x');
  it("(a) after constant propagation: u = x | (x * 'Int)", () => {
    const u = holes.oneOf(x, bin('*', x, int(holes.int)));
    expect(printAbstractFun(mulAdd(u, bin('+', v('u'), v('y'))))).toBe(fig6("x | (x * 'Int)", 'u + y'));
  });

  it('(b) after copy propagation: w = (u | x) + y', () => {
    const u = holes.oneOf(x, bin('*', x, int(holes.int)));
    const w = bin('+', holes.oneOf(v('u'), x), v('y'));
    expect(printAbstractFun(mulAdd(u, w))).toBe(fig6("x | (x * 'Int)", '(u | x) + y'));
    // the same set written as one var node with two names prints the same
    expect(printAbstractFun(mulAdd(u, bin('+', v(holes.oneOf('u', 'x')), v('y'))))).toBe(
      fig6("x | (x * 'Int)", '(u | x) + y'),
    );
  });

  it('from the optimizers: the merged outputs for a in -3..19 are Fig. 6 (a) and (b)', () => {
    const k = loadKernels().find((c) => c.name === 'mul_add');
    if (k === undefined) throw new Error('no mul_add');
    const outputs = (passes: string[]) =>
      Array.from({ length: 23 }, (_, i) => {
        const ps = passes.map((n) => findPass(n) ?? defaultPipeline[0]).filter((p) => p !== undefined);
        return concrete(runPipeline(k.program, 'mul_add', ps, { a: i - 3 }).fun);
      });
    const i2 = mergeAlts(joinAll(outputs(['const-prop'])));
    const i3 = mergeAlts(joinAll(outputs(['const-prop', 'copy-prop'])));
    expect(printAbstractFun(i2)).toBe(fig6("x | (x * 'Int)", 'u + y'));
    expect(printAbstractFun(i3)).toBe(fig6("x | (x * 'Int)", '(u | x) + y'));
  });
});

describe('sets of programs', () => {
  it('unions of expressions bind looser than every operator', () => {
    const xy = holes.oneOf(v('x'), v('y'));
    expect(printAbstractExpr(abs(xy))).toBe('x | y');
    expect(printAbstractExpr(abs(bin('*', xy, int(2))))).toBe('(x | y) * 2');
    expect(printAbstractExpr(abs(bin('|', xy, int(2))))).toBe('(x | y) | 2');
    expect(
      printAbstractExpr(abs({ kind: 'call', name: 'f', args: list(xy, int(1)), ty: 'int', lbl: 1 })),
    ).toBe('f((x | y), 1)');
    expect(printAbstractExpr(abs(holes.oneOf(int(-1), bin('+', v('x'), int(1)))))).toBe('-1 | (x + 1)');
  });

  it('abstract fields print their sets', () => {
    expect(printAbstractExpr(abs(int(holes.int)))).toBe("'Int");
    expect(printAbstractExpr(abs(int(holes.oneOf(1, 3))))).toBe('1 | 3');
    expect(printAbstractExpr(abs(bin('+', v('x'), int(holes.oneOf(1, 3)))))).toBe('x + (1 | 3)');
    expect(printAbstractExpr(abs({ kind: 'floatLit', value: holes.float, lbl: 1 }))).toBe("'Float");
    expect(printAbstractExpr(abs({ kind: 'boolLit', value: holes.bool, lbl: 1 }))).toBe("'Bool");
    expect(printAbstractExpr(abs(bin(holes.oneOf('+', '*'), v('x'), v('y'))))).toBe('x (* | +) y');
    expect(printAbstractExpr(abs(v(holes.str)))).toBe("'Str");
    expect(printAbstractExpr(top())).toBe("'Any");
    // a cast that may or may not be implicit: both readings
    const cast = { kind: 'cast', ty: 'float', arg: v('x'), implicit: holes.bool, lbl: 1 };
    expect(printAbstractExpr(abs(cast))).toBe('x | (float)x');
  });

  it('unions of commands print one block per alternative', () => {
    const c = abs(
      seq(holes.oneOf(assign('u', v('x')), seq(assign('u', v('y')), assign('w', v('u')))), ret(v('u'))),
    );
    expect(printAbstractCmd(c, 1)).toBe(
      ['  {', '    u = x;', '  } | {', '    u = y;', '    w = u;', '  }', '  return u;'].join('\n'),
    );
    // a skip alternative is an empty block
    const d = abs(holes.oneOf(assign('u', v('x')), { kind: 'skip', lbl: L }));
    expect(printAbstractCmd(d)).toBe(['{', '} | {', '  u = x;', '}'].join('\n'));
    // past PRINT_ALTS alternatives, one block says how many were left out (not printed whole)
    const many = abs(holes.oneOf(...['a', 'b', 'c', 'd', 'e', 'f'].map((x) => assign('u', v(x)))));
    const shown = printAbstractCmd(many).split('\n');
    expect(shown.slice(-3)).toEqual(['} | {', '  … (2 more alternatives)', '}']);
  });

  it('a for loop whose counter is not known prints as while; a known one as for', () => {
    const loop = (name: unknown) =>
      seq(assign(name, int(0)), {
        kind: 'while',
        cond: bin('<', v(name), v('n')),
        body: seq(assign('s', bin('+', v('s'), v(name))), assign(name, bin('+', v(name), int(1)))),
        isFor: true,
        lbl: L,
      });
    expect(printAbstractCmd(abs(loop('i')))).toBe(['for (i = 0; i < n; i++) {', '  s += i;', '}'].join('\n'));
    expect(printAbstractCmd(abs(loop(holes.oneOf('i', 'j'))))).toBe(
      ['(i | j) = 0;', 'for (; (i | j) < n; (i | j) = (i | j) + 1) {', '  s += i | j;', '}'].join('\n'),
    );
  });

  it('returns with an abstract option, if chains with abstract parts', () => {
    const r = abs({
      kind: 'return',
      value: holes.oneOf({ kind: 'none' }, { kind: 'some', value: v('x') }),
      lbl: L,
    });
    expect(printAbstractCmd(r)).toBe('return; | return x;');
    const ifs = abs({
      kind: 'if',
      cond: bin('<', v('x'), int(holes.int)),
      thenCmd: assign('y', int(1)),
      elseCmd: { kind: 'if', cond: v('c'), thenCmd: assign('y', int(2)), elseCmd: holes.abs(top()), lbl: L },
      lbl: L,
    });
    expect(printAbstractCmd(ifs)).toBe(
      ["if (x < 'Int) {", '  y = 1;', '} else if (c) {', '  y = 2;', '} else {', "  'Any;", '}'].join('\n'),
    );
  });

  it('recursion: lists of any length and recursive commands', () => {
    const anyArgs = fix(union([con('cons', [abs(v('x')), rec(0)]), con('nil', [])]));
    const call = abs({ kind: 'call', name: 'f', args: holes.abs(anyArgs), ty: 'int', lbl: 1 });
    expect(printAbstractExpr(call)).toBe('f(x...)');
    const twoArgs = abs({
      kind: 'call',
      name: 'g',
      args: { kind: 'cons', head: int(1), tail: holes.abs(anyArgs) },
      ty: 'int',
      lbl: 1,
    });
    expect(printAbstractExpr(twoArgs)).toBe('g(1, x...)');
    // fix α. (s++; α) | skip: a loop unrolled any number of times
    const body = abs(assign('s', bin('+', v('s'), int(1))));
    const unrolled = fix(union([con('seq', [body, rec(0), base('Int')]), con('skip', [base('Int')])]));
    expect(printAbstractCmd(unrolled)).toBe(
      ['fix α {', '  {', '  } | {', '    s++;', '    α;', '  }', '}'].join('\n'),
    );
    // a recursive expression
    const e = fix(
      union([abs(v('x')), con('binary', [constant('+'), constant('int'), rec(0), abs(int(1)), base('Int')])]),
    );
    expect(printAbstractExpr(e)).toBe('fix α. x | (α + 1)');
  });

  it('shapes off the AST print in printAbs notation, with C inside', () => {
    expect(printAbstractCmd(abs(assign('u', { kind: 'some', value: v('x') })))).toBe('u = some(x);');
    const tail = abs({ kind: 'cons', head: int(1), tail: holes.oneOf({ kind: 'nil' }, list(v('x'))) });
    expect(
      printAbstractExpr(abs({ kind: 'call', name: 'f', args: holes.abs(tail), ty: 'int', lbl: 1 })),
    ).toBe('f(1, ...() | (x))');
  });

  it('a value shared at many places prints at most maxNodes nodes, then … and a note', () => {
    // 40 levels of `seq(c, c)` over one shared c: 2^40 statements as a tree, 41 nodes as a DAG
    let c = abs(assign('u', bin('+', v('u'), int(1))));
    for (let i = 0; i < 40; i++) c = con('seq', [c, c, base('Int')]);
    const f = abs({
      kind: 'fun',
      name: 'f',
      ret: 'int',
      params: list(param('x')),
      locals: list(local('u')),
      body: holes.abs(c),
      fns: list(),
      lbl: L,
    });
    const text = printAbstractFun(f, { maxNodes: 1_000 });
    expect(text.length).toBeLessThan(60_000);
    expect(text).toContain('  u++;\n');
    expect(text).toContain('  …\n}');
    expect(text).toMatch(/not printed — this description prints as more than 1000 nodes/);
    // the default limit too, for commands and expressions
    expect(printAbstractFun(f).length).toBeLessThan(2_000_000);
    const lines = printAbstractCmd(c, 0, { maxNodes: 10 }).split('\n');
    expect(lines.slice(0, 11)).toEqual([...Array(10).fill('u++;'), '…']);
    expect(lines.slice(11)).toHaveLength(1);
    let e = abs(v('x'));
    for (let i = 0; i < 40; i++) e = con('binary', [constant('+'), constant('int'), e, e, base('Int')]);
    // seven nodes down the left operands; every other operand is …
    expect(printAbstractExpr(e, { maxNodes: 7 })).toBe('… + … + … + … + … + … + … + …');
    // within the limit nothing changes
    const small = mulAdd(v('x'), v('y'));
    expect(printAbstractFun(small, { maxNodes: 1_000 })).toBe(printAbstractFun(small));
    expect(printAbstractFun(small)).not.toContain('…');
  });

  it('locals that differ between alternatives print as the lists they may be', () => {
    const f = abs({
      kind: 'fun',
      name: 'g',
      ret: 'int',
      params: list(param('x')),
      locals: holes.oneOf(list(), list(local('z')), list(local('y'), local('z'))),
      body: ret(v('x')),
      fns: list(),
      lbl: L,
    });
    expect(printAbstractFun(f).split('\n')[1]).toBe('  ...() | (int z) | (int y, int z);');
    // long lists are cut as every other long union is
    const long = (k: number) =>
      list(...Array.from({ length: 60 }, (_, i) => local(`a_long_local_name_${k}_${i}`)));
    const wide = abs({
      kind: 'fun',
      name: 'g',
      ret: 'int',
      params: list(param('x')),
      locals: holes.oneOf(long(0), long(1), long(2)),
      body: ret(v('x')),
      fns: list(),
      lbl: L,
    });
    const line = printAbstractFun(wide).split('\n')[1] as string;
    expect(line.startsWith('  ...(int a_long_local_name_0_0, ')).toBe(true);
    expect(line).toMatch(/… \(\d+ more characters\);$/);
    expect(line.length).toBeLessThan(500);
  });

  it('a union of functions prints each; labels never print', () => {
    const a = mulAdd(v('x'), v('y'));
    const b = mulAdd(bin('*', v('x'), v('a')), v('y'));
    const both = union([a, b]);
    const text = printAbstractFun(both);
    expect(text.split('\n|\n')).toHaveLength(2);
    expect(text).not.toMatch(/lbl|'Int/);
  });
});
