/**
 * Kernel AST → readable C that gcc and `parseKernel` accept.
 *
 * Invariant (tested): for a program produced by the parser, parse(print(p)) equals p modulo labels.
 * To keep it, the printer only adds what the parser removes again: implicit casts are omitted (the
 * parser re-inserts them), parentheses follow C precedence (plus a few for clarity), statement lists
 * are flattened, `for` loops are rebuilt from `while` nodes marked `isFor`, and `x = x + e` is printed
 * as `x += e` (or `x++`), which the parser desugars back to the same tree.
 * Values the parser never produces (NaN, infinities, INT_MIN) are printed as constant expressions.
 */
import { hasCall } from './expr-info.js';
import type { Bind, Cmd, Decl, Expr, Fun, Lam, Program, Seq, Soac, SoacArg } from './ast.js';
import { formatFloat32Magnitude } from './float.js';
import { assertNever, listFromArray, listToArray } from './util.js';
import { ARRAY_OPS, isIota } from './structure.js';
import { equalModuloLabels } from './walk.js';

export function printProgram(program: Program): string {
  const funs = listToArray(program).flatMap((f) => {
    const { helpers, fun } = liftLambdas(f);
    return [...helpers, fun];
  });
  const defined = new Set<string>();
  let forward = false;
  for (const f of funs) {
    defined.add(f.name);
    for (const callee of calledNames(f.body)) if (callee !== f.name && !defined.has(callee)) forward = true;
  }
  const parts: string[] = [];
  if (forward) parts.push(funs.map((f) => `${header(f)};`).join('\n'));
  for (const f of funs) parts.push(printFun(f));
  const text = `${parts.join('\n\n')}\n`;
  return /\b(bool|true|false)\b/.test(text) ? `#include <stdbool.h>\n\n${text}` : text;
}

function header(f: Fun): string {
  const params = listToArray(f.params).map(
    (p) => `${p.isConst ? 'const ' : ''}${p.ty} ${p.name}${p.isArray ? '[]' : ''}`,
  );
  const ret = f.ret.endsWith('[]') ? `${f.ret.slice(0, -2)} *` : `${f.ret} `;
  return `${ret}${f.name}(${params.length ? params.join(', ') : 'void'})`;
}

/**
 * A function's printed text. Lambdas that are not just a named function (those fusion composed)
 * are printed first as helper functions `F_fusedK`, so the text is C that `parseKernel` accepts.
 */
export function printFun(f: Fun): string {
  const { helpers, fun } = liftLambdas(f);
  return [...helpers, fun].map(printOneFun).join('\n\n');
}

function printOneFun(f: Fun): string {
  const lines: string[] = [`${header(f)} {`];
  for (const d of listToArray(f.locals)) {
    lines.push(`  ${d.ty} ${d.name}${d.size.kind === 'some' ? `[${d.size.value}]` : ''};`);
  }
  printList(flatten(f.body), 1, lines);
  lines.push('}');
  return lines.join('\n');
}

/** Prints one command (for messages and tests), indented by `indent` levels. */
export function printCmd(c: Cmd, indent = 0): string {
  const lines: string[] = [];
  printList(flatten(c), indent, lines);
  return lines.join('\n');
}

function calledNames(c: Cmd): string[] {
  const out: string[] = [];
  const ex = (e: Expr): void => {
    switch (e.kind) {
      case 'call':
        out.push(e.name);
        for (const a of listToArray(e.args)) ex(a);
        return;
      case 'binary':
        ex(e.left);
        ex(e.right);
        return;
      case 'unary':
      case 'cast':
        ex(e.arg);
        return;
      case 'load':
        ex(e.index);
        return;
      case 'ternary':
        ex(e.cond);
        ex(e.thenExpr);
        ex(e.elseExpr);
        return;
      case 'var':
      case 'intLit':
      case 'floatLit':
      case 'boolLit':
      case 'arrayRef':
        return;
      default:
        assertNever(e);
    }
  };
  const go = (c: Cmd): void => {
    switch (c.kind) {
      case 'assign':
        ex(c.rhs);
        return;
      case 'store':
        ex(c.index);
        ex(c.rhs);
        return;
      case 'seq':
        for (const d of flatten(c)) go(d);
        return;
      case 'if':
        ex(c.cond);
        go(c.thenCmd);
        go(c.elseCmd);
        return;
      case 'while':
        ex(c.cond);
        go(c.body);
        return;
      case 'return':
        if (c.value.kind === 'some') ex(c.value.value);
        return;
      case 'skip':
        return;
      case 'callCmd':
        out.push(c.name);
        for (const a of listToArray(c.args)) ex(a);
        return;
      case 'soac':
        soac(c);
        return;
      case 'hfused':
        for (const m of listToArray(c.members)) soac(m);
        return;
      default:
        assertNever(c);
    }
  };
  const lam = (l: Lam): void => {
    for (const b of listToArray(l.binds)) ex(b.rhs);
    ex(l.result);
  };
  const soac = (s: Soac): void => {
    lam(s.fn);
    if (s.comb.kind === 'some') lam(s.comb.value);
  };
  go(c);
  return out;
}

