/**
 * Tiered kernels: a generic kernel answers at once, the kernel specialized for the late values
 * takes over when it is ready (as Dolphin's ubershaders and V8's tiers do).
 *
 * Algorithm. `TieredKernels.create` compiles the generic kernel once: the pipeline's output with no
 * late value known, whose late formals stay run-time arguments (scalars in the uniform buffer on
 * WebGPU, so one pipeline serves every value). `forValues(values)` returns the handle for one set
 * of late values: its specialized kernel — the source's `specialize(values)`, then code
 * generation and, on WebGPU, pipeline creation (`createComputePipelineAsync`) — is made in the
 * background once the first run has its result (or when `ready` is asked for), so the first
 * result does not wait for it nor share the device with it. Until it is ready `run` calls the
 * generic kernel with the late values added to the arguments; afterwards the specialized one.
 * Handles are cached by values (least recently used first out, `cacheSize`), so a value set seen
 * again finds its specialized kernel ready.
 *
 * Templates (template.ts). The specialized program is compiled as its template, float constants
 * lifted into arguments, and compiled templates are cached by shape (`cacheSize` of them): values
 * whose program has a shape compiled before — new taps, new coefficients, the same trip counts and
 * op codes — get their kernel without code generation or pipeline creation
 * (`specializedKernel(values)` makes it at once). On the JS back end the template is as fast as
 * the kernel with literals, and is the specialized tier. On WebGPU a device's compiler folds
 * literals that it cannot fold arguments, so the template is a middle tier (`tier` 'template'):
 * it runs while the kernel with the constants as literals is made, which then takes over.
 *
 * Invariants. Both tiers compute the same outputs for the same arguments: the specialized kernel
 * is the pipeline's output for these values (staged ≡ unstaged), the generic one its output with
 * none known, and every pass preserves the reference evaluator's results. A specialization that
 * fails (values the staged description does not admit are handled by the stub itself; a shader
 * the device rejects, a kernel whose unrolled size is too large for it) leaves the handle on the
 * generic tier (on WebGPU on the template, when that was made): `ready` still resolves, and
 * `failure` says why. `ready` never rejects. A template the device rejects gives way to the
 * program compiled as it is.
 */
import {
  type ArgValue,
  type Fun,
  KernelArgumentError,
  listFromArray,
  listToArray,
  type Program,
} from '../kernel/index.js';
import { type Bindings, specializationNotes } from '../optimizers/index.js';
import type { LoadedStub } from '../pipeline/index.js';
import { compileKernelJs } from './js.js';
import type { GpuRunOptions, GpuRuntime } from './webgpu.js';
import { learnShape, matchShape, type Shape, shapeOf } from './shape.js';
import { floatConstants, type KernelTemplate, kernelTemplate } from './template.js';
import { planKernelWgsl } from './wgsl.js';

/** What a kernel run gives: the returned value and the arrays written through array formals. */
export interface KernelResult {
  readonly result: number | number[] | undefined;
  readonly outputs: Record<string, number[]>;
  /** On WebGPU with `timing`: the device's time in the kernel's compute passes (ms). */
  readonly gpuMs?: number;
}

/** A kernel ready to run with arguments by formal name. */
export interface ReadyKernel {
  /** On WebGPU, `GpuKernel.run`'s options (`repeat`, `timing`); ignored on the JS back end. */
  run(args: Readonly<Record<string, ArgValue>>, options?: GpuRunOptions): Promise<KernelResult>;
  /** On the JS back end: the kernel alone on arguments converted once (`CompiledKernel.bind`). */
  readonly bind?: (args: Readonly<Record<string, ArgValue>>) => () => unknown;
}

/** Where kernels run: the JS back end, or a WebGPU device. */
export type KernelBackend = 'js' | GpuRuntime;

/** What tiers are made from: a staged stub (its `FUN` and `specialize`) and the generic function. */
export interface TierSource {
  /** The function as a pipeline gets it, its callees in `fns` (a stub's `FUN`). */
  readonly fun: Fun;
  /** The pipeline's output with no late value known (e.g. `stub.unstagedPipeline(stub.formalsOf({}))`). */
  readonly generic: Fun;
  /** The pipeline's output for late values (a stub's `specialize(values).fun`). */
  specialize(values: Readonly<Record<string, ArgValue>>): Fun;
}

