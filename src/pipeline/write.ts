/**
 * Writing a staged pipeline to disk as a portable folder of ES modules:
 * - `NAME.PASS.staged.mjs` — one readable module per staged optimizer (emit.ts), the first also
 *   exporting the admission check of the early description (admit.ts);
 * - `NAME.stub.mjs` — SCF Fig. 5's run-time interface: `specialize(values)` takes the late-stage
 *   values of the staged formals, builds the pipeline's input, checks it, and runs the staged
 *   pipeline (runtime/stub.ts: `makeStub`); with `NAME.stub.d.mts`, whose `Values` type names the
 *   staged formals, so a caller's `specialize({ a: 1 })` is type-checked;
 * - `NAME.manifest.json` — what the folder was staged from: the config, the scf version, and a
 *   SHA-256 of the kernel, of every optimizer source and of every staged module; embedded in the
 *   stub too, which checks each module before importing it and the sources on first use, and
 *   falls back to the unstaged pipeline when anything differs;
 * - `NAME.abstract.txt` — I1, I2, … in the Fig. 6 notation.
 *
 * The modules import only `scf/runtime` and each other (`./`), so the folder runs wherever it is
 * moved, under plain node or a bundler, in any app that has scf installed. The kernel function was
 * known at build time, so the stub embeds it as data (Fig. 5's remark: no parsing at run time).
 *
 * The files are published by staged-folder.ts (a temporary folder inside the target, renamed into
 * place under a lock, the stub last). Every string that reaches the generated code goes through
 * common/generated-text.ts (`commentText`, `jsString`, `jsData`).
 *
 * Invariants. `specialize(values)` returns exactly what the unstaged pipeline returns on the same
 * values (see runtime/stub.ts).
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { AbsValue } from '../abstract-values/index.js';
import { type Fun, listToArray } from '../kernel/index.js';
import {
  assertNever,
  clip,
  commentText,
  inSystemFileSystem,
  jsData,
  jsString,
  readSourceFile,
  SOURCE_ROOT,
  scfVersion,
} from '../common/index.js';
import {
  kernelHash,
  type ManifestFile,
  type ManifestPass,
  type StageManifest,
  sha256,
  stageHashLine,
} from '../runtime/index.js';
import { GROW_CAP, type PeEvent, SPEC_FUEL, UNFOLD_DEPTH } from '../partial-eval/index.js';
import { emitModule } from '../stager/index.js';
import { printAbstractFun } from './print-kernel.js';
import { optimizerSources } from '../optimizers/index.js';
import type { PipelineStage } from './pipeline.js';
import { type FolderFile, publishFolder } from './staged-folder.js';

/** The module specifier staged code imports its run-time support from. */
export const RUNTIME_SPECIFIER = 'scf/runtime';

export interface WriteOptions {
  readonly outDir: string;
  /** Base name of the files (the kernel function's name by default). */
  readonly name?: string;
  /** The kernel function (embedded in the stub). */
  readonly fun: Fun;
  /** Descriptions of the staged formals (a config's `bind`); their text goes into the stub. */
  readonly bind: Readonly<Record<string, { readonly text: string }>>;
  /**
   * Text for the modules' headers (where the config came from); by default the config's path
   * relative to the folder, as the manifest records it, so that the files do not depend on where
   * the project lives or on the working directory.
   */
  readonly origin?: string;
  /** The config file staged from (recorded in the manifest and the headers, relative to the folder). */
  readonly config?: string;
}

export interface WrittenFiles {
  readonly modules: readonly string[];
  readonly stub: string;
  readonly types: string;
  readonly manifest: string;
  readonly descriptions: string;
}

function posixRelative(fromDir: string, file: string): string {
  return path.relative(fromDir, file).split(path.sep).join('/');
}

/** The config file `config` as a staged folder `dir` names it: relative to the folder, with `/`. */
function configFromFolder(dir: string, config: string): string {
  return posixRelative(dir, path.resolve(config));
}

