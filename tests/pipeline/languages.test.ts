/**
 * The object language as a parameter of the glue (runtime/language.ts), driven through the public
 * API (`scf`, `scf/runtime`) with both of its implementations: the kernel's and an entry config's.
 * One function exercises every member of `ObjectLanguage` on either — contract, descriptions to
 * abstract arguments, printing, late values to formals and to the staged code's Core input,
 * hashing, freezing, output checks, refusals — and the generic pieces run on a language that is
 * not the kernel: `stagePipeline` stages a writer's own pass over the writer's own types (its
 * subject described through the entry's language), and `makePipelineStub` runs a pipeline over
 * them, staged and unstaged.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  type AbsValue,
  compileFile,
  type DescribeTables,
  entryLanguage,
  kernelLanguage,
  type LanguagePass,
  findPass,
  loadConfig,
  loadEntry,
  loadEntryConfig,
  loadKernelParser,
  type ObjectLanguage,
  PassOutputError,
  printAbs,
  scfVersion,
  stagePipeline,
} from '../../src/index.js';
import {
  ENTRY_RUNTIME,
  InputNotAdmitted,
  makePipelineStub,
  NOT_LOADED,
  type PassSource,
  type RuntimeLanguage,
  type StageManifest,
  sha256,
} from '../../src/runtime.js';
import { KERNEL_CONTRACT, optimizerProgram, type Pass } from '../../src/optimizers/index.js';
import { configKernel } from '../../src/pipeline/index.js';
import { ROOT } from '../optimizers/helpers.js';

const TMP = mkdtempSync(path.join(tmpdir(), 'scf-languages-'));
afterAll(() => rmSync(TMP, { recursive: true, force: true }));

interface Drive<S, V, F, D> {
  readonly language: ObjectLanguage<S, V, F, D>;
  readonly subject: S;
  readonly descriptions: D;
  readonly tables: DescribeTables;
  /** Late values inside the descriptions, and what refusing them at `path` should say. */
  readonly values: V;
  readonly refused: { readonly path: string; readonly says: RegExp };
}

/** Every member of the interface, on any language: what the glue relies on. */
function drive<S, V, F, D>(d: Drive<S, V, F, D>) {
  const { language: l } = d;
  const args = l.describe(d.subject, d.descriptions, d.tables);
  expect(args.length).toBeGreaterThan(0);
  const printed = args.map((a) => l.printAbstract(a));
  for (const p of printed) expect(p.length).toBeGreaterThan(0);
  const formals = l.formals(d.subject, d.values);
  const core = l.toCore(formals);
  expect(l.hash(d.subject)).toMatch(/^[0-9a-f]{64}$/);
  expect(l.hash(d.subject)).toBe(l.hash(d.subject));
  const value = { kind: 'box', inner: { kind: 'cell', n: 1 } };
  expect(l.freeze(value)).toBe(value);
  expect(Object.isFrozen(value.inner)).toBe(true);
  const refusal = l.refusal(
    { path: d.refused.path, expected: '…', message: 'input not admitted' },
    d.subject,
    {},
    d.values,
  );
  expect(refusal).toMatch(d.refused.says);
  return { args, printed, formals, core };
}

