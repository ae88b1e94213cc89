/**
 * Kernel AST → readable C that gcc and `parseKernel` accept: the concrete view of the one C printer
 * (c-printer.ts), whose nodes are the AST's own objects, each exactly one constructor, so its
 * hooks are never called (they throw: a value that is not a kernel node).
 *
 * Invariant (tested): for a program produced by the parser, parse(print(p)) equals p modulo labels.
 * To keep it, the printer only adds what the parser removes again (c-printer.ts: implicit casts,
 * `for`, `x += e`). What is this file's own: a lambda that is not just a named function (fusion
 * composes those) is lifted into a helper function `F_fusedK` first, since C has no lambdas
 * (`printCmd` has no function to add helpers to: it prints such a lambda inline, as the Fig. 6
 * printer does); a program gets forward declarations when a function calls one defined after it,
 * `<stdbool.h>` when it uses `bool`, and a builtin's header when it calls one (builtins.ts). Both
 * lifting and the search for calls go by the field table, so a new command kind needs no case here.
 */
import type { Bind, Call, CallCmd, Cmd, Decl, Expr, Fun, Lam, Program, Seq, Soac } from './ast.js';
import { CPrinter, type NodeView, type PrintHooks, type Scalar } from './c-printer.js';
import { children, KERNEL_UNIONS, mapChildren } from './fields.js';
import { listFromArray, listToArray } from './util.js';
import { isIota } from './structure.js';
import { builtin } from './builtins.js';

/** A concrete kernel value: a node, a list cell or option of them, or a scalar. */
const CONCRETE: NodeView<unknown> = {
  ctor: (n) => (typeof n === 'object' && n !== null ? (n as Pick<Cmd, 'kind'>).kind : undefined),
  field: (n, name) => (n as Record<string, unknown>)[name],
  consts: (n) => (typeof n === 'object' ? undefined : [n as Scalar]),
  constText: String,
  concrete: (n) => n,
};

function notKernel(): never {
  throw new Error('internal error: printing a value that is not a kernel node');
}

/** A concrete AST is one constructor everywhere: nothing for hooks to print, nothing elided. */
const NO_HOOKS: PrintHooks<unknown> = {
  other: notKernel,
  expr: notKernel,
  cmd: notKernel,
  consts: notKernel,
  listTail: notKernel,
  alternatives: notKernel,
  elide: () => undefined,
  room: () => Number.POSITIVE_INFINITY,
};

const EXPR_KINDS: ReadonlySet<string> = new Set(KERNEL_UNIONS.Expr);

const C = new CPrinter(CONCRETE, NO_HOOKS, { pointerReturn: true });

export function printProgram(program: Program): string {
  const funs = listToArray(program).flatMap((f) => {
    const { helpers, fun } = liftLambdas(f);
    return [...helpers, fun];
  });
  const defined = new Set<string>();
  let forward = false;
  const headers = new Set<string>();
  for (const f of funs) {
    defined.add(f.name);
    for (const callee of calledNames(f.body)) {
      const b = builtin(callee);
      if (b) headers.add(b.header);
      else if (callee !== f.name && !defined.has(callee)) forward = true;
    }
  }
  const parts: string[] = [];
  if (forward) parts.push(funs.map((f) => `${C.header(f)};`).join('\n'));
  for (const f of funs) parts.push(C.fun(f));
  const text = `${parts.join('\n\n')}\n`;
  const includes = [
    ...(/\b(bool|true|false)\b/.test(text) ? ['#include <stdbool.h>'] : []),
    ...[...headers].sort().map((h) => `#include ${h}`),
  ];
  return includes.length > 0 ? `${includes.join('\n')}\n\n${text}` : text;
}

/**
 * A function's printed text. Lambdas that are not just a named function (those fusion composed)
 * are printed first as helper functions `F_fusedK`, so the text is C that `parseKernel` accepts.
 */
export function printFun(f: Fun): string {
  const { helpers, fun } = liftLambdas(f);
  return [...helpers, fun].map((g) => C.fun(g)).join('\n\n');
}

/**
 * An optimized function's text, preceded by the functions of its `fns` that `program` (its input)
 * lacks: constant propagation's clones, which its combinators call.
 */
export function printOptimized(f: Fun, program: Program): string {
  const known = new Set(listToArray(program).map((g) => g.name));
  const clones = listToArray(f.fns).filter((g) => !known.has(g.name));
  return [...clones, f].map(printFun).join('\n\n');
}

/** Prints one command (for messages and tests), indented by `indent` levels. */
export function printCmd(c: Cmd, indent = 0): string {
  const lines: string[] = [];
  C.printList(C.flatten(c), indent, lines);
  return lines.join('\n');
}

