/**
 * Drops the comments of the built JavaScript (dist/, the vendored files excepted): the package
 * ships its sources' documentation in the `.d.ts` files beside each module, where editors show
 * it, and in docs/; the comments of the `.js` files are a quarter of their bytes and no reader of
 * an installed package needs them. esbuild's transform keeps the code's meaning (no bundling, no
 * lowering for Node 20, ES modules as they are); only comments and layout change.
 *
 * `npm run build` runs it after tsc. Usage: `tsx scripts/strip-dist.ts [DIR]` (DIR defaults to dist).
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { transformSync } from 'esbuild';

const ROOT = path.resolve(import.meta.dirname, '..');
const dir = path.resolve(ROOT, process.argv[2] ?? 'dist');

function walk(d: string): string[] {
  return readdirSync(d, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(d, e.name);
    if (e.isDirectory()) return e.name === 'vendor' ? [] : walk(p);
    return p.endsWith('.js') ? [p] : [];
  });
}

let before = 0;
let after = 0;
for (const file of walk(dir)) {
  const text = readFileSync(file, 'utf8');
  const out = transformSync(text, {
    format: 'esm',
    loader: 'js',
    target: 'node20',
    legalComments: 'none',
  }).code;
  before += text.length;
  after += out.length;
  writeFileSync(file, out);
}
console.log(`strip-dist: ${path.relative(ROOT, dir)}/**/*.js ${before} → ${after} bytes`);
