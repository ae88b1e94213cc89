/**
 * The WGSL back end: a host function's combinators become WebGPU compute shaders; its scalar code
 * stays on the CPU as a host driver (the JS back end's code with each combinator replaced by a
 * launch, `emitHostJs`). The result is a `GpuPlan` (plan.ts) that the runtime (webgpu.ts) runs.
 *
 * Algorithm. Every `soac` or `hfused` command of the host function is a *site*. Its arrays become
 * storage buffers, its scalar operands (iota lengths, scalar arguments, neutral elements) fields of
 * a uniform buffer — or WGSL `override` constants — unless they are literals, which are written
 * into the shader; the element count `n` and the chunk length are uniform fields too. Per kind:
 * - map (one map, or an `hfused` group of maps): one pass, a grid-stride loop over the elements (one
 *   invocation per element on a GPU; the runtime dispatches fewer workgroups on a software adapter,
 *   or beyond 65535); members' bodies run in order and each writes its output;
 * - reduce/redomap (or an `hfused` group of them): pass 1 gives each of G·W invocations (G
 *   workgroups of W) a contiguous chunk, folds it with the fold g from `ne`, then reduces the
 *   workgroup's W partial results with an order-preserving tree over the combine operator ⊕ (the
 *   lambda itself for reduce, `comb` for redomap); pass 2, one workgroup, reduces the G workgroup
 *   results the same way and writes the result;
 *   A fallback pass folds sequentially (see the invariants on `ne`);
 * - scan/scanomap (a work-efficient scan in three passes): pass 1 folds each invocation's chunk;
 *   pass 2, one workgroup, turns the G·W chunk totals into exclusive prefixes (each invocation folds
 *   G totals, a Blelloch up-sweep/down-sweep over the W sums in workgroup memory, then each writes
 *   its G prefixes); pass 3 refolds each chunk from its prefix and writes every element;
 * - filter: the same three passes over kept-element counts (count, exclusive offsets and the total,
 *   scatter), so kept elements keep their order; the runtime reads the total back as the length.
 * Lambdas are inlined in the kernel (a mapped parameter stands for the element, a broadcast array
 * for its storage buffer); the functions they call become WGSL functions, one copy per binding of
 * their array parameters to storage buffers (WGSL cannot pass a storage array to a function).
 *
 * Invariants and assumptions.
 * - Types: int is i32 (wrapping + - * and shifts, truncating / and %, as C where C is defined), float
 *   is f32, bool is i32 holding 0/1 (storage cannot hold WGSL bool). Conversions are explicit
 *   (`f32(x)`, `i32(x)`); conditions are WGSL bools, never an implicit truthiness.
 * - Parallel folds start every chunk from `ne` and skip empty chunks (a suffix), so they equal the
 *   sequential fold (ast.ts) when ⊕ is associative and `ne` is neutral (what Futhark requires),
 *   or ⊕ is associative and commutative and ⊕(ne, ne) = ne (max from any start, `&` from a mask,
 *   a product from 0). The parallel passes check ⊕(ne, ne) = ne bit for bit; when it fails (a sum
 *   from 1) the runtime runs the site's fallback pass, one invocation folding every element in
 *   order from `ne`: slow, but exactly the sequential semantics. Associativity is the program's
 *   promise. Floats then differ from a sequential fold only by rounding (f32 sums reassociated),
 *   and WGSL's f32 division is within 2.5 ULP: results equal the JS back end's within a tolerance,
 *   bit for bit for ints.
 * - Expressions: the dispatch over their kinds is expr-core.ts's, shared with the JS back end;
 *   `ExprEmitter.writer` spells each construct in WGSL, and its `value`/`cond` fold and hoist.
 * - Builtins (C's math functions, kernel/builtins.ts): WGSL's builtin where it has C's meaning
 *   within the WGSL specification's bound, else a helper function of the table's (`c_roundf`,
 *   `c_powf`, `c_fmodf`, …) written once per module under a name from the supply; a call on
 *   literals is folded (fold.ts), since WGSL rejects `sqrt(-1.0)` as a constant expression.
 * - C ternaries without calls become `select` (both sides evaluated: they are pure, and WGSL makes
 *   out-of-range loads and integer division by zero harmless); with calls they become an `if` on a
 *   temporary, so a called function runs only when C would run it.
 * - Names: every identifier of the plan's shaders comes from one `NameSupply` (names.ts). A site's
 *   module-level names (buffers `in_` + the C name, uniform fields and overrides `s_` + the C
 *   name) are shared by its passes; each pass's module names its device functions (`f_` + the
 *   function and its buffers, `f_g__in_b`), each function its parameters and locals (`a_`, `v_` +
 *   the C name) and temporaries; the templates' fixed names (`main`, `params`, `e`, `out_0`, …)
 *   are reserved first. So no user identifier can meet a generated name, a WGSL keyword, reserved
 *   word or builtin, and two helpers never share a name.
 * - Constants: WGSL evaluates const-expressions when it creates a shader and rejects any that
 *   overflows or is not finite, where C is defined (`1.0f / 0.0f` is inf, `(1 << 30) * 2` wraps
 *   under the evaluator's -fwrapv semantics). So every literal-only subexpression is folded with
 *   the evaluator's semantics (fold.ts) and written as its value: a finite literal, or inf/NaN
 *   built from their bits or-ed with a run-time zero (`bitcast<f32>(0x7f800000u | zero)`, `zero`
 *   a never-written `var<private>`); a constant that makes an operation undefined in C (`x / 0`,
 *   `x << 40`, `(int)1e10f`) is or-ed with the run-time zero too, so the shader is accepted and
 *   the run — meaningless in C — gives some value. No const-expression larger than a literal is
 *   left. (With `scalars: 'override'`, arithmetic on an override constant inside `main` would be an
 *   override-expression; lambdas only reach overrides through calls, whose parameters are run-time
 *   values, so none is emitted today.)
 * - What cannot run on the GPU is reported as `GpuUnsupported` naming the host function and the
 *   reason: a host function without combinators, recursion, combinators inside a lambda's callees,
 *   a callee writing an array parameter or passed a local array.
 * After L0 ch. 7's execution model (combinators as kernels, the host sequencing them) and
 * Blelloch's prefix sums; nothing here is from the SCF paper, which stops at the optimizer.
 */
import { assertNever, commentText } from '../common/index.js';
import {
  ARRAY_OPS,
  builtin,
  type Cmd,
  type Expr,
  exprType,
  FOLD_OPS,
  type Fun,
  hasCall,
  type Hfused,
  WGSL_HELPERS,
  type WgslHelper,
  KernelArgumentError,
  type Lam,
  listToArray,
  nodesOfType,
  type Param,
  type Program,
  type Soac,
  soacCommands,
  type Ternary,
} from '../kernel/index.js';
import { constantMakesUb, constValue } from './fold.js';
import { alwaysReturns, bare, emitHostJs, type LaunchCall, lamText, soacText } from './js.js';
import { type Coarsened, type CoarseActual, type CoarsenMode, coarseLoop, coarsenMap } from './coarsen.js';
import { NameSupply } from './names.js';
import {
  atRunTime,
  constantLiteral,
  exprDepth,
  HOIST_EVERY,
  LONG,
  literal,
  wgslType,
  ZERO,
  zeroOf,
} from './wgsl-literals.js';
import { type ExprWriter, exprValue, truthTest } from './expr-core.js';
import {
  type DispatchSize,
  type GpuPlan,
  GpuUnsupported,
  type KernelSite,
  type MappedSource,
  type PassBinding,
  type ScalarMode,
  type ShaderPass,
  type SiteArray,
  type SiteMember,
  type SiteScalar,
  type WgslOptions,
} from './plan.js';

