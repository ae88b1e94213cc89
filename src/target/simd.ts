/**
 * Straight-line maps in WebAssembly SIMD, for the JavaScript back end (js.ts): a `map` whose
 * lambda, with the functions it calls inlined, is straight-line int/float code becomes a small
 * WebAssembly module that computes four elements per step with 128-bit SIMD; the JS loop then
 * computes the elements left over (fewer than four), and every element whenever the module cannot
 * run or gives up. Specialization is what makes kernels straight-line — an unrolled loop over a
 * known degree, a folded branch on a known op code —, and JavaScript has no binary32 arithmetic
 * (each operation is a double operation and a `Math.fround`), so this is where a specialized
 * kernel on the CPU gains the most.
 *
 * Algorithm. `simdMap` lowers the lambda to one WebAssembly function
 *   run(in_0 … in_{k-1}: i32, (arr_j: i32, len_j: i32)…, out: i32, bytes: i32, s_0 … s_{m-1}): i32
 * looping over byte offsets 0, 16, … < bytes: each mapped array (a Float32Array or Int32Array
 * the JS helper copied to `in_j`) is loaded four lanes at a time, an iota is the lane vector
 * (i, i+1, i+2, i+3), a scalar operand is splatted once before the loop, and a broadcast array is
 * copied whole to `arr_j`. Every scalar of the lambda and of the inlined functions (parameters,
 * bindings, locals) is a v128 local; an expression is compiled as a tree onto the stack, a call by
 * binding the callee's parameters to new locals and walking its body (`seq`, `assign`, `skip`, up
 * to the first `return`); an `if` with no `return` inside is if-converted (both branches on
 * copies of what they assign, then a per-lane pick). Lane-wise operations that SIMD lacks — a load at four indices, integer
 * division and remainder, a float→int conversion — take each lane apart.
 *
 * Giving up. Where the JS back end would raise one of the evaluator's run-time errors — a load out
 * of bounds, a division by 0 or INT_MIN / -1, a float→int conversion out of range — the module
 * returns 1 without writing the output, and `$simd` returns 0: the JS loop computes every element
 * from the start and raises the error exactly as it always does. That is sound because the lambda
 * is pure (lambdas write no arrays, ast.ts) and the run's step budget is not touched by it (see
 * below). A load or a failing operation in an arm of `?:`, in the right operand of `&&`/`||` or
 * in a branch of an `if`, which C evaluates only on some elements (a guarded division, a load
 * behind a bounds test), keeps the map in JS, so that a correct kernel never gives up on every
 * call.
 *
 * Why it is exact (the JS back end's values, bit for bit, on every input):
 * - float `+ - * /` and negation are f32x4 operations: IEEE binary32, rounded to nearest, which is
 *   what `Math.fround(a op b)` gives on binary32 operands (double rounding is innocuous for these
 *   four operations from binary32 to binary64); comparisons are IEEE comparisons (false on NaN,
 *   -0 == 0); int→float is `f32x4.convert_i32x4_s`, correctly rounded like `Math.fround`;
 *   float→int truncates in range (`trunc_sat`, after the range test);
 * - int `+ - *`, negation, `& | ^ ~` wrap like `| 0` and `Math.imul`; `/ %` truncate like
 *   `(a / b) | 0` and `(a % b) | 0` (exact for int32 operands); `<< >>` only by a literal count in
 *   0..31 (any other count is checked in JS);
 * - truth values are lane masks (all ones for true): `&& || !` are `and or not` of masks (both
 *   operands are evaluated, which is C's result when neither can fail), a truth value as a number
 *   is 0 or 1, a test of a number is `!= 0` (true for NaN, as in C);
 * - `c ? a : b` evaluates both arms and picks per lane (`v128.bitselect`), again because neither
 *   can fail.
 * - builtins (kernel/builtins.ts) with an exact lowering: `f32x4.sqrt` (correctly rounded, as
 *   `Math.fround(Math.sqrt(x))`), `abs`, `floor`, `ceil`, `trunc`, `i32x4.abs` (INT_MIN wraps, as
 *   `| 0`), and C's `fminf`/`fmaxf`/`roundf` from compares and `bitselect` (not `f32x4.min` or
 *   `nearest`, whose NaN, -0 and tie rules differ); a call of any other builtin (`expf`, `fmodf`, …)
 *   leaves the map to the JS loop.
 * Anything else leaves the map to the JS loop: calls inside an inlined function (the JS back end
 * counts a step of the run's budget on entering a function that calls), a `return` inside an
 * `if`, loops, stores, local arrays, mapped bool arrays and bool results, and a
 * module over `MAX_MODULE_BYTES`. The back end's checks before the loop (equal lengths,
 * non-negative iotas) run first, as without SIMD.
 *
 * Invariants. The lambda and the functions it reaches are well-formed (ast.ts); every value has
 * the type the AST gives it; the module is a pure function of the map (deterministic bytes). The
 * JS helper (`simdPrelude`, below) runs the module only where WebAssembly is there, the module
 * compiles (a page's main thread refuses to compile modules over 4 KB synchronously; the JS loop
 * then runs) and its memory can grow to the arrays; otherwise `$simd` returns 0.
 */
