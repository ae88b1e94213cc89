/**
 * scf as a user gets it, for the tests of tests/package: `npm pack` as a user's build would run
 * it, but in a copy of the checkout — the files git would publish from it (tracked, and untracked
 * ones it does not ignore) copied to a temporary folder beside the checkout's node_modules, and
 * packed there (the package's `prepare` rebuilds dist/, and in the checkout itself it would remove
 * and rewrite the dist/ that other test files read at the same time: the playground bundles from
 * it) — then installed in an app outside the repository, in a user's environment.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '../..');
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** Packs a copy of the checkout into `dest`; returns the tarball's path. */
export function packCopy(dest: string, env: NodeJS.ProcessEnv): string {
  const copy = mkdtempSync(path.join(tmpdir(), 'scf-pack-src-'));
  try {
    const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
      cwd: ROOT,
      encoding: 'utf8',
    })
      .split('\0')
      .filter((f) => f !== '' && f !== 'node_modules');
    for (const f of files) {
      mkdirSync(path.dirname(path.join(copy, f)), { recursive: true });
      cpSync(path.join(ROOT, f), path.join(copy, f), { force: true, verbatimSymlinks: true });
    }
    symlinkSync(path.join(ROOT, 'node_modules'), path.join(copy, 'node_modules'), 'dir');
    mkdirSync(dest, { recursive: true });
    execFileSync(NPM, ['pack', '--pack-destination', dest], { cwd: copy, env, stdio: 'pipe' });
    return path.join(dest, readdirSync(dest).find((f) => f.endsWith('.tgz')) as string);
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
}

/** The environment of a user's shell: none of the test runner's or tsx's loaders. */
export function userEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const k of Object.keys(env)) if (k.startsWith('VITEST') || k === 'NODE_OPTIONS') delete env[k];
  return env;
}

/** Makes `app` an ES-module app with the packed scf installed (the tarball under `app/packs`). */
export function installPacked(app: string): void {
  const tgz = packCopy(path.join(app, 'packs'), userEnv());
  writeFileSync(
    path.join(app, 'package.json'),
    JSON.stringify({ name: 'app', private: true, type: 'module' }),
  );
  execFileSync(NPM, ['install', '--no-audit', '--no-fund', '--prefer-offline', tgz], {
    cwd: app,
    env: userEnv(),
    stdio: 'pipe',
  });
}
