/**
 * The JavaScript back end for kernel functions: a kernel program (the elaborated C subset of
 * `src/kernel/ast.ts`) becomes JavaScript source, compiled once with `new Function`, that computes
 * exactly what the reference evaluator (`evaluate`, `src/kernel/eval.ts`) computes — only faster.
 *
 * Algorithm. One JavaScript function per kernel function reachable from the entry (a worklist fed
 * by the calls met while emitting), all in one strict-mode body that returns the entry. Commands map
 * to statements one for one (`seq` ⇒ a statement list, `while` ⇒ `while`, an `if` whose else is an
 * `if` ⇒ `else if`, `return` ⇒ `return`, calls ⇒ calls); every local is declared at the top of its
 * function, as the front end hoisted it. Expressions are emitted in two modes:
 * - *value* mode gives a JS number, using the very operations the evaluator uses, so each value is
 *   bit for bit the evaluator's: int `+ -` ⇒ `(a + b) | 0`, `*` ⇒ `Math.imul`, `/ %` ⇒
 *   `(a / b) | 0`, `(a % b) | 0`, unary `-` ⇒ `-a | 0`; float `+ - * /` ⇒ `Math.fround(a op b)`,
 *   unary `-` ⇒ `-a`; int→float ⇒ `Math.fround`, float→int ⇒ `a | 0` (truncation, as `Math.trunc`
 *   on the in-range values a defined run converts), →bool ⇒ `!== 0`; comparisons and `! && ||` ⇒
 *   `(cond ? 1 : 0)`;
 * - *condition* mode gives a JS boolean, for `if`/`while`/`?:` tests and the operands of `! && ||`:
 *   a comparison stays a JS comparison (`==` ⇒ `===`, which like C is false for NaN and true for
 *   -0 == 0), `&&`/`||`/`!` stay JS's short-circuit operators, a conversion to bool is dropped, and
 *   anything else is tested `x !== 0` — never JS truthiness, since NaN is a true C condition.
 * JS evaluates operands, call arguments and `a[i] = v` (array, index, value) left to right, as
 * the evaluator does, so calls that write arrays inside expressions have the same effects.
 *
 * Storage. Scalars are JS locals (`v_` + the C name); arrays are typed arrays (`a_` + the C name):
 * Int32Array for int, Float32Array for float, Uint8Array for bool, which hold every value of their
 * C type exactly (binary32 values are stored unchanged, -0 and NaN included, and NaN compares as
 * NaN whatever its payload). Array parameters are passed by reference, as in the evaluator; `run`
 * copies each argument array into a fresh typed array first and returns the non-const array
 * parameters as `outputs`. Functions are `f_` + the C name; the prefixes keep every name clear of
 * JavaScript's reserved words and of the globals the code uses (`Math`, typed array constructors).
 *
 * Invariants and assumptions.
 * - The program is well-formed, as `parseKernel` produces and the optimizers preserve: every name
 *   resolves, calls match their callee's parameters, operand types agree (`ast.ts`). Violations are
 *   reported at compile time as internal errors, never turned into code.
 * - Like gcc -O, the code assumes the run has no undefined behaviour and runs without fuel or
 *   call-depth limits: no bounds, division, shift, conversion or initialization checks. On every
 *   run the evaluator accepts (it rejects all undefined behaviour and long runs) the result and
 *   outputs are identical (floats compared with `Object.is`) and the code terminates; on runs it
 *   rejects the code may return anything, throw, or (say, for a loop reading past an array's end)
 *   not terminate. Locals start at 0 because reading them before assignment is such a run.
 * - Arguments are checked and converted exactly as `evaluate` does, with its `KernelArgumentError`
 *   messages. One difference, below C's level: an int argument given as JS `-0` (no C int) stays
 *   `-0` in a scalar, as in the evaluator, but becomes `+0` once stored in an Int32Array, where the
 *   evaluator's plain array would keep it.
 */
