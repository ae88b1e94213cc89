/**
 * Bundles `scf/runtime` into one ES module per platform, after tsc: `dist/runtime.js` for node
 * (from src/runtime.ts) and `dist/runtime.browser.js` for a page (from src/runtime.browser.ts,
 * package.json's "browser" map resolving node-only modules to their twins), so a staged folder
 * loads one module instead of every file its runtime reaches, with Immutable.js inlined from its
 * ES module build (no CJS lexing at load time).
 *
 * Identity. Every other module of dist/ that the bundle holds (the prelude, the admission helpers,
 * the kernel's AST helpers, …) is rewritten as a shim re-exporting its names from the bundle (each
 * under a generated name, `__scfN_name`), so `scf`, `scf/prelude`, the unstaged fallback and the
 * bundle share one copy of every class, symbol and table: an `InputNotAdmitted` thrown by staged
 * code is an `instanceof` the one `scf` exports. The modules are numbered in one order for both
 * bundles, and a module both hold has one shim that works under either: in a page its
 * `../runtime.js` resolves to `runtime.browser.js` through the "browser" map. A module only
 * node's bundle holds (what compiles a user's pass, which a page does not) is shimmed for node,
 * and its own code is kept as its page twin `X.page.js`, which the "browser" map names for a
 * page (the build fails, saying which entries to add or remove, where the map and the bundles
 * disagree).
 *
 * The unstaged fallback stays outside: `optimizers/fallback-passes.js` is external to both bundles
 * (a page's bundler splits it into a chunk loaded on demand, fallback.browser.ts), and under node
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

interface Platform {
  readonly platform: 'node' | 'browser';
  /** The entry's module in dist/ and the bundle's file, the same one. */
  readonly entry: string;
}
const PLATFORMS: readonly Platform[] = [
  { platform: 'node', entry: 'runtime.js' },
  { platform: 'browser', entry: 'runtime.browser.js' },
];