export interface TierOptions {
  readonly backend: KernelBackend;
  /** Specialized kernels kept, by late values, and compiled templates kept, by shape (default 16 each). */
  readonly cacheSize?: number;
  /**
   * Whether specialized programs that differ only in float constants share one compiled kernel,
   * the constants passed as arguments (template.ts; default true). With false each set of values
   * is compiled on its own, float constants as literals.
   */
  readonly templates?: boolean;
  /**
   * How a specialized program finds its compiled template: by its shape, one walk that builds
   * nothing (shape.ts; 'shape', the default), or by making its template afresh each time
   * ('template', template.ts's two walks: a benchmark's baseline). Both find the same kernels.
   */
  readonly findTemplate?: 'shape' | 'template';
}

/** A program of `fun` and its callees: what the back ends compile. */
export function programOf(fun: Fun): Program {
  const nil = { kind: 'nil' as const };
  return listFromArray([...listToArray(fun.fns).map((g) => ({ ...g, fns: nil })), { ...fun, fns: nil }]);
}

/** `fun` (and its callees) compiled for `backend`. */
export function compileFor(fun: Fun, backend: KernelBackend): Promise<ReadyKernel> {
  return compileProgram(programOf(fun), fun.name, backend);
}

async function compileProgram(program: Program, name: string, backend: KernelBackend): Promise<ReadyKernel> {
  if (backend === 'js') {
    const k = compileKernelJs(program, name);
    return { run: async (args) => k.run(args), bind: (args) => k.bind(args) };
  }
  const k = await backend.prepare(planKernelWgsl(program, name));
  return { run: (args, options) => k.run(args, options) };
}

/**
 * A template's compiled kernel (for function `name`) with its constants added to every call's
 * arguments; an argument named like one of them is refused as the program itself refuses it.
 */
function withConstants(
  k: ReadyKernel,
  name: string,
  constants: Readonly<Record<string, number>>,
): ReadyKernel {
  const all = (args: Readonly<Record<string, ArgValue>>) => {
    for (const c of Object.keys(constants))
      if (Object.hasOwn(args, c)) throw new KernelArgumentError(`'${name}' has no parameter '${c}'`);
    return { ...args, ...constants };
  };
  const bind = k.bind;
  return {
    run: async (args, options) => k.run(all(args), options),
    ...(bind ? { bind: (args: Readonly<Record<string, ArgValue>>) => bind(all(args)) } : {}),
  };
}

/** Sets `key` in `map` as its most recent entry, dropping the least recent beyond `max`. */
function setRecent<V>(map: Map<string, V>, key: string, value: V, max: number): void {
  map.delete(key);
  map.set(key, value);
  while (map.size > Math.max(1, max)) map.delete(map.keys().next().value as string);
}

/** Late values as a cache key: JSON by sorted name, -0 kept apart from 0. */
function valuesKey(values: Readonly<Record<string, ArgValue>>): string {
  const entries = Object.keys(values)
    .sort()
    .map((k) => [k, values[k]]);
  return JSON.stringify(entries, (_, v) => (typeof v === 'number' && Object.is(v, -0) ? '-0' : v));
}

/** One set of late values: generic until its specialized kernel is ready. */
export class TieredKernel {
  private specialized: ReadyKernel | undefined;
  /** On WebGPU, the template of the values' shape, run until `specialized` is ready. */
  private template: ReadyKernel | undefined;
  private making: Promise<void> | undefined;
  /** Why the specialized tier could not be made (the handle then stays generic). */
  failure: string | undefined;
  /** What the specialized kernel left generic (`specializationNotes`), once it is made. */
  notes: readonly string[] = [];

  constructor(
    private readonly generic: ReadyKernel,
    readonly values: Readonly<Record<string, ArgValue>>,
    private readonly make: (onTemplate: (k: ReadyKernel) => void) => Promise<[ReadyKernel, string[]]>,
  ) {}

  /**
   * Resolves when the specialized kernel is ready, or its making failed (`failure`); never
   * rejects. Asking for it starts the making if no run has yet.
   */
  get ready(): Promise<void> {
    return this.start();
  }

  /** Which kernel `run` uses now. */
  get tier(): 'generic' | 'template' | 'specialized' {
    return this.specialized ? 'specialized' : this.template ? 'template' : 'generic';
  }