describe('the kernel as an object language', () => {
  it('describes, prints, binds, hashes, freezes, checks and refuses as the kernel stub does', async () => {
    await loadKernelParser();
    const config = loadConfig(path.join(ROOT, 'configs/table2/01-mul_add.json'));
    const { fun } = await configKernel(config, readFileSync(config.input, 'utf8'));
    const ctors = optimizerProgram(findPass('const-prop') as Pass).ctors;
    const tables = { subject: ctors, formals: ctors };
    const first = fun.params.kind === 'cons' ? fun.params.head.name : '';
    const r = drive({
      language: kernelLanguage,
      subject: fun,
      descriptions: config,
      tables,
      values: {},
      refused: { path: '$[1].head.value', says: new RegExp(`formal '${first}'`) },
    });
    expect(kernelLanguage.contract).toBe(KERNEL_CONTRACT);
    expect(kernelLanguage.name).toBe('kernel');
    // I1 and the formals; the function prints as C in Fig. 6's notation
    expect(r.args).toHaveLength(2);
    expect(r.printed[0]).toContain(fun.name);
    expect((r.core as { kind: string }).kind).toBe('cons');
    // a user's broken output is the pass's error (here one node at two places); a built-in's is
    // not checked unless asked
    const broken = { ...fun, body: { kind: 'seq', first: fun.body, second: fun.body, lbl: 1e6 } } as never;
    expect(() => kernelLanguage.checkOutput({ name: 'mine', builtin: false }, broken)).toThrow(
      PassOutputError,
    );
    expect(() => kernelLanguage.checkOutput({ name: 'dae', builtin: true }, broken)).not.toThrow();
  }, 60_000);
});

describe("an entry config's types as an object language", () => {
  it('describes each parameter, prints, counts the arguments, refuses by argument', () => {
    const loaded = loadEntry(loadEntryConfig(path.join(ROOT, 'examples/own-ir/interp.json')));
    const subject = { entry: loaded.config.entry, params: loaded.signature.params.map((p) => p.name) };
    const tables = { subject: loaded.program.ctors, formals: loaded.program.ctors };
    // the language of the entry's types (what loadEntry made, `loaded.language`)
    const language = entryLanguage(
      loaded.values,
      loaded.signature.params.map((p) => p.type),
    );
    const r = drive({
      language,
      subject,
      descriptions: loaded.config.bind,
      tables,
      values: [{ kind: 'nil' }, 3],
      refused: { path: '$[0].head.kind', says: /^argument 'program' is outside its early description/ },
    });
    expect(loaded.language.contract).toBeUndefined();
    expect(loaded.language.name).toBe('entry');
    // what staging used: one abstract argument per parameter, the late one unknown
    expect(r.args.map((a) => printAbs(a))).toEqual(loaded.inputs.map((a) => printAbs(a)));
    expect(r.printed[1]).toBe(printAbs(loaded.inputs[1] as AbsValue));
    // the arguments are the formals and the staged code's input, unchanged
    expect(r.formals).toEqual([{ kind: 'nil' }, 3]);
    expect(r.core).toEqual([{ kind: 'nil' }, 3]);
    expect(() => loaded.language.formals(subject, [1])).toThrow(
      /takes 2 argument\(s\) \(program, input\), not 1/,
    );
    // the entry's output is the writer's: nothing to check
    expect(() => loaded.language.checkOutput({ name: 'run', builtin: false }, 'anything')).not.toThrow();
  }, 60_000);
});

/** A writer's own IR and a pass over it: `optimize` drops the `nop`s of a program. */
const OPS = `import type { List } from 'scf/prelude';

export type Op = { readonly kind: 'inc'; readonly by: number } | { readonly kind: 'nop' };

export interface Prog {
  readonly kind: 'prog';
  readonly ops: List<Op>;
}

function clean(ops: List<Op>): List<Op> {
  if (ops.kind === 'nil') return ops;
  const rest = clean(ops.tail);
  if (ops.head.kind === 'nop') return rest;
  return { kind: 'cons', head: ops.head, tail: rest };
}

export function optimize(p: Prog): Prog {
  return { kind: 'prog', ops: clean(p.ops) };
}
`;

interface Op {
  readonly kind: 'inc' | 'nop';
  readonly by?: number;
}
type OpList = { readonly kind: 'nil' } | { readonly kind: 'cons'; readonly head: Op; readonly tail: OpList };
interface Prog {
  readonly kind: 'prog';
  readonly ops: OpList;
}

const list = (xs: readonly Op[]): OpList =>
  xs.reduceRight((tail: OpList, head): OpList => ({ kind: 'cons', head, tail }), { kind: 'nil' });