import { assertNever } from '../common/index.js';
import {
  type Builtin,
  builtin,
  type Cmd,
  type Expr,
  exprType,
  type Fun,
  listToArray,
  type Param,
  type Soac,
} from '../kernel/index.js';

/** The largest module emitted: a bound on code size (a page's main thread compiles at most 4 KB). */
export const MAX_MODULE_BYTES = 65536;

/** One operand of the map as the JS helper passes it. */
export type SimdOperand =
  | { readonly kind: 'mapped'; readonly index: number }
  | { readonly kind: 'broadcast'; readonly index: number }
  | { readonly kind: 'iota' }
  | { readonly kind: 'scalar'; readonly index: number };

/** A map lowered to WebAssembly: the module and, per soac argument, how it is passed. */
export interface SimdMap {
  readonly wasm: Uint8Array;
  readonly operands: readonly SimdOperand[];
}

/** Thrown inside the lowering for a construct it does not take. */
class NotStraightLine {
  constructor(readonly why: string) {}
}

const I32 = 0x7f;
const F32 = 0x7d;
const V128 = 0x7b;

/** Scalar kernel types the lowering handles as lanes: bool lanes hold 0 or 1, as C's bool. */
type LaneTy = 'int' | 'float';

function laneTy(ty: string): LaneTy {
  if (ty === 'float') return 'float';
  if (ty === 'int' || ty === 'bool') return 'int';
  throw new NotStraightLine(`type '${ty}'`);
}

/**
 * `s` (a map) as a WebAssembly SIMD module, or undefined when it is not a straight-line map of int
 * and float lanes (see the header). `funs` are the program's functions by name.
 */
export function simdMap(s: Soac, funs: ReadonlyMap<string, Fun>): SimdMap | undefined {
  if (s.op !== 'map' || s.ty === 'bool') return undefined;
  try {
    return new Lowering(funs).map(s);
  } catch (e) {
    if (e instanceof NotStraightLine) return undefined;
    throw e;
  }
}

/** Opcodes (core and the 0xfd SIMD prefix). */
const OP = {
  block: 0x02,
  loop: 0x03,
  if: 0x04,
  end: 0x0b,
  br: 0x0c,
  brIf: 0x0d,
  return: 0x0f,
  localGet: 0x20,
  localSet: 0x21,
  localTee: 0x22,
  i32Load: 0x28,
  f32Load: 0x2a,
  i32Load8U: 0x2d,
  i32Const: 0x41,
  i32Eqz: 0x45,
  i32Eq: 0x46,
  i32GeU: 0x4f,
  i32Add: 0x6a,
  i32DivS: 0x6d,
  i32RemS: 0x6f,
  i32And: 0x71,
  i32Or: 0x72,
  i32Shl: 0x74,
} as const;
const SIMD = {
  load: 0x00,
  store: 0x0b,
  const: 0x0c,
  i32Splat: 0x11,
  f32Splat: 0x13,
  i32ExtractLane: 0x1b,
  i32ReplaceLane: 0x1c,
  f32ReplaceLane: 0x20,
  i32Eq: 0x37,
  i32Ne: 0x38,
  i32LtS: 0x39,
  i32GtS: 0x3b,
  i32LeS: 0x3d,
  i32GeS: 0x3f,
  f32Eq: 0x41,
  f32Ne: 0x42,
  f32Lt: 0x43,
  f32Gt: 0x44,
  f32Le: 0x45,
  f32Ge: 0x46,
  not: 0x4d,
  and: 0x4e,
  or: 0x50,
  xor: 0x51,
  bitselect: 0x52,
  i32Neg: 0xa1,
  i32AllTrue: 0xa3,
  i32Shl: 0xab,
  i32ShrS: 0xac,
  i32Add: 0xae,
  i32Sub: 0xb1,
  i32Mul: 0xb5,
  f32Neg: 0xe1,
  f32Add: 0xe4,
  f32Sub: 0xe5,
  f32Mul: 0xe6,
  f32Div: 0xe7,
  i32FromF32: 0xf8,
  f32FromI32: 0xfa,
  f32Ceil: 0x67,
  f32Floor: 0x68,
  f32Trunc: 0x69,
  i32Abs: 0xa0,
  f32Abs: 0xe0,
  f32Sqrt: 0xe3,
} as const;

/**
 * The binary operators that are one SIMD instruction: per operator its i32x4 and its f32x4
 * opcode (absent where the type has none), and whether it compares (giving a lane mask).
 */