/** Plans `fnName` of `program` for the GPU; throws GpuUnsupported naming the function and the reason. */
export function planKernelWgsl(program: Program, fnName: string, options: WgslOptions = {}): GpuPlan {
  const funs = new Map<string, Fun>();
  for (const f of listToArray(program)) if (!funs.has(f.name)) funs.set(f.name, f);
  const fun = funs.get(fnName);
  if (!fun) throw new KernelArgumentError(`no function named '${fnName}'`);
  const wg = options.workgroupSize ?? 256;
  if (!Number.isInteger(Math.log2(wg)) || wg < 32 || wg > 256)
    throw new RangeError(`workgroupSize must be a power of two in 32..256, not ${wg}`);
  const groups = options.maxWorkgroups ?? 64;
  if (!Number.isInteger(groups) || groups < 1 || groups > wg)
    throw new RangeError(`maxWorkgroups must be an integer in 1..${wg}, not ${groups}`);
  const mode = options.scalars ?? 'uniform';
  const coarsen = options.coarsen ?? 'auto';
  if (!['auto', 'always', 'never'].includes(coarsen))
    throw new RangeError(`coarsen must be 'auto', 'always' or 'never', not ${JSON.stringify(coarsen)}`);

  const commands = soacCommands(fun.body);
  if (commands.length === 0)
    throw new GpuUnsupported(
      fnName,
      'it has no combinator (map, reduce, scan, filter) to run as a kernel; run it with the JS back end',
    );
  const sites = new Map<Soac | Hfused, KernelSite>();
  const hostReads = new Set<string>();
  hostArrayUses(fun.body, hostReads);
  // One name supply for the plan: each site's module-level names in a scope of its own, each
  // pass's shader module and each function of it in scopes below (names.ts).
  const names = NameSupply.program('wgsl');
  commands.forEach((c, index) => {
    sites.set(
      c,
      new SiteBuilder(fun, funs, c, index, { wg, groups, mode, coarsen }, hostReads, names.scope()).build(),
    );
  });
  const hostSource = emitHostJs(program, fnName, (c): LaunchCall => {
    const site = sites.get(c);
    if (!site) throw new Error(`internal error: a combinator of '${fnName}' was not planned`);
    return {
      index: site.index,
      arrays: site.arrays.map((a) => a.name),
      scalars: site.scalars.map((s) => s.expr),
      dests: site.members.map((m) => ({ name: m.dest, isArray: ARRAY_OPS.has(m.op) })),
    };
  });
  const all = [...sites.values()];
  const wgsl = all
    .flatMap((s) => s.passes.map((p) => p.wgsl))
    .join('\n')
    .trimEnd();
  return { fn: fnName, fun, sites: all, hostSource, wgsl: `${wgsl}\n` };
}

/** The readable WGSL of every pass of `fnName`'s plan (what `scf kernel --emit wgsl` prints). */
export function emitKernelWgsl(program: Program, fnName: string, options: WgslOptions = {}): string {
  return planKernelWgsl(program, fnName, options).wgsl;
}

/**
 * The arrays whose elements the host code itself touches: loaded, stored, passed to a call or
 * returned. Combinator operands are not uses (a launch finds a previous launch's result on the
 * device). A walk over the kernel's field table (a command's expressions, then its sub-commands).
 */
function hostArrayUses(x: Cmd | Expr, out: Set<string>): void {
  if (x.kind === 'soac' || x.kind === 'hfused') return;
  if (x.kind === 'load' || x.kind === 'store') out.add(x.array);
  if (x.kind === 'arrayRef') out.add(x.name);
  for (const e of nodesOfType(x, 'Expr') as Expr[]) hostArrayUses(e, out);
  for (const c of nodesOfType(x, 'Cmd') as Cmd[]) hostArrayUses(c, out);
}

// ---- names and literals ------------------------------------------------------------------------

// ---- expressions and device functions ----------------------------------------------------------

/** What a name stands for while emitting: a WGSL scalar expression, or an array's WGSL variable. */
interface Binding {
  readonly wgsl: string;
  readonly isArray: boolean;
  /** For arrays: whether it is a storage buffer (a function can be specialized to it). */
  readonly global: boolean;
}

/** The module-level functions one shader needs, specialized per binding of their array parameters. */
class DeviceFunctions {
  readonly texts: string[] = [];
  private readonly done = new Map<string, string>();
  private readonly active = new Set<string>();

  constructor(
    private readonly host: string,
    readonly funs: ReadonlyMap<string, Fun>,
    /** The shader module's scope: function names here, each function's names in a scope below. */
    private readonly names: NameSupply,
  ) {}

  /** The WGSL name of the builtins' helper function `h` (WGSL_HELPERS), emitted once per module. */
  helper(h: WgslHelper): string {
    const key = JSON.stringify(['$builtin', h]);
    const known = this.done.get(key);
    if (known !== undefined) return known;
    const wgslName = this.names.fresh(h);
    this.texts.push(WGSL_HELPERS[h].replace(`fn ${h}(`, `fn ${wgslName}(`));
    this.done.set(key, wgslName);
    return wgslName;
  }

  /** The WGSL name of `name` with its array parameters bound to `arrays` (storage buffer names). */
  use(name: string, arrays: readonly string[]): string {
    const fun = this.funs.get(name);
    if (!fun) throw new Error(`internal error: unknown function '${name}'`);
    // A list, not a joined string: `g` with buffer `in_b` and a function named `g__in_b` differ.
    const key = JSON.stringify([name, ...arrays]);
    const known = this.done.get(key);
    if (known !== undefined) return known;
    if (this.active.has(name))
      throw new GpuUnsupported(this.host, `'${name}' is recursive, and WGSL has no recursion`);
    // Readable: `f_g__in_b` for g with buffer in_b, unless that name is taken (the supply decides).
    const wgslName = this.names.fresh(`f_${[name, ...arrays].join('__')}`);
    this.active.add(name);
    try {
      this.texts.push(this.emit(fun, arrays, wgslName));
    } finally {
      this.active.delete(name);
    }
    this.done.set(key, wgslName);
    return wgslName;
  }

  private emit(fun: Fun, arrays: readonly string[], wgslName: string): string {
    const scope = this.names.scope();
    const names = new Map<string, Binding>();
    const params = listToArray(fun.params);
    const wgslParams: string[] = [];
    const lines: string[] = [];
    let k = 0;
    for (const p of params) {
      if (p.isArray) {
        if (!p.isConst)
          throw new GpuUnsupported(
            this.host,
            `'${fun.name}' takes a writable array '${p.name}'; functions a kernel calls may only read arrays`,
          );
        names.set(p.name, { wgsl: arrays[k++] as string, isArray: true, global: true });
      } else {
        const arg = scope.user('a_', p.name);
        const v = scope.user('v_', p.name);
        wgslParams.push(`${arg}: ${wgslType(p.ty)}`);
        lines.push(`  var ${v}: ${wgslType(p.ty)} = ${arg};`);
        names.set(p.name, { wgsl: v, isArray: false, global: false });
      }
    }
    for (const d of listToArray(fun.locals)) {
      const ty = wgslType(d.ty);
      const v = scope.user('v_', d.name);
      if (d.size.kind === 'some') {
        if (!names.has(d.name)) lines.push(`  var ${v}: array<${ty}, ${d.size.value}>;`);
        names.set(d.name, { wgsl: v, isArray: true, global: false });
      } else {
        if (!names.has(d.name)) lines.push(`  var ${v}: ${ty};`);
        names.set(d.name, { wgsl: v, isArray: false, global: false });
      }
    }
    const ex = new ExprEmitter(
      this.host,
      this,
      (n) => names.get(n),
      (base) => scope.fresh(base),
    );
    ex.cmd(fun.body, 1, lines, fun);
    // WGSL wants a return on every path; C lets a run fall off the end (undefined behaviour if
    // the value is used), so a function that may do so gets a final `return 0`.
    if (fun.ret !== 'void' && !alwaysReturns(fun.body)) lines.push(`  return ${zeroOf(fun.ret)};`);
    const ret = fun.ret === 'void' ? '' : ` -> ${wgslType(fun.ret)}`;
    const sig = listToArray(fun.params)
      .map((p) => `${p.isConst ? 'const ' : ''}${p.ty} ${p.name}${p.isArray ? '[]' : ''}`)
      .join(', ');
    const bound = params.filter((p) => p.isArray).map((p, i) => `${p.name} = ${arrays[i]}`);
    return [
      `// ${commentText(`${fun.ret} ${fun.name}(${sig})${bound.length ? `, with ${bound.join(', ')}` : ''}`, LONG)}`,
      `fn ${wgslName}(${wgslParams.join(', ')})${ret} {`,
      ...lines,
      '}',
    ].join('\n');
  }
}

