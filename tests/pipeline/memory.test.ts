/**
 * Staging in memory (pipeline/memory.ts, the `scf/stage` entry): a config's text and its kernel's
 * text give, byte for byte, the files `writeStaged` writes after `stageConfig` reads the same
 * config from disk — for the playground's demo configs — with the hashes of sha256.ts equal to
 * node's; paths are names resolved against the config's name; bad input is a positioned
 * `ConfigError` (the kernel's syntax, a description, a user's pass, which is compiled from files).
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  ConfigError,
  loadConfig,
  MEMORY_FILES,
  sha256Hex,
  stageConfig,
  stageInMemory,
  writeStaged,
} from '../../src/pipeline/index.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const OUT = mkdtempSync(path.join(tmpdir(), 'scf-memory-'));
afterAll(() => rmSync(OUT, { recursive: true, force: true }));

/** The config's text and its kernel's, as a page has them. */
function memoryInput(file: string): { config: string; configFile: string; kernel: string } {
  const config = loadConfig(path.join(ROOT, file));
  return {
    config: readFileSync(path.join(ROOT, file), 'utf8'),
    configFile: file,
    kernel: readFileSync(config.input, 'utf8'),
  };
}

const CONV = 'configs/kernel/01-conv.json';

describe('staging in memory', () => {
  it('sha256Hex is SHA-256 of the UTF-8 text', async () => {
    for (const t of ['', 'abc', 'a'.repeat(55), 'a'.repeat(56), 'a'.repeat(64), 'é€😀\u2028'.repeat(300)])
      expect(await sha256Hex(t)).toBe(createHash('sha256').update(t).digest('hex'));
  });

  it('resolves the paths a config names against its name, and checks none', () => {
    expect(MEMORY_FILES.resolve('configs/kernel/01-conv.json', '../../benchmarks/inputs/kernel/conv.c')).toBe(
      'benchmarks/inputs/kernel/conv.c',
    );
    expect(MEMORY_FILES.resolve('conv.json', './k/../conv.c')).toBe('conv.c');
    expect(MEMORY_FILES.resolve('a.json', '../x.c')).toBe('../x.c');
    expect(MEMORY_FILES.kind('nowhere.c')).toBe('file');
  });

  it.each([CONV, 'configs/kernel/03-ops.json'])(
    '%s: the files writeStaged writes after stageConfig, byte for byte',
    async (file) => {
      const lines: string[] = [];
      const mem = await stageInMemory(memoryInput(file), { onStage: (l) => lines.push(l) });
      const config = loadConfig(path.join(ROOT, file));
      const staged = await stageConfig(config);
      const dir = path.join(OUT, path.basename(file, '.json'));
      writeStaged(staged.stages, { outDir: dir, fun: staged.fun, bind: config.bind, origin: file });
      expect(mem.text.files.map((f) => f.name)).toContain(mem.text.stub);
      for (const f of mem.text.files)
        expect(f.text, f.name).toBe(readFileSync(path.join(dir, f.name), 'utf8'));
      expect(lines[0]).toMatch(/^parsing the kernel benchmarks\/inputs\/kernel\/\w+\.c …$/);
      expect(lines.filter((l) => / staging /.test(l))).toHaveLength(config.pipeline.length);
      expect(lines.at(-1)).toBe('emitting the staged modules …');
    },
    120_000,
  );

  it('bad input: a positioned ConfigError in the kernel or the config', async () => {
    const input = memoryInput(CONV);
    const fails = async (edit: Partial<typeof input>): Promise<ConfigError> => {
      const e = await stageInMemory({ ...input, ...edit }).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(ConfigError);
      return e as ConfigError;
    };
    const syntax = await fails({ kernel: input.kernel.replace('{', '{ int ;;; @ ') });
    expect(syntax.message).toMatch(/^benchmarks\/inputs\/kernel\/conv\.c:\d+:\d+: error K\d{4}: /);
    const desc = await fails({ config: input.config.replace(`"c4": "'Float"`, `"c4": "'Flaot"`) });
    expect(desc.message).toMatch(/^configs\/kernel\/01-conv\.json:\d+:\d+: error D\d{4}: bad description/);
    const user = await fails({ config: input.config.replace('"dae"', '"./mine.ts"') });
    expect(user.message).toMatch(/^configs\/kernel\/01-conv\.json:6:\d+: error C1007: a user's optimizer/);
    const fn = await fails({ config: input.config.replace('"conv3x3"', '"conv"') });
    expect(fn.message).toMatch(/error C1006: 'conv\.c' has no function 'conv'/);
  });
});