interface BinaryOp {
  readonly int?: number;
  readonly float?: number;
  readonly compares: boolean;
}
const BINARY: Readonly<Record<string, BinaryOp>> = {
  '==': { int: SIMD.i32Eq, float: SIMD.f32Eq, compares: true },
  '!=': { int: SIMD.i32Ne, float: SIMD.f32Ne, compares: true },
  '<': { int: SIMD.i32LtS, float: SIMD.f32Lt, compares: true },
  '>': { int: SIMD.i32GtS, float: SIMD.f32Gt, compares: true },
  '<=': { int: SIMD.i32LeS, float: SIMD.f32Le, compares: true },
  '>=': { int: SIMD.i32GeS, float: SIMD.f32Ge, compares: true },
  '+': { int: SIMD.i32Add, float: SIMD.f32Add, compares: false },
  '-': { int: SIMD.i32Sub, float: SIMD.f32Sub, compares: false },
  '*': { int: SIMD.i32Mul, float: SIMD.f32Mul, compares: false },
  '/': { float: SIMD.f32Div, compares: false },
  '&': { int: SIMD.and, compares: false },
  '|': { int: SIMD.or, compares: false },
  '^': { int: SIMD.xor, compares: false },
};

/** `op`'s entry in BINARY (own properties only: `op` is source text). */
function binaryOp(op: string): BinaryOp | undefined {
  return Object.hasOwn(BINARY, op) ? BINARY[op] : undefined;
}

function isComparison(op: string): boolean {
  return binaryOp(op)?.compares === true;
}

const INT_MIN = -2147483648;

function uleb(n: number, out: number[]): void {
  let v = n >>> 0;
  do {
    const b = v & 0x7f;
    v >>>= 7;
    out.push(v !== 0 ? b | 0x80 : b);
  } while (v !== 0);
}

function sleb(n: number, out: number[]): void {
  let v = n | 0;
  for (;;) {
    const b = v & 0x7f;
    v >>= 7;
    const done = (v === 0 && (b & 0x40) === 0) || (v === -1 && (b & 0x40) !== 0);
    out.push(done ? b : b | 0x80);
    if (done) return;
  }
}

/** A vector of `items`, each already encoded, with its count. */
function vec(items: readonly (readonly number[])[]): number[] {
  const out: number[] = [];
  uleb(items.length, out);
  for (const it of items) out.push(...it);
  return out;
}

function section(id: number, body: readonly number[]): number[] {
  const out = [id];
  uleb(body.length, out);
  out.push(...body);
  return out;
}

function name(s: string): number[] {
  return vec([...s].map((c) => [c.charCodeAt(0)]));
}

/** A broadcast array in the module: its address and length parameters and element type. */
interface ArrayBinding {
  readonly ptr: number;
  readonly len: number;
  readonly ty: string;
}

/** What names mean where code is lowered: scalars' v128 locals, arrays' bindings. */
interface Env {
  readonly scalars: Map<string, number>;
  readonly arrays: Map<string, ArrayBinding>;
}

/**
 * Where an expression is lowered: the depth of inlined calls, and whether C evaluates it on some
 * elements only (an arm of `?:`, the right operand of `&&`/`||`), where nothing may fail.
 */
interface Where {
  readonly depth: number;
  readonly guarded: boolean;
}

/** The i32 scratch locals after the parameters: the loop's byte offset, a lane's index and two operands. */
const I32_LOCALS = 4;

class Lowering {
  private readonly code: number[] = [];
  private nParams = 0;
  private nV128 = 0;
  private iotaLocal = -1;

  constructor(private readonly funs: ReadonlyMap<string, Fun>) {}

  private get offLocal(): number {
    return this.nParams;
  }

  private get laneLocal(): number {
    return this.nParams + 1;
  }

  private get xLocal(): number {
    return this.nParams + 2;
  }

  private get yLocal(): number {
    return this.nParams + 3;
  }

