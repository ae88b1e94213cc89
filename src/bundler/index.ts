/**
 * Bundler plugins: `import { specialize } from './conv.json?scf'` in an app stages that config at
 * build time and resolves to its staged stub. cache.ts keeps the staged folders under the app's
 * `node_modules/.cache/scf/`, one entry per config, reused while its build record is fresh;
 * esbuild.ts (`scf/esbuild`) and vite.ts (`scf/vite`, a Rollup plugin too) are the package's
 * plugins over it. The plugin modules themselves are package exports of their own, so that an app
 * loads only its bundler's.
 */
export {
  CACHE_LOCK_WAIT_MS,
  type CachedStage,
  type CacheOptions,
  cacheDir,
  NotAConfig,
  SCF_QUERY,
  type StageErrorReport,
  scfRequest,
  sourceLine,
  stageCached,
  stageErrorReport,
} from './cache.js';