/**
 * Emits expressions (and, in device functions, commands) as WGSL. `pre` collects statements an
 * expression needs first (an `if` computing a ternary with calls); statement emitters flush it.
 */
class ExprEmitter {
  private pre: string[] = [];

  constructor(
    private readonly host: string,
    private readonly device: DeviceFunctions,
    private readonly lookup: (name: string) => Binding | undefined,
    readonly fresh: (base: string) => string,
  ) {}

  /** The statements collected so far (indented by `depth`), emptying the list. */
  takePre(): string[] {
    const p = this.pre;
    this.pre = [];
    return p;
  }

  private scalar(name: string): string {
    const b = this.lookup(name);
    if (!b || b.isArray) throw new Error(`internal error: '${name}' is not a scalar here`);
    return b.wgsl;
  }

  private array(name: string): Binding {
    const b = this.lookup(name);
    if (!b?.isArray) throw new Error(`internal error: '${name}' is not an array here`);
    return b;
  }

  /**
   * `e` as a WGSL value. A literal-only subexpression is folded with C's semantics (fold.ts) and
   * written as its value, so no shader holds a const-expression that WGSL could reject (`1.0f /
   * 0.0f`, `1e38f * 10.0f`: inf in C, shader-creation errors in WGSL); a constant that makes the
   * operation undefined behaviour (`x / 0`, `x << 40`) is hidden behind the run-time zero.
   */
  value(e: Expr): string {
    if (e.kind !== 'intLit' && e.kind !== 'floatLit' && e.kind !== 'boolLit') {
      const k = constValue(e);
      if (k !== undefined) return constantLiteral(k, exprType(e));
    }
    return this.hoisted(e, exprValue(e, this.writer), wgslType(exprType(e)));
  }

  /**
   * `wgsl` (the WGSL of `e`), or a `let` temporary holding it when `e` is HOIST_EVERY levels
   * above the leaves: WGSL compilers bound their parsers' recursion (Tint at about 128 nested
   * parentheses), and C does not (`x0 + x1 + … + x199` nests 200 deep). The `let` goes into `pre`,
   * which is emitted before the statement, or inside the branch or short-circuit that evaluates
   * `e` (see `ternary` and `shortCircuit`), so only what C evaluates is evaluated.
   */
  private hoisted(e: Expr, wgsl: string, ty: string): string {
    if (exprDepth(e) % HOIST_EVERY !== 0) return wgsl;
    const t = this.fresh('t');
    this.pre.push(`let ${t}: ${ty} = ${bare(wgsl)};`);
    return t;
  }

  cond(e: Expr): string {
    const k = constValue(e);
    if (k !== undefined) return k !== 0 ? 'true' : 'false';
    return this.hoisted(e, truthTest(e, this.writer), 'bool');
  }

  /** The WGSL of each construct of an expression (expr-core.ts; the file comment has the rules). */
  private readonly writer: ExprWriter = {
    value: (e) => this.value(e),
    cond: (e) => this.cond(e),
    variable: (e) => this.scalar(e.name),
    literal: (e) => literal(e) as string,
    fromBool: (test) => `select(0i, 1i, ${bare(test)})`,
    arith: (e, l, right) => {
      const r = constantMakesUb(e) ? atRunTime(right, exprType(e.right)) : right;
      if (e.op === '<<' || e.op === '>>') return `(${l} ${e.op} u32(${bare(r)}))`;
      return `(${l} ${e.op} ${r})`;
    },
    negate: (_e, arg) => `(-${arg})`,
    load: (e, index) => `${this.array(e.array).wgsl}[${bare(index)}]`,
    call: (e) => this.call(e.name, listToArray(e.args)),
    toFloat: (_e, arg) => `f32(${bare(arg)})`,
    // (int)1e10f: undefined in C, a shader-creation error in WGSL as a constant
    floatToInt: (e, arg) => `i32(${bare(constValue(e.arg) === undefined ? arg : atRunTime(arg, 'float'))})`,
    ternary: (e) => this.ternary(e),
    comparison: (op) => op,
    logical: (e) => this.shortCircuit(e.op as '&&' | '||', e.left, e.right),
    zero: (ty) => zeroOf(ty),
  };

  /**
   * `c ? a : b`: without calls a `select` (both sides evaluated: they are pure, and WGSL makes
   * out-of-range loads and integer division by zero harmless); with calls an `if` on a temporary,
   * each branch's statements inside it, so a called function runs only when C would run it.
   */
  private ternary(e: Ternary): string {
    if (!hasCall(e.thenExpr) && !hasCall(e.elseExpr))
      return `select(${bare(this.value(e.elseExpr))}, ${bare(this.value(e.thenExpr))}, ${bare(this.cond(e.cond))})`;
    const t = this.fresh('t');
    const c = this.cond(e.cond);
    const outer = this.takePre();
    const thenV = this.value(e.thenExpr);
    const thenPre = this.takePre();
    const elseV = this.value(e.elseExpr);
    const elsePre = this.takePre();
    this.pre = [
      ...outer,
      `var ${t}: ${wgslType(e.ty)};`,
      `if (${bare(c)}) {`,
      ...thenPre.map((l) => `  ${l}`),
      `  ${t} = ${bare(thenV)};`,
      '} else {',
      ...elsePre.map((l) => `  ${l}`),
      `  ${t} = ${bare(elseV)};`,
      '}',
    ];
    return t;
  }

  /**
   * `l && r` / `l || r`. When `r` needs statements first (a hoisted temporary, a ternary with
   * calls) and calls a function (which may loop forever), they must run only when C evaluates `r`:
   *
   *   var t: bool = l;
   *   if (t) { …r's statements; t = r; }      // for ||: if (!t)
   *
   * Without calls they run before the statement: WGSL expressions without calls cannot fail or
   * loop (division by zero and out-of-range loads are defined), so evaluating them is harmless.
   */
  private shortCircuit(op: '&&' | '||', left: Expr, right: Expr): string {
    const l = this.cond(left);
    const outer = this.takePre();
    const r = this.cond(right);
    const inner = this.takePre();
    if (inner.length === 0 || !hasCall(right)) {
      this.pre = [...outer, ...inner];
      return `(${l} ${op} ${r})`;
    }
    const t = this.fresh('t');
    this.pre = [
      ...outer,
      `var ${t}: bool = ${bare(l)};`,
      `if (${op === '&&' ? t : `!${t}`}) {`,
      ...inner.map((p) => `  ${p}`),
      `  ${t} = ${bare(r)};`,
      '}',
    ];
    return t;
  }