  map(s: Soac): SimdMap {
    const lam = s.fn;
    const params = listToArray(lam.params);
    const args = listToArray(s.args);
    if (params.length !== args.length) throw new NotStraightLine('arity');
    laneTy(s.ty);
    const counts = { mapped: 0, broadcast: 0, scalar: 0 };
    const operands: SimdOperand[] = args.map((a, j) => {
      const p = params[j] as Param;
      switch (a.kind) {
        case 'argArray':
          if (p.isArray) return { kind: 'broadcast', index: counts.broadcast++ };
          if (p.ty === 'bool') throw new NotStraightLine('mapped bool array');
          return { kind: 'mapped', index: counts.mapped++ };
        case 'argIota':
          return { kind: 'iota' };
        case 'argScalar':
          return { kind: 'scalar', index: counts.scalar++ };
        default:
          return assertNever(a);
      }
    });
    // Parameters: mapped inputs' addresses, broadcast arrays' (address, length), the output's
    // address, the byte count, then the scalars.
    const k = counts.mapped;
    const b = counts.broadcast;
    const outParam = k + 2 * b;
    const bytesParam = outParam + 1;
    const scalarParam = (j: number) => bytesParam + 1 + j;
    const scalarTypes = params.filter((_, j) => operands[j]?.kind === 'scalar').map((p) => p.ty);
    const paramTypes = [
      ...Array.from({ length: k + 2 * b + 2 }, () => I32),
      ...scalarTypes.map((t) => (t === 'float' ? F32 : I32)),
    ];
    this.nParams = paramTypes.length;
    const env: Env = { scalars: new Map(), arrays: new Map() };
    const c = this.code;
    const mappedLocals: number[] = [];
    // Before the loop: scalars splatted, the iota lanes (0, 1, 2, 3).
    operands.forEach((o, j) => {
      const p = params[j] as Param;
      switch (o.kind) {
        case 'scalar': {
          const local = this.v128();
          this.getLocal(scalarParam(o.index));
          this.simd(laneTy(p.ty) === 'float' ? SIMD.f32Splat : SIMD.i32Splat);
          this.set(local);
          env.scalars.set(p.name, local);
          return;
        }
        case 'iota':
          if (this.iotaLocal < 0) {
            this.iotaLocal = this.v128();
            this.constI32([0, 1, 2, 3]);
            this.set(this.iotaLocal);
          }
          env.scalars.set(p.name, this.iotaLocal);
          return;
        case 'mapped': {
          const local = this.v128();
          mappedLocals[o.index] = local;
          env.scalars.set(p.name, local);
          return;
        }
        case 'broadcast':
          env.arrays.set(p.name, { ptr: k + 2 * o.index, len: k + 2 * o.index + 1, ty: p.ty });
          return;
        default:
          assertNever(o);
      }
    });
    c.push(OP.block, 0x40, OP.loop, 0x40);
    this.getLocal(this.offLocal);
    this.getLocal(bytesParam);
    c.push(OP.i32GeU, OP.brIf, 1);
    mappedLocals.forEach((local, j) => {
      this.getLocal(j);
      this.getLocal(this.offLocal);
      c.push(OP.i32Add);
      this.simd(SIMD.load);
      c.push(4, 0);
      this.set(local);
    });
    const top: Where = { depth: 0, guarded: false };
    for (const bind of listToArray(lam.binds)) {
      this.value(bind.rhs, env, top);
      const local = this.v128();
      this.set(local);
      env.scalars.set(bind.name, local);
    }
    const result = this.v128();
    this.valueAs(lam.result, laneTy(s.ty), env, top);
    this.set(result);
    this.getLocal(outParam);
    this.getLocal(this.offLocal);
    c.push(OP.i32Add);
    this.getLocal(result);
    this.simd(SIMD.store);
    c.push(4, 0);
    if (this.iotaLocal >= 0) {
      this.getLocal(this.iotaLocal);
      this.constI32([4, 4, 4, 4]);
      this.simd(SIMD.i32Add);
      this.set(this.iotaLocal);
    }
    this.getLocal(this.offLocal);
    c.push(OP.i32Const, 16, OP.i32Add);
    this.set(this.offLocal);
    c.push(OP.br, 0, OP.end, OP.end, OP.i32Const, 0, OP.end);
    const wasm = this.module(paramTypes);
    if (wasm.length > MAX_MODULE_BYTES) throw new NotStraightLine('module too large');
    return { wasm, operands };
  }

  private module(paramTypes: readonly number[]): Uint8Array {
    const locals: number[][] = [[I32_LOCALS, I32]];
    if (this.nV128 > 0) {
      const l: number[] = [];
      uleb(this.nV128, l);
      l.push(V128);
      locals.push(l);
    }
    const body = [...vec(locals), ...this.code];
    const sized: number[] = [];
    uleb(body.length, sized);
    sized.push(...body);
    const bytes = [
      ...[0x00, 0x61, 0x73, 0x6d],
      ...[0x01, 0x00, 0x00, 0x00],
      ...section(1, vec([[0x60, ...vec(paramTypes.map((t) => [t])), ...vec([[I32]])]])),
      ...section(3, vec([[0]])),
      ...section(5, vec([[0x00, 1]])),
      ...section(
        7,
        vec([
          [...name('run'), 0x00, 0],
          [...name('mem'), 0x02, 0],
        ]),
      ),
      ...section(10, vec([sized])),
    ];
    return Uint8Array.from(bytes);
  }

  private v128(): number {
    return this.nParams + I32_LOCALS + this.nV128++;
  }

  private simd(op: number): void {
    this.code.push(0xfd);
    uleb(op, this.code);
  }

  private lane(op: number, lane: number): void {
    this.simd(op);
    this.code.push(lane);
  }

  private getLocal(i: number): void {
    this.code.push(OP.localGet);
    uleb(i, this.code);
  }

  private set(i: number): void {
    this.code.push(OP.localSet);
    uleb(i, this.code);
  }

  private i32(v: number): void {
    this.code.push(OP.i32Const);
    sleb(v, this.code);
  }

  /** `if (top of stack) return 1`: give up (see the header). */
  private giveUpIf(): void {
    this.code.push(OP.if, 0x40, OP.i32Const, 1, OP.return, OP.end);
  }

  private constI32(lanes: readonly number[]): void {
    this.simd(SIMD.const);
    const b = new Uint8Array(new Int32Array(lanes).buffer);
    this.code.push(...b);
  }

  private constF32(v: number): void {
    this.simd(SIMD.const);
    const b = new Uint8Array(new Float32Array([v, v, v, v]).buffer);
    this.code.push(...b);
  }

  /** `e` as lanes of its type, converted to `ty` (the AST makes them equal but for bool→int). */
  private valueAs(e: Expr, ty: LaneTy, env: Env, at: Where): void {
    if (laneTy(exprType(e)) !== ty) throw new NotStraightLine('mixed lane types');
    this.value(e, env, at);
  }

