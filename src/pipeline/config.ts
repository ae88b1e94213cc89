/**
 * Stager configuration files: what the compiler user knows early (SCF §2.2.1, Fig. 4; one file
 * per configuration of Table 2 under configs/table2/).
 *
 *   { "id": 1, "description": "…", "input": "../../benchmarks/inputs/mul_add.c",
 *     "function": "mul_add", "pipeline": ["const-prop", "copy-prop", "dae"],
 *     "bind": { "a": "'Int" }, "sample": { "a": 1 } }
 *
 * - `input` is relative to the config file; `function` names a function of it;
 * - `pipeline` lists passes in order, at least one: names of built-in passes (`KNOWN_PASSES`) or
 *   paths of a user's SCF-lang optimizers, relative to the config file (`./passes/mine.ts`);
 * - `bind` maps staged formals to descriptions: a string in the description syntax (`'Int`,
 *   `0|1`, `[0,1,7]`, `'Array[9]`, see abstract-values/describe.ts), or a JSON number, boolean
 *   or array as a literal (array elements may again be description strings). Formals not in
 *   `bind` are not constants (`nonConst`);
 * - `sample` (optional) gives stage-2 values of exactly the bound formals, used by benchmarks,
 *   the demo and tests; `id` (a positive integer) and `description` are optional;
 * - `pe` (optional) sets partial-evaluator limits: `{ "growCap": 1024, "specFuel": 8 }`, and
 *   `"unfoldDepth": 0` turns unfolding of calls on static paths off (SCF's specialization alone).
 *
 * Algorithm: jsonc-parser's `parseTree` (strict JSON: no comments, no trailing commas) gives a
 * tree with offsets; one walk checks keys and types and builds the `StageConfig`, remembering
 * the position of every value by path (`positions`). Invariants: every user error is a
 * `ConfigError` carrying FILE, 1-based LINE and COL of the offending JSON value (for a
 * description syntax error, of the character inside the string) and printed as
 * `FILE:LINE:COL: error: message`; nothing else escapes except internal errors. Checks that need
 * the kernel function (descriptions fit the formals, samples lie inside their descriptions) are
 * in `configPipelineInput`, which maps their errors to the `bind`/`sample` positions.
 *
 * Nothing here touches a file: the paths a config names are resolved and checked by a
 * `ConfigFiles` (config-files.ts's `NODE_FILES`, or `MEMORY_FILES`, which resolves them as names
 * and checks nothing), and the kernel's text comes from the caller (`configKernel`), so a page
 * or a worker stages from text (memory.ts) with the same code.
 */
import { type Node, type ParseError, parseTree, printParseErrorCode } from 'jsonc-parser';
import { clip, lineCol } from '../common/index.js';
import {
  type AbsValue,
  type CtorTable,
  conforms,
  type DescriptionCode,
  DescriptionError,
  LIST_ARRAYS,
  type Prim,
  constant,
  fromConcrete,
  parseDescription,
} from '../abstract-values/index.js';
import {
  emptyRecord,
  type Fun,
  withFns,
  type KernelCode,
  type KernelDiagnostic,
  listToArray,
  type Program,
  parseKernel,
  MAX_TREE_DEPTH,
  treeDepthDiagnostic,
} from '../kernel/index.js';
import {
  allPasses,
  BindError,
  isPassPath,
  type BindValue,
  formalsFromBindings,
  type LatticeVal,
  type MathMode,
} from '../optimizers/index.js';
import {
  abstractPipelineInput,
  type Description,
  describeFormalList,
  describeFormals,
  FormalDescriptionError,
} from './describe-input.js';

/** The pass names a pipeline may use: those registered in src/optimizers/index.ts. */
export const KNOWN_PASSES: readonly string[] = allPasses.map((p) => p.name);

/** A 1-based position in a config file. */
export interface Position {
  readonly line: number;
  readonly col: number;
}

