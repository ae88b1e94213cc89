/**
 * The kernel language's scalar operations, once: what the reference evaluator computes for an
 * operator or a conversion on values (JS numbers: int32, 0/1 for bool, binary32 floats), and
 * which operations have no meaning (C's undefined behaviour, which the evaluator reports and a
 * constant folder must leave alone). Used by the evaluator (eval.ts), which turns a `Fault` into a
 * diagnostic at the node, and by the WGSL back end's constant folding (target/fold.ts), which
 * leaves a faulting expression unfolded. `&&` and `||` are not here: they decide whether their
 * right operand is evaluated at all, which each caller does its own way.
 */
import type { BoolLit, FloatLit, IntLit } from './ast.js';

const INT_MIN = -2147483648;
const INT_MAX = 2147483647;

/** An operation with no meaning: the evaluator's message for it. */
export interface Fault {
  readonly fault: string;
}

const fault = (message: string): Fault => ({ fault: message });

/** A literal's value: the number itself; 1 or 0 for a Boolean. */
export function literalValue(e: IntLit | FloatLit | BoolLit): number {
  return e.kind === 'boolLit' ? (e.value ? 1 : 0) : e.value;
}

/** `l op r` for a strict binary operator at operand type `ty`. */
export function applyBinary(op: string, ty: string, l: number, r: number): number | Fault {
  switch (op) {
    case '<':
      return l < r ? 1 : 0;
    case '<=':
      return l <= r ? 1 : 0;
    case '>':
      return l > r ? 1 : 0;
    case '>=':
      return l >= r ? 1 : 0;
    case '==':
      return l === r ? 1 : 0;
    case '!=':
      return l !== r ? 1 : 0;
    default:
      break;
  }
  if (ty === 'float') {
    switch (op) {
      case '+':
        return Math.fround(l + r);
      case '-':
        return Math.fround(l - r);
      case '*':
        return Math.fround(l * r);
      case '/':
        return Math.fround(l / r);
      default:
        return fault(`internal error: float operator '${op}'`);
    }
  }
  switch (op) {
    case '+':
      return (l + r) | 0;
    case '-':
      return (l - r) | 0;
    case '*':
      return Math.imul(l, r);
    case '/':
      if (r === 0) return fault('integer division by zero');
      if (l === INT_MIN && r === -1) return fault('integer overflow in division (INT_MIN / -1)');
      return (l / r) | 0;
    case '%':
      if (r === 0) return fault('integer remainder by zero');
      if (l === INT_MIN && r === -1) return fault('integer overflow in remainder (INT_MIN % -1)');
      return (l % r) | 0;
    case '&':
      return l & r;
    case '|':
      return l | r;
    case '^':
      return l ^ r;
    case '<<':
    case '>>':
      if (r < 0 || r > 31) return fault(`shift count ${r} is out of range 0..31`);
      return op === '<<' ? l << r : l >> r;
    default:
      return fault(`internal error: int operator '${op}'`);
  }
}

/** `op a` for a unary operator at type `ty`. */
export function applyUnary(op: string, ty: string, a: number): number | Fault {
  switch (op) {
    case '-':
      return ty === 'float' ? -a : -a | 0;
    case '~':
      return ~a;
    case '!':
      return a === 0 ? 1 : 0;
    default:
      return fault(`internal error: unknown unary operator '${op}'`);
  }
}

/** `v` of type `from` converted to type `to` (a cast, or an assignment across types). */
export function convertScalar(v: number, from: string, to: string): number | Fault {
  if (from === to) return v;
  switch (to) {
    case 'bool':
      return v !== 0 ? 1 : 0;
    case 'float':
      return Math.fround(v);
    case 'int': {
      if (from !== 'float') return v;
      const t = Math.trunc(v);
      if (Number.isNaN(t) || t < INT_MIN || t > INT_MAX)
        return fault(`float value ${v} is out of range for int`);
      return t | 0;
    }
    default:
      return fault(`internal error: conversion to '${to}'`);
  }
}
