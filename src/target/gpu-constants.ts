/** The WebGPU constants a run uses, read from a `globals` object (shared by dawn.ts and its twin). */

/** Buffer usages and the map mode, as numbers. */
export interface GpuConstants {
  readonly usage: {
    storage: number;
    uniform: number;
    copySrc: number;
    copyDst: number;
    mapRead: number;
    queryResolve: number;
  };
  readonly mapRead: number;
}

/** The WebGPU constants from a `globals` object (the webgpu package's, or a page's globalThis). */
export function webGpuConstants(g: {
  readonly GPUBufferUsage: Record<string, number>;
  readonly GPUMapMode: Record<string, number>;
}): GpuConstants {
  return {
    usage: {
      storage: g.GPUBufferUsage.STORAGE as number,
      uniform: g.GPUBufferUsage.UNIFORM as number,
      copySrc: g.GPUBufferUsage.COPY_SRC as number,
      copyDst: g.GPUBufferUsage.COPY_DST as number,
      mapRead: g.GPUBufferUsage.MAP_READ as number,
      queryResolve: g.GPUBufferUsage.QUERY_RESOLVE as number,
    },
    mapRead: g.GPUMapMode.READ as number,
  };
}
