/**
 * The code emitter: emitted modules compute exactly what the Core interpreter computes.
 *
 * - the real optimizers (const-prop, copy-prop, DAE) emitted, imported and run on the benchmark
 *   kernels: emitted ≡ native optimizer ≡ Core interpreter (prelude `equal`);
 * - one function per primitive and per expression kind, on edge values (NaN, -0, int32 bounds,
 *   strings, booleans, maps, sets), through one dispatcher module;
 * - random well-typed programs with lets in branches, shadowing and reserved-word names;
 * - hoisted constants: value, shape (`kind` first, declaration order, map order), sharing;
 * - readability: the code shape the emitter promises (no IIFEs, `x.kind === 'c'`, if/else).
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import fc from 'fast-check';
import { Map as IMap, Set as ISet } from 'immutable';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Fun, findFun, listFromArray, loadKernelParser } from '../../src/kernel/index.js';
import { optimize as constProp } from '../../src/optimizers/const-prop.js';
import { optimize as copyProp } from '../../src/optimizers/copy-prop.js';
import { optimize as dae } from '../../src/optimizers/dae.js';
import { formalsFromBindings } from '../../src/optimizers/index.js';
import type { CtorDecl, Expr, FunDef, Program } from '../../src/scf-lang/core.js';
import { mapChildren, tupleCtor } from '../../src/scf-lang/core.js';
import {
  compileFile,
  Interpreter,
  PRIMS,
  type PrimOp,
  validateCoreProgram,
} from '../../src/scf-lang/index.js';
import { equal } from '../../src/scf-lang/prelude.js';
import { type EmitOptions, emitModule } from '../../src/stager/emit.js';
import { InputNotAdmitted, StagedRuntimeError } from '../../src/scf-lang/staged-helpers.js';
import { fromConcrete } from '../../src/abstract-values/index.js';
import { type Kernel, loadKernels, ROOT } from '../optimizers/helpers.js';

const TMP = path.join(ROOT, 'tests/stager', `.tmp-emit-${process.pid}`);
const IMPORTS = {
  prelude: path.relative(TMP, path.join(ROOT, 'src/scf-lang/prelude.ts')).split(path.sep).join('/'),
  runtime: path.relative(TMP, path.join(ROOT, 'src/scf-lang/staged-helpers.ts')).split(path.sep).join('/'),
};

let fileNo = 0;
type Mod = Record<string, unknown> & { meta: { functions: number; coreNodes: number; constants: number } };

/** Emits `program`, writes it under TMP and imports it. */
async function load(
  program: Program,
  opts: Omit<EmitOptions, 'imports'>,
): Promise<{ mod: Mod; code: string }> {
  const code = emitModule(program, { ...opts, imports: IMPORTS });
  const file = path.join(TMP, `m${fileNo++}.mjs`);
  writeFileSync(file, code);
  const mod = (await import(pathToFileURL(file).href)) as Mod;
  return { mod, code };
}

beforeAll(() => {
  mkdirSync(TMP, { recursive: true });
});
afterAll(() => {
  if (!process.env.SCF_KEEP_EMITTED) rmSync(TMP, { recursive: true, force: true });
});

// ---- Core builders ------------------------------------------------------------------------------

let label = 0;
const span = { file: 'test', start: 0, end: 0 };
const node = () => ({ label: label++, span });
const v = (name: string): Expr => ({ kind: 'var', name, ...node() });
const lit = (value: unknown): Expr => ({ kind: 'lit', value: value as never, ...node() });
const con = (ctor: string, ...args: Expr[]): Expr => ({ kind: 'con', ctor, args, ...node() });
const test = (ctor: string, arg: Expr): Expr => ({ kind: 'test', ctor, arg, ...node() });
const proj = (ctor: string, index: number, arg: Expr): Expr => ({
  kind: 'proj',
  ctor,
  index,
  arg,
  ...node(),
});
// biome-ignore lint/suspicious/noThenProperty: Core's `if` node has a `then` field
const iff = (c: Expr, t: Expr, e: Expr): Expr => ({ kind: 'if', cond: c, then: t, else: e, ...node() });
const let_ = (name: string, value: Expr, body: Expr): Expr => ({ kind: 'let', name, value, body, ...node() });
const call = (fn: string, ...args: Expr[]): Expr => ({ kind: 'call', fn, args, ...node() });
const prim = (op: PrimOp, ...args: Expr[]): Expr => ({ kind: 'prim', op, args, ...node() });
const fun = (name: string, params: string[], body: Expr): FunDef => ({
  name,
  params,
  body,
  span,
  exported: true,
});