export interface StageConfig {
  /** The config file, as given to `loadConfig` / `parseConfig`. */
  readonly file: string;
  readonly id?: number;
  readonly description?: string;
  /** Absolute path of the kernel C file. */
  readonly input: string;
  readonly function: string;
  readonly pipeline: readonly string[];
  /** Staged formals and what is known of them early. */
  readonly bind: Readonly<Record<string, Description>>;
  /** Stage-2 values of the staged formals. */
  readonly sample?: Readonly<Record<string, BindValue>>;
  /**
   * Partial-evaluator limits for this config (src/partial-eval PeOptions), e.g. a `growCap` above
   * the default 256 nodes for a kernel whose abstract program is large (a 13-operand map).
   */
  readonly pe?: Readonly<{ growCap?: number; specFuel?: number; unfoldDepth?: number }>;
  /**
   * The kernel's run-time arguments other than the staged formals (`scf bench --kernel`): literal
   * values, or random arrays (`ArgSpec`).
   */
  readonly args?: Readonly<Record<string, ArgSpec>>;
  /**
   * 'finite': constant propagation folds float identities IEEE forbids in general (`x * 0` => 0,
   * `x + 0` => x; `withMath`); absent or 'exact': it folds exactly.
   */
  readonly math?: MathMode;
  /**
   * How the pipeline is staged (pipeline.ts): 'whole', one program, the composition of its passes;
   * 'per-pass', one module per pass; absent or 'auto', whole where its staging converges within
   * `WHOLE_TRIAL_BUDGET` visits, else per pass (`chooseStaging`).
   */
  readonly staging?: StagingMode;
  /**
   * Where each value is written, by path: `input`, `function`, `pipeline[1]`, `bind`, `bind.a`
   * (the value), `bind.a:key` (the key), `sample`, `sample.a`, …; `''` is the whole object.
   */
  readonly positions: ReadonlyMap<string, Position>;
}

/**
 * The configuration language's diagnostic codes, sorted: one per part of the file a problem is
 * in, so a message names the part and the code groups it. (A kernel's own diagnostics keep
 * their `Knnnn` codes, and a description in `bind` its `Dnnnn` code: syntax, value, or its fit
 * to the formal; C1008 is for `bind` itself.)
 */
export const CONFIG_CODES = {
  /** The file cannot be read. */
  C1001: 'unreadable',
  /** Not a JSON object: syntax, nesting, an empty file. */
  C1002: 'syntax',
  /** A key duplicated, unknown or missing. */
  C1003: 'keys',
  /** 'id' or 'description'. */
  C1004: 'id',
  /** 'input': the kernel file. */
  C1005: 'input',
  /** 'function': its name, or its absence from the kernel file. */
  C1006: 'function',
  /** 'pipeline': its pass names and the optimizers they load. */
  C1007: 'pipeline',
  /** 'bind': the early descriptions and how they fit the formals. */
  C1008: 'bind',
  /** 'sample': the stage-2 values. */
  C1009: 'sample',
  /** 'pe': the partial evaluator's limits. */
  C1010: 'pe',
  /** 'args': the kernel's run-time arguments for `scf bench --kernel`. */
  C1011: 'args',
  /** 'math': how float arithmetic may be folded. */
  C1012: 'math',
  /** 'entry': an entry config's SCF-lang function (entry-config.ts). */
  C1013: 'entry',
  /** 'staging': whole-pipeline or per-pass staging. */
  C1014: 'staging',
} as const;

export type ConfigCode = keyof typeof CONFIG_CODES;

/**
 * A user error in a configuration, at a position of its file: `FILE:LINE:COL: error CODE: REASON`.
 * The code is a `CONFIG_CODES` one, the kernel's `Knnnn` when the kernel file is at fault, or the
 * description language's `Dnnnn` when a description in `bind` is.
 */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(
    readonly file: string,
    readonly line: number,
    readonly col: number,
    /** The message without the position. */
    readonly reason: string,
    readonly code: ConfigCode | KernelCode | DescriptionCode,
  ) {
    super(`${file}:${line}:${col}: error ${code}: ${reason}`);
  }
}

/** The code of a problem with the value at `where` (a `positions` path, or a top-level key). */
function codeAt(where: string): ConfigCode {
  const key = /^[a-z]*/.exec(where)?.[0] ?? '';
  if (key === 'description') return 'C1004';
  const found = Object.entries(CONFIG_CODES).find(([, part]) => part === key);
  return (found?.[0] as ConfigCode | undefined) ?? 'C1002';
}

