/**
 * Entry configs: staging any exported SCF-lang function over the writer's own data types.
 *
 *   { "entry": "./interp.ts#run", "bind": { "program": [{ "kind": "push", "value": 1 }, …] },
 *     "sample": {}, "args": { "input": 7 } }
 *
 * - `entry` names a module (relative to the config) and the function it exports;
 * - `bind` describes the entry's parameters known early, by name (entry-describe.ts: literals,
 *   holes such as `'Int` or `'Instr`, `{"$oneOf": […]}`, literals with holes inside); the others
 *   are unknown early;
 * - `sample` gives run-time values of bound parameters whose description has holes, `args` those
 *   of the unbound ones (for `scf bench`, `scf test` and the tests); a bound parameter described
 *   by one literal takes that literal;
 * - `id`, `description` and `pe` are as in kernel configs (config.ts).
 *
 * Algorithm. The config's JSON is read by config.ts's reader (positions, nesting limit, duplicate
 * keys), the entry compiled by the SCF-lang front end (`compileFile`, which also gives the typed
 * signature and the constructors' field types), each description and value read at its
 * parameter's type. Invariants: every user error is a `ConfigError` at FILE:LINE:COL (the front
 * end's diagnostics, with their own positions, in its message); nothing else escapes but internal
 * errors. A sample value lies inside its parameter's description (`conforms`), or the config is
 * refused at the sample.
 */
import path from 'node:path';
import { type Node, type ParseError, parse as parseJson } from 'jsonc-parser';
import { type AbsValue, type CtorTable, conforms, singleton } from '../abstract-values/index.js';
import { clip, lineCol, readFailure, readSourceFile } from '../common/index.js';
import {
  type CompileResult,
  type CoreProgram,
  type CtorInfo,
  compileFile,
  type EntrySignature,
  formatDiagnostic,
  type Type,
} from '../scf-lang/index.js';
import { ConfigError, ConfigReader } from './config.js';
import { NODE_FILES } from './config-files.js';
import { EntryValueError, EntryValues } from './entry-describe.js';
import { type EntryLanguage, entryLanguage } from './languages.js';

/** The keys an entry config may have (docs/own-ir.md documents each). */
export const ENTRY_CONFIG_KEYS = ['id', 'description', 'entry', 'bind', 'sample', 'args', 'pe'] as const;

/** Export names the stub uses itself, which an entry may not have. */
const STUB_NAMES = new Set(['MANIFEST', 'SCF']);

export interface EntryConfig {
  readonly file: string;
  readonly text: string;
  readonly id?: number;
  readonly description?: string;
  /** `entry` as written, the module's absolute path and the export. */
  readonly entry: string;
  readonly module: string;
  readonly export: string;
  readonly bind: ReadonlyMap<string, Node>;
  readonly sample: ReadonlyMap<string, Node>;
  readonly args: ReadonlyMap<string, Node>;
  readonly pe?: Readonly<{ growCap?: number; specFuel?: number; unfoldDepth?: number }>;
  readonly positions: ReadonlyMap<string, { readonly line: number; readonly col: number }>;
}

/** An entry config with its entry compiled and its descriptions and values read. */
export interface LoadedEntry {
  readonly config: EntryConfig;
  readonly program: CoreProgram;
  readonly signature: EntrySignature;
  /** Each parameter's early description (`top` when unbound). */
  readonly inputs: readonly AbsValue[];
  /** Any value of each parameter's declared type (`anyOfType`), in order: what the stub checks. */
  readonly types: readonly AbsValue[];
  /** The descriptions' text, by bound parameter (their JSON). */
  readonly bindText: Readonly<Record<string, string>>;
  /** A run-time value per parameter, when the config gives every one (sample, args, literals). */
  readonly runArgs?: readonly unknown[];
  /** The entry's source files, its module first (absolute). */
  readonly sources: readonly string[];
  /** Reads values of the entry's types (for `scf test` and the tests). */
  readonly values: EntryValues;
  /** The entry's object language (languages.ts): its descriptions, refusals and printer. */
  readonly language: EntryLanguage;
  /** The constructors with their field types (what "any value of a type" is made from). */
  readonly ctorTypes: ReadonlyMap<string, CtorInfo>;
}

/**
 * Whether a config's text is an entry config: a JSON object with the key `entry` (text that does
 * not parse is not: the kernel config reader says where it fails).
 */