/** The manifest of a staged folder written to `dir` (see runtime/stub.ts). */
export function stageManifest(
  stages: readonly PipelineStage[],
  dir: string,
  opts: WriteOptions,
  modules: readonly ManifestFile[],
): StageManifest {
  const passes = stages.map((s): ManifestPass => {
    const files = optimizerSources(s.pass);
    const own = files.filter((f) => f === s.pass.file);
    return {
      name: s.pass.name,
      builtin: s.pass.builtin,
      entry: s.pass.entry,
      takesFormals: s.pass.takesFormals,
      files: [...own, ...files.filter((f) => f !== s.pass.file)].map((f) => ({
        path: s.pass.builtin ? posixRelative(SOURCE_ROOT, f) : posixRelative(dir, f),
        sha256: sha256(readSourceFile(f)),
        ...(s.pass.builtin ? {} : { staged: path.resolve(f) }),
      })),
    };
  });
  return {
    scf: scfVersion(),
    function: opts.fun.name,
    ...(opts.config ? { config: configFromFolder(dir, opts.config) } : {}),
    bind: Object.fromEntries(Object.entries(opts.bind).map(([n, d]) => [n, d.text])),
    kernel: kernelHash(opts.fun),
    passes,
    modules,
  };
}

/**
 * I1, I2, … in Fig. 6 notation, one block per stage; big unions cut short unless `full`
 * (`printAbstractFun`). The staged folder's `NAME.abstract.txt` holds them in full.
 */
export function describeStages(stages: readonly PipelineStage[], full = false): string {
  const out: string[] = [];
  stages.forEach((s, i) => {
    const fun = s.input[0] as AbsValue;
    out.push(`(* I${i + 1}: input of ${s.pass.name} *)\n${printAbstractFun(fun, { full })}`);
  });
  const last = stages[stages.length - 1];
  if (last)
    out.push(
      `(* I${stages.length + 1}: output of ${last.pass.name} *)\n${printAbstractFun(last.result.output, { full })}`,
    );
  return `${out.join('\n\n')}\n`;
}

/**
 * `scf stage --explain`: per pass, why partial evaluation stopped and every loss of precision it
 * made — each parameter or result widened to a skeleton or to `1`, each specialization given up.
 * The losses are counted by the optimizer function they happened in, the pass's own functions
 * apart from scf's helpers (`scf/kernel`, the prelude) that it calls; then, per reason, the
 * setting of the config's `"pe"` that bounds it (with its default) or the rewrite that avoids it;
 * then each loss: the specialization, what it handled (its key: the input node), what was cut and
 * how. This is where a compiler writer looks when their optimizer stages poorly.
 */
export function explainStages(stages: readonly PipelineStage[], pe: PeSettings = {}): string {
  const out: string[] = [];
  for (const s of stages) {
    const r = s.result;
    out.push(
      `${s.pass.name}: stop ${r.stop}${r.stop === 'fixpoint' ? '' : ` (${r.reason})`}; ${r.peStats.visits} visits, ${r.peStats.specs} specializations, ${r.peStats.residualFuns} residual functions; ${r.events.length} loss(es) of precision`,
    );
    if (r.events.length === 0) continue;
    const own = path.basename(s.pass.file).replace(/\.[cm]?ts$/, '');
    const byFn = new Map<string, Map<string, number>>();
    for (const e of r.events) {
      const counts = byFn.get(e.fn) ?? new Map<string, number>();
      counts.set(e.reason, (counts.get(e.reason) ?? 0) + 1);
      byFn.set(e.fn, counts);
    }
    const line = (fn: string, counts: Map<string, number>): string =>
      `    ${fn}: ${[...counts].map(([reason, n]) => `${n} × ${reason}`).join(', ')}`;
    const mine = [...byFn].filter(([fn]) => fn.split('.')[0] === own);
    const theirs = [...byFn].filter(([fn]) => fn.split('.')[0] !== own);
    if (mine.length > 0) out.push(`  in ${own}'s own functions:`, ...mine.map(([fn, c]) => line(fn, c)));
    if (theirs.length > 0)
      out.push(
        `  in functions it calls (scf's helpers: scf/kernel, the prelude):`,
        ...theirs.map(([fn, c]) => line(fn, c)),
      );
    out.push('  what may help:');
    for (const reason of new Set(r.events.map((e) => e.reason)))
      out.push(`    ${reason}: ${lossAdvice(reason, pe)}`);
    out.push('  each loss (specialization, what it handled, what was cut: why -> what it became):');
    for (const e of r.events) {
      out.push(`  ${e.spec}  ${e.key}  ${e.what}: ${e.reason} -> ${e.to}`);
    }
  }
  return `${out.join('\n')}\n`;
}