/** Prints an expression as C. */
export function printExpr(e: Expr): string {
  return C.expr(e, 0);
}

/**
 * The names of the functions `c` calls, anywhere in it: by the field table, with an explicit stack
 * (a long run of statements is one long seq chain).
 */
function calledNames(c: Cmd): string[] {
  const out: string[] = [];
  const todo: unknown[] = [c];
  for (let x = todo.pop(); x !== undefined; x = todo.pop()) {
    if (typeof x !== 'object' || x === null) continue;
    if ('kind' in x && (x.kind === 'call' || x.kind === 'callCmd')) out.push((x as Call | CallCmd).name);
    todo.push(...children(x));
  }
  return out;
}

/** Whether a lambda is `(p…) => f(p…)`, printable as `f`. */
function isNamed(l: Lam): boolean {
  if (l.binds.kind !== 'nil' || l.result.kind !== 'call') return false;
  const params = listToArray(l.params);
  const args = listToArray(l.result.args);
  return (
    params.length === args.length &&
    params.every((p, i) => {
      const a = args[i] as Expr;
      return (
        (a.kind === 'var' || a.kind === 'arrayRef') &&
        a.name === p.name &&
        (a.kind === 'arrayRef') === p.isArray
      );
    })
  );
}

/**
 * `f` with every lambda that is not a named function replaced by a call of a new helper function
 * (named `F_fusedK`, K counting from 1 in order of appearance), and those helpers.
 */
export function liftLambdas(f: Fun): { helpers: Fun[]; fun: Fun } {
  const helpers: Fun[] = [];
  const lift = (l: Lam): Lam => {
    if (
      isNamed(l) ||
      (l.binds.kind === 'nil' &&
        l.result.kind === 'var' &&
        l.params.kind === 'cons' &&
        l.params.tail.kind === 'nil')
    )
      return l;
    const name = `${f.name}_fused${helpers.length + 1}`;
    const binds = listToArray(l.binds);
    const locals: Decl[] = binds.map((b: Bind) => ({
      kind: 'decl',
      name: b.name,
      ty: b.ty,
      size: { kind: 'none' },
      lbl: b.lbl,
    }));
    const cmds: Cmd[] = [
      ...binds.map((b): Cmd => ({ kind: 'assign', name: b.name, rhs: b.rhs, lbl: b.lbl })),
      { kind: 'return', value: { kind: 'some', value: l.result }, lbl: l.lbl },
    ];
    let body = cmds[cmds.length - 1] as Cmd;
    for (let i = cmds.length - 2; i >= 0; i--)
      body = { kind: 'seq', first: cmds[i] as Cmd, second: body, lbl: l.lbl };
    helpers.push({
      kind: 'fun',
      name,
      ret: l.ret,
      params: l.params,
      locals: listFromArray(locals),
      body,
      fns: { kind: 'nil' },
      lbl: l.lbl,
    });
    const args = listToArray(l.params).map(
      (p): Expr =>
        p.isArray
          ? { kind: 'arrayRef', name: p.name, ty: p.ty, lbl: l.lbl }
          : { kind: 'var', name: p.name, ty: p.ty, lbl: l.lbl },
    );
    return {
      ...l,
      binds: { kind: 'nil' },
      result: { kind: 'call', name, args: listFromArray(args), ty: l.ret, lbl: l.lbl },
    };
  };
  const soac = (s: Soac): Soac => ({
    ...s,
    fn: isIota(s) ? s.fn : lift(s.fn),
    comb: s.comb.kind === 'some' ? { kind: 'some', value: lift(s.comb.value) } : s.comb,
  });
  // By the field table: a combinator lifts its lambdas, anything else is copied with its parts
  // lifted (expressions hold no combinators); a seq's right spine by iteration, since a long run of
  // statements is one long seq chain. In order: helpers are numbered in order of appearance.
  const liftIn = (x: unknown): unknown => {
    if (typeof x !== 'object' || x === null) return x;
    const kind = (x as { kind: string }).kind;
    if (kind === 'soac') return soac(x as Soac);
    if (EXPR_KINDS.has(kind)) return x;
    if (kind !== 'seq') return mapChildren(x, liftIn);
    const spine: Seq[] = [];
    let last = x as Cmd;
    for (; last.kind === 'seq'; last = last.second) spine.push(last);
    const firsts = spine.map((s) => liftIn(s.first) as Cmd);
    let out = liftIn(last) as Cmd;
    for (let i = spine.length - 1; i >= 0; i--)
      out = { ...(spine[i] as Seq), first: firsts[i] as Cmd, second: out };
    return out;
  };
  const fun = { ...f, body: liftIn(f.body) as Cmd };
  return { helpers, fun };
}