  call(name: string, args: readonly Expr[]): string {
    const b = builtin(name);
    // C's math function: WGSL's builtin, or C's meaning written out (kernel/builtins.ts)
    if (b)
      return b.wgsl(
        args.map((a) => bare(this.value(a))),
        (h) => this.device.helper(h),
      );
    const arrays: string[] = [];
    const scalars: string[] = [];
    for (const a of args) {
      if (a.kind === 'arrayRef') {
        const b = this.array(a.name);
        if (!b.global)
          throw new GpuUnsupported(
            this.host,
            `'${name}' is passed the local array '${a.name}'; functions a kernel calls may only take arrays the kernel reads`,
          );
        arrays.push(b.wgsl);
      } else {
        scalars.push(bare(this.value(a)));
      }
    }
    return `${this.device.use(name, arrays)}(${scalars.join(', ')})`;
  }

  /** A device function's command, as lines indented by `depth`. */
  cmd(c: Cmd, depth: number, out: string[], fun: Fun): void {
    const ind = '  '.repeat(depth);
    const emit = (line: string): void => {
      for (const p of this.takePre()) out.push(ind + p);
      out.push(ind + line);
    };
    switch (c.kind) {
      case 'seq':
        this.cmd(c.first, depth, out, fun);
        this.cmd(c.second, depth, out, fun);
        return;
      case 'skip':
        return;
      case 'assign':
        emit(`${this.scalar(c.name)} = ${bare(this.value(c.rhs))};`);
        return;
      case 'store': {
        const b = this.array(c.array);
        if (b.global)
          throw new GpuUnsupported(this.host, `'${fun.name}' writes its array parameter '${c.array}'`);
        const idx = bare(this.value(c.index));
        emit(`${b.wgsl}[${idx}] = ${bare(this.value(c.rhs))};`);
        return;
      }
      case 'if': {
        emit(`if (${bare(this.cond(c.cond))}) {`);
        this.cmd(c.thenCmd, depth + 1, out, fun);
        if (c.elseCmd.kind !== 'skip') {
          out.push(`${ind}} else {`);
          this.cmd(c.elseCmd, depth + 1, out, fun);
        }
        out.push(`${ind}}`);
        return;
      }
      case 'while': {
        const cond = bare(this.cond(c.cond));
        const pre = this.takePre();
        if (pre.length === 0) {
          out.push(`${ind}while (${cond}) {`);
        } else {
          out.push(`${ind}loop {`);
          for (const p of pre) out.push(`${ind}  ${p}`);
          out.push(`${ind}  if (!(${cond})) { break; }`);
        }
        this.cmd(c.body, depth + 1, out, fun);
        out.push(`${ind}}`);
        return;
      }
      case 'return': {
        const v = c.value.kind === 'some' ? c.value.value : undefined;
        if (v?.kind === 'arrayRef')
          throw new GpuUnsupported(
            this.host,
            `'${fun.name}' returns an array; functions a kernel calls return scalars`,
          );
        emit(v ? `return ${bare(this.value(v))};` : 'return;');
        return;
      }
      case 'callCmd': {
        const callee = this.call(c.name, listToArray(c.args));
        const ret = this.device.funs.get(c.name)?.ret ?? 'void';
        emit(ret === 'void' ? `${callee};` : `_ = ${callee};`);
        return;
      }
      case 'soac':
        this.nestedFold(c, depth, out, fun);
        return;
      case 'hfused':
        throw new GpuUnsupported(
          this.host,
          `'${fun.name}', called inside a kernel, runs a fused group of combinators; only reduce/redomap over iota can run inside a kernel`,
        );
      default:
        // a command kind with no WGSL form: the loop that calls this function runs on the host
        throw new GpuUnsupported(
          this.host,
          `'${fun.name}', called inside a kernel, has a command of kind '${(c as Cmd).kind}', which has no WGSL form`,
        );
    }
  }

  /**
   * A reduce/redomap over iotas inside a function a kernel calls (a dot product per matrix cell):
   * a sequential loop in the invocation. Anything else nested (an array result, a mapped array,
   * whose length a shader cannot know) is GpuUnsupported.
   */
  private nestedFold(s: Soac, depth: number, out: string[], fun: Fun): void {
    const unsupported = (why: string): never => {
      throw new GpuUnsupported(
        this.host,
        `'${fun.name}', called inside a kernel, runs '${s.op}' into '${s.dest}'; ${why} (fuse '${fun.name}' first, so that map → reduce becomes one redomap)`,
      );
    };
    if (s.op !== 'reduce' && s.op !== 'redomap')
      unsupported('only reduce/redomap over iota can run inside a kernel');
    const ind = '  '.repeat(depth);
    const params = listToArray(s.fn.params).slice(1);
    const e = this.fresh('e');
    let len: string | undefined;
    const actuals: Binding[] = [];
    listToArray(s.args).forEach((a, j) => {
      const p = params[j] as Param;
      if (a.kind === 'argIota') {
        len ??= bare(this.value(a.len));
        actuals.push({ wgsl: e, isArray: false, global: false });
      } else if (a.kind === 'argArray') {
        if (!p.isArray) unsupported(`it maps the array '${a.name}', whose length a shader does not know`);
        actuals.push(this.array(a.name));
      } else {
        actuals.push({ wgsl: this.value(a.value), isArray: false, global: false });
      }
    });
    if (len === undefined || s.ne.kind !== 'some') {
      unsupported('it maps no iota');
      return;
    }
    const ne = bare(this.value(s.ne.value));
    for (const p of this.takePre()) out.push(ind + p);
    const acc = this.fresh('acc');
    const n = this.fresh('n');
    const app = this.applyLam(s.fn, [{ wgsl: acc, isArray: false, global: false }, ...actuals], false);
    out.push(
      `${ind}// ${soacText(s)}, sequentially in this invocation`,
      `${ind}let ${n} = ${len};`,
      `${ind}var ${acc}: ${wgslType(s.ty)} = ${ne};`,
      `${ind}for (var ${e} = 0i; ${e} < ${n}; ${e} = ${e} + 1i) {`,
      ...app.lines.map((l) => `${ind}  ${l}`),
      `${ind}  ${acc} = ${bare(app.result)};`,
      `${ind}}`,
      `${ind}${this.scalar(s.dest)} = ${acc};`,
    );
  }

  /**
   * A lambda applied to `actuals` (WGSL expressions, or storage buffer names for array
   * parameters): `let` lines for its bindings and its result (a value, or a WGSL bool for `asCond`).
   */
  applyLam(lam: Lam, actuals: readonly Binding[], asCond: boolean): { lines: string[]; result: string } {
    const params = listToArray(lam.params);
    if (params.length !== actuals.length)
      throw new Error(`internal error: a lambda of ${params.length} parameter(s) is given ${actuals.length}`);
    const scope = new Map<string, Binding>();
    const lines: string[] = [];
    params.forEach((p: Param, j) => {
      const a = actuals[j] as Binding;
      if (p.isArray !== a.isArray) throw new Error(`internal error: lambda parameter '${p.name}' mismatched`);
      if (p.isArray || /^[A-Za-z_][\w.]*$|^\(?-?[\d.]+[if]?\)?$/.test(a.wgsl)) {
        scope.set(p.name, a);
      } else {
        const name = this.fresh(`l_${p.name}`);
        lines.push(`let ${name} = ${bare(a.wgsl)};`);
        scope.set(p.name, { wgsl: name, isArray: false, global: false });
      }
    });
    const inner = new ExprEmitter(this.host, this.device, (n) => scope.get(n), this.fresh);
    for (const b of listToArray(lam.binds)) {
      const rhs = bare(inner.value(b.rhs));
      lines.push(...inner.takePre());
      const name = this.fresh(`l_${b.name}`);
      lines.push(`let ${name}: ${wgslType(b.ty)} = ${rhs};`);
      scope.set(b.name, { wgsl: name, isArray: false, global: false });
    }
    const result = asCond ? inner.cond(lam.result) : inner.value(lam.result);
    lines.push(...inner.takePre());
    return { lines, result };
  }
}