/** The partial evaluator's settings a config may give (`"pe"`, docs/config.md). */
export interface PeSettings {
  readonly growCap?: number;
  readonly specFuel?: number;
  readonly unfoldDepth?: number;
}

/**
 * Per reason of a loss of precision: the config setting that bounds it, at the value it had
 * (`pe`, else its default), with a higher one to try, or the rewrite that avoids it.
 */
function lossAdvice(reason: PeEvent['reason'], pe: PeSettings): string {
  const growCap = pe.growCap ?? GROW_CAP;
  const specFuel = pe.specFuel ?? SPEC_FUEL;
  switch (reason) {
    case 'size-cap':
      return `a value grew past growCap = ${growCap} nodes (it grows with the input: an accumulator, a list built across a loop). Raise the bound in the config, "pe": { "growCap": ${growCap * 4} } (staging takes longer and the staged code may grow), or keep such values small in the pass: look facts up in a map keyed by label rather than carry a growing list`;
    case 'spec-fuel':
      return `a parameter or result changed more than specFuel = ${specFuel} times (a value that changes at every iteration of a fixpoint). Raise it in the config, "pe": { "specFuel": ${specFuel * 2} }, or pass such values in a form that converges sooner (a set or map joined, not a list appended to)`;
    case 'budget':
      return `the partial evaluator's visit budget or its count of specializations ran out, so calls stayed generic. Narrow the early description (fewer 'Any or 'Array parts), or split the pipeline into smaller passes; "pe": { "unfoldDepth": 0 } (now ${pe.unfoldDepth ?? UNFOLD_DEPTH}) unfolds no calls on static paths`;
    default:
      return assertNever(reason);
  }
}

/** Machine-readable staging report (`scf stage --json`): per pass, stop, stats, sizes and events. */
export function stageReport(stages: readonly PipelineStage[]): object {
  return {
    passes: stages.map((s) => ({
      pass: s.pass.name,
      stop: s.result.stop,
      reason: s.result.reason,
      stats: s.result.peStats,
      sizes: s.result.sizes,
      dae: s.result.dae,
      ms: s.result.ms,
      events: s.result.events,
    })),
  };
}