/** A `ConfigError` at the value at `where` (a `positions` path; the whole object if unknown). */
export function configError(
  config: StageConfig,
  where: string,
  reason: string,
  /** The code when not the part's (a description's `Dnnnn`). */
  code: ConfigCode | DescriptionCode = codeAt(where),
): ConfigError {
  const at = config.positions.get(where) ?? config.positions.get('') ?? { line: 1, col: 1 };
  return new ConfigError(config.file, at.line, at.col, reason, code);
}

/** How a config's paths (`input`, a user's pass) are resolved, and what is found there. */
export interface ConfigFiles {
  /** `rel`, written in the config `file`, resolved against the config's folder. */
  resolve(file: string, rel: string): string;
  /** What is at the resolved path: undefined when nothing is (never asked by `MEMORY_FILES`). */
  kind(file: string): 'file' | 'directory' | undefined;
}

/**
 * A config read from text with no file system (a page, a worker): paths are names, resolved with
 * `/` against the config's name (`configs/kernel/01-conv.json` and `../../k.c` give
 * `k.c`), and every one is taken to be a file.
 */
export const MEMORY_FILES: ConfigFiles = {
  resolve: (file, rel) => joinPath(dirName(file), rel),
  kind: () => 'file',
};

/** The folder part of a path written with `/` (or a backslash): '' for a bare name. */
export function dirName(p: string): string {
  const i = Math.max(p.lastIndexOf('/'), p.lastIndexOf('\\'));
  return i < 0 ? '' : p.slice(0, i);
}

/** The last part of a path written with `/` (or a backslash). */
export function baseName(p: string): string {
  return p.slice(Math.max(p.lastIndexOf('/'), p.lastIndexOf('\\')) + 1);
}

/** `rel` after `dir`, `.` and `..` folded (a `..` past the start is kept); `rel` if absolute. */
function joinPath(dir: string, rel: string): string {
  if (rel.startsWith('/')) return rel;
  const out: string[] = [];
  for (const part of [...dir.split(/[/\\]/), ...rel.split(/[/\\]/)]) {
    if (part === '' || part === '.') continue;
    if (part === '..' && out.length > 0 && out[out.length - 1] !== '..') out.pop();
    else out.push(part);
  }
  return out.join('/');
}

/** The keys a config may have (docs/config.md documents each). */
export const CONFIG_KEYS = [
  'id',
  'description',
  'input',
  'function',
  'pipeline',
  'bind',
  'sample',
  'pe',
  'args',
  'math',
  'staging',
] as const;

/** How a config's pipeline is staged (`StageConfig.staging`). */
export type StagingMode = 'auto' | 'whole' | 'per-pass';
const STAGING_MODES: readonly string[] = ['auto', 'whole', 'per-pass'];
const REQUIRED: readonly string[] = ['input', 'function', 'pipeline'];

const PARSE_MESSAGES: Readonly<Record<string, string>> = {
  InvalidSymbol: 'invalid symbol',
  InvalidNumberFormat: 'invalid number',
  PropertyNameExpected: 'expected a property name (a string in double quotes)',
  ValueExpected: 'expected a value',
  ColonExpected: "expected ':'",
  CommaExpected: "expected ','",
  CloseBraceExpected: "expected '}'",
  CloseBracketExpected: "expected ']'",
  EndOfFileExpected: 'unexpected text after the configuration object',
  InvalidCommentToken: 'comments are not allowed (configurations are plain JSON)',
  UnexpectedEndOfComment: 'unterminated comment',
  UnexpectedEndOfString: 'unterminated string',
  UnexpectedEndOfNumber: 'unterminated number',
  InvalidUnicode: 'invalid unicode escape',
  InvalidEscapeCharacter: 'invalid escape character',
  InvalidCharacter: 'invalid character in a string',
};

/**
 * Parses the text of a config file; `file` is used for messages and, by `files`, to resolve and
 * check `input` and the paths of a user's passes (config-files.ts's `parseConfig` passes node's).
 */
