/**
 * Stager configurations (src/pipeline/config.ts) and the abstract pipeline input they describe
 * (src/pipeline/describe-input.ts):
 * - the 11 Table 2 configurations load, fit their functions, and admit their stage-2 samples;
 * - describeFormals is the abstraction of formalsFromBindings: sound on members drawn from each
 *   description (fast-check), exact where the domain allows (outside values rejected);
 * - every user error is one `FILE:LINE:COL: error CODE: message` pointing at the offending value.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  type AbsValue,
  type CtorTable,
  conforms,
  printAbs,
  printDebug,
} from '../../src/abstract-values/index.js';
import { arbMember } from '../../src/testing.js';
import {
  evaluate,
  type Fun,
  listFromArray,
  listToArray,
  loadKernelParser,
  type Param,
  parseKernelSync,
} from '../../src/kernel/index.js';
import {
  allPasses,
  type BindValue,
  type Bindings,
  findPass,
  formalsFromBindings,
  runPipeline,
} from '../../src/optimizers/index.js';
import { GROW_CAP, SPEC_FUEL, UNFOLD_DEPTH } from '../../src/partial-eval/index.js';
import { compileFile } from '../../src/scf-lang/index.js';
import {
  CONFIG_KEYS,
  ConfigError,
  configPipelineInput,
  KNOWN_PASSES,
  type StageConfig,
} from '../../src/pipeline/config.js';
import { loadConfig, loadConfigInput, parseConfig } from '../../src/pipeline/config-files.js';
import {
  abstractPipelineInput,
  type Description,
  describeFormal,
  describeFormalList,
  describeFormals,
  FormalDescriptionError,
  literalDescription,
  parseBindDescription,
  typedDescription,
} from '../../src/pipeline/describe-input.js';
import { sameResults } from '../optimizers/helpers.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const TABLE2 = path.join(ROOT, 'configs/table2');
/** A config file name next to the Table 2 ones, so `../../benchmarks/inputs/…` resolves. */
const FILE = path.join(TABLE2, 'test.json');

let ctors: CtorTable;
let testFun: Fun;

beforeAll(async () => {
  await loadKernelParser();
  const r = compileFile('src/optimizers/const-prop.ts', { cwd: ROOT });
  if (r.program === null) throw new Error('const-prop does not compile');
  ctors = r.program.ctors;
  const p = parseKernelSync(
    'int f(int i, float x, bool b, const int a[], const float c[], const bool d[]) { return i; }',
  );
  testFun = listToArray(p.program)[0] as Fun;
});

/** Elements of an abstract cons list printed in Fig. 6 notation. */
function printFormals(v: AbsValue): string[] {
  const out: string[] = [];
  for (let l = v; l.kind === 'con' && l.ctor === 'cons'; l = l.args[1] as AbsValue) {
    out.push(printAbs(l.args[0] as AbsValue));
  }
  return out;
}

function descs(bind: Readonly<Record<string, string>>): Record<string, Description> {
  return Object.fromEntries(Object.entries(bind).map(([k, v]) => [k, parseBindDescription(v)]));
}

function param(name: string): Param {
  const p = listToArray(testFun.params).find((q) => q.name === name);
  if (p === undefined) throw new Error(name);
  return p;
}

/** A member of a description (cons lists) as a bind value (arrays). */
function toBind(x: unknown): BindValue {
  if (typeof x === 'object' && x !== null && 'kind' in x) {
    const out: (number | boolean)[] = [];
    for (let l = x as { kind: string; head?: unknown; tail?: unknown }; l.kind === 'cons'; ) {
      out.push(l.head as number | boolean);
      l = l.tail as typeof l;
    }
    return out;
  }
  return x as BindValue;
}

/** The formals of `fun` under `b`, as the native list const-prop receives. */
function formalsList(fun: Fun, b: Bindings): unknown {
  return listFromArray(formalsFromBindings(fun, b));
}

// ---- Table 2 --------------------------------------------------------------------------------

