/**
 * Constant propagation's exact output, pinned: every function of the kernel programs in the
 * repository (benchmarks/inputs, tests/fixtures — the fusion programs included) under a range of bindings
 * (nothing, the configs' samples, the fixtures' and benchmarks' bindings, int formals bound to 0,
 * 1, 3, 64, 65 or 512 — all together, 512 excepted, and one at a time —, other scalars, constant
 * arrays), and random programs of the differential tests' generators (fixed seeds: scalar programs
 * with loops, combinator programs before and after fusion), each run through the registered
 * 'const-prop' pass. Each case's output function is serialized whole — labels included, numbers by
 * SameValue (-0, NaN), object keys sorted — and hashed; the golden file
 * tests/fixtures/const-prop-golden/expected.txt lists one line per case: its name, the hash, the
 * output's largest label and its printed size. It guards refactorings of const-prop.ts and
 * lattice.ts that must not change the output at all (labels of unrolled copies included).
 * A mismatch writes an ignored actual.txt beside it; UPDATE_GOLDEN=1 rewrites expected.txt;
 * SCF_GOLDEN_DUMP=DIR writes every case's output (printed C and AST) to DIR/<case index>.txt, so
 * that a dump made before a change can be diffed against one made after it.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  type Fun,
  findFun,
  listToArray,
  loadKernelParser,
  maxLabel,
  type Param,
  type Program,
  parseKernelSync,
  printFun,
} from '../../src/kernel/index.js';
import {
  type Bindings,
  type BindValue,
  findPass,
  formalsFromBindings,
  type Pass,
  runPipeline,
} from '../../src/optimizers/index.js';
import { expectGolden } from '../golden.js';
import { fusionProgram } from '../fusion/gen.js';
import { generate } from '../kernel/gen.js';
import { ROOT } from './helpers.js';

const DIR = path.join(ROOT, 'tests/fixtures/const-prop-golden');
const RANDOM_PROGRAMS = 300;
const FUSION_PROGRAMS = 100;
const LOOP_BOUNDS = [0, 1, 3, 64, 65, 512];

/** Appends a stable text of any AST value to `out`: sorted keys, numbers by SameValue (-0, NaN). */
function canonical(x: unknown, out: string[]): void {
  if (typeof x === 'number') out.push(Object.is(x, -0) ? '-0' : String(x));
  else if (typeof x !== 'object' || x === null) out.push(JSON.stringify(x));
  else {
    const o = x as Record<string, unknown>;
    out.push('{');
    for (const k of Object.keys(o).sort()) {
      // a function without callees is hashed by its own fields alone
      if (k === 'fns' && (o[k] as { kind?: string }).kind === 'nil') continue;
      out.push(k, ':');
      canonical(o[k], out);
      out.push(',');
    }
    out.push('}');
  }
}

function parse(source: string, file: string): Program | undefined {
  const r = parseKernelSync(source, file);
  return r.diagnostics.length === 0 ? r.program : undefined;
}

function rel(p: string): string {
  return path.relative(ROOT, p).split(path.sep).join('/');
}

function cFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((d) => {
      const p = path.join(dir, d.name);
      if (d.isDirectory()) return cFiles(p);
      return d.name.endsWith('.c') && d.name !== 'expected.c' ? [p] : [];
    })
    .sort();
}

interface Sample {
  readonly file: string;
  readonly fn: string;
  readonly what: string;
  readonly binds: Bindings;
}

/** Bindings written down in the repository: config samples, fixture bindings, benchmark arguments. */
function knownSamples(): Sample[] {
  const out: Sample[] = [];
  for (const sub of ['table2', 'kernel', 'fusion']) {
    const dir = path.join(ROOT, 'configs', sub);
    for (const f of readdirSync(dir).sort()) {
      const c = JSON.parse(readFileSync(path.join(dir, f), 'utf8'));
      if (c.sample === undefined) continue;
      const file = rel(path.resolve(dir, c.input));
      out.push({ file, fn: c.function, what: `config ${sub}/${f}`, binds: c.sample });
    }
  }
  const fixtures = path.join(ROOT, 'tests/fixtures/optimizers');
  for (const d of readdirSync(fixtures).sort()) {
    const c = JSON.parse(readFileSync(path.join(fixtures, d, 'bind.json'), 'utf8'));
    out.push({
      file: rel(path.join(fixtures, d, 'input.c')),
      fn: c.function,
      what: `fixture ${d}`,
      binds: c.bind,
    });
  }
  const inputs = path.join(ROOT, 'benchmarks/inputs');
  for (const f of readdirSync(inputs).filter((x) => x.endsWith('.args.json'))) {
    const args = JSON.parse(readFileSync(path.join(inputs, f), 'utf8')) as Record<string, BindValue>;
    const fn = f.slice(0, -'.args.json'.length);
    const file = rel(path.join(inputs, `${fn}.c`));
    out.push({ file, fn, what: 'benchmark args', binds: args });
    const scalars = Object.fromEntries(Object.entries(args).filter(([, v]) => !Array.isArray(v)));
    out.push({ file, fn, what: 'benchmark args, scalars only', binds: scalars });
  }
  return out;
}

function scalarOf(p: Param, v: number): BindValue {
  if (p.ty === 'bool') return v !== 0;
  return p.ty === 'float' ? v + 0.5 : v;
}

function arrayOf(p: Param, n: number): BindValue {
  const xs = Array.from({ length: n }, (_, i) => (i * 7) % 5);
  if (p.ty === 'bool') return xs.map((x) => x % 2 === 1);
  return p.ty === 'float' ? xs.map((x) => x / 4) : xs;
}

