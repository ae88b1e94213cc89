/**
 * The JavaScript back end for kernel functions: a kernel program (the elaborated C subset of
 * `src/kernel/ast.ts`) becomes JavaScript source, compiled once with `new Function`, that computes
 * exactly what the reference evaluator (`evaluate`, `src/kernel/eval.ts`) computes — only faster.
 *
 * Algorithm. One JavaScript function per kernel function reachable from the entry (a worklist fed
 * by the calls met while emitting), all in one strict-mode body that returns the entry. Commands map
 * to statements one for one (`seq` ⇒ a statement list, `while` ⇒ `while`, an `if` whose else is an
 * `if` ⇒ `else if`, `return` ⇒ `return`, calls ⇒ calls, a builtin's call ⇒ the JS its row of
 * kernel/builtins.ts gives: `Math.fround(Math.exp(x))`, the evaluator's operations); every local is declared at the top of its
 * function, as the front end hoisted it. Expressions are emitted in two modes, by the dispatch over
 * expression kinds that the WGSL back end shares (expr-core.ts; `writer` spells each construct in JS):
 * - *value* mode gives a JS number, using the very operations the evaluator uses, so each value is
 *   bit for bit the evaluator's: int `+ -` ⇒ `(a + b) | 0`, `*` ⇒ `Math.imul`, `/ %` ⇒
 *   `(a / b) | 0`, `(a % b) | 0`, unary `-` ⇒ `-a | 0`; float `+ - * /` ⇒ `Math.fround(a op b)`,
 *   unary `-` ⇒ `-a`; int→float ⇒ `Math.fround`, float→int ⇒ `$toInt(a)` (`Math.trunc(a) | 0`
 *   after the evaluator's range check); comparisons, `! && ||` and →bool ⇒ `(cond ? 1 : 0)`;
 * - *condition* mode gives a JS boolean, for `if`/`while`/`?:` tests and the operands of `! && ||`:
 *   a comparison stays a JS comparison (`==` ⇒ `===`, which like C is false for NaN and true for
 *   -0 == 0), `&&`/`||`/`!` stay JS's short-circuit operators, a conversion to bool is dropped, and
 *   anything else is tested `x !== 0` — never JS truthiness, since NaN is a true C condition.
 * JS evaluates operands, call arguments and `a[i] = v` (array, index, value) left to right, as
 * the evaluator does, so calls that write arrays inside expressions have the same effects.
 *
 * Combinators. A `soac` becomes a `for (let i = 0; i < n; i++)` loop, an `hfused` group one loop
 * whose body runs its members in order; each does what the evaluator's sequential semantics says,
 * in the same order: map writes `dest[i]`; reduce/redomap fold into the scalar `dest` from `ne`,
 * scan/scanomap into an `acc` whose value after each step is `dest[i]` (inclusive); filter copies
 * the element of its one mapped argument (`xs[i]`, or `i` for an iota) into a typed array `kept`
 * when the predicate is non-zero, and `dest` is `kept.subarray(0, k)`. The lambda is inlined in the
 * loop body: a mapped argument's parameter stands for `xs[i]` (an iota's for `i`), a broadcast
 * array's for the array itself, a scalar's for the scalar, the accumulator's for `dest`/`acc`;
 * bindings become `const l_<name>`, and so do parameters bound to elements when there are bindings
 * (lambdas are closed, so inside one only its own names resolve). Array `dest`s are `let`s at the
 * top of the function, assigned a fresh typed array each time the combinator runs. A function
 * returning an array returns its typed array; `run` gives the entry's as a plain number[].
 *
 * Storage. Scalars are JS locals; arrays are typed arrays: Int32Array for int, Float32Array for
 * float, Uint8Array for bool, which hold every value of their C type exactly (binary32 values are
 * stored unchanged, -0 and NaN included, and NaN compares as NaN whatever its payload). Array
 * parameters are passed by reference, as in the evaluator; `run` copies each argument array into a
 * fresh typed array first and returns the non-const array parameters as `outputs`.
 *
 * Names. Every identifier of the source comes from one `NameSupply` (names.ts): functions are
 * `f_` + the C name, a function's scalars `v_` + the C name and its arrays `a_` + the C name (C
 * keeps scalars and arrays apart), a loop's temporaries and lambda bindings fresh names in the
 * loop's scope — each made unique, so no user identifier (`g__in_b`, `acc`, `constructor`, `$x`,
 * `café`: mangled to ASCII) can meet a generated name, a JavaScript reserved word or a global the
 * code uses (`Math`, the typed array constructors).
 *
 * Invariants and assumptions.
 * - The program is well-formed, as `parseKernel` produces and the optimizers preserve: every name
 *   resolves, calls match their callee's parameters, operand types agree (`ast.ts`). Violations are
 *   reported at compile time as internal errors, never turned into code.
 * - Run-time errors. The code reports, as the evaluator does (a `KernelRuntimeError` with the
 *   evaluator's message and the node's label, positioned when `spans` are given), every undefined
 *   behaviour that would otherwise give a silent value: array accesses out of bounds (a load is
 *   `(a[i] ?? $oob(…))`, since a typed array reads `undefined` there; a store checks `i >>> 0 <
 *   a.length`), integer division and remainder by 0 and INT_MIN / -1 (unless the divisor is a
 *   literal other than 0 and -1), shift counts outside 0..31 (unless a literal in range), float→int
 *   conversions out of range, falling off the end of a non-void function. It bounds a run as the
 *   evaluator does: the call depth (`maxDepth`, 400 by default; a trailing `$d` parameter, only in
 *   programs that are recursive or have longer call chains) and a step budget (`fuel`, 10^8 by
 *   default) counted on loop iterations and on entries of functions that call — fewer steps than
 *   the evaluator counts, so the code never rejects a run the evaluator accepts, and every run ends.
 *   Not checked (undefined behaviour that gives some value): reading a variable or array element
 *   before it is assigned (locals and local arrays start at 0), and a run the evaluator rejects
 *   only for its own, finer, step count. The checks cost about 5–15% on the benchmark kernels.
 * - A combinator checks, before its loop, what the evaluator checks there that is no C undefined
 *   behaviour — mapped arguments of equal lengths, iotas of non-negative lengths, and in a fused
 *   loop members of equal lengths — and throws an `Error` naming the combinator and the lengths
 *   (a wrong length would otherwise read `undefined`, silently). A fused loop whose members differ
 *   in length is rejected although the evaluator, running members one by one, would accept it:
 *   fusion promised equal lengths. Elements a combinator reads by its own index are in bounds by
 *   construction and not checked. On every run the evaluator accepts the result and outputs are
 *   identical (floats compared with `Object.is`).
 * - Arguments are checked and converted exactly as `evaluate` does, with its `KernelArgumentError`
 *   messages. One difference, below C's level: an int argument given as JS `-0` (no C int) stays
 *   `-0` in a scalar, as in the evaluator, but becomes `+0` once stored in an Int32Array, where the
 *   evaluator's plain array would keep it.
 */
import { assertNever, commentText } from '../common/index.js';
import {
  ARRAY_OPS,
  FOLD_OPS,
  type ArgValue,
  builtin,
  children,
  type Binary,
  coerceArg,
  type Cmd,
  DEFAULT_FUEL,
  type EvalOptions,
  type Expr,
  exprType,
  type Fun,
  type Hfused,
  hasCall,
  JS_HELPERS,
  KernelArgumentError,
  KernelRuntimeError,
  type Lam,
  listToArray,
  type Load,
  orderArgs,
  type Param,
  type Program,
  printExpr,
  type Soac,
  type SoacArg,
  type Ternary,
  isIota,
  soacCommands,
  soacKind,
} from '../kernel/index.js';
import { NameSupply } from './names.js';
import { type ExprWriter, exprValue, truthTest } from './expr-core.js';
import { simdMap, simdPrelude } from './simd.js';

