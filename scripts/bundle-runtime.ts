/**
 * Bundles `scf/runtime` for node into one ES module after tsc: `dist/runtime.js` (from
 * src/runtime.ts), so a staged folder loads one module of scf instead of every file its runtime
 * reaches, with Immutable.js inlined from its ES module build (no CJS lexing at load time).
 *
 * Identity. Every other module of dist/ the bundle holds (the prelude, the admission helpers, the
 * kernel's AST helpers, …) is rewritten as a shim re-exporting its names from the bundle (each
 * under a generated name, `__scfN_name`), so under node `scf`, `scf/prelude`, the unstaged fallback
 * and the bundle share one copy of every class, symbol and table: an `InputNotAdmitted` thrown by
 * staged code is an `instanceof` the one `scf` exports.
 *
 * A page. A page's bundler bundles scf itself and tree-shakes it by module (package.json's
 * `sideEffects: false`), so it gets the plain modules: each shimmed module keeps its own code as
 * its page twin `X.page.js`, which package.json's "browser" map names (a module with a hand-written
 * twin `X.browser.js` has that one), and `scf/runtime` is `dist/runtime.browser.js`, tsc's output of
 * src/runtime.browser.ts. The build fails, saying which entries to add or remove, where the map
 * and the bundle disagree.
 *
 * The unstaged fallback stays outside: `optimizers/fallback-passes.js` is external (a page's
 * bundler splits it into a chunk loaded on demand, fallback.browser.ts), and under node
 * optimizers/fallback.lazy.ts replaces fallback.ts, requiring it on the first call that needs it.
 * `import.meta.url` in a bundled module is rewritten to the URL the module had in dist/, so the
 * paths it computes from it (the installation's folders, the vendored files) stay the same.
 *
 * `npm run build` runs it last. Usage: `tsx scripts/bundle-runtime.ts [DIST]`.
 */
import { copyFileSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { type BuildOptions, build, type Plugin } from 'esbuild';

const ROOT = path.resolve(import.meta.dirname, '..');
const DIST = path.resolve(ROOT, process.argv[2] ?? 'dist');
const FALLBACK_PASSES = path.join(DIST, 'optimizers/fallback-passes.js');
/**
 * Node's bundle holds these modules' lazy forms (`X.lazy.ts`), which require a module outside it
 * on the first call that needs it: the fallback's passes (the lazy fallback.ts stands for it, and
 * fallback.ts's file becomes its shim). What compiles a user's pass stays inside: an app's bundler
 * that bundles scf/runtime for node sees no `require`, and a user's pass must compile there too.
 */
const LAZY: readonly { readonly module: string; readonly lazy: string; readonly shimmed: boolean }[] = [
  { module: 'optimizers/fallback.js', lazy: 'optimizers/fallback.lazy.js', shimmed: true },
].map((l) => ({ ...l, module: path.join(DIST, l.module), lazy: path.join(DIST, l.lazy) }));
/** The name of the generated entry (no file of dist/). */
const ENTRY_NAME = 'bundle-entry.js';
/** The one package inlined; every other one stays an import of the installed package. */
const INLINED = new Set(['immutable']);

/** The bundle's file, which is also its entry's module in dist/. */
const ENTRY = 'runtime.js';

/** Resolution: the fallback's passes external, the fallback lazy, packages but Immutable external. */
function resolvePlugin(): Plugin {
  return {
    name: 'scf-runtime-resolve',
    setup(b) {
      b.onResolve({ filter: /^\.\.?\// }, (args) => {
        const abs = path.resolve(args.resolveDir, args.path);
        if (abs === FALLBACK_PASSES) return { path: './optimizers/fallback-passes.js', external: true };
        const lazy = LAZY.find((l) => l.module === abs);
        if (lazy !== undefined && args.importer !== lazy.lazy) return { path: lazy.lazy };
        return undefined;
      });
      b.onResolve({ filter: /^[^./]/ }, (args) =>
        INLINED.has(args.path) ? undefined : { path: args.path, external: true },
      );
      b.onLoad({ filter: /\.js$/ }, (args) => {
        const text = readFileSync(args.path, 'utf8');
        if (!args.path.startsWith(DIST) || !text.includes('import.meta.url')) return undefined;
        const own = `new URL(${JSON.stringify(`./${path.relative(DIST, args.path)}`)}, import.meta.url).href`;
        return { contents: text.replaceAll('import.meta.url', own), loader: 'js' };
      });
    },
  };
}

function options(contents: string): BuildOptions {
  return {
    stdin: { contents, resolveDir: DIST, sourcefile: ENTRY_NAME, loader: 'js' },
    bundle: true,
    write: false,
    metafile: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    // Immutable's ES module build (its "main" is CommonJS)
    mainFields: ['module', 'main'],
    legalComments: 'none',
    // less for node to parse at load; names kept, so stack traces read as the sources do
    minifyWhitespace: true,
    logLevel: 'warning',
    plugins: [resolvePlugin()],
  };
}

/** A module of dist/ by its path in dist/ (a lazy form by the module it stands for). */
function moduleKey(file: string): string | undefined {
  const abs = path.resolve(ROOT, file);
  if (!abs.startsWith(DIST) || abs === path.join(DIST, ENTRY_NAME)) return undefined;
  const lazy = LAZY.find((l) => l.lazy === abs);
  if (lazy !== undefined) return lazy.shimmed ? path.relative(DIST, lazy.module) : undefined;
  return path.relative(DIST, abs);
}

/** The modules of dist/ a bundle of `contents` holds, by key (the entry itself aside). */
async function bundledModules(contents: string): Promise<Set<string>> {
  const r = await build(options(contents));
  const keys = Object.keys(r.metafile?.inputs ?? {}).map(moduleKey);
  return new Set(keys.filter((k): k is string => k !== undefined && k !== ENTRY));
}

/** The value exports of each module. */
async function exportsOf(keys: readonly string[]): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  for (const k of keys) {
    const ns = (await import(pathToFileURL(path.join(DIST, k)).href)) as Record<string, unknown>;
    out.set(k, Object.keys(ns).sort());
  }
  return out;
}

