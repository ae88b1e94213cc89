/**
 * A config and its kernel read from files, under node: the file-system side of config.ts, which
 * reads text only. `NODE_FILES` resolves a config's paths against its folder (absolute, from the
 * working directory) and checks what is there; `loadConfig` reads a config file, `parseConfig`
 * parses one's text with node's files, `loadConfigInput` reads its kernel (through
 * `readSourceFile`, as every source is read) and parses it (`configKernel`). A page stages from
 * text instead (memory.ts, `MEMORY_FILES`); past reading, both run the same code.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { type ParseError, parse as parseJsonc } from 'jsonc-parser';
import type { Fun, Program } from '../kernel/index.js';
import { clip, readFailure, readSourceFile } from '../common/index.js';
import {
  type ConfigFiles,
  ConfigError,
  configError,
  configKernel,
  readConfig,
  type StageConfig,
} from './config.js';

/** The file system: paths resolved against the config's folder, from the working directory. */
export const NODE_FILES: ConfigFiles = {
  resolve: (file, rel) => path.resolve(path.dirname(path.resolve(file)), rel),
  kind: (file) => (!existsSync(file) ? undefined : statSync(file).isDirectory() ? 'directory' : 'file'),
};

/**
 * The configs of folder `dir`, sorted by name: its `*.json` files but those that are JSON objects
 * with none of a config's required keys (`input`, `function`, `pipeline`) — an app's
 * package.json, package-lock.json, tsconfig.json (read as JSON with comments and trailing commas,
 * as TypeScript writes it). A file that does not parse is kept, so that loading it reports where.
 */
export function configFilesIn(dir: string): string[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => path.join(dir, f))
    .filter((file) => {
      let v: unknown;
      try {
        const errors: ParseError[] = [];
        v = parseJsonc(readSourceFile(file), errors, { allowTrailingComma: true });
        if (errors.length > 0) return true;
      } catch {
        return true;
      }
      return !(
        typeof v === 'object' &&
        v !== null &&
        !Array.isArray(v) &&
        !['input', 'function', 'pipeline'].some((k) => Object.hasOwn(v, k))
      );
    });
}

/** Reads and parses the config file `file`. */
export function loadConfig(file: string): StageConfig {
  let text: string;
  try {
    text = readSourceFile(file);
  } catch (e) {
    throw new ConfigError(file, 1, 1, `cannot read the configuration: ${readFailure(e)}`, 'C1001');
  }
  return parseConfig(text, file);
}

/** Parses the text of a config file; `file` is used for messages and to resolve `input`. */
export function parseConfig(text: string, file: string): StageConfig {
  return readConfig(text, file, NODE_FILES);
}

/** The config's kernel program and function, read and parsed (kernel diagnostics become ConfigErrors). */
export async function loadConfigInput(config: StageConfig): Promise<{ program: Program; fun: Fun }> {
  let source: string;
  try {
    source = readSourceFile(config.input);
  } catch (e) {
    throw configError(config, 'input', `cannot read '${clip(config.input)}': ${readFailure(e)}`);
  }
  return configKernel(config, source);
}
