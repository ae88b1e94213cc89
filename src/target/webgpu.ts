/// <reference types="@webgpu/types" />
/**
 * The WebGPU runtime: runs a `GpuPlan` (wgsl.ts) on a device of the `webgpu` package (Dawn for
 * Node), or explains why it cannot.
 *
 * Algorithm. `GpuRuntime.open` creates Dawn's GPU object once per process (kept referenced for the
 * process's lifetime: dawn.node crashes when it is collected while a device lives), asks for the
 * default adapter and a device. Without an adapter it returns a `NoAdapter` saying what to install.
 * Before dawn.node is loaded, dawn-env.ts sets its environment: on a Debian machine with the
 * chromium package SwiftShader's Vulkan driver is added to the loader's search unless the
 * environment already chooses drivers, and the variables whose absence makes Dawn's drivers and
 * layers print on stderr are given values. `prepare` compiles each pass's shader (module cache
 * keyed by shader text), reads `getCompilationInfo` and creates the compute pipeline (pipeline
 * cache keyed by shader text and override constants), turning any error into `ShaderRejected`
 * with the WGSL line and column.
 * `GpuKernel.run` runs the plan's host driver (JavaScript) on the CPU; each `$gpu(site, arrays,
 * scalars)` call checks lengths as the evaluator does, uploads the inputs (an array a previous
 * launch of the same run produced is already on the device and is not uploaded again), writes the
 * uniform buffer (n, chunk length, scalar operands), encodes the site's passes in one command
 * buffer, and reads back the results the host needs: scalars, and the arrays (a filter's first
 * `count` elements) the plan marks `readBack` — an array the host only passes to later launches
 * stays in its device buffer, and the host driver holds a `DeviceArray` handle (its length).
 * Where the adapter has 'timestamp-query', the device is opened with it and a run asked for
 * `timing` writes a timestamp at the start and end of each compute pass, resolved and read back
 * with the outputs: `gpuMs` is the device's time in the kernel's passes alone (no upload,
 * encoding, submission or read back), what a benchmark of the kernel itself needs; Dawn is
 * created without its timestamp quantization (DAWN_FLAGS), so the clock reads nanoseconds.
 *
 * Published types. GpuRuntime's public members name no WebGPU type: the device is a `WebGpuDevice`
 * (a structural subset of `GPUDevice`), and what a run needs of Dawn (`DeviceAccess`: the device,
 * its constants, the pipeline cache) is a private member handed to each `Run`, so the `.d.ts`
 * type-checks in an app without the DOM lib or `@webgpu/types` (this file's own reference to
 * `@webgpu/types`, which comes with the `webgpu` package, is not emitted).
 *
 * Invariants. Every buffer a run creates is destroyed when the run ends; pipelines and modules
 * live as long as the runtime; `destroy` destroys the device. Errors Dawn reports for a dispatch
 * (validation, out of memory) are raised as errors naming the function and site; a lost device
 * rejects pending reads, so a run never waits forever on a dead device.
 */
import { type ArgValue, FOLD_OPS, type Program } from '../kernel/index.js';
import { type Dawn, loadDawn } from './dawn.js';
import { compileKernelJs, type JsKernelOptions, kernelCall, type TypedArray } from './js.js';
import type { GpuPlan, KernelSite, ShaderPass, WgslOptions } from './plan.js';
import { planKernelWgsl } from './wgsl.js';

export { SOFTWARE_DRIVER_HINT } from './hints.js';

/** Why no GPU runtime could be opened. */
export interface NoAdapter {
  readonly kind: 'no-adapter';
  /** e.g. "no WebGPU adapter (Vulkan found no driver)". */
  readonly reason: string;
  /** What to install: SOFTWARE_DRIVER_HINT. */
  readonly install: string;
}

/** The result of running a kernel function. */
export interface KernelRun {
  readonly backend: 'webgpu' | 'js';
  readonly result: number | number[] | undefined;
  readonly outputs: Record<string, number[]>;
  /** Why the JS back end ran when WebGPU was allowed ('auto'). */
  readonly note?: string;
}

/** The device rejected a shader: names the function, the pass and the WGSL position. */
export class ShaderRejected extends Error {
  constructor(
    readonly fn: string,
    readonly pass: string,
    readonly detail: string,
    readonly line: number | undefined,
    readonly col: number | undefined,
  ) {
    super(
      `function '${fn}': the device rejected the shader of ${pass}${line !== undefined ? ` at WGSL ${line}:${col}` : ''}: ${detail}`,
    );
    this.name = 'ShaderRejected';
  }
}

