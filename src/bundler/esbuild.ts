/**
 * `scf/esbuild`: the esbuild plugin. `import { specialize } from './conv.json?scf'` stages the
 * config at build time into the app's staging cache (cache.ts) and resolves to the staged stub,
 * which esbuild then bundles with its staged modules and `scf/runtime` like any module of the app.
 *
 * - A config error is a build error at the config's line and column (`location`), with the line's
 *   text; a JSON file that is no config, and every other staging error, a build error with scf's
 *   message.
 * - In watch mode, esbuild rebuilds when any file the stage read changes (`watchFiles`: the config,
 *   the kernel or the entry's modules, the passes), and the next build stages again.
 * - A specifier that is not a path (`pkg/conv.json?scf`) is resolved by esbuild first.
 */
import path from 'node:path';
import type { Plugin, PluginBuild } from 'esbuild';
import { type CacheOptions, scfRequest, sourceLine, stageCached, stageErrorReport } from './index.js';

export type ScfEsbuildOptions = CacheOptions;

/** The plugin; `opts.root` defaults to the build's `absWorkingDir`, else the working directory. */
export function scf(opts: ScfEsbuildOptions = {}): Plugin {
  return {
    name: 'scf',
    setup(build: PluginBuild) {
      const root = opts.root ?? build.initialOptions.absWorkingDir ?? process.cwd();
      build.onResolve({ filter: /\?scf$/ }, async (args) => {
        const spec = scfRequest(args.path) as string;
        let file: string;
        if (spec.startsWith('.') || path.isAbsolute(spec)) file = path.resolve(args.resolveDir, spec);
        else {
          const r = await build.resolve(spec, { kind: args.kind, resolveDir: args.resolveDir });
          if (r.errors.length > 0) return { errors: r.errors };
          file = r.path;
        }
        try {
          const c = await stageCached(file, { ...opts, root });
          return { path: c.stub, watchFiles: [...c.inputs] };
        } catch (e) {
          const r = stageErrorReport(e);
          const location =
            r.file === undefined
              ? null
              : {
                  file: path.relative(root, r.file),
                  line: r.line ?? 1,
                  column: r.column ?? 0,
                  lineText: sourceLine(r.file, r.line ?? 1),
                };
          return { errors: [{ text: r.text, location }], watchFiles: [file] };
        }
      });
    },
  };
}

export default scf;