/** A kernel function compiled to JavaScript. */
export interface CompiledKernel {
  /** The JavaScript source (a function body returning the entry), as `emitKernelJs` gives it. */
  readonly source: string;
  /**
   * Runs the function on `args` (by parameter position or by name), checked and converted as
   * `evaluate` does; returns the result (a plain array for a function returning an array,
   * `undefined` for void) and the non-const array parameters.
   */
  run(args: readonly ArgValue[] | Readonly<Record<string, ArgValue>>): {
    result: number | number[] | undefined;
    outputs: Record<string, number[]>;
  };
  /**
   * The compiled function on `args`, converted once: calling the thunk runs the kernel alone (no
   * conversion of arguments or results), what a benchmark times. Arrays it writes are reused.
   */
  bind(args: readonly ArgValue[] | Readonly<Record<string, ArgValue>>): () => unknown;
}

/**
 * Options of the JS back end, as the evaluator's: `fuel` and `maxDepth` bound a run as
 * `evaluate`'s do (see the file comment), `spans` and `source` position its run-time errors.
 */
export interface JsKernelOptions extends EvalOptions {
  /**
   * Whether straight-line maps run four elements at a time in WebAssembly SIMD (simd.ts; default
   * true). Off, every combinator is a plain JS loop; the results are the same either way.
   */
  readonly simd?: boolean;
}

/** The readable JavaScript source for `fnName` and every function it reaches. */
export function emitKernelJs(program: Program, fnName: string, options: JsKernelOptions = {}): string {
  return emitProgram(program, entryFun(program, fnName), undefined, options);
}

/** Compiles `fnName` of `program` (and every function it reaches) to a JavaScript function. */
export function compileKernelJs(
  program: Program,
  fnName: string,
  options: JsKernelOptions = {},
): CompiledKernel {
  const fun = entryFun(program, fnName);
  const source = emitProgram(program, fun, undefined, options);
  const entry = new Function(source)() as (...actuals: unknown[]) => number | TypedArray | undefined;
  const call = kernelCall(fun, options);
  return {
    source,
    run(args) {
      const actuals = call.actuals(args);
      let returned: number | TypedArray | undefined;
      try {
        returned = entry(...actuals);
      } catch (e) {
        throw call.error(e);
      }
      return call.finish(actuals, returned);
    },
    bind(args) {
      const actuals = call.actuals(args);
      return () => entry(...actuals);
    },
  };
}

/** What the host driver passes to `$gpu` for one combinator (or fused group) of the entry function. */
export interface LaunchCall {
  /** The site number the driver passes first. */
  readonly index: number;
  /** The host arrays the site reads, in order. */
  readonly arrays: readonly string[];
  /** The host atoms the site reads (lengths, scalar operands, neutral elements), in order. */
  readonly scalars: readonly Expr[];
  /** What the launch gives back, in order: array results (typed arrays) and scalar results. */
  readonly dests: readonly { readonly name: string; readonly isArray: boolean }[];
}

/**
 * The JavaScript of a host driver for `fnName`: the function as the JS back end compiles it, but
 * `async`, with each combinator (or `hfused` group) replaced by
 * `[dests] = await $gpu(index, [arrays], [scalars]);` as `launch` describes it. The source is a
 * function body taking `$gpu` and returning the entry; the functions it calls are plain JS. Used by
 * the WebGPU runtime, which runs the host code on the CPU and every combinator on the GPU.
 */
export function emitHostJs(
  program: Program,
  fnName: string,
  launch: (c: Soac | Hfused) => LaunchCall,
  options: JsKernelOptions = {},
): string {
  return emitProgram(program, entryFun(program, fnName), launch, options);
}

/**
 * Argument handling shared by the JS back end and the WebGPU runtime's host driver: `actuals`
 * checks and converts the arguments as `evaluate` does (arrays become fresh typed arrays),
 * `finish` turns what the entry returned and the array parameters into `run`'s result, `error`
 * turns what the generated code threw into what `evaluate` throws for the same run.
 */
export function kernelCall(
  fun: Fun,
  options: JsKernelOptions = {},
): {
  actuals(args: readonly ArgValue[] | Readonly<Record<string, ArgValue>>): (number | TypedArray)[];
  finish(
    actuals: readonly (number | TypedArray)[],
    returned: unknown,
  ): { result: number | number[] | undefined; outputs: Record<string, number[]> };
  error(e: unknown): unknown;
} {
  const params = listToArray(fun.params);
  const makers = params.map((p) => (p.isArray ? typedArrayMaker(p.ty) : undefined));
  const returnsArray = fun.ret.endsWith('[]');
  return {
    actuals(args) {
      const ordered = orderArgs(fun.name, params, args);
      return params.map((p, i) => {
        const v = ordered[i] as ArgValue;
        if (!p.isArray) {
          if (Array.isArray(v)) throw new KernelArgumentError(`parameter '${p.name}' is a scalar ${p.ty}`);
          return coerceArg(v as number | boolean, p.ty, p.name);
        }
        if (!Array.isArray(v)) throw new KernelArgumentError(`parameter '${p.name}' is an array of ${p.ty}`);
        return convertArray(
          v as readonly (number | boolean)[],
          p,
          (makers[i] as TypedArrayMaker)((v as unknown[]).length),
        );
      });
    },
    finish(actuals, returned) {
      const result = returnsArray ? plainArray(returned as TypedArray) : (returned as number | undefined);
      const outputs: Record<string, number[]> = {};
      params.forEach((p, i) => {
        // An own property even for a parameter named `__proto__` (assignment would set the prototype).
        if (p.isArray && !p.isConst)
          Object.defineProperty(outputs, p.name, {
            value: plainArray(actuals[i] as TypedArray),
            enumerable: true,
            writable: true,
            configurable: true,
          });
      });
      return { result, outputs };
    },
    error(e) {
      // `$fail` in the generated code (the evaluator's run-time errors, its label and message)
      if (e instanceof Error && e.name === 'KernelRuntimeError' && !(e instanceof KernelRuntimeError)) {
        const { lbl, detail } = e as Error & { lbl?: unknown; detail?: unknown };
        if (typeof lbl === 'number' && typeof detail === 'string')
          return new KernelRuntimeError(detail, lbl, options.spans?.get(lbl), options.source);
      }
      // A recursion deeper than the stack (maxDepth above what JS allows), as the evaluator says it.
      if (e instanceof RangeError && /call stack/i.test(e.message))
        return new KernelRuntimeError(
          'call depth too large for the evaluator (JavaScript stack overflow)',
          fun.lbl,
          options.spans?.get(fun.lbl),
          options.source,
        );
      return e;
    },
  };
}

// ---- arguments (checked and converted by the evaluator's own `orderArgs` / `coerceArg`) --------

/**
 * `xs` checked and converted into `arr` as the evaluator's `coerceArg` does element by element,
 * holes skipped as its `map` skips them (they read as 0). An element of the parameter's own kind
 * (a number for float, an int32 for int) is stored at once: the typed array's store rounds a
 * float to binary32 as `Math.fround` does. Anything else goes through `coerceArg`, which converts
 * it or raises the evaluator's error naming the element.
 */
function convertArray(xs: readonly (number | boolean)[], p: Param, arr: TypedArray): TypedArray {
  const { ty, name } = p;
  for (let j = 0; j < xs.length; j++) {
    const x = xs[j];
    if (typeof x === 'number' && (ty === 'float' || (ty === 'int' && (x | 0) === x))) arr[j] = x;
    else if (x !== undefined || j in xs) arr[j] = coerceArg(x as number | boolean, ty, `${name}[${j}]`);
  }
  return arr;
}

/** A typed array's elements as a plain array (a loop: `Array.from` is several times slower). */
function plainArray(t: TypedArray): number[] {
  const out = new Array<number>(t.length);
  for (let j = 0; j < t.length; j++) out[j] = t[j] as number;
  return out;
}

/** The typed array holding an array of each element type (Int32Array, Float32Array, Uint8Array). */
export type TypedArray = Int32Array | Float32Array | Uint8Array;
type TypedArrayMaker = (n: number) => TypedArray;

/** The first function called `fnName` (as the evaluator looks it up), or an argument error. */
function entryFun(program: Program, fnName: string): Fun {
  const fun = listToArray(program).find((f) => f.name === fnName);
  if (!fun) throw new KernelArgumentError(`no function named '${fnName}'`);
  return fun;
}

