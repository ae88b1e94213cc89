/**
 * Where the C parser's files are (parse.ts loads them once): web-tree-sitter's runtime and the C
 * grammar's WebAssembly, found on disk. A browser bundle has its twin, tree-sitter-files.browser.ts.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type * as TreeSitter from 'web-tree-sitter';

/**
 * web-tree-sitter and the C grammar's WebAssembly. The built package runs its own copies, which
 * `npm run build` puts in dist/vendor/ (scripts/copy-vendor.ts), so an installed scf needs neither
 * package; running from the sources (a checkout, tsx, vitest) there is no src/vendor/, and the dev
 * dependencies web-tree-sitter and tree-sitter-c are loaded instead.
 */
export async function treeSitter(): Promise<{ readonly ts: typeof TreeSitter; readonly grammar: string }> {
  const vendor = new URL('../vendor/', import.meta.url);
  const runtime = new URL('tree-sitter.js', vendor);
  const grammar = fileURLToPath(new URL('tree-sitter-c.wasm', vendor));
  if (existsSync(fileURLToPath(runtime)) && existsSync(grammar))
    return { ts: (await import(runtime.href)) as typeof TreeSitter, grammar };
  try {
    return {
      ts: await import('web-tree-sitter'),
      grammar: createRequire(import.meta.url).resolve('tree-sitter-c/tree-sitter-c.wasm'),
    };
  } catch (e) {
    throw new Error(
      `internal error: the C parser is missing: neither ${fileURLToPath(vendor)} has tree-sitter.js and tree-sitter-c.wasm (npm run build copies them) nor are web-tree-sitter and tree-sitter-c installed (${e instanceof Error ? e.message : String(e)})`,
    );
  }
}
