/**
 * An entry config's stub as `scf/runtime` exports it: the runtime's entry stub
 * (runtime/entry-stub.ts) over the entry's object language (`ENTRY_RUNTIME`), its unstaged
 * function compiled from the entry's source as a user's pass is (user.ts's `loadUserFunction`,
 * with its fuel: SCF_PASS_FUEL). Nothing here imports index.ts, which loads the built-in passes.
 */
import {
  ENTRY_RUNTIME,
  type EntryManifest,
  type EntryModule,
  type EntryStub,
  loadEntryStubWith,
} from '../runtime/index.js';
import { loadUserFunction, passFuel } from './user.js';

/** The stub of an entry's staged folder (`EXPORT.stub.mjs` calls it; runtime/entry-stub.ts). */
export function loadEntryStub(
  manifest: EntryManifest,
  url: string,
  importer: () => Promise<EntryModule>,
): Promise<EntryStub> {
  return loadEntryStubWith(
    ENTRY_RUNTIME,
    { load: loadUserFunction, fuel: passFuel },
    manifest,
    url,
    importer,
  );
}