// ---- sites ---------------------------------------------------------------------------------------

interface SiteOptions {
  readonly wg: number;
  readonly groups: number;
  readonly mode: ScalarMode;
  readonly coarsen: CoarsenMode;
}

/** A member and what its lambda's parameters are bound to (without the accumulator). */
interface MemberPlan {
  readonly soac: Soac;
  readonly info: SiteMember;
  /** Per aligned argument: how to read it at element `e` (WGSL, using `e` and `i`). */
  readonly actuals: readonly Binding[];
  /** The neutral element as WGSL. */
  readonly ne: string;
  /** The combine operator ⊕ (the lambda of a reduce/scan, `comb` of redomap/scanomap). */
  readonly comb: Lam | undefined;
  /** The element a filter keeps. */
  readonly elem: string;
}

/** The locals and builtin parameters the entry points' templates declare (`e`, `i`, `gid`, …). */
const TEMPLATE_LOCALS = [
  'e',
  'i',
  'stride',
  'start',
  'end',
  's',
  'd',
  'k',
  'run',
  'left',
  'tmp',
  'first',
  'kept',
  'acc',
  'gid',
  'lid',
  'wid',
  'nwg',
];

class SiteBuilder {
  private readonly arrays: SiteArray[] = [];
  private readonly scalars: SiteScalar[] = [];
  private readonly members: MemberPlan[] = [];
  private readonly passes: ShaderPass[] = [];
  private readonly text: string[];
  private readonly kind: KernelSite['kind'];

  constructor(
    private readonly fun: Fun,
    private readonly funs: ReadonlyMap<string, Fun>,
    command: Soac | Hfused,
    private readonly index: number,
    private readonly opts: SiteOptions,
    private readonly hostReads: ReadonlySet<string>,
    /** The site's scope of the plan's name supply: the names every pass's module shares. */
    private readonly names: NameSupply,
  ) {
    const soacs = command.kind === 'soac' ? [command] : listToArray(command.members);
    if (soacs.length === 0) throw new Error('internal error: a fused group without members');
    // The shader templates' fixed names, reserved before any other name is drawn: module-level
    // ones, the members' buffers and workgroup arrays, and the entry point's locals.
    names.reserve('main', 'params', 'Params', 'n', 'chunk', ZERO, 'sh', 'counts');
    names.reserve(...TEMPLATE_LOCALS);
    for (let k = 0; k < soacs.length; k++)
      names.reserve(`out_${k}`, `res_${k}`, `partials_${k}`, `sh_${k}`, `acc_${k}`);
    this.text = soacs.map(soacText);
    const kinds = new Set(soacs.map((s) => siteKind(s.op)));
    if (kinds.size !== 1) throw new Error(`internal error: a fused group mixing ${[...kinds].join(' and ')}`);
    this.kind = [...kinds][0] as KernelSite['kind'];
    if ((this.kind === 'scan' || this.kind === 'filter') && soacs.length > 1)
      throw new Error(`internal error: a fused group of ${this.kind}s`);
    for (const s of soacs) this.members.push(this.member(s));
  }

  build(): KernelSite {
    switch (this.kind) {
      case 'map':
        this.mapPass();
        break;
      case 'reduce':
        this.reducePasses();
        break;
      case 'scan':
        this.scanPasses();
        break;
      case 'filter':
        this.filterPasses();
        break;
      default:
        assertNever(this.kind);
    }
    const uniformFields =
      this.opts.mode === 'uniform'
        ? this.scalars.flatMap((s, scalar) => (s.field ? [{ field: s.field, scalar }] : []))
        : [];
    return {
      index: this.index,
      text: this.text,
      kind: this.kind,
      uniformFields,
      arrays: this.arrays,
      scalars: this.scalars,
      members: this.members.map((m) => m.info),
      passes: this.passes,
      workgroupSize: this.opts.wg,
      maxWorkgroups: this.opts.groups,
      scalarMode: this.opts.mode,
    };
  }

  /** The storage buffer of site input array `name`: `in_` + the C name, unless that is taken. */
  private buffer(name: string): string {
    return this.names.user('in_', name);
  }

  private arrayIndex(name: string, ty: string): number {
    const k = this.arrays.findIndex((a) => a.name === name);
    if (k >= 0) return k;
    this.arrays.push({ name, ty });
    return this.arrays.length - 1;
  }

  /** Registers a scalar operand; returns its index and its WGSL (a literal, a field or an override). */
  private scalar(e: Expr): { index: number; wgsl: string } {
    if (e.kind === 'var') {
      const field = this.names.user('s_', e.name);
      let k = this.scalars.findIndex((s) => s.field === field);
      if (k < 0) {
        this.scalars.push({ expr: e, ty: e.ty, field });
        k = this.scalars.length - 1;
      }
      return { index: k, wgsl: this.opts.mode === 'uniform' ? `params.${field}` : field };
    }
    this.scalars.push({ expr: e, ty: exprType(e), field: undefined });
    const wgsl = literal(e);
    if (wgsl === undefined) throw new Error('internal error: a combinator operand that is not an atom');
    return { index: this.scalars.length - 1, wgsl };
  }

  private member(s: Soac): MemberPlan {
    const folds = FOLD_OPS.has(s.op);
    const params = listToArray(s.fn.params).slice(folds ? 1 : 0);
    const args = listToArray(s.args);
    if (params.length !== args.length)
      throw new Error(`internal error: '${s.op}' into '${s.dest}' does not match its lambda`);
    const mapped: MappedSource[] = [];
    const actuals: Binding[] = [];
    let elem = '';
    args.forEach((a, j) => {
      const p = params[j] as Param;
      switch (a.kind) {
        case 'argArray': {
          const k = this.arrayIndex(a.name, a.ty);
          const buf = this.buffer(a.name);
          if (p.isArray) {
            actuals.push({ wgsl: buf, isArray: true, global: true });
          } else {
            mapped.push({ kind: 'array', index: k });
            actuals.push({ wgsl: `${buf}[e]`, isArray: false, global: false });
            elem ||= `${buf}[e]`;
          }
          return;
        }
        case 'argIota': {
          const { index } = this.scalar(a.len);
          mapped.push({ kind: 'iota', scalar: index });
          actuals.push({ wgsl: 'i', isArray: false, global: false });
          elem ||= 'i';
          return;
        }
        case 'argScalar':
          actuals.push({ wgsl: this.scalar(a.value).wgsl, isArray: false, global: false });
          return;
        default:
          assertNever(a);
      }
    });
    if (mapped.length === 0) throw new Error(`internal error: '${s.op}' into '${s.dest}' maps nothing`);
    let ne = '';
    let neIndex: number | undefined;
    if (folds) {
      if (s.ne.kind !== 'some') throw new Error(`internal error: '${s.op}' without a neutral element`);
      const r = this.scalar(s.ne.value);
      ne = r.wgsl;
      neIndex = r.index;
    }
    const comb =
      s.op === 'reduce' || s.op === 'scan' ? s.fn : s.comb.kind === 'some' ? s.comb.value : undefined;
    if (folds && !comb) throw new Error(`internal error: '${s.op}' without a combine operator`);
    return {
      soac: s,
      info: {
        op: s.op,
        dest: s.dest,
        ty: s.ty,
        mapped,
        ne: neIndex,
        combText: comb ? lamText(comb) : undefined,
        readBack: this.hostReads.has(s.dest),
      },
      actuals,
      ne,
      comb,
      elem,
    };
  }

