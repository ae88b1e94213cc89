/**
 * Dawn's environment: the variables set in the process before the `webgpu` package (dawn.node) is
 * loaded, so that opening an adapter finds a driver and prints nothing of its own on a machine
 * without a GPU. Dawn, the Vulkan loader and its layers read them with getenv from native code,
 * and Node's `process.env` writes through to the process's environment, so setting them here
 * before the first import of 'webgpu' is all it takes; nothing is filtered from stderr.
 *
 * Algorithm. `dawnEnvironment(env, host)` decides, from the environment as the user left it, what
 * to add; it never changes a variable the user set (except an XDG_RUNTIME_DIR that is not an
 * absolute path, which no program can use):
 *   - XDG_RUNTIME_DIR (Linux), when unset or not absolute: a private empty folder of scf's own.
 *     Mesa's Vulkan device-selection layer asks libwayland for a display while Dawn enumerates
 *     adapters, and libwayland prints `error: XDG_RUNTIME_DIR is invalid or not set in the
 *     environment.` (twice, as Dawn looks for adapters) when the variable is unusable; with an
 *     absolute path it looks for a socket there, finds none, and stays silent. The folder is made
 *     by mkdtemp (mode 0700, so no one else can put a socket in it) and removed when the process
 *     exits.
 *   - When no Vulkan driver variable is set (VK_ICD_FILENAMES, VK_DRIVER_FILES, VK_ADD_DRIVER_FILES)
 *     and Debian's chromium package has put SwiftShader's manifest at SWIFTSHADER_ICD:
 *     VK_ADD_DRIVER_FILES adds SwiftShader to the drivers the loader finds itself (a hardware GPU's
 *     driver stays), and, unless the user filters drivers (VK_LOADER_DRIVERS_SELECT or _DISABLE),
 *     VK_LOADER_DRIVERS_DISABLE leaves out lavapipe (`lvp_icd.*.json`), Mesa's software driver:
 *     SwiftShader is then the one software adapter. Dawn refuses the lavapipe of older Mesa
 *     releases (Debian 12's 22.3: `Warning: Vulkan shaderUniform*ArrayDynamicIndexing required`,
 *     with a native stack line `at InitializeImpl (…)`); the loader's driver filters exist from
 *     Vulkan loader 1.3.234 on and an older loader ignores the variable.
 *
 * Invariants. A variable the user set to a usable value is never changed; each is set at most once
 * per process (`prepareDawnEnvironment` is idempotent); the private folder exists until exit.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** Where Debian's chromium package puts SwiftShader's Vulkan driver manifest. */
export const SWIFTSHADER_ICD = '/usr/lib/chromium/vk_swiftshader_icd.json';

/** The Vulkan loader's glob for Mesa's lavapipe manifests (`lvp_icd.x86_64.json`, …). */
export const LAVAPIPE_MANIFESTS = '*lvp_icd*';

/** What `dawnEnvironment` asks of the machine (a test passes its own). */
export interface DawnHost {
  /** `process.platform`. */
  readonly platform: string;
  exists(file: string): boolean;
  /** Makes a private empty folder and returns its absolute path. */
  privateDir(): string;
}

/** The variables to add to `env` before Dawn is loaded (see the header); empty when none. */
export function dawnEnvironment(
  env: Readonly<Record<string, string | undefined>>,
  host: DawnHost,
): Record<string, string> {
  const set: Record<string, string> = {};
  if (host.platform === 'linux' && !env.XDG_RUNTIME_DIR?.startsWith('/'))
    set.XDG_RUNTIME_DIR = host.privateDir();
  const drivers = ['VK_ICD_FILENAMES', 'VK_DRIVER_FILES', 'VK_ADD_DRIVER_FILES'];
  if (drivers.every((k) => env[k] === undefined) && host.exists(SWIFTSHADER_ICD)) {
    set.VK_ADD_DRIVER_FILES = SWIFTSHADER_ICD;
    if (env.VK_LOADER_DRIVERS_SELECT === undefined && env.VK_LOADER_DRIVERS_DISABLE === undefined)
      set.VK_LOADER_DRIVERS_DISABLE = LAVAPIPE_MANIFESTS;
  }
  return set;
}

let prepared: Readonly<Record<string, string>> | undefined;

/**
 * Sets Dawn's environment in this process (once; later calls return the first call's variables).
 * Returns the variables it set.
 */
export function prepareDawnEnvironment(): Readonly<Record<string, string>> {
  prepared ??= (() => {
    let made: string | undefined;
    const set = dawnEnvironment(process.env, {
      platform: process.platform,
      exists: existsSync,
      privateDir: () => {
        made = path.resolve(mkdtempSync(path.join(tmpdir(), 'scf-xdg-')));
        return made;
      },
    });
    if (made !== undefined) {
      const dir = made;
      process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    }
    Object.assign(process.env, set);
    return set;
  })();
  return prepared;
}
