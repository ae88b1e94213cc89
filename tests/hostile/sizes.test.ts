/**
 * Inputs as large as memory allows: late values given to a staged stub's `specialize`, and early
 * descriptions in a config's `bind`, are admitted or refused in linear time, never by a stack
 * overflow or by running out of memory. Through the public interface: each config (SCF Table 2's
 * doconvol_1d, its coefficients described in `bind`) is staged in-process, written to a
 * temporary folder and its stub imported, as tests/stager/staged.test.ts does.
 *
 * 1. Late arrays of 12,000, 200,000 and 10^6 elements for a formal described as `'Array` are
 *    admitted: staged, and equal to the unstaged pipeline. Described as `'Array(0|1)`, or as
 *    `fix x. nil | cons(0, x) | cons(1, x)` (alternatives sharing their tail), arrays of 0 and 1
 *    are admitted, and the same lengths with the last element 5 are refused: the unstaged
 *    pipeline runs, with a warning whose path names that element (the list, for alternatives).
 * 2. Late values that are no object of arrays of elements: a sparse array (a hole; a length of
 *    2^32 - 1, past MAX_LATE_ARRAY), no argument, `null`, a number, an array: `BindError`.
 * 3. Early descriptions: a 1,200-element literal stages and admits exactly its values;
 *    `'Array[1024]` (MAX_OPEN_ARRAY) stages; `'Array[3000]`, a literal of 70,000 elements and
 *    `'Array[4294967295]` are refused with an error at their place in the config.
 * 4. The parts on their own, on 200,000-element lists: `conforms`, `checkAdmitted` and the
 *    emitted checker agree, with the same error at the same path; the abstract-value operations a
 *    bind reaches (`inhabited`, `hash`, `size`, `compare`, `leq`, `printAbs`, `fromConcrete`,
 *    `singleton`) take no stack.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AbsValue,
  base,
  compare,
  con,
  conforms,
  constant,
  equals,
  fix,
  fromConcrete,
  hash,
  holes,
  inhabited,
  LIST_ARRAYS,
  leq,
  printAbs,
  rec,
  singleton,
  size,
  toAbsValue,
  union,
} from '../../src/abstract-values/index.js';
import { type Fun, loadKernelParser } from '../../src/kernel/index.js';
import { BindError, type LatticeVal, MAX_LATE_ARRAY } from '../../src/optimizers/index.js';
import { ConfigError, loadConfig, stageConfig, writeStaged } from '../../src/pipeline/index.js';
import { checkAdmitted } from '../../src/stager/admit-check.js';
import { ADMISSION_RUNTIME_IMPORTS, emitAdmission } from '../../src/stager/admit-emit.js';
import { InputNotAdmitted } from '../../src/scf-lang/staged-helpers.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const INPUT = path.join(ROOT, 'benchmarks/inputs/doconvol_1d.c');
const TMP = path.join(import.meta.dirname, `.tmp-sizes-${process.pid}`);

interface Stub {
  formalsOf(values: Record<string, unknown>): LatticeVal[];
  unstagedPipeline(formals: readonly LatticeVal[]): Fun;
  specialize(values?: unknown, warn?: (m: string) => void): { fun: Fun; staged: boolean };
}

beforeAll(async () => {
  await loadKernelParser();
  mkdirSync(TMP, { recursive: true });
});
afterAll(() => rmSync(TMP, { recursive: true, force: true }));

/** Writes a doconvol_1d config with this `bind` (one key a line, so positions are lines). */
function writeConfig(name: string, bind: Record<string, unknown>): string {
  const file = path.join(TMP, `${name}.json`);
  const config = {
    id: 7,
    description: name,
    input: INPUT,
    function: 'doconvol_1d',
    pipeline: ['const-prop', 'copy-prop', 'dae'],
    bind,
  };
  writeFileSync(file, JSON.stringify(config, null, 1));
  return file;
}