/** Generic bindings of a function's formals. */
function genericBindings(f: Fun): [string, Bindings][] {
  const params = listToArray(f.params);
  const scalars = params.filter((p) => !p.isArray);
  const ints = scalars.filter((p) => p.ty === 'int');
  const arrays = params.filter((p) => p.isArray);
  const out: [string, Bindings][] = [['nothing bound', {}]];
  for (const v of LOOP_BOUNDS) {
    // all at once: 512 would only repeat 65 (nested loops over the limit), which takes seconds
    if (ints.length > 0 && v !== 512)
      out.push([`ints=${v}`, Object.fromEntries(ints.map((p) => [p.name, v]))]);
    if (ints.length > 1) for (const p of ints) out.push([`${p.name}=${v}`, { [p.name]: v }]);
  }
  for (const p of scalars.filter((q) => q.ty !== 'int'))
    for (const v of [0, 1]) out.push([`${p.name}=${v}`, { [p.name]: scalarOf(p, v) }]);
  for (const n of [0, 3, 9]) {
    if (arrays.length > 0)
      out.push([`arrays[${n}]`, Object.fromEntries(arrays.map((p) => [p.name, arrayOf(p, n)]))]);
    if (arrays.length > 0 && scalars.length > 0)
      out.push([
        `all[${n}]`,
        Object.fromEntries(params.map((p) => [p.name, p.isArray ? arrayOf(p, n) : scalarOf(p, n)])),
      ]);
  }
  return out;
}

interface Case {
  readonly name: string;
  readonly fun: Fun;
  readonly binds: Bindings;
}

/** With SCF_GOLDEN_DUMP=DIR, every case's output is also written there (to diff two versions). */
const DUMP = process.env.SCF_GOLDEN_DUMP;

function line(pass: Pass, c: Case, i: number): string {
  const out = pass.run(c.fun, { formals: formalsFromBindings(c.fun, c.binds) });
  if (DUMP !== undefined) {
    mkdirSync(DUMP, { recursive: true });
    writeFileSync(
      path.join(DUMP, `${i}.txt`),
      `// ${c.name}\n${printFun(out)}\n${JSON.stringify(out, null, 1)}\n`,
    );
  }
  const text: string[] = [];
  canonical(out, text);
  const hash = createHash('sha256').update(text.join('')).digest('hex').slice(0, 24);
  return `${c.name}\t${hash}\tmaxLabel ${maxLabel(out)}\tchars ${printFun(out).length}`;
}

describe('const-prop golden', () => {
  beforeAll(async () => {
    await loadKernelParser();
  });

  it('gives exactly the recorded output on every kernel function and random program', () => {
    const pass = findPass('const-prop') as Pass;
    const cases: Case[] = [];
    const samples = knownSamples();
    const files = [
      ...cFiles(path.join(ROOT, 'benchmarks/inputs')),
      ...cFiles(path.join(ROOT, 'tests/fixtures')),
    ];
    let functions = 0;
    const seen = new Set<string>();
    for (const file of files) {
      const name = rel(file);
      const source = readFileSync(file, 'utf8');
      const program = parse(source, name);
      if (program === undefined) continue;
      // a fixture that copies a benchmark only adds its own bindings
      const copy = seen.has(source);
      seen.add(source);
      for (const f of listToArray(program)) {
        if (!copy) functions++;
        for (const [what, binds] of copy ? [] : genericBindings(f))
          cases.push({ name: `${name} ${f.name} ${what}`, fun: f, binds });
        for (const s of samples.filter((x) => x.file === name && x.fn === f.name))
          cases.push({ name: `${name} ${f.name} ${s.what}`, fun: f, binds: s.binds });
      }
    }
    expect(functions).toBeGreaterThan(60);

    const tapes = fc.sample(
      fc.tuple(
        fc.array(fc.nat(), { minLength: 600, maxLength: 600 }),
        fc.subarray(['x', 'y', 'u', 'v', 'a', 'b']),
      ),
      { seed: 2002, numRuns: RANDOM_PROGRAMS },
    );
    tapes.forEach(([tape, bound], k) => {
      const g = generate(tape, `p${k}_`);
      const program = parse(g.source, `random${k}.c`) as Program;
      const fun = findFun(program, g.main) as Fun;
      const params = listToArray(fun.params);
      const all = Object.fromEntries(params.map((p, i) => [p.name, g.args[i] as BindValue]));
      const some = Object.fromEntries(Object.entries(all).filter(([n]) => bound.includes(n)));
      for (const [what, binds] of [
        ['nothing bound', {}],
        ['all bound', all],
        [`bound ${bound.join(',')}`, some],
      ] as const)
        cases.push({ name: `random ${k} ${what}`, fun, binds });
    });

    const fusionPass = findPass('fusion') as Pass;
    fc.sample(fusionProgram, { seed: 2014, numRuns: FUSION_PROGRAMS }).forEach((g, k) => {
      const program = parse(g.source, `fusion${k}.c`) as Program;
      const fun = findFun(program, g.entry) as Fun;
      // without its callees, as every case here: the clones are tests/optimizers/clones.test.ts's
      const fused: Fun = { ...runPipeline(program, g.entry, [fusionPass]).fun, fns: { kind: 'nil' } };
      for (const [what, binds] of [
        ['nothing bound', {}],
        ['n=0', { n: 0 }],
        ['n=3', { n: 3 }],
      ] as const) {
        cases.push({ name: `fusion ${k} ${what}`, fun, binds });
        cases.push({ name: `fusion ${k} fused ${what}`, fun: fused, binds });
      }
    });

    const lines = cases.map((c, i) => line(pass, c, i));
    expectGolden(DIR, 'expected.txt', `${lines.join('\n')}\n`);
  });
});
