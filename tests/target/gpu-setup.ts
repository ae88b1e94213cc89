/**
 * Test helper: one WebGPU runtime per test file.
 *
 *   const gpu = await openTestGpu();          // at the top level of the test file
 *   describe.skipIf(gpu.skip)('… (GPU)', () => { it('…', async () => { const rt = gpu.runtime(); … }) });
 *
 * `openTestGpu` calls `GpuRuntime.open()` once, keeps the runtime referenced for the whole file
 * (dawn.node crashes when the instance behind a device is collected while in use; see
 * docs/notes/webgpu-swiftshader.md) and destroys it in `afterAll`.
 *
 * When there is no adapter:
 * - in CI (`SCF_REQUIRE_GPU` or `CI` set; .ci/run installs SwiftShader and sets SCF_REQUIRE_GPU=1)
 *   that is a failure: `skip` is false, so the GPU tests run, and each one fails at `runtime()` with
 *   the reason and what to install;
 * - elsewhere the GPU tests are skipped: `skip` is true, a warning on stderr says why and exactly
 *   what to install (the runtime's NoAdapter.install, i.e. SOFTWARE_DRIVER_HINT), and the describe
 *   blocks' titles carry it too (`gpu.title('…')`).
 */
import { afterAll } from 'vitest';
import { GpuRuntime, type NoAdapter } from '../../src/target/index.js';

/** Whether a missing adapter fails the tests instead of skipping them. */
export const GPU_REQUIRED = Boolean(process.env.SCF_REQUIRE_GPU || process.env.CI);

export interface TestGpu {
  /** True when the GPU tests should be skipped (no adapter, and not required). */
  readonly skip: boolean;
  /** Why there is no runtime and what to install; undefined when there is one. */
  readonly message: string | undefined;
  /** The runtime; throws the no-adapter message when there is none (in CI: the test fails). */
  runtime(): GpuRuntime;
  /** The adapter's name, or the no-adapter message. */
  readonly description: string;
  /** A describe title: `what`, plus why it is skipped when it is. */
  title(what: string): string;
}

/** The text a test shows when there is no adapter: the reason and exactly what to install. */
export function noAdapterMessage(na: NoAdapter): string {
  return `${na.reason}. To run the GPU tests, ${na.install}`;
}

/** Opens the file's runtime (call once, at the top level of a test file; see the file comment). */
export async function openTestGpu(): Promise<TestGpu> {
  let opened: GpuRuntime | NoAdapter;
  try {
    opened = await GpuRuntime.open();
  } catch (e) {
    // open() reports a missing adapter as a NoAdapter; anything thrown is a runtime bug. Keep the
    // non-GPU tests of the file running and fail every GPU test with it.
    const message = `GpuRuntime.open() threw: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`;
    return {
      skip: false,
      message,
      description: message,
      title: (what) => what,
      runtime: () => {
        throw new Error(message);
      },
    };
  }
  if (opened instanceof GpuRuntime) {
    const rt = opened;
    // keep it referenced until the file is done, then destroy the device
    afterAll(() => rt.destroy());
    return {
      skip: false,
      message: undefined,
      description: rt.adapterName,
      title: (what) => `${what} [${rt.adapterName}]`,
      runtime: () => rt,
    };
  }
  const message = noAdapterMessage(opened);
  if (GPU_REQUIRED) {
    const loud = `${message}\n(SCF_REQUIRE_GPU or CI is set, so a missing adapter is a failure, not a skip)`;
    process.stderr.write(`\n*** ${loud}\n\n`);
    return {
      skip: false,
      message: loud,
      description: loud,
      title: (what) => what,
      runtime: () => {
        throw new Error(loud);
      },
    };
  }
  process.stderr.write(`\n*** GPU tests skipped: ${message}\n\n`);
  return {
    skip: true,
    message,
    description: message,
    title: (what) => `${what} [skipped: ${message}]`,
    runtime: () => {
      throw new Error(message);
    },
  };
}