  // ---- shader assembly ----

  /** Header comment lines naming the host function, the site and the pass. */
  private header(pass: string, k: number, of: number): string[] {
    const which = k === 0 ? 'fallback pass' : `pass ${k} of ${of}`;
    return [
      `// ${commentText(`---- ${this.fun.name}: site ${this.index}, ${which} (${pass}) ----`, LONG)}`,
      ...this.text.map((t) => `//   ${commentText(t, LONG)}`),
    ];
  }

  /**
   * Finishes a pass: declares the bindings and overrides its body and functions use (an 'auto'
   * layout holds only what the shader uses), in the order uniform, inputs, outputs, scratch,
   * results.
   */
  private pass(
    name: string,
    k: number,
    of: number,
    device: DeviceFunctions,
    workgroupVars: readonly string[],
    main: readonly string[],
    dispatch: DispatchSize,
    scratch: ReadonlyMap<string, { ty: string; words: PassBinding & { kind: 'scratch' } }>,
    when?: ShaderPass['when'],
  ): void {
    // Comments are left out: they quote the C program, whose names may look like ours.
    const body = [...device.texts, ...workgroupVars, ...main].join('\n').replace(/\/\/.*$/gm, '');
    const uses = (id: string): boolean => new RegExp(`\\b${id}\\b`).test(body);
    const decls: string[] = [];
    const bindings: PassBinding[] = [];
    const bind = (b: PassBinding, decl: string): void => {
      decls.push(`@group(0) @binding(${bindings.length}) ${decl}`);
      bindings.push(b);
    };
    const fields = ['  n: u32,', '  chunk: u32,'];
    const overrides: { field: string; scalar: number }[] = [];
    const overrideDecls: string[] = [];
    this.scalars.forEach((s, scalar) => {
      if (!s.field) return;
      if (this.opts.mode === 'uniform') fields.push(`  ${s.field}: ${wgslType(s.ty)},`);
      else if (uses(s.field)) {
        overrides.push({ field: s.field, scalar });
        overrideDecls.push(`override ${s.field}: ${wgslType(s.ty)};`);
      }
    });
    const struct = uses('params') ? ['struct Params {', ...fields, '}'] : [];
    if (uses('params')) bind({ kind: 'uniform' }, 'var<uniform> params: Params;');
    this.arrays.forEach((a, index) => {
      const buf = this.buffer(a.name);
      if (uses(buf)) bind({ kind: 'input', index }, `var<storage, read> ${buf}: array<${wgslType(a.ty)}>;`);
    });
    this.members.forEach((m, member) => {
      const out = `out_${member}`;
      if (uses(out))
        bind({ kind: 'output', member }, `var<storage, read_write> ${out}: array<${wgslType(m.info.ty)}>;`);
    });
    for (const [id, s] of scratch) {
      if (uses(id)) bind(s.words, `var<storage, read_write> ${id}: array<${s.ty}>;`);
    }
    this.members.forEach((_m, member) => {
      const res = `res_${member}`;
      if (uses(res)) bind({ kind: 'result', member }, `var<storage, read_write> ${res}: array<u32, 2>;`);
    });
    const zero = uses(ZERO) ? [`var<private> ${ZERO}: u32;`] : [];
    const wgsl = [
      ...this.header(name, k, of),
      ...struct,
      ...overrideDecls,
      ...decls,
      ...zero,
      '',
      ...(device.texts.length ? [device.texts.join('\n\n'), ''] : []),
      ...workgroupVars,
      ...main,
      '',
    ].join('\n');
    this.passes.push({
      label: `${this.fun.name}: site ${this.index} (${this.text.join('; ')}), ${k === 0 ? 'fallback pass' : `pass ${k} of ${of}`} (${name})`,
      wgsl,
      bindings,
      dispatch,
      overrides,
      sequential: k === 0,
      ...(when ? { when } : {}),
    });
  }

  /** One pass's emitters: its shader module's scope, its device functions, `main`'s expressions. */
  private emitters(): { device: DeviceFunctions; ex: ExprEmitter } {
    const module = this.names.scope();
    const device = new DeviceFunctions(this.fun.name, this.funs, module);
    const main = module.scope();
    const ex = new ExprEmitter(
      this.fun.name,
      device,
      () => undefined,
      (base) => main.fresh(base),
    );
    return { device, ex };
  }

  /** `acc = g(acc, elements at e)` for member `m`, as lines (in a block, names kept local). */
  private foldStep(ex: ExprEmitter, m: MemberPlan, acc: string, target: string): string[] {
    const app = ex.applyLam(m.soac.fn, [{ wgsl: acc, isArray: false, global: false }, ...m.actuals], false);
    return ['{', ...app.lines.map((l) => `  ${l}`), `  ${target} = ${bare(app.result)};`, '}'];
  }

  /** `target = a ⊕ b` for member `m`, as lines. */
  private combineStep(ex: ExprEmitter, m: MemberPlan, a: string, b: string, target: string): string[] {
    const scalar = (w: string): Binding => ({ wgsl: w, isArray: false, global: false });
    const app = ex.applyLam(m.comb as Lam, [scalar(a), scalar(b)], false);
    return ['{', ...app.lines.map((l) => `  ${l}`), `  ${target} = ${bare(app.result)};`, '}'];
  }

  private get wg(): string {
    return `${this.opts.wg}u`;
  }

  private indent(lines: readonly string[], depth: number): string[] {
    return lines.map((l) => '  '.repeat(depth) + l);
  }

  /**
   * The loop over elements of every pass, at depth 1: `e` (u32) runs from `from` below `to` in
   * steps of `step`, and `body` sees the element's index as C's int `i`.
   */
  private elementLoop(body: readonly string[], from = 'start', to = 'end', step = '1u'): string[] {
    return [
      `  for (var e = ${from}; e < ${to}; e = e + ${step}) {`,
      '    let i = i32(e);',
      ...this.indent(body, 2),
      '  }',
    ];
  }

  private mapPass(): void {
    const coarse = this.coarsened();
    // with a divisor that is a scalar operand, the coarsened pass runs where it is > 0, the plain one else
    const d = coarse?.divisorScalar;
    const when = (holds: boolean) => (d === undefined ? undefined : { positive: [d], holds });
    const header = [
      `@compute @workgroup_size(${this.opts.wg})`,
      'fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {',
      `  let stride = nwg.x * ${this.wg};`,
    ];
    if (!coarse || d !== undefined) {
      const { device, ex } = this.emitters();
      const body = this.members.flatMap((m, k) => {
        const app = ex.applyLam(m.soac.fn, m.actuals, false);
        return [
          `// ${commentText(this.text[k] as string, LONG)}`,
          ...app.lines,
          `out_${k}[e] = ${bare(app.result)};`,
        ];
      });
      const main = [...header, ...this.elementLoop(body, 'gid.x', 'params.n', 'stride'), '}'];
      const name = d === undefined ? 'map' : `map, where ${coarse?.divisorName} ≤ 0`;
      this.pass(name, 1, 1, device, [], main, { kind: 'perElement' }, new Map(), when(false));
    }
    if (!coarse) return;
    const { device, ex } = this.emitters();
    const cx = new ExprEmitter(this.fun.name, device, (n) => coarse.scope.get(n), ex.fresh);
    const loop = coarseLoop(coarse.plan, {
      value: (e) => ({ wgsl: bare(cx.value(e)), pre: cx.takePre() }),
      fresh: ex.fresh,
      bind: (name, wgsl) => coarse.scope.set(name, { wgsl, isArray: false, global: false }),
    });
    const per = coarse.plan.width;
    const dispatch: DispatchSize = { kind: 'perElement', perInvocation: per };
    const main = [...header, ...this.indent(loop, 1), '}'];
    const where = d === undefined ? '' : `, where ${coarse.divisorName} > 0`;
    this.pass(
      `map, ${per} elements per invocation${where}`,
      1,
      1,
      device,
      [],
      main,
      dispatch,
      new Map(),
      when(true),
    );
  }

