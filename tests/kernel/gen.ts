/**
 * Test helper: a generator of random, well-typed kernel programs (C text) and their arguments.
 *
 * It draws its choices from a tape of random integers (a fast-check array), so fast-check can shrink a
 * failing program by shrinking the tape; an exhausted tape reads as zeros, which always picks the
 * smallest alternative, so generation terminates. Programs may well have undefined behaviour
 * (division by zero, out-of-range conversion, ...): the evaluator reports it, and the differential test
 * then skips the case; everything else must agree with gcc bit for bit.
 */
import type { ArgValue } from '../../src/kernel/index.js';
import { formatFloat32Magnitude } from '../../src/kernel/index.js';

export interface Generated {
  readonly source: string;
  readonly main: string;
  readonly args: ArgValue[];
}

class Tape {
  private i = 0;
  constructor(private readonly xs: readonly number[]) {}
  /** A choice in 0..n-1. */
  pick(n: number): number {
    const x = this.xs[this.i++] ?? 0;
    return x % n;
  }
  oneOf<T>(options: readonly T[]): T {
    return options[this.pick(options.length)] as T;
  }
  /** True with probability about p. */
  chance(p: number): boolean {
    return this.pick(1000) < p * 1000;
  }
}

const INTS = [0, 1, -1, 2, 3, 7, 10, 31, 100, -100, 255, 1000, 65535, 2147483647, -2147483647];
const FLOATS = [0, 1, -1, 0.5, 2, 0.1, 3.25, -2.5, 100, 1e10, -1e-10, 1e30, 16777217, 0.333333];

function intLit(t: Tape): string {
  if (t.chance(0.2)) return String(t.pick(2147483647) - (t.chance(0.5) ? 2147483647 : 0));
  return String(t.oneOf(INTS));
}

function floatLit(t: Tape): string {
  let v = t.oneOf(FLOATS);
  if (t.chance(0.3)) v = (t.pick(2000001) - 1000000) / (1 + t.pick(1000));
  v = Math.fround(v);
  return `${v < 0 || Object.is(v, -0) ? '-' : ''}${formatFloat32Magnitude(v)}f`;
}

interface Scope {
  readonly ints: readonly string[];
  readonly floats: readonly string[];
  readonly bools: readonly string[];
  /** Assignable scalars (loop counters excluded). */
  readonly assignable: readonly { name: string; ty: string }[];
  readonly helper: string | undefined;
  /** Whether the arrays a (int) and b (float) are in scope. */
  readonly arrays: boolean;
  /** Whether expressions may call the builtins C specifies to the bit (`sqrtf`, `fminf`, `abs`, …). */
  readonly builtins: boolean;
}

/** The exact builtins (kernel/builtins.ts) of one and of two float arguments. */
const EXACT_UNARY = ['sqrtf', 'fabsf', 'floorf', 'ceilf', 'truncf', 'roundf'];
const EXACT_BINARY = ['fminf', 'fmaxf', 'fmodf'];

type Ty = 'int' | 'float';

function expr(t: Tape, s: Scope, ty: Ty, depth: number): string {
  const leaf = depth <= 0 || t.chance(0.25);
  if (leaf) {
    const vars = ty === 'int' ? s.ints : s.floats;
    if (vars.length > 0 && t.chance(0.6)) return t.oneOf(vars);
    if (ty === 'int' && s.bools.length > 0 && t.chance(0.1)) return t.oneOf(s.bools);
    return ty === 'int' ? intLit(t) : floatLit(t);
  }
  const d = depth - 1;
  const intOps = ['+', '-', '*', '/', '%', '&', '|', '^', '<<', '>>'];
  const floatOps = ['+', '-', '*', '/'];
  const cmpOps = ['<', '<=', '>', '>=', '==', '!='];
  switch (t.pick(10)) {
    case 0:
    case 1:
    case 2: {
      const op = t.oneOf(ty === 'int' ? intOps : floatOps);
      let right = expr(t, s, ty, d);
      // Mostly keep shift counts and divisors away from undefined behaviour.
      if ((op === '<<' || op === '>>') && t.chance(0.9)) right = `(${right} & 31)`;
      if ((op === '/' || op === '%') && ty === 'int' && t.chance(0.7)) right = `(${right} | 1)`;
      return `(${expr(t, s, ty, d)} ${op} ${right})`;
    }
    case 3: {
      // mixed int/float arithmetic (usual arithmetic conversions)
      if (ty === 'float') return `(${expr(t, s, 'int', d)} ${t.oneOf(floatOps)} ${expr(t, s, 'float', d)})`;
      return `(${expr(t, s, 'int', d)} ${t.oneOf(cmpOps)} ${expr(t, s, t.oneOf(['int', 'float'] as const), d)})`;
    }
    case 4:
      if (ty === 'int') return `(${cond(t, s, d)} ${t.oneOf(['&&', '||'])} ${cond(t, s, d)})`;
      return `(-(${expr(t, s, ty, d)}))`;
    case 5:
      return `(${cond(t, s, d)} ? ${expr(t, s, ty, d)} : ${expr(t, s, ty, d)})`;
    case 6:
      return ty === 'int' ? `(int)${expr(t, s, 'float', d)}` : `(float)${expr(t, s, 'int', d)}`;
    case 7:
      if (!s.arrays) return ty === 'int' ? intLit(t) : floatLit(t);
      return ty === 'int' ? `a[${expr(t, s, 'int', d)} & 7]` : `b[${expr(t, s, 'int', d)} & 7]`;
    case 8:
      if (s.helper) return ty === 'int' ? `(int)${helperCall(t, s, d)}` : `(float)${helperCall(t, s, d)}`;
      return ty === 'int' ? `~${expr(t, s, 'int', d)}` : `(${expr(t, s, 'float', d)} * 0.5f)`;
    default:
      if (s.builtins && t.chance(0.5)) return builtinCall(t, s, ty, d);
      return ty === 'int'
        ? `!${expr(t, s, t.oneOf(['int', 'float'] as const), d)}`
        : `(-(${expr(t, s, ty, d)}))`;
  }
}