/**
 * The commands of a seq tree, in order, without skips: by an explicit stack, since a long run of
 * statements is one long seq chain.
 */
function flatten(c: Cmd): Cmd[] {
  const out: Cmd[] = [];
  const todo: Cmd[] = [c];
  for (let next = todo.pop(); next !== undefined; next = todo.pop()) {
    if (next.kind === 'seq') todo.push(next.second, next.first);
    else if (next.kind !== 'skip') out.push(next);
  }
  return out;
}

function pad(indent: number): string {
  return '  '.repeat(indent);
}

/** The step of a `for`-marked loop and the rest of its body, when the loop can be printed as `for`. */
function forParts(c: Cmd): { step: string; stepTarget: string | undefined; rest: Cmd[] } | undefined {
  if (c.kind !== 'while' || !c.isFor) return undefined;
  const body = flatten(c.body);
  const last = body[body.length - 1];
  if (!last || (last.kind !== 'assign' && last.kind !== 'store' && last.kind !== 'callCmd')) return undefined;
  return {
    step: simple(last),
    stepTarget: last.kind === 'assign' ? last.name : undefined,
    rest: body.slice(0, -1),
  };
}

function printList(cmds: readonly Cmd[], indent: number, lines: string[]): void {
  for (let i = 0; i < cmds.length; i++) {
    const c = cmds[i] as Cmd;
    const next = cmds[i + 1];
    const loop = next ? forParts(next) : undefined;
    if (c.kind === 'assign' && next?.kind === 'while' && loop && loop.stepTarget === c.name) {
      printFor(simple(c), next.cond, loop.step, loop.rest, indent, lines);
      i++;
      continue;
    }
    printOne(c, indent, lines);
  }
}

function printFor(
  init: string,
  cond: Expr,
  step: string,
  rest: Cmd[],
  indent: number,
  lines: string[],
): void {
  lines.push(`${pad(indent)}for (${init}; ${expr(cond, 0)}; ${step}) {`);
  printList(rest, indent + 1, lines);
  lines.push(`${pad(indent)}}`);
}

function printOne(c: Cmd, indent: number, lines: string[]): void {
  const p = pad(indent);
  switch (c.kind) {
    case 'assign':
    case 'store':
    case 'callCmd':
      lines.push(`${p}${simple(c)};`);
      return;
    case 'seq':
    case 'skip':
      printList(flatten(c), indent, lines);
      return;
    case 'if': {
      lines.push(`${p}if (${expr(c.cond, 0)}) {`);
      let cur: Cmd = c;
      for (;;) {
        if (cur.kind !== 'if') break;
        printList(flatten(cur.thenCmd), indent + 1, lines);
        const els = flatten(cur.elseCmd);
        if (els.length === 0) break;
        const only = els[0] as Cmd;
        if (els.length === 1 && only.kind === 'if') {
          lines.push(`${p}} else if (${expr(only.cond, 0)}) {`);
          cur = only;
          continue;
        }
        lines.push(`${p}} else {`);
        printList(els, indent + 1, lines);
        break;
      }
      lines.push(`${p}}`);
      return;
    }
    case 'while': {
      const loop = forParts(c);
      if (loop) {
        printFor('', c.cond, loop.step, loop.rest, indent, lines);
        return;
      }
      lines.push(`${p}while (${expr(c.cond, 0)}) {`);
      printList(flatten(c.body), indent + 1, lines);
      lines.push(`${p}}`);
      return;
    }
    case 'return':
      lines.push(c.value.kind === 'some' ? `${p}return ${expr(c.value.value, 0)};` : `${p}return;`);
      return;
    case 'soac':
      lines.push(`${p}${soacText(c)};`);
      return;
    case 'hfused':
      lines.push(`${p}/* horizontally fused: one loop over all of these */`);
      for (const m of listToArray(c.members)) lines.push(`${p}${soacText(m)};`);
      lines.push(`${p}/* end of the fused loop */`);
      return;
    default:
      assertNever(c);
  }
}