  /**
   * The coarsened plan of a one-member map over iota (coarsen.ts), the bindings of the names its
   * expressions use for the member's broadcast arrays and scalar operands, and the site scalar
   * it divides by.
   */
  private coarsened():
    | { plan: Coarsened; scope: Map<string, Binding>; divisorScalar?: number; divisorName?: string }
    | undefined {
    const [m, ...rest] = this.members;
    if (!m || rest.length > 0 || m.soac.fn.ret === 'bool') return undefined;
    const scope = new Map<string, Binding>();
    const scalarOf = new Map<string, { index: number; name: string }>();
    const actuals: CoarseActual[] = [];
    for (const [j, a] of listToArray(m.soac.args).entries()) {
      const actual = m.actuals[j] as Binding;
      if (a.kind === 'argIota') actuals.push({ kind: 'lane' });
      else if (a.kind === 'argArray') {
        if (!actual.isArray) return undefined; // a mapped array
        scope.set(`$a${j}`, actual);
        actuals.push({ kind: 'array', name: `$a${j}` });
      } else if (a.value.kind === 'var') {
        scope.set(`$s${j}`, actual);
        scalarOf.set(`$s${j}`, { index: this.scalar(a.value).index, name: a.value.name });
        actuals.push({ kind: 'scalar', value: { ...a.value, name: `$s${j}` } });
      } else actuals.push({ kind: 'scalar', value: a.value });
    }
    const plan = coarsenMap(m.soac.fn, actuals, this.funs, this.opts.coarsen);
    if (!plan) return undefined;
    const d = plan.divisor?.kind === 'var' ? scalarOf.get(plan.divisor.name) : undefined;
    return { plan, scope, ...(d ? { divisorScalar: d.index, divisorName: d.name } : {}) };
  }

  /** The chunk of the invocation `t`: `start`/`end` lines. */
  private chunkLines(t: string): string[] {
    return [
      `let start = min(${t} * params.chunk, params.n);`,
      'let end = min(start + params.chunk, params.n);',
    ];
  }

  /** An order-preserving tree reduction of `sh` (count entries) with member m's ⊕, into sh[0]. */
  private treeLines(
    ex: ExprEmitter,
    m: MemberPlan,
    sh: string,
    count: number,
    firstThread: string,
  ): string[] {
    return [
      `for (var s = 1u; s < ${count}u; s = s * 2u) {`,
      '  workgroupBarrier();',
      '  // entries of empty chunks (a suffix) are not combined',
      `  if (lid.x % (2u * s) == 0u && lid.x + s < ${count}u && ${firstThread.replace('$', '(lid.x + s)')} * params.chunk < params.n) {`,
      ...this.indent(this.combineStep(ex, m, `${sh}[lid.x]`, `${sh}[lid.x + s]`, `${sh}[lid.x]`), 2),
      '  }',
      '}',
    ];
  }

  /** Lines writing whether ⊕(ne, ne) = ne (bit for bit) into `res[1]`, as 1u or 0u. */
  private neutralCheck(ex: ExprEmitter, m: MemberPlan, res: string): string[] {
    const both = ex.fresh('ne_ne');
    return [
      `var ${both}: ${wgslType(m.info.ty)};`,
      ...this.combineStep(ex, m, m.ne, m.ne, both),
      `${res}[1] = select(0u, 1u, bitcast<u32>(${both}) == bitcast<u32>(${bare(m.ne)}));`,
    ];
  }

  private reducePasses(): void {
    const G = this.opts.groups;
    const scratch = new Map<string, { ty: string; words: PassBinding & { kind: 'scratch' } }>();
    for (const [k, m] of this.members.entries()) {
      scratch.set(`partials_${k}`, {
        ty: wgslType(m.info.ty),
        words: { kind: 'scratch', name: `partials_${k}`, words: { kind: 'words', words: G } },
      });
    }
    // Pass 1: chunks, then the workgroup's tree.
    {
      const { device, ex } = this.emitters();
      const shared = this.members.map(
        (m, k) => `var<workgroup> sh_${k}: array<${wgslType(m.info.ty)}, ${this.opts.wg}>;`,
      );
      const init = this.members.map((m, k) => `var acc_${k}: ${wgslType(m.info.ty)} = ${bare(m.ne)};`);
      const steps = this.members.flatMap((m, k) => [
        `// ${commentText(this.text[k] as string, LONG)}`,
        ...this.foldStep(ex, m, `acc_${k}`, `acc_${k}`),
      ]);
      const trees = this.members.flatMap((m, k) => [
        `sh_${k}[lid.x] = acc_${k};`,
        ...this.treeLines(ex, m, `sh_${k}`, this.opts.wg, `(wid.x * ${this.wg} + $)`),
        'workgroupBarrier();',
      ]);
      const main = [
        `@compute @workgroup_size(${this.opts.wg})`,
        'fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>,',
        '        @builtin(workgroup_id) wid: vec3<u32>) {',
        ...this.indent(this.chunkLines('gid.x'), 1),
        ...this.indent(init, 1),
        ...this.elementLoop(steps),
        ...this.indent(trees, 1),
        '  if (lid.x == 0u) {',
        ...this.members.map((_, k) => `    partials_${k}[wid.x] = sh_${k}[0];`),
        '  }',
        '}',
      ];
      this.pass(
        'fold chunks, reduce each workgroup',
        1,
        2,
        device,
        shared,
        main,
        { kind: 'chunks' },
        scratch,
      );
    }
    // Pass 2: the G workgroup results.
    {
      const { device, ex } = this.emitters();
      const shared = this.members.map(
        (m, k) => `var<workgroup> sh_${k}: array<${wgslType(m.info.ty)}, ${G}>;`,
      );
      const trees = this.members.flatMap((m, k) => [
        `if (lid.x < ${G}u) { sh_${k}[lid.x] = partials_${k}[lid.x]; }`,
        ...this.treeLines(ex, m, `sh_${k}`, G, `($ * ${this.wg})`),
        'workgroupBarrier();',
      ]);
      const finals = this.members.flatMap((m, k) => [
        `res_${k}[0] = bitcast<u32>(sh_${k}[0]);`,
        ...this.neutralCheck(ex, m, `res_${k}`),
      ]);
      const main = [
        `@compute @workgroup_size(${this.opts.wg})`,
        'fn main(@builtin(local_invocation_id) lid: vec3<u32>) {',
        ...this.indent(trees, 1),
        '  if (lid.x == 0u) {',
        ...this.indent(finals, 2),
        '  }',
        '}',
      ];
      this.pass('reduce the workgroup results', 2, 2, device, shared, main, { kind: 'single' }, scratch);
    }
    this.sequentialPass(scratch);
  }