const CTORS: CtorDecl[] = [
  { name: 'none', fields: [], repr: 'object' },
  { name: 'some', fields: ['value'], repr: 'object' },
  { name: 'nil', fields: [], repr: 'object' },
  { name: 'cons', fields: ['head', 'tail'], repr: 'object' },
  { name: 'pt', fields: ['x', 'y'], repr: 'object' },
  { name: 'odd', fields: ['class', 'new', 'kind2', '__proto__x'], repr: 'object' },
  ...[0, 1, 2, 3].map(tupleCtor),
];

/** A copy with fresh labels (generated trees may share nodes; labels must be unique). */
function relabel(e: Expr): Expr {
  return { ...mapChildren(e, relabel), ...node() } as Expr;
}

function program(funs: FunDef[]): Program {
  const p: Program = {
    funs: new Map(funs.map((f) => [f.name, { ...f, body: relabel(f.body) }])),
    ctors: new Map(CTORS.map((c) => [c.name, c])),
    sources: new Map(),
  };
  expect(validateCoreProgram(p)).toEqual([]);
  return p;
}

/** A dispatcher `t.main(i, a, b, c)` calling case `i`, so one module holds many functions. */
function dispatcher(cases: Expr[]): FunDef {
  let body: Expr = lit('no case');
  for (let i = cases.length - 1; i >= 0; i--) body = iff(prim('eq', v('i'), lit(i)), cases[i] as Expr, body);
  return fun('t.main', ['i', 'a', 'b', 'c'], body);
}

function same(a: unknown, b: unknown): boolean {
  // equal, and for numbers also -0 vs 0 (Object.is), which `equal` does not distinguish
  if (typeof a === 'number' && typeof b === 'number') return Object.is(a, b);
  return equal(a, b);
}

// ---- the real optimizers ------------------------------------------------------------------------

