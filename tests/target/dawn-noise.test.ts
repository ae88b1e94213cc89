/**
 * Dawn's environment (src/target/dawn-env.ts): which variables scf sets before loading dawn.node,
 * and a GPU command run as a user runs it — `bin/scf.js` in a child process whose environment has
 * no XDG_RUNTIME_DIR, no Vulkan variable and no LD_LIBRARY_PATH — printing nothing on stderr but
 * its own lines: no libwayland `XDG_RUNTIME_DIR is invalid`, no Dawn `Warning: Vulkan …` with its
 * native `at InitializeImpl (…)` line.
 *
 * Without an adapter in that environment the child runs on the JS back end; the test then is
 * skipped with the reason, or fails where SCF_REQUIRE_GPU or CI asks for a GPU (gpu-setup.ts).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  type DawnHost,
  dawnEnvironment,
  LAVAPIPE_MANIFESTS,
  SWIFTSHADER_ICD,
} from '../../src/target/dawn-env.js';
import { GPU_REQUIRED } from './gpu-setup.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** A Linux machine with (or without) Debian's SwiftShader; its private folder is /run/scf-test. */
const linux = (swiftshader = true): DawnHost => ({
  platform: 'linux',
  exists: (f) => swiftshader && f === SWIFTSHADER_ICD,
  privateDir: () => '/run/scf-test',
});

describe('dawnEnvironment: what is set before Dawn loads', () => {
  it('a bare environment: a private XDG_RUNTIME_DIR, SwiftShader added, lavapipe left out', () => {
    expect(dawnEnvironment({}, linux())).toEqual({
      XDG_RUNTIME_DIR: '/run/scf-test',
      VK_ADD_DRIVER_FILES: SWIFTSHADER_ICD,
      VK_LOADER_DRIVERS_DISABLE: LAVAPIPE_MANIFESTS,
    });
  });

  it("the user's usable settings are kept; an XDG_RUNTIME_DIR that is not absolute is replaced", () => {
    expect(
      dawnEnvironment({ XDG_RUNTIME_DIR: '/run/user/1000', VK_ICD_FILENAMES: '/x.json' }, linux()),
    ).toEqual({});
    expect(dawnEnvironment({ XDG_RUNTIME_DIR: 'relative', VK_DRIVER_FILES: '/x.json' }, linux())).toEqual({
      XDG_RUNTIME_DIR: '/run/scf-test',
    });
    expect(dawnEnvironment({ XDG_RUNTIME_DIR: '', VK_ADD_DRIVER_FILES: '/x.json' }, linux())).toEqual({
      XDG_RUNTIME_DIR: '/run/scf-test',
    });
    // a user who filters drivers keeps the filter, and lavapipe if the filter selects it
    expect(dawnEnvironment({ XDG_RUNTIME_DIR: '/r', VK_LOADER_DRIVERS_SELECT: '*lvp*' }, linux())).toEqual({
      VK_ADD_DRIVER_FILES: SWIFTSHADER_ICD,
    });
  });

  it('no SwiftShader: no Vulkan variable; not Linux: no XDG_RUNTIME_DIR', () => {
    expect(dawnEnvironment({ XDG_RUNTIME_DIR: '/r' }, linux(false))).toEqual({});
    expect(dawnEnvironment({}, { ...linux(false), platform: 'darwin' })).toEqual({});
  });
});

describe('a GPU command in a user’s environment', () => {
  const tmp = mkdtempSync(path.join(tmpdir(), 'scf-dawn-noise-'));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it('scf kernel --emit wgsl --run prints its result and nothing of Dawn’s on stderr', (ctx) => {
    // what a user's shell has: no XDG_RUNTIME_DIR (a container, ssh, cron), no Vulkan variables;
    // TMPDIR is the test's, so the private folder scf makes there can be seen to go away
    const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, TMPDIR: tmp };
    const r = spawnSync(
      process.execPath,
      [
        'bin/scf.js',
        'kernel',
        'benchmarks/inputs/kernel/curve.c',
        '--function',
        'curve',
        '--emit',
        'wgsl',
        '--run',
        '--args',
        '{"xs":[0,1,2],"cs":[1,2],"deg":1}',
      ],
      { cwd: ROOT, env, encoding: 'utf8', timeout: 120_000 },
    );
    expect(r.stderr).not.toMatch(/XDG_RUNTIME_DIR/);
    expect(r.stderr).not.toMatch(/at InitializeImpl|Warning: Vulkan/);
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { backend: string; result: number[] };
    expect(out.result).toEqual([1, 3, 5]);
    expect(readdirSync(tmp).filter((f) => f.startsWith('scf-xdg-'))).toEqual([]);
    if (out.backend !== 'webgpu') {
      const why = `no WebGPU adapter in a bare environment: ${r.stderr.trim()}`;
      if (GPU_REQUIRED) throw new Error(`${why} (SCF_REQUIRE_GPU or CI is set)`);
      process.stderr.write(`\n*** dawn-noise: skipped: ${why}\n\n`);
      ctx.skip(why);
    }
    expect(r.stderr).toBe('');
  }, 120_000);
});
