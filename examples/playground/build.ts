/**
 * Builds the playground into a folder (`npm run playground` serves it, serve.ts). Nothing is
 * staged here: the page stages in a Web Worker. For each config of CONFIGS the build reads what
 * the page starts from — the config's text, its kernel's C source, its sample — and hands them, in
 * a generated entry module, to page.mjs; esbuild bundles that entry (page.js) and worker.mjs
 * (worker.js) for the browser from the built package (dist/, whose package.json "browser" map swaps
 * the node-only modules for their twins; scf/stage carries the built-in passes' Core programs), so
 * `npm run build` must have run. The C parser's files (web-tree-sitter's runtime and WebAssembly,
 * the C grammar's) are copied from dist/vendor/ into `OUT/site/vendor/`, where the worker's bundle
 * looks for them (`../vendor/` from itself: the site's root). `OUT/site/` is all the page needs.
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import { loadConfig } from '../../src/pipeline/index.js';

const HERE = import.meta.dirname;
const ROOT = path.resolve(HERE, '../..');

/**
 * The configs the page offers, the first shown when it opens: an id for the page, the config file
 * (relative to the repository) and a note saying what specialization does to its kernel. The page
 * opens on the op-code program, where the late values shape the kernel's control and the
 * specialized kernel keeps none of it; the convolution follows with why it gains little under exact
 * math.
 */
export const CONFIGS: readonly {
  readonly id: string;
  readonly title: string;
  readonly file: string;
  readonly note: string;
}[] = [
  {
    id: 'ops',
    title: 'op-code program',
    file: 'configs/kernel/03-ops.json',
    note:
      'The program of op codes is late: specialized for it, the kernel has no loop over the ops, no load of ' +
      'an op code or parameter and no test of one left, only the arithmetic of the ops given, so it runs ' +
      'several times faster than the generic kernel, which interprets the program for every pixel (the ' +
      'chart times round trips, which also carry the image in and out).',
  },
  {
    id: 'conv',
    title: 'conv 3×3 taps',
    file: 'configs/kernel/01-conv.json',
    note:
      'The nine taps are late, but a 3×3 convolution has no loop or branch for them to remove: specialized, ' +
      'it has nine literals where the generic kernel reads nine scalar arguments. Under exact math (the ' +
      'default) a zero tap stays too: ' +
      '0 × x is not 0 when x is NaN or infinite (IEEE 754 makes it NaN), so the product may not be dropped, ' +
      'and the specialized kernel gains little. Finite math ("math": "finite", docs/kernel-math.md) lets ' +
      'constant propagation fold 0 × x to 0: the zero taps, with their loads, leave the kernel.',
  },
];

/** The C parser's files the worker fetches, and their licences. */
export const VENDOR_FILES = [
  'tree-sitter.js',
  'tree-sitter.wasm',
  'tree-sitter-c.wasm',
  'web-tree-sitter.LICENSE',
  'tree-sitter-c.LICENSE',
] as const;

/** What the page starts from for one config. */
export interface PageConfig {
  readonly id: string;
  readonly title: string;
  /** What specialization does to its kernel (the page shows it under the picker). */
  readonly note: string;
  /** The config file, relative to the repository: the name the page stages it under. */
  readonly file: string;
  readonly description: string;
  readonly configText: string;
  /** The kernel's file, relative to the repository (the name its messages carry). */
  readonly kernelFile: string;
  readonly kernelSource: string;
  readonly sample: Readonly<Record<string, unknown>>;
}

/** The built site. */
export interface PlaygroundBuild {
  /** The folder to serve: index.html, page.js, worker.js, vendor/. */
  readonly site: string;
  readonly configs: readonly PageConfig[];
  /** Bytes of page.js and worker.js. */
  readonly bundleBytes: { readonly page: number; readonly worker: number };
}

/** What the page gets of a config. */
function pageConfig(c: (typeof CONFIGS)[number]): PageConfig {
  const file = path.join(ROOT, c.file);
  const config = loadConfig(file);
  return {
    id: c.id,
    title: c.title,
    note: c.note,
    file: c.file,
    description: config.description ?? '',
    configText: readFileSync(file, 'utf8'),
    kernelFile: path.relative(ROOT, config.input).split(path.sep).join('/'),
    kernelSource: readFileSync(config.input, 'utf8'),
    sample: config.sample ?? {},
  };
}

/** Bundles page.js and worker.js into `site` from dist/. */
async function bundle(site: string, entry: string): Promise<void> {
  const r = await build({
    entryPoints: { page: entry, worker: path.join(HERE, 'worker.mjs') },
    outdir: site,
    bundle: true,
    platform: 'browser',
    format: 'esm',
    minify: true,
    logLevel: 'silent',
    // `scf/…` resolved as from inside the package, by its exports (dist/), and not by the
    // checkout's tsconfig paths (src/)
    tsconfigRaw: '{}',
    plugins: [
      {
        name: 'scf-self',
        setup(b) {
          b.onResolve({ filter: /^scf(\/|$)/ }, (a) =>
            a.resolveDir === ROOT ? undefined : b.resolve(a.path, { kind: a.kind, resolveDir: ROOT }),
          );
        },
      },
    ],
    absWorkingDir: ROOT,
  });
  if (r.errors.length > 0) throw new Error(`esbuild: ${r.errors.map((e) => e.text).join('; ')}`);
}

/** Writes the page, bundles it with the worker and copies the C parser's files into `out` (emptied first). */
export async function buildPlayground(out: string): Promise<PlaygroundBuild> {
  if (!existsSync(path.join(ROOT, 'dist/stage.js')))
    throw new Error('the playground bundles the built package: run `npm run build` first');
  rmSync(out, { recursive: true, force: true });
  const site = path.join(out, 'site');
  mkdirSync(path.join(site, 'vendor'), { recursive: true });
  const configs = CONFIGS.map(pageConfig);
  const entry = path.join(out, 'entry.mjs');
  writeFileSync(
    entry,
    [
      `import { start } from ${JSON.stringify(path.join(HERE, 'page.mjs'))};`,
      `start(${JSON.stringify(configs)});`,
      '',
    ].join('\n'),
  );
  await bundle(site, entry);
  for (const f of VENDOR_FILES) copyFileSync(path.join(ROOT, 'dist/vendor', f), path.join(site, 'vendor', f));
  copyFileSync(path.join(HERE, 'index.html'), path.join(site, 'index.html'));
  const size = (f: string) => statSync(path.join(site, f)).size;
  return { site, configs, bundleBytes: { page: size('page.js'), worker: size('worker.js') } };
}