describe('the optimizers, emitted', () => {
  let kernels: Kernel[];
  const compiled = (f: string) => {
    const r = compileFile(path.join(ROOT, 'src/optimizers', f), { cwd: ROOT });
    if (!r.program) throw new Error(`${f} does not compile`);
    return r.program;
  };
  const emitted = new Map<string, { fn: (...a: unknown[]) => unknown; interp: Interpreter; code: string }>();
  const BINDS: [string, Record<string, number | number[]>][] = [
    ['mul_add', { a: 1 }],
    ['mul_add', { a: 3 }],
    ['dotproduct', { s: 3, v2: [0, 1, 7] }],
    ['doconvol_1d', { coef: [0, 1, 0], ccols: 3 }],
    ['doconvol', { coef: [1, 0, 1, 0, 1, 0, 1, 0, 1], crows: 3, ccols: 3 }],
    ['main_loop_f', { assoc: 1 }],
  ];

  beforeAll(async () => {
    await loadKernelParser();
    kernels = loadKernels();
    for (const [file, entry] of [
      ['const-prop.ts', 'const-prop.optimize'],
      ['copy-prop.ts', 'copy-prop.optimize'],
      ['dae.ts', 'dae.optimize'],
    ] as const) {
      const p = compiled(file);
      const { mod, code } = await load(p, {
        entry,
        exportName: 'optimize',
        header: `${file}, staged for nothing`,
      });
      emitted.set(file, {
        fn: mod.optimize as (...a: unknown[]) => unknown,
        interp: new Interpreter(p),
        code,
      });
    }
  });

  const cases = (): [string, Record<string, number | number[]>][] => [
    ...kernels.map((k) => [k.name, {}] as [string, Record<string, number | number[]>]),
    ...BINDS,
  ];

  it('emitted ≡ native ≡ Core interpreter on every kernel (const-prop, copy-prop, dae in turn)', () => {
    for (const [name, binds] of cases()) {
      const k = kernels.find((x) => x.name === name) as Kernel;
      const f = findFun(k.program, k.fn) as Fun;
      const formals = listFromArray(formalsFromBindings(f, binds));
      const cp = emitted.get('const-prop.ts')!;
      const natCp = constProp(f, formals);
      expect(equal(cp.fn(f, formals), natCp), `${name} const-prop`).toBe(true);
      expect(equal(cp.interp.run('const-prop.optimize', [f, formals]).value, natCp)).toBe(true);
      const cy = emitted.get('copy-prop.ts')!;
      const natCy = copyProp(natCp);
      expect(equal(cy.fn(natCp), natCy), `${name} copy-prop`).toBe(true);
      expect(equal(cy.interp.run('copy-prop.optimize', [natCp]).value, natCy)).toBe(true);
      const da = emitted.get('dae.ts')!;
      const natDae = dae(natCy);
      expect(equal(da.fn(natCy), natDae), `${name} dae`).toBe(true);
      expect(equal(da.interp.run('dae.optimize', [natCy]).value, natDae)).toBe(true);
      // the unoptimized kernel through copy-prop and dae directly, too
      expect(equal(cy.fn(f), copyProp(f))).toBe(true);
      expect(equal(da.fn(f), dae(f))).toBe(true);
    }
  });

  it('reads like the optimizer: one function per Core function, kind tests, if/else, no IIFEs', () => {
    const { code } = emitted.get('dae.ts')!;
    expect(code.startsWith('/**\n')).toBe(true);
    expect(code).toContain('export function optimize(f) {');
    expect(code).toContain("if (c.kind === 'assign') {");
    expect(code).toContain('} else if (');
    expect(code).toMatch(/import \{[^}]*setAdd[^}]*\} from '/);
    expect(code).not.toMatch(/=>/); // no closures at all
    expect(code).not.toContain('(function');
    expect(code).toContain('// dae.daeCmd\nfunction daeCmd(c, live, all, build, names) {');
    expect(code).toContain('export const meta = {');
  });

  it('can carry the admission checker of its input description', async () => {
    const p = compiled('dae.ts');
    const k = kernels.find((x) => x.name === 'mul_add') as Kernel;
    const f = findFun(k.program, k.fn) as Fun;
    const desc = [fromConcrete(f, p.ctors)];
    const { mod, code } = await load(p, {
      entry: 'dae.optimize',
      exportName: 'optimize',
      admission: { desc },
    });
    const admit = mod.admit as (args: readonly unknown[]) => void;
    expect(code).toMatch(/import \{[^}]*notAdmitted[^}]*\} from '/);
    admit([f]);
    expect(() => admit([{ ...f, name: 'other' }])).toThrow(InputNotAdmitted);
    expect(() => admit([f, f])).toThrow(/expected 1 arguments/);
    expect(equal((mod.optimize as (x: unknown) => unknown)(f), dae(f))).toBe(true);
  });

  it('exports meta with sizes', async () => {
    const p = compiled('dae.ts');
    const { mod } = await load(p, { entry: 'dae.optimize', exportName: 'optimize' });
    expect(mod.meta.functions).toBeGreaterThan(5);
    expect(mod.meta.coreNodes).toBeGreaterThan(100);
    expect(mod.meta.constants).toBe(0);
  });
});

// ---- every primitive and expression kind ------------------------------------------------------------

const NUMS = [
  0,
  -0,
  1,
  -1,
  2.5,
  -7,
  3,
  31,
  32,
  2147483647,
  -2147483648,
  4294967295,
  Number.NaN,
  Infinity,
  -Infinity,
];
const STRS = ['', 'a', 'ab', 'b'];
const BOOLS = [true, false];
const M1 = IMap<unknown, unknown>([
  [1, 'one'],
  ['k', { kind: 'some', value: 2 }],
]);
const S1 = ISet<unknown>([3, 1, 'x', true]);
const S2 = ISet<unknown>([1, 2]);

