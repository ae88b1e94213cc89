/**
 * The kernel validator (src/kernel/validate.ts): it accepts every kernel of configs/ and examples/
 * as parsed and as the config's pipeline leaves it (on no bindings and on the config's sample), and
 * each of its rules rejects a hand-broken program; `runPipeline` runs it after every user's pass
 * (every pass with `check: 'all'`) and names the pass that broke a function.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  type Cmd,
  type Expr,
  type Fun,
  findFun,
  formatProblems,
  listFromArray,
  loadKernelParser,
  type Program,
  parseKernelSync,
  type ValidationProblem,
  validateFun,
  validateProgram,
} from '../../src/kernel/index.js';
import { allPasses, type Pass, PassOutputError, runPipeline } from '../../src/optimizers/index.js';
import { configPasses, loadConfig, loadConfigInput } from '../../src/pipeline/index.js';

beforeAll(loadKernelParser);

const ROOT = path.resolve(import.meta.dirname, '../..');

/** What the passes keep of the `seq` rule (copy-prop nests some statement lists to the left). */
const AFTER_PASSES = { seqs: 'skip-free' } as const;

function configFiles(): string[] {
  const dirs = ['configs/table2', 'configs/fusion', 'configs/kernel'].map((d) => path.join(ROOT, d));
  const files = dirs.flatMap((d) => readdirSync(d).map((f) => path.join(d, f)));
  return [...files.filter((f) => f.endsWith('.json')), path.join(ROOT, 'examples/dot-app/dot.config.json')];
}

describe('validate accepts', () => {
  for (const file of configFiles()) {
    it(`${path.relative(ROOT, file)}: parsed, and after its pipeline`, async () => {
      const config = loadConfig(file);
      const { program } = await loadConfigInput(config);
      expect(formatProblems(validateProgram(program))).toBe('');
      const passes = configPasses(config);
      for (const binds of [{}, config.sample ?? {}]) {
        const { program: out, fun } = runPipeline(program, config.function, passes, binds);
        expect(formatProblems(validateFun(fun, out, AFTER_PASSES)), JSON.stringify(binds)).toBe('');
        const fused = runPipeline(
          out,
          config.function,
          allPasses.filter((p) => p.name === 'fusion'),
        );
        expect(formatProblems(validateFun(fused.fun, fused.program, AFTER_PASSES))).toBe('');
      }
    });
  }
});

// ---- hand-broken programs, one per rule --------------------------------------------------------

const SOURCE = `
int g(int a, float b) { return a; }
float f(int x, float y, const float a[], float out[]) {
  int i;
  float s = 0.0f;
  for (i = 0; i < x; i++) { s = s + a[i] * y; out[i] = s; }
  if (x > 0) { s = s + (float) g(x, y); }
  float r = reduce(add, 0.0f, out);
  return s < y ? s : r;
}
float add(float p, float q) { return p + q; }
`;

function parsed(): Program {
  const p = parseKernelSync(SOURCE, 'v.c');
  expect(p.diagnostics).toEqual([]);
  return p.program;
}

/** `x` with the first node (pre-order) for which `pick` returns a replacement replaced. */
function replaceFirst<T>(x: T, pick: (node: Record<string, unknown>) => unknown): T {
  let done = false;
  const go = (y: unknown): unknown => {
    if (done || typeof y !== 'object' || y === null) return y;
    const r = pick(y as Record<string, unknown>);
    if (r !== undefined) {
      done = true;
      return r;
    }
    return Object.fromEntries(Object.entries(y).map(([k, v]) => [k, go(v)]));
  };
  const out = go(x) as T;
  expect(done, 'nothing replaced').toBe(true);
  return out;
}

function problemsOf(p: Program): ValidationProblem[] {
  return validateProgram(p);
}

function rules(p: Program): string[] {
  return [...new Set(problemsOf(p).map((q) => q.rule))];
}

const fLbl = (p: Program) => (findFun(p, 'f') as Fun).lbl;