  /**
   * The pass run instead when a fold's ⊕(ne, ne) != ne: one invocation folds every element in
   * order from ne, exactly the sequential semantics.
   */
  private sequentialPass(
    scratch: ReadonlyMap<string, { ty: string; words: PassBinding & { kind: 'scratch' } }>,
  ): void {
    const { device, ex } = this.emitters();
    const init = this.members.map((m, k) => `var acc_${k}: ${wgslType(m.info.ty)} = ${bare(m.ne)};`);
    const steps = this.members.flatMap((m, k) => [
      `// ${commentText(this.text[k] as string, LONG)}`,
      ...this.foldStep(ex, m, `acc_${k}`, `acc_${k}`),
      ...(this.kind === 'scan' ? [`out_${k}[e] = acc_${k};`] : []),
    ]);
    const finals = this.members.flatMap((_, k) => [
      ...(this.kind === 'reduce' ? [`res_${k}[0] = bitcast<u32>(acc_${k});`] : []),
      `res_${k}[1] = 1u;`,
    ]);
    const main = [
      '@compute @workgroup_size(1)',
      'fn main() {',
      ...this.indent(init, 1),
      ...this.elementLoop(steps, '0u', 'params.n'),
      ...this.indent(finals, 1),
      '}',
    ];
    this.pass(
      'sequential fold, run only when ne is not idempotent',
      0,
      0,
      device,
      [],
      main,
      { kind: 'single' },
      scratch,
    );
  }

  /**
   * The middle pass of scans and filters: each of W invocations folds its G consecutive chunk
   * totals, a Blelloch scan of the W sums gives exclusive prefixes, and each invocation rewrites
   * its G totals as their exclusive prefixes. `combine(a, b, target)` gives lines for target = a ⊕ b.
   */
  private prefixMain(
    ty: string,
    ne: string,
    scratchName: string,
    combine: (a: string, b: string, target: string) => string[],
    total: string[],
  ): string[] {
    const G = this.opts.groups;
    const W = this.opts.wg;
    return [
      `@compute @workgroup_size(${W})`,
      'fn main(@builtin(local_invocation_id) lid: vec3<u32>) {',
      `  let first = lid.x * ${G}u;`,
      `  var run: ${ty} = ${bare(ne)};`,
      `  for (var k = 0u; k < ${G}u; k = k + 1u) {`,
      ...this.indent(combine('run', `${scratchName}[first + k]`, 'run'), 2),
      '  }',
      '  sh[lid.x] = run;',
      '  // up-sweep: sh[j] becomes the sum of its subtree',
      `  for (var d = 1u; d < ${W}u; d = d * 2u) {`,
      '    workgroupBarrier();',
      '    if ((lid.x + 1u) % (2u * d) == 0u) {',
      ...this.indent(combine('sh[lid.x - d]', 'sh[lid.x]', 'sh[lid.x]'), 3),
      '    }',
      '  }',
      '  workgroupBarrier();',
      `  if (lid.x == ${W - 1}u) {`,
      ...this.indent(total, 2),
      `    sh[lid.x] = ${bare(ne)};`,
      '  }',
      '  // down-sweep: each left child takes the prefix, each right child prefix ⊕ left sum',
      `  for (var d = ${W / 2}u; d >= 1u; d = d / 2u) {`,
      '    workgroupBarrier();',
      '    if ((lid.x + 1u) % (2u * d) == 0u) {',
      '      let left = sh[lid.x - d];',
      '      sh[lid.x - d] = sh[lid.x];',
      ...this.indent(combine('sh[lid.x]', 'left', 'sh[lid.x]'), 3),
      '    }',
      '  }',
      '  workgroupBarrier();',
      '  run = sh[lid.x];',
      `  for (var k = 0u; k < ${G}u; k = k + 1u) {`,
      `    let tmp = ${scratchName}[first + k];`,
      `    ${scratchName}[first + k] = run;`,
      ...this.indent(combine('run', 'tmp', 'run'), 2),
      '  }',
      '}',
    ];
  }

  private chunkMainHeader(): string[] {
    return [
      `@compute @workgroup_size(${this.opts.wg})`,
      'fn main(@builtin(global_invocation_id) gid: vec3<u32>) {',
      ...this.indent(this.chunkLines('gid.x'), 1),
    ];
  }

  private scanPasses(): void {
    const m = this.members[0] as MemberPlan;
    const ty = wgslType(m.info.ty);
    const scratch = new Map([
      [
        'partials_0',
        { ty, words: { kind: 'scratch', name: 'partials_0', words: { kind: 'perThread' } } as const },
      ],
    ]);
    {
      const { device, ex } = this.emitters();
      const main = [
        ...this.chunkMainHeader(),
        `  var acc: ${ty} = ${bare(m.ne)};`,
        ...this.elementLoop(this.foldStep(ex, m, 'acc', 'acc')),
        '  partials_0[gid.x] = acc;',
        '}',
      ];
      this.pass('fold each chunk', 1, 3, device, [], main, { kind: 'chunks' }, scratch);
    }
    {
      const { device, ex } = this.emitters();
      const main = this.prefixMain(
        ty,
        m.ne,
        'partials_0',
        (a, b, t) => this.combineStep(ex, m, a, b, t),
        this.neutralCheck(ex, m, 'res_0'),
      );
      const shared = [`var<workgroup> sh: array<${ty}, ${this.opts.wg}>;`];
      this.pass(
        'exclusive prefixes of the chunk totals',
        2,
        3,
        device,
        shared,
        main,
        { kind: 'single' },
        scratch,
      );
    }
    {
      const { device, ex } = this.emitters();
      const main = [
        ...this.chunkMainHeader(),
        `  var acc: ${ty} = partials_0[gid.x];`,
        ...this.elementLoop([...this.foldStep(ex, m, 'acc', 'acc'), 'out_0[e] = acc;']),
        '}',
      ];
      this.pass('refold each chunk from its prefix', 3, 3, device, [], main, { kind: 'chunks' }, scratch);
    }
    this.sequentialPass(scratch);
  }

  private filterPasses(): void {
    const m = this.members[0] as MemberPlan;
    const scratch = new Map([
      [
        'counts',
        { ty: 'u32', words: { kind: 'scratch', name: 'counts', words: { kind: 'perThread' } } as const },
      ],
    ]);
    const predicate = (ex: ExprEmitter): { lines: string[]; keep: string } => {
      const app = ex.applyLam(m.soac.fn, m.actuals, true);
      return { lines: app.lines, keep: bare(app.result) };
    };
    {
      const { device, ex } = this.emitters();
      const p = predicate(ex);
      const main = [
        ...this.chunkMainHeader(),
        '  var kept = 0u;',
        ...this.elementLoop([...p.lines, `if (${p.keep}) { kept = kept + 1u; }`]),
        '  counts[gid.x] = kept;',
        '}',
      ];
      this.pass('count kept elements per chunk', 1, 3, device, [], main, { kind: 'chunks' }, scratch);
    }
    {
      const { device } = this.emitters();
      const main = this.prefixMain('u32', '0u', 'counts', (a, b, t) => [`${t} = ${a} + ${b};`], [
        'res_0[0] = sh[lid.x];',
      ]);
      const shared = [`var<workgroup> sh: array<u32, ${this.opts.wg}>;`];
      this.pass('exclusive offsets and the total', 2, 3, device, shared, main, { kind: 'single' }, scratch);
    }
    {
      const { device, ex } = this.emitters();
      const p = predicate(ex);
      const main = [
        ...this.chunkMainHeader(),
        '  var k = counts[gid.x];',
        ...this.elementLoop([
          ...p.lines,
          `if (${p.keep}) {`,
          `  out_0[k] = ${m.elem};`,
          '  k = k + 1u;',
          '}',
        ]),
        '}',
      ];
      this.pass('write kept elements at their offsets', 3, 3, device, [], main, { kind: 'chunks' }, scratch);
    }
  }
}

function siteKind(op: string): KernelSite['kind'] {
  switch (op) {
    case 'map':
      return 'map';
    case 'reduce':
    case 'redomap':
      return 'reduce';
    case 'scan':
    case 'scanomap':
      return 'scan';
    case 'filter':
      return 'filter';
    default:
      throw new Error(`internal error: unknown combinator '${op}'`);
  }
}
