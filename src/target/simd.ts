/**
 * Straight-line maps in WebAssembly SIMD, for the JavaScript back end (js.ts): a `map` whose
 * lambda, with the functions it calls inlined, is straight-line int/float arithmetic becomes a
 * small WebAssembly module that computes four elements per step with 128-bit SIMD; the JS loop
 * then computes the elements left over (fewer than four) and every element whenever the module
 * cannot run. Specialization is what makes kernels straight-line — an unrolled loop over a known
 * degree, a folded branch on a known op code —, and JavaScript has no binary32 arithmetic (each
 * operation is a double operation and a `Math.fround`), so this is where a specialized kernel on
 * the CPU gains the most.
 *
 * Algorithm. `simdMap` lowers the lambda to one WebAssembly function
 *   run(in_0 … in_{k-1}: i32, out: i32, bytes: i32, s_0 … s_{m-1}: f32|i32)
 * looping over byte offsets 0, 16, … < bytes: each mapped array (a Float32Array or Int32Array
 * copied to `in_j` by the JS helper) is loaded four lanes at a time, an iota is the lane vector
 * (i, i+1, i+2, i+3), a scalar operand is splatted once before the loop. Every scalar of the
 * lambda and of the inlined functions (parameters, bindings, locals) is a v128 local; an
 * expression is compiled as a tree onto the stack, a call by binding the callee's parameters to
 * new locals and walking its body (`seq`, `assign`, `skip`, up to the first `return`).
 *
 * What is taken, and why it is exact (the JS back end's values, bit for bit, on every input):
 * - float `+ - * /` and negation are f32x4 operations: IEEE binary32, rounded to nearest, which is
 *   what `Math.fround(a op b)` gives on binary32 operands (double rounding is innocuous for these
 *   four operations from binary32 to binary64); comparisons are IEEE comparisons (false on NaN,
 *   -0 == 0); int→float is `f32x4.convert_i32x4_s`, correctly rounded like `Math.fround`;
 * - int `+ - *`, negation, `& | ^ ~` wrap like `| 0` and `Math.imul`; `<< >>` only by a literal
 *   count in 0..31 (any other count is checked in JS);
 * - truth values are lane masks (all ones for true): `&& || !` are `and or not` of masks (both
 *   operands are pure and cannot fail here, so evaluating both is the same as short-circuiting),
 *   a truth value as a number is 0 or 1, a test of a number is `!= 0` (true for NaN, as in C);
 * - `c ? a : b` evaluates both arms and picks per lane (`v128.bitselect`), again because both are
 *   pure and cannot fail.
 * Anything else leaves the map to the JS loop: integer `/ %` (checked for 0 and INT_MIN / -1),
 * float→int conversions (range-checked), array loads and array arguments (bounds-checked), calls
 * inside an inlined function (the JS back end counts a step of the run's budget on entering a
 * function that calls, which depends on the element's path), statements other than assignments
 * (`if`, loops, stores), bool arrays, and a module over `MAX_MODULE_BYTES`. The back end's other
 * checks (equal lengths, non-negative iotas) run before the loop, as without SIMD.
 *
 * Invariants. The lambda and the functions it reaches are well-formed (ast.ts); every value has
 * the type the AST gives it; the module is a pure function of the map (deterministic bytes). The
 * JS helper (`SIMD_HELPER`) runs the module on the first `n - n % 4` elements only when
 * WebAssembly is there, the module compiles (a page's main thread may refuse synchronous
 * compilation of large modules; `MAX_MODULE_BYTES` keeps under Chrome's 4 KB) and its memory can
 * grow to the inputs and the output; otherwise it returns 0 and the JS loop computes everything.
 */
import { assertNever } from '../common/index.js';
import {
  type Cmd,
  type Expr,
  exprType,
  type Fun,
  listToArray,
  type Param,
  type Soac,
} from '../kernel/index.js';

/** The largest module emitted (Chrome compiles at most 4 KB synchronously on a page's main thread). */
export const MAX_MODULE_BYTES = 4000;

/** How deep calls are inlined (a recursive chain stops here and leaves the map to JS). */
const MAX_INLINE_DEPTH = 8;