  /** Pushes `e`'s lanes: C's value (a truth value is 0 or 1). */
  private value(e: Expr, env: Env, at: Where): void {
    switch (e.kind) {
      case 'var': {
        const local = env.scalars.get(e.name);
        if (local === undefined) throw new NotStraightLine(`variable '${e.name}'`);
        this.getLocal(local);
        return;
      }
      case 'intLit':
        this.constI32([e.value, e.value, e.value, e.value]);
        return;
      case 'boolLit': {
        const v = e.value ? 1 : 0;
        this.constI32([v, v, v, v]);
        return;
      }
      case 'floatLit':
        if (Math.fround(e.value) !== e.value && !Number.isNaN(e.value)) throw new NotStraightLine('literal');
        this.constF32(e.value);
        return;
      case 'binary':
        if (isComparison(e.op) || e.op === '&&' || e.op === '||') this.truthValue(e, env, at);
        else this.arith(e, env, at);
        return;
      case 'unary':
        if (e.op === '!') {
          this.truthValue(e, env, at);
          return;
        }
        this.value(e.arg, env, at);
        if (e.op === '-') this.simd(laneTy(e.ty) === 'float' ? SIMD.f32Neg : SIMD.i32Neg);
        else if (e.op === '~' && laneTy(e.ty) === 'int') this.simd(SIMD.not);
        else throw new NotStraightLine(`unary '${e.op}'`);
        return;
      case 'cast':
        this.cast(e, env, at);
        return;
      case 'ternary': {
        const arm: Where = { depth: at.depth, guarded: true };
        this.value(e.thenExpr, env, arm);
        this.value(e.elseExpr, env, arm);
        this.test(e.cond, env, at);
        this.simd(SIMD.bitselect);
        return;
      }
      case 'call':
        this.call(e.name, listToArray(e.args), env, at);
        return;
      case 'load':
        this.load(e.array, e.index, env, at);
        return;
      case 'arrayRef':
        throw new NotStraightLine('array as a value');
      default:
        assertNever(e);
    }
  }

  private cast(e: Expr & { kind: 'cast' }, env: Env, at: Where): void {
    const from = laneTy(exprType(e.arg));
    if (e.ty === 'bool') {
      this.truthValue(e.arg, env, at);
      return;
    }
    const to = laneTy(e.ty);
    this.value(e.arg, env, at);
    if (from === to) return;
    if (to === 'float') {
      this.simd(SIMD.f32FromI32);
      return;
    }
    // float→int: every lane in [-2^31, 2^31) (NaN is not), else give up; then truncate.
    if (at.guarded) throw new NotStraightLine('float to int where C may not evaluate it');
    const v = this.v128();
    this.set(v);
    this.getLocal(v);
    this.constF32(INT_MIN);
    this.simd(SIMD.f32Ge);
    this.getLocal(v);
    this.constF32(-INT_MIN);
    this.simd(SIMD.f32Lt);
    this.simd(SIMD.and);
    this.simd(SIMD.i32AllTrue);
    this.code.push(OP.i32Eqz);
    this.giveUpIf();
    this.getLocal(v);
    this.simd(SIMD.i32FromF32);
  }

  private arith(e: Expr & { kind: 'binary' }, env: Env, at: Where): void {
    if (laneTy(e.ty) === 'float') {
      const op = binaryOp(e.op)?.float;
      if (op === undefined) throw new NotStraightLine(`float '${e.op}'`);
      this.value(e.left, env, at);
      this.value(e.right, env, at);
      this.simd(op);
      return;
    }
    if (e.op === '<<' || e.op === '>>') {
      const n = e.right;
      if (n.kind !== 'intLit' || n.value < 0 || n.value > 31) throw new NotStraightLine('shift count');
      this.value(e.left, env, at);
      this.i32(n.value);
      this.simd(e.op === '<<' ? SIMD.i32Shl : SIMD.i32ShrS);
      return;
    }
    if (e.op === '/' || e.op === '%') {
      this.divide(e.op === '/' ? OP.i32DivS : OP.i32RemS, e, env, at);
      return;
    }
    const op = binaryOp(e.op)?.int;
    if (op === undefined) throw new NotStraightLine(`int '${e.op}'`);
    this.value(e.left, env, at);
    this.value(e.right, env, at);
    this.simd(op);
  }

  /** Integer `/` or `%` lane by lane, giving up on a divisor of 0 and on INT_MIN / -1. */
  private divide(op: number, e: Expr & { kind: 'binary' }, env: Env, at: Where): void {
    if (at.guarded) throw new NotStraightLine('division where C may not evaluate it');
    const a = this.v128();
    const b = this.v128();
    const r = this.v128();
    this.value(e.left, env, at);
    this.set(a);
    this.value(e.right, env, at);
    this.set(b);
    const [x, y] = [this.xLocal, this.yLocal];
    for (let l = 0; l < 4; l++) {
      this.getLocal(a);
      this.lane(SIMD.i32ExtractLane, l);
      this.set(x);
      this.getLocal(b);
      this.lane(SIMD.i32ExtractLane, l);
      this.set(y);
      // y == 0 || (y == -1 && x == INT_MIN)
      this.getLocal(y);
      this.code.push(OP.i32Eqz);
      this.getLocal(y);
      this.i32(-1);
      this.code.push(OP.i32Eq);
      this.getLocal(x);
      this.i32(INT_MIN);
      this.code.push(OP.i32Eq, OP.i32And, OP.i32Or);
      this.giveUpIf();
      if (l > 0) this.getLocal(r);
      this.getLocal(x);
      this.getLocal(y);
      this.code.push(op);
      if (l === 0) this.simd(SIMD.i32Splat);
      else this.lane(SIMD.i32ReplaceLane, l);
      this.set(r);
    }
    this.getLocal(r);
  }

