/**
 * Builds the playground into a folder (`npm run playground` serves it, serve.ts): under node, each
 * config of CONFIGS is staged with the API into `OUT/staged/ID/`, its run-time arguments (`args`,
 * drawn as `scf bench --kernel` draws them, `argValue`) are written to `OUT/site/ID.args.bin`
 * (float64s, one array after another), and a generated entry module imports the stubs and hands
 * them, with what the page shows of each config (the kernel's C source, the config, the abstract
 * programs I1, I2 …, the staged modules' size), to page.mjs. esbuild bundles that entry for the
 * browser from the built package (dist/, whose package.json "browser" map swaps the node-only
 * modules), so `npm run build` must have run; `OUT/site/` (index.html, page.js, the arguments) is
 * all the page needs.
 */
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import { argValue } from '../../src/bench/index.js';
import { loadConfig, stageConfig, writeStaged } from '../../src/pipeline/index.js';

const HERE = import.meta.dirname;
const ROOT = path.resolve(HERE, '../..');

/** The configs the page offers: an id for the page and the config file, relative to the repository. */
export const CONFIGS: readonly { readonly id: string; readonly title: string; readonly file: string }[] = [
  { id: 'conv', title: 'conv 3×3 taps', file: 'configs/kernel/01-conv.json' },
  { id: 'ops', title: 'op-code program', file: 'configs/kernel/03-ops.json' },
];

/** Where a run-time argument lies: a scalar as it is, an array as a slice of the args file. */
export type ArgLayout =
  | { readonly name: string; readonly value: number }
  | { readonly name: string; readonly offset: number; readonly length: number };

/** What the page gets of one config besides its stub. */
export interface PageConfig {
  readonly id: string;
  readonly title: string;
  readonly file: string;
  readonly fn: string;
  readonly description: string;
  readonly configText: string;
  readonly kernelFile: string;
  readonly kernelSource: string;
  readonly sample: Readonly<Record<string, unknown>>;
  readonly args: readonly ArgLayout[];
  readonly stagedBytes: number;
  readonly abstract: string;
}

/** The built site and what was staged. */
export interface PlaygroundBuild {
  /** The folder to serve: index.html, page.js, ID.args.bin. */
  readonly site: string;
  /** The staged folder of each config by id (its stub is `FN.stub.mjs`). */
  readonly staged: Readonly<Record<string, string>>;
  readonly configs: readonly PageConfig[];
  readonly bundleBytes: number;
}

/** Stages one config into `dir` and describes it for the page; writes its arguments into `site`. */
async function stageOne(c: (typeof CONFIGS)[number], dir: string, site: string): Promise<PageConfig> {
  const file = path.join(ROOT, c.file);
  const config = loadConfig(file);
  const staged = await stageConfig(config);
  writeStaged(staged.stages, { outDir: dir, fun: staged.fun, bind: config.bind, origin: c.file });
  const layout: ArgLayout[] = [];
  const arrays: number[][] = [];
  let offset = 0;
  for (const [name, spec] of Object.entries(config.args ?? {})) {
    const v = argValue(spec);
    if (typeof v === 'number') layout.push({ name, value: v });
    else if (Array.isArray(v)) {
      const xs = v.map(Number);
      layout.push({ name, offset, length: xs.length });
      arrays.push(xs);
      offset += xs.length;
    } else throw new Error(`${c.file}: the argument '${name}' is neither a number nor an array`);
  }
  writeFileSync(path.join(site, `${c.id}.args.bin`), new Float64Array(arrays.flat()));
  const files = readdirSync(dir);
  const abstract = files.find((f) => f.endsWith('.abstract.txt'));
  return {
    id: c.id,
    title: c.title,
    file: c.file,
    fn: staged.fun.name,
    description: config.description ?? '',
    configText: readFileSync(file, 'utf8'),
    kernelFile: path.relative(ROOT, config.input),
    kernelSource: readFileSync(config.input, 'utf8'),
    sample: config.sample ?? {},
    args: layout,
    stagedBytes: files
      .filter((f) => f.endsWith('.staged.mjs'))
      .reduce((n, f) => n + statSync(path.join(dir, f)).size, 0),
    abstract: abstract ? readFileSync(path.join(dir, abstract), 'utf8') : '',
  };
}

/** Stages the configs, writes the arguments and bundles the page into `out` (emptied first). */
export async function buildPlayground(out: string): Promise<PlaygroundBuild> {
  if (!existsSync(path.join(ROOT, 'dist/target/index.js')))
    throw new Error('the playground bundles the built package: run `npm run build` first');
  rmSync(out, { recursive: true, force: true });
  const site = path.join(out, 'site');
  mkdirSync(site, { recursive: true });
  const configs: PageConfig[] = [];
  const staged: Record<string, string> = {};
  for (const c of CONFIGS) {
    const dir = path.join(out, 'staged', c.id);
    configs.push(await stageOne(c, dir, site));
    staged[c.id] = dir;
  }
  const entry = path.join(out, 'entry.mjs');
  writeFileSync(
    entry,
    [
      ...configs.map(
        (c) => `import * as ${c.id} from ${JSON.stringify(`./staged/${c.id}/${c.fn}.stub.mjs`)};`,
      ),
      `import { start } from ${JSON.stringify(path.join(HERE, 'page.mjs'))};`,
      `const configs = ${JSON.stringify(configs)};`,
      `start(configs.map((c) => ({ ...c, stub: { ${configs.map((c) => `${c.id}`).join(', ')} }[c.id] })));`,
      '',
    ].join('\n'),
  );
  const r = await build({
    entryPoints: [entry],
    outfile: path.join(site, 'page.js'),
    bundle: true,
    platform: 'browser',
    format: 'esm',
    minify: true,
    logLevel: 'silent',
    // `scf/…` (the stubs import scf/runtime) resolved as from inside the package, by its exports
    // (dist/) wherever the staged folders lie, and not by the checkout's tsconfig paths (src/)
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
  copyFileSync(path.join(HERE, 'index.html'), path.join(site, 'index.html'));
  return { site, staged, configs, bundleBytes: statSync(path.join(site, 'page.js')).size };
}