export function readConfig(text: string, file: string, files: ConfigFiles): StageConfig {
  const r = new ConfigReader(text, file, files);
  const root = r.root();
  const byKey = r.topLevel(root);
  const id = r.id(byKey.get('id'));
  const description = r.str(byKey, 'description');
  const input = r.input(byKey);
  const fn = r.str(byKey, 'function') as string;
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(fn))
    r.fail(byKey.get('function') as Node, 'C1006', `'function' must be a C function name, not '${clip(fn)}'`);
  const pipeline = r.pipeline(byKey.get('pipeline') as Node);
  const bindNode = byKey.get('bind');
  // no `bind`: no formal is known early (the staged pipeline is the generic one)
  const bind = bindNode === undefined ? [] : r.bind(bindNode);
  const sampleNode = byKey.get('sample');
  const sample = sampleNode === undefined ? undefined : r.sample(sampleNode, bind);
  const peNode = byKey.get('pe');
  const pe = peNode === undefined ? undefined : r.pe(peNode);
  const mathNode = byKey.get('math');
  if (mathNode !== undefined && mathNode.value !== 'exact' && mathNode.value !== 'finite')
    r.fail(mathNode, 'C1012', `'math' is "exact" (the default) or "finite"`);
  const math = mathNode?.value as MathMode | undefined;
  const stagingNode = byKey.get('staging');
  if (stagingNode !== undefined && !STAGING_MODES.includes(stagingNode.value))
    r.fail(stagingNode, 'C1014', `'staging' is "auto" (the default), "whole" or "per-pass"`);
  const staging = stagingNode?.value as StagingMode | undefined;
  const argsNode = byKey.get('args');
  const args = argsNode === undefined ? undefined : r.args(argsNode, bind);
  return {
    file,
    ...(id !== undefined ? { id } : {}),
    ...(pe !== undefined ? { pe } : {}),
    ...(description !== undefined ? { description } : {}),
    input,
    function: fn,
    pipeline,
    bind: recordOf(bind),
    ...(sample !== undefined ? { sample: recordOf(sample) } : {}),
    ...(args !== undefined ? { args: recordOf(args) } : {}),
    ...(math !== undefined ? { math } : {}),
    ...(staging !== undefined ? { staging } : {}),
    positions: r.positions,
  };
}

/**
 * Reads one config's text: its JSON tree, each key checked, and where every value is. Shared
 * with entry configs (entry-config.ts), which have keys of their own.
 */
export class ConfigReader {
  /** Where each key's value is (`bind.x`, `pipeline[0]`; `''` for the file's object). */
  readonly positions = new Map<string, Position>();

  constructor(
    private readonly text: string,
    private readonly file: string,
    private readonly files: ConfigFiles,
  ) {}

  errAt(offset: number, code: ConfigCode | DescriptionCode, reason: string): ConfigError {
    const p = lineCol(this.text, offset);
    return new ConfigError(this.file, p.line, p.col, reason, code);
  }

  fail(node: Node, code: ConfigCode, reason: string): never {
    throw this.errAt(node.offset, code, reason);
  }

  at(where: string, node: Node): void {
    this.positions.set(where, lineCol(this.text, node.offset));
  }

  /** The JSON tree; syntax errors, and a nesting deeper than any real config, positioned. */
  root(): Node {
    const { text } = this;
    // jsonc-parser and the description parser recurse along brackets: a config nested deeper than
    // any real one is one positioned error, not a stack overflow.
    const deep = firstTooDeepBracket(text, true);
    if (deep !== undefined) throw this.errAt(deep, 'C1002', `nesting too deep (limit ${MAX_CONFIG_NESTING})`);
    const errors: ParseError[] = [];
    const root = parseTree(text, errors, {
      disallowComments: true,
      allowTrailingComma: false,
      allowEmptyContent: false,
    });
    const first = errors[0];
    if (first !== undefined) {
      const code = printParseErrorCode(first.error);
      let reason = PARSE_MESSAGES[code] ?? code;
      // a trailing comma reads as "expected a property name / value": say what is wrong
      if (code === 'PropertyNameExpected' || code === 'ValueExpected') {
        const before = text.slice(0, first.offset).trimEnd();
        if (before.endsWith(',')) throw this.errAt(before.length - 1, 'C1002', 'trailing comma');
      }
      if (first.offset >= text.length && code !== 'EndOfFileExpected') reason += ' (unexpected end of file)';
      throw this.errAt(first.offset, 'C1002', reason);
    }
    if (root === undefined) throw this.errAt(0, 'C1002', 'empty configuration');
    if (root.type !== 'object') this.fail(root, 'C1002', 'a configuration is a JSON object');
    this.at('', root);
    return root;
  }