  /** `array[index]` lane by lane from a broadcast array, giving up on an index out of bounds. */
  private load(array: string, index: Expr, env: Env, at: Where): void {
    const arr = env.arrays.get(array);
    if (arr === undefined) throw new NotStraightLine(`array '${array}'`);
    if (at.guarded) throw new NotStraightLine('load where C may not evaluate it');
    const idx = this.v128();
    const r = this.v128();
    this.value(index, env, at);
    this.set(idx);
    const s = this.laneLocal;
    const float = arr.ty === 'float';
    for (let l = 0; l < 4; l++) {
      this.getLocal(idx);
      this.lane(SIMD.i32ExtractLane, l);
      this.code.push(OP.localTee);
      uleb(s, this.code);
      this.getLocal(arr.len);
      this.code.push(OP.i32GeU);
      this.giveUpIf();
      if (l > 0) this.getLocal(r);
      this.getLocal(arr.ptr);
      this.getLocal(s);
      if (arr.ty === 'bool') {
        this.code.push(OP.i32Add, OP.i32Load8U, 0, 0);
      } else {
        this.i32(2);
        this.code.push(OP.i32Shl, OP.i32Add, float ? OP.f32Load : OP.i32Load, 2, 0);
      }
      if (l === 0) this.simd(float ? SIMD.f32Splat : SIMD.i32Splat);
      else this.lane(float ? SIMD.f32ReplaceLane : SIMD.i32ReplaceLane, l);
      this.set(r);
    }
    this.getLocal(r);
  }

  /** A truth value as C's 0 or 1: the mask (all ones, -1, for true) negated. */
  private truthValue(e: Expr, env: Env, at: Where): void {
    this.test(e, env, at);
    this.simd(SIMD.i32Neg);
  }

  /** Pushes `e`'s truth test as a lane mask. */
  private test(e: Expr, env: Env, at: Where): void {
    if (e.kind === 'binary' && isComparison(e.op)) {
      const ty = laneTy(exprType(e.left));
      this.valueAs(e.left, ty, env, at);
      this.valueAs(e.right, ty, env, at);
      const { int, float } = binaryOp(e.op) as BinaryOp;
      this.simd((ty === 'float' ? float : int) as number);
      return;
    }
    if (e.kind === 'binary' && (e.op === '&&' || e.op === '||')) {
      this.test(e.left, env, at);
      this.test(e.right, env, { depth: at.depth, guarded: true });
      this.simd(e.op === '&&' ? SIMD.and : SIMD.or);
      return;
    }
    if (e.kind === 'unary' && e.op === '!') {
      this.test(e.arg, env, at);
      this.simd(SIMD.not);
      return;
    }
    if (e.kind === 'cast' && e.ty === 'bool') {
      this.test(e.arg, env, at);
      return;
    }
    if (e.kind === 'boolLit') {
      const m = e.value ? -1 : 0;
      this.constI32([m, m, m, m]);
      return;
    }
    // Any other number: `!= 0` (true for NaN).
    const ty = laneTy(exprType(e));
    this.value(e, env, at);
    if (ty === 'float') this.constF32(0);
    else this.constI32([0, 0, 0, 0]);
    this.simd(ty === 'float' ? SIMD.f32Ne : SIMD.i32Ne);
  }

  /** A call inlined: its parameters bound to new locals, its body walked up to its `return`. */
  private call(fname: string, args: readonly Expr[], env: Env, at: Where): void {
    const b = builtin(fname);
    if (b) {
      this.builtinCall(b, args, env, at);
      return;
    }
    // Inside an inlined function a call would be a step of the run's budget (see the header).
    if (at.depth > 0) throw new NotStraightLine('call in a called function');
    const f = this.funs.get(fname);
    if (!f) throw new NotStraightLine(`function '${fname}'`);
    const params = listToArray(f.params);
    if (params.length !== args.length) throw new NotStraightLine('arity');
    const inner: Env = { scalars: new Map(), arrays: new Map() };
    params.forEach((p, i) => {
      const a = args[i] as Expr;
      if (p.isArray) {
        const bound = a.kind === 'arrayRef' ? env.arrays.get(a.name) : undefined;
        if (bound === undefined) throw new NotStraightLine('array argument');
        inner.arrays.set(p.name, bound);
        return;
      }
      this.valueAs(a, laneTy(p.ty), env, at);
      const local = this.v128();
      this.set(local);
      inner.scalars.set(p.name, local);
    });
    for (const d of listToArray(f.locals)) {
      if (d.size.kind === 'some') throw new NotStraightLine('local array');
      const local = this.v128();
      // Locals start at 0 (js.ts does the same; reading one before assigning it is undefined).
      if (laneTy(d.ty) === 'float') this.constF32(0);
      else this.constI32([0, 0, 0, 0]);
      this.set(local);
      inner.scalars.set(d.name, local);
    }
    const body: Where = { depth: at.depth + 1, guarded: at.guarded };
    const ret = this.body(f.body, inner, body);
    if (ret === undefined) throw new NotStraightLine('no return');
    this.valueAs(ret, laneTy(f.ret), inner, body);
  }

