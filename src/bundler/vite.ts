/**
 * `scf/vite`: the Vite plugin, which is a Rollup plugin too (it uses only `resolveId`,
 * `addWatchFile` and `error` there; the dev-server hooks are Vite's). `import { specialize } from
 * './conv.json?scf'` stages the config at build time into the app's staging cache (cache.ts) and
 * resolves to the staged stub, which the bundler then bundles like any module of the app.
 *
 * - A config error is a build error (`this.error`) with the config as its `id` and the line and
 *   column as its `loc`; a JSON file that is no config, and every other staging error, a build
 *   error with scf's message.
 * - Every file the stage read (the config, the kernel or the entry's modules, the passes) is a
 *   watched file (`addWatchFile`), so `rollup -w` and `vite build --watch` rebuild on its change.
 * - On Vite's dev server, a change of one of those files stages the config again, invalidates the
 *   stub and its staged modules in the module graph and reloads the page; a stage that fails
 *   shows its error in the page's overlay, and the next change tries again (of the config alone,
 *   when its first stage failed). Changes are staged once their events stop for `SETTLE_MS`, one
 *   round after the other. The stub's imports of
 *   its staged modules are resolved here, to their plain paths (`stagedImport`), so that the
 *   page revalidates them on a reload rather than keeping a cached old stage.
 */
import { readdirSync, realpathSync } from 'node:fs';
import path from 'node:path';
import type { Plugin, ViteDevServer } from 'vite';
import {
  type CacheOptions,
  type CachedStage,
  cacheDir,
  scfRequest,
  stageCached,
  stageErrorReport,
} from './index.js';

export type ScfViteOptions = CacheOptions;

/** How long the dev server waits for a stage input's change events to stop before staging (ms). */
const SETTLE_MS = 60;

/** The plugin; `opts.root` defaults to Vite's `root` (Rollup: the working directory). */
export function scf(opts: ScfViteOptions = {}): Plugin {
  let root = opts.root;
  let server: ViteDevServer | undefined;
  /**
   * The configs imported in this build or server, by path, with the files whose change stages
   * them again: what their last stage read, or the config alone when it failed.
   */
  const watched = new Map<string, readonly string[]>();
  const cache = (): CacheOptions => ({ ...opts, root: root ?? process.cwd() });

  /**
   * A stub's import of its staged modules (`./NAME.PASS.staged.mjs`), as the plain path: Vite's
   * resolver would give a file under node_modules the dependencies' version query, which the
   * browser caches for good, so that a page reloaded after a new stage would run the old modules.
   */
  const stagedImport = (source: string, importer: string | undefined): string | null => {
    if (importer === undefined || !source.startsWith('./')) return null;
    const from = importer.replace(/[?#].*$/, '');
    const dir = path.dirname(from);
    if (path.dirname(dir) !== cacheDir(cache())) return null;
    return path.join(dir, source);
  };

  return {
    name: 'scf',
    enforce: 'pre',
    configResolved(config) {
      root = opts.root ?? config.root;
    },
    configureServer(s) {
      server = s;
      const later = restager(s, watched, cache);
      s.watcher.on('change', later);
      s.watcher.on('add', later);
    },
    async resolveId(source, importer) {
      const spec = scfRequest(source);
      if (spec === undefined) return stagedImport(source, importer);
      let file: string;
      if (spec.startsWith('.') || path.isAbsolute(spec))
        file = path.resolve(importer === undefined ? (cache().root ?? '.') : path.dirname(importer), spec);
      else {
        const r = await this.resolve(spec, importer, { skipSelf: true });
        if (r === null) return this.error(`cannot resolve '${spec}' (imported as '${source}')`);
        file = r.id;
      }
      let c: CachedStage;
      try {
        c = await stageCached(file, cache());
      } catch (e) {
        // on the dev server, an edit of the config that failed tries again
        watched.set(file, [path.resolve(file)]);
        server?.watcher.add(file);
        const r = stageErrorReport(e);
        return this.error({
          message: r.text,
          id: r.file ?? file,
          ...(r.file !== undefined
            ? { loc: { file: r.file, line: r.line ?? 1, column: r.column ?? 0 } }
            : {}),
        });
      }
      watched.set(file, c.inputs);
      for (const i of c.inputs) this.addWatchFile(i);
      server?.watcher.add([...c.inputs]);
      return c.stub;
    },
  };
}

export default scf;

/**
 * The dev server's watcher handler: `restage` of the files changed, once their events have
 * stopped for `SETTLE_MS` (an editor's save can be a truncation and a write, reported apart, and
 * the first would stage an empty file), one round after the other. `watched` is the plugin's
 * map of configs to the files whose change stages them again, kept up to date here.
 */
function restager(
  s: ViteDevServer,
  watched: Map<string, readonly string[]>,
  cache: () => CacheOptions,
): (file: string) => void {
  /** Stages every config that read one of `files` again and reloads the pages using them. */
  const restage = async (files: readonly string[]): Promise<void> => {
    // the watcher names a file by the path it was given or found; a record, by the real path
    const names = new Set(files.flatMap((f) => [path.resolve(f), realPath(f)]));
    const configs = [...watched]
      .filter(([, inputs]) => inputs.some((i) => names.has(i)))
      .map(([config]) => config);
    if (configs.length === 0) return;
    for (const config of configs) {
      try {
        const c = await stageCached(config, cache());
        watched.set(config, c.inputs);
        s.watcher.add([...c.inputs]);
        for (const f of readdirSync(c.dir))
          for (const m of s.moduleGraph.getModulesByFile(path.join(c.dir, f)) ?? [])
            s.moduleGraph.invalidateModule(m);
      } catch (e) {
        watched.set(config, [...new Set([...(watched.get(config) ?? []), config])]);
        const r = stageErrorReport(e);
        s.ws.send({
          type: 'error',
          err: {
            message: r.text,
            stack: '',
            ...(r.file !== undefined
              ? { id: r.file, loc: { file: r.file, line: r.line ?? 1, column: r.column ?? 0 } }
              : {}),
            plugin: 'scf',
          },
        });
        return;
      }
    }
    s.ws.send({ type: 'full-reload', path: '*' });
  };

  const changed = new Set<string>();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let busy: Promise<void> = Promise.resolve();
  const later = (file: string): void => {
    changed.add(file);
    if (timer !== undefined) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      const files = [...changed];
      changed.clear();
      busy = busy
        .then(() => restage(files))
        .catch((e: unknown) => s.config.logger.error(`[scf] ${e instanceof Error ? e.message : String(e)}`));
    }, SETTLE_MS);
  };

  return later;
}

/** `file`'s real path, or its absolute path when it is gone. */
function realPath(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    return path.resolve(file);
  }
}
