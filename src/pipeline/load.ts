/**
 * Loading a staged folder into the running process (`scf opt --staged`, the benchmarks): the
 * stub imports `scf/runtime`, which must resolve to this installation wherever the folder lives,
 * so the resolution hook is registered first (runtime/resolver.ts).
 */
import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { registerScfResolver, type StageManifest, type Stub } from '../runtime/index.js';
import type { Fun } from '../kernel/index.js';

/** What a stub written by `writeStaged` exports. */
export interface LoadedStub extends Stub {
  readonly MANIFEST: StageManifest;
  readonly FUNCTION: string;
  readonly PIPELINE: readonly string[];
  readonly BIND: Readonly<Record<string, string>>;
  readonly FUN: Fun;
}

/** Imports the stub at `file` (`NAME.stub.mjs`). */
export async function importStub(file: string): Promise<LoadedStub> {
  if (!existsSync(file)) throw new Error(`no staged stub at ${file}`);
  registerScfResolver();
  return (await import(pathToFileURL(file).href)) as LoadedStub;
}