  /** The properties of an object node, duplicates rejected, as [key, keyNode, valueNode]. */
  props(obj: Node): [string, Node, Node][] {
    const out: [string, Node, Node][] = [];
    const seen = new Set<string>();
    for (const p of obj.children ?? []) {
      const [k, v] = p.children ?? [];
      if (k === undefined || v === undefined) throw this.errAt(p.offset, 'C1002', 'expected a property');
      const key = k.value as string;
      if (seen.has(key)) this.fail(k, 'C1003', `duplicate key '${clip(key)}'`);
      seen.add(key);
      out.push([key, k, v]);
    }
    return out;
  }

  /** The top-level values by key: known keys only, the required ones present. */
  topLevel(root: Node): Map<string, Node> {
    const byKey = new Map<string, Node>();
    for (const [key, k, v] of this.props(root)) {
      if (!(CONFIG_KEYS as readonly string[]).includes(key))
        this.fail(
          k,
          'C1003',
          `unknown key '${clip(key)}' (expected ${CONFIG_KEYS.map((x) => `'${x}'`).join(', ')})`,
        );
      byKey.set(key, v);
      this.at(key, v);
    }
    for (const key of REQUIRED) if (!byKey.has(key)) this.fail(root, 'C1003', `missing key '${clip(key)}'`);
    return byKey;
  }

  str(byKey: ReadonlyMap<string, Node>, key: string): string | undefined {
    const v = byKey.get(key);
    if (v === undefined) return undefined;
    if (v.type !== 'string') this.fail(v, codeAt(key), `'${clip(key)}' must be a string`);
    return v.value as string;
  }

  id(node: Node | undefined): number | undefined {
    if (node === undefined) return undefined;
    if (node.type !== 'number' || !Number.isSafeInteger(node.value) || (node.value as number) < 1)
      this.fail(node, 'C1004', "'id' must be a positive integer");
    return node.value as number;
  }

  /** `input`: the kernel's C file, resolved against the config's folder. */
  input(byKey: ReadonlyMap<string, Node>): string {
    const node = byKey.get('input') as Node;
    const inputText = this.str(byKey, 'input') as string;
    if (inputText === '') this.fail(node, 'C1005', "'input' must name the kernel C file");
    const input = this.files.resolve(this.file, inputText);
    const kind = this.files.kind(input);
    if (kind === undefined) this.fail(node, 'C1005', `no such file: '${clip(inputText)}'`);
    if (kind === 'directory')
      this.fail(node, 'C1005', `'${clip(inputText)}' is a directory, not a kernel C file`);
    return input;
  }

  /** `pipeline`: built-in pass names, or paths of a user's optimizers. */
  pipeline(node: Node): string[] {
    if (node.type !== 'array') this.fail(node, 'C1007', "'pipeline' must be an array of pass names");
    const pipeline: string[] = [];
    (node.children ?? []).forEach((p, i) => {
      if (p.type !== 'string') this.fail(p, 'C1007', 'a pass name must be a string');
      const name = p.value as string;
      if (!KNOWN_PASSES.includes(name) && !isPassPath(name))
        this.fail(
          p,
          'C1007',
          `unknown pass '${clip(name)}' (built-in: ${KNOWN_PASSES.join(', ')}; or the path of your own optimizer, relative to this file)`,
        );
      if (isPassPath(name) && this.files.kind(this.files.resolve(this.file, name)) === 'directory')
        this.fail(p, 'C1007', `'${clip(name)}' is a directory, not an optimizer's .ts file`);
      this.at(`pipeline[${i}]`, p);
      pipeline.push(name);
    });
    if (pipeline.length === 0) this.fail(node, 'C1007', "'pipeline' must name at least one pass");
    return pipeline;
  }

  /**
   * The properties of `section`, which must be an object mapping `what` (else an error under the
   * section's code), with the position of each value and key recorded (`bind.a`, `bind.a:key`).
   */
  private entries(node: Node, section: 'bind' | 'sample' | 'args', what: string): [string, Node, Node][] {
    if (node.type !== 'object')
      this.fail(node, codeAt(section), `'${section}' must be an object mapping ${what}`);
    const props = this.props(node);
    for (const [name, k, v] of props) {
      this.at(`${section}.${name}`, v);
      this.at(`${section}.${name}:key`, k);
    }
    return props;
  }