function typedArrayMaker(ty: string): TypedArrayMaker {
  switch (ty) {
    case 'int':
      return (n) => new Int32Array(n);
    case 'float':
      return (n) => new Float32Array(n);
    case 'bool':
      return (n) => new Uint8Array(n);
    default:
      return internal(`no array type for element type '${ty}'`);
  }
}

// ---- emission ------------------------------------------------------------------------------------

function internal(message: string): never {
  throw new Error(`internal error: ${message}`);
}

/** `s` without one pair of parentheses around all of it (emitted expressions have no strings to skip). */
export function bare(s: string): string {
  if (!s.startsWith('(') || !s.endsWith(')')) return s;
  let depth = 0;
  for (let i = 0; i < s.length - 1; i++) {
    if (s[i] === '(') depth++;
    else if (s[i] === ')') depth--;
    if (depth === 0) return s; // the first '(' closes before the end: `(a) + (b)`
  }
  return s.slice(1, -1);
}

function typedArrayCtor(ty: string): string {
  switch (ty) {
    case 'int':
      return 'Int32Array';
    case 'float':
      return 'Float32Array';
    case 'bool':
      return 'Uint8Array';
    default:
      return internal(`no array type for element type '${ty}'`);
  }
}

/** A JS literal for a number, exact for -0, NaN and the infinities (an optimizer may fold to them). */
function numberLiteral(v: number): string {
  if (Number.isNaN(v)) return '(0 / 0)';
  if (v === Number.POSITIVE_INFINITY) return '(1 / 0)';
  if (v === Number.NEGATIVE_INFINITY) return '(-1 / 0)';
  if (Object.is(v, -0)) return '(-0)';
  return v < 0 ? `(${String(v)})` : String(v);
}

function signature(f: Fun): string {
  const params = listToArray(f.params).map(
    (p) => `${p.isConst ? 'const ' : ''}${p.ty} ${p.name}${p.isArray ? '[]' : ''}`,
  );
  const ret = f.ret.endsWith('[]') ? `${f.ret.slice(0, -2)}*` : f.ret;
  return `${ret} ${f.name}(${params.join(', ')})`;
}

function emitProgram(
  program: Program,
  entry: Fun,
  launch: ((c: Soac | Hfused) => LaunchCall) | undefined,
  options: JsKernelOptions,
): string {
  const funs = new Map<string, Fun>();
  for (const f of listToArray(program)) if (!funs.has(f.name)) funs.set(f.name, f);
  const out: string[] = [];
  // One supply for the whole source: kernel functions are named in it, each function's body in
  // a scope of its own (names.ts). The run-time helpers' names start with `$`, which no name
  // from the supply has; they are reserved all the same.
  const names = NameSupply.program('js');
  names.reserve(
    ...Object.keys(HELPERS),
    '$d',
    '$fuel',
    '$gpu',
    '$simd',
    '$simdSites',
    '$simdRuns',
    '$simdOpen',
  );
  const funName = (name: string): string => names.user('f_', name);
  const fuel = options.fuel ?? DEFAULT_FUEL;
  const maxDepth = options.maxDepth ?? DEFAULT_MAX_DEPTH;
  const ctx: EmitContext = {
    funs,
    funName,
    names,
    helpers: new Set(),
    tracksDepth: needsDepth(entry, funs, maxDepth),
    fuel,
    maxDepth,
    entry: entry.name,
    ticks: false,
    simd: options.simd !== false,
    simdSites: [],
  };
  const emitted = new Set<string>([entry.name]);
  const work: Fun[] = [entry];
  for (let f = work.shift(); f; f = work.shift()) {
    const callees = new FunEmitter(f, out, f === entry ? launch : undefined, ctx).emit();
    for (const c of callees) {
      if (emitted.has(c.name)) continue;
      emitted.add(c.name);
      work.push(c);
    }
  }
  // The helpers the code calls (and those they call), then the step budget.
  const used = new Set<string>();
  const need = (h: string): void => {
    if (used.has(h)) return;
    used.add(h);
    for (const d of HELPERS[h]?.uses ?? []) need(d);
  };
  for (const h of ctx.helpers) need(h);
  const prelude = ['"use strict";'];
  if (used.size > 0) prelude.push('', "// run-time checks: the evaluator's errors, with its messages");
  for (const [h, def] of Object.entries(HELPERS)) if (used.has(h)) prelude.push(def.source);
  if (ctx.ticks) prelude.push(`let $fuel = ${fuel};`);
  if (ctx.simdSites.length > 0)
    prelude.push(
      '',
      ...simdPrelude(ctx.simdSites.map((x) => ({ wasm: x.wasm, map: commentText(x.map, LONG) }))),
    );
  out.push('', `return ${funName(entry.name)};`, '');
  const body = out.flatMap((l) =>
    l.endsWith(FUEL_RESET) ? (ctx.ticks ? [l.replace(FUEL_RESET, `$fuel = ${fuel};`)] : []) : [l],
  );
  return [...prelude, ...body].join('\n');
}

/** The evaluator's default call depth limit (src/kernel/eval.ts). */
/** Longest kernel text kept in a comment of the generated code (commentText). */
const LONG = 4000;

const DEFAULT_MAX_DEPTH = 400;

/** What every function emitter of one program shares. */
interface EmitContext {
  readonly funs: ReadonlyMap<string, Fun>;
  readonly funName: (name: string) => string;
  /** The program's scope of the name supply. */
  readonly names: NameSupply;
  /** The run-time helpers the code calls (keys of HELPERS). */
  readonly helpers: Set<string>;
  /**
   * Whether functions carry their call depth `$d` (a trailing parameter: the entry's is undefined
   * when called from outside): only when the program reachable from the entry is recursive or has
   * call chains longer than `maxDepth`. Otherwise no run can exceed the limit.
   */
  readonly tracksDepth: boolean;
  readonly fuel: number;
  readonly maxDepth: number;
  readonly entry: string;
  /** Whether the code counts steps at all (else it needs no budget). */
  ticks: boolean;
  /** Whether straight-line maps may run in WebAssembly SIMD (`JsKernelOptions.simd`). */
  readonly simd: boolean;
  /** The WebAssembly modules of those maps, in the order of their sites, with the map each is for. */
  readonly simdSites: { readonly wasm: Uint8Array; readonly map: string }[];
}

/** Stands for the entry's `$fuel = N;` until the program is known to count steps (else dropped). */
const FUEL_RESET = '\u0000fuel';

/**
 * The run-time helpers of the generated code: each a JS function declaration and the helpers it
 * calls. `$fail` throws what compileKernelJs turns into the evaluator's KernelRuntimeError (the
 * node's label and the evaluator's message); the others check what the evaluator checks.
 */
