/**
 * The build record of a staged folder, `NAME.build.json`: what one stage read and wrote, so that a
 * later stage of the same config can tell, without staging again, that the folder already holds
 * what staging would write (it is "up to date"), and a build system can key the action by its
 * inputs (`scf stage --deps`).
 *
 * A record holds
 * - `scf` and `engine`: the version, and the SHA-256 of scf's own running code (`engineHash`:
 *   every module and the vendored parser under `src/` or `dist/`), so a folder staged by another
 *   build of scf is stale even at the same version;
 * - `options`: the command's settings that are not in a file (the call-chain bound `k`);
 * - `inputs`: every file the stage read through `readSourceFile` (the config, the kernel or the
 *   entry's modules, every pass's SCF-lang sources), with the SHA-256 of the text it read;
 * - `outputs`: every file of the function in the folder, with the SHA-256 of its bytes.
 *
 * Paths are relative to the folder, with `/`, so a folder moved with its sources keeps its record.
 *
 * Invariants
 * - Staging is a pure function of those inputs (fuel is counted in work, never in time), so a
 *   folder whose record matches them, and whose outputs match the record, is byte for byte what
 *   a new stage would write; anything that does not match — a missing or malformed record, an
 *   input changed or gone, an output edited, truncated or removed, another scf — is stale, with
 *   the reason (`checkBuildRecord`).
 * - The record is written after the folder is published (staged-folder.ts) and renamed into place:
 *   a stage interrupted before it leaves the old record, whose outputs no longer match, so the
 *   folder is staged again; never a record that vouches for files it did not see.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { MODULE_ROOT, readSourceFile, scfVersion } from '../common/index.js';

/** The suffix of a build record (`NAME.build.json`). */
export const BUILD_RECORD_SUFFIX = '.build.json';

/** One file of a record: its path relative to the folder, with `/`, and its SHA-256 (hex). */
export interface RecordedFile {
  readonly path: string;
  readonly sha256: string;
}

export interface BuildRecord {
  readonly scf: string;
  readonly engine: string;
  /** The config staged, relative to the folder (also the first of `inputs`). */
  readonly config: string;
  readonly options: Readonly<Record<string, string | number | boolean>>;
  readonly inputs: readonly RecordedFile[];
  readonly outputs: readonly RecordedFile[];
}

/** Whether a folder needs staging: `fresh`, or the first reason it does not match its record. */
export type Freshness =
  | { readonly fresh: true; readonly name: string; readonly record: BuildRecord }
  | { readonly fresh: false; readonly why: string };

/** The reason a folder with no build record (or no folder) gives (`checkBuildRecord`). */
export const NOT_STAGED = 'not staged yet';

const sha = (data: string | Buffer): string => createHash('sha256').update(data).digest('hex');

let engine: string | undefined;

/**
 * The SHA-256 of scf's running code: every `.ts`, `.js`, `.mjs` and `.wasm` file under the
 * modules' folder (`src/` or `dist/`; declarations and source maps aside), by sorted path. Computed
 * once per process.
 */
export function engineHash(): string {
  if (engine !== undefined) return engine;
  const h = createHash('sha256');
  const files = readdirSync(MODULE_ROOT, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && /\.(ts|js|mjs|wasm)$/.test(e.name) && !/\.d\.m?ts$/.test(e.name))
    .map((e) => path.relative(MODULE_ROOT, path.join(e.parentPath, e.name)).split(path.sep).join('/'))
    .sort();
  for (const f of files) {
    h.update(`${f}\0`);
    h.update(readFileSync(path.join(MODULE_ROOT, f)));
  }
  engine = h.digest('hex');
  return engine;
}

function relative(dir: string, file: string): string {
  return path.relative(dir, file).split(path.sep).join('/');
}

/** The files of the function `name` in `dir` (`NAME.*`), its build record aside, sorted. */
export function functionFiles(dir: string, name: string): string[] {
  return readdirSync(dir)
    .filter((f) => f.startsWith(`${name}.`) && f !== `${name}${BUILD_RECORD_SUFFIX}`)
    .filter((f) => statSync(path.join(dir, f)).isFile())
    .sort();
}

/**
 * The record of a stage of `config` into `dir` as the function `name`: `reads` is what the stage
 * read (`recordSourceReads`), of which files inside `dir` are outputs, not inputs.
 */
export function buildRecord(
  dir: string,
  name: string,
  config: string,
  reads: ReadonlyMap<string, string>,
  options: BuildRecord['options'],
): BuildRecord {
  const abs = path.resolve(dir);
  const configAbs = path.resolve(config);
  const inputs = [...reads]
    .filter(([f]) => path.dirname(f) !== abs)
    .map(([f, h]) => ({ path: relative(abs, f), sha256: h }));
  if (!reads.has(configAbs))
    inputs.unshift({ path: relative(abs, configAbs), sha256: sha(readSourceFile(configAbs)) });
  return {
    scf: scfVersion(),
    engine: engineHash(),
    config: relative(abs, configAbs),
    options,
    inputs,
    outputs: functionFiles(abs, name).map((f) => ({ path: f, sha256: sha(readFileSync(path.join(abs, f))) })),
  };
}