/** Resolution: the fallback's passes external, node's fallback lazy, packages but Immutable external. */
function resolvePlugin(platform: Platform['platform']): Plugin {
  return {
    name: 'scf-runtime-resolve',
    setup(b) {
      b.onResolve({ filter: /^\.\.?\// }, (args) => {
        const abs = path.resolve(args.resolveDir, args.path);
        if (abs === FALLBACK_PASSES) return { path: './optimizers/fallback-passes.js', external: true };
        const lazy = platform === 'node' ? LAZY.find((l) => l.module === abs) : undefined;
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

function options(p: Platform, contents: string): BuildOptions {
  return {
    stdin: { contents, resolveDir: DIST, sourcefile: ENTRY_NAME, loader: 'js' },
    bundle: true,
    write: false,
    metafile: true,
    format: 'esm',
    platform: p.platform,
    target: p.platform === 'node' ? 'node20' : 'es2022',
    // Immutable's ES module build under node too (its "main" is CommonJS)
    mainFields: p.platform === 'node' ? ['module', 'main'] : ['browser', 'module', 'main'],
    legalComments: 'none',
    // less for node to parse at load; names kept, so stack traces read as the sources do
    minifyWhitespace: true,
    logLevel: 'warning',
    plugins: [resolvePlugin(p.platform)],
  };
}

/** A module of dist/ by the name its node form has (`runtime/files.js` for files.browser.js too). */
function moduleKey(file: string): string | undefined {
  const abs = path.resolve(ROOT, file);
  if (!abs.startsWith(DIST) || abs === path.join(DIST, ENTRY_NAME)) return undefined;
  const lazy = LAZY.find((l) => l.lazy === abs);
  if (lazy !== undefined) return lazy.shimmed ? path.relative(DIST, lazy.module) : undefined;
  return path.relative(DIST, abs).replace(/\.browser\.js$/, '.js');
}

/** The modules of dist/ a bundle of `contents` holds, by key (the entry itself aside). */
async function bundledModules(p: Platform, contents: string): Promise<Set<string>> {
  const r = await build(options(p, contents));
  const keys = Object.keys(r.metafile?.inputs ?? {}).map(moduleKey);
  return new Set(keys.filter((k): k is string => k !== undefined && k !== 'runtime.js'));
}

/** The value exports of each module (its node form, which its twin matches: browser-twins.test.ts). */
async function exportsOf(keys: readonly string[]): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  for (const k of keys) {
    const ns = (await import(pathToFileURL(path.join(DIST, k)).href)) as Record<string, unknown>;
    out.set(k, Object.keys(ns).sort());
  }
  return out;
}

/** The page twin of a module only node's bundle holds: its own code, for a page. */
const pageTwin = (key: string): string => key.replace(/\.js$/, '.page.js');

/**
 * package.json's "browser" map must send each module only node's bundle holds to its page twin,
 * and name no other page twin: in a page its shim would import names the page's bundle lacks.
 */
function checkPageTwins(nodeOnly: readonly string[]): void {
  const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
    browser: Record<string, string>;
  };
  const want = new Map(nodeOnly.map((k) => [`./dist/${k}`, `./dist/${pageTwin(k)}`]));
  const have = Object.entries(pkg.browser).filter(([, twin]) => twin.endsWith('.page.js'));
  const missing = [...want].filter(([m, t]) => pkg.browser[m] !== t);
  const extra = have.filter(([m]) => !want.has(m));
  if (missing.length === 0 && extra.length === 0) return;
  const lines = [
    ...missing.map(([m, t]) => `  add    "${m}": "${t}"`),
    ...extra.map(([m, t]) => `  remove "${m}": "${t}"`),
  ];
  throw new Error(
    `bundle-runtime: package.json's "browser" map does not match the modules only node's runtime bundle holds:\n${lines.join('\n')}`,
  );
}

const internalName = (i: number, name: string): string => `__scf${i}_${name}`;

/** The shim of module `key` (its names `names`, numbered `i`): re-exports from the bundle. */
function shim(key: string, i: number, names: readonly string[]): string {
  if (names.length === 0) return 'export {};\n';
  const list = names.map((n) => `${internalName(i, n)} as ${n}`);
  const rel = path.relative(path.dirname(path.join(DIST, key)), path.join(DIST, 'runtime.js'));
  const spec = rel.split(path.sep).join('/');
  return `export { ${list.join(', ')} } from '${spec.startsWith('.') ? spec : `./${spec}`}';\n`;
}

async function main(): Promise<void> {
  const sets = await Promise.all(PLATFORMS.map((p) => bundledModules(p, `export * from './${p.entry}';\n`)));
  if (process.env.SCF_BUNDLE_DEBUG)
    for (const [j, s] of sets.entries())
      console.log(
        PLATFORMS[j]?.platform,
        [...s].filter((k) => !(sets[1 - j] as Set<string>).has(k)),
      );
  // one numbering for both bundles, each exporting the names of the modules it holds
  const keys = [...new Set(sets.flatMap((s) => [...s]))].sort();
  const names = await exportsOf(keys);
  for (const [j, p] of PLATFORMS.entries()) {
    const own = sets[j] as Set<string>;
    const reexports = keys
      .map((k, i) => {
        const list = (names.get(k) ?? []).map((n) => `${n} as ${internalName(i, n)}`);
        return own.has(k) && list.length > 0 ? `export { ${list.join(', ')} } from './${k}';\n` : '';
      })
      .join('');
    const r = await build(options(p, `export * from './${p.entry}';\n${reexports}`));
    for (const k of Object.keys(r.metafile?.inputs ?? {}).map(moduleKey))
      if (k !== undefined && k !== 'runtime.js' && !own.has(k))
        throw new Error(`bundle-runtime: ${p.entry} holds ${k}, which has no shim`);
    const file = r.outputFiles?.[0];
    if (file === undefined) throw new Error(`bundle-runtime: no output for ${p.entry}`);
    writeFileSync(path.join(DIST, p.entry), file.text);
  }
  // each module a bundle holds becomes a shim of it: the node form where node's bundle holds it,
  // the browser twin where the page's does; a module only node's bundle holds keeps its code for
  // a page in its page twin (the page's bundle exports none of its names)
  const [nodeSet, browserSet] = sets as [Set<string>, Set<string>];
  const nodeOnly = keys.filter((k) => !browserSet.has(k));
  checkPageTwins(nodeOnly);
  for (const k of nodeOnly) copyFileSync(path.join(DIST, k), path.join(DIST, pageTwin(k)));
  keys.forEach((k, i) => {
    const text = shim(k, i, names.get(k) ?? []);
    if (nodeSet.has(k)) writeFileSync(path.join(DIST, k), text);
    const twin = path.join(DIST, k.replace(/\.js$/, '.browser.js'));
    if (browserSet.has(k) && existsSync(twin)) writeFileSync(twin, text);
  });
  for (const { lazy } of LAZY) {
    rmSync(lazy);
    rmSync(lazy.replace(/\.js$/, '.d.ts'));
  }
  const size = (f: string) => readFileSync(path.join(DIST, f)).length;
  console.log(
    `bundle-runtime: ${nodeSet.size} modules → dist/runtime.js (${size('runtime.js')} bytes), ${browserSet.size} → dist/runtime.browser.js (${size('runtime.browser.js')} bytes)`,
  );
}

await main();