const HELPERS: Readonly<Record<string, { readonly source: string; readonly uses: readonly string[] }>> = {
  // the builtins' (kernel/builtins.ts)
  ...Object.fromEntries(Object.entries(JS_HELPERS).map(([name, source]) => [name, { source, uses: [] }])),
  $fail: {
    source: [
      'function $fail(lbl, detail) {',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: JS source of the generated code
      '  const e = new Error(`error: ${detail}`);',
      "  e.name = 'KernelRuntimeError';",
      '  e.lbl = lbl;',
      '  e.detail = detail;',
      '  throw e;',
      '}',
    ].join('\n'),
    uses: [],
  },
  $oob: {
    source:
      // biome-ignore lint/suspicious/noTemplateCurlyInString: JS source of the generated code
      "function $oob(lbl, name, a, i) { return $fail(lbl, `index ${i} is out of bounds for array '${name}' of length ${a.length}`); }",
    uses: ['$fail'],
  },
  $load: {
    source:
      'function $load(a, i, lbl, name) { const v = a[i]; return v !== undefined ? v : $oob(lbl, name, a, i); }',
    uses: ['$oob'],
  },
  $div: {
    source: [
      'function $div(a, b, lbl) {',
      "  if (b === 0) $fail(lbl, 'integer division by zero');",
      "  if (b === -1 && a === -2147483648) $fail(lbl, 'integer overflow in division (INT_MIN / -1)');",
      '  return (a / b) | 0;',
      '}',
    ].join('\n'),
    uses: ['$fail'],
  },
  $rem: {
    source: [
      'function $rem(a, b, lbl) {',
      "  if (b === 0) $fail(lbl, 'integer remainder by zero');",
      "  if (b === -1 && a === -2147483648) $fail(lbl, 'integer overflow in remainder (INT_MIN % -1)');",
      '  return (a % b) | 0;',
      '}',
    ].join('\n'),
    uses: ['$fail'],
  },
  $shl: {
    source:
      // biome-ignore lint/suspicious/noTemplateCurlyInString: JS source of the generated code
      'function $shl(a, b, lbl) { return b >= 0 && b <= 31 ? a << b : $fail(lbl, `shift count ${b} is out of range 0..31`); }',
    uses: ['$fail'],
  },
  $shr: {
    source:
      // biome-ignore lint/suspicious/noTemplateCurlyInString: JS source of the generated code
      'function $shr(a, b, lbl) { return b >= 0 && b <= 31 ? a >> b : $fail(lbl, `shift count ${b} is out of range 0..31`); }',
    uses: ['$fail'],
  },
  $sel: {
    source: [
      // A two-slot scratch array: a select by index, which V8 compiles without a branch.
      'const $slots = new Float64Array(2);',
      'function $sel(c, a, b) {',
      '  $slots[0] = b;',
      '  $slots[1] = a;',
      '  return $slots[c | 0];',
      '}',
    ].join('\n'),
    uses: [],
  },
  $toInt: {
    source: [
      'function $toInt(v, lbl) {',
      '  const t = Math.trunc(v);',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: JS source of the generated code
      '  return t >= -2147483648 && t <= 2147483647 ? t | 0 : $fail(lbl, `float value ${v} is out of range for int`);',
      '}',
    ].join('\n'),
    uses: ['$fail'],
  },
};

/** The names of the functions `f` calls (in its body and its combinators' lambdas), builtins aside. */
function calleeNames(f: Fun): Set<string> {
  const names = new Set<string>();
  const stack: unknown[] = [f.body];
  for (let x = stack.pop(); x !== undefined; x = stack.pop()) {
    if (typeof x !== 'object' || x === null) continue;
    const node = x as { kind?: unknown; name?: unknown };
    if (
      (node.kind === 'call' || node.kind === 'callCmd') &&
      typeof node.name === 'string' &&
      !builtin(node.name)
    )
      names.add(node.name);
    for (const v of Object.values(x)) if (typeof v === 'object' && v !== null) stack.push(v);
  }
  return names;
}

/**
 * Whether a run from `entry` could exceed the call depth limit: some function reachable from it
 * is recursive, or a chain of calls is longer than `maxDepth` frames. Iterative (no JS recursion
 * over the call graph, which may be 10^4 functions deep).
 */
function needsDepth(entry: Fun, funs: ReadonlyMap<string, Fun>, maxDepth: number): boolean {
  const frames = new Map<string, number>(); // done: the longest chain of frames from the function
  const onPath = new Set<string>();
  const stack: { fun: Fun; callees: string[] }[] = [];
  const enter = (f: Fun): void => {
    onPath.add(f.name);
    stack.push({ fun: f, callees: [...calleeNames(f)].filter((n) => funs.has(n)) });
  };
  enter(entry);
  while (stack.length > 0) {
    const top = stack[stack.length - 1] as { fun: Fun; callees: string[] };
    const next = top.callees.pop();
    if (next !== undefined) {
      if (onPath.has(next)) return true; // a cycle: recursion
      if (!frames.has(next)) enter(funs.get(next) as Fun);
      continue;
    }
    stack.pop();
    onPath.delete(top.fun.name);
    let longest = 0;
    for (const c of calleeNames(top.fun)) longest = Math.max(longest, frames.get(c) ?? 0);
    frames.set(top.fun.name, longest + 1);
    if (longest + 1 > maxDepth) return true;
  }
  return false;
}

/** Whether every path through `c` ends in a `return` (so a function cannot fall off its end; WGSL's behaviour analysis agrees). */
export function alwaysReturns(c: Cmd): boolean {
  switch (c.kind) {
    case 'return':
      return true;
    case 'seq':
      return alwaysReturns(c.second) || alwaysReturns(c.first);
    case 'if':
      return alwaysReturns(c.thenCmd) && alwaysReturns(c.elseCmd);
    default:
      return false;
  }
}

/**
 * Whether evaluating `e` may throw (an evaluator error) or write an array: a load, a call, a
 * float→int conversion or an int / % << >> anywhere in it (its subexpressions are found through
 * the kernel's field table). A store whose value cannot checks its index first.
 */
function mayFail(e: Expr): boolean {
  switch (e.kind) {
    case 'load':
      return true;
    case 'call':
      if (!builtin(e.name)) return true;
      break;
    case 'cast':
      if (e.ty === 'int' && exprType(e.arg) === 'float') return true;
      break;
    case 'binary':
      if (e.ty !== 'float' && ['/', '%', '<<', '>>'].includes(e.op)) return true;
      break;
    default:
      break;
  }
  return (children(e) as Expr[]).some(mayFail);
}

/**
 * Whether the float conditional `e` is emitted as `$sel(c, a, b)` rather than `c ? a : b`: both
 * arms are variables or literals (possibly negated), so evaluating both is free and cannot fail.
 * V8 compiles `?:` to a branch, which a data-dependent test (a clamp on pixel values) mispredicts
 * about half the time; `$sel` picks by index instead. The value is the same bit for bit: the
 * scratch slots are float64s, which hold every binary32 value, -0 and NaN included.
 */
function selectsWithoutBranch(e: Ternary): boolean {
  const atom = (x: Expr): boolean =>
    x.kind === 'var' || x.kind === 'floatLit' || (x.kind === 'unary' && x.op === '-' && atom(x.arg));
  return e.ty === 'float' && atom(e.thenExpr) && atom(e.elseExpr);
}

// ---- combinators: module-level helpers -----------------------------------------------------------

/** Combinators folding into a scalar `dest`. */
const SCALAR_OPS = new Set(['reduce', 'redomap']);

/** The array `dest`s of the combinators in `c`, each once, in order. */
function soacArrayDests(c: Cmd): string[] {
  const dests: string[] = [];
  for (const cmd of soacCommands(c)) {
    for (const s of cmd.kind === 'soac' ? [cmd] : listToArray(cmd.members))
      if (ARRAY_OPS.has(s.op) && !dests.includes(s.dest)) dests.push(s.dest);
  }
  return dests;
}

/** Every combinator `dest` in `c` (arrays and fold scalars), in order. */
function soacDests(c: Cmd): { readonly name: string; readonly isArray: boolean }[] {
  return soacCommands(c).flatMap((cmd) =>
    (cmd.kind === 'soac' ? [cmd] : listToArray(cmd.members)).map((s) => ({
      name: s.dest,
      isArray: ARRAY_OPS.has(s.op),
    })),
  );
}

/** A lambda for a comment: the function it only calls (`sq` for `(x) => sq(x)`), else `(x, …) => …`. */
export function lamText(l: Lam): string {
  const params = listToArray(l.params);
  if (l.binds.kind === 'nil' && l.result.kind === 'call') {
    const args = listToArray(l.result.args);
    const forwards =
      args.length === params.length &&
      args.every((a, i) => (a.kind === 'var' || a.kind === 'arrayRef') && a.name === params[i]?.name);
    if (forwards) return l.result.name;
  }
  return `(${params.map((p) => p.name).join(', ')}) => …`;
}

function soacArgText(a: SoacArg): string {
  switch (a.kind) {
    case 'argArray':
      return a.name;
    case 'argIota':
      return `iota(${printExpr(a.len)})`;
    case 'argScalar':
      return printExpr(a.value);
    default:
      return assertNever(a);
  }
}