/** Sample argument lists for a primitive, by its category. */
function samples(op: PrimOp): unknown[][] {
  const info = PRIMS[op];
  const pairs = <T>(xs: readonly T[]) => xs.flatMap((a) => xs.map((b) => [a, b]));
  switch (info.category) {
    case 'arith':
      return info.arity === 1 ? NUMS.map((x) => [x]) : pairs(NUMS);
    case 'compare':
      return [...pairs(NUMS), ...pairs(STRS), ...pairs(BOOLS)];
    case 'logic':
      return BOOLS.map((b) => [b]);
    case 'string':
      if (op === 'num_to_string') return NUMS.map((x) => [x]);
      if (op === 'str_length') return STRS.map((x) => [x]);
      if (op === 'char_code_at' || op === 'char_at')
        return STRS.flatMap((x) => [-1, 0, 1, 2, 0.5, Number.NaN].map((i) => [x, i]));
      if (op === 'substring')
        return STRS.flatMap((x) =>
          [
            [0, 1],
            [1, 0],
            [-1, 5],
            [1, Number.NaN],
            [0.5, 2.5],
          ].map(([a, b]) => [x, a, b]),
        );
      return pairs(STRS);
    case 'struct':
      if (op === 'tuple_with')
        return [
          [[1, 2, 3], 0, 'x'],
          [[1, 2, 3], 2, M1],
          [['a'], 0, ['b']],
        ];
      return pairs<unknown>([1, Number.NaN, 'a', M1, S1, S2, { kind: 'some', value: 1 }, [1, 2], [1, 2, 3]]);
    case 'map':
      if (info.arity === 0) return [[]];
      if (info.arity === 1) return [[M1], [IMap()]];
      if (info.arity === 2)
        return [
          [M1, 1],
          [M1, 'k'],
          [M1, 'missing'],
          [IMap(), 0],
        ];
      return [
        [M1, 1, 'v'],
        [M1, 7, 8],
        [IMap(), 0, 0],
      ];
    case 'set': {
      const sets = [S1, S2, ISet(), ISet([1, 2, 3])];
      if (info.arity === 0) return [[]];
      if (info.arity === 1) return op === 'set_singleton' ? [[1], ['a']] : sets.map((x) => [x]);
      if (['set_add', 'set_delete', 'set_has'].includes(op))
        return sets.flatMap((x) => [
          [x, 1],
          [x, 9],
          [x, 'x'],
        ]);
      return pairs(sets);
    }
    default:
      return [];
  }
}

describe('every primitive', () => {
  const ops = Object.keys(PRIMS) as PrimOp[];
  const cases = ops.map((op) => prim(op, ...['a', 'b', 'c'].slice(0, PRIMS[op].arity).map(v)));
  const p = program([dispatcher(cases)]);
  let main: (...a: unknown[]) => unknown;
  const interp = new Interpreter(p);
  beforeAll(async () => {
    main = (await load(p, { entry: 't.main', exportName: 'main' })).mod.main as typeof main;
  });

  for (const [i, op] of ops.entries()) {
    it(op, () => {
      const ss = samples(op);
      expect(ss.length).toBeGreaterThan(0);
      for (const args of ss) {
        const padded = [...args, undefined, undefined, undefined].slice(0, 3);
        const want = interp.run('t.main', [i, ...padded]).value;
        const got = main(i, ...padded);
        expect(same(got, want), `${op}(${args.map(String).join(', ')})`).toBe(true);
      }
    });
  }
});