/** A run-time error of a GPU run that is the input's fault (mapped arrays of different lengths, …). */
export class GpuRunError extends Error {
  constructor(
    readonly fn: string,
    readonly reason: string,
  ) {
    super(`function '${fn}': ${reason}`);
    this.name = 'GpuRunError';
  }
}

/** A plan whose every pipeline was created and validated on a device. */
export interface GpuKernel {
  readonly plan: GpuPlan;
  /**
   * Runs the host function with `args` (checked and converted as `evaluate` does). With `repeat`
   * k > 1, every launch of an elementwise site (a map or a fused group of maps) encodes each of
   * its dispatches k times in a row (one compute pass, one bind group) before the read back, on the
   * same device buffers: what a benchmark needs to time the kernel with its data on the device (the
   * time of k dispatches minus that of one), with little encoding work per extra dispatch.
   */
  run(
    args: readonly ArgValue[] | Readonly<Record<string, ArgValue>>,
    options?: GpuRunOptions,
  ): Promise<{ result: number | number[] | undefined; outputs: Record<string, number[]>; gpuMs?: number }>;
}

/** GpuKernel.run's options. */
export interface GpuRunOptions {
  /** Each dispatch of an elementwise launch encoded this many times in a row (default 1). */
  readonly repeat?: number;
  /**
   * Time the compute passes on the device with timestamp queries: the run's result then has
   * `gpuMs`, the sum over its passes of end − start. Only where `GpuRuntime.timestamps`.
   */
  readonly timing?: boolean;
}

/** Counters for tests and benchmarks. */
export interface GpuStats {
  modulesCreated: number;
  pipelinesCreated: number;
  pipelineCacheHits: number;
  dispatches: number;
  /** Bytes copied back from the device (results the host reads, filter counts, fold results). */
  bytesRead: number;
}

// ---- Dawn ----------------------------------------------------------------------------------------

/**
 * The device as GpuRuntime's published declarations show it: a structural subset of WebGPU's
 * `GPUDevice`, declared here so that scf's `.d.ts` files type-check in any app — `@webgpu/types`
 * declares its globals against the DOM's (EventTarget, HTMLCanvasElement, …) and fails under a
 * `lib` without "DOM", and TypeScript's own DOM lib has the WebGPU types in some versions only.
 * The object is Dawn's `GPUDevice`; an app with `@webgpu/types` may cast it (`rt.device as GPUDevice`).
 */
export interface WebGpuDevice {
  readonly label: string;
  /** Settles when the device is lost or destroyed. */
  readonly lost: Promise<{ readonly reason: string; readonly message: string }>;
}

/**
 * What a run uses of its runtime's device. Kept in a private member of GpuRuntime and handed to each
 * Run, so that no published declaration names a WebGPU type (the private members' types are not
 * emitted).
 */
interface DeviceAccess {
  readonly device: GPUDevice;
  readonly dawn: Dawn;
  /** The pipeline of `pass` with these override values (cached). */
  pipeline(fn: string, pass: ShaderPass, constants: Record<string, number>): Promise<GPUComputePipeline>;
}

// ---- the runtime ---------------------------------------------------------------------------------

/**
 * Workgroups of an element-wise pass over n elements, `per` an invocation, at most `most`; a
 * coarsened pass (per > 1) at most most / per, so that each workgroup's share of the elements is
 * what it is uncoarsened (on a software adapter, where `most` is small, see `elementGroups`).
 */
function perElementGroups(n: number, W: number, per: number, most: number): number {
  return Math.min(Math.max(1, Math.ceil(n / (W * per))), Math.max(1, Math.floor(most / per)));
}

/** Whether `pass` runs for these site scalars (ShaderPass.when). */
function runsFor(pass: ShaderPass, scalars: readonly number[]): boolean {
  return !pass.when || pass.when.positive.every((k) => (scalars[k] as number) > 0) === pass.when.holds;
}

/** Workgroups of an element-wise pass on a software adapter (see `GpuRuntime.elementGroups`). */
export const SOFTWARE_ELEMENT_GROUPS = 32;

export class GpuRuntime {
  /**
   * Whether some runtime abandoned a device running a kernel that did not finish: the process
   * cannot exit normally then (Dawn waits for the kernel), so a command line calls process.exit.
   */
  static anyAbandoned = false;
  readonly stats: GpuStats = {
    modulesCreated: 0,
    pipelinesCreated: 0,
    pipelineCacheHits: 0,
    dispatches: 0,
    bytesRead: 0,
  };
  /** The compiler's warnings on the shaders compiled so far (the generator aims at none). */
  readonly warnings: string[] = [];
  private readonly modules = new Map<string, Promise<GPUShaderModule>>();
  private readonly pipelines = new Map<string, Promise<GPUComputePipeline>>();
  private destroyed = false;
  private lost: string | undefined;
  /**
   * The most workgroups an element-wise pass dispatches; its shader strides over the elements
   * beyond. A GPU gets one invocation per element (up to WebGPU's 65,535 groups). A software
   * adapter runs each workgroup as a task on a few CPU threads, and its cost per workgroup
   * outweighs a short kernel's body: with SOFTWARE_ELEMENT_GROUPS groups, each invocation loops
   * over its share, which runs the suite's kernels faster on SwiftShader (docs/benchmarks.md).
   */
  readonly elementGroups: number;
  /** How long a launch may take before it is abandoned (GpuRuntime.open's `timeoutMs`). */
  private timeoutMs = 60_000;
  private abandoned = false;

