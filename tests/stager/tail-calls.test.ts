/**
 * Tail calls run in constant stack in the Core interpreter (scf-lang/interp.ts: a trampoline in
 * the calls not in tail position) and in emitted code (stager/emit.ts: a function that calls itself
 * in tail position is a loop that rebinds its parameters). The fixture is an interpreter loop
 * written as tail recursion, tests/fixtures/tail-calls/machine.ts: a stack machine run for
 * 1,000,003 steps under the interpreter and staged (its program known early), against the closed
 * form and the native run where V8's stack allows one. Counts stay what they are for any call, the
 * call depth limit and stack exhaustion still stop non-tail recursion, and the parameters a loop
 * rebinds read their old values (permutations, checked on random ones).
 */
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { base, con, fromConcrete, type AbsValue } from '../../src/abstract-values/index.js';
import {
  compileFile,
  type CoreProgram,
  Interpreter,
  interpret,
  ScfRuntimeError,
} from '../../src/scf-lang/index.js';
import * as prelude from '../../src/scf-lang/prelude.js';
import { emitModule } from '../../src/stager/emit.js';
import * as stagedRuntime from '../../src/scf-lang/staged-helpers.js';
import { stage } from '../../src/stager/index.js';
import * as M from '../fixtures/tail-calls/machine.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const MACHINE = path.join(ROOT, 'tests/fixtures/tail-calls/machine.ts');

function compileMachine(): CoreProgram {
  const r = compileFile(MACHINE, { cwd: ROOT });
  if (!r.program) throw new Error(r.diagnostics.map((d) => d.message).join('\n'));
  return r.program;
}

function compile(src: string): CoreProgram {
  const r = compileFile('/virtual/t.ts', { cwd: '/virtual', readFile: () => src });
  if (!r.program) throw new Error(r.diagnostics.map((d) => d.message).join('\n'));
  return r.program;
}

type Fn = (...args: unknown[]) => unknown;

/** `program`'s function `entry` emitted (the function form) and compiled in this process. */
function emitted(program: CoreProgram, entry: string): { fn: Fn; code: string } {
  const code = emitModule(program, {
    entry,
    exportName: 'entry',
    imports: { prelude: 'scf/runtime', runtime: 'scf/runtime' },
    form: 'function',
  });
  const fn = new Function('$scf', code)({ ...prelude, ...stagedRuntime }) as Fn;
  return { fn, code };
}

/** The machine's result on `n` with fuel to spare: 1 + 2 + … + n mod 1000003. */
function sumMod(n: number): number {
  let acc = 0;
  for (let i = n; i > 0; i--) acc = (acc + i) % 1000003;
  return acc;
}

/** n = 125,000 rounds of eight steps, plus three: 1,000,003 steps of the machine. */
const N = 125_000;

describe('the Core interpreter runs tail calls in constant stack', () => {
  const program = compileMachine();
  const interp = new Interpreter(program);

  it('a 1,000,003-step stack machine loop runs, with the native result where V8 can run it', () => {
    for (const n of [0, 1, 7, 100]) {
      expect(interp.run('machine.sumMachine', [n, 1e9]).value).toBe(M.sumMachine(n, 1e9));
    }
    expect(interp.run('machine.sumMachine', [N, 1e9]).value).toBe(sumMod(N));
    // natively each step is a JavaScript frame
    expect(() => M.sumMachine(N, 1e9)).toThrow(RangeError);
    // the fuel of the machine itself: out of it at step 1,000,002, -1
    expect(interp.run('machine.sumMachine', [N, 8 * N + 2]).value).toBe(-1);
    let mod7 = 0;
    for (let i = 1; i <= 1_000_000; i++) mod7 += i % 7;
    expect(interp.run('machine.count', [1_000_000, 1, 0]).value).toBe(mod7);
  });

  it('a tail call counts as any call: nodes, calls, the step budget', () => {
    const p = compile('export function f(x: number): number { return x > 2 ? x : f(x + 1); }');
    // per round: if, >, x, 2, the call, +, x, 1 (8); the last: if, >, x, 2, x (5)
    const r = interpret(p, 't.f', [0]);
    expect([r.counts.total, r.counts.calls]).toEqual([29, 3]);
    expect(() => interpret(p, 't.f', [0], { maxSteps: 28 })).toThrow(/step budget of 28 exhausted/);
    const loop = compile('export function f(x: number): number { return x > 1000000 ? x : f(x + 1); }');
    expect(() => interpret(loop, 't.f', [0], { maxSteps: 1000 })).toThrow(/step budget of 1000 exhausted/);
  });

  it('the depth limit bounds calls not in tail position only; a deep one exhausts the stack cleanly', () => {
    const p = compile(`
export function tail(n: number, acc: number): number { return n === 0 ? acc : tail(n - 1, acc + inner(n)); }
function inner(n: number): number { return n % 3 === 0 ? 1 + inner(n - 1) : n % 5; }
export function nested(n: number): number { return n === 0 ? 0 : 1 + nested(n - 1); }
`);
    const inner = (n: number): number => (n % 3 === 0 ? 1 + inner(n - 1) : n % 5);
    let want = 0;
    for (let n = 50_000; n > 0; n--) want += inner(n);
    const run = new Interpreter(p);
    expect(run.run('t.tail', [50_000, 0], { maxDepth: 100 }).value).toBe(want);
    expect(() => run.run('t.nested', [1000], { maxDepth: 500 })).toThrow(
      /call depth exceeded 500 calling 't.nested'/,
    );
    let err: unknown;
    try {
      run.run('t.nested', [1_000_000], { maxDepth: 1e9 });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ScfRuntimeError);
    expect((err as ScfRuntimeError).message).toMatch(
      /^t\.ts:4:\d+: runtime error: JavaScript stack exhausted/,
    );
    // the interpreter is usable after the failure
    expect(run.run('t.nested', [10]).value).toBe(10);
  });
});