  /** `bind`: each staged formal's description. */
  bind(node: Node): [string, Description][] {
    const bind: [string, Description][] = [];
    for (const [name, , v] of this.entries(node, 'bind', 'formals to descriptions')) {
      bind.push([
        name,
        bindDescription(v, this.text, (offset, code, reason) => this.errAt(offset, code, reason)),
      ]);
    }
    return bind;
  }

  /** `sample`: a stage-2 value for every bound formal, and for those only. */
  sample(node: Node, bind: readonly [string, Description][]): [string, BindValue][] {
    const sample: [string, BindValue][] = [];
    for (const [name, k, v] of this.entries(node, 'sample', 'formals to values')) {
      if (!bind.some(([b]) => b === name))
        this.fail(
          k,
          'C1009',
          `'${clip(name)}' is not in 'bind': stage-2 values are given for the staged formals only`,
        );
      sample.push([name, sampleValue(v, (n, reason) => this.fail(n, 'C1009', reason))]);
    }
    for (const [name] of bind)
      if (!sample.some(([s]) => s === name))
        this.fail(node, 'C1009', `'sample' has no value for '${clip(name)}'`);
    return sample;
  }

  /** `args`: a literal or a random array for each run-time argument that is not a staged formal. */
  args(node: Node, bind: readonly [string, Description][]): [string, ArgSpec][] {
    const out: [string, ArgSpec][] = [];
    for (const [name, k, v] of this.entries(node, 'args', "the kernel's other formals to values")) {
      if (bind.some(([b]) => b === name))
        this.fail(k, 'C1011', `'${clip(name)}' is in 'bind': its run-time value is the 'sample' one`);
      out.push([name, argSpec(v, (n, reason) => this.fail(n, 'C1011', reason))]);
    }
    return out;
  }

  /** `pe`: partial-evaluator limits, each a bounded integer. */
  pe(node: Node): { growCap?: number; specFuel?: number; unfoldDepth?: number } {
    if (node.type !== 'object')
      this.fail(node, 'C1010', "'pe' must be an object of partial-evaluator limits");
    const pe: { growCap?: number; specFuel?: number; unfoldDepth?: number } = {};
    for (const [name, k, v] of this.props(node)) {
      if (name !== 'growCap' && name !== 'specFuel' && name !== 'unfoldDepth')
        this.fail(
          k,
          'C1010',
          `unknown partial-evaluator limit '${clip(name)}' (known: growCap, specFuel, unfoldDepth)`,
        );
      const value = v.value;
      const min = name === 'unfoldDepth' ? 0 : 1;
      if (
        v.type !== 'number' ||
        !Number.isInteger(value) ||
        (value as number) < min ||
        (value as number) > 1_000_000
      )
        this.fail(v, 'C1010', `'pe.${name}' must be an integer in ${min}..1000000`);
      this.at(`pe.${name}`, v);
      pe[name as 'growCap' | 'specFuel' | 'unfoldDepth'] = value as number;
    }
    return pe;
  }
}

/**
 * A record of `entries` without a prototype: its keys are the kernel's formal names, which may be
 * `constructor` or `__proto__` (on `{}` the first reads an inherited function, the second sets the
 * prototype).
 */
function recordOf<T>(entries: readonly (readonly [string, T])[]): Record<string, T> {
  const out = emptyRecord<T>();
  for (const [k, v] of entries) out[k] = v;
  return out;
}

/** Most brackets one inside another a configuration, or a description in it, may have. */
export const MAX_CONFIG_NESTING = 64;

/**
 * The offset of the first bracket (`[`, `{`, and `(` in descriptions) nested more than
 * MAX_CONFIG_NESTING deep in `text`; strings are skipped when `json`. Undefined when none is.
 */
function firstTooDeepBracket(text: string, json: boolean): number | undefined {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (json && c === '"') {
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === '\\') i++;
    } else if (c === '[' || c === '{' || (!json && c === '(')) {
      if (++depth > MAX_CONFIG_NESTING) return i;
    } else if (c === ']' || c === '}' || (!json && c === ')')) depth--;
  }
  return undefined;
}