  /**
   * Runs the kernel on `args` (the formals that are not late; the late ones are this handle's
   * values). The first run goes to the generic kernel and starts making the specialized one once
   * it has its result, so the two do not compete for the device (or, on a software driver, for
   * the CPU) before the first result.
   */
  run(args: Readonly<Record<string, ArgValue>>): Promise<KernelResult> {
    const all = { ...args, ...this.values };
    const ready = this.specialized ?? this.template;
    if (ready) return ready.run(all);
    const out = this.generic.run(all);
    void out.then(
      () => this.start(),
      () => this.start(),
    );
    return out;
  }

  private start(): Promise<void> {
    // on a later turn of the event loop: code generation is synchronous work, and the caller
    // that awaited the first result must get it first
    const onTemplate = (k: ReadyKernel): void => {
      this.template = k;
    };
    this.making ??= new Promise<void>((resolve) => setTimeout(resolve, 0))
      .then(() => this.make(onTemplate))
      .then(
        ([k, notes]) => {
          this.specialized = k;
          this.notes = notes;
        },
        (e: unknown) => {
          this.failure = e instanceof Error ? e.message : String(e);
        },
      );
    return this.making;
  }
}

/** The generic kernel of a staged function and its tiered handles, cached by late values. */
export class TieredKernels {
  private readonly cache = new Map<string, TieredKernel>();
  /** Compiled templates by key (template.ts, or shape.ts's `keyOf`), least recently used first out. */
  private readonly templates = new Map<string, Promise<ReadyKernel>>();
  /**
   * Each shape met, by text (shape.ts): what its template needs (null: no template for it) and the
   * last program of it, which the next programs are compared with; least recently used first out.
   */
  private readonly shapes = new Map<string, KnownShape>();
  /** The generic kernel's float constants, which templates keep as literals. */
  private keep: Set<number> | undefined;

  private constructor(
    private readonly source: TierSource,
    private readonly options: TierOptions,
    /** The generic kernel, compiled once. */
    readonly generic: ReadyKernel,
  ) {}

  static async create(source: TierSource, options: TierOptions): Promise<TieredKernels> {
    return TieredKernels.withGeneric(source, options, await compileFor(source.generic, options.backend));
  }

  /** The same with the generic kernel already compiled (`compileFor(source.generic, backend)`). */
  static withGeneric(source: TierSource, options: TierOptions, generic: ReadyKernel): TieredKernels {
    return new TieredKernels(source, options, generic);
  }

  /** The handle for these late values (the cached one, if any). */
  forValues(values: Readonly<Record<string, ArgValue>>): TieredKernel {
    const key = valuesKey(values);
    const hit = this.cache.get(key);
    if (hit) {
      setRecent(this.cache, key, hit, this.cacheSize);
      return hit;
    }
    const frozen = Object.freeze({ ...values });
    const handle = new TieredKernel(this.generic, frozen, async (onTemplate) => {
      const fun = this.source.specialize(frozen);
      const notes = specializationNotes(fun, programOf(this.source.fun));
      const made = await this.compileSpecialized(fun);
      if (this.options.backend === 'js' || !made.template) return [made.kernel, notes];
      // WebGPU: the template runs while the kernel with its constants as literals is made
      onTemplate(made.kernel);
      return [await compileFor(fun, this.options.backend), notes];
    });
    setRecent(this.cache, key, handle, this.cacheSize);
    return handle;
  }

  /**
   * The kernel specialized for `values`, made now (no tiers): the source's `specialize(values)`,
   * then the compiled template of its shape, compiled first if it is new (`templates`).
   */
  async specializedKernel(values: Readonly<Record<string, ArgValue>>): Promise<ReadyKernel> {
    return (await this.compileSpecialized(this.source.specialize(values))).kernel;
  }

  private get cacheSize(): number {
    return this.options.cacheSize ?? 16;
  }