/** Stages the config, writes the staged folder and imports its stub. */
async function stub(name: string, bind: Record<string, unknown>): Promise<Stub> {
  const config = loadConfig(writeConfig(name, bind));
  const staged = await stageConfig(config);
  const written = writeStaged(staged.stages, {
    outDir: path.join(TMP, name),
    fun: staged.fun,
    bind: config.bind,
  });
  return (await import(written.stub)) as Stub;
}

/** The error staging the config throws (none: `undefined`). */
async function stagingError(name: string, bind: Record<string, unknown>): Promise<unknown> {
  try {
    await stageConfig(loadConfig(writeConfig(name, bind)));
  } catch (e) {
    return e;
  }
  return undefined;
}

/** `specialize` with its warnings collected; the staged result is compared with the unstaged one. */
function specialize(s: Stub, values: Record<string, unknown>): { staged: boolean; warnings: string[] } {
  const warnings: string[] = [];
  const r = s.specialize(values, (m) => warnings.push(m));
  expect(isDeepStrictEqual(r.fun, s.unstagedPipeline(s.formalsOf(values)))).toBe(true);
  return { staged: r.staged, warnings };
}

const LENGTHS = [12_000, 200_000, 1_000_000];

// ---- 1. long late arrays ---------------------------------------------------------------------

