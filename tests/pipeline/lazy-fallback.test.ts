/**
 * The unstaged fallback loaded on demand, as in a page: here fallback.ts is replaced by its
 * browser twin (what package.json's "browser" map does in a bundle), so the built-in passes are a
 * dynamic import that nothing has made yet. A stub whose values need the unstaged pipeline then
 * throws `FallbackNotLoaded` from `specialize` and `unstagedPipeline`, having warned nothing;
 * `specializeAsync` loads the passes and returns the unstaged pipeline's result, after which
 * `specialize` runs it synchronously. Under node's own fallback.ts the passes are always there.
 */
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import type { Fun } from '../../src/kernel/index.js';
import { loadKernelParser } from '../../src/kernel/index.js';
import { findPass } from '../../src/optimizers/index.js';
import { loadConfig, stageConfig } from '../../src/pipeline/index.js';
import { FallbackNotLoaded, makeStub, type StageManifest } from '../../src/runtime.js';
import { ROOT } from '../optimizers/helpers.js';

vi.mock('../../src/optimizers/fallback.js', () => import('../../src/optimizers/fallback.browser.js'));

/** The curve config's kernel under a manifest of another scf: a stale stub, whose pipeline is dae. */
async function staleStub() {
  await loadKernelParser();
  const config = loadConfig(path.join(ROOT, 'configs/kernel/02-curve.json'));
  const { fun } = await stageConfig(config);
  const manifest: StageManifest = {
    scf: '0.0.0-other',
    function: fun.name,
    bind: {},
    kernel: '',
    passes: [{ name: 'dae', builtin: true, entry: 'dae.optimize', takesFormals: false, files: [] }],
    modules: [],
  };
  const stub = makeStub({
    manifest,
    fun,
    staged: { ok: false, problem: 'not staged' },
    url: 'file:///nowhere/f.stub.mjs',
  });
  return { fun, stub };
}

describe('the unstaged fallback in a page (fallback.browser.ts)', () => {
  it('specialize throws FallbackNotLoaded until specializeAsync has loaded the passes', async () => {
    const { fun, stub } = await staleStub();
    const warnings: string[] = [];
    const warn = (w: string) => warnings.push(w);
    let thrown: unknown;
    try {
      stub.specialize({}, warn);
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(FallbackNotLoaded);
    expect((thrown as Error).message).toMatch(
      /staged from an older pipeline \(staged by scf 0\.0\.0-other.*await loadFallback\(\).*specializeAsync/,
    );
    expect(warnings).toEqual([]);
    expect(() => stub.unstagedPipeline(stub.formalsOf({}))).toThrow(FallbackNotLoaded);

    const want = (findPass('dae') as NonNullable<ReturnType<typeof findPass>>).run(fun as Fun, {
      formals: stub.formalsOf({}),
    });
    const r = await stub.specializeAsync({}, warn);
    expect(r.staged).toBe(false);
    expect(JSON.stringify(r.fun)).toBe(JSON.stringify(want));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/staged from an older pipeline/);
    // loaded now: the synchronous path runs it, warning no more
    expect(JSON.stringify(stub.specialize({}, warn).fun)).toBe(JSON.stringify(want));
    expect(warnings).toHaveLength(1);
    await expect(stub.loadFallback()).resolves.toBeUndefined();
  }, 60_000);

  it("node's fallback.ts has the passes loaded from the start", async () => {
    const node = await vi.importActual<typeof import('../../src/optimizers/fallback.js')>(
      '../../src/optimizers/fallback.js',
    );
    const find = node.fallbackPasses();
    expect(find?.('dae', 'dae.optimize')).toBe(findPass('dae'));
    expect(await node.loadFallback()).toBe(find);
  });
});