  /** `fun` compiled, through the template cache unless `templates` is false (`template` then). */
  private async compileSpecialized(fun: Fun): Promise<{ kernel: ReadyKernel; template: boolean }> {
    const program = programOf(fun);
    const plain = async () => ({
      kernel: await compileProgram(program, fun.name, this.options.backend),
      template: false,
    });
    if (this.options.templates === false) return plain();
    this.keep ??= floatConstants(programOf(this.source.generic));
    const found = this.findTemplate(program, fun.name, this.keep);
    if (found === undefined) return plain();
    let compiled = this.templates.get(found.key);
    if (compiled === undefined) {
      const lifted = found.lifted();
      if (lifted === undefined) return plain();
      compiled = compileProgram(lifted, fun.name, this.options.backend);
      // a failed compile is not kept: the next set of values of this shape tries again
      compiled.catch(() => {
        if (this.templates.get(found.key) === compiled) this.templates.delete(found.key);
      });
    }
    setRecent(this.templates, found.key, compiled, this.cacheSize);
    let kernel: ReadyKernel;
    try {
      kernel = await compiled;
    } catch {
      // what the template cannot do (a device's limit on arguments), the program as it is may
      return plain();
    }
    return { kernel: withConstants(kernel, fun.name, found.constants), template: true };
  }

  /**
   * The key of `program`'s compiled template, its constants and its lifted program
   * (`findTemplate`): by its shape, learnt the first time it is met (shape.ts), or from its
   * template made afresh.
   */
  private findTemplate(
    program: Program,
    entry: string,
    keep: ReadonlySet<number>,
  ): Pick<KernelTemplate, 'key' | 'constants' | 'lifted'> | undefined {
    if (this.options.findTemplate === 'template') return kernelTemplate(program, entry, keep);
    const found = this.matchKnown(program, entry, keep) ?? this.learn(program, entry, keep);
    if (found === undefined || found.known.shape === null) return undefined;
    const { shape } = found.known;
    return {
      key: shape.keyOf(found.holes),
      constants: shape.constantsOf(found.holes),
      // made only where this key has no compiled kernel
      lifted: () => kernelTemplate(program, entry, keep)?.lifted(),
    };
  }

  /** The holes of `program` where it has the shape of one of the last programs met (shape.ts's `matchShape`). */
  private matchKnown(
    program: Program,
    entry: string,
    keep: ReadonlySet<number>,
  ): { known: KnownShape; holes: readonly number[] } | undefined {
    // the most recent first, a few: past them the shape's text is the quicker way
    const recent = [...this.shapes.values()].slice(-MATCH_TRIES).reverse();
    for (const known of recent) {
      if (known.entry !== entry) continue;
      const holes = matchShape(program, known.program, known.holes, keep);
      if (holes === undefined) continue;
      setRecent(this.shapes, known.text, { ...known, program, holes }, this.cacheSize);
      return { known, holes };
    }
    return undefined;
  }

  /** `program`'s shape by its text, learnt if it is new (shape.ts). */
  private learn(
    program: Program,
    entry: string,
    keep: ReadonlySet<number>,
  ): { known: KnownShape; holes: readonly number[] } | undefined {
    const text = shapeOf(program, entry, keep);
    if (text === undefined) return undefined;
    const met = this.shapes.get(text.text);
    const shape = met !== undefined ? met.shape : learnShape(program, entry, keep, text);
    const known: KnownShape = { text: text.text, entry, shape, program, holes: text.holes };
    setRecent(this.shapes, text.text, known, this.cacheSize);
    return { known, holes: text.holes };
  }
}

/** A shape a `TieredKernels` met: its text, what its template needs, the last program of it. */
interface KnownShape {
  readonly text: string;
  readonly entry: string;
  readonly shape: Shape | null;
  readonly program: Program;
  readonly holes: readonly number[];
}

/** How many of the last shapes met a program is compared with before its shape's text is walked. */
const MATCH_TRIES = 4;

/**
 * The tiered kernels of a staged stub (`importStub`, or the stub module itself): the generic
 * kernel is the unstaged pipeline's output with no late value known, the specialized ones the
 * stub's `specialize`. The unstaged pipeline's passes are loaded first (the stub's
 * `loadFallback`: in a page, a chunk loaded on demand), so `specialize` never lacks them.
 */
export async function tieredKernels(
  stub: Pick<LoadedStub, 'FUN' | 'formalsOf' | 'unstagedPipeline' | 'specialize'> &
    Partial<Pick<LoadedStub, 'loadFallback'>>,
  options: TierOptions,
): Promise<TieredKernels> {
  // the generic kernel is the unstaged pipeline's output, whose passes a page loads on demand
  await stub.loadFallback?.();
  return TieredKernels.create(
    {
      fun: stub.FUN,
      generic: stub.unstagedPipeline(stub.formalsOf({})),
      specialize: (values) => stub.specialize(values as Bindings).fun,
    },
    options,
  );
}