/** A combinator as a one-line comment, in the C syntax: `ys = map(sq, xs)`. */
export function soacText(s: Soac): string {
  const args = listToArray(s.args);
  if (isIota(s)) return `${s.dest} = ${soacArgText(args[0] as SoacArg)}`;
  const operands: string[] = [];
  if (s.comb.kind === 'some') operands.push(lamText(s.comb.value));
  operands.push(lamText(s.fn));
  if (s.ne.kind === 'some') operands.push(printExpr(s.ne.value));
  for (const a of args) operands.push(soacArgText(a));
  return `${s.dest} = ${s.op}(${operands.join(', ')})`;
}

/** `${js}` inside an emitted template literal, or the number itself when `js` is an int literal. */
function shown(js: string): string {
  return /^\(?-?\d+\)?$/.test(js) ? js.replace(/[()]/g, '') : `\${${js}}`;
}

/** A JS expression that is a name or a number: binding it to another name would add nothing. */
function isSimple(js: string): boolean {
  return /^[A-Za-z_$][\w$]*$|^\(?-?[\d.e+]+\)?$/.test(js);
}

/** What a lambda parameter is bound to at one application: a JS expression (an array when `isArray`). */
interface Actual {
  readonly js: string;
  readonly isArray: boolean;
}

/** One mapped argument of a combinator: its length and element i, as JS, and its name in messages. */
interface Mapped {
  readonly what: string;
  readonly arg: SoacArg;
  /** Its length; `read` gives the JS for an atom read from the host function. */
  readonly len: (read: (e: Expr) => string) => string;
  readonly elem: string;
}

/** The kernel's comparison operators and their JS spellings (same results on int32 and binary32). */
const COMPARISONS: ReadonlyMap<string, string> = new Map([
  ['<', '<'],
  ['<=', '<='],
  ['>', '>'],
  ['>=', '>='],
  ['==', '==='],
  ['!=', '!=='],
]);

/** Emits one kernel function; collects the functions it calls. */
class FunEmitter {
  /** The function's scalar and array names (parameters and locals), kept apart as the evaluator does. */
  private readonly scalars = new Set<string>();
  private readonly arrays = new Set<string>();
  private readonly callees = new Set<Fun>();
  /**
   * While a lambda's body is emitted: what its parameters and bindings stand for (a JS expression,
   * and whether it is an array). Lambdas are closed, so inside one no other name resolves.
   */
  private lamScope: Map<string, { readonly js: string; readonly isArray: boolean }> | undefined;
  /** The function's scope of the program's name supply. */
  private readonly names: NameSupply;

  private readonly funs: ReadonlyMap<string, Fun>;

  constructor(
    private readonly fun: Fun,
    private readonly out: string[],
    private readonly launch: ((c: Soac | Hfused) => LaunchCall) | undefined,
    private readonly ctx: EmitContext,
  ) {
    this.funs = ctx.funs;
    this.names = ctx.names.scope();
  }

  /** Records that the code calls run-time helper `name` (HELPERS); returns the name. */
  private helper(name: keyof typeof HELPERS): string {
    this.ctx.helpers.add(name);
    return name;
  }

  /** `$fail(lbl, "detail");` as a statement: the evaluator's error `detail` at node `lbl`. */
  private fail(lbl: number, detail: string): string {
    return `${this.helper('$fail')}(${lbl}, ${JSON.stringify(detail)});`;
  }

  /** The JS name of the function's scalar `name` (`v_` + the C name, unless that is taken). */
  private jsScalar(name: string): string {
    return this.names.user('v_', name);
  }

  /** The JS name of the function's array `name` (`a_` + the C name, unless that is taken). */
  private jsArray(name: string): string {
    return this.names.user('a_', name);
  }

  emit(): ReadonlySet<Fun> {
    const f = this.fun;
    const params = listToArray(f.params);
    const locals = listToArray(f.locals);
    for (const p of params) (p.isArray ? this.arrays : this.scalars).add(p.name);
    const jsParams = params.map((p) => (p.isArray ? this.jsArray(p.name) : this.jsScalar(p.name)));
    // Every user identifier of the function is named before any temporary is drawn.
    for (const d of locals) void (d.size.kind === 'some' ? this.jsArray(d.name) : this.jsScalar(d.name));
    for (const d of soacDests(f.body)) void (d.isArray ? this.jsArray(d.name) : this.jsScalar(d.name));
    if (this.ctx.tracksDepth) jsParams.push('$d');
    const header = `${this.launch ? 'async ' : ''}function ${this.ctx.funName(f.name)}(${jsParams.join(', ')}) {`;
    this.out.push('', `// ${commentText(signature(f), LONG)}`, header);
    // A run's step budget starts when the entry is called from outside; the call depth is checked
    // where a run could exceed it, and steps are counted where a run could be long: loops (below)
    // and functions that call (every other function does a bounded amount of work per call).
    const { fuel, maxDepth, tracksDepth } = this.ctx;
    if (f.name === this.ctx.entry)
      this.line(1, tracksDepth ? `if ($d === undefined) { $d = 0; $fuel = ${fuel}; }` : FUEL_RESET);
    if (tracksDepth)
      this.line(1, `if ($d >= ${maxDepth}) ${this.fail(f.lbl, `call depth limit of ${maxDepth} exceeded`)}`);
    if (tracksDepth || calleeNames(f).size > 0) this.tick(f.lbl, 1);
    // A name declared twice (never by the front end) is one JS binding, reset at each declaration as
    // the evaluator resets it; only then, or when a combinator makes it, does a local array need
    // `let`. Arrays that combinators make (the `dest`s of map/filter/scan/scanomap) are bound anew
    // each time the combinator runs: declared up front with `let`, like the other locals.
    const dests = soacArrayDests(f.body);
    const arrayDecls = [...params.filter((p) => p.isArray), ...locals.filter((d) => d.size.kind === 'some')];
    const reused = (name: string) =>
      arrayDecls.filter((d) => d.name === name).length > 1 || dests.includes(name);
    for (const d of locals) {
      if (d.size.kind === 'some') {
        const init = `new ${typedArrayCtor(d.ty)}(${d.size.value})`;
        const decl = this.arrays.has(d.name) ? '' : reused(d.name) ? 'let ' : 'const ';
        this.arrays.add(d.name);
        this.line(1, `${decl}${this.jsArray(d.name)} = ${init};`);
      } else {
        // Locals start at 0: reading one before assigning it is undefined behaviour.
        const decl = this.scalars.has(d.name) ? '' : 'let ';
        this.scalars.add(d.name);
        this.line(1, `${decl}${this.jsScalar(d.name)} = 0;`);
      }
    }
    for (const name of dests) {
      if (this.arrays.has(name)) continue;
      this.arrays.add(name);
      this.line(1, `let ${this.jsArray(name)};`);
    }
    this.cmd(f.body, 1);
    if (f.ret !== 'void' && !alwaysReturns(f.body))
      this.line(1, this.fail(f.lbl, `function '${f.name}' reached its end without returning a value`));
    this.out.push('}');
    return this.callees;
  }

  /** One step of the run's budget (`DEFAULT_FUEL` as the evaluator's; the evaluator counts more). */
  private tick(lbl: number, depth: number): void {
    this.ctx.ticks = true;
    const detail = `step budget of ${this.ctx.fuel} exceeded (the kernel may not terminate)`;
    this.line(depth, `if (--$fuel < 0) ${this.fail(lbl, detail)}`);
  }

  private line(depth: number, text: string): void {
    this.out.push('  '.repeat(depth) + text);
  }

  // ---- commands ----