  private readonly access: DeviceAccess;

  private constructor(
    dawn: Dawn,
    private readonly gpuDevice: GPUDevice,
    /** e.g. "google swiftshader (fallback adapter)". */
    readonly adapterName: string,
    /** Whether the adapter is a software (CPU) one. */
    readonly isSoftware: boolean,
    /** Whether runs can be timed on the device (`timing`): the adapter has 'timestamp-query'. */
    readonly timestamps = false,
  ) {
    this.elementGroups = isSoftware ? SOFTWARE_ELEMENT_GROUPS : 65535;
    this.access = {
      device: gpuDevice,
      dawn,
      pipeline: (fn, pass, constants) => this.pipeline(fn, pass, constants),
    };
    void gpuDevice.lost.then((info) => {
      if (!this.destroyed) this.lost = `the device was lost (${info.reason}): ${info.message}`;
    });
  }

  /** The device (Dawn's `GPUDevice`, typed by the few members WebGpuDevice names). */
  get device(): WebGpuDevice {
    return this.gpuDevice;
  }

  /** Opens the default adapter and a device; a NoAdapter when there is none. */
  static async open(options: { timeoutMs?: number } = {}): Promise<GpuRuntime | NoAdapter> {
    const d = await loadDawn();
    if ('reason' in d) return { kind: 'no-adapter', reason: d.reason, install: d.install };
    const adapter = await d.gpu.requestAdapter();
    if (!adapter) return { kind: 'no-adapter', reason: d.noAdapter, install: d.install };
    const timestamps = adapter.features.has('timestamp-query');
    const device = await adapter.requestDevice(timestamps ? { requiredFeatures: ['timestamp-query'] } : {});
    const info = adapter.info;
    const fallback = (info as GPUAdapterInfo & { isFallbackAdapter?: boolean }).isFallbackAdapter === true;
    const parts = [info.vendor, info.architecture, info.device, info.description].filter((s) => s);
    const name = parts.length > 0 ? parts.join(' ') : 'unnamed adapter';
    const software = fallback || /swiftshader|llvmpipe|software|cpu/i.test(name);
    const rt = new GpuRuntime(
      d,
      device,
      `${name}${fallback ? ' (fallback adapter)' : ''}`,
      software,
      timestamps,
    );
    const fromEnv = typeof process === 'undefined' ? Number.NaN : Number(process.env.SCF_GPU_TIMEOUT_MS);
    rt.timeoutMs = options.timeoutMs ?? (fromEnv > 0 ? fromEnv : 60_000);
    return rt;
  }

  /**
   * Creates (or finds in the cache, keyed by shader text) and validates every pass's pipeline:
   * getCompilationInfo errors and pipeline-creation failures become ShaderRejected. Passes with
   * `override` constants are validated with zeros; their real pipelines are made when run.
   */
  async prepare(
    plan: GpuPlan,
    positions: Pick<JsKernelOptions, 'spans' | 'source'> = {},
  ): Promise<GpuKernel> {
    this.usable(plan.fn);
    for (const site of plan.sites) {
      for (const pass of site.passes) {
        const zeros = Object.fromEntries(pass.overrides.map((o) => [o.field, 0]));
        await this.pipeline(plan.fn, pass, zeros);
      }
    }
    const entry = new Function('$gpu', plan.hostSource) as (
      gpu: (site: number, arrays: TypedArray[], scalars: number[]) => Promise<unknown[]>,
    ) => (...actuals: unknown[]) => Promise<unknown>;
    // The host code's run-time errors (out-of-bounds, division by zero, …: the JS back end's
    // checks) become the evaluator's KernelRuntimeErrors, positioned when `positions` has spans.
    const call = kernelCall(plan.fun, positions);
    return {
      plan,
      run: async (args, options = {}) => {
        const actuals = call.actuals(args);
        const timing = options.timing === true && this.timestamps;
        const run = new Run(this, this.access, plan, Math.max(1, Math.floor(options.repeat ?? 1)), timing);
        try {
          const host = entry((site, arrays, scalars) => run.launch(site, arrays, scalars));
          let returned: unknown;
          try {
            returned = await host(...actuals);
          } catch (e) {
            throw call.error(e);
          }
          const done = call.finish(actuals, returned);
          return timing ? { ...done, gpuMs: run.gpuNs / 1e6 } : done;
        } finally {
          run.release();
        }
      },
    };
  }