const CACHE_BIND = { isize: "'Int", dsize: "'Int", assoc: "'Int", bsize: '16' };
const CACHE_SAMPLE = { isize: 8, dsize: 8, assoc: 1, bsize: 16 };
/** Table 2: function, stage-1 descriptions (as written), stage-2 values (tests/optimizers/table2.test.ts). */
const TABLE: Record<number, { fn: string; bind: Record<string, string>; sample: Bindings }> = {
  1: { fn: 'mul_add', bind: { a: "'Int" }, sample: { a: 1 } },
  2: { fn: 'mul_add', bind: { a: '0|1' }, sample: { a: 1 } },
  3: { fn: 'mul_add', bind: { a: '3|1' }, sample: { a: 1 } },
  4: { fn: 'dotproduct', bind: { v2: "'Array", s: "'Int" }, sample: { v2: [0, 1, 7], s: 3 } },
  5: { fn: 'dotproduct', bind: { v2: "'Array", s: '3' }, sample: { v2: [0, 1, 7], s: 3 } },
  6: {
    fn: 'doconvol',
    bind: { coef: "'Array[9]", crows: '3', ccols: '3' },
    sample: { coef: [1, 0, 1, 0, 1, 0, 1, 0, 1], crows: 3, ccols: 3 },
  },
  7: { fn: 'doconvol_1d', bind: { coef: "'Array[3]", ccols: '3' }, sample: { coef: [0, 1, 0], ccols: 3 } },
  8: { fn: 'main_loop', bind: CACHE_BIND, sample: CACHE_SAMPLE },
  9: { fn: 'main_loop_f', bind: CACHE_BIND, sample: CACHE_SAMPLE },
  10: { fn: 'main_loop_f_u', bind: CACHE_BIND, sample: CACHE_SAMPLE },
  11: { fn: 'main_loop_f_u_f', bind: CACHE_BIND, sample: CACHE_SAMPLE },
};

describe('Table 2 configurations', () => {
  const files = readdirSync(TABLE2)
    .filter((f) => f.endsWith('.json'))
    .sort();

  it('there are 11, numbered NN- as their ids, describing Table 2', () => {
    expect(files).toHaveLength(11);
    files.forEach((f, i) => {
      const c = loadConfig(path.join(TABLE2, f));
      expect(f.startsWith(`${String(i + 1).padStart(2, '0')}-`)).toBe(true);
      expect(c.id).toBe(i + 1);
      const t = TABLE[i + 1];
      expect(c.function).toBe(t?.fn);
      expect(c.input).toBe(path.join(ROOT, 'benchmarks/inputs', `${t?.fn}.c`));
      expect(c.pipeline).toEqual(['const-prop', 'copy-prop', 'dae']);
      expect(Object.fromEntries(Object.entries(c.bind).map(([k, d]) => [k, d.text]))).toEqual(t?.bind);
      expect(c.sample).toEqual(t?.sample);
      expect(c.description).toMatch(/\S/);
    });
  });

  for (const f of readdirSync(TABLE2).filter((x) => x.endsWith('.json'))) {
    it(`${f}: fits its function; I1 contains the function and the sample's formals; the pipeline runs`, async () => {
      const c = loadConfig(path.join(TABLE2, f));
      const { program, fun } = await loadConfigInput(c);
      const [absFun, absFormals] = configPipelineInput(c, fun, ctors) as [AbsValue, AbsValue];
      expect(conforms(fun, absFun, ctors)).toBe(true);
      const sample = c.sample as Bindings;
      expect(conforms(formalsList(fun, sample), absFormals, ctors)).toBe(true);
      // no bindings at all (every formal nonConst) is outside I1
      expect(conforms(formalsList(fun, {}), absFormals, ctors)).toBe(false);
      // the stage-2 sample optimizes as in table2.test.ts, and the result computes the same
      const passes = c.pipeline.map((n) => findPass(n)).filter((p) => p !== undefined);
      const optimized = runPipeline(program, c.function, passes, sample);
      const args = {
        ...JSON.parse(readFileSync(c.input.replace(/\.c$/, '.args.json'), 'utf8')),
        ...sample,
      };
      expect(
        sameResults(evaluate(program, c.function, args), evaluate(optimized.program, c.function, args)),
      ).toBe(true);
    });
  }

  it("configuration 1's I1 is Fig. 4's: (P1, [non_const, non_const, const('Int)])", async () => {
    const c = loadConfig(path.join(TABLE2, '01-mul_add.json'));
    const { fun } = await loadConfigInput(c);
    expect(printFormals(configPipelineInput(c, fun, ctors)[1] as AbsValue)).toEqual([
      'nonConst',
      'nonConst',
      `const('Int, "int")`,
    ]);
  });

  it('the other shapes: 0|1, 3|1, some 1-D array, a 3×3 float matrix, the cache parameters', async () => {
    const formals = async (file: string) => {
      const c = loadConfig(path.join(TABLE2, file));
      const { fun } = await loadConfigInput(c);
      return printFormals(configPipelineInput(c, fun, ctors)[1] as AbsValue);
    };
    expect((await formals('02-mul_add-0or1.json'))[2]).toBe('const(0 | 1, "int")');
    expect((await formals('03-mul_add-3or1.json'))[2]).toBe('const(1 | 3, "int")');
    expect(await formals('04-dotproduct.json')).toEqual([
      'nonConst',
      `constArray("int", fix α. nil | cons('Int, α))`,
      `const('Int, "int")`,
    ]);
    expect((await formals('05-dotproduct-s3.json'))[2]).toBe('const(3, "int")');
    const conv = await formals('06-doconvol.json');
    expect(conv[4]).toBe(`constArray("float", ${"cons('Float, ".repeat(9)}nil${')'.repeat(9)})`);
    expect(conv.slice(5, 7)).toEqual(['const(3, "int")', 'const(3, "int")']);
    expect(await formals('11-main_loop_f_u_f.json')).toEqual([
      'nonConst',
      'nonConst',
      'nonConst',
      `const('Int, "int")`,
      `const('Int, "int")`,
      `const('Int, "int")`,
      'const(16, "int")',
      'nonConst',
    ]);
  });
});

