/**
 * Back ends for kernel functions: this folder's only public entry point. JavaScript (js.ts: the
 * CPU back end and the reference), WGSL (wgsl.ts: one compute shader per combinator, planned as
 * `GpuPlan`s, plan.ts) and the WebGPU runtime that runs plans (webgpu.ts); with them, the C printer
 * (kernel/print.ts), to read a pipeline's output as C beside its WGSL.
 */
export { type Comparison, compareResults, dataScale, GPU_ULPS, toleranceUlps } from './compare.js';
export { type CompiledKernel, compileKernelJs, emitKernelJs, type JsKernelOptions } from './js.js';
export {
  type DispatchSize,
  type GpuPlan,
  GpuUnsupported,
  type KernelSite,
  type PassBinding,
  type ScalarMode,
  type ShaderPass,
  type WgslOptions,
} from './plan.js';
export { printFun, printOptimized } from '../kernel/index.js';
export { emitKernelWgsl, planKernelWgsl } from './wgsl.js';
export {
  compileFor,
  type KernelBackend,
  type KernelResult,
  programOf,
  type ReadyKernel,
  type TierOptions,
  type TierSource,
  TieredKernel,
  TieredKernels,
  tieredKernels,
} from './tiers.js';
export {
  GpuRunError,
  type GpuKernel,
  type GpuRunOptions,
  GpuRuntime,
  type GpuStats,
  NoGpuAdapter,
  type KernelRun,
  type NoAdapter,
  runKernel,
  ShaderRejected,
  SOFTWARE_DRIVER_HINT,
  SOFTWARE_ELEMENT_GROUPS,
  type WebGpuDevice,
} from './webgpu.js';