  /**
   * A builtin (kernel/builtins.ts) on four lanes, where its `simd` lowering gives the JS back end's
   * bits: one opcode (`sqrt`, `abs`, `floor`, `ceil`, `trunc`: exact or correctly rounded), or
   * C's `fminf`/`fmaxf` (the other operand of a NaN `y`, else `x < y ? x : y`) and `roundf`
   * (halves away from zero) from compares and selects. The others leave the map to JS.
   */
  private builtinCall(b: Builtin, args: readonly Expr[], env: Env, at: Where): void {
    const simd = b.simd;
    if (simd === undefined) throw new NotStraightLine(`'${b.name}' (no exact SIMD lowering)`);
    const operands = args.map((a, i) => {
      this.valueAs(a, laneTy(b.params[i] ?? 'float'), env, at);
      const v = this.v128();
      this.set(v);
      return v;
    });
    const [x = 0, y = 0] = operands;
    switch (simd.kind) {
      case 'op':
        this.getLocal(x);
        this.simd(SIMD[simd.op]);
        return;
      case 'min':
      case 'max':
        // bitselect(x, y, x < y | y != y)
        this.getLocal(x);
        this.getLocal(y);
        this.getLocal(x);
        this.getLocal(y);
        this.simd(simd.kind === 'min' ? SIMD.f32Lt : SIMD.f32Gt);
        this.getLocal(y);
        this.getLocal(y);
        this.simd(SIMD.f32Ne);
        this.simd(SIMD.or);
        this.simd(SIMD.bitselect);
        return;
      case 'round': {
        // t = trunc(x); |x - t| >= 0.5 ? t + copysign(1, x) : t (exact: |t| < 2^23 there)
        const t = this.v128();
        this.getLocal(x);
        this.simd(SIMD.f32Trunc);
        this.set(t);
        this.getLocal(t);
        this.getLocal(x);
        this.constF32(1);
        this.constI32([INT_MIN, INT_MIN, INT_MIN, INT_MIN]);
        this.simd(SIMD.bitselect);
        this.simd(SIMD.f32Add);
        this.getLocal(t);
        this.getLocal(x);
        this.getLocal(t);
        this.simd(SIMD.f32Sub);
        this.simd(SIMD.f32Abs);
        this.constF32(0.5);
        this.simd(SIMD.f32Ge);
        this.simd(SIMD.bitselect);
        return;
      }
      default:
        assertNever(simd);
    }
  }

  /** Walks straight-line `c`, assigning locals; gives the expression of its `return`, if it reaches one. */
  private body(c: Cmd, env: Env, at: Where): Expr | undefined {
    switch (c.kind) {
      case 'seq':
        return this.body(c.first, env, at) ?? this.body(c.second, env, at);
      case 'skip':
        return undefined;
      case 'assign': {
        const local = env.scalars.get(c.name);
        if (local === undefined) throw new NotStraightLine(`variable '${c.name}'`);
        this.value(c.rhs, env, at);
        this.set(local);
        return undefined;
      }
      case 'return':
        if (c.value.kind !== 'some') throw new NotStraightLine('void return');
        return c.value.value;
      case 'if':
        this.ifConverted(c, env, at);
        return undefined;
      default:
        throw new NotStraightLine(`statement '${c.kind}'`);
    }
  }

  /**
   * An `if` without a `return` inside, if-converted: both branches computed on copies of the
   * variables they assign (as where C may not evaluate them: nothing there may fail), then each
   * variable picked per lane by the condition.
   */
  private ifConverted(c: Cmd & { kind: 'if' }, env: Env, at: Where): void {
    const names = new Set<string>();
    assignedNames(c, names);
    const mask = this.v128();
    this.test(c.cond, env, at);
    this.set(mask);
    const branch: Where = { depth: at.depth, guarded: true };
    const copies = (cmd: Cmd): Map<string, number> => {
      const inner: Env = { scalars: new Map(env.scalars), arrays: env.arrays };
      for (const name of names) {
        const local = env.scalars.get(name);
        if (local === undefined) throw new NotStraightLine(`variable '${name}'`);
        const copy = this.v128();
        this.getLocal(local);
        this.set(copy);
        inner.scalars.set(name, copy);
      }
      if (this.body(cmd, inner, branch) !== undefined) throw new NotStraightLine('return in a branch');
      return inner.scalars;
    };
    const then = copies(c.thenCmd);
    const otherwise = copies(c.elseCmd);
    for (const name of names) {
      this.getLocal(then.get(name) as number);
      this.getLocal(otherwise.get(name) as number);
      this.getLocal(mask);
      this.simd(SIMD.bitselect);
      this.set(env.scalars.get(name) as number);
    }
  }
}