describe('validate rejects', () => {
  it('nothing in the unbroken program', () => {
    expect(formatProblems(problemsOf(parsed()))).toBe('');
  });

  it('shape: a field of the wrong type, a missing field, an unknown kind', () => {
    const p = parsed();
    expect(rules(replaceFirst(p, (n) => (n.kind === 'assign' ? { ...n, name: 3 } : undefined)))).toEqual([
      'shape',
    ]);
    expect(
      rules(replaceFirst(p, (n) => (n.kind === 'while' ? { ...n, body: { kind: 'var' } } : undefined))),
    ).toEqual(['shape']);
    const withoutIsFor = (n: Record<string, unknown>) =>
      Object.fromEntries(Object.entries(n).filter(([k]) => k !== 'isFor'));
    expect(rules(replaceFirst(p, (n) => (n.kind === 'while' ? withoutIsFor(n) : undefined)))).toEqual([
      'shape',
    ]);
    expect(
      rules(replaceFirst(p, (n) => (n.kind === 'skip' ? { kind: 'nop', lbl: n.lbl } : undefined))),
    ).toEqual(['shape']);
  });

  it('label: a label twice in a function, and across functions', () => {
    const p = parsed();
    const twice = replaceFirst(p, (n) => (n.kind === 'intLit' ? { ...n, lbl: fLbl(p) } : undefined));
    expect(problemsOf(twice).map((q) => q.message)).toContain(`label ${fLbl(p)} occurs twice`);
    // three times: one problem saying so, not one per repeat
    const thrice = replaceFirst(twice, (n) =>
      n.kind === 'intLit' && n.lbl !== fLbl(p) ? { ...n, lbl: fLbl(p) } : undefined,
    );
    const labelProblems = problemsOf(thrice).filter((q) => q.rule === 'label');
    expect(labelProblems.map((q) => q.message)).toEqual([`label ${fLbl(p)} occurs 3 times`]);
    const g = findFun(p, 'g') as Fun;
    const across = replaceFirst(p, (n) =>
      n.kind === 'fun' && n.name === 'add' ? { ...n, lbl: g.lbl } : undefined,
    );
    expect(problemsOf(across).map((q) => q.message)).toEqual([`label ${g.lbl} occurs in 'g' and 'add'`]);
  });

  it('type: illegal type strings and ops', () => {
    const p = parsed();
    const cases: ((n: Record<string, unknown>) => unknown)[] = [
      (n) => (n.kind === 'var' ? { ...n, ty: 'double' } : undefined),
      (n) => (n.kind === 'fun' ? { ...n, ret: 'long' } : undefined),
      (n) => (n.kind === 'param' ? { ...n, ty: 'char' } : undefined),
      (n) => (n.kind === 'soac' ? { ...n, op: 'fold' } : undefined),
      (n) => (n.kind === 'binary' ? { ...n, op: '**' } : undefined),
    ];
    // a wrong type string may also make an operand or argument mismatch (rule `elaborated`)
    for (const c of cases) expect(rules(replaceFirst(p, c)), String(c)).toContain('type');
  });

  it('elaborated: mismatched operands, assignments, stores, returns, call arguments', () => {
    const p = parsed();
    const one: Expr = { kind: 'intLit', value: 1, lbl: 9001 };
    const half: Expr = { kind: 'floatLit', value: 0.5, lbl: 9002 };
    const cases: ((n: Record<string, unknown>) => unknown)[] = [
      // float + int without the implicit cast
      (n) => (n.kind === 'binary' && n.op === '+' && n.ty === 'float' ? { ...n, right: one } : undefined),
      // i < 0.5
      (n) => (n.kind === 'binary' && n.op === '<' ? { ...n, right: half } : undefined),
      // a comparison of type float
      (n) => (n.kind === 'binary' && n.op === '<' ? { ...n, ty: 'float' } : undefined),
      (n) => (n.kind === 'assign' && n.name === 's' ? { ...n, rhs: one } : undefined),
      (n) => (n.kind === 'store' ? { ...n, rhs: one } : undefined),
      (n) => (n.kind === 'store' ? { ...n, index: half } : undefined),
      (n) =>
        n.kind === 'return' && (n.value as { kind: string }).kind === 'some'
          ? { ...n, value: { kind: 'some', value: half } }
          : undefined,
      (n) => (n.kind === 'return' ? { ...n, value: { kind: 'none' } } : undefined),
      (n) => (n.kind === 'call' ? { ...n, args: listFromArray([half, { ...half, lbl: 9007 }]) } : undefined),
      (n) => (n.kind === 'call' ? { ...n, args: listFromArray([one]) } : undefined),
      (n) => (n.kind === 'ternary' ? { ...n, thenExpr: one } : undefined),
    ];
    for (const c of cases) expect(rules(replaceFirst(p, c)), String(c)).toEqual(['elaborated']);
  });

  it('elaborated: names read that are declared nowhere, in the function or in a lambda', () => {
    const p = parsed();
    const cases: [(n: Record<string, unknown>) => unknown, RegExp][] = [
      // a use of x renamed to a name no parameter or local has
      [
        (n) => (n.kind === 'var' && n.name === 'x' ? { ...n, name: 'ghost' } : undefined),
        /'ghost' is read but is no parameter or local/,
      ],
      // a lambda reads the host's s: lambdas are closed
      [
        (n) => (n.kind === 'var' && n.name === 'p_1' ? { ...n, name: 's' } : undefined),
        /'s' is read but is no parameter or binding of its lambda/,
      ],
      [
        (n) => (n.kind === 'load' ? { ...n, array: 'ghost' } : undefined),
        /'ghost' is loaded from but is no array/,
      ],
      [
        (n) => (n.kind === 'argArray' ? { ...n, name: 'ghost' } : undefined),
        /'ghost' is passed to a combinator but is no array/,
      ],
      [
        (n) => (n.kind === 'soac' ? { ...n, dest: 'ghost' } : undefined),
        /'ghost' is assigned but is no parameter or local/,
      ],
      [
        (n) =>
          n.kind === 'soac' && (n.ne as { kind: string }).kind === 'some'
            ? { ...n, ne: { kind: 'some', value: { kind: 'var', name: 'ghost', ty: 'float', lbl: 9008 } } }
            : undefined,
        /'ghost' is read but is no parameter or local/,
      ],
    ];
    for (const [c, why] of cases) {
      const problems = problemsOf(replaceFirst(p, c));
      expect(
        problems.map((q) => q.rule),
        String(c),
      ).toEqual(['elaborated']);
      expect(formatProblems(problems)).toMatch(why);
    }
  });

  it('elaborated: a lambda binding read before it is bound', () => {
    const bind = (name: string, rhs: Expr, lbl: number) => ({ kind: 'bind', name, ty: 'float', rhs, lbl });
    const v = (name: string, lbl: number): Expr => ({ kind: 'var', name, ty: 'float', lbl });
    const swapped = replaceFirst(parsed(), (n) =>
      n.kind === 'lam'
        ? {
            ...n,
            binds: listFromArray([bind('u', v('w', 9010), 9011), bind('w', v('p_1', 9012), 9013)]),
            result: v('u', 9014),
          }
        : undefined,
    );
    expect(formatProblems(problemsOf(swapped))).toMatch(
      /^elaborated at label 9010: 'w' is read but is no parameter or binding of its lambda$/,
    );
  });

  it('seq: a skip inside a statement list, a left-nested seq', () => {
    const p = parsed();
    const skip: Cmd = { kind: 'skip', lbl: 9003 };
    expect(rules(replaceFirst(p, (n) => (n.kind === 'seq' ? { ...n, first: skip } : undefined)))).toEqual([
      'seq',
    ]);
    expect(rules(replaceFirst(p, (n) => (n.kind === 'seq' ? { ...n, second: skip } : undefined)))).toEqual([
      'seq',
    ]);
    const left = replaceFirst(p, (n) =>
      n.kind === 'seq' && (n.second as { kind: string }).kind === 'seq'
        ? { ...n, first: { ...(n.second as object), lbl: 9004 }, second: n.first }
        : undefined,
    );
    expect(rules(left)).toContain('seq');
  });

  it('soac: a combine operator or neutral element where the op has none, or missing', () => {
    const p = parsed();
    expect(
      rules(replaceFirst(p, (n) => (n.kind === 'soac' ? { ...n, ne: { kind: 'none' } } : undefined))),
    ).toEqual(['soac']);
    expect(
      rules(
        replaceFirst(p, (n) =>
          n.kind === 'soac' ? { ...n, comb: { kind: 'some', value: n.fn } } : undefined,
        ),
      ),
    ).toContain('soac');
    const notAtom = replaceFirst(p, (n) =>
      n.kind === 'soac' && (n.ne as { kind: string }).kind === 'some'
        ? {
            ...n,
            ne: {
              kind: 'some',
              value: {
                kind: 'unary',
                op: '-',
                ty: 'float',
                arg: { kind: 'var', name: 's', ty: 'float', lbl: 9005 },
                lbl: 9006,
              },
            },
          }
        : undefined,
    );
    expect(rules(notAtom)).toEqual(['soac']);
  });
});