describe('late arrays of up to 10^6 elements', () => {
  let anyLength: Stub;
  let zeroOne: Stub;
  let alternatives: Stub;
  beforeAll(async () => {
    anyLength = await stub('any-length', { coef: "'Array" });
    zeroOne = await stub('zero-one', { coef: "'Array(0|1)", ccols: 3 });
    alternatives = await stub('alternatives', { coef: 'fix x. nil | cons(0, x) | cons(1, x)' });
  }, 60_000);

  it.each(LENGTHS)('%i elements described by the config are admitted and staged', (n) => {
    const coef = Array.from({ length: n }, (_, i) => (i % 7) / 4);
    expect(specialize(anyLength, { coef })).toEqual({ staged: true, warnings: [] });
    const bits = coef.map((x) => (x > 1 ? 1 : 0));
    expect(specialize(zeroOne, { coef: bits, ccols: 3 })).toEqual({ staged: true, warnings: [] });
    expect(specialize(alternatives, { coef: bits })).toEqual({ staged: true, warnings: [] });
  });

  it.each(LENGTHS)('%i elements, the last one outside the description: unstaged, with a warning', (n) => {
    const coef = Array.from({ length: n }, (_, i) => (i === n - 1 ? 5 : i % 2));
    const r = specialize(zeroOne, { coef, ccols: 3 });
    expect(r.staged).toBe(false);
    expect(r.warnings).toHaveLength(1);
    const w = r.warnings[0] as string;
    // in the user's terms: the formal, its value cut short, the description and the element
    expect(w).toMatch(
      new RegExp(
        `^scf: doconvol_1d: formal 'coef' = \\[0, 1, [^\\]]*\\]( \\(${n} elements\\))? is outside its early description 'Array\\(0\\|1\\) \\(its element ${n - 1}\\); running the unstaged pipeline$`,
      ),
    );
    expect(w.length).toBeLessThan(300);
    const a = specialize(alternatives, { coef });
    expect(a.staged).toBe(false);
    expect(a.warnings[0]).toMatch(
      /^scf: doconvol_1d: formal 'coef' = \[0, 1, .* is outside its early description fix x\. nil \| cons\(0, x\) \| cons\(1, x\); running the unstaged pipeline$/,
    );
  });
});

// ---- 2. late values that are not bindings ------------------------------------------------------

describe('late values that are no bindings: BindError', () => {
  let s: Stub;
  beforeAll(async () => {
    s = await stub('bind-errors', { coef: "'Array" });
  }, 60_000);

  it('a sparse array: the missing element is named', () => {
    const sparse: number[] = [];
    sparse[0] = 1;
    sparse[2] = 3;
    expect(() => s.specialize({ coef: sparse })).toThrow(
      new BindError("element 1 of 'coef' is missing (a sparse array)"),
    );
    const holey: number[] = [];
    holey[4999] = 1;
    expect(() => s.specialize({ coef: holey })).toThrow(/^element 0 of 'coef' is missing/);
  });

  it('an array longer than MAX_LATE_ARRAY is refused before anything is allocated', () => {
    const huge: number[] = [];
    huge.length = 2 ** 32 - 1;
    expect(() => s.specialize({ coef: huge })).toThrow(
      new BindError(
        `'coef' has 4294967295 elements; an array bound to a formal may have at most ${MAX_LATE_ARRAY} (MAX_LATE_ARRAY)`,
      ),
    );
    const past: number[] = [];
    past.length = MAX_LATE_ARRAY + 1;
    expect(() => s.specialize({ coef: past })).toThrow(BindError);
  });

  it('no object of late values: no argument, null, a number, an array', () => {
    for (const bad of [undefined, null, 42, [1, 2, 3], 'coef']) {
      let thrown: unknown;
      try {
        s.specialize(bad);
      } catch (e) {
        thrown = e;
      }
      expect(thrown).toBeInstanceOf(BindError);
      expect((thrown as Error).message).toMatch(
        /^specialize expects an object of the late-stage values of the formals of 'doconvol_1d' \(signal, n, maxval, coef, ccols, out\), got /,
      );
    }
    expect(() => s.specialize()).toThrow(/, got undefined$/);
    expect(() => s.specialize(42)).toThrow(/, got the number 42$/);
  });
});

// ---- 3. long early descriptions -----------------------------------------------------------------

describe('long descriptions in a config', () => {
  it('a literal of 1,200 elements stages, and admits exactly its values', async () => {
    const coef = Array.from({ length: 1200 }, (_, i) => (i % 9) - 4);
    const s = await stub('literal-1200', { coef });
    expect(specialize(s, { coef })).toEqual({ staged: true, warnings: [] });
    const other = [...coef];
    other[1100] = 0.5;
    const r = specialize(s, { coef: other });
    expect(r.staged).toBe(false);
    expect(r.warnings[0]).toMatch(
      /formal 'coef' = \[-4, -3, .*\(1200 elements\) is outside its early description \[ ?-4, .*…? \(its element 1100\);/,
    );
    expect((r.warnings[0] as string).length).toBeLessThan(400);
  }, 60_000);

  it("'Array[1024], at MAX_OPEN_ARRAY, stages", async () => {
    const s = await stub('open-1024', { coef: "'Array[1024]" });
    const coef = Array.from({ length: 1024 }, (_, i) => i);
    expect(specialize(s, { coef })).toEqual({ staged: true, warnings: [] });
    expect(specialize(s, { coef: coef.slice(1) }).staged).toBe(false);
  }, 60_000);

  /** The line of the config that binds `coef` (one key a line). */
  const coefLine = (file: string): number =>
    readFileSync(file, 'utf8')
      .split('\n')
      .findIndex((l) => l.includes('"coef"')) + 1;

  it("'Array[3000] and a literal of 70,000 elements: D1003 at the bind entry", async () => {
    for (const [name, coef] of [
      ['open-3000', "'Array[3000]"],
      ['literal-70000', Array.from({ length: 70_000 }, () => 1)],
    ] as const) {
      const e = await stagingError(name, { coef });
      expect(e).toBeInstanceOf(ConfigError);
      const ce = e as ConfigError;
      expect(ce.code).toBe('D1003');
      expect(ce.line).toBe(coefLine(path.join(TMP, `${name}.json`)));
      expect(ce.reason).toMatch(
        name === 'open-3000'
          ? /is an array of 3000 elements, some of them unknown, more than staging takes \(MAX_OPEN_ARRAY = 1024\)/
          : /is an array of 70000 elements, more than a description states \(MAX_DESCRIBED_LENGTH = 8192\)/,
      );
    }
  });

  it("'Array[4294967295]: D1002 at the length, nothing allocated", async () => {
    const e = await stagingError('length-2-32', { coef: "'Array[4294967295]" });
    expect(e).toBeInstanceOf(ConfigError);
    expect((e as ConfigError).code).toBe('D1002');
    expect((e as ConfigError).line).toBe(coefLine(path.join(TMP, 'length-2-32.json')));
    expect((e as ConfigError).reason).toMatch(
      /the array length 4294967295 is more than a description states/,
    );
  });
});

// ---- 4. the parts on their own ------------------------------------------------------------------

const N = 200_000;

const list = (xs: readonly unknown[]): unknown => {
  let out: unknown = { kind: 'nil' };
  for (let i = xs.length - 1; i >= 0; i--) out = { kind: 'cons', head: xs[i], tail: out };
  return out;
};

/** The outcome of a check: 'ok', or the error's fields. */
function outcome(f: () => void): string {
  try {
    f();
    return 'ok';
  } catch (e) {
    if (!(e instanceof InputNotAdmitted)) throw e;
    return `${e.path} | ${e.expected} | ${e.actual}`;
  }
}

describe(`admission of ${N}-element lists`, () => {
  const RUNTIME = path
    .relative(TMP, path.join(ROOT, 'src/scf-lang/staged-helpers.ts'))
    .split(path.sep)
    .join('/');
  const CTORS = new Map<string, { fields: readonly string[] }>();
  const xs = Array.from({ length: N }, (_, i) => i % 1000);
  // any length; a fixed length of 5,000 with a few unknown elements (a chain of definitions)
  const exact = Array.from({ length: 5000 }, (_, i) => (i % 1000 === 0 ? holes.int : i % 1000));
  // alternatives sharing their tail: fix α. nil | cons(0, α) | cons(1, α)
  const bits = fix(
    union([con('nil', []), con('cons', [constant(0), rec(0)]), con('cons', [constant(1), rec(0)])]),
  );
  const descs: AbsValue[][] = [[LIST_ARRAYS.of(base('Int'))], [toAbsValue(list(exact))], [bits]];
  let fns: ((args: readonly unknown[]) => void)[] = [];

  beforeAll(async () => {
    const parts = [`import { ${ADMISSION_RUNTIME_IMPORTS.join(', ')} } from '${RUNTIME}';`];
    descs.forEach((d, i) => {
      parts.push(emitAdmission(d, { name: `admit${i}`, ctors: CTORS, exported: true }));
    });
    const file = path.join(TMP, 'admit.ts');
    writeFileSync(file, parts.join('\n\n'));
    const mod = (await import(pathToFileURL(file).href)) as Record<
      string,
      (args: readonly unknown[]) => void
    >;
    fns = descs.map((_, i) => mod[`admit${i}`] as (args: readonly unknown[]) => void);
  }, 60_000);

  /** Emitted ≡ interpreted ≡ conforms; the outcome. */
  const agree = (i: number, value: unknown): string => {
    const d = descs[i] as AbsValue[];
    const emitted = outcome(() => (fns[i] as (args: readonly unknown[]) => void)([value]));
    expect(outcome(() => checkAdmitted(d, [value], CTORS))).toBe(emitted);
    expect(conforms(value, d[0] as AbsValue, CTORS)).toBe(emitted === 'ok');
    return emitted;
  };

  it('a list of any length: members admitted, the last element refused at its path', () => {
    expect(agree(0, list(xs))).toBe('ok');
    expect(agree(0, list([...xs.slice(0, N - 1), 'x']))).toBe(
      `$[0]${'.tail'.repeat(N - 1)}.head | 'Int | "x"`,
    );
  });

  it('alternatives sharing their tail: members admitted, a wrong element refused at the list', () => {
    const zeroOne = xs.map((x) => x % 2);
    expect(agree(2, list(zeroOne))).toBe('ok');
    expect(agree(2, list([...zeroOne.slice(0, N - 1), 2]))).toMatch(
      /^\$\[0\] \| nil \| cons\(0, …\) \| cons\(1, …\) \| cons\(0, cons\(1, /,
    );
  });

  it('a list of fixed length: its members, a shorter and a longer list', () => {
    const member = exact.map((x, i) => (typeof x === 'number' ? x : i + 1));
    expect(agree(1, list(member))).toBe('ok');
    expect(agree(1, list(member.slice(0, 4999)))).toBe(`$[0]${'.tail'.repeat(4999)} | cons(…) | nil`);
    expect(agree(1, list([...member, 1]))).toMatch(/^\$\[0\](\.tail){5000} \| nil \| cons\(/);
    const wrong = [...member];
    wrong[4321] = 7;
    expect(agree(1, list(wrong))).toBe(`$[0]${'.tail'.repeat(4321)}.head | 321 | 7`);
  });
});

describe(`abstract values of ${N}-element lists take no stack`, () => {
  const xs = Array.from({ length: N }, (_, i) => i % 100);
  const ints = () => LIST_ARRAYS.exactly(Array.from({ length: N }, () => base('Int')));

  it('inhabited, hash, size, compare, leq', () => {
    const a = ints();
    const b = ints();
    expect(inhabited(a)).toBe(true);
    // a list ending in an unbound recursion variable: empty unless the variable is not
    let open: AbsValue = rec(0);
    for (let i = 0; i < N; i++) open = con('cons', [base('Int'), open]);
    expect(inhabited(open)).toBe(false);
    expect(inhabited(open, 1)).toBe(true);
    expect(size(a)).toBe(2 * N + 1);
    expect(hash(a)).toBe(hash(b));
    expect(compare(a, b)).toBe(0);
    expect(equals(a, b)).toBe(true);
    const c = LIST_ARRAYS.exactly([...Array.from({ length: N - 1 }, () => base('Int')), base('Float')]);
    expect(Math.sign(compare(a, c))).toBe(-Math.sign(compare(c, a)));
    expect(compare(a, c)).not.toBe(0);
    expect(leq(a, c)).toBe(true);
    expect(leq(c, a)).toBe(false);
    expect(leq(a, LIST_ARRAYS.of(base('Float')))).toBe(true);
  });

  it('printAbs, fromConcrete, singleton, conforms', () => {
    const v = fromConcrete(list(xs));
    const text = printAbs(v);
    expect(text.startsWith('cons(0, cons(1, cons(2, ')).toBe(true);
    expect(text.endsWith(`cons(99, nil${')'.repeat(N)}`)).toBe(true);
    const back = singleton(v)?.value;
    let n = 0;
    for (let l = back as { kind: string; head?: unknown; tail?: unknown }; l.kind === 'cons'; n++) {
      expect(l.head).toBe(xs[n]);
      l = l.tail as typeof l;
    }
    expect(n).toBe(N);
    expect(conforms(list(xs), v)).toBe(true);
    expect(conforms(list(xs.slice(1)), v)).toBe(false);
  });
});

describe('the elements a config states over all its arrays', () => {
  it('three literals of 6,000 elements: refused at the third, before staging (MAX_DESCRIBED_TOTAL)', async () => {
    writeFileSync(
      path.join(TMP, 'three.c'),
      'int three(int a[], int b[], int c[]) {\n  return a[0] + b[0] + c[0];\n}\n',
    );
    const lit = Array.from({ length: 6000 }, (_, i) => i % 5);
    const file = path.join(TMP, 'three.json');
    writeFileSync(
      file,
      JSON.stringify({
        input: 'three.c',
        function: 'three',
        pipeline: ['const-prop'],
        bind: { a: lit, b: lit, c: lit },
      }),
    );
    let err: unknown;
    try {
      await stageConfig(loadConfig(file));
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).reason).toMatch(
      /the descriptions state 18000 array elements up to 'c', more than staging takes over all formals \(MAX_DESCRIBED_TOTAL = 16384\)/,
    );
  });
});