describe('every expression kind', () => {
  // each case over (a, b, c)
  const cases: [string, Expr, unknown[][]][] = [
    ['var', v('a'), [[1], ['x']]],
    ['lit number', lit(-5), [[]]],
    ['lit -0', lit(-0), [[]]],
    ['lit NaN', lit(Number.NaN), [[]]],
    ['lit -Infinity', lit(-Infinity), [[]]],
    ['lit string with quotes', lit('it\'s "q" \\ \n \u2028 \ud800'), [[]]],
    ['con object', con('pt', v('a'), con('some', v('b'))), [[1, 2]]],
    ['con reserved field names', con('odd', v('a'), v('b'), v('c'), lit(0)), [[1, 2, 3]]],
    ['con tuple', con('#3', v('a'), v('b'), con('#0')), [[1, 2]]],
    ['con nullary', con('none'), [[]]],
    [
      'test object',
      test('some', v('a')),
      [[{ kind: 'some', value: 1 }], [{ kind: 'none' }], [3], ['s'], [[1]], [M1]],
    ],
    ['test tuple', test('#2', v('a')), [[[1, 2]], [[1]], [{ kind: 'some', value: 1 }], [7]]],
    ['proj object', proj('pt', 1, v('a')), [[{ kind: 'pt', x: 1, y: 2 }]]],
    [
      'proj reserved field',
      proj('odd', 1, v('a')),
      [[{ kind: 'odd', class: 1, new: 2, kind2: 3, __proto__x: 4 }]],
    ],
    ['proj tuple', proj('#2', 1, v('a')), [[[1, 2]]]],
    ['proj of a literal', proj('pt', 0, lit({ kind: 'pt', x: 5, y: 6 })), [[]]],
    ['test of a number literal', test('some', lit(5)), [[]]],
    [
      'if',
      iff(v('a'), v('b'), v('c')),
      [
        [true, 1, 2],
        [false, 1, 2],
        [1, 1, 2],
        ['x', 1, 2],
      ],
    ],
    [
      'if as operand',
      prim('add', iff(v('a'), v('b'), v('c')), lit(1)),
      [
        [true, 1, 2],
        [false, 1, 2],
        [0, 1, 2],
      ],
    ],
    [
      'if c then e else false',
      iff(v('a'), v('b'), lit(false)),
      [
        [true, 7],
        [false, 7],
        [1, 7],
      ],
    ],
    [
      'if c then true else e',
      iff(v('a'), lit(true), v('b')),
      [
        [true, 7],
        [false, 7],
        [1, 7],
      ],
    ],
    [
      'if c then false else true',
      iff(prim('lt', v('a'), v('b')), lit(false), lit(true)),
      [
        [1, 2],
        [2, 1],
      ],
    ],
    ['if c then true else false (non-boolean c)', iff(v('a'), lit(true), lit(false)), [[true], [1], ['']]],
    ['if with a constant condition', iff(lit(true), v('a'), call('t.loop', v('a'))), [[1]]],
    [
      'let in a branch (the other branch would not terminate)',
      iff(test('nil', v('a')), lit(0), let_('h', proj('cons', 0, v('a')), prim('add', v('h'), v('h')))),
      [[{ kind: 'nil' }], [{ kind: 'cons', head: 4, tail: { kind: 'nil' } }]],
    ],
    [
      'let in a branch of an operand if',
      prim(
        'mul',
        lit(2),
        iff(
          v('a'),
          let_('x', v('b'), prim('add', v('x'), lit(1))),
          let_('x', v('c'), prim('sub', v('x'), lit(1))),
        ),
      ),
      [
        [true, 5, 9],
        [false, 5, 9],
      ],
    ],
    [
      'shadowing lets and reserved names',
      let_(
        'class',
        v('a'),
        let_(
          'class',
          prim('add', v('class'), lit(1)),
          let_('%t0', v('class'), let_('t0', lit(100), con('#2', v('%t0'), v('t0')))),
        ),
      ),
      [[1]],
    ],
    [
      'let bound to a let',
      let_('x', let_('y', v('a'), prim('mul', v('y'), v('y'))), prim('add', v('x'), lit(1))),
      [[3]],
    ],
    [
      'nested let inside a call argument',
      call('t.pair', v('a'), let_('z', prim('neg', v('b')), prim('neg', v('z')))),
      [[1, 2]],
    ],
    ['neg of neg', prim('neg', prim('neg', v('a'))), [[3], [-0]]],
    ['neg of negative literal', prim('neg', lit(-3)), [[]]],
    ['sub of negative', prim('sub', v('a'), prim('neg', v('b'))), [[3, 4]]],
    [
      'precedence',
      prim('mul', prim('add', v('a'), v('b')), prim('sub', v('a'), prim('sub', v('b'), v('c')))),
      [[1, 2, 3]],
    ],
    [
      'string concat vs add',
      prim('concat', prim('num_to_string', prim('add', v('a'), v('b'))), lit('!')),
      [[1, 2]],
    ],
    [
      'comparison chain',
      prim('eq', prim('lt', v('a'), v('b')), prim('not', v('c'))),
      [
        [1, 2, false],
        [2, 1, true],
      ],
    ],
    ['call', call('t.pair', v('a'), v('b')), [[1, 2]]],
    ['call of a prelude-named function', call('u.setAdd', v('a')), [[1]]],
    [
      'recursion',
      call('t.sum', v('a')),
      [[{ kind: 'cons', head: 1, tail: { kind: 'cons', head: 2, tail: { kind: 'nil' } } }]],
    ],
  ];
  const helpers = [
    fun('t.pair', ['a', 'b'], con('#2', v('b'), v('a'))),
    fun('u.setAdd', ['x'], prim('set_add', prim('set_empty'), v('x'))),
    fun('t.loop', ['x'], call('t.loop', v('x'))),
    fun(
      't.sum',
      ['l'],
      iff(
        test('cons', v('l')),
        prim('add', proj('cons', 0, v('l')), call('t.sum', proj('cons', 1, v('l')))),
        lit(0),
      ),
    ),
  ];
  const p = program([dispatcher(cases.map((c) => c[1])), ...helpers]);
  const interp = new Interpreter(p);
  let main: (...a: unknown[]) => unknown;
  let code = '';
  beforeAll(async () => {
    const r = await load(p, { entry: 't.main', exportName: 'main' });
    main = r.mod.main as typeof main;
    code = r.code;
  });

  for (const [i, [name, , inputs]] of cases.entries()) {
    it(name, () => {
      for (const args of inputs) {
        const padded = [...args, undefined, undefined, undefined].slice(0, 3);
        const want = interp.run('t.main', [i, ...padded]).value;
        expect(same(main(i, ...padded), want), `${name} on ${JSON.stringify(args)}`).toBe(true);
      }
    });
  }

  it('names: locals never shadow imports, functions or reserved words', () => {
    expect(code).toMatch(/const class_\d* = /);
    expect(code).toContain('function u_setAdd(x)'); // u.setAdd does not take the prelude's name
    expect(code).toMatch(/import \{[^}]*setAdd[^}]*\}/);
    expect(code).not.toMatch(/const (class|new|let) /);
  });

  it('the export can differ from the entry name, and comments go above functions', async () => {
    const q = program([fun('m.go@1', ['x'], call('m.helper#2', v('x'))), fun('m.helper#2', ['x'], v('x'))]);
    const { mod, code: c } = await load(q, {
      entry: 'm.go@1',
      exportName: 'default',
      header: 'staged for I1 */ (comment end is escaped)',
      comments: new Map([['m.helper#2', 'cmd 3 analysis\nsecond line\u2028third']]),
    });
    expect((mod.default as (x: number) => number)(4)).toBe(4);
    expect(c).toContain('// cmd 3 analysis\n// second line\\u{2028}third\nfunction helper_2(x) {');
    expect(c).toContain('export { default_ as default };');
    expect(c).not.toMatch(/I1 \*\//);
  });

  it('checked projections throw where the interpreter throws', async () => {
    const q = program([fun('m.f', ['x'], proj('pt', 0, v('x'))), fun('m.g', ['x'], proj('#2', 0, v('x')))]);
    const f = (await load(q, { entry: 'm.f', exportName: 'f', checked: true })).mod.f as (
      x: unknown,
    ) => unknown;
    expect(f({ kind: 'pt', x: 1, y: 2 })).toBe(1);
    expect(() => f({ kind: 'some', value: 1 })).toThrow(StagedRuntimeError);
    expect(() => new Interpreter(q).run('m.f', [{ kind: 'some', value: 1 }])).toThrow();
    const g = (await load(q, { entry: 'm.g', exportName: 'g', checked: true })).mod.g as (
      x: unknown,
    ) => unknown;
    expect(g([5, 6])).toBe(5);
    expect(() => g(5)).toThrow(StagedRuntimeError);
  });
});