function builtinCall(t: Tape, s: Scope, ty: Ty, d: number): string {
  if (ty === 'int') return `abs(${expr(t, s, 'int', d)})`;
  if (t.chance(0.6)) return `${t.oneOf(EXACT_UNARY)}(${expr(t, s, 'float', d)})`;
  return `${t.oneOf(EXACT_BINARY)}(${expr(t, s, 'float', d)}, ${expr(t, s, 'float', d)})`;
}

function helperCall(t: Tape, s: Scope, d: number): string {
  return `${s.helper}(${expr(t, s, 'int', d)}, ${expr(t, s, 'float', d)})`;
}

function cond(t: Tape, s: Scope, depth: number): string {
  const ty = t.oneOf(['int', 'float'] as const);
  if (t.chance(0.3)) return expr(t, s, 'int', depth);
  return `${expr(t, s, ty, depth)} ${t.oneOf(['<', '<=', '>', '>=', '==', '!='])} ${expr(t, s, ty, depth)}`;
}

function stmts(t: Tape, s: Scope, depth: number, loop: number, indent: string, out: string[]): void {
  const n = 1 + t.pick(depth > 0 ? 4 : 2);
  for (let i = 0; i < n; i++) stmt(t, s, depth, loop, indent, out);
}

function stmt(t: Tape, s: Scope, depth: number, loop: number, indent: string, out: string[]): void {
  const ed = 1 + t.pick(3);
  const choice = depth > 0 ? t.pick(9) : t.pick(5);
  switch (choice) {
    case 0:
    case 1: {
      const v = t.oneOf(s.assignable);
      const ty: Ty = v.ty === 'float' ? 'float' : 'int';
      out.push(`${indent}${v.name} = ${v.ty === 'bool' ? cond(t, s, ed) : expr(t, s, ty, ed)};`);
      return;
    }
    case 2: {
      const v = t.oneOf(s.assignable.filter((x) => x.ty !== 'bool'));
      const ty: Ty = v.ty === 'float' ? 'float' : 'int';
      const op = t.oneOf(
        ty === 'int' ? ['+=', '-=', '*=', '^=', '++', '--'] : ['+=', '-=', '*=', '/=', '++'],
      );
      if (op === '++' || op === '--') out.push(`${indent}${v.name}${op};`);
      else {
        const rty = op === '^=' ? 'int' : t.oneOf(['int', 'float'] as const);
        out.push(`${indent}${v.name} ${op} ${expr(t, s, rty, ed)};`);
      }
      return;
    }
    case 3:
      if (t.chance(0.5)) out.push(`${indent}a[${expr(t, s, 'int', 1)} & 7] = ${expr(t, s, 'int', ed)};`);
      else
        out.push(
          `${indent}b[${expr(t, { ...s, helper: undefined }, 'int', 1)} & 7] += ${expr(t, s, 'float', ed)};`,
        );
      return;
    case 4:
      out.push(`${indent}if (${cond(t, s, 2)}) {`);
      stmts(t, s, depth - 1, loop, `${indent}  `, out);
      if (t.chance(0.5)) {
        out.push(`${indent}} else {`);
        stmts(t, s, depth - 1, loop, `${indent}  `, out);
      }
      out.push(`${indent}}`);
      return;
    case 5:
    case 6: {
      if (loop >= 2) {
        stmt(t, s, 0, loop, indent, out);
        return;
      }
      const k = `k${loop}`;
      out.push(`${indent}for (${k} = 0; ${k} < ${1 + t.pick(5)}; ${k}++) {`);
      stmts(t, s, depth - 1, loop + 1, `${indent}  `, out);
      out.push(`${indent}}`);
      return;
    }
    case 7: {
      if (loop >= 2) {
        stmt(t, s, 0, loop, indent, out);
        return;
      }
      const k = `k${loop}`;
      out.push(`${indent}${k} = ${t.pick(4)};`, `${indent}while (${k} > 0) {`);
      stmts(t, s, depth - 1, loop + 1, `${indent}  `, out);
      out.push(`${indent}  ${k}--;`, `${indent}}`);
      return;
    }
    default: {
      // a local block with a shadowing declaration
      const outer: Scope = {
        ...s,
        ints: s.ints.filter((v) => v !== 'x'),
        floats: s.floats.filter((v) => v !== 'x'),
      };
      out.push(`${indent}{`, `${indent}  float x = ${expr(t, outer, 'float', ed)};`);
      const inner: Scope = {
        ...s,
        floats: [...s.floats.filter((v) => v !== 'x'), 'x'],
        ints: s.ints.filter((v) => v !== 'x'),
        assignable: [...s.assignable.filter((v) => v.name !== 'x'), { name: 'x', ty: 'float' }],
      };
      stmts(t, inner, 0, loop, `${indent}  `, out);
      out.push(`${indent}  i0 += (int)(x * 0.0f);`, `${indent}}`);
    }
  }
}