/** One operand of the map as the JS helper passes it. */
export type SimdOperand =
  | { readonly kind: 'mapped'; readonly index: number }
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
  end: 0x0b,
  br: 0x0c,
  brIf: 0x0d,
  localGet: 0x20,
  localSet: 0x21,
  i32Const: 0x41,
  i32GeU: 0x4f,
  i32Add: 0x6a,
} as const;
const SIMD = {
  load: 0x00,
  store: 0x0b,
  const: 0x0c,
  i32Splat: 0x11,
  f32Splat: 0x13,
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
  f32FromI32: 0xfa,
} as const;

/** Comparison operators: the int and the float opcode. */
const COMPARE: ReadonlyMap<string, readonly [number, number]> = new Map([
  ['==', [SIMD.i32Eq, SIMD.f32Eq]],
  ['!=', [SIMD.i32Ne, SIMD.f32Ne]],
  ['<', [SIMD.i32LtS, SIMD.f32Lt]],
  ['>', [SIMD.i32GtS, SIMD.f32Gt]],
  ['<=', [SIMD.i32LeS, SIMD.f32Le]],
  ['>=', [SIMD.i32GeS, SIMD.f32Ge]],
]);
const INT_ARITH: ReadonlyMap<string, number> = new Map([
  ['+', SIMD.i32Add],
  ['-', SIMD.i32Sub],
  ['*', SIMD.i32Mul],
  ['&', SIMD.and],
  ['|', SIMD.or],
  ['^', SIMD.xor],
]);
const FLOAT_ARITH: ReadonlyMap<string, number> = new Map([
  ['+', SIMD.f32Add],
  ['-', SIMD.f32Sub],
  ['*', SIMD.f32Mul],
  ['/', SIMD.f32Div],
]);

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

/** Scalar environment: a kernel variable's v128 local. */
type Env = Map<string, number>;

class Lowering {
  private readonly code: number[] = [];
  private nParams = 0;
  private nV128 = 0;
  /** Local indices: parameters first, then the i32 offset, then the v128 locals. */
  private offLocal = -1;
  private iotaLocal = -1;

  constructor(private readonly funs: ReadonlyMap<string, Fun>) {}

  map(s: Soac): SimdMap {
    const lam = s.fn;
    const params = listToArray(lam.params);
    const args = listToArray(s.args);
    if (params.length !== args.length) throw new NotStraightLine('arity');
    const inputs: { param: Param; local: number }[] = [];
    const scalars: { param: Param; local: number }[] = [];
    const operands: SimdOperand[] = args.map((a, j) => {
      const p = params[j] as Param;
      if (p.isArray || (p.ty === 'bool' && a.kind === 'argArray')) throw new NotStraightLine('array operand');
      switch (a.kind) {
        case 'argArray':
          inputs.push({ param: p, local: -1 });
          return { kind: 'mapped', index: inputs.length - 1 };
        case 'argIota':
          return { kind: 'iota' };
        case 'argScalar':
          scalars.push({ param: p, local: -1 });
          return { kind: 'scalar', index: scalars.length - 1 };
        default:
          return assertNever(a);
      }
    });
    laneTy(s.ty);
    // Parameters: the inputs' addresses, the output's, the byte count, then the scalars.
    const k = inputs.length;
    const outParam = k;
    const bytesParam = k + 1;
    const paramTypes = [
      ...inputs.map(() => I32),
      I32,
      I32,
      ...scalars.map((x) => (x.param.ty === 'float' ? F32 : I32)),
    ];
    this.nParams = paramTypes.length;
    this.offLocal = this.nParams;
    const env: Env = new Map();
    const c = this.code;
    // Before the loop: scalars splatted, the iota lanes (0, 1, 2, 3).
    scalars.forEach((x, j) => {
      const local = this.v128();
      c.push(OP.localGet);
      uleb(k + 2 + j, c);
      this.simd(x.param.ty === 'float' ? SIMD.f32Splat : SIMD.i32Splat);
      this.set(local);
      x.local = local;
    });
    if (operands.some((o) => o.kind === 'iota')) {
      this.iotaLocal = this.v128();
      this.constI32([0, 1, 2, 3]);
      this.set(this.iotaLocal);
    }
    for (const x of inputs) x.local = this.v128();
    args.forEach((_, j) => {
      const p = params[j] as Param;
      const o = operands[j] as SimdOperand;
      env.set(
        p.name,
        o.kind === 'mapped'
          ? (inputs[o.index] as { local: number }).local
          : o.kind === 'scalar'
            ? (scalars[o.index] as { local: number }).local
            : this.iotaLocal,
      );
    });
    c.push(OP.block, 0x40, OP.loop, 0x40);
    this.getLocal(this.offLocal);
    this.getLocal(bytesParam);
    c.push(OP.i32GeU, OP.brIf, 1);
    inputs.forEach((x, j) => {
      this.getLocal(j);
      this.getLocal(this.offLocal);
      c.push(OP.i32Add);
      this.simd(SIMD.load);
      c.push(4, 0);
      this.set(x.local);
    });
    // The address first, then the value, then the store.
    this.getLocal(outParam);
    this.getLocal(this.offLocal);
    c.push(OP.i32Add);
    const lamEnv: Env = new Map(env);
    for (const b of listToArray(lam.binds)) {
      this.value(b.rhs, lamEnv, 0);
      const local = this.v128();
      this.set(local);
      lamEnv.set(b.name, local);
    }
    this.valueAs(lam.result, laneTy(s.ty), lamEnv, 0);
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
    c.push(OP.br, 0, OP.end, OP.end, OP.end);
    const wasm = this.module(paramTypes);
    if (wasm.length > MAX_MODULE_BYTES) throw new NotStraightLine('module too large');
    return { wasm, operands };
  }