  private cmd(c: Cmd, depth: number): void {
    switch (c.kind) {
      case 'seq':
        this.cmd(c.first, depth);
        this.cmd(c.second, depth);
        return;
      case 'skip':
        return;
      case 'assign':
        this.scalar(c.name);
        this.line(depth, `${this.jsScalar(c.name)} = ${bare(this.value(c.rhs))};`);
        return;
      case 'store': {
        // The evaluator evaluates the index, then the value, then checks the bounds.
        this.array(c.array);
        const arr = this.jsArray(c.array);
        const idx = bare(this.value(c.index));
        const rhs = bare(this.value(c.rhs));
        const oob = (i: string): string =>
          `if ((${i} >>> 0) >= ${arr}.length) ${this.helper('$oob')}(${c.index.lbl}, ${JSON.stringify(c.array)}, ${arr}, ${i});`;
        if (hasCall(c.index) || mayFail(c.rhs)) {
          const scope = this.names.scope();
          const i = scope.fresh('index');
          const v = scope.fresh('value');
          this.line(depth, `{`);
          this.line(depth + 1, `const ${i} = ${idx};`);
          this.line(depth + 1, `const ${v} = ${rhs};`);
          this.line(depth + 1, oob(i));
          this.line(depth + 1, `${arr}[${i}] = ${v};`);
          this.line(depth, '}');
        } else {
          this.line(depth, oob(idx));
          this.line(depth, `${arr}[${idx}] = ${rhs};`);
        }
        return;
      }
      case 'if': {
        this.line(depth, `if (${bare(this.cond(c.cond))}) {`);
        let next: Cmd = c;
        // else-if chains stay flat: `} else if (…) {`
        while (next.kind === 'if') {
          this.cmd(next.thenCmd, depth + 1);
          const e: Cmd = next.elseCmd;
          if (e.kind === 'if') {
            this.line(depth, `} else if (${bare(this.cond(e.cond))}) {`);
          } else if (e.kind !== 'skip') {
            this.line(depth, '} else {');
            this.cmd(e, depth + 1);
          }
          next = e;
        }
        this.line(depth, '}');
        return;
      }
      case 'while':
        this.line(depth, `while (${bare(this.cond(c.cond))}) {`);
        this.tick(c.lbl, depth + 1);
        this.cmd(c.body, depth + 1);
        this.line(depth, '}');
        return;
      case 'return': {
        const v = c.value.kind === 'some' ? c.value.value : undefined;
        if (v?.kind === 'arrayRef') {
          if (!this.fun.ret.endsWith('[]'))
            internal(`'${this.fun.name}' returns an array but is not declared so`);
          // The array itself: nothing can write it any more (`run` copies it into the result).
          this.line(depth, `return ${this.arrayJs(v.name)};`);
        } else {
          this.line(depth, v ? `return ${bare(this.value(v))};` : 'return;');
        }
        return;
      }
      case 'callCmd':
        this.line(depth, `${this.call(c.name, listToArray(c.args))};`);
        return;
      case 'soac':
        if (this.launch) this.launchCall(c, [c], depth);
        else this.loop([c], depth);
        return;
      case 'hfused': {
        const members = listToArray(c.members);
        if (members.length === 0) internal('a fused loop without members');
        if (this.launch) this.launchCall(c, members, depth);
        else this.loop(members, depth);
        return;
      }
      default:
        assertNever(c);
    }
  }

  // ---- combinators ----

  /** A host driver's `[dests] = await $gpu(site, [arrays], [scalars]);` for a combinator or group. */
  private launchCall(c: Soac | Hfused, members: readonly Soac[], depth: number): void {
    const call = (this.launch as (c: Soac | Hfused) => LaunchCall)(c);
    for (const s of members) this.line(depth, `// ${commentText(soacText(s), LONG)}`);
    const dests = call.dests.map((d) => (d.isArray ? this.arrayJs(d.name) : this.scalarJs(d.name)));
    const arrays = call.arrays.map((a) => this.arrayJs(a));
    const scalars = call.scalars.map((e) => bare(this.value(e)));
    this.line(
      depth,
      `[${dests.join(', ')}] = await $gpu(${call.index}, [${arrays.join(', ')}], [${scalars.join(', ')}]);`,
    );
  }

  /**
   * One loop running `members` (one soac, or the members of an hfused group) at each index i, in
   * order. The evaluator runs the members one after the other; that is the same because they are
   * independent (none reads another's result, checked here) and lambdas write no arrays.
   *
   *   // ys = map(sq, xs)
   *   a_ys = new Float32Array(a_xs.length);
   *   for (let i = 0; i < a_xs.length; i++) a_ys[i] = f_sq(a_xs[i]);
   *
   * Before the loop, the evaluator's run-time errors that do not come from undefined behaviour are
   * raised as `Error`s: an iota of a negative length, mapped arguments of different lengths (else
   * the loop would read `undefined` past an end), and, in a fused loop, members of different lengths.
   */
  private loop(members: readonly Soac[], depth: number): void {
    // The loop's block: its temporaries, the loop index `i` and the lambdas' bindings.
    const scope = this.names.scope();
    scope.reserve('i');
    const fresh = (base: string): string => scope.fresh(base);
    const infos = members.map((s) => ({ s, mapped: this.mappedArgs(s) }));
    this.checkIndependent(members);
    if (members.length === 1) {
      this.line(depth, `// ${commentText(soacText(members[0] as Soac), LONG)}`);
    } else {
      this.line(depth, '// one fused loop for:');
      for (const s of members) this.line(depth, `//   ${commentText(soacText(s), LONG)}`);
    }

    this.loopChecks(infos, depth);
    const lead = infos[0] as (typeof infos)[number];

    // A scalar the loop accumulates into but also reads (as an iota length or a scalar argument) is
    // read once, before the accumulation starts, as the evaluator reads its arguments.
    const written = new Set(members.filter((s) => SCALAR_OPS.has(s.op)).map((s) => s.dest));
    const before: string[] = [];
    const saved = new Map<string, string>();
    for (const s of members) {
      for (const a of listToArray(s.args)) {
        const e = a.kind === 'argIota' ? a.len : a.kind === 'argScalar' ? a.value : undefined;
        if (e?.kind !== 'var' || !written.has(e.name) || saved.has(e.name)) continue;
        const name = fresh(`old_${e.name}`);
        saved.set(e.name, name);
        before.push(`const ${name} = ${this.scalarJs(e.name)};`);
      }
    }
    const read = (e: Expr): string => {
      const old = e.kind === 'var' ? saved.get(e.name) : undefined;
      return old ?? this.value(e);
    };

    const body: string[] = [];
    const after: string[] = [];
    for (const { s, mapped } of infos) {
      const len = bare((mapped[0] as Mapped).len(read));
      const folds = FOLD_OPS.has(s.op);
      let acc = '';
      if (ARRAY_OPS.has(s.op) && s.op !== 'filter') {
        before.push(`${this.arrayJs(s.dest)} = new ${typedArrayCtor(s.ty)}(${len});`);
      }
      if (folds) {
        if (s.ne.kind !== 'some') internal(`'${s.op}' into '${s.dest}' has no neutral element`);
        const ne = bare(read(s.ne.value));
        if (SCALAR_OPS.has(s.op)) {
          acc = this.scalarJs(s.dest);
          before.push(`${acc} = ${ne};`);
        } else {
          acc = fresh('acc');
          before.push(`let ${acc} = ${ne};`);
        }
      }
      const actuals: Actual[] = folds ? [{ js: acc, isArray: false }] : [];
      const params = listToArray(s.fn.params).slice(folds ? 1 : 0);
      listToArray(s.args).forEach((a, j) => {
        const p = params[j] as Param;
        if (a.kind === 'argArray') {
          const arr = this.arrayJs(a.name);
          actuals.push(p.isArray ? { js: arr, isArray: true } : { js: `${arr}[i]`, isArray: false });
        } else {
          actuals.push({ js: a.kind === 'argIota' ? 'i' : bare(read(a.value)), isArray: false });
        }
      });
      const isFilter = s.op === 'filter';
      const app = this.applyLam(s.fn, actuals, fresh, isFilter);
      body.push(...app.lines);
      const dest = ARRAY_OPS.has(s.op) ? this.arrayJs(s.dest) : acc;
      switch (s.op) {
        case 'map':
          body.push(`${dest}[i] = ${bare(app.result)};`);
          break;
        case 'reduce':
        case 'redomap':
          body.push(`${acc} = ${bare(app.result)};`);
          break;
        case 'scan':
        case 'scanomap':
          body.push(`${acc} = ${bare(app.result)};`, `${dest}[i] = ${acc};`);
          break;
        case 'filter': {
          const kept = fresh('kept');
          const k = fresh('k');
          before.push(`const ${kept} = new ${typedArrayCtor(s.ty)}(${len});`, `let ${k} = 0;`);
          body.push(`if (${bare(app.result)}) ${kept}[${k}++] = ${(mapped[0] as Mapped).elem};`);
          after.push(`${dest} = ${kept}.subarray(0, ${k});`);
          break;
        }
        default:
          internal(`unknown combinator '${s.op}'`);
      }
    }

    // Temporaries declared before the loop get a block of their own.
    const block = before.some((l) => /^(const|let) /.test(l));
    const d = block ? depth + 1 : depth;
    if (block) this.line(depth, '{');
    for (const l of before) this.line(d, l);
    const len = bare((lead.mapped[0] as Mapped).len(read));
    const header = `for (let i = ${this.simdStart(members, read, len, d)}; i < ${len}; i++)`;
    if (body.length === 1) {
      this.line(d, `${header} ${body[0]}`);
    } else {
      this.line(d, `${header} {`);
      for (const l of body) this.line(d + 1, l);
      this.line(d, '}');
    }
    for (const l of after) this.line(d, l);
    if (block) this.line(depth, '}');
  }