export function isEntryConfigText(text: string): boolean {
  const errors: ParseError[] = [];
  const v: unknown = parseJson(text.replace(/^\uFEFF/, ''), errors);
  return (
    errors.length === 0 &&
    typeof v === 'object' &&
    v !== null &&
    !Array.isArray(v) &&
    Object.hasOwn(v, 'entry')
  );
}

/** Reads an entry config's text (`file` for messages and to resolve `entry`). */
export function readEntryConfig(text: string, file: string): EntryConfig {
  const r = new ConfigReader(text, file, NODE_FILES);
  const root = r.root();
  const byKey = new Map<string, Node>();
  for (const [key, k, v] of r.props(root)) {
    if (!(ENTRY_CONFIG_KEYS as readonly string[]).includes(key))
      r.fail(
        k,
        'C1003',
        `unknown key '${clip(key)}' in an entry config (expected ${ENTRY_CONFIG_KEYS.map((x) => `'${x}'`).join(', ')})`,
      );
    byKey.set(key, v);
    r.at(key, v);
  }
  const entryNode = byKey.get('entry') as Node;
  if (entryNode.type !== 'string')
    r.fail(entryNode, 'C1013', '\'entry\' must be a string: "./file.ts#exportName"');
  const entry = entryNode.value as string;
  const m = /^(.+)#([A-Za-z_$][\w$]*)$/.exec(entry);
  if (!m) r.fail(entryNode, 'C1013', `'entry' must be "./file.ts#exportName", not '${clip(entry)}'`);
  const [, rel, exportName] = m as unknown as [string, string, string];
  if (STUB_NAMES.has(exportName))
    r.fail(
      entryNode,
      'C1013',
      `an entry may not be named '${exportName}': the stub exports that name itself`,
    );
  const module = NODE_FILES.resolve(file, rel);
  const kind = NODE_FILES.kind(module);
  if (kind !== 'file')
    r.fail(
      entryNode,
      'C1013',
      kind === undefined ? `no file '${clip(rel)}'` : `'${clip(rel)}' is a folder, not a module`,
    );
  const objectOf = (key: string, code: 'C1008' | 'C1009' | 'C1011'): Map<string, Node> => {
    const node = byKey.get(key);
    const out = new Map<string, Node>();
    if (node === undefined) return out;
    if (node.type !== 'object') r.fail(node, code, `'${key}' must be an object keyed by parameter name`);
    for (const [name, k, v] of r.props(node)) {
      out.set(name, v);
      r.at(`${key}.${name}`, v);
      r.at(`${key}.${name}:key`, k);
    }
    return out;
  };
  const id = r.id(byKey.get('id'));
  const description = r.str(byKey, 'description');
  const peNode = byKey.get('pe');
  const pe = peNode === undefined ? undefined : r.pe(peNode);
  return {
    file,
    text,
    ...(id !== undefined ? { id } : {}),
    ...(description !== undefined ? { description } : {}),
    ...(pe !== undefined ? { pe } : {}),
    entry,
    module,
    export: exportName,
    bind: objectOf('bind', 'C1008'),
    sample: objectOf('sample', 'C1009'),
    args: objectOf('args', 'C1011'),
    positions: r.positions,
  };
}

/** Reads and parses the entry config `file`. */
export function loadEntryConfig(file: string): EntryConfig {
  let text: string;
  try {
    text = readSourceFile(file);
  } catch (e) {
    throw new ConfigError(file, 1, 1, `cannot read the configuration: ${readFailure(e)}`, 'C1001');
  }
  return readEntryConfig(text, file);
}

/** A `ConfigError` at path `where` of the config (or at an offset of its text). */
function errorAt(
  config: EntryConfig,
  where: string | number,
  reason: string,
  code: ConstructorParameters<typeof ConfigError>[4],
): ConfigError {
  const at =
    typeof where === 'number'
      ? lineCol(config.text, where)
      : (config.positions.get(where) ?? config.positions.get('') ?? { line: 1, col: 1 });
  return new ConfigError(config.file, at.line, at.col, reason, code);
}

/**
 * A bound parameter's run-time value is its `sample`, an unbound one's its `args` entry: the
 * other key is a `ConfigError` there.
 */
function checkRunValues(config: EntryConfig, params: EntrySignature['params']): void {
  for (const p of params) {
    if (config.bind.has(p.name) && config.args.has(p.name))
      throw errorAt(
        config,
        `args.${p.name}`,
        `'${p.name}' is in 'bind': its run-time value is the 'sample' one`,
        'C1011',
      );
    if (!config.bind.has(p.name) && config.sample.has(p.name))
      throw errorAt(
        config,
        `sample.${p.name}`,
        `'${p.name}' is not in 'bind': its run-time value goes in 'args'`,
        'C1009',
      );
  }
}

