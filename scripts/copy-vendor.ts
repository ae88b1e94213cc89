/**
 * Copies into dist/vendor/ the third-party files the built package runs, so that an installed scf
 * depends on neither web-tree-sitter nor tree-sitter-c (both dev dependencies, whose packages
 * carry debug builds, C sources and native prebuilds scf never loads):
 *
 *   tree-sitter.js, tree-sitter.wasm   web-tree-sitter's ES module runtime (it finds its .wasm beside it)
 *   tree-sitter-c.wasm                 tree-sitter-c's C grammar, compiled to WebAssembly
 *   web-tree-sitter.LICENSE, tree-sitter-c.LICENSE   their MIT licences
 *
 * `npm run build` runs it after tsc (so `npm pack` ships the copies); src/kernel/parse.ts loads
 * them from dist/, and the dev dependencies themselves when it runs from the sources. Usage:
 * `tsx scripts/copy-vendor.ts [OUT]` (OUT defaults to dist/vendor).
 */
import { copyFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..');
const out = path.resolve(ROOT, process.argv[2] ?? 'dist/vendor');
const require = createRequire(path.join(ROOT, 'package.json'));

/** The folder of an installed package, found through a file its exports name. */
const packageDir = (file: string): string => path.dirname(require.resolve(file));

const runtime = packageDir('web-tree-sitter/tree-sitter.wasm');
const grammar = packageDir('tree-sitter-c/tree-sitter-c.wasm');
const copies: readonly (readonly [string, string])[] = [
  [path.join(runtime, 'tree-sitter.js'), 'tree-sitter.js'],
  [path.join(runtime, 'tree-sitter.wasm'), 'tree-sitter.wasm'],
  [path.join(runtime, 'LICENSE'), 'web-tree-sitter.LICENSE'],
  [path.join(grammar, 'tree-sitter-c.wasm'), 'tree-sitter-c.wasm'],
  [path.join(grammar, 'LICENSE'), 'tree-sitter-c.LICENSE'],
];
mkdirSync(out, { recursive: true });
for (const [from, to] of copies) copyFileSync(from, path.join(out, to));
