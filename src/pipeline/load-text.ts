/**
 * Loading a staged folder from its text, where there is no folder (a page: what `stageInMemory`
 * returns, or files fetched): each module becomes a `blob:` URL and the stub is imported from its
 * own. Staged code names its imports by specifier — `scf/runtime` and its sibling modules
 * (`./NAME.PASS.staged.mjs`) — which a blob cannot resolve, so each specifier in an `import … from`
 * or `import(…)` is rewritten to a URL: a sibling to its blob, `scf/runtime` to a small module that
 * re-exports this bundle's own runtime (the one `import * as` below, handed over through a global
 * symbol), so the loaded stub and the page share one runtime.
 *
 * Invariants: only the specifiers of imports are rewritten, as whole string literals (staged code
 * writes each with `jsString`, and a quote inside any other literal is escaped, so no other text
 * can match); the stub checks each module it imports by its `STAGE_HASH` as a bundled stub does
 * (runtime/stub.ts), so a folder whose text was altered warns and runs the unstaged pipeline; the
 * blob URLs are revoked once the stub is loaded (its modules are loaded before it is).
 */
import type { Fun } from '../kernel/index.js';
import type { Stub } from '../optimizers/index.js';
import type { StageManifest } from '../runtime/index.js';
// the package entry itself: what staged code imports as `scf/runtime`
import * as runtime from '../runtime.js';
import { type FolderFile, RUNTIME_SPECIFIER } from './staged-text.js';

/** What a stub written by `writeStaged` (or made by `stagedText`) exports. */
export interface LoadedStub extends Stub {
  readonly MANIFEST: StageManifest;
  readonly FUNCTION: string;
  readonly PIPELINE: readonly string[];
  readonly BIND: Readonly<Record<string, string>>;
  readonly FUN: Fun;
}

/** The global symbol the runtime shim reads this bundle's `scf/runtime` from. */
const RUNTIME_KEY = Symbol.for('scf.runtime');

/** `text` with the specifiers of its imports mapped by `urls` (others kept). */
function relink(text: string, urls: ReadonlyMap<string, string>): string {
  return text.replace(/(\bfrom\s*|\bimport\s*\(\s*)'([^'\\\n]*)'/g, (whole, before: string, spec: string) => {
    const url = urls.get(spec);
    return url === undefined ? whole : `${before}${JSON.stringify(url)}`;
  });
}

function blobUrl(text: string): string {
  return URL.createObjectURL(new Blob([text], { type: 'text/javascript' }));
}

/**
 * Imports the stub `stub` (a file name among `files`) of a staged folder given as text; its
 * modules are the `.mjs` files among `files`. Needs `URL.createObjectURL` and `import()` of a
 * `blob:` URL (a page or a worker; node has `importStub`, load.ts).
 */
export async function importStagedText(files: readonly FolderFile[], stub: string): Promise<LoadedStub> {
  const stubFile = files.find((f) => f.name === stub);
  if (stubFile === undefined) throw new Error(`importStagedText: no file '${stub}' among the staged files`);
  (globalThis as Record<symbol, unknown>)[RUNTIME_KEY] = runtime;
  const names = Object.keys(runtime).filter((n) => /^[A-Za-z_$][\w$]*$/.test(n));
  const urls = new Map<string, string>([
    [
      RUNTIME_SPECIFIER,
      blobUrl(
        `const r = globalThis[Symbol.for('scf.runtime')];\nexport const { ${names.join(', ')} } = r;\n`,
      ),
    ],
  ]);
  const modules = files.filter((f) => f.name !== stub && f.name.endsWith('.mjs'));
  for (const m of modules) urls.set(`./${m.name}`, blobUrl(relink(m.text, urls)));
  const stubUrl = blobUrl(relink(stubFile.text, urls));
  try {
    return (await import(/* @vite-ignore */ stubUrl)) as LoadedStub;
  } finally {
    for (const url of [...urls.values(), stubUrl]) URL.revokeObjectURL(url);
  }
}
