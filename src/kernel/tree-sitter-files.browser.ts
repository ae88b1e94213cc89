/**
 * tree-sitter-files.ts in a browser bundle (package.json's "browser" map puts this file in its
 * place): the built package's own copies in dist/vendor/ (scripts/copy-vendor.ts), by URL relative
 * to this module, which the page must serve beside the bundle's modules (the grammar is fetched).
 */
import type * as TreeSitter from 'web-tree-sitter';

/** web-tree-sitter and the URL of the C grammar's WebAssembly. */
export async function treeSitter(): Promise<{ readonly ts: typeof TreeSitter; readonly grammar: string }> {
  const vendor = new URL('../vendor/', import.meta.url);
  const runtime = new URL('tree-sitter.js', vendor).href;
  return {
    ts: (await import(/* @vite-ignore */ runtime)) as typeof TreeSitter,
    grammar: new URL('tree-sitter-c.wasm', vendor).href,
  };
}