  private module(paramTypes: readonly number[]): Uint8Array {
    const locals: number[][] = [[1, I32]];
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
      0x00,
      0x61,
      0x73,
      0x6d,
      0x01,
      0x00,
      0x00,
      0x00,
      ...section(1, vec([[0x60, ...vec(paramTypes.map((t) => [t])), 0]])),
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
    return this.nParams + 1 + this.nV128++;
  }

  private simd(op: number): void {
    this.code.push(0xfd);
    uleb(op, this.code);
  }

  private getLocal(i: number): void {
    this.code.push(OP.localGet);
    uleb(i, this.code);
  }

  private set(i: number): void {
    this.code.push(OP.localSet);
    uleb(i, this.code);
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
  private valueAs(e: Expr, ty: LaneTy, env: Env, depth: number): void {
    if (laneTy(exprType(e)) !== ty) throw new NotStraightLine('mixed lane types');
    this.value(e, env, depth);
  }

  /** Pushes `e`'s lanes: C's value (a truth value is 0 or 1). */
  private value(e: Expr, env: Env, depth: number): void {
    switch (e.kind) {
      case 'var': {
        const local = env.get(e.name);
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
        if (COMPARE.has(e.op) || e.op === '&&' || e.op === '||') this.truthValue(e, env, depth);
        else this.arith(e, env, depth);
        return;
      case 'unary':
        if (e.op === '!') {
          this.truthValue(e, env, depth);
          return;
        }
        this.value(e.arg, env, depth);
        if (e.op === '-') this.simd(laneTy(e.ty) === 'float' ? SIMD.f32Neg : SIMD.i32Neg);
        else if (e.op === '~' && laneTy(e.ty) === 'int') this.simd(SIMD.not);
        else throw new NotStraightLine(`unary '${e.op}'`);
        return;
      case 'cast': {
        const from = laneTy(exprType(e.arg));
        if (e.ty === 'bool') {
          this.truthValue(e.arg, env, depth);
          return;
        }
        const to = laneTy(e.ty);
        this.value(e.arg, env, depth);
        if (from === to) return;
        if (to !== 'float') throw new NotStraightLine('float to int');
        this.simd(SIMD.f32FromI32);
        return;
      }
      case 'ternary':
        this.value(e.thenExpr, env, depth);
        this.value(e.elseExpr, env, depth);
        this.test(e.cond, env, depth);
        this.simd(SIMD.bitselect);
        return;
      case 'call':
        this.call(e.name, listToArray(e.args), env, depth);
        return;
      case 'load':
      case 'arrayRef':
        throw new NotStraightLine('array access');
      default:
        assertNever(e);
    }
  }

  private arith(e: Expr & { kind: 'binary' }, env: Env, depth: number): void {
    if (laneTy(e.ty) === 'float') {
      const op = FLOAT_ARITH.get(e.op);
      if (op === undefined) throw new NotStraightLine(`float '${e.op}'`);
      this.value(e.left, env, depth);
      this.value(e.right, env, depth);
      this.simd(op);
      return;
    }
    if (e.op === '<<' || e.op === '>>') {
      const n = e.right;
      if (n.kind !== 'intLit' || n.value < 0 || n.value > 31) throw new NotStraightLine('shift count');
      this.value(e.left, env, depth);
      this.code.push(OP.i32Const);
      sleb(n.value, this.code);
      this.simd(e.op === '<<' ? SIMD.i32Shl : SIMD.i32ShrS);
      return;
    }
    const op = INT_ARITH.get(e.op);
    if (op === undefined) throw new NotStraightLine(`int '${e.op}'`);
    this.value(e.left, env, depth);
    this.value(e.right, env, depth);
    this.simd(op);
  }

  /** A truth value as C's 0 or 1: the mask (all ones, -1, for true) negated. */
  private truthValue(e: Expr, env: Env, depth: number): void {
    this.test(e, env, depth);
    this.simd(SIMD.i32Neg);
  }

  /** Pushes `e`'s truth test as a lane mask. */
  private test(e: Expr, env: Env, depth: number): void {
    if (e.kind === 'binary' && COMPARE.has(e.op)) {
      const ty = laneTy(exprType(e.left));
      this.valueAs(e.left, ty, env, depth);
      this.valueAs(e.right, ty, env, depth);
      const [i, f] = COMPARE.get(e.op) as readonly [number, number];
      this.simd(ty === 'float' ? f : i);
      return;
    }
    if (e.kind === 'binary' && (e.op === '&&' || e.op === '||')) {
      this.test(e.left, env, depth);
      this.test(e.right, env, depth);
      this.simd(e.op === '&&' ? SIMD.and : SIMD.or);
      return;
    }
    if (e.kind === 'unary' && e.op === '!') {
      this.test(e.arg, env, depth);
      this.simd(SIMD.not);
      return;
    }
    if (e.kind === 'cast' && e.ty === 'bool') {
      this.test(e.arg, env, depth);
      return;
    }
    if (e.kind === 'boolLit') {
      const m = e.value ? -1 : 0;
      this.constI32([m, m, m, m]);
      return;
    }
    // Any other number: `!= 0` (true for NaN).
    const ty = laneTy(exprType(e));
    this.value(e, env, depth);
    if (ty === 'float') this.constF32(0);
    else this.constI32([0, 0, 0, 0]);
    this.simd(ty === 'float' ? SIMD.f32Ne : SIMD.i32Ne);
  }

  /** A call inlined: its parameters bound to new locals, its body walked up to its `return`. */
  private call(fname: string, args: readonly Expr[], env: Env, depth: number): void {
    if (depth >= MAX_INLINE_DEPTH) throw new NotStraightLine('inlining depth');
    // Inside an inlined function a call would be a step of the run's budget (see the header).
    if (depth > 0) throw new NotStraightLine('call in a called function');
    const f = this.funs.get(fname);
    if (!f) throw new NotStraightLine(`function '${fname}'`);
    const params = listToArray(f.params);
    if (params.length !== args.length) throw new NotStraightLine('arity');
    const inner: Env = new Map();
    params.forEach((p, i) => {
      if (p.isArray) throw new NotStraightLine('array parameter');
      this.valueAs(args[i] as Expr, laneTy(p.ty), env, depth);
      const local = this.v128();
      this.set(local);
      inner.set(p.name, local);
    });
    for (const d of listToArray(f.locals)) {
      if (d.size.kind === 'some') throw new NotStraightLine('local array');
      const local = this.v128();
      // Locals start at 0 (js.ts does the same; reading one before assigning it is undefined).
      if (laneTy(d.ty) === 'float') this.constF32(0);
      else this.constI32([0, 0, 0, 0]);
      this.set(local);
      inner.set(d.name, local);
    }
    const ret = this.body(f.body, inner, depth + 1);
    if (ret === undefined) throw new NotStraightLine('no return');
    this.valueAs(ret, laneTy(f.ret), inner, depth + 1);
  }

  /** Walks straight-line `c`, assigning locals; gives the expression of its `return`, if it reaches one. */
  private body(c: Cmd, env: Env, depth: number): Expr | undefined {
    switch (c.kind) {
      case 'seq':
        return this.body(c.first, env, depth) ?? this.body(c.second, env, depth);
      case 'skip':
        return undefined;
      case 'assign': {
        const local = env.get(c.name);
        if (local === undefined) throw new NotStraightLine(`variable '${c.name}'`);
        this.value(c.rhs, env, depth);
        this.set(local);
        return undefined;
      }
      case 'return':
        if (c.value.kind !== 'some') throw new NotStraightLine('void return');
        return c.value.value;
      default:
        throw new NotStraightLine(`statement '${c.kind}'`);
    }
  }
}
