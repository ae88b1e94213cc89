/**
 * `npm run demo`: what scf does today, end to end on the paper's running example.
 * 1. Checks the Fig. 3 dead-assignment eliminator (written in SCF-lang) against the subset.
 * 2. Runs it natively (TypeScript over Immutable.js) on mul_add with a dead store added.
 * 3. Runs its Core desugaring on the counting interpreter and shows both agree, with the
 *    abstract instruction counts that the staged-vs-unstaged benchmarks will compare.
 */
import type { Cmd, Expr, Exprs, Func } from '../src/optimizers/fig3/ast.js';
import { optimize } from '../src/optimizers/fig3/dae.js';
import { compileFile, formatDiagnostic, Interpreter, printFun } from '../src/scf-lang/index.js';
import { equal } from '../src/scf-lang/prelude.js';

const file = 'src/optimizers/fig3/dae.ts';
const compiled = compileFile(file);
for (const d of compiled.diagnostics) console.error(formatDiagnostic(d, compiled.sources));
if (compiled.program === null) process.exit(1);
console.log(`1. ${file} is in the SCF-lang subset: ${compiled.program.funs.size} functions.`);
console.log('   Its analyzeExpr, desugared to Core SCF (paper Fig. 9):\n');
console.log(
  printFun(compiled.program.funs.get('dae.analyzeExpr')!)
    .split('\n')
    .map((l) => `     ${l}`)
    .join('\n'),
);

let label = 0;
const v = (name: string): Expr => ({ kind: 'var_ref', v: name, lbl: ++label });
const exprs = (...es: Expr[]): Exprs =>
  es.reduceRight<Exprs>((rest, e) => ({ kind: 'exprs', e, rest }), { kind: 'exprs_none' });
const op = (o: string, a: Expr, b: Expr): Expr => ({
  kind: 'primop',
  op: o,
  args: exprs(a, b),
  lbl: ++label,
});
const assign = (x: string, e: Expr): Cmd => ({ kind: 'assign', v: x, e, lbl: ++label });
const seq = (...cs: Cmd[]): Cmd =>
  cs.reduceRight((second, first) => ({ kind: 'seq', first, second, lbl: ++label }));

// int mul_add(int x, int y, int a) { int u = x * a; int t = u * u; int w = u + y; return w; }
const body = seq(
  assign('u', op('*', v('x'), v('a'))),
  assign('t', op('*', v('u'), v('u'))),
  assign('w', op('+', v('u'), v('y'))),
  {
    kind: 'return',
    e: v('w'),
    lbl: ++label,
  },
);
const input: Func = {
  kind: 'func',
  name: 'mul_add',
  formals: {
    kind: 'cons',
    head: 'x',
    tail: { kind: 'cons', head: 'y', tail: { kind: 'cons', head: 'a', tail: { kind: 'nil' } } },
  },
  body,
  lbl: ++label,
};

const show = (c: Cmd): string => {
  switch (c.kind) {
    case 'seq':
      return `${show(c.first)} ${show(c.second)}`;
    case 'assign':
      return `${c.v} = …;`;
    case 'skip':
      return 'skip;';
    case 'return':
      return 'return …;';
    default:
      return `${c.kind} …`;
  }
};

const native = optimize(input);
console.log(`\n2. Natively:   ${show(input.body)}\n           →  ${show(native.body)}`);
const run = new Interpreter(compiled.program).run('dae.optimize', [input]);
console.log(`3. On Core:    same result: ${equal(run.value, native)}`);
console.log(
  `   abstract instructions: ${run.counts.total} (map/set operations ${run.counts.collectionOps}, calls ${run.counts.calls})`,
);