/** Compiles the entry and reads the config's descriptions and values at its parameters' types. */
export function loadEntry(config: EntryConfig): LoadedEntry {
  const cwd = process.cwd();
  let r: CompileResult;
  try {
    readSourceFile(config.module);
    r = compileFile(config.module, { cwd });
  } catch (e) {
    if (e instanceof Error && 'code' in e)
      throw errorAt(config, 'entry', `cannot read the entry: ${readFailure(e)}`, 'C1013');
    throw e;
  }
  if (!r.program)
    throw errorAt(
      config,
      'entry',
      `the entry's module is not valid SCF-lang:\n${r.diagnostics.map((d) => formatDiagnostic(d, r.sources)).join('\n')}`,
      'C1013',
    );
  const signature = r.signatures.get(config.export);
  if (signature === undefined) {
    const exported = [...r.signatures.keys()].map((n) => `'${n}'`).join(', ');
    throw errorAt(
      config,
      'entry',
      `'${path.relative(cwd, config.module) || config.module}' exports no function '${clip(config.export)}'${exported ? ` (it exports ${exported})` : ''}`,
      'C1013',
    );
  }
  const params = signature.params;
  const names = new Set(params.map((p) => p.name));
  const paramList = params.map((p) => `'${p.name}'`).join(', ') || 'none';
  for (const key of ['bind', 'sample', 'args'] as const)
    for (const name of config[key].keys())
      if (!names.has(name))
        throw errorAt(
          config,
          `${key}.${name}:key`,
          `'${clip(name)}' is not a parameter of '${config.export}' (its parameters: ${paramList})`,
          key === 'bind' ? 'D1003' : key === 'sample' ? 'C1009' : 'C1011',
        );
  const values = new EntryValues(
    { ctors: r.ctorTypes },
    params.map((p) => p.type),
  );
  const read = <T>(f: () => T, code: 'C1009' | 'C1011' | undefined): T => {
    try {
      return f();
    } catch (e) {
      if (e instanceof EntryValueError) throw errorAt(config, e.offset, e.reason, code ?? e.code);
      throw e;
    }
  };
  const ctors: CtorTable = r.program.ctors;
  checkRunValues(config, params);
  // the descriptions, through the entry's object language (languages.ts)
  const language = entryLanguage(
    values,
    params.map((p) => p.type),
  );
  const subject = { entry: config.entry, params: params.map((p) => p.name) };
  const inputs = read(
    () => language.describe(subject, config.bind, { subject: ctors, formals: ctors }),
    undefined,
  );
  const bindText: Record<string, string> = Object.create(null);
  const run: unknown[] = [];
  let complete = true;
  params.forEach((p, i) => {
    const b = config.bind.get(p.name);
    const sample = config.sample.get(p.name);
    const arg = config.args.get(p.name);
    if (b === undefined) {
      if (arg === undefined) complete = false;
      else run.push(read(() => values.value(arg, p.type), 'C1011'));
      return;
    }
    const desc = inputs[i] as AbsValue;
    bindText[p.name] = config.text.slice(b.offset, b.offset + b.length);
    if (sample !== undefined) {
      const v = read(() => values.value(sample, p.type), 'C1009');
      if (!conforms(v, desc, ctors))
        throw errorAt(
          config,
          `sample.${p.name}`,
          `the sample of '${p.name}' is outside its description in 'bind'`,
          'C1009',
        );
      run.push(v);
    } else {
      const only = singleton(desc, ctors);
      if (only === undefined) complete = false;
      else run.push(only.value);
    }
  });
  const sources = [...r.sources.keys()].map((f) => path.resolve(cwd, f));
  const own = sources.filter((f) => f === config.module);
  return {
    config,
    program: r.program,
    signature,
    inputs,
    types: params.map((p) => values.anyOf(p.type)),
    bindText,
    ...(complete ? { runArgs: run } : {}),
    sources: [...own, ...sources.filter((f) => f !== config.module).sort()],
    values,
    language,
    ctorTypes: r.ctorTypes,
  };
}

/** The parameter types of a loaded entry, by name. */
export function paramTypes(e: LoadedEntry): ReadonlyMap<string, Type> {
  return new Map(e.signature.params.map((p) => [p.name, p.type]));
}