describe('emitted code: a self tail call is a loop', () => {
  it('the staged stack machine (its program known early) runs 1,000,003 steps', () => {
    const program = compileMachine();
    const ctors = program.ctors as never;
    const stack = con('cell', [base('Int'), con('cell', [base('Int'), con('empty', [])])]);
    const input: AbsValue[] = [fromConcrete(M.sumTo(), ctors), fromConcrete(0, ctors), stack, base('Int')];
    const s = stage(program, 'machine.run', input);
    const { fn, code } = emitted(s.residual, s.entry);
    expect(code).toContain('for (;;) {');
    expect(code).toContain('continue;');
    const start = (n: number) => M.push(M.push({ kind: 'empty' }, 0), n);
    for (const n of [0, 1, 7, 100]) expect(fn(M.sumTo(), 0, start(n), 1e9)).toBe(M.sumMachine(n, 1e9));
    expect(fn(M.sumTo(), 0, start(N), 1e9)).toBe(sumMod(N));
    expect(fn(M.sumTo(), 0, start(N), 8 * N + 2)).toBe(-1);
    expect(interpret(s.residual, s.entry, [M.sumTo(), 0, start(N), 1e9]).value).toBe(sumMod(N));
  });

  it('the staged counter (its step known early) and the unstaged one, emitted', () => {
    const program = compileMachine();
    const s = stage(program, 'machine.count', [
      base('Int'),
      fromConcrete(3, program.ctors as never),
      base('Int'),
    ]);
    const staged = emitted(s.residual, s.entry).fn;
    const unstaged = emitted(program, 'machine.count').fn;
    const want = interpret(program, 'machine.count', [3_000_000, 3, 0]).value;
    expect(staged(3_000_000, 3, 0)).toBe(want);
    expect(unstaged(3_000_000, 3, 0)).toBe(want);
    expect(staged(300, 3, 5)).toBe(M.count(300, 3, 5));
  });

  it('through the boolean forms: `c || f(…)` and `c && f(…)` in tail position loop too', () => {
    const p = compile(`
export function even(n: number): boolean { return n === 0 || (n !== 1 && even(n - 2)); }
export function all(n: number): boolean { return n <= 0 || (n % 7 !== 100 && all(n - 1)); }
`);
    for (const [fn, args, want] of [
      ['t.even', [1_000_000], true],
      ['t.even', [999_999], false],
      ['t.all', [1_000_000], true],
    ] as const) {
      const { fn: f, code } = emitted(p, fn);
      expect(code).toContain('for (;;) {');
      expect(f(...args)).toBe(want);
      expect(interpret(p, fn, args).value).toBe(want);
    }
  });

  it('rebinding reads the old values: every permutation of the parameters, against the interpreter', () => {
    const perms = [
      [0, 1, 2],
      [1, 0, 2],
      [2, 0, 1],
      [1, 2, 0],
      [2, 1, 0],
      [0, 2, 1],
    ];
    const ps = ['a', 'b', 'c'];
    const programs = perms.map((perm) =>
      compile(
        `export function f(a: number, b: number, c: number, n: number): [number, number, number] {
  return n === 0 ? [a, b, c] : f(${perm.map((i, j) => (j === 0 ? `${ps[i]} + b` : ps[i])).join(', ')}, n - 1);
}`,
      ),
    );
    const fns = programs.map((p) => emitted(p, 't.f').fn);
    fc.assert(
      fc.property(
        fc.nat(perms.length - 1),
        fc.integer(),
        fc.integer(),
        fc.integer(),
        fc.nat(20),
        (k, a, b, c, n) => {
          const want = interpret(programs[k] as CoreProgram, 't.f', [a, b, c, n]).value;
          expect((fns[k] as Fn)(a, b, c, n)).toEqual(want);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('a function whose recursion is not in tail position stays as it was', () => {
    const p = compile('export function f(n: number): number { return n === 0 ? 0 : 1 + f(n - 1); }');
    const { fn, code } = emitted(p, 't.f');
    expect(code).not.toContain('for (;;)');
    expect(code).toContain('return 1 + entry(n - 1);');
    expect(fn(100)).toBe(100);
  });
});