  /** Destroys the device; the runtime cannot be used afterwards. */
  destroy(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    // A device still running an abandoned kernel cannot be destroyed (Dawn waits for it); it is
    // left to the process's exit.
    if (!this.abandoned) this.gpuDevice.destroy();
  }

  /** @internal */
  /**
   * Why the device can no longer run kernels — it was lost, or abandoned after a kernel that did
   * not finish — or undefined while it can. A caller that wants to go on opens a new runtime.
   */
  get lostReason(): string | undefined {
    return this.lost;
  }

  usable(fn: string): void {
    if (this.destroyed) throw new Error('internal error: the GPU runtime was destroyed');
    if (this.lost) throw new GpuRunError(fn, this.lost);
  }

  /**
   * @internal `work`, or a GpuRunError when it has not finished after `timeoutMs` (default 60 s,
   * or the environment's SCF_GPU_TIMEOUT_MS): a kernel that
   * does not terminate (a loop in a called function that never ends) must not hang the caller.
   * The device is then abandoned: later calls fail at once.
   */
  async watch<T>(fn: string, site: KernelSite, work: Promise<T>): Promise<T> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const limit = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        this.lost = `an earlier kernel did not finish within ${this.timeoutMs / 1000} s`;
        this.abandoned = true;
        GpuRuntime.anyAbandoned = true;
        reject(
          new GpuRunError(
            fn,
            `${site.text.join('; ')} did not finish within ${this.timeoutMs / 1000} s on the GPU (does a loop in a function it calls never end?)`,
          ),
        );
      }, this.timeoutMs);
    });
    try {
      return await Promise.race([work, limit]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** The pipeline of `pass` with these override values (cached). */
  private pipeline(
    fn: string,
    pass: ShaderPass,
    constants: Record<string, number>,
  ): Promise<GPUComputePipeline> {
    // -0, NaN and the infinities spelled out (JSON would make -0 a 0 and the others null)
    const values = Object.entries(constants).map(([k, v]) => `${k}=${Object.is(v, -0) ? '-0' : String(v)}`);
    const key = `${values.join(',')}\n${pass.wgsl}`;
    const cached = this.pipelines.get(key);
    if (cached) {
      this.stats.pipelineCacheHits++;
      return cached;
    }
    const made = this.makePipeline(fn, pass, constants);
    this.pipelines.set(key, made);
    made.catch(() => this.pipelines.delete(key));
    return made;
  }

  private module(fn: string, pass: ShaderPass): Promise<GPUShaderModule> {
    const cached = this.modules.get(pass.wgsl);
    if (cached) return cached;
    const made = (async () => {
      this.gpuDevice.pushErrorScope('validation');
      const module = this.gpuDevice.createShaderModule({ code: pass.wgsl, label: pass.label });
      const scoped = await this.gpuDevice.popErrorScope();
      const info = await module.getCompilationInfo();
      const error = info.messages.find((m) => m.type === 'error');
      for (const m of info.messages)
        if (m.type === 'warning')
          this.warnings.push(`${pass.label}: ${m.lineNum}:${m.linePos}: ${m.message}`);
      if (error) throw new ShaderRejected(fn, pass.label, error.message, error.lineNum, error.linePos);
      if (scoped) throw new ShaderRejected(fn, pass.label, scoped.message, undefined, undefined);
      this.stats.modulesCreated++;
      return module;
    })();
    this.modules.set(pass.wgsl, made);
    made.catch(() => this.modules.delete(pass.wgsl));
    return made;
  }

  private async makePipeline(
    fn: string,
    pass: ShaderPass,
    constants: Record<string, number>,
  ): Promise<GPUComputePipeline> {
    const module = await this.module(fn, pass);
    try {
      const pipeline = await this.gpuDevice.createComputePipelineAsync({
        label: pass.label,
        layout: 'auto',
        compute: { module, entryPoint: 'main', constants },
      });
      this.stats.pipelinesCreated++;
      return pipeline;
    } catch (e) {
      throw new ShaderRejected(
        fn,
        pass.label,
        e instanceof Error ? e.message : String(e),
        undefined,
        undefined,
      );
    }
  }
}

// ---- one run -------------------------------------------------------------------------------------

/** Words of 4 bytes to hold `n` elements (at least one: WebGPU bindings cannot be empty). */
function bytesFor(words: number): number {
  return Math.max(4, words * 4);
}

/** A run of a host driver: the buffers it created, and the device arrays of the outputs it made. */
class Run {
  private readonly buffers: GPUBuffer[] = [];
  private readonly querySets: GPUQuerySet[] = [];
  private readonly onDevice = new WeakMap<TypedArray | DeviceArray, GPUBuffer>();
  /** Nanoseconds the device spent in this run's compute passes (with `timing`). */
  gpuNs = 0;

  constructor(
    private readonly rt: GpuRuntime,
    private readonly gpu: DeviceAccess,
    private readonly plan: GpuPlan,
    /** Times each elementwise site's dispatches are encoded (GpuKernel.run's `repeat`). */
    private readonly repeat = 1,
    /** Timestamps around each compute pass (GpuKernel.run's `timing`; the device has the feature). */
    private readonly timing = false,
  ) {}

  release(): void {
    for (const b of this.buffers) b.destroy();
    for (const q of this.querySets) q.destroy();
    this.buffers.length = 0;
    this.querySets.length = 0;
  }

  /** One compute pass: `pass`'s pipeline and bindings, its workgroups dispatched `times` times. */
  private dispatch(
    encoder: GPUCommandEncoder,
    d: {
      readonly pass: ShaderPass;
      readonly pipeline: GPUComputePipeline;
      readonly bindGroup: GPUBindGroup;
      readonly groups: number;
      readonly times: number;
    },
    timestampWrites: GPUComputePassTimestampWrites | undefined,
  ): void {
    const cp = encoder.beginComputePass({
      label: d.pass.label,
      ...(timestampWrites ? { timestampWrites } : {}),
    });
    cp.setPipeline(d.pipeline);
    cp.setBindGroup(0, d.bindGroup);
    for (let r = 0; r < d.times; r++) cp.dispatchWorkgroups(d.groups);
    cp.end();
    this.rt.stats.dispatches += d.times;
  }

  /**
   * Timestamps for `passes` compute passes: where each pass writes its start and end, how to
   * resolve them into a readable buffer (encoded after the passes), and their sum once mapped.
   */
  private stamps(passes: number): PassStamps {
    const { device, dawn } = this.gpu;
    const querySet = device.createQuerySet({ type: 'timestamp', count: 2 * passes });
    this.querySets.push(querySet);
    const bytes = 16 * passes;
    const resolved = this.buffer(bytes, dawn.usage.queryResolve | dawn.usage.copySrc, 'timestamps');
    const staging = this.buffer(bytes, dawn.usage.mapRead | dawn.usage.copyDst, 'timestamps: read');
    return {
      writes: (k) => ({ querySet, beginningOfPassWriteIndex: 2 * k, endOfPassWriteIndex: 2 * k + 1 }),
      resolve: (encoder) => {
        encoder.resolveQuerySet(querySet, 0, 2 * passes, resolved, 0);
        encoder.copyBufferToBuffer(resolved, 0, staging, 0, bytes);
      },
      read: async () => {
        await staging.mapAsync(dawn.mapRead);
        const t = new BigUint64Array(staging.getMappedRange().slice(0));
        staging.unmap();
        let ns = 0n;
        for (let k = 0; k < passes; k++) {
          const d = (t[2 * k + 1] as bigint) - (t[2 * k] as bigint);
          if (d > 0n) ns += d;
        }
        return Number(ns);
      },
    };
  }

  private buffer(bytes: number, usage: number, label: string): GPUBuffer {
    const b = this.gpu.device.createBuffer({ size: Math.ceil(bytes / 4) * 4, usage, label });
    this.buffers.push(b);
    return b;
  }

  private fail(reason: string): never {
    throw new GpuRunError(this.plan.fn, reason);
  }

  /** The element count of `site`, checking lengths as the evaluator and the JS back end do. */
  private length(
    site: KernelSite,
    arrays: readonly { length: number }[],
    scalars: readonly number[],
  ): number {
    let lead: { n: number; m: string } | undefined;
    for (const [k, m] of site.members.entries()) {
      const op = m.op === 'map' && site.text[k]?.includes('= iota(') ? 'iota' : m.op;
      let first: { n: number; what: string } | undefined;
      for (const src of m.mapped) {
        let n: number;
        let what: string;
        if (src.kind === 'array') {
          n = (arrays[src.index] as { length: number }).length;
          what = `'${(site.arrays[src.index] as { name: string }).name}'`;
        } else {
          n = scalars[src.scalar] as number;
          what = 'iota';
          if (n < 0) this.fail(`'${op}'${op === 'iota' ? '' : ' over iota'} of a negative length (${n})`);
        }
        if (!first) first = { n, what };
        else if (n !== first.n)
          this.fail(
            `'${op}' goes over ${first.what} of length ${first.n} and ${what} of length ${n}: lengths differ`,
          );
      }
      const n = (first as { n: number }).n;
      if (!lead) lead = { n, m: `'${m.op}' into '${m.dest}'` };
      else if (n !== lead.n)
        this.fail(
          `fused loop: ${lead.m} goes over length ${lead.n} and '${m.op}' into '${m.dest}' over length ${n}`,
        );
    }
    return (lead as { n: number }).n;
  }

  /** Uploads a host array (as i32 for int and bool, f32 for float), or finds a launch's result on the device. */
  private input(arr: TypedArray | DeviceArray, ty: string, label: string): GPUBuffer {
    const known = this.onDevice.get(arr);
    if (known) return known;
    if (arr instanceof DeviceArray) throw new Error('internal error: a device array of another run');
    const { usage } = this.gpu.dawn;
    const b = this.buffer(bytesFor(arr.length), usage.storage | usage.copyDst, label);
    // the host's typed array as it is when its words are the device's (f32, i32); bools widen
    const words =
      ty === 'float'
        ? arr instanceof Float32Array
          ? arr
          : Float32Array.from(arr)
        : arr instanceof Int32Array
          ? arr
          : Int32Array.from(arr);
    this.gpu.device.queue.writeBuffer(b, 0, words.buffer, words.byteOffset, words.byteLength);
    // Not remembered: the host may write this array before the next launch (only combinator
    // results, which nothing writes, stay on the device).
    return b;
  }

  /** Every override constant of the site's passes is finite (WGSL rejects the others). */
  private checkOverrides(site: KernelSite, scalars: readonly number[]): void {
    for (const o of site.passes.flatMap((p) => p.overrides)) {
      const v = scalars[o.scalar] as number;
      if (!Number.isFinite(v))
        this.fail(
          `${site.text.join('; ')}: the operand '${operandName(site, o.scalar)}' is ${v}, and WGSL override constants must be finite (plan with scalars: 'uniform')`,
        );
    }
  }

  /** The uniform buffer: n, chunk, then the scalar fields (mode 'uniform'), written to the device. */
  private uniformBuffer(site: KernelSite, n: number, chunk: number, scalars: readonly number[]): GPUBuffer {
    const uniform = new DataView(new ArrayBuffer(16 * Math.ceil((8 + 4 * site.uniformFields.length) / 16)));
    uniform.setUint32(0, n, true);
    uniform.setUint32(4, chunk, true);
    site.uniformFields.forEach((f, k) => {
      const s = site.scalars[f.scalar] as { ty: string };
      const v = scalars[f.scalar] as number;
      if (s.ty === 'float') uniform.setFloat32(8 + 4 * k, v, true);
      else uniform.setInt32(8 + 4 * k, v, true);
    });
    const { usage } = this.gpu.dawn;
    const buf = this.buffer(uniform.byteLength, usage.uniform | usage.copyDst, `${this.plan.fn}: params`);
    this.gpu.device.queue.writeBuffer(buf, 0, uniform.buffer);
    return buf;
  }

  /** The buffer bound to a pass's binding `b` (a scratch buffer is made on first use). */
  private bound(
    b: ShaderPass['bindings'][number],
    bufs: {
      readonly uniformBuf: GPUBuffer;
      readonly inputs: readonly GPUBuffer[];
      readonly outputs: readonly (GPUBuffer | undefined)[];
      readonly results: readonly (GPUBuffer | undefined)[];
      readonly scratch: Map<string, GPUBuffer>;
      readonly threads: number;
    },
  ): GPUBuffer {
    switch (b.kind) {
      case 'uniform':
        return bufs.uniformBuf;
      case 'input':
        return bufs.inputs[b.index] as GPUBuffer;
      case 'output':
        return bufs.outputs[b.member] as GPUBuffer;
      case 'result':
        return bufs.results[b.member] as GPUBuffer;
      case 'scratch': {
        let buf = bufs.scratch.get(b.name);
        if (!buf) {
          const words = b.words.kind === 'words' ? b.words.words : bufs.threads;
          buf = this.buffer(bytesFor(words), this.gpu.dawn.usage.storage, `${this.plan.fn}: ${b.name}`);
          bufs.scratch.set(b.name, buf);
        }
        return buf;
      }
      default: {
        const never: never = b;
        throw new Error(`internal error: binding ${JSON.stringify(never)}`);
      }
    }
  }

  async launch(index: number, arrays: (TypedArray | DeviceArray)[], scalars: number[]): Promise<unknown[]> {
    const { plan, rt, gpu } = this;
    rt.usable(plan.fn);
    const site = plan.sites[index];
    if (!site) throw new Error(`internal error: no site ${index} in the plan of '${plan.fn}'`);
    const n = this.length(site, arrays, scalars);
    this.checkOverrides(site, scalars);
    const W = site.workgroupSize;
    const G = site.maxWorkgroups;
    const threads = W * G;
    const chunk = Math.ceil(n / threads);
    const { usage } = gpu.dawn;
    const device = gpu.device;

    const uniformBuf = this.uniformBuffer(site, n, chunk, scalars);

    const inputs = site.arrays.map((a, k) =>
      this.input(arrays[k] as TypedArray, a.ty, `${plan.fn}: ${a.name}`),
    );
    const outputs = site.members.map((m) =>
      site.kind === 'reduce'
        ? undefined
        : this.buffer(bytesFor(n), usage.storage | usage.copySrc, `${plan.fn}: ${m.dest}`),
    );
    const results = site.members.map((m) =>
      site.kind === 'map'
        ? undefined
        : this.buffer(16, usage.storage | usage.copySrc | usage.copyDst, `${plan.fn}: ${m.dest} result`),
    );
    const scratch = new Map<string, GPUBuffer>();

    // Encodes `passes` in one command buffer, then copies outputs and results out and reads them.
    let outReads: number[] = [];
    let resReads: number[] = [];
    const execute = async (passes: readonly ShaderPass[]): Promise<ArrayBuffer[]> => {
      const constants: Record<string, number> = {};
      device.pushErrorScope('validation');
      device.pushErrorScope('out-of-memory');
      const encoder = device.createCommandEncoder({ label: plan.fn });
      const stamps = this.timing ? this.stamps(passes.length) : undefined;
      // an elementwise site computes the same outputs each time: repeating it is idempotent
      // (each pass's repeats in one compute pass: a pass reads what the passes before it wrote, and
      // its own outputs are the same each time, so pass by pass the outputs equal one run's)
      const times = site.kind === 'map' ? this.repeat : 1;
      for (const [k, pass] of passes.entries()) {
        for (const o of pass.overrides) constants[o.field] = scalars[o.scalar] as number;
        const passConstants = Object.fromEntries(
          pass.overrides.map((o) => [o.field, constants[o.field] as number]),
        );
        const pipeline = await gpu.pipeline(plan.fn, pass, passConstants);
        const bufs = { uniformBuf, inputs, outputs, results, scratch, threads };
        const entries: GPUBindGroupEntry[] = pass.bindings.map((b, binding) => ({
          binding,
          resource: { buffer: this.bound(b, bufs) },
        }));
        const bindGroup = device.createBindGroup({ layout: pipeline.getBindGroupLayout(0), entries });
        const groups =
          pass.dispatch.kind === 'perElement'
            ? perElementGroups(n, W, pass.dispatch.perInvocation ?? 1, rt.elementGroups)
            : pass.dispatch.kind === 'chunks'
              ? G
              : 1;
        this.dispatch(encoder, { pass, pipeline, bindGroup, groups, times }, stamps?.writes(k));
      }
      // Read back: each array output (n words) and each result (2 words).
      const reads: { src: GPUBuffer; bytes: number; staging: GPUBuffer }[] = [];
      const readBack = (src: GPUBuffer, bytes: number): number => {
        const staging = this.buffer(Math.max(4, bytes), usage.mapRead | usage.copyDst, `${plan.fn}: read`);
        if (bytes > 0) encoder.copyBufferToBuffer(src, 0, staging, 0, Math.ceil(bytes / 4) * 4);
        reads.push({ src, bytes, staging });
        rt.stats.bytesRead += bytes;
        return reads.length - 1;
      };
      outReads = outputs.map((b, k) => (b && site.members[k]?.readBack ? readBack(b, 4 * n) : -1));
      resReads = results.map((b) => (b ? readBack(b, 8) : -1));
      stamps?.resolve(encoder);
      device.queue.submit([encoder.finish()]);
      const oom = await device.popErrorScope();
      const invalid = await device.popErrorScope();
      const err = invalid ?? oom;
      if (err)
        throw new Error(
          `function '${plan.fn}': the device reported an error for ${site.text.join('; ')}: ${err.message}`,
        );
      const mapped = Promise.all(
        reads.map(async (r) => {
          await r.staging.mapAsync(gpu.dawn.mapRead);
          const copy = r.staging.getMappedRange().slice(0);
          r.staging.unmap();
          return copy;
        }),
      );
      const words = await rt.watch(plan.fn, site, mapped);
      if (stamps) this.gpuNs += await rt.watch(plan.fn, site, stamps.read());
      rt.usable(plan.fn);
      return words;
    };
    let words = await execute(site.passes.filter((p) => !p.sequential && runsFor(p, scalars)));
    const notIdempotent = site.members.some((m, k) => {
      const r = resReads[k] as number;
      return FOLD_OPS.has(m.op) && r >= 0 && new DataView(words[r] as ArrayBuffer).getUint32(4, true) !== 1;
    });
    if (notIdempotent) words = await execute(site.passes.filter((p) => p.sequential));

    return site.members.map((m, k) => {
      const res =
        resReads[k] !== undefined && (resReads[k] as number) >= 0
          ? new DataView(words[resReads[k] as number] as ArrayBuffer)
          : undefined;
      if (site.kind === 'reduce') {
        const r = res as DataView;
        return m.ty === 'float' ? r.getFloat32(0, true) : r.getInt32(0, true);
      }
      const count = site.kind === 'filter' ? (res as DataView).getUint32(0, true) : n;
      const raw = words[outReads[k] as number] as ArrayBuffer;
      const arr = m.readBack ? toHostArray(raw, m.ty, count) : new DeviceArray(count);
      this.onDevice.set(arr, outputs[k] as GPUBuffer);
      return arr;
    });
  }
}

/** Run.stamps: timestamps around a launch's compute passes. */
interface PassStamps {
  writes(pass: number): GPUComputePassTimestampWrites;
  resolve(encoder: GPUCommandEncoder): void;
  /** Nanoseconds, the passes' end − start summed (a pass whose end is not after its start: 0). */
  read(): Promise<number>;
}

/** The C name of site scalar `k` (a host variable; its field's name may differ). */
function operandName(site: KernelSite, k: number): string {
  const e = site.scalars[k]?.expr;
  return e?.kind === 'var' ? e.name : String(k);
}

/**
 * A launch's array result the host never reads (the plan says so: it only passes it to later
 * launches): its elements stay in their device buffer; the host driver holds only this handle.
 */
class DeviceArray {
  constructor(readonly length: number) {}
}

/** The first `count` words of `raw` as the JS back end's typed array for element type `ty`. */
function toHostArray(raw: ArrayBuffer, ty: string, count: number): TypedArray {
  switch (ty) {
    case 'float':
      return new Float32Array(raw, 0, count).slice();
    case 'int':
      return new Int32Array(raw, 0, count).slice();
    case 'bool':
      return Uint8Array.from(new Int32Array(raw, 0, count));
    default:
      throw new Error(`internal error: no array type for '${ty}'`);
  }
}

// ---- one call ------------------------------------------------------------------------------------

/** No adapter where one was required. */
export class NoGpuAdapter extends Error {
  constructor(
    readonly fn: string,
    readonly why: NoAdapter,
  ) {
    super(`function '${fn}' cannot run on WebGPU: ${why.reason}; ${why.install}`);
    this.name = 'NoGpuAdapter';
  }
}

/**
 * Runs `fnName` of `program`: 'webgpu' (NoGpuAdapter when there is no adapter), 'js', or 'auto'
 * (WebGPU when an adapter is found, else the JS back end, with a note saying so). A function the
 * GPU cannot run is a GpuUnsupported in 'webgpu' and 'auto' alike. A runtime opened here is
 * destroyed before returning.
 */
export async function runKernel(
  program: Program,
  fnName: string,
  args: readonly ArgValue[] | Readonly<Record<string, ArgValue>>,
  options: {
    backend?: 'auto' | 'webgpu' | 'js';
    gpu?: GpuRuntime;
    wgsl?: WgslOptions;
    /** The JS back end's options (fuel, call depth) and, for both, the spans that position run-time errors. */
    js?: JsKernelOptions;
  } = {},
): Promise<KernelRun> {
  const backend = options.backend ?? 'auto';
  const js = options.js ?? {};
  if (backend === 'js') return { backend: 'js', ...compileKernelJs(program, fnName, js).run(args) };
  const plan = planKernelWgsl(program, fnName, options.wgsl);
  const gpu = options.gpu ?? (await GpuRuntime.open());
  if (!(gpu instanceof GpuRuntime)) {
    if (backend === 'webgpu') throw new NoGpuAdapter(fnName, gpu);
    const ran = compileKernelJs(program, fnName, js).run(args);
    return {
      backend: 'js',
      ...ran,
      note: `${gpu.reason}; ran '${fnName}' on the JS back end instead (to use the GPU, ${gpu.install})`,
    };
  }
  try {
    const kernel = await gpu.prepare(plan, { spans: js.spans, source: js.source });
    return { backend: 'webgpu', ...(await kernel.run(args)) };
  } finally {
    if (!options.gpu) gpu.destroy();
  }
}