  /**
   * Where a map's JS loop starts: 0, or for a straight-line map (simd.ts) the count of elements
   * `$simd` computed in WebAssembly, the loop then computing the rest.
   */
  private simdStart(members: readonly Soac[], read: (e: Expr) => string, n: string, depth: number): string {
    const s = members[0] as Soac;
    if (members.length !== 1 || !this.ctx.simd || this.ctx.tracksDepth) return '0';
    const plan = simdMap(s, this.ctx.funs);
    if (plan === undefined) return '0';
    const site = this.ctx.simdSites.length;
    this.ctx.simdSites.push({ wasm: plan.wasm, map: soacText(s) });
    const args = listToArray(s.args);
    const ins: string[] = [];
    const arrs: string[] = [];
    const scalars: string[] = [];
    plan.operands.forEach((o, j) => {
      const a = args[j] as SoacArg;
      if (o.kind === 'mapped' && a.kind === 'argArray') ins[o.index] = this.arrayJs(a.name);
      else if (o.kind === 'broadcast' && a.kind === 'argArray') arrs[o.index] = this.arrayJs(a.name);
      else if (o.kind === 'scalar' && a.kind === 'argScalar') scalars[o.index] = bare(read(a.value));
    });
    this.line(depth, '// four elements at a time in WebAssembly SIMD, the rest (or all, without it) in JS');
    const lists = [ins, arrs, scalars].map((l) => `[${l.join(', ')}]`).join(', ');
    return `$simd(${site}, ${this.arrayJs(s.dest)}, ${lists}, ${n})`;
  }

  /**
   * The run-time checks before a loop, in the evaluator's order: negative iotas, then each mapped
   * length against its combinator's first, then each fused member's length against the first
   * member's. A test already made, or of a length against itself, is left out.
   */
  private loopChecks(infos: readonly { s: Soac; mapped: Mapped[] }[], depth: number): void {
    const plain = (e: Expr): string => this.value(e);
    const tested = new Set<string>();
    const check = (failed: string, message: string): void => {
      if (tested.has(failed)) return;
      tested.add(failed);
      this.check(depth, failed, message);
    };
    for (const { s, mapped } of infos) {
      const name = soacKind(s);
      for (const m of mapped) {
        if (m.arg.kind !== 'argIota') continue;
        const len = m.len(plain);
        if (m.arg.len.kind === 'intLit' && m.arg.len.value >= 0) continue;
        const what = name === 'iota' ? "'iota'" : `'${name}' over iota`;
        check(`${bare(len)} < 0`, `${what} of a negative length (${shown(len)})`);
      }
      const [first, ...rest] = mapped as [Mapped, ...Mapped[]];
      for (const m of rest) {
        const n0 = first.len(plain);
        const n = m.len(plain);
        if (n === n0) continue;
        check(
          `${n} !== ${n0}`,
          `'${name}' goes over ${first.what} of length ${shown(n0)} and ${m.what} of length ${shown(n)}: lengths differ`,
        );
      }
    }
    const lead = infos[0] as (typeof infos)[number];
    for (const { s, mapped } of infos.slice(1)) {
      const n0 = (lead.mapped[0] as Mapped).len(plain);
      const n = (mapped[0] as Mapped).len(plain);
      if (n === n0) continue;
      check(
        `${n} !== ${n0}`,
        `fused loop: '${soacKind(lead.s)}' into '${lead.s.dest}' goes over length ${shown(n0)} and '${soacKind(s)}' into '${s.dest}' over length ${shown(n)}`,
      );
    }
  }

  /** `if (failed) { throw new Error(`message`); }`; `message` is a template literal's text. */
  private check(depth: number, failed: string, message: string): void {
    this.line(depth, `if (${failed}) {`);
    this.line(depth + 1, `throw new Error(\`${message}\`);`);
    this.line(depth, '}');
  }

  /** The mapped arguments of `s` (at least one; exactly one for a filter), checking its shape. */
  private mappedArgs(s: Soac): Mapped[] {
    if (!ARRAY_OPS.has(s.op) && !FOLD_OPS.has(s.op)) internal(`unknown combinator '${s.op}'`);
    if (ARRAY_OPS.has(s.op)) this.array(s.dest);
    else this.scalar(s.dest);
    const params = listToArray(s.fn.params).slice(FOLD_OPS.has(s.op) ? 1 : 0);
    const args = listToArray(s.args);
    if (params.length !== args.length || (FOLD_OPS.has(s.op) && s.fn.params.kind === 'nil')) {
      internal(`'${s.op}' into '${s.dest}' does not match its lambda's parameters`);
    }
    const mapped: Mapped[] = [];
    args.forEach((a, j) => {
      const p = params[j] as Param;
      if (p.isArray && a.kind !== 'argArray')
        internal(`'${s.op}' into '${s.dest}' passes a scalar for array parameter '${p.name}'`);
      if (a.kind === 'argArray') {
        this.array(a.name);
        if (p.isArray) return;
        const arr = this.jsArray(a.name);
        mapped.push({ what: `'${a.name}'`, arg: a, len: () => `${arr}.length`, elem: `${arr}[i]` });
      } else if (a.kind === 'argIota') {
        mapped.push({ what: 'iota', arg: a, len: (read) => read(a.len), elem: 'i' });
      }
    });
    if (mapped.length === 0) internal(`'${s.op}' into '${s.dest}' has no mapped argument`);
    if (s.op === 'filter' && mapped.length !== 1)
      internal(`'filter' into '${s.dest}' has ${mapped.length} mapped arguments`);
    return mapped;
  }

  /**
   * The invariants that let a loop write its results while it runs (ast.ts): an array result is
   * fresh (no member reads it), and no member reads or writes another member's result.
   */
  private checkIndependent(members: readonly Soac[]): void {
    const reads = (s: Soac): string[] => {
      const names: string[] = [];
      const atom = (e: Expr): void => {
        if (e.kind === 'var') names.push(e.name);
      };
      for (const a of listToArray(s.args)) {
        if (a.kind === 'argArray') names.push(a.name);
        else atom(a.kind === 'argIota' ? a.len : a.value);
      }
      if (s.ne.kind === 'some') atom(s.ne.value);
      return names;
    };
    members.forEach((s, j) => {
      const r = reads(s);
      if (ARRAY_OPS.has(s.op) && r.includes(s.dest))
        internal(`'${s.op}' reads '${s.dest}', the array it makes`);
      members.forEach((t, k) => {
        if (k !== j && (t.dest === s.dest || r.includes(t.dest)))
          internal(`fused '${s.op}' into '${s.dest}' depends on '${t.op}' into '${t.dest}'`);
      });
    });
  }

