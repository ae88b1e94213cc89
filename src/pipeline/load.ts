/**
 * Loading a staged folder into the running process (`scf opt --staged`, the benchmarks): the
 * stub imports `scf/runtime`, which must resolve to this installation wherever the folder lives,
 * so the resolution hook is registered first (runtime/resolver.ts).
 */
import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { registerScfResolver } from '../runtime/index.js';
import type { LoadedStub } from './load-text.js';

/** Imports the stub at `file` (`NAME.stub.mjs`). */
export async function importStub(file: string): Promise<LoadedStub> {
  if (!existsSync(file)) throw new Error(`no staged stub at ${file}`);
  registerScfResolver();
  return (await import(pathToFileURL(file).href)) as LoadedStub;
}
