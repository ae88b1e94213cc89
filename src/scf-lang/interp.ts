/**
 * The concrete Core interpreter with instruction counting (SCF §5's instrumented interpreter).
 *
 * Algorithm: each function body is compiled once into nested JavaScript closures over a flat
 * frame (one slot per parameter and per `let`), so a run walks no tree and looks up no names.
 * Every Core node evaluated counts as one abstract instruction; map and set primitives are also
 * counted on their own. These counts are the machine-independent cost measure of the staged
 * vs unstaged benchmarks.
 *
 * Tail calls run in constant stack. A call in tail position — the function's result is the call's
 * result: the body itself, a branch of an `if` or the body of a `let` in tail position (Core's
 * form of `return f(…)` inside `if`/`switch`/`const`) — does not call its callee: it stores the
 * callee and its new frame in the run's state and returns the `TAIL` token. The nearest call not in
 * tail position (or `run`) below it on the JavaScript stack is the trampoline: while its callee
 * returns `TAIL` it runs the stored function on the stored frame. So a loop written as tail
 * recursion (`run(pc + 1, push(stack, v), fuel - 1)`) takes one JavaScript frame however long it
 * runs, and only calls not in tail position nest (`f(x) + 1`), bounded by the call depth limit.
 * A tail call counts exactly as any call (the call node, then its arguments; `calls`): the counts
 * do not depend on where a call is.
 *
 * Invariants
 * - Values are the native representation (`values.ts`): a Core run and a native run of the same
 *   optimizer return values that `equal` compares directly.
 * - Errors in the interpreted program (projection on the wrong constructor, call depth or step
 *   budget exceeded) raise `ScfRuntimeError` with the Core node's source span; nothing else
 *   escapes. The call depth is the nesting of calls not in tail position (a tail call replaces
 *   its caller's frame); a JavaScript stack exhausted before the depth limit is reported the same
 *   way, at the last call made.
 * - `TAIL` never escapes a call or `run`: code in tail position may return it, and only to the
 *   trampoline of the call it is compiled under.
 */
import { assertNever, type CtorDecl, type Expr, type FunDef, type Program, type Span } from './core.js';
import { formatLocation } from './diagnostics.js';
import { isCollectionOp, primInfo } from './prims.js';
import { type CtorValue, showValue } from './values.js';

export interface Counts {
  /** Core nodes evaluated. */
  total: number;
  /** Map and set primitive operations among them. */
  collectionOps: number;
  /** Function calls among them. */
  calls: number;
  /** Map and set operations by primitive (`set_add`: 3, …). */
  byOp: Record<string, number>;
}

export interface RunOptions {
  /** Deepest call nesting allowed (default 20,000). */
  readonly maxDepth?: number;
  /** Most Core nodes one run may evaluate (default 10⁹): the interpreter's fuel. */
  readonly maxSteps?: number;
}

export interface RunResult {
  readonly value: unknown;
  readonly counts: Counts;
}

export class ScfRuntimeError extends Error {
  override readonly name = 'ScfRuntimeError';
  constructor(
    readonly detail: string,
    readonly span: Span | null,
    readonly location: string,
  ) {
    super(location ? `${location}: runtime error: ${detail}` : `runtime error: ${detail}`);
  }
}

type Code = (frame: unknown[]) => unknown;

/** What code in tail position returns for a tail call; the call itself is in `State.tailFun`/`tailFrame`. */
const TAIL: unique symbol = Symbol('tail call');
/** `State.tailFrame` when no tail call is pending. */
const NO_FRAME: unknown[] = [];

/** The frame slot of each variable in scope. */
type Scope = ReadonlyMap<string, number>;

/** The next free slot of the function's frame being compiled (each `let` takes one). */
interface Alloc {
  next: number;
}

interface State {
  counts: Counts;
  depth: number;
  maxDepth: number;
  maxSteps: number;
  lastCall: Span | null;
  /** The callee and frame of the tail call that returned `TAIL`, for the trampoline to run. */
  tailFun: CompiledFun | null;
  tailFrame: unknown[];
}

interface CompiledFun {
  readonly def: FunDef;
  nslots: number;
  code: Code;
}

/** A program compiled for repeated runs. */
export class Interpreter {
  private readonly funs = new Map<string, CompiledFun>();
  private state: State = freshState({});

  constructor(private readonly program: Program) {
    for (const def of program.funs.values()) {
      this.funs.set(def.name, { def, nslots: def.params.length, code: () => undefined });
    }
    for (const f of this.funs.values()) this.compileFun(f);
  }

