/**
 * What the WGSL back end hands the WebGPU runtime: a host driver (JavaScript, from the JS back
 * end) that runs the host function's scalar code on the CPU and calls `$gpu(site, arrays, scalars)`
 * where the function had a combinator, and for each such site the compute passes (WGSL shaders)
 * that compute it. Plain data, so the plan can be printed, cached and checked without a device.
 */
import type { Expr, Fun } from '../kernel/index.js';

/** How kernel scalar operands that are host variables reach a shader. */
export type ScalarMode = 'uniform' | 'override';

export interface WgslOptions {
  /**
   * 'uniform' (default): fields of the site's uniform buffer, written before each dispatch, so one
   * pipeline serves every value; 'override': WGSL `override` constants, fixed when the pipeline is
   * created (the runtime creates one per distinct set of values). Literal operands are always
   * written into the shader text.
   */
  readonly scalars?: ScalarMode;
  /** Invocations per workgroup: a power of two in 32..256 (default 256). */
  readonly workgroupSize?: number;
  /**
   * Workgroups of the chunked passes (reductions, scans, filters): each invocation folds a
   * contiguous chunk of ceil(n / (maxWorkgroups·workgroupSize)) elements (default 64; SwiftShader
   * is slow with many workgroup barriers, a discrete GPU wants more). At most `workgroupSize`.
   */
  readonly maxWorkgroups?: number;
  /**
   * Thread coarsening of straight-line maps over iota (coarsen.ts): 'auto' (default) where the
   * elements of an invocation share loads, 'always' wherever a map qualifies, 'never'.
   */
  readonly coarsen?: 'auto' | 'always' | 'never';
}

/** A binding of a pass's bind group (group 0). */
export type PassBinding =
  | { readonly kind: 'uniform' } // the site's uniform buffer (n, then scalar operands)
  | { readonly kind: 'input'; readonly index: number } // site input array `index` (read-only storage)
  | { readonly kind: 'output'; readonly member: number } // member's array result (read_write storage)
  | { readonly kind: 'scratch'; readonly name: string; readonly words: ScratchSize } // per-site temporaries
  | { readonly kind: 'result'; readonly member: number }; // member's scalar result / a filter's count (one word)

/** Size in 4-byte words of a scratch buffer: a constant, or one word per chunk invocation. */
export type ScratchSize = { readonly kind: 'words'; readonly words: number } | { readonly kind: 'perThread' };

/** How many workgroups a pass dispatches. */
export type DispatchSize =
  // ceil(n / (workgroupSize · perInvocation)), at most the runtime's elementGroups (the shader
  // strides beyond); perInvocation (default 1) elements per invocation (a coarsened map, coarsen.ts)
  | { readonly kind: 'perElement'; readonly perInvocation?: number }
  | { readonly kind: 'chunks' } // maxWorkgroups
  | { readonly kind: 'single' }; // one workgroup

export interface ShaderPass {
  /** e.g. `smooth: map into 'out' (pass 1 of 1)`, used in messages and as the pipeline label. */
  readonly label: string;
  readonly wgsl: string;
  readonly bindings: readonly PassBinding[]; // binding i of group 0
  readonly dispatch: DispatchSize;
  /**
   * A fold's fallback: run (instead of the result of the other passes) only when a member's
   * ⊕(ne, ne) != ne, folding all elements in order on one invocation.
   */
  readonly sequential: boolean;
  /**
   * A pass that runs only when each site scalar of `positive` is > 0 (`holds`), or only when one
   * is not (`!holds`): a coarsened map and the plain one it stands for (coarsen.ts).
   */
  readonly when?: { readonly positive: readonly number[]; readonly holds: boolean };
  /** The `override` constants the shader declares (scalar mode 'override'): field and site scalar. */
  readonly overrides: readonly { readonly field: string; readonly scalar: number }[];
}

/** A site's input array as the host passes it. */
export interface SiteArray {
  readonly name: string;
  readonly ty: string; // element type: int | float | bool
}

/** A site's scalar operand (iota length, scalar argument, neutral element) as the host passes it. */
export interface SiteScalar {
  readonly expr: Expr; // an atom of the host function
  readonly ty: string;
  /** The uniform field / override constant it is (absent for literals, written into the shader). */
  readonly field: string | undefined;
}

/** Where a member's element i comes from: a site input array, or an iota (element i is i). */
export type MappedSource =
  | { readonly kind: 'array'; readonly index: number }
  | { readonly kind: 'iota'; readonly scalar: number };

export interface SiteMember {
  readonly op: string; // map | reduce | redomap | scan | scanomap | filter
  readonly dest: string;
  readonly ty: string;
  readonly mapped: readonly MappedSource[];
  /** Index into the site's scalars of the neutral element (folds only). */
  readonly ne: number | undefined;
  /** The combine operator's C text, for messages (folds only). */
  readonly combText: string | undefined;
  /**
   * Whether the host reads an array result's elements (loads, stores, a call, a return): when it
   * only passes it to later combinators, the result stays on the device and is not read back.
   */
  readonly readBack: boolean;
}

/** One combinator (or horizontally fused group) of the host function: one GPU launch. */
export interface KernelSite {
  readonly index: number;
  /** `ys = map(sq, xs)` lines, as comments and messages show them. */
  readonly text: readonly string[];
  readonly kind: 'map' | 'reduce' | 'scan' | 'filter';
  /**
   * The uniform buffer's fields after `n` and `chunk` (both u32): the site scalars with a field,
   * in mode 'uniform' (in mode 'override' none): 4 bytes each, in this order.
   */
  readonly uniformFields: readonly { readonly field: string; readonly scalar: number }[];
  readonly arrays: readonly SiteArray[];
  readonly scalars: readonly SiteScalar[];
  readonly members: readonly SiteMember[];
  readonly passes: readonly ShaderPass[];
  readonly workgroupSize: number;
  readonly maxWorkgroups: number;
  readonly scalarMode: ScalarMode;
}

export interface GpuPlan {
  /** The host function's name, and the function (its parameters and return type). */
  readonly fn: string;
  readonly fun: Fun;
  readonly sites: readonly KernelSite[];
  /** JavaScript (a function body taking `$gpu`, returning the async host function). */
  readonly hostSource: string;
  /** Every pass's shader, with headers naming the function, site and pass: what `--emit wgsl` prints. */
  readonly wgsl: string;
}

/** The host function cannot run on the GPU (no combinator, recursion, …): names the function and why. */
export class GpuUnsupported extends Error {
  constructor(
    readonly fn: string,
    readonly reason: string,
  ) {
    super(`function '${fn}' cannot run on the GPU: ${reason}`);
    this.name = 'GpuUnsupported';
  }
}