// ---- hoisted constants --------------------------------------------------------------------------

describe('hoisted constants', () => {
  const bigMap = IMap<unknown, unknown>(Array.from({ length: 20 }, (_, i) => [`k${(i * 7) % 20}`, i]));
  const list = (n: number): unknown => {
    let out: unknown = { kind: 'nil' };
    for (let i = n - 1; i >= 0; i--) out = { kind: 'cons', head: i, tail: out };
    return out;
  };
  const values: [string, unknown][] = [
    ['map', M1],
    ['big map (hashed, order kept)', bigMap],
    ['set', S1],
    ['empty map and set', [IMap(), ISet()]],
    ['option some', { kind: 'some', value: { kind: 'pt', x: 1, y: [2, 'z'] } }],
    ['option none', { kind: 'none' }],
    ['tuple', [1, 'a', true, [Number.NaN, -0]]],
    ['nested constructors', { kind: 'cons', head: { kind: 'pt', x: -1, y: 2 }, tail: { kind: 'nil' } }],
    ['fields out of declaration order', { kind: 'pt', y: 2, x: 1 }],
    ['deep list (split into several constants)', list(300)],
    ['map of constructors', IMap<unknown, unknown>([[1, { kind: 'some', value: S2 }]])],
  ];
  const p = program([dispatcher(values.map(([, x]) => lit(x)))]);
  const interp = new Interpreter(p);
  let main: (i: number) => unknown;
  let code = '';
  beforeAll(async () => {
    const r = await load(p, { entry: 't.main', exportName: 'main' });
    main = r.mod.main as typeof main;
    code = r.code;
  });

  for (const [i, [name, x]] of values.entries()) {
    it(name, () => {
      const got = main(i);
      expect(equal(got, interp.run('t.main', [i, 0, 0, 0]).value)).toBe(true);
      expect(equal(got, x)).toBe(true);
      expect(shape(got)).toEqual(shape(x, true));
      expect(main(i)).toBe(got); // built once
    });
  }

  it('constants are module-level and commented', () => {
    expect(code).toMatch(/^const K0 = .*; \/\/ /m);
    expect(code).toContain('mapOf([');
    expect(code).toContain('setOf([');
  });
});