  /**
   * The lambda applied to `actuals`: `const` lines for its bindings (and for parameters bound to an
   * array element when there are bindings to read them), and its result, as a value or, for
   * `asCond`, as a JS condition. Other parameters are replaced by what they are bound to.
   */
  private applyLam(
    lam: Lam,
    actuals: readonly Actual[],
    fresh: (base: string) => string,
    asCond: boolean,
  ): { lines: string[]; result: string } {
    const params = listToArray(lam.params);
    if (params.length !== actuals.length)
      internal(`a lambda of ${params.length} parameter(s) is given ${actuals.length}`);
    const scope = new Map<string, { readonly js: string; readonly isArray: boolean }>();
    const lines: string[] = [];
    const hasBinds = lam.binds.kind !== 'nil';
    params.forEach((p, j) => {
      const a = actuals[j] as Actual;
      if (p.isArray !== a.isArray) internal(`lambda parameter '${p.name}' is given the wrong kind of value`);
      if (p.isArray || !hasBinds || isSimple(a.js)) {
        scope.set(p.name, a);
      } else {
        const name = fresh(`l_${p.name}`);
        lines.push(`const ${name} = ${a.js};`);
        scope.set(p.name, { js: name, isArray: false });
      }
    });
    const outer = this.lamScope;
    this.lamScope = scope;
    try {
      for (const b of listToArray(lam.binds)) {
        const rhs = bare(this.value(b.rhs));
        const name = fresh(`l_${b.name}`);
        lines.push(`const ${name} = ${rhs};`);
        scope.set(b.name, { js: name, isArray: false });
      }
      return { lines, result: asCond ? this.cond(lam.result) : this.value(lam.result) };
    } finally {
      this.lamScope = outer;
    }
  }

  // ---- expressions ----

  /** `e` as a JS number, bit for bit the evaluator's value (expr-core.ts's dispatch). */
  private value(e: Expr): string {
    return exprValue(e, this.writer);
  }

  /** `e` as a JS boolean: whether the evaluator's value of `e` is not 0. */
  private cond(e: Expr): string {
    return truthTest(e, this.writer);
  }

  /** The JS of each construct of an expression (expr-core.ts; the file comment has the table). */
  private readonly writer: ExprWriter = {
    value: (e) => this.value(e),
    cond: (e) => this.cond(e),
    variable: (e) => this.scalarJs(e.name),
    literal: (e) => (e.kind === 'boolLit' ? (e.value ? '1' : '0') : numberLiteral(e.value)),
    fromBool: (test) => `(${test} ? 1 : 0)`,
    arith: (e, l, r) => this.arith(e, l, r),
    // -x | 0 wraps -INT_MIN to INT_MIN; float negation is exact, so no fround.
    negate: (e, arg) => (e.ty === 'float' ? `(-${arg})` : `(-${arg} | 0)`),
    load: (e, index) => this.load(e, index),
    call: (e) => {
      const b = builtin(e.name);
      // C's math function: the same operations as the evaluator's (kernel/builtins.ts)
      if (b)
        return b.js(
          listToArray(e.args).map((a) => bare(this.value(a))),
          (h) => this.helper(h),
        );
      const callee = this.funs.get(e.name);
      if (callee?.ret === 'void') internal(`void function '${e.name}' used as a value`);
      if (callee?.ret.endsWith('[]')) internal(`array-returning function '${e.name}' used as a value`);
      return this.call(e.name, listToArray(e.args));
    },
    // bool 0/1 are binary32 values already.
    toFloat: (e, arg) => (exprType(e.arg) === 'bool' ? arg : `Math.fround(${bare(arg)})`),
    // float→int: truncation, when it fits (else the evaluator's error).
    floatToInt: (e, arg) => `${this.helper('$toInt')}(${bare(arg)}, ${e.lbl})`,
    ternary: (e) =>
      selectsWithoutBranch(e)
        ? `${this.helper('$sel')}(${bare(this.cond(e.cond))}, ${bare(this.value(e.thenExpr))}, ${bare(this.value(e.elseExpr))})`
        : `(${this.cond(e.cond)} ? ${this.value(e.thenExpr)} : ${this.value(e.elseExpr)})`,
    comparison: (op) => COMPARISONS.get(op) ?? internal(`comparison '${op}'`),
    logical: (e) => `(${this.cond(e.left)} ${e.op} ${this.cond(e.right)})`,
    zero: () => '0',
  };

  /** `e.array[index]`; out of bounds, a typed array gives undefined: the evaluator's error instead. */
  private load(e: Load, index: string): string {
    const arr = this.arrayJs(e.array);
    const idx = bare(index);
    const name = JSON.stringify(e.array);
    if (hasCall(e.index)) return `${this.helper('$load')}(${arr}, ${idx}, ${e.index.lbl}, ${name})`;
    return `(${arr}[${idx}] ?? ${this.helper('$oob')}(${e.index.lbl}, ${name}, ${arr}, ${idx}))`;
  }

  /** An arithmetic or bitwise `e` of the JS operands `l` and `r`, as the evaluator computes it. */
  private arith(e: Binary, l: string, r: string): string {
    const { op, right } = e;
    // As the evaluator: float arithmetic when `ty` is float, int arithmetic otherwise.
    if (e.ty === 'float') {
      if (op === '+' || op === '-' || op === '*' || op === '/') return `Math.fround(${l} ${op} ${r})`;
      return internal(`float operator '${op}'`);
    }
    switch (op) {
      case '+':
      case '-':
        return `((${l} ${op} ${r}) | 0)`;
      case '/':
      case '%':
        // | 0 truncates and wraps; a divisor that may be 0 or -1 (INT_MIN / -1) is checked.
        if (right.kind === 'intLit' && right.value !== 0 && right.value !== -1)
          return `((${l} ${op} ${r}) | 0)`;
        return `${this.helper(op === '/' ? '$div' : '$rem')}(${bare(l)}, ${bare(r)}, ${e.lbl})`;
      case '*':
        return `Math.imul(${bare(l)}, ${bare(r)})`;
      case '&':
      case '|':
      case '^':
        return `(${l} ${op} ${r})`;
      case '<<':
      case '>>':
        // In 0..31 JS and C shifts agree; a count that may be outside is checked.
        if (right.kind === 'intLit' && right.value >= 0 && right.value <= 31) return `(${l} ${op} ${r})`;
        return `${this.helper(op === '<<' ? '$shl' : '$shr')}(${bare(l)}, ${bare(r)}, ${e.lbl})`;
      default:
        return internal(`int operator '${op}'`);
    }
  }

  private call(name: string, args: readonly Expr[]): string {
    const callee = this.funs.get(name);
    if (!callee) return internal(`unknown function '${name}'`);
    const params = listToArray(callee.params);
    if (params.length !== args.length)
      internal(`'${name}' takes ${params.length} argument(s), ${args.length} given`);
    const js = args.map((a, i) => {
      const p = params[i] as Param;
      if (p.isArray !== (a.kind === 'arrayRef'))
        internal(`argument ${i + 1} of '${name}' does not match parameter '${p.name}'`);
      if (a.kind === 'arrayRef') return this.arrayJs(a.name);
      return bare(this.value(a));
    });
    this.callees.add(callee);
    if (this.ctx.tracksDepth) js.push('$d + 1');
    return `${this.ctx.funName(name)}(${js.join(', ')})`;
  }

  private scalar(name: string): void {
    if (!this.scalars.has(name)) internal(`unknown variable '${name}' in '${this.fun.name}'`);
  }

  private array(name: string): void {
    if (!this.arrays.has(name)) internal(`unknown array '${name}' in '${this.fun.name}'`);
  }

  /** The JS for reading scalar `name`: the function's variable, or inside a lambda its own name. */
  private scalarJs(name: string): string {
    if (!this.lamScope) {
      this.scalar(name);
      return this.jsScalar(name);
    }
    const b = this.lamScope.get(name);
    if (!b || b.isArray)
      return internal(`a lambda in '${this.fun.name}' reads '${name}', not its own scalar`);
    return b.js;
  }

  /** The JS for array `name`: the function's array, or inside a lambda the array a parameter is bound to. */
  private arrayJs(name: string): string {
    if (!this.lamScope) {
      this.array(name);
      return this.jsArray(name);
    }
    const b = this.lamScope.get(name);
    if (!b?.isArray) return internal(`a lambda in '${this.fun.name}' reads '${name}', not its own array`);
    return b.js;
  }
}