/** A `bind` value: a description string, or a JSON literal (arrays may hold description strings). */
function bindDescription(
  node: Node,
  text: string,
  errAt: (offset: number, code: DescriptionCode, reason: string) => ConfigError,
): Description {
  const go = (n: Node): AbsValue => {
    switch (n.type) {
      case 'string': {
        const value = n.value as string;
        const deep = firstTooDeepBracket(value, false);
        if (deep !== undefined) {
          const before = value.slice(0, deep).split('\n');
          const at = `${before.length}:${(before[before.length - 1] as string).length + 1}`;
          throw errAt(
            stringOffset(text, n, at),
            'D1001',
            `bad description: nesting too deep (limit ${MAX_CONFIG_NESTING})`,
          );
        }
        try {
          return parseDescription(value);
        } catch (e) {
          if (!(e instanceof DescriptionError)) throw e;
          throw errAt(
            stringOffset(text, n, e.position),
            e.code,
            `bad description: ${e.message.slice(e.position.length + 2)}`,
          );
        }
      }
      case 'number':
      case 'boolean':
        return constant(n.value as Prim);
      case 'array':
        return LIST_ARRAYS.exactly((n.children ?? []).map(go));
      default:
        throw errAt(
          n.offset,
          'D1001',
          `a description is a string such as "'Int", "0|1" or "'Array[3]", a number, a boolean or an array, not ${n.type === 'null' ? 'null' : 'an object'}`,
        );
    }
  };
  const value = go(node);
  return {
    text:
      node.type === 'string' ? (node.value as string) : text.slice(node.offset, node.offset + node.length),
    value,
  };
}

/**
 * The file offset of the character at `line:col` of a JSON string's decoded value (escapes are
 * decoded one raw sequence per code unit); the string's start if that position is not inside.
 */
function stringOffset(text: string, node: Node, lineCol: string): number {
  const m = /^(\d+):(\d+)$/.exec(lineCol);
  if (m === null) return node.offset;
  const value = node.value as string;
  let line = 1;
  let col = 1;
  let index = value.length;
  for (let i = 0; i < value.length; i++) {
    if (line === Number(m[1]) && col === Number(m[2])) {
      index = i;
      break;
    }
    if (value[i] === '\n') {
      line++;
      col = 1;
    } else col++;
  }
  // walk the raw literal (after the opening quote) to the index-th decoded code unit
  let raw = node.offset + 1;
  for (let i = 0; i < index && raw < node.offset + node.length - 1; i++) {
    if (text[raw] === '\\') raw += text[raw + 1] === 'u' ? 6 : 2;
    else raw += 1;
  }
  return raw;
}

/** A `sample` value: a number, a boolean, or an array of them. */
function sampleValue(node: Node, fail: (n: Node, reason: string) => never): BindValue {
  const scalar = (n: Node): number | boolean => {
    if (n.type === 'number' || n.type === 'boolean') return n.value as number | boolean;
    return fail(n, 'a stage-2 value is a number, a boolean, or an array of them');
  };
  if (node.type === 'array') return (node.children ?? []).map(scalar);
  return scalar(node);
}

/** Largest random array an `args` entry may ask for (2^24 elements: 64 MB of floats). */
export const MAX_RANDOM_ARG = 1 << 24;

/**
 * A run-time argument in a config's `args`: a literal (a number, a boolean, an array of them), or
 * `{ "random": N, "seed": S }` for N floats in [0, 1) drawn from seed S, with `"max": M` for N
 * ints in [0, M) (`argValue` in args.ts draws them).
 */
export type ArgSpec = BindValue | { readonly random: number; readonly seed: number; readonly max?: number };

function argSpec(node: Node, fail: (n: Node, reason: string) => never): ArgSpec {
  if (node.type !== 'object') return sampleValue(node, (n) => fail(n, ARG_FORMS));
  const spec: { random?: number; seed?: number; max?: number } = {};
  for (const child of node.children ?? []) {
    const [k, v] = child.children as [Node, Node];
    const key = k.value as string;
    if (key !== 'random' && key !== 'seed' && key !== 'max')
      fail(k, `unknown key '${clip(key)}' in a random array (known: random, seed, max)`);
    if (v.type !== 'number' || !Number.isInteger(v.value) || (v.value as number) < 0)
      fail(v, `'${clip(key)}' must be a non-negative integer`);
    spec[key] = v.value as number;
  }
  if (spec.random === undefined || spec.seed === undefined) fail(node, ARG_FORMS);
  if (spec.random > MAX_RANDOM_ARG) fail(node, `a random array has at most ${MAX_RANDOM_ARG} elements`);
  if (spec.max !== undefined && (spec.max < 1 || spec.max > 2 ** 31))
    fail(node, "'max' must be between 1 and 2^31");
  return { random: spec.random, seed: spec.seed, ...(spec.max !== undefined ? { max: spec.max } : {}) };
}