/** Adds to `acc` the variables that assignments in `c` (through `seq` and `if`) assign. */
function assignedNames(c: Cmd, acc: Set<string>): void {
  switch (c.kind) {
    case 'assign':
      acc.add(c.name);
      return;
    case 'seq':
      assignedNames(c.first, acc);
      assignedNames(c.second, acc);
      return;
    case 'if':
      assignedNames(c.thenCmd, acc);
      assignedNames(c.elseCmd, acc);
      return;
    default:
      // anything else is refused by the walk (`body`)
      return;
  }
}

// ---- the run-time part: the JS that copies a map's arrays in and runs the module ----

/**
 * The shortest map `$simd` runs in WebAssembly: below it, copying the arrays in and out and
 * calling the module cost about as much as the JS loop or more (`npm run bench:fusion`'s small
 * kernels are such maps).
 */
export const SIMD_MIN_LENGTH = 256;

/**
 * Broadcast arrays are copied whole into the module's memory on each call; a map that reads a
 * table more than this many times its own length stays a JS loop, which reads only what it uses.
 */
export const SIMD_MAX_COPY_RATIO = 16;

/**
 * The run-time JS of the maps a kernel runs in WebAssembly, per site its module (`wasm`) and the
 * map's text for a comment (`map`, already shortened): the modules (base64), each instantiated on
 * first use with a memory of its own, and `$simd`, which copies a map's mapped arrays (their first
 * `n - n % 4` elements) and broadcast arrays into that memory, runs the module on those elements,
 * copies the results into `out` and returns how many it computed — 0, leaving every element to
 * the JS loop, for a map shorter than `SIMD_MIN_LENGTH` or with broadcast arrays over
 * `SIMD_MAX_COPY_RATIO` times its length, or where WebAssembly is missing, the module does not
 * compile, the memory cannot grow or the module gave up (on what would be a run-time error, which
 * the JS loop then raises).
 */
export function simdPrelude(sites: readonly { readonly wasm: Uint8Array; readonly map: string }[]): string[] {
  const base64 = (b: Uint8Array): string => btoa(Array.from(b, (x) => String.fromCharCode(x)).join(''));
  return [
    '// straight-line maps, four elements at a time in WebAssembly SIMD (src/target/simd.ts):',
    ...sites.map((x, k) => `//   ${k}: ${x.map} (${x.wasm.length} bytes)`),
    `const $simdSites = [${sites.map((x) => `"${base64(x.wasm)}"`).join(', ')}];`,
    'const $simdRuns = [];',
    'function $simdOpen(site) {',
    '  try {',
    '    const text = atob($simdSites[site]);',
    '    const bytes = new Uint8Array(text.length);',
    '    for (let j = 0; j < text.length; j++) bytes[j] = text.charCodeAt(j);',
    '    const inst = new WebAssembly.Instance(new WebAssembly.Module(bytes), {});',
    '    return { run: inst.exports.run, mem: inst.exports.mem };',
    '  } catch {',
    '    return null;',
    '  }',
    '}',
    'function $simd(site, out, ins, arrs, scalars, n) {',
    `  if (!(n >= ${SIMD_MIN_LENGTH})) return 0;`,
    '  const n4 = n - (n % 4);',
    '  let w = $simdRuns[site];',
    "  if (w === undefined) w = $simdRuns[site] = typeof WebAssembly === 'object' ? $simdOpen(site) : null;",
    '  if (w === null) return 0;',
    '  const bytes = n4 * 4;',
    '  let need = bytes * (ins.length + 1);',
    '  let copied = 0;',
    '  for (const a of arrs) {',
    '    need += Math.ceil(a.byteLength / 16) * 16;',
    '    copied += a.length;',
    '  }',
    `  if (copied > ${SIMD_MAX_COPY_RATIO} * n) return 0;`,
    '  try {',
    '    const have = w.mem.buffer.byteLength;',
    '    if (have < need) w.mem.grow(Math.ceil((need - have) / 65536));',
    '  } catch {',
    '    return 0;',
    '  }',
    '  const heap = new Uint8Array(w.mem.buffer);',
    '  const args = [];',
    '  let at = 0;',
    '  for (const a of ins) {',
    '    heap.set(new Uint8Array(a.buffer, a.byteOffset, bytes), at);',
    '    args.push(at);',
    '    at += bytes;',
    '  }',
    '  for (const a of arrs) {',
    '    heap.set(new Uint8Array(a.buffer, a.byteOffset, a.byteLength), at);',
    '    args.push(at, a.length);',
    '    at += Math.ceil(a.byteLength / 16) * 16;',
    '  }',
    '  try {',
    '    if (w.run(...args, at, bytes, ...scalars) !== 0) return 0;',
    '  } catch {',
    '    return 0;',
    '  }',
    '  out.set(new out.constructor(w.mem.buffer, at, n4));',
    '  return n4;',
    '}',
  ];
}
