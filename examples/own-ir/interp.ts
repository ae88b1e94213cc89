/**
 * A stack-machine interpreter written in SCF-lang over its own data types: the bytecode
 * (`Instr`), the operand stack (a `List<number>`) and four local slots. `run(program, input)`
 * runs `program` with slot 0 holding `input` and the others 0, and returns what `ret` pops.
 *
 * Staged against a known program (interp.json), the interpreter's dispatch on each instruction
 * happens at staging time: the staged `run` is the program compiled to straight code over the
 * late input (the first Futamura projection). Natively, and for programs outside the config's
 * description, it is an ordinary interpreter.
 *
 * `exec` is tail recursive, one call per instruction executed: a run of many thousands of steps
 * meets the JavaScript stack natively (V8 has no tail calls), so keep `input` moderate here.
 */
import type { List } from 'scf/prelude';

export type Instr =
  | { readonly kind: 'push'; readonly value: number }
  | { readonly kind: 'load'; readonly slot: number }
  | { readonly kind: 'store'; readonly slot: number }
  | { readonly kind: 'add' }
  | { readonly kind: 'sub' }
  | { readonly kind: 'mul' }
  | { readonly kind: 'lt' }
  | { readonly kind: 'jmp'; readonly target: number }
  | { readonly kind: 'jz'; readonly target: number }
  | { readonly kind: 'ret' };

/** The machine's local slots. */
export interface Slots {
  readonly kind: 'slots';
  readonly s0: number;
  readonly s1: number;
  readonly s2: number;
  readonly s3: number;
}

/** The code from instruction `pc` on: a suffix of the program (empty past its end). */
export function from(program: List<Instr>, pc: number): List<Instr> {
  if (program.kind === 'nil' || pc <= 0) return program;
  return from(program.tail, pc - 1);
}

export function top(stack: List<number>): number {
  return stack.kind === 'cons' ? stack.head : 0;
}

export function pop(stack: List<number>): List<number> {
  return stack.kind === 'cons' ? stack.tail : stack;
}

export function push(stack: List<number>, v: number): List<number> {
  return { kind: 'cons', head: v, tail: stack };
}

export function slot(l: Slots, i: number): number {
  if (i === 0) return l.s0;
  if (i === 1) return l.s1;
  if (i === 2) return l.s2;
  return l.s3;
}

export function setSlot(l: Slots, i: number, v: number): Slots {
  if (i === 0) return { ...l, s0: v };
  if (i === 1) return { ...l, s1: v };
  if (i === 2) return { ...l, s2: v };
  return { ...l, s3: v };
}

/** Integer arithmetic on 32 bits, as the machine's words are. */
export function binop(op: string, a: number, b: number): number {
  if (op === 'add') return (a + b) | 0;
  if (op === 'sub') return (a - b) | 0;
  if (op === 'mul') return (a * b) | 0;
  return a < b ? 1 : 0;
}

/**
 * Runs `code` (a suffix of `program`: where control is) on `stack` and `l`. Control is a suffix,
 * not a counter: a suffix is a part of the program, one of finitely many, so the stager
 * specializes `exec` once per instruction of a known program; a counter (`pc + 1`) could take
 * ever new values, so it would be generalized.
 */
export function exec(program: List<Instr>, code: List<Instr>, stack: List<number>, l: Slots): number {
  if (code.kind === 'nil') return top(stack);
  const ins = code.head;
  const next = code.tail;
  switch (ins.kind) {
    case 'push':
      return exec(program, next, push(stack, ins.value), l);
    case 'load':
      return exec(program, next, push(stack, slot(l, ins.slot)), l);
    case 'store':
      return exec(program, next, pop(stack), setSlot(l, ins.slot, top(stack)));
    case 'add':
    case 'sub':
    case 'mul':
    case 'lt': {
      const b = top(stack);
      const rest = pop(stack);
      return exec(program, next, push(pop(rest), binop(ins.kind, top(rest), b)), l);
    }
    case 'jmp':
      return exec(program, from(program, ins.target), stack, l);
    case 'jz':
      return top(stack) === 0
        ? exec(program, from(program, ins.target), pop(stack), l)
        : exec(program, next, pop(stack), l);
    case 'ret':
      return top(stack);
  }
}

export function run(program: List<Instr>, input: number): number {
  const start: Slots = { kind: 'slots', s0: input, s1: 0, s2: 0, s3: 0 };
  return exec(program, program, { kind: 'nil' }, start);
}