const clean = (l: OpList): OpList =>
  l.kind === 'nil'
    ? l
    : l.head.kind === 'nop'
      ? clean(l.tail)
      : { kind: 'cons', head: l.head, tail: clean(l.tail) };

describe('the generic glue over a language that is not the kernel', () => {
  const file = path.join(TMP, 'ops.ts');
  writeFileSync(file, OPS);
  const compiled = compileFile(file);
  const entry = compiled.entries.get('optimize') as string;
  const pass: LanguagePass<Prog, never> = {
    name: 'clean',
    description: 'drops nops',
    file,
    entry,
    takesFormals: false,
    builtin: false,
    run: (p) => ({ kind: 'prog', ops: clean(p.ops) }),
  };

  it("stagePipeline stages a writer's pass over the writer's types, its subject described by the entry's language", () => {
    expect(compiled.program).not.toBeNull();
    // the pass's own optimize as an entry: its bind describes the subject, holes included
    const config = path.join(TMP, 'ops.json');
    writeFileSync(
      config,
      JSON.stringify({
        entry: './ops.ts#optimize',
        bind: {
          p: { kind: 'prog', ops: [{ kind: 'inc', by: "'Int" }, { kind: 'nop' }, { kind: 'inc', by: 2 }] },
        },
      }),
    );
    const loaded = loadEntry(loadEntryConfig(config));
    const subject = loaded.inputs[0] as AbsValue;
    const stages = stagePipeline<Prog, never>(subject, subject, ['clean'], {
      findPass: (name) => (name === 'clean' ? pass : undefined),
    });
    expect(stages).toHaveLength(1);
    const out = loaded.language.printAbstract(stages[0]?.result.output as AbsValue);
    // the nop is gone at staging time; the late increment stays a hole
    expect(out).not.toContain('nop');
    expect(out).toContain("'Int");
    expect(out).toContain('2');
  }, 60_000);

  it('makePipelineStub runs a pipeline over it: staged for admitted inputs, else unstaged with a refusal in its terms', () => {
    const language: RuntimeLanguage<Prog, readonly unknown[], never> = {
      ...ENTRY_RUNTIME,
      name: 'ops',
      hash: (p) => ENTRY_RUNTIME.hash({ entry: 'ops', params: [JSON.stringify(p)] }),
      formals: () => [],
      toCore: () => [],
      refusal: (e) => `the program is not the one staged (${e.path})`,
    };
    const source: PassSource<Prog, never> = {
      builtin: () => NOT_LOADED,
      user: () => pass,
      load: async () => {},
      loaded: () => true,
    };
    const manifest: StageManifest = {
      scf: scfVersion(),
      function: 'ops',
      bind: {},
      kernel: '',
      passes: [
        {
          name: 'clean',
          builtin: false,
          entry,
          takesFormals: false,
          files: [{ path: 'ops.ts', sha256: sha256(OPS) }],
        },
      ],
      modules: [],
    };
    const program: Prog = { kind: 'prog', ops: list([{ kind: 'inc', by: 1 }, { kind: 'nop' }]) };
    let admitted = true;
    const stub = makePipelineStub(language, source, {
      manifest,
      subject: program,
      staged: {
        ok: true,
        admit: () => {
          if (!admitted) throw new InputNotAdmitted('$[0].ops', 'the program', '…');
        },
        stages: [(p) => ({ kind: 'prog', ops: clean((p as Prog).ops) })],
      },
      url: `file://${path.join(TMP, 'ops.stub.mjs')}`,
    });
    expect(Object.isFrozen((program.ops as { head: Op }).head)).toBe(true);
    const want = { kind: 'prog', ops: list([{ kind: 'inc', by: 1 }]) };
    expect(stub.specialize([])).toEqual({ output: want, staged: true });
    admitted = false;
    const warnings: string[] = [];
    expect(stub.specialize([], (w) => warnings.push(w))).toEqual({ output: want, staged: false });
    expect(warnings).toEqual([
      'scf: ops: the program is not the one staged ($[0].ops); running the unstaged pipeline',
    ]);
  });
});
