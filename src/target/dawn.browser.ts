/**
 * dawn.ts in a browser bundle (package.json's "browser" map puts this file in its place): the page's
 * own WebGPU, `navigator.gpu`, and the constants of its globals. A page without it (a browser
 * without WebGPU, an insecure context) or whose `requestAdapter` gives none (headless Chromium on
 * Linux unless started with --enable-unsafe-webgpu) gets a `NoAdapter` saying why, and callers
 * run the JS back end.
 */
import type { Dawn, NoGpu } from './dawn.js';
import { webGpuConstants } from './gpu-constants.js';

export type { Dawn, NoGpu } from './dawn.js';

/** What to do when a page has no adapter. */
const BROWSER_HINT =
  'use a browser with WebGPU enabled (Chrome or Edge 113+; Chromium on Linux: --enable-unsafe-webgpu) in a secure context (https or localhost); the JS back end runs meanwhile';

/** The page's GPU object and constants, or why there is none. */
export async function loadDawn(): Promise<Dawn | NoGpu> {
  const g = globalThis as unknown as {
    navigator?: { gpu?: GPU };
    GPUBufferUsage?: Record<string, number>;
    GPUMapMode?: Record<string, number>;
  };
  const gpu = g.navigator?.gpu;
  if (!gpu || !g.GPUBufferUsage || !g.GPUMapMode)
    return { reason: 'this page has no WebGPU (navigator.gpu is undefined)', install: BROWSER_HINT };
  return {
    gpu,
    ...webGpuConstants({ GPUBufferUsage: g.GPUBufferUsage, GPUMapMode: g.GPUMapMode }),
    noAdapter: 'no WebGPU adapter: navigator.gpu.requestAdapter() gave none',
    install: BROWSER_HINT,
  };
}
