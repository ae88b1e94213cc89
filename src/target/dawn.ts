/**
 * Where a GpuRuntime's `GPU` comes from under node: the `webgpu` package (Dawn for Node), loaded
 * once per process with its environment prepared (dawn-env.ts) and its GPU object kept referenced
 * for the process's lifetime (dawn.node crashes when it is collected while a device lives). A
 * browser bundle has the twin dawn.browser.ts, whose GPU is `navigator.gpu`.
 */
import { prepareDawnEnvironment } from './dawn-env.js';
import { SOFTWARE_DRIVER_HINT } from './hints.js';
import { type GpuConstants, webGpuConstants } from './gpu-constants.js';

/** The GPU object and the WebGPU constants a run uses. */
export interface Dawn extends GpuConstants {
  readonly gpu: GPU;
  /** Why `requestAdapter` may give none here, and what to do about it. */
  readonly noAdapter: string;
  readonly install: string;
}

/** Why there is no GPU object at all, and what to install. */
export interface NoGpu {
  readonly reason: string;
  readonly install: string;
}

/**
 * Dawn's options. Dawn rounds timestamp queries to 2^16 ns by default (a browser's defence against
 * timing attacks), which would read a kernel of a few microseconds as 0 or 65.5 µs; a benchmark
 * of scf's own kernels in a node process needs the device's clock as it is.
 */
const DAWN_FLAGS = ['disable-dawn-features=timestamp_quantization'];

/** Dawn's GPU object, created once and referenced for the process's lifetime (see the header). */
let dawn: Promise<Dawn | NoGpu> | undefined;
const KEEP_ALIVE = Symbol.for('scf.webgpu.keepAlive');

export function loadDawn(): Promise<Dawn | NoGpu> {
  dawn ??= (async () => {
    prepareDawnEnvironment();
    let mod: { create(options: string[]): GPU; globals: Record<string, unknown> };
    try {
      mod = (await import('webgpu')) as unknown as typeof mod;
    } catch (e) {
      return {
        reason: `the 'webgpu' package could not be loaded (${e instanceof Error ? e.message : String(e)})`,
        install: "install the optional package 'webgpu' (npm install webgpu) beside scf",
      };
    }
    const gpu = mod.create(DAWN_FLAGS);
    (globalThis as Record<symbol, unknown>)[KEEP_ALIVE] = gpu;
    return {
      gpu,
      ...webGpuConstants(mod.globals as Parameters<typeof webGpuConstants>[0]),
      noAdapter: 'no WebGPU adapter: Vulkan found no driver',
      install: SOFTWARE_DRIVER_HINT,
    };
  })();
  return dawn;
}