describe("passes' output checked as they run", () => {
  const breaker: Pass = {
    ...(allPasses[0] as Pass),
    name: 'breaker',
    run: (f) => ({
      ...f,
      body: { kind: 'seq', first: { kind: 'skip', lbl: f.lbl }, second: f.body, lbl: f.lbl },
    }),
  };

  it("a user's pass that breaks the function is named, with the broken invariants", () => {
    const p = parsed();
    const user: Pass = { ...breaker, builtin: false };
    const at = (lbl: number) => (lbl === 1 ? 'k.c:1:1' : undefined);
    const err = (() => {
      try {
        runPipeline(p, 'f', [user], {}, { at });
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(err).toBeInstanceOf(PassOutputError);
    const m = (err as Error).message;
    expect(m).toMatch(/^pass 'breaker' returned a function 'f' that breaks the kernel AST's invariants/);
    // the function, the skip and the seq share one label
    expect(m).toMatch(/label: label \d+ occurs 3 times \(at label \d+/);
    expect(m).toMatch(/seq: a statement list holds a skip/);
    expect(m).not.toMatch(/internal error/);
  });

  it("built-in passes are checked under check: 'all' (scf --check)", () => {
    const p = parsed();
    expect(() => runPipeline(p, 'f', [breaker])).not.toThrow();
    expect(() => runPipeline(p, 'f', [breaker], {}, { check: 'all' })).toThrow(PassOutputError);
  });
});