function argInt(t: Tape): number {
  return t.chance(0.5) ? t.oneOf(INTS) : t.pick(4001) - 2000;
}

function argFloat(t: Tape): number {
  if (t.chance(0.05)) return t.oneOf([Number.NaN, Number.POSITIVE_INFINITY, -0]);
  return Math.fround(t.chance(0.5) ? t.oneOf(FLOATS) : (t.pick(200001) - 100000) / 64);
}

/**
 * One random program with functions `${prefix}f` (the entry) and maybe `${prefix}h`, and arguments;
 * with `builtins`, its expressions also call the exact builtins (and it includes their headers).
 */
export function generate(tape: readonly number[], prefix: string, builtins = false): Generated {
  const t = new Tape(tape);
  const lines: string[] = builtins ? ['#include <math.h>', '#include <stdlib.h>', ''] : [];
  let helper: string | undefined;
  if (t.chance(0.4)) {
    helper = `${prefix}h`;
    const ret = t.oneOf(['int', 'float'] as const);
    const hs: Scope = {
      ints: ['p'],
      floats: ['q'],
      bools: [],
      assignable: [],
      helper: undefined,
      arrays: false,
      builtins,
    };
    lines.push(`${ret} ${helper}(int p, float q) {`, `  return ${expr(t, hs, ret, 2)};`, '}', '');
  }
  const ret = t.oneOf(['int', 'float', 'bool'] as const);
  const s: Scope = {
    ints: ['x', 'y', 'i0', 'i1', 'k0', 'k1'],
    floats: ['u', 'v', 'f0', 'f1'],
    bools: ['c0'],
    assignable: [
      { name: 'x', ty: 'int' },
      { name: 'i0', ty: 'int' },
      { name: 'i1', ty: 'int' },
      { name: 'u', ty: 'float' },
      { name: 'f0', ty: 'float' },
      { name: 'f1', ty: 'float' },
      { name: 'c0', ty: 'bool' },
    ],
    helper,
    arrays: true,
    builtins,
  };
  const init: Scope = { ...s, ints: ['x', 'y'], floats: ['u', 'v'], bools: [] };
  lines.push(`${ret} ${prefix}f(int x, int y, float u, float v, int a[], float b[]) {`);
  lines.push(`  int i0 = ${expr(t, init, 'int', 2)};`);
  lines.push(`  int i1 = ${expr(t, init, 'int', 2)};`);
  lines.push(`  float f0 = ${expr(t, init, 'float', 2)};`);
  lines.push(`  float f1 = ${expr(t, init, 'float', 2)};`);
  lines.push(`  bool c0 = ${cond(t, init, 1)};`);
  lines.push('  int k0 = 0;', '  int k1 = 0;');
  stmts(t, s, 2, 0, '  ', lines);
  const retExpr = ret === 'bool' ? cond(t, s, 2) : expr(t, s, ret, 3);
  lines.push(`  return ${retExpr};`, '}');
  const args: ArgValue[] = [
    argInt(t),
    argInt(t),
    argFloat(t),
    argFloat(t),
    Array.from({ length: 8 }, () => argInt(t)),
    Array.from({ length: 8 }, () => argFloat(t)),
  ];
  return { source: lines.join('\n'), main: `${prefix}f`, args };
}