const ARG_FORMS =
  'a run-time argument is a number, a boolean, an array of them, or {"random": N, "seed": S} (with "max": M for ints in [0, M))';

// ---- checks against the kernel function --------------------------------------------------

/**
 * The config's kernel program and function, parsed from `source`, the text of the file its
 * `input` names (kernel diagnostics become ConfigErrors at their place in it).
 */
export async function configKernel(
  config: StageConfig,
  source: string,
): Promise<{ program: Program; fun: Fun }> {
  const parsed = await parseKernel(source, config.input);
  const d = parsed.diagnostics[0];
  // the kernel's own diagnostic, at its position in the C file
  if (d !== undefined) throw kernelError(d, source);
  const fun = withFns(parsed.program, config.function);
  if (fun === undefined) {
    const names = listToArray(parsed.program).map((f) => f.name);
    throw configError(
      config,
      'function',
      `'${baseName(config.input)}' has no function '${clip(config.function)}' (it defines ${names.join(', ') || 'none'})`,
    );
  }
  // The stager and the staged optimizers walk the function recursively, as the optimizers do, and
  // the stager's time and memory grow with the function: MAX_TREE_DEPTH on any stack (depth.ts).
  const deep = treeDepthDiagnostic(fun, parsed.spans, config.input, 'stage', MAX_TREE_DEPTH);
  if (deep !== undefined) throw kernelError(deep, source);
  return { program: parsed.program, fun };
}

/** A kernel diagnostic as a `ConfigError` at its place in the C file. */
function kernelError(d: KernelDiagnostic, source: string): ConfigError {
  const span = d.span ?? { file: '<input>', start: 0, end: 0 };
  const { line, col } = lineCol(source, span.start);
  return new ConfigError(span.file, line, col, d.message, d.code);
}

/**
 * Checks the config against its function and returns Fig. 4's I1 for constant propagation,
 * `[fun, formals]` (`abstractPipelineInput`): every description must fit its formal, and every
 * sample value must lie inside its description. Errors point at the `bind` / `sample` entry.
 */
export function configPipelineInput(
  config: StageConfig,
  fun: Fun,
  ctors: CtorTable,
  /** The table for the formals' lattice values, when `ctors` lacks them (default `ctors`). */
  formalCtors: CtorTable = ctors,
): AbsValue[] {
  let formals: AbsValue[];
  try {
    formals = describeFormalList(fun, config.bind, formalCtors);
  } catch (e) {
    if (!(e instanceof FormalDescriptionError)) throw e;
    const known = listToArray(fun.params).some((p) => p.name === e.formal);
    throw configError(config, known ? `bind.${e.formal}` : `bind.${e.formal}:key`, e.reason, e.code);
  }
  const sample = config.sample;
  if (sample !== undefined) {
    listToArray(fun.params).forEach((p, i) => {
      if (!Object.hasOwn(sample, p.name)) return;
      let concrete: LatticeVal | undefined;
      try {
        // this formal alone (the others unbound), so an error is located exactly
        concrete = formalsFromBindings(fun, { [p.name]: sample[p.name] as BindValue })[i];
      } catch (e) {
        if (!(e instanceof BindError)) throw e;
        throw configError(config, `sample.${p.name}`, e.message);
      }
      if (!conforms(concrete, formals[i] as AbsValue, ctors))
        throw configError(
          config,
          `sample.${p.name}`,
          `the stage-2 value of '${p.name}' is not admitted by its description '${clip(config.bind[p.name]?.text ?? '')}'`,
        );
    });
  }
  if (formalCtors === ctors) return abstractPipelineInput(fun, config.bind, ctors);
  return [fromConcrete(fun, ctors), describeFormals(fun, config.bind, formalCtors)];
}
