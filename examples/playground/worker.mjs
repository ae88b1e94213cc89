/**
 * The playground's staging worker (bundled by build.ts into worker.js): it stages a config's text
 * on its kernel's C text with `stageInMemory` (scf/stage: the C parser's WebAssembly fetched from
 * vendor/ beside it, the built-in passes' Core programs compiled at build time) and posts back,
 * for the request's `id`, a `progress` message per line (parsing the kernel, each pass started
 * and staged, emitting), then `done` with the staged folder's files and what the page shows of
 * them, or `error` with the message (positioned `FILE:LINE:COL: error CODE: …` for bad input,
 * `internal error: …` otherwise). Nothing is thrown out of the worker.
 */
import { ConfigError, describeStages, PassError, stageInMemory } from 'scf/stage';

/** An error as the page shows it. */
function messageOf(e) {
  if (e instanceof ConfigError || e instanceof PassError) return e.message;
  return `internal error: ${e instanceof Error ? e.message : String(e)}`;
}

const bytes = (text) => new TextEncoder().encode(text).length;

async function stage({ id, config, configFile, kernel }) {
  const t0 = performance.now();
  const post = (m) => self.postMessage({ id, ms: performance.now() - t0, ...m });
  try {
    const r = await stageInMemory(
      { config, configFile, kernel },
      { onStage: (line) => post({ kind: 'progress', line }) },
    );
    const modules = r.text.files.filter((f) => f.name.endsWith('.staged.mjs'));
    post({
      kind: 'done',
      files: r.text.files,
      stub: r.text.stub,
      modules: r.text.modules,
      stagedBytes: modules.reduce((n, f) => n + bytes(f.text), 0),
      abstract: describeStages(r.stages),
      fn: r.fun.name,
      args: r.config.args ?? {},
      passes: r.stages.map((s) => ({
        pass: s.pass.name,
        stop: s.result.stop,
        ms: s.result.ms.pe + s.result.ms.dae,
      })),
    });
  } catch (e) {
    post({ kind: 'error', message: messageOf(e) });
  }
}

self.addEventListener('message', (e) => {
  stage(e.data);
});