/** The shape of a value: kinds and key orders (declaration order when `normalize`), map orders. */
function shape(x: unknown, normalize = false): unknown {
  if (IMap.isMap(x))
    return ['map', [...(x as IMap<unknown, unknown>)].map(([k, y]) => [k, shape(y, normalize)])];
  if (ISet.isSet(x)) return ['set', [...(x as ISet<unknown>)]];
  if (Array.isArray(x)) return x.map((y) => shape(y, normalize));
  if (typeof x === 'object' && x !== null) {
    const o = x as Record<string, unknown>;
    const decl = CTORS.find((c) => c.name === o.kind);
    const keys = normalize && decl ? ['kind', ...decl.fields.filter((f) => f in o)] : Object.keys(o);
    return keys.map((k) => [k, k === 'kind' ? o[k] : shape(o[k], normalize)]);
  }
  return typeof x === 'number' && Number.isNaN(x) ? 'NaN' : x;
}

// ---- random programs ------------------------------------------------------------------------------

/**
 * Random well-typed Core over ints and booleans: lets (often in branches, often shadowing, with
 * names that are reserved words or prelude names), ifs in every position, options, calls.
 */
const NAMES = ['x', 'y', 'class', '%t0', 't0', 'setAdd', 'tmp0', 'K0', 'x'];
type Ty = 'int' | 'bool' | 'opt';