export function writeStaged(stages: readonly PipelineStage[], opts: WriteOptions): WrittenFiles {
  const dir = path.resolve(opts.outDir);
  if (inSystemFileSystem(dir))
    throw new Error(`writeStaged: '${clip(opts.outDir)}' is in a system file system`);
  const name = opts.name ?? opts.fun.name;
  // a file name, never a path: every file is written inside outDir
  if (name === '' || name === '.' || name === '..' || /[/\\\0]/.test(name))
    throw new Error(
      `writeStaged: the name '${clip(name)}' is not a file name (it names the files inside outDir)`,
    );
  mkdirSync(dir, { recursive: true });
  const imports = { prelude: RUNTIME_SPECIFIER, runtime: RUNTIME_SPECIFIER };
  const stems = moduleStems(stages, name);
  const formalsAt = stages.findIndex((s) => s.pass.takesFormals);
  const files: FolderFile[] = [];
  const modules: ManifestFile[] = [];
  const origin = opts.origin ?? (opts.config ? configFromFolder(dir, opts.config) : undefined);
  stages.forEach((s, i) => {
    const r = s.result;
    const header = [
      `Staged ${s.pass.name} for ${name}${origin ? ` (${origin})` : ''}: generated by \`scf stage\`; do not edit.`,
      `Specialized to I${i + 1}; partial evaluation stopped: ${r.stop} (${r.reason}).`,
      `Core nodes: unstaged optimizer ${r.sizes.original}, residual ${r.sizes.residual}, after DAE ${r.sizes.staged}.`,
    ].join('\n');
    const code = emitModule(r.residual, {
      entry: r.entry,
      exportName: 'optimize',
      header,
      comments: r.comments,
      imports,
      // the first module checks its input; the first pass taking the formals, when it is a later
      // one, checks them (their description is the same for every pass that takes them)
      ...(i === 0 || i === formalsAt ? { admission: { desc: s.input, name: 'admit', ctors: s.ctors } } : {}),
    });
    const sha = sha256(code);
    files.push(
      { name: `${stems[i]}.mjs`, text: `${code}${stageHashLine(sha)}` },
      { name: `${stems[i]}.d.mts`, text: stagedTypes(i === 0 || i === formalsAt) },
    );
    modules.push({ path: `${stems[i]}.mjs`, sha256: sha });
  });
  const manifest = stageManifest(stages, dir, opts, modules);
  files.push(
    { name: `${name}.manifest.json`, text: `${JSON.stringify(manifest, null, 2)}\n` },
    { name: `${name}.abstract.txt`, text: describeStages(stages, true) },
    { name: `${name}.stub.d.mts`, text: stubTypes(name, opts) },
    // last: the stub makes the modules reachable
    { name: `${name}.stub.mjs`, text: stubSource(stages, name, stems, manifest, opts) },
  );
  // an earlier stage's modules of this function that this pipeline no longer has
  const prefix = `${name}.`;
  const stale = (f: string): boolean =>
    f.startsWith(prefix) && (f.endsWith('.staged.mjs') || f.endsWith('.staged.d.mts'));
  publishFolder(dir, files, stale);
  const at = (f: string): string => path.join(dir, f);
  return {
    modules: modules.map((m) => at(m.path)),
    stub: at(`${name}.stub.mjs`),
    types: at(`${name}.stub.d.mts`),
    manifest: at(`${name}.manifest.json`),
    descriptions: at(`${name}.abstract.txt`),
  };
}

/** File stems of the staged modules: `NAME.PASS.staged`, numbered when two passes share a name. */
function moduleStems(stages: readonly PipelineStage[], name: string): string[] {
  const safe = stages.map((s) => s.pass.name.replace(/[^\w.-]/g, '_'));
  return safe.map((p, i) =>
    safe.indexOf(p) !== i || safe.lastIndexOf(p) !== i
      ? `${name}.${i + 1}-${p}.staged`
      : `${name}.${p}.staged`,
  );
}

function stagedTypes(first: boolean): string {
  return [
    '// Generated by `scf stage`; do not edit.',
    '/** The staged optimizer (its arguments as the unstaged pass takes them). */',
    'export declare function optimize(...args: unknown[]): unknown;',
    ...(first
      ? [
          '/** Throws `InputNotAdmitted` (scf/runtime) when the input is outside the early description. */',
          'export declare function admit(input: unknown[]): void;',
        ]
      : []),
    'export declare const meta: { readonly entry: string; readonly functions: number; readonly coreNodes: number; readonly constants: number };',
    '/** The SHA-256 of this module before its last line, as the manifest records it. */',
    'export declare const STAGE_HASH: string;',
    '',
  ].join('\n');
}

/** The TypeScript type of a late-stage value of a formal. */
function formalType(ty: string, isArray: boolean): string {
  const scalar = ty === 'bool' ? 'number | boolean' : 'number';
  return isArray ? `readonly (${scalar})[]` : scalar;
}