import {
  type ArgValue,
  assertNever,
  type Binary,
  coerceArg,
  type Cmd,
  type Expr,
  exprType,
  type Fun,
  KernelArgumentError,
  listToArray,
  orderArgs,
  type Param,
  type Program,
} from '../kernel/index.js';

/** A kernel function compiled to JavaScript. */
export interface CompiledKernel {
  /** The JavaScript source (a function body returning the entry), as `emitKernelJs` gives it. */
  readonly source: string;
  /**
   * Runs the function on `args` (by parameter position or by name), checked and converted as
   * `evaluate` does; returns the result (`undefined` for void) and the non-const array parameters.
   */
  run(args: readonly ArgValue[] | Readonly<Record<string, ArgValue>>): {
    result: number | undefined;
    outputs: Record<string, number[]>;
  };
}

/** The readable JavaScript source for `fnName` and every function it reaches. */
export function emitKernelJs(program: Program, fnName: string): string {
  return emitProgram(program, entryFun(program, fnName));
}

/** Compiles `fnName` of `program` (and every function it reaches) to a JavaScript function. */
export function compileKernelJs(program: Program, fnName: string): CompiledKernel {
  const fun = entryFun(program, fnName);
  const params = listToArray(fun.params);
  const makers = params.map((p) => (p.isArray ? typedArrayMaker(p.ty) : undefined));
  const source = emitProgram(program, fun);
  const entry = new Function(source)() as (...actuals: unknown[]) => number | undefined;
  return {
    source,
    run(args) {
      const ordered = orderArgs(fnName, params, args);
      const actuals: (number | TypedArray)[] = params.map((p, i) => {
        const v = ordered[i] as ArgValue;
        if (!p.isArray) {
          if (Array.isArray(v)) throw new KernelArgumentError(`parameter '${p.name}' is a scalar ${p.ty}`);
          return coerceArg(v as number | boolean, p.ty, p.name);
        }
        if (!Array.isArray(v)) throw new KernelArgumentError(`parameter '${p.name}' is an array of ${p.ty}`);
        const xs = v as readonly (number | boolean)[];
        const arr = (makers[i] as TypedArrayMaker)(xs.length);
        // forEach, like the evaluator's map, skips holes (which then read as 0 in outputs).
        xs.forEach((x, j) => {
          arr[j] = coerceArg(x, p.ty, `${p.name}[${j}]`);
        });
        return arr;
      });
      const result = entry(...actuals);
      const outputs: Record<string, number[]> = {};
      params.forEach((p, i) => {
        if (p.isArray && !p.isConst) outputs[p.name] = Array.from(actuals[i] as TypedArray);
      });
      return { result, outputs };
    },
  };
}

// ---- arguments (checked and converted by the evaluator's own `orderArgs` / `coerceArg`) --------

type TypedArray = Int32Array | Float32Array | Uint8Array;
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

const C_IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

function ident(prefix: string, name: string): string {
  if (!C_IDENT.test(name)) internal(`'${name}' is not a C identifier`);
  return prefix + name;
}

/** `s` without one pair of parentheses around all of it (the emitted code has no strings to skip). */
function bare(s: string): string {
  if (!s.startsWith('(') || !s.endsWith(')')) return s;
  let depth = 0;
  for (let i = 0; i < s.length - 1; i++) {
    if (s[i] === '(') depth++;
    else if (s[i] === ')') depth--;
    if (depth === 0) return s; // the first '(' closes before the end: `(a) + (b)`
  }
  return s.slice(1, -1);
}

const jsFun = (name: string): string => ident('f_', name);
const jsScalar = (name: string): string => ident('v_', name);
const jsArray = (name: string): string => ident('a_', name);

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
  return `${f.ret} ${f.name}(${params.join(', ')})`;
}