  /** Runs function `fn` (its Core name, `module.name`) on `args`. */
  run(fn: string, args: readonly unknown[], options: RunOptions = {}): RunResult {
    const f = this.funs.get(fn);
    if (f === undefined) throw new ScfRuntimeError(`no function '${fn}'`, null, '');
    if (args.length !== f.def.params.length) {
      throw new ScfRuntimeError(
        `'${fn}' takes ${f.def.params.length} arguments, got ${args.length}`,
        f.def.span,
        this.loc(f.def.span),
      );
    }
    this.state = freshState(options);
    const frame: unknown[] = new Array(f.nslots);
    for (let i = 0; i < args.length; i++) frame[i] = args[i];
    try {
      const value = this.settle(f.code(frame));
      return { value, counts: this.state.counts };
    } catch (e) {
      if (e instanceof RangeError) {
        const span = this.state.lastCall;
        throw new ScfRuntimeError(
          'JavaScript stack exhausted (recursion too deep)',
          span,
          span ? this.loc(span) : '',
        );
      }
      throw e;
    }
  }

  /** The trampoline: runs the pending tail calls of a callee's result `r` until one returns a value. */
  private settle(r0: unknown): unknown {
    let r = r0;
    const s = this.state;
    while (r === TAIL) {
      const f = s.tailFun as CompiledFun;
      const frame = s.tailFrame;
      s.tailFun = null;
      s.tailFrame = NO_FRAME;
      r = f.code(frame);
    }
    return r;
  }

  /** Core nodes the last `run` evaluated, also when it failed (its work, for callers' budgets). */
  get lastSteps(): number {
    return this.state.counts.total;
  }

  private loc(span: Span): string {
    return formatLocation(span, this.program.sources);
  }

  private fail(detail: string, span: Span): never {
    throw new ScfRuntimeError(detail, span, this.loc(span));
  }

  private compileFun(f: CompiledFun): void {
    const scope = new Map<string, number>();
    f.def.params.forEach((p, i) => {
      scope.set(p, i);
    });
    const alloc = { next: f.def.params.length };
    f.code = this.compile(f.def.body, scope, alloc, true);
    f.nslots = alloc.next;
  }

  /** Counts one evaluated node; fails past the step budget. */
  private readonly tick = (span: Span): void => {
    const s = this.state;
    if (++s.counts.total > s.maxSteps) this.fail(`step budget of ${s.maxSteps} exhausted`, span);
  };

  /** The code of `e`; `tail`: `e` is in tail position (its value is the function's result). */
  private compile(e: Expr, scope: Scope, alloc: Alloc, tail = false): Code {
    const tick = this.tick;
    switch (e.kind) {
      case 'var': {
        const slot = scope.get(e.name);
        if (slot === undefined) return this.fail(`unbound variable '${e.name}'`, e.span);
        return (frame) => {
          tick(e.span);
          return frame[slot];
        };
      }
      case 'lit': {
        const v = e.value;
        return () => {
          tick(e.span);
          return v;
        };
      }
      case 'con': {
        const decl = this.ctor(e.ctor, e.span);
        const args = e.args.map((a) => this.compile(a, scope, alloc));
        if (decl.repr === 'tuple') {
          return (frame) => {
            tick(e.span);
            return args.map((a) => a(frame));
          };
        }
        const kind = decl.name;
        const fields = decl.fields;
        return (frame) => {
          tick(e.span);
          const o: Record<string, unknown> = { kind };
          for (let i = 0; i < args.length; i++) o[fields[i] as string] = (args[i] as Code)(frame);
          return o;
        };
      }
      case 'test': {
        const decl = this.ctor(e.ctor, e.span);
        const arg = this.compile(e.arg, scope, alloc);
        if (decl.repr === 'tuple') {
          return (frame) => {
            tick(e.span);
            const v = arg(frame);
            return Array.isArray(v) && v.length === decl.fields.length;
          };
        }
        const kind = decl.name;
        return (frame) => {
          tick(e.span);
          const v = arg(frame) as CtorValue;
          return typeof v === 'object' && v !== null && v.kind === kind;
        };
      }
      case 'proj':
        return this.compileProj(e, scope, alloc);
      case 'if': {
        const c = this.compile(e.cond, scope, alloc);
        const t = this.compile(e.then, scope, alloc, tail);
        const f = this.compile(e.else, scope, alloc, tail);
        return (frame) => {
          tick(e.span);
          return c(frame) === true ? t(frame) : f(frame);
        };
      }
      case 'let': {
        const value = this.compile(e.value, scope, alloc);
        const slot = alloc.next++;
        const inner = new Map(scope);
        inner.set(e.name, slot);
        const body = this.compile(e.body, inner, alloc, tail);
        return (frame) => {
          tick(e.span);
          frame[slot] = value(frame);
          return body(frame);
        };
      }
      case 'call':
        return tail ? this.compileTailCall(e, scope, alloc) : this.compileCall(e, scope, alloc);
      case 'prim':
        return this.compilePrim(e, scope, alloc);
      default:
        return assertNever(e);
    }
  }