function genExpr(ty: Ty, scope: readonly [string, Ty][], depth: number): fc.Arbitrary<Expr> {
  const vars = scope.filter(([, t]) => t === ty).map(([n]) => n);
  const leaves: fc.Arbitrary<Expr>[] = [];
  if (ty === 'int') leaves.push(fc.integer({ min: -3, max: 40 }).map((n) => lit(n)));
  if (ty === 'bool') leaves.push(fc.boolean().map((b) => lit(b)));
  if (ty === 'opt') {
    leaves.push(fc.constant(null).map(() => con('none')));
    leaves.push(fc.integer({ min: 0, max: 3 }).map((n) => lit({ kind: 'some', value: n })));
  }
  if (vars.length > 0) leaves.push(fc.constantFrom(...vars).map((n) => v(n)));
  if (depth <= 0) return fc.oneof(...leaves);
  const sub = (t: Ty, s = scope) => fc.constant(null).chain(() => genExpr(t, s, depth - 1));
  const rules: fc.Arbitrary<Expr>[] = [
    ...leaves,
    fc.tuple(sub('bool'), sub(ty), sub(ty)).map(([c, t, e]) => iff(c, t, e)),
    fc
      .tuple(fc.constantFrom(...NAMES), fc.constantFrom<Ty>('int', 'bool', 'opt'))
      .chain(([n, t]) =>
        fc
          .tuple(sub(t), sub(ty, [...scope.filter(([m]) => m !== n), [n, t]]))
          .map(([val, body]) => let_(n, val, body)),
      ),
  ];
  if (ty === 'int') {
    rules.push(
      fc
        .tuple(
          fc.constantFrom<PrimOp>('add', 'sub', 'mul', 'bitand', 'bitxor', 'shl', 'imul', 'max'),
          sub('int'),
          sub('int'),
        )
        .map(([op, a, b]) => prim(op, a, b)),
      sub('int').map((a) => prim('neg', a)),
      sub('opt').map((o) => iff(test('some', o), proj('some', 0, o), lit(-1))),
      fc.tuple(sub('int'), sub('bool')).map(([a, b]) => call('r.helper', a, b)),
    );
  }
  if (ty === 'bool') {
    rules.push(
      fc
        .tuple(fc.constantFrom<PrimOp>('lt', 'eq', 'ne', 'ge'), sub('int'), sub('int'))
        .map(([op, a, b]) => prim(op, a, b)),
      sub('bool').map((a) => prim('not', a)),
      sub('opt').map((o) => test('none', o)),
      fc.tuple(sub('bool'), sub('bool')).map(([a, b]) => iff(a, b, lit(false))),
      fc.tuple(sub('bool'), sub('bool')).map(([a, b]) => iff(a, lit(true), b)),
      fc.tuple(sub('int'), sub('bool')).map(([a, b]) => call('r.isBig', a, b)),
    );
  }
  if (ty === 'opt') rules.push(sub('int').map((a) => con('some', a)));
  return fc.oneof(...rules);
}

describe('random programs', () => {
  const progs = fc.sample(
    genExpr(
      'int',
      [
        ['a', 'int'],
        ['b', 'bool'],
        ['c', 'opt'],
      ],
      5,
    ),
    { numRuns: 150, seed: 42 },
  );
  const helpers = [
    fun('r.helper', ['n', 'f'], iff(v('f'), prim('add', v('n'), lit(1)), prim('mul', v('n'), lit(2)))),
    fun('r.isBig', ['n', 'f'], iff(prim('gt', v('n'), lit(10)), lit(true), v('f'))),
  ];
  const p = program([dispatcher(progs), ...helpers]);
  const interp = new Interpreter(p);

  it('emitted ≡ interpreted on random inputs', async () => {
    const { mod } = await load(p, { entry: 't.main', exportName: 'main' });
    const main = mod.main as (...a: unknown[]) => unknown;
    const inputs: unknown[][] = [];
    for (const a of [0, 1, -2, 17])
      for (const b of [true, false])
        for (const c of [{ kind: 'none' }, { kind: 'some', value: 5 }]) inputs.push([a, b, c]);
    for (let i = 0; i < progs.length; i++) {
      for (const args of inputs) {
        const want = interp.run('t.main', [i, ...args]).value;
        expect(same(main(i, ...args), want), `program ${i} on ${JSON.stringify(args)}`).toBe(true);
      }
    }
  });
});