const internalName = (i: number, name: string): string => `__scf${i}_${name}`;

/** The page twin of a shimmed module: its own code, for a page's bundler. */
const pageTwin = (key: string): string => key.replace(/\.js$/, '.page.js');

/**
 * package.json's "browser" map must send each shimmed module to a twin of its own code — its
 * hand-written `X.browser.js`, or else its page twin — and name no other page twin: in a page a
 * shim would import node's bundle.
 */
function checkPageTwins(shimmed: readonly string[]): void {
  const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
    browser: Record<string, string>;
    exports: Record<string, { readonly default?: string; readonly browser?: string }>;
  };
  const hasOwnTwin = (k: string) =>
    pkg.browser[`./dist/${k}`] === `./dist/${k.replace(/\.js$/, '.browser.js')}`;
  const want = new Map(
    shimmed.filter((k) => !hasOwnTwin(k)).map((k) => [`./dist/${k}`, `./dist/${pageTwin(k)}`]),
  );
  const have = Object.entries(pkg.browser).filter(([, twin]) => twin.endsWith('.page.js'));
  const missing = [...want].filter(([m, t]) => pkg.browser[m] !== t);
  const extra = have.filter(([m]) => !want.has(m));
  // a package entry (`scf/prelude`, which the built-in passes import) resolves by "exports", where
  // a page's bundler takes the "browser" condition and reads no "browser" map
  const entries = Object.entries(pkg.exports).filter(([, e]) => typeof e.default === 'string');
  const conditions = entries
    .filter(([, e]) => want.has(e.default as string) && e.browser !== want.get(e.default as string))
    .map(([name, e]) => `  set    exports["${name}"].browser: "${want.get(e.default as string)}"`);
  if (missing.length === 0 && extra.length === 0 && conditions.length === 0) return;
  const lines = [
    ...missing.map(([m, t]) => `  add    "${m}": "${t}"`),
    ...extra.map(([m, t]) => `  remove "${m}": "${t}"`),
    ...conditions,
  ];
  throw new Error(
    `bundle-runtime: package.json's "browser" map or "exports" does not match the modules node's runtime bundle holds:\n${lines.join('\n')}`,
  );
}

/** The shim of module `key` (its names `names`, numbered `i`): re-exports from the bundle. */
function shim(key: string, i: number, names: readonly string[]): string {
  if (names.length === 0) return 'export {};\n';
  const list = names.map((n) => `${internalName(i, n)} as ${n}`);
  const rel = path.relative(path.dirname(path.join(DIST, key)), path.join(DIST, ENTRY));
  const spec = rel.split(path.sep).join('/');
  return `export { ${list.join(', ')} } from '${spec.startsWith('.') ? spec : `./${spec}`}';\n`;
}

async function main(): Promise<void> {
  const held = await bundledModules(`export * from './${ENTRY}';\n`);
  const keys = [...held].sort();
  checkPageTwins(keys);
  const names = await exportsOf(keys);
  const reexports = keys
    .map((k, i) => {
      const list = (names.get(k) ?? []).map((n) => `${n} as ${internalName(i, n)}`);
      return list.length > 0 ? `export { ${list.join(', ')} } from './${k}';\n` : '';
    })
    .join('');
  const r = await build(options(`export * from './${ENTRY}';\n${reexports}`));
  for (const k of Object.keys(r.metafile?.inputs ?? {}).map(moduleKey))
    if (k !== undefined && k !== ENTRY && !held.has(k))
      throw new Error(`bundle-runtime: ${ENTRY} holds ${k}, which has no shim`);
  const file = r.outputFiles?.[0];
  if (file === undefined) throw new Error(`bundle-runtime: no output for ${ENTRY}`);
  // each module the bundle holds becomes a shim of it, its own code kept for a page
  for (const k of keys)
    if (!existsSync(path.join(DIST, k.replace(/\.js$/, '.browser.js'))))
      copyFileSync(path.join(DIST, k), path.join(DIST, pageTwin(k)));
  writeFileSync(path.join(DIST, ENTRY), file.text);
  keys.forEach((k, i) => {
    writeFileSync(path.join(DIST, k), shim(k, i, names.get(k) ?? []));
  });
  for (const { lazy } of LAZY) {
    rmSync(lazy);
    rmSync(lazy.replace(/\.js$/, '.d.ts'));
  }
  console.log(
    `bundle-runtime: ${held.size} modules → dist/${ENTRY} (${readFileSync(path.join(DIST, ENTRY)).length} bytes)`,
  );
}

await main();
