/**
 * Top-level constants whose value is data: `const ZERO: Point = { kind: 'pt', x: 0, y: 0 }`,
 * `const PROGRAM: List<Instr> = cons(…, nil())`. Their value is known when the module is
 * compiled, so in Core each read of one is a literal holding the whole value (the partial
 * evaluator sees it as known from the start); natively they are ordinary TypeScript constants.
 *
 * Algorithm (`constantEvaluator`, called by `Declarations.lookupConst` on a constant's first read)
 * 1. Elaborate the initializer as an expression, in an empty scope, with the annotation (when
 *    there is one) as its expected type: literals, object literals, tuples, operators, prelude
 *    calls and reads of other constants are what it may hold (each checked as anywhere else).
 * 2. Refuse a call of a declared function (SCF1008): a constant is data, and the functions of a
 *    module are elaborated after its constants.
 * 3. Run the Core expression with the interpreter, on a program of one function of no
 *    parameters; its value is the constant's.
 *
 * Invariants
 * - The value is what TypeScript computes natively: the interpreter's primitives are the prelude's
 *   functions (`prims.ts`), and constructor values have the native shape (`values.ts`).
 * - A constant that reads itself, directly or through others, is SCF3018 (`Declarations`), never
 *   a loop; one with an error stands as `unknown`, so its reads add no errors.
 */
import type * as Core from './core.js';
import { forEachExpr, tupleCtor } from './core.js';
import type { ConstDecl, ConstEvaluator, Declarations, Module, PendingConst } from './declarations.js';
import { type DiagnosticLog, diag } from './diagnostics.js';
import { FunctionElaborator } from './elaborate.js';
import { Interpreter, ScfRuntimeError } from './interp.js';
import { UNKNOWN } from './types.js';

/** The evaluator of `decls`'s pending constants; `labels` numbers their Core nodes with the functions'. */
export function constantEvaluator(
  decls: Declarations,
  labels: { next: number },
  log: DiagnosticLog,
): ConstEvaluator {
  return (m: Module, c: PendingConst): ConstDecl => {
    const errorsBefore = log.items.length;
    const declared = c.annotation ? decls.resolveType(m, c.annotation) : undefined;
    const el = new FunctionElaborator(decls, m, null, labels, log, c.at);
    const v = el.expr(c.init, new Map(), declared);
    el.expectType(c.init, v.t, declared);
    const type = declared ?? v.t;
    let call: Core.Call | undefined;
    forEachExpr(v.e, (x) => {
      if (x.kind === 'call' && call === undefined) call = x;
    });
    if (call !== undefined) {
      log.add(
        diag('SCF1008', call.span, `a call of a function ('${call.fn.slice(call.fn.lastIndexOf('.') + 1)}')`),
      );
      return { value: 0, type: UNKNOWN };
    }
    if (log.items.length > errorsBefore) return { value: 0, type: UNKNOWN };
    try {
      return { value: evaluate(decls, v.e) as ConstDecl['value'], type };
    } catch (e) {
      if (!(e instanceof ScfRuntimeError)) throw e;
      log.add(diag('SCF1008', decls.span(m, c.init), `a value whose evaluation fails (${e.detail})`));
      return { value: 0, type: UNKNOWN };
    }
  };
}

/** The value of a closed Core expression with no calls. */
function evaluate(decls: Declarations, e: Core.Expr): unknown {
  const ctors = new Map<string, Core.CtorDecl>();
  for (const c of decls.ctors.values()) {
    ctors.set(c.kind, { name: c.kind, fields: c.fields.map((f) => f.name), repr: 'object' });
  }
  forEachExpr(e, (x) => {
    if (x.kind === 'con' && x.ctor.startsWith('#')) ctors.set(x.ctor, tupleCtor(Number(x.ctor.slice(1))));
  });
  const name = '%const';
  const fun: Core.FunDef = { name, params: [], body: e, span: e.span, exported: false };
  const program: Core.Program = { funs: new Map([[name, fun]]), ctors, sources: decls.sources };
  return new Interpreter(program).run(name, []).value;
}