// ---- describeFormals -------------------------------------------------------------------------

describe('describeFormals: the abstraction of formalsFromBindings', () => {
  const one = (name: string, text: string) =>
    printAbs(describeFormal(param(name), parseBindDescription(text), ctors));

  it('scalars: holes, literals, unions; floats rounded to binary32; bools 0/1; unbound is nonConst', () => {
    expect(one('i', "'Int")).toBe(`const('Int, "int")`);
    expect(one('i', '3')).toBe('const(3, "int")');
    expect(one('i', '3|1|-2')).toBe('const(-2 | 1 | 3, "int")');
    expect(one('i', "'Any")).toBe(`const('Int, "int")`);
    expect(one('x', "'Float")).toBe(`const('Float, "float")`);
    expect(one('x', "'Int")).toBe(`const('Float, "float")`);
    expect(one('x', '0.1 | 2')).toBe(`const(${Math.fround(0.1)} | 2, "float")`);
    expect(one('x', 'NaN | -Infinity')).toBe('const(-Infinity | NaN, "float")');
    expect(one('b', 'true')).toBe('const(1, "bool")');
    expect(one('b', "'Bool")).toBe('const(0 | 1, "bool")');
    expect(one('b', '0 | 7')).toBe('const(0 | 1, "bool")');
    expect(one('b', "'Int")).toBe('const(0 | 1, "bool")');
    expect(printAbs(describeFormal(param('i'), undefined, ctors))).toBe('nonConst');
  });

  it('arrays: exact elements, any length, fixed length, unions of arrays; elements typed', () => {
    expect(one('a', '[0,1,7]')).toBe('constArray("int", cons(0, cons(1, cons(7, nil))))');
    expect(one('a', "'Array")).toBe(`constArray("int", fix α. nil | cons('Int, α))`);
    expect(one('c', "'Array")).toBe(`constArray("float", fix α. nil | cons('Float, α))`);
    expect(one('d', "'Any")).toBe('constArray("bool", fix α. nil | cons(0 | 1, α))');
    expect(one('a', "'Array[2]")).toBe(`constArray("int", cons('Int, cons('Int, nil)))`);
    expect(one('a', "'Array(0|1)")).toBe('constArray("int", fix α. nil | cons(0 | 1, α))');
    expect(one('c', '[1, 0.1]')).toBe(`constArray("float", cons(1, cons(${Math.fround(0.1)}, nil)))`);
    expect(one('a', '[1] | [2, 3]')).toBe('constArray("int", cons(1, nil) | cons(2, cons(3, nil)))');
    expect(one('a', '[]')).toBe('constArray("int", nil)');
  });

  it('the formals form a cons list in parameter order; I1 is [fun, formals]', () => {
    const bind = descs({ a: '[0,1,7]', i: "'Int" });
    const list = describeFormals(testFun, bind, ctors);
    expect(printFormals(list)).toEqual([
      `const('Int, "int")`,
      'nonConst',
      'nonConst',
      'constArray("int", cons(0, cons(1, cons(7, nil))))',
      'nonConst',
      'nonConst',
    ]);
    const [f, formals] = abstractPipelineInput(testFun, bind, ctors) as [AbsValue, AbsValue];
    expect(conforms(testFun, f, ctors)).toBe(true);
    expect(printAbs(formals)).toBe(printAbs(list));
  });

  it("no two positions share an identity tag ('Array[3] elements are not claimed equal)", () => {
    const v = describeFormal(param('a'), parseBindDescription("'Array[3]"), ctors);
    const tags = [...printDebug(v).matchAll(/'Int#(\d+)/g)].map((m) => m[1]);
    expect(tags).toHaveLength(3);
    expect(new Set(tags).size).toBe(3);
  });

  it('descriptions that do not fit their formal name it', () => {
    const bad = (bind: Record<string, string>, formal: string, message: RegExp) => {
      let err: unknown;
      try {
        describeFormals(testFun, descs(bind), ctors);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(FormalDescriptionError);
      expect((err as FormalDescriptionError).formal).toBe(formal);
      expect((err as FormalDescriptionError).reason).toMatch(message);
    };
    bad({ i: "'Float" }, 'i', /'Float admits non-integers/);
    bad({ i: '1.5' }, 'i', /cannot bind 1\.5/);
    bad({ i: '2147483648' }, 'i', /cannot bind 2147483648/);
    bad({ i: 'true' }, 'i', /not a boolean/);
    bad({ i: '[1]' }, 'i', /scalar int, not an array/);
    bad({ i: "'Array" }, 'i', /scalar int, not an array/);
    bad({ x: 'false' }, 'x', /not a boolean/);
    bad({ b: '"yes"' }, 'b', /not a string/);
    bad({ a: '3' }, 'a', /array of int; describe it as \[\.\.\] or 'Array, not the scalar 3/);
    bad({ a: '[0.5]' }, 'a', /cannot bind 0\.5/);
    bad({ a: '[[1]]' }, 'a', /elements are scalars, not an array/);
    bad({ i: 'some(1)' }, 'i', /not constructor 'some'/);
    bad({ i: "'Empty" }, 'i', /admits no value/);
    bad({ q: '1' }, 'q', /'f' has no parameter 'q'/);
  });

  it('literal descriptions (JSON numbers and arrays) are singletons', () => {
    expect(printAbs(describeFormal(param('a'), literalDescription([4, 5]), ctors))).toBe(
      'constArray("int", cons(4, cons(5, nil)))',
    );
    expect(printAbs(describeFormal(param('b'), literalDescription(false), ctors))).toBe('const(0, "bool")');
  });
});

describe('describeFormals: soundness on members of every description (fast-check)', () => {
  /** Bindings drawn from the typed descriptions, one formal at a time, jointly. */
  const bindings = (fun: Fun, bind: Record<string, Description>): fc.Arbitrary<Bindings> => {
    const params = listToArray(fun.params).filter((p) => Object.hasOwn(bind, p.name));
    return fc
      .tuple(...params.map((p) => arbMember(typedDescription(p, bind[p.name] as Description))))
      .map((xs) => Object.fromEntries(params.map((p, i) => [p.name, toBind(xs[i])])));
  };

  const cases: Record<string, string>[] = [
    { i: "'Int" },
    { i: '0|1', x: "'Float", b: "'Bool" },
    { i: "'Any", x: "'Int", b: "'Int", a: "'Array", c: "'Array", d: "'Array" },
    { x: '0.1 | 1e40 | -0 | NaN', b: 'true | 0 | 2', a: "'Array[3]", c: '[1, 0.25, 3]' },
    { a: "[1] | [2, 3] | 'Array(0|1)[2]", c: "'Array('Float)[2]", d: '[true, 0, 5]' },
  ];
  for (const bind of cases) {
    it(JSON.stringify(bind), () => {
      const d = descs(bind);
      const abs = describeFormals(testFun, d, ctors);
      fc.assert(
        fc.property(bindings(testFun, d), (b) => conforms(formalsList(testFun, b), abs, ctors)),
        { numRuns: 300, seed: 11 },
      );
    });
  }

  it('the Table 2 configurations', async () => {
    for (const f of readdirSync(TABLE2).filter((x) => x.endsWith('.json'))) {
      const c = loadConfig(path.join(TABLE2, f));
      const { fun } = await loadConfigInput(c);
      const abs = describeFormals(fun, c.bind, ctors);
      fc.assert(
        fc.property(bindings(fun, c.bind), (b) => conforms(formalsList(fun, b), abs, ctors)),
        { numRuns: 100, seed: 5 },
      );
    }
  });
});

describe('describeFormals: values outside the description are rejected', () => {
  /** `admitted(b)`: whether binding value b of formal `name` lies in the description. */
  const exact = (
    name: string,
    text: string,
    candidates: fc.Arbitrary<BindValue>,
    admitted: (b: BindValue) => boolean,
  ) =>
    it(`${name} = ${text}`, () => {
      const abs = describeFormals(testFun, descs({ [name]: text }), ctors);
      fc.assert(
        fc.property(
          candidates,
          (b) => conforms(formalsList(testFun, { [name]: b }), abs, ctors) === admitted(b),
        ),
        { numRuns: 300, seed: 3 },
      );
    });
  const ints = fc.oneof(fc.integer({ min: -3, max: 8 }), fc.integer());
  const intArrays = fc.array(fc.oneof(fc.constantFrom(0, 1, 2, 3, 7), fc.integer()), { maxLength: 4 });
  const same = (x: BindValue, y: readonly number[]) =>
    Array.isArray(x) && x.length === y.length && x.every((e, i) => e === y[i]);

  exact('i', '0|1', ints, (b) => b === 0 || b === 1);
  exact('i', '3|1|-2', ints, (b) => b === 3 || b === 1 || b === -2);
  exact('i', "'Int", ints, () => true);
  exact('x', '0.5|2', fc.oneof(fc.constantFrom(0.5, 2), fc.float()), (b) => b === 0.5 || b === 2);
  exact('b', 'false', fc.oneof(fc.boolean(), ints), (b) => b === false || b === 0);
  exact('a', '[0,1,7]', fc.oneof(fc.constant([0, 1, 7]), intArrays), (b) => same(b, [0, 1, 7]));
  exact('a', "'Array[3]", intArrays, (b) => Array.isArray(b) && b.length === 3);
  exact(
    'a',
    '[1] | [2, 3]',
    fc.oneof(fc.constantFrom([1], [2, 3], [3, 2]), intArrays),
    (b) => same(b, [1]) || same(b, [2, 3]),
  );
  exact('a', "'Array(0|1)", intArrays, (b) => Array.isArray(b) && b.every((e) => e === 0 || e === 1));

  it('a bound formal is never nonConst, an unbound one always is', () => {
    const abs = describeFormals(testFun, descs({ i: "'Int" }), ctors);
    expect(conforms(formalsList(testFun, {}), abs, ctors)).toBe(false);
    expect(conforms(formalsList(testFun, { i: 3, x: 1 }), abs, ctors)).toBe(false);
    expect(conforms(formalsList(testFun, { i: 3 }), abs, ctors)).toBe(true);
  });
});

// ---- errors ----------------------------------------------------------------------------------

const GOOD = {
  id: 1,
  input: '../../benchmarks/inputs/mul_add.c',
  function: 'mul_add',
  pipeline: ['const-prop', 'copy-prop', 'dae'],
  bind: { a: "'Int" },
  sample: { a: 1 },
};

/** The `LINE:COL` of the `nth` occurrence of `needle` in `text` (1-based). */
function where(text: string, needle: string, nth = 0): string {
  let i = -1;
  for (let k = 0; k <= nth; k++) i = text.indexOf(needle, i + 1);
  if (i < 0) throw new Error(`no '${needle}'`);
  const before = text.slice(0, i).split('\n');
  return `${before.length}:${(before[before.length - 1] as string).length + 1}`;
}

function configErr(f: () => unknown): ConfigError {
  try {
    f();
  } catch (e) {
    if (e instanceof ConfigError) return e;
    throw e;
  }
  throw new Error('no error');
}

/** parseConfig fails at `needle` (its nth occurrence) with a message matching `message`. */
function expectError(text: string, needle: string, message: RegExp, nth = 0): void {
  const e = configErr(() => parseConfig(text, FILE));
  expect(`${e.line}:${e.col}`).toBe(where(text, needle, nth));
  expect(e.reason).toMatch(message);
  // the part's code, or the description language's for a description in `bind`
  expect(e.code).toMatch(/^(C10\d\d|D100[1-3])$/);
  expect(e.message).toBe(`${FILE}:${e.line}:${e.col}: error ${e.code}: ${e.reason}`);
}

const json = (x: unknown) => JSON.stringify(x, null, 2);

describe('config errors: FILE:LINE:COL: error CODE: message', () => {
  it('the code names the part of the file at fault (CONFIG_CODES)', () => {
    const code = (x: unknown) => configErr(() => parseConfig(typeof x === 'string' ? x : json(x), FILE)).code;
    expect(code('{"input": ')).toBe('C1002');
    expect(code({ ...GOOD, extra: 1 })).toBe('C1003');
    expect(code({ ...GOOD, id: -1 })).toBe('C1004');
    expect(code({ ...GOOD, description: 5 })).toBe('C1004');
    expect(code({ ...GOOD, input: 5 })).toBe('C1005');
    expect(code({ ...GOOD, input: 'nope.c' })).toBe('C1005');
    expect(code({ ...GOOD, function: 5 })).toBe('C1006');
    expect(code({ ...GOOD, function: 'not a name' })).toBe('C1006');
    expect(code({ ...GOOD, pipeline: [] })).toBe('C1007');
    expect(code({ ...GOOD, bind: ["'Int"] })).toBe('C1008');
    // a description at fault reports the description language's code (DESCRIPTION_CODES)
    expect(code({ ...GOOD, bind: { a: "'Nope" } })).toBe('D1001');
    expect(code({ ...GOOD, bind: { a: null } })).toBe('D1001');
    expect(code({ ...GOOD, sample: { zz: 1 } })).toBe('C1009');
    expect(code({ ...GOOD, pe: { growCap: 0 } })).toBe('C1010');
    expect(code({ ...GOOD, args: { x: 'one' } })).toBe('C1011');
    expect(code({ ...GOOD, math: 'fast' })).toBe('C1012');
  });

  it("run-time arguments ('args') and finite math ('math')", () => {
    const c = parseConfig(
      json({
        ...GOOD,
        args: { x: 3, y: { random: 4, seed: 1 }, z: { random: 2, seed: 5, max: 9 } },
        math: 'finite',
      }),
      FILE,
    );
    expect(c.args).toEqual({ x: 3, y: { random: 4, seed: 1 }, z: { random: 2, seed: 5, max: 9 } });
    expect(c.math).toBe('finite');
    expect(parseConfig(json(GOOD), FILE).math).toBeUndefined();
    expectError(json({ ...GOOD, args: [1] }), '[', /'args' must be an object/, 1);
    expectError(json({ ...GOOD, args: { a: 1 } }), '"a"', /'a' is in 'bind'/, 2);
    expectError(
      json({ ...GOOD, args: { x: { random: 4 } } }),
      '{\n      "random"',
      /\{"random": N, "seed": S\}/,
    );
    expectError(
      json({ ...GOOD, args: { x: { random: 4, seed: 1, size: 2 } } }),
      '"size"',
      /unknown key 'size'/,
    );
    expectError(json({ ...GOOD, args: { x: { random: -4, seed: 1 } } }), '-4', /non-negative integer/);
    expectError(
      json({ ...GOOD, args: { x: { random: 2 ** 30, seed: 1 } } }),
      '{\n      "random"',
      /at most 16777216/,
    );
    expectError(json({ ...GOOD, math: 'fast' }), '"fast"', /'math' is "exact" \(the default\) or "finite"/);
  });

  it('a good config parses, with positions of its values', () => {
    const text = json(GOOD);
    const c = parseConfig(text, FILE);
    expect(c.function).toBe('mul_add');
    expect(c.bind.a?.text).toBe("'Int");
    expect(c.positions.get('bind.a')).toEqual(pos(where(text, `"'Int"`)));
    expect(c.positions.get('bind.a:key')).toEqual(pos(where(text, '"a"')));
    expect(c.positions.get('pipeline[1]')).toEqual(pos(where(text, '"copy-prop"')));
    expect(KNOWN_PASSES).toEqual(allPasses.map((p) => p.name));
    expect(KNOWN_PASSES).toEqual(expect.arrayContaining(['const-prop', 'copy-prop', 'dae']));
  });

  it('JSON syntax', () => {
    expectError('{ "input": "x.c" "function": "f" }', '"function"', /expected ','/);
    expectError('{\n  "input": "x.c",\n}', ',', /trailing comma/);
    expectError('{ // a comment\n}', '//', /comments are not allowed/);
    const eof = configErr(() => parseConfig('{ "input": "x.c"', FILE));
    expect([eof.line, eof.col, eof.reason]).toEqual([1, 17, "expected '}' (unexpected end of file)"]);
    expectError('{ "input": "x.c" } x', 'x', /invalid symbol/, 1);
    expectError('[1, 2]', '[', /a configuration is a JSON object/);
    expectError('{ "input": "a\\qb" }', '"a', /escape/);
  });

  it('keys: missing, unknown, duplicate', () => {
    const { pipeline: _, ...noPipeline } = GOOD;
    expectError(json(noPipeline), '{', /missing key 'pipeline'/);
    // no 'bind': nothing is known early
    const { bind: _b, sample: _s, ...noBind } = GOOD;
    expect(parseConfig(json(noBind), FILE).bind).toEqual({});
    expectError(json({ ...GOOD, passes: [] }), '"passes"', /unknown key 'passes'/);
    expectError('{ "input": "x.c", "input": "y.c" }', '"input"', /duplicate key 'input'/, 1);
    expectError(json({ ...GOOD, bind: { a: 1 }, sample: { a: 1, b: 2 } }), '"b"', /'b' is not in 'bind'/);
    expectError(json({ ...GOOD, sample: {} }), '{}', /'sample' has no value for 'a'/);
  });

  it("partial-evaluator limits ('pe')", () => {
    expect(parseConfig(json({ ...GOOD, pe: { growCap: 1024, specFuel: 4 } }), FILE).pe).toEqual({
      growCap: 1024,
      specFuel: 4,
    });
    expect(parseConfig(json(GOOD), FILE).pe).toBeUndefined();
    expectError(json({ ...GOOD, pe: 3 }), '3', /'pe' must be an object/);
    expectError(json({ ...GOOD, pe: { fuel: 3 } }), '"fuel"', /unknown partial-evaluator limit 'fuel'/);
    expectError(json({ ...GOOD, pe: { growCap: 0 } }), '0', /'pe.growCap' must be an integer/);
    expectError(json({ ...GOOD, pe: { specFuel: 2.5 } }), '2.5', /'pe.specFuel' must be an integer/);
  });

  it('types', () => {
    expectError(json({ ...GOOD, id: 1.5 }), '1.5', /'id' must be a positive integer/);
    expectError(json({ ...GOOD, function: 3 }), '3', /'function' must be a string/);
    expectError(json({ ...GOOD, function: 'mul add' }), '"mul add"', /C function name/);
    expectError(json({ ...GOOD, pipeline: 'dae' }), '"dae"', /'pipeline' must be an array/);
    expectError(json({ ...GOOD, pipeline: [] }), '[]', /at least one pass/);
    expectError(json({ ...GOOD, bind: ["'Int"] }), '[', /'bind' must be an object/, 1);
    expectError(json({ ...GOOD, bind: { a: null } }), 'null', /a description is a string/);
    expectError(json({ ...GOOD, bind: { a: { x: 1 } } }), '{\n      "x"', /not an object/);
    expectError(json({ ...GOOD, sample: { a: 'one' } }), '"one"', /a stage-2 value is a number/);
    expectError(json({ ...GOOD, sample: { a: [1, [2]] } }), '[\n        2', /a stage-2 value is a number/);
  });

  it('unknown passes', () => {
    const text = json({ ...GOOD, pipeline: ['const-prop', 'constprop', 'dae'] });
    expectError(text, '"constprop"', /unknown pass 'constprop' \(built-in: const-prop, copy-prop, dae/);
  });

  it('fusion is a known pass', () => {
    expect(KNOWN_PASSES).toContain('fusion');
  });

  it('description syntax errors point inside the string, escapes included', () => {
    const a = json({ ...GOOD, bind: { a: "0 | 'Inx" } });
    expectError(a, "'Inx", /bad description: unknown base set 'Inx/);
    const b =
      '{ "input": "../../benchmarks/inputs/mul_add.c", "function": "mul_add", "pipeline": ["dae"], "bind": { "a": "\\u0030 | \\"s\\" | )" } }';
    expectError(b, ')', /bad description: unexpected '\)'/);
    const c = json({ ...GOOD, bind: { a: '0 |' } });
    // at the end of the string: its closing quote
    expectError(c, '"', /unexpected end of description/, countQuotesBefore(c, '0 |'));
    const d = json({ ...GOOD, bind: { a: [1, "'Flaot"] } });
    expectError(d, "'Flaot", /unknown base set/);
  });

  it('a missing input file, a missing config file', () => {
    expectError(json({ ...GOOD, input: 'nope.c' }), '"nope.c"', /no such file: 'nope.c'/);
    const e = configErr(() => loadConfig(path.join(TABLE2, 'nope.json')));
    expect(e.message).toBe(
      `${path.join(TABLE2, 'nope.json')}:1:1: error C1001: cannot read the configuration: no such file`,
    );
  });

  it('checks against the function: unknown formals, misfits and samples outside point at bind/sample', async () => {
    const check = async (cfg: object): Promise<ConfigError> => {
      const text = json(cfg);
      const c: StageConfig = parseConfig(text, FILE);
      const { fun } = await loadConfigInput(c);
      return configErr(() => configPipelineInput(c, fun, ctors));
    };
    const at = (cfg: object, needle: string, nth = 0) => where(json(cfg), needle, nth);

    const unknown = { ...GOOD, bind: { q: '1' }, sample: { q: 1 } };
    let e = await check(unknown);
    expect([`${e.line}:${e.col}`, e.reason]).toEqual([at(unknown, '"q"'), "'mul_add' has no parameter 'q'"]);

    const misfit = { ...GOOD, bind: { a: '[1, 2]' }, sample: { a: [1, 2] } };
    e = await check(misfit);
    expect([`${e.line}:${e.col}`, e.reason]).toEqual([
      at(misfit, '"[1, 2]"'),
      "parameter 'a' is a scalar int, not an array",
    ]);

    const outside = { ...GOOD, bind: { a: '0|1' }, sample: { a: 3 } };
    e = await check(outside);
    expect([`${e.line}:${e.col}`, e.reason]).toEqual([
      at(outside, '3'),
      "the stage-2 value of 'a' is not admitted by its description '0|1'",
    ]);

    const badSample = { ...GOOD, sample: { a: 1.5 } };
    e = await check(badSample);
    expect([`${e.line}:${e.col}`, e.reason]).toEqual([
      at(badSample, '1.5'),
      expect.stringMatching(/cannot bind 1\.5/),
    ]);

    const noFun = { ...GOOD, function: 'mul' };
    const c = parseConfig(json(noFun), FILE);
    const err = await loadConfigInput(c).then(
      () => undefined,
      (x: unknown) => x,
    );
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).reason).toBe("'mul_add.c' has no function 'mul' (it defines mul_add)");
    expect(`${(err as ConfigError).line}:${(err as ConfigError).col}`).toBe(at(noFun, '"mul"'));
  });

  it('describeFormalList reports the formal, configPipelineInput the file position: no stack traces', async () => {
    const cfg = { ...GOOD, bind: { a: "'Float" }, sample: { a: 1 } };
    const c = parseConfig(json(cfg), FILE);
    const { fun } = await loadConfigInput(c);
    expect(() => describeFormalList(fun, c.bind, ctors)).toThrow(FormalDescriptionError);
    const e = configErr(() => configPipelineInput(c, fun, ctors));
    expect(e.message).toMatch(
      /^\/.*test\.json:\d+:\d+: error D1003: parameter 'a' is a scalar int; 'Float admits non-integers/,
    );
    expect(e.message).not.toMatch(/\n/);
  });
});

function pos(lc: string): { line: number; col: number } {
  const [line, col] = lc.split(':').map(Number);
  return { line: line as number, col: col as number };
}

/** How many `"` precede the first `needle` (to address a string's closing quote by occurrence). */
function countQuotesBefore(text: string, needle: string): number {
  return (text.slice(0, text.indexOf(needle)).match(/"/g) ?? []).length;
}

describe('docs/config.md', () => {
  const doc = readFileSync(path.resolve(import.meta.dirname, '../../docs/config.md'), 'utf8');
  it('documents every key a config may have', () => {
    for (const key of CONFIG_KEYS) expect(doc, key).toMatch(new RegExp(`^\\| \`${key}\` +\\|`, 'm'));
  });
  it("gives the partial evaluator's defaults as the code has them", () => {
    const row = (name: string) => new RegExp(`^\\| \`${name}\` +\\| (\\d+) +\\|`, 'm').exec(doc)?.[1];
    expect(row('growCap')).toBe(String(GROW_CAP));
    expect(row('specFuel')).toBe(String(SPEC_FUEL));
    expect(row('unfoldDepth')).toBe(String(UNFOLD_DEPTH));
  });
});