function emitProgram(program: Program, entry: Fun): string {
  const funs = new Map<string, Fun>();
  for (const f of listToArray(program)) if (!funs.has(f.name)) funs.set(f.name, f);
  const out: string[] = ['"use strict";'];
  const emitted = new Set<string>([entry.name]);
  const work: Fun[] = [entry];
  for (let f = work.shift(); f; f = work.shift()) {
    const callees = new FunEmitter(f, funs, out).emit();
    for (const c of callees) {
      if (emitted.has(c.name)) continue;
      emitted.add(c.name);
      work.push(c);
    }
  }
  out.push('', `return ${jsFun(entry.name)};`, '');
  return out.join('\n');
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

  constructor(
    private readonly fun: Fun,
    private readonly funs: ReadonlyMap<string, Fun>,
    private readonly out: string[],
  ) {}

  emit(): ReadonlySet<Fun> {
    const f = this.fun;
    const params = listToArray(f.params);
    const locals = listToArray(f.locals);
    for (const p of params) (p.isArray ? this.arrays : this.scalars).add(p.name);
    const jsParams = params.map((p) => (p.isArray ? jsArray(p.name) : jsScalar(p.name)));
    this.out.push('', `// ${signature(f)}`, `function ${jsFun(f.name)}(${jsParams.join(', ')}) {`);
    // A name declared twice (never by the front end) is one JS binding, reset at each declaration as
    // the evaluator resets it; only then does a local array need `let`.
    const arrayDecls = [...params.filter((p) => p.isArray), ...locals.filter((d) => d.size.kind === 'some')];
    const reused = (name: string) => arrayDecls.filter((d) => d.name === name).length > 1;
    for (const d of locals) {
      if (d.size.kind === 'some') {
        const init = `new ${typedArrayCtor(d.ty)}(${d.size.value})`;
        const decl = this.arrays.has(d.name) ? '' : reused(d.name) ? 'let ' : 'const ';
        this.arrays.add(d.name);
        this.line(1, `${decl}${jsArray(d.name)} = ${init};`);
      } else {
        // Locals start at 0: reading one before assigning it is undefined behaviour.
        const decl = this.scalars.has(d.name) ? '' : 'let ';
        this.scalars.add(d.name);
        this.line(1, `${decl}${jsScalar(d.name)} = 0;`);
      }
    }
    this.cmd(f.body, 1);
    this.out.push('}');
    return this.callees;
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
        this.line(depth, `${jsScalar(c.name)} = ${bare(this.value(c.rhs))};`);
        return;
      case 'store':
        this.array(c.array);
        this.line(depth, `${jsArray(c.array)}[${bare(this.value(c.index))}] = ${bare(this.value(c.rhs))};`);
        return;
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
        this.cmd(c.body, depth + 1);
        this.line(depth, '}');
        return;
      case 'return':
        this.line(depth, c.value.kind === 'some' ? `return ${bare(this.value(c.value.value))};` : 'return;');
        return;
      case 'callCmd':
        this.line(depth, `${this.call(c.name, listToArray(c.args))};`);
        return;
      default:
        assertNever(c);
    }
  }

  // ---- expressions ----

  /** `e` as a JS number, bit for bit the evaluator's value. */
  private value(e: Expr): string {
    switch (e.kind) {
      case 'var':
        this.scalar(e.name);
        return jsScalar(e.name);
      case 'intLit':
      case 'floatLit':
        return numberLiteral(e.value);
      case 'boolLit':
        return e.value ? '1' : '0';
      case 'binary':
        return this.binary(e);
      case 'unary': {
        switch (e.op) {
          case '-':
            // -x | 0 wraps -INT_MIN to INT_MIN; float negation is exact, so no fround.
            return e.ty === 'float' ? `(-${this.value(e.arg)})` : `(-${this.value(e.arg)} | 0)`;
          case '~':
            return `(~${this.value(e.arg)})`;
          case '!':
            return `(${this.cond(e)} ? 1 : 0)`;
          default:
            return internal(`unknown unary operator '${e.op}'`);
        }
      }
      case 'load':
        this.array(e.array);
        return `${jsArray(e.array)}[${bare(this.value(e.index))}]`;
      case 'call': {
        const callee = this.funs.get(e.name);
        if (callee?.ret === 'void') internal(`void function '${e.name}' used as a value`);
        return this.call(e.name, listToArray(e.args));
      }
      case 'cast':
        return this.convert(e.arg, e.ty);
      case 'ternary':
        return `(${this.cond(e.cond)} ? ${this.value(e.thenExpr)} : ${this.value(e.elseExpr)})`;
      case 'arrayRef':
        return internal(`array '${e.name}' used as a value`);
      default:
        return assertNever(e);
    }
  }

  /** `e` as a JS boolean: whether the evaluator's value of `e` is not 0. */
  private cond(e: Expr): string {
    switch (e.kind) {
      case 'boolLit':
        return e.value ? 'true' : 'false';
      case 'binary': {
        const jsOp = COMPARISONS.get(e.op);
        if (jsOp !== undefined) return `(${this.value(e.left)} ${jsOp} ${this.value(e.right)})`;
        if (e.op === '&&' || e.op === '||') return `(${this.cond(e.left)} ${e.op} ${this.cond(e.right)})`;
        return `(${this.value(e)} !== 0)`;
      }
      case 'unary':
        return e.op === '!' ? `!${this.cond(e.arg)}` : `(${this.value(e)} !== 0)`;
      case 'cast':
        // (bool)x is x != 0, so testing it is testing x.
        return e.ty === 'bool' ? this.cond(e.arg) : `(${this.value(e)} !== 0)`;
      case 'var':
      case 'intLit':
      case 'floatLit':
      case 'load':
      case 'call':
      case 'ternary':
      case 'arrayRef':
        return `(${this.value(e)} !== 0)`;
      default:
        return assertNever(e);
    }
  }

  private binary(e: Binary): string {
    const { op, left, right } = e;
    if (op === '&&' || op === '||' || COMPARISONS.has(op)) return `(${this.cond(e)} ? 1 : 0)`;
    const l = this.value(left);
    const r = this.value(right);
    // As the evaluator: float arithmetic when `ty` is float, int arithmetic otherwise.
    if (e.ty === 'float') {
      if (op === '+' || op === '-' || op === '*' || op === '/') return `Math.fround(${l} ${op} ${r})`;
      return internal(`float operator '${op}'`);
    }
    switch (op) {
      case '+':
      case '-':
      case '/':
      case '%':
        // No UB: / and % have a nonzero divisor and no INT_MIN / -1; | 0 truncates and wraps.
        return `((${l} ${op} ${r}) | 0)`;
      case '*':
        return `Math.imul(${bare(l)}, ${bare(r)})`;
      case '&':
      case '|':
      case '^':
      case '<<':
      case '>>':
        // No UB: shift counts are in 0..31, where JS and C shifts agree.
        return `(${l} ${op} ${r})`;
      default:
        return internal(`int operator '${op}'`);
    }
  }

  /** The conversion of `arg` to `to`, as the evaluator's `convert`. */
  private convert(arg: Expr, to: string): string {
    const from = exprType(arg);
    if (from === to) return this.value(arg);
    switch (to) {
      case 'bool':
        return `(${this.cond(arg)} ? 1 : 0)`;
      case 'float':
        // bool 0/1 are binary32 values already.
        return from === 'bool' ? this.value(arg) : `Math.fround(${bare(this.value(arg))})`;
      case 'int':
        // float→int: a defined run converts only values whose truncation fits, where | 0 is Math.trunc.
        return from === 'float' ? `(${this.value(arg)} | 0)` : this.value(arg);
      default:
        return internal(`conversion to '${to}'`);
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
      if (a.kind === 'arrayRef') {
        this.array(a.name);
        return jsArray(a.name);
      }
      return bare(this.value(a));
    });
    this.callees.add(callee);
    return `${jsFun(name)}(${js.join(', ')})`;
  }

  private scalar(name: string): void {
    if (!this.scalars.has(name)) internal(`unknown variable '${name}' in '${this.fun.name}'`);
  }

  private array(name: string): void {
    if (!this.arrays.has(name)) internal(`unknown array '${name}' in '${this.fun.name}'`);
  }
}