  /** A projection: the field of a record (or a tuple element), a run-time error on any other value. */
  private compileProj(e: Extract<Expr, { kind: 'proj' }>, scope: Scope, alloc: Alloc): Code {
    const tick = this.tick;
    const decl = this.ctor(e.ctor, e.span);
    const arg = this.compile(e.arg, scope, alloc);
    const field = decl.fields[e.index];
    if (field === undefined) return this.fail(`constructor '${e.ctor}' has no field ${e.index}`, e.span);
    if (decl.repr === 'tuple') {
      const idx = e.index;
      return (frame) => {
        tick(e.span);
        const v = arg(frame);
        if (!Array.isArray(v)) this.fail(`projection ${e.ctor}⁻${idx} applied to ${showValue(v)}`, e.span);
        return v[idx];
      };
    }
    const kind = decl.name;
    return (frame) => {
      tick(e.span);
      const v = arg(frame) as CtorValue;
      if (typeof v !== 'object' || v === null || v.kind !== kind) {
        this.fail(`projection ${kind}.${field} applied to ${showValue(v)}`, e.span);
      }
      return v[field];
    };
  }

  /**
   * A call not in tail position: a fresh frame for the callee, the depth bounded, the call
   * counted; the trampoline of the tail calls its callee makes.
   */
  private compileCall(e: Extract<Expr, { kind: 'call' }>, scope: Scope, alloc: Alloc): Code {
    const tick = this.tick;
    const callee = this.funs.get(e.fn);
    if (callee === undefined) return this.fail(`unknown function '${e.fn}'`, e.span);
    const args = e.args.map((a) => this.compile(a, scope, alloc));
    return (frame) => {
      tick(e.span);
      const s = this.state;
      s.counts.calls++;
      const inner: unknown[] = new Array(callee.nslots);
      for (let i = 0; i < args.length; i++) inner[i] = (args[i] as Code)(frame);
      if (++s.depth > s.maxDepth) this.fail(`call depth exceeded ${s.maxDepth} calling '${e.fn}'`, e.span);
      s.lastCall = e.span;
      const r = this.settle(callee.code(inner));
      s.depth--;
      return r;
    };
  }

  /**
   * A call in tail position: counted as any call, its frame built, then left to the trampoline
   * below (`settle`) instead of called — the depth stays, as the caller's frame is done with.
   */
  private compileTailCall(e: Extract<Expr, { kind: 'call' }>, scope: Scope, alloc: Alloc): Code {
    const tick = this.tick;
    const callee = this.funs.get(e.fn);
    if (callee === undefined) return this.fail(`unknown function '${e.fn}'`, e.span);
    const args = e.args.map((a) => this.compile(a, scope, alloc));
    return (frame) => {
      tick(e.span);
      const s = this.state;
      s.counts.calls++;
      const inner: unknown[] = new Array(callee.nslots);
      for (let i = 0; i < args.length; i++) inner[i] = (args[i] as Code)(frame);
      s.lastCall = e.span;
      s.tailFun = callee;
      s.tailFrame = inner;
      return TAIL;
    };
  }

  /** A primitive: its native implementation; collection primitives are counted apart (map-op ×). */
  private compilePrim(e: Extract<Expr, { kind: 'prim' }>, scope: Scope, alloc: Alloc): Code {
    const tick = this.tick;
    const info = primInfo(e.op);
    const impl = info.impl as (...a: unknown[]) => unknown;
    const args = e.args.map((a) => this.compile(a, scope, alloc));
    const coll = isCollectionOp(e.op);
    const count = (span: Span) => {
      tick(span);
      if (coll) {
        const c = this.state.counts;
        c.collectionOps++;
        c.byOp[e.op] = (c.byOp[e.op] ?? 0) + 1;
      }
    };
    switch (args.length) {
      case 0:
        return () => {
          count(e.span);
          return impl();
        };
      case 1: {
        const [a] = args as [Code];
        return (frame) => {
          count(e.span);
          return impl(a(frame));
        };
      }
      case 2: {
        const [a, b] = args as [Code, Code];
        return (frame) => {
          count(e.span);
          return impl(a(frame), b(frame));
        };
      }
      default:
        return (frame) => {
          count(e.span);
          return impl(...args.map((a) => a(frame)));
        };
    }
  }

  private ctor(name: string, span: Span): CtorDecl {
    const d = this.program.ctors.get(name);
    if (d === undefined) return this.fail(`unknown constructor '${name}'`, span);
    return d;
  }
}

function freshState(o: RunOptions): State {
  return {
    counts: { total: 0, collectionOps: 0, calls: 0, byOp: {} },
    depth: 0,
    maxDepth: o.maxDepth ?? 20_000,
    maxSteps: o.maxSteps ?? 1e9,
    lastCall: null,
    tailFun: null,
    tailFrame: NO_FRAME,
  };
}

/** One-shot convenience: compile `program` and run `fn` on `args`. */
export function interpret(
  program: Program,
  fn: string,
  args: readonly unknown[],
  options?: RunOptions,
): RunResult {
  return new Interpreter(program).run(fn, args, options);
}