function stubTypes(name: string, opts: WriteOptions): string {
  const params = listToArray(opts.fun.params);
  const fields = Object.keys(opts.bind).map((n) => {
    const p = params.find((q) => q.name === n);
    const what = p ? `${p.isConst ? 'const ' : ''}${p.ty}${p.isArray ? '[]' : ''} ${n}` : n;
    return `  /** ${commentText(`${what}, described early as ${opts.bind[n]?.text}`)} */\n  readonly ${jsString(n)}: ${p ? formalType(p.ty, p.isArray) : 'number'};`;
  });
  return [
    `// ${commentText(`Types of ${name}.stub.mjs: generated by \`scf stage\`; do not edit.`)}`,
    "import type { Fun, LatticeVal, Specialized, StageManifest } from 'scf/runtime';",
    '',
    '/** The late-stage values of the staged formals. */',
    fields.length > 0
      ? `export interface Values {\n${fields.join('\n')}\n}`
      : 'export type Values = Record<string, never>;',
    '',
    'export declare const MANIFEST: StageManifest;',
    'export declare const FUNCTION: string;',
    'export declare const PIPELINE: readonly string[];',
    'export declare const BIND: Readonly<Record<string, string>>;',
    '/** The kernel function, parsed at build time. */',
    'export declare const FUN: Fun;',
    '/** The lattice values of the formals for these late-stage values. */',
    'export declare function formalsOf(values: Values): LatticeVal[];',
    '/** The staged pipeline; throws `InputNotAdmitted` for inputs outside the early description. */',
    'export declare function stagedPipeline(formals: readonly LatticeVal[]): Fun;',
    '/** The unstaged pipeline (the current optimizers) on the same function. */',
    'export declare function unstagedPipeline(formals: readonly LatticeVal[]): Fun;',
    '/** Why the staged code may not run (its optimizers changed since staging), or undefined. */',
    'export declare function staleness(): string | undefined;',
    '/** Optimizes the function for the late-stage values of its staged formals. */',
    'export declare function specialize(values: Values, warn?: (message: string) => void): Specialized;',
    '',
  ].join('\n');
}

function stubSource(
  stages: readonly PipelineStage[],
  name: string,
  stems: readonly string[],
  manifest: StageManifest,
  opts: WriteOptions,
): string {
  const passes = stages.map((s) => s.pass.name);
  const lines: string[] = [];
  const formals =
    Object.entries(manifest.bind)
      .map(([k, v]) => `${k} = ${v}`)
      .join(', ') || 'none';
  lines.push(
    '/**',
    ` * ${commentText(`Run-time interface to the staged pipeline for ${name} (SCF Fig. 5): generated by \`scf stage\`; do not edit.`)}`,
    ` * ${commentText(`Pipeline: ${passes.join(' → ')}. Staged formals: ${formals}.`, 1000)}`,
    ' * `specialize(values)` gives the late-stage values of the staged formals and returns the optimized',
    ' * function; inputs outside the early description, or a stub staged from optimizers that have',
    ' * changed since, run the unstaged pipeline (with a warning).',
    ' */',
  );
  lines.push(
    `import { loadStagedModules, makeStub } from ${jsString(RUNTIME_SPECIFIER)};`,
    '',
    `export const MANIFEST = ${jsData(manifest)};`,
    `export const FUNCTION = ${jsString(opts.fun.name)};`,
    `export const PIPELINE = ${jsData(passes)};`,
    'export const BIND = MANIFEST.bind;',
    '',
    '/** The kernel function, parsed at build time. */',
    `export const FUN = JSON.parse(${jsString(JSON.stringify(opts.fun))});`,
    '',
    '// Each module is read and checked against MANIFEST.modules before it is imported.',
    'const staged = await loadStagedModules(MANIFEST, import.meta.url, [',
    ...stems.map((stem) => `  () => import(${jsString(`./${stem}.mjs`)}),`),
    ']);',
    'const stub = makeStub({ manifest: MANIFEST, fun: FUN, staged, url: import.meta.url });',
    '',
    'export const formalsOf = stub.formalsOf;',
    'export const stagedPipeline = stub.stagedPipeline;',
    'export const unstagedPipeline = stub.unstagedPipeline;',
    'export const staleness = stub.staleness;',
    'export const specialize = stub.specialize;',
    '',
  );
  return lines.join('\n');
}