// ---- combinators ---------------------------------------------------------------------------------

/** The function a lambda stands for: the named function it only calls (lifted lambdas are so). */
function lamName(l: Lam): string {
  if (l.binds.kind === 'nil' && l.result.kind === 'call') return l.result.name;
  throw new Error('internal error: printing a lambda that was not lifted');
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

function argText(a: SoacArg): string {
  switch (a.kind) {
    case 'argArray':
      return a.name;
    case 'argIota':
      return `iota(${expr(a.len, 0)})`;
    case 'argScalar':
      return expr(a.value, 2);
    default:
      return assertNever(a);
  }
}

function soacText(s: Soac): string {
  const target = ARRAY_OPS.has(s.op) || isIota(s) ? `${s.ty} ${s.dest}[]` : s.dest;
  if (isIota(s)) return `${target} = ${argText(s.args.kind === 'cons' ? s.args.head : (undefined as never))}`;
  const operands: string[] = [];
  if (s.comb.kind === 'some') operands.push(lamName(s.comb.value));
  operands.push(lamName(s.fn));
  if (s.ne.kind === 'some') operands.push(expr(s.ne.value, 2));
  for (const a of listToArray(s.args)) operands.push(argText(a));
  return `${target} = ${s.op}(${operands.join(', ')})`;
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
  const cmd = (c: Cmd): Cmd => {
    switch (c.kind) {
      case 'seq': {
        // Along the right spine by iteration (a long run of statements is one long seq chain).
        const spine: Seq[] = [];
        let last: Cmd = c;
        for (; last.kind === 'seq'; last = last.second) spine.push(last);
        // in order: helpers are numbered in order of appearance
        const firsts = spine.map((s) => cmd(s.first));
        let out = cmd(last);
        for (let i = spine.length - 1; i >= 0; i--)
          out = { ...(spine[i] as Seq), first: firsts[i] as Cmd, second: out };
        return out;
      }
      case 'if':
        return { ...c, thenCmd: cmd(c.thenCmd), elseCmd: cmd(c.elseCmd) };
      case 'while':
        return { ...c, body: cmd(c.body) };
      case 'soac':
        return soac(c);
      case 'hfused':
        return { ...c, members: listFromArray(listToArray(c.members).map(soac)) };
      case 'assign':
      case 'store':
      case 'return':
      case 'skip':
      case 'callCmd':
        return c;
      default:
        return assertNever(c);
    }
  };
  const fun = { ...f, body: cmd(f.body) };
  return { helpers, fun };
}

const COMPOUND = new Set(['+', '-', '*', '/', '%', '&', '|', '^', '<<', '>>']);

/** An assignment, store or call without the `;` (also used as a for-init or for-step). */
function simple(c: Cmd): string {
  switch (c.kind) {
    case 'assign': {
      const r = c.rhs;
      if (
        r.kind === 'binary' &&
        COMPOUND.has(r.op) &&
        r.left.kind === 'var' &&
        r.left.name === c.name &&
        r.ty === r.left.ty
      ) {
        return sugared(c.name, r.op, r.right);
      }
      return `${c.name} = ${expr(r, 0)}`;
    }
    case 'store': {
      const r = c.rhs;
      const target = `${c.array}[${expr(c.index, 0)}]`;
      if (
        r.kind === 'binary' &&
        COMPOUND.has(r.op) &&
        r.left.kind === 'load' &&
        r.left.array === c.array &&
        r.ty === r.left.ty &&
        equalModuloLabels(r.left.index, c.index) &&
        !hasCall(c.index)
      ) {
        return sugared(target, r.op, r.right);
      }
      return `${target} = ${expr(r, 0)}`;
    }
    case 'callCmd':
      return `${c.name}(${listToArray(c.args)
        .map((a) => expr(a, 2))
        .join(', ')})`;
    case 'seq':
    case 'if':
    case 'while':
    case 'return':
    case 'skip':
    case 'soac':
    case 'hfused':
      throw new Error(`internal error: '${c.kind}' is not a simple command`);
    default:
      return assertNever(c);
  }
}

function sugared(target: string, op: string, right: Expr): string {
  if ((op === '+' || op === '-') && right.kind === 'intLit' && right.value === 1)
    return `${target}${op}${op}`;
  return `${target} ${op}= ${expr(right, 0)}`;
}

// ---- expressions ---------------------------------------------------------------------------------

const PREC: Record<string, number> = {
  '*': 13,
  '/': 13,
  '%': 13,
  '+': 12,
  '-': 12,
  '<<': 11,
  '>>': 11,
  '<': 10,
  '<=': 10,
  '>': 10,
  '>=': 10,
  '==': 9,
  '!=': 9,
  '&': 8,
  '^': 7,
  '|': 6,
  '&&': 5,
  '||': 4,
};
const UNARY = 14;
const PRIMARY = 15;
const BITWISE = new Set(['&', '|', '^', '<<', '>>']);

/** Prints an expression as C, in parentheses when its precedence is below `min`. */
export function printExpr(e: Expr): string {
  return expr(e, 0);
}

function wrap(text: string, prec: number, min: number): string {
  return prec < min ? `(${text})` : text;
}

/** Extra parentheses, for readers (and gcc -Wparentheses), where C's precedence is easily misread. */
function clarify(parent: string, child: Expr): boolean {
  if (child.kind !== 'binary' || child.op === parent) return false;
  if ((parent === '&&' || parent === '||') && (child.op === '&&' || child.op === '||')) return true;
  return BITWISE.has(parent);
}

function expr(e: Expr, min: number): string {
  switch (e.kind) {
    case 'var':
      return e.name;
    case 'intLit':
      if (e.value === -2147483648) return '(-2147483647 - 1)';
      return wrap(String(e.value), e.value < 0 ? UNARY : PRIMARY, min);
    case 'floatLit': {
      const v = e.value;
      if (Number.isNaN(v)) return '(0.0f / 0.0f)';
      if (!Number.isFinite(v)) return v > 0 ? '(1.0f / 0.0f)' : '(-1.0f / 0.0f)';
      const neg = v < 0 || Object.is(v, -0);
      const text = `${neg ? '-' : ''}${formatFloat32Magnitude(v)}f`;
      return wrap(text, neg ? UNARY : PRIMARY, min);
    }
    case 'boolLit':
      return e.value ? 'true' : 'false';
    case 'binary': {
      const p = PREC[e.op] ?? 0;
      const side = (x: Expr, m: number): string => (clarify(e.op, x) ? `(${expr(x, 0)})` : expr(x, m));
      return wrap(`${side(e.left, p)} ${e.op} ${side(e.right, p + 1)}`, p, min);
    }
    case 'unary': {
      const arg = expr(e.arg, UNARY);
      const text = e.op === '-' && arg.startsWith('-') ? `-(${arg})` : `${e.op}${arg}`;
      return wrap(text, UNARY, min);
    }
    case 'load':
      return `${e.array}[${expr(e.index, 0)}]`;
    case 'call':
      return `${e.name}(${listToArray(e.args)
        .map((a) => expr(a, 2))
        .join(', ')})`;
    case 'cast':
      if (e.implicit) return expr(e.arg, min);
      return wrap(`(${e.ty})${expr(e.arg, UNARY)}`, UNARY, min);
    case 'ternary':
      return wrap(`${expr(e.cond, 4)} ? ${expr(e.thenExpr, 0)} : ${expr(e.elseExpr, 3)}`, 3, min);
    case 'arrayRef':
      return e.name;
    default:
      return assertNever(e);
  }
}