/** Writes `record` as `dir/NAME.build.json` (a temporary file renamed into place). */
export function writeBuildRecord(dir: string, name: string, record: BuildRecord): string {
  const file = path.join(dir, `${name}${BUILD_RECORD_SUFFIX}`);
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(tmp, `${JSON.stringify(record, null, 2)}\n`);
    renameSync(tmp, file);
  } finally {
    rmSync(tmp, { force: true });
  }
  return file;
}

/** A record's text as a `BuildRecord`, or undefined when it is not one. */
function parseRecord(text: string): BuildRecord | undefined {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return undefined;
  }
  const r = v as Partial<BuildRecord> | null;
  const files = (x: unknown): x is RecordedFile[] =>
    Array.isArray(x) &&
    x.every(
      (f: Partial<RecordedFile> | null) =>
        typeof f?.path === 'string' && typeof f.sha256 === 'string' && /^[0-9a-f]{64}$/.test(f.sha256),
    );
  if (
    typeof r !== 'object' ||
    r === null ||
    typeof r.scf !== 'string' ||
    typeof r.engine !== 'string' ||
    typeof r.config !== 'string' ||
    typeof r.options !== 'object' ||
    r.options === null ||
    !files(r.inputs) ||
    !files(r.outputs)
  )
    return undefined;
  return r as BuildRecord;
}

/** The single build record in `dir`, if there is exactly one. */
function findRecord(dir: string): { name: string; text: string } | string {
  let names: string[];
  try {
    names = readdirSync(dir).filter((f) => f.endsWith(BUILD_RECORD_SUFFIX));
  } catch {
    return NOT_STAGED;
  }
  if (names.length === 0) return NOT_STAGED;
  if (names.length > 1) return `${names.length} build records in one folder`;
  const file = names[0] as string;
  try {
    return {
      name: file.slice(0, -BUILD_RECORD_SUFFIX.length),
      text: readFileSync(path.join(dir, file), 'utf8'),
    };
  } catch {
    return `${file} cannot be read`;
  }
}

/**
 * Whether `dir` holds, as its record says, a stage of `config` with `options` by this scf whose
 * inputs and outputs are unchanged; else why not (the first difference found).
 */
export function checkBuildRecord(dir: string, config: string, options: BuildRecord['options']): Freshness {
  const found = findRecord(dir);
  if (typeof found === 'string') return { fresh: false, why: found };
  const record = parseRecord(found.text);
  const stale = (why: string): Freshness => ({ fresh: false, why });
  if (record === undefined)
    return stale(`${found.name}${BUILD_RECORD_SUFFIX} is not a build record of scf's`);
  const abs = path.resolve(dir);
  if (record.scf !== scfVersion()) return stale(`staged by scf ${record.scf}, this is ${scfVersion()}`);
  if (record.engine !== engineHash()) return stale('staged by another build of scf');
  if (path.resolve(abs, record.config) !== path.resolve(config)) return stale(`staged from ${record.config}`);
  const keys = new Set([...Object.keys(record.options), ...Object.keys(options)]);
  for (const k of [...keys].sort())
    if (record.options[k] !== options[k]) return stale(`--${k} was ${record.options[k] ?? 'unset'}`);
  for (const f of record.inputs) {
    let text: string;
    try {
      text = readSourceFile(path.resolve(abs, f.path));
    } catch {
      return stale(`${f.path} is gone`);
    }
    if (sha(text) !== f.sha256) return stale(`${f.path} changed`);
  }
  const present = functionFiles(abs, found.name);
  for (const f of record.outputs) {
    let bytes: Buffer;
    try {
      bytes = readFileSync(path.join(abs, f.path));
    } catch {
      return stale(`${f.path} is missing`);
    }
    if (sha(bytes) !== f.sha256) return stale(`${f.path} was edited`);
  }
  const recorded = new Set(record.outputs.map((f) => f.path));
  const extra = present.find((f) => !recorded.has(f));
  if (extra !== undefined) return stale(`${extra} is not one of the stage's files`);
  return { fresh: true, name: found.name, record };
}

/**
 * The make rule of a staged function (gcc `-MD`'s format): its stub `stub` depends on each of
 * `inputs` (absolute paths); spaces, `#`, `\\` and `$` escaped, paths relative to `base`.
 */
export function makeRule(stub: string, inputs: readonly string[], base: string): string {
  const esc = (p: string): string => p.replaceAll('$', '$$$$').replace(/([ #\\])/g, '\\$1');
  const rel = (p: string): string => esc(relative(base, p));
  return `${rel(stub)}: ${inputs.map(rel).join(' \\\n  ')}\n`;
}

/** The inputs of `record`, a record of `dir`, as absolute paths. */
export function recordInputs(dir: string, record: BuildRecord): string[] {
  return record.inputs.map((f) => path.resolve(dir, f.path));
}
