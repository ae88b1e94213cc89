/**
 * `scf/client`: the type of a `?scf` import (`import { specialize } from './conv.json?scf'`),
 * which the bundler plugins `scf/esbuild` and `scf/vite` resolve to the config's staged stub.
 * Reference it as `vite/client` is: `/// <reference types="scf/client" />` in a `.d.ts` of the
 * app, or `"types": ["scf/client"]` in its tsconfig.
 *
 * It declares what a kernel config's stub exports (its NAME.stub.d.mts, with the formals' values
 * typed loosely: the staged formals' names are in the config, which a declaration cannot read).
 * An entry config's stub exports `MANIFEST`, `SCF` (an `EntryStub` of `scf/runtime`) and the
 * staged function under the entry's export name; type it as
 * `import * as m from './interp.json?scf'; const { SCF } = m as unknown as { SCF: EntryStub };`.
 */
declare module '*.json?scf' {
  import type { Fun, LatticeVal, Specialized, StageManifest } from 'scf/runtime';

  /** The late-stage values of the staged formals, by name. */
  export type Values = Readonly<Record<string, unknown>>;

  export const MANIFEST: StageManifest;
  export const FUNCTION: string;
  export const PIPELINE: readonly string[];
  export const BIND: Readonly<Record<string, string>>;
  /** The kernel function, parsed at build time. */
  export const FUN: Fun;
  /** The lattice values of the formals for these late-stage values. */
  export function formalsOf(values: Values): LatticeVal[];
  /** The staged pipeline; throws `InputNotAdmitted` for inputs outside the early description. */
  export function stagedPipeline(formals: readonly LatticeVal[]): Fun;
  /** The unstaged pipeline (the current optimizers) on the same function. */
  export function unstagedPipeline(formals: readonly LatticeVal[]): Fun;
  /** Why the staged code may not run (its optimizers changed since staging), or undefined. */
  export function staleness(): string | undefined;
  /**
   * Optimizes the function for the late-stage values of its staged formals (`staged: true` when
   * the staged pipeline ran). In a page, throws `FallbackNotLoaded` when the values need the
   * unstaged pipeline and it is not loaded yet.
   */
  export function specialize(values: Values, warn?: (message: string) => void): Specialized;
  /** `specialize`, first loading the unstaged pipeline when the values need it (in a page). */
  export function specializeAsync(values: Values, warn?: (message: string) => void): Promise<Specialized>;
  /** Loads the unstaged pipeline (in a page, its chunk, once; under node it is loaded already). */
  export function loadFallback(): Promise<void>;
}
