/**
 * Whole-pipeline staging (pipeline/compose.ts, `stageWhole` and `chooseStaging` in
 * pipeline/pipeline.ts): the passes' Core programs composed into one program compute what the
 * passes compute one after the other; a whole-pipeline stub returns exactly what the unstaged
 * pipeline returns on random members of the early description (drawn from the abstract value,
 * `arbMember`, as tests/stager/staged.test.ts does), also on configs that `auto` stages pass by
 * pass; values outside the description fall back with the documented warning; the config's
 * `staging` key and `scf stage --per-pass` choose; `--explain` says between which passes the
 * composition builds the intermediate kernel, and where.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AbsValue } from '../../src/abstract-values/index.js';
import { listFromArray, listToArray, loadKernelParser } from '../../src/kernel/index.js';
import { findPass, type LatticeVal, optimizerProgram } from '../../src/optimizers/index.js';
import { composePasses } from '../../src/pipeline/compose.js';
import {
  ConfigError,
  importStub,
  type LoadedStub,
  loadConfig,
  stageConfig,
  WHOLE_ENTRY,
  writeStaged,
} from '../../src/pipeline/index.js';
import { Interpreter, validateCoreProgram } from '../../src/scf-lang/index.js';
import { arbMember } from '../../src/testing.js';
import { cli } from '../cli/helpers.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const TMP = mkdtempSync(path.join(tmpdir(), 'scf-whole-'));
const RUNS = Math.max(50, Number(process.env.SCF_STAGED_RUNS ?? 1000) / 4);
const config = (rel: string) => path.join(ROOT, 'configs', rel);

beforeAll(async () => {
  await loadKernelParser();
});
afterAll(() => rmSync(TMP, { recursive: true, force: true }));

describe('composePasses', () => {
  const passes = ['const-prop', 'copy-prop', 'dae'].map((n) => {
    const p = findPass(n);
    if (!p) throw new Error(n);
    return { name: p.name, program: optimizerProgram(p), entry: p.entry, takesFormals: p.takesFormals };
  });

  it('is valid Core, with labels unique program-wide, and computes the passes one after the other', async () => {
    const { program } = composePasses(passes);
    expect(validateCoreProgram(program)).toEqual([]);
    const staged = await stageConfig(loadConfig(config('table2/05-dotproduct-s3.json')), {
      staging: 'per-pass',
    });
    const fun = staged.fun;
    for (const values of [[], [{ kind: 'nonConst' }]]) {
      const formals = listToArray(fun.params).map(
        (_, i) => (values[i] as LatticeVal | undefined) ?? ({ kind: 'nonConst' } as LatticeVal),
      );
      const lv = listFromArray(formals);
      let f: unknown = fun;
      for (const p of passes)
        f = new Interpreter(p.program).run(p.entry, p.takesFormals ? [f, lv] : [f]).value;
      const whole = new Interpreter(program).run(WHOLE_ENTRY, [fun, lv]).value;
      expect(isDeepStrictEqual(whole, f)).toBe(true);
    }
  });
});

/** `rel` staged as one program, written and its stub imported. */
async function wholeStub(rel: string) {
  const c = loadConfig(config(rel));
  const staged = await stageConfig(c, { staging: 'whole' });
  const dir = path.join(TMP, rel.replace(/\W/g, '_'));
  const written = writeStaged(staged.stages, { outDir: dir, fun: staged.fun, bind: c.bind });
  const stub = (await importStub(written.stub)) as LoadedStub;
  return { c, staged, dir, stub };
}

// configs `auto` stages as one program (mul_add) and configs it stages pass by pass (the
// composition's partial evaluation stops on fuel there), forced whole
describe.each([
  'table2/02-mul_add-0or1.json',
  'table2/04-dotproduct.json',
  'kernel/06-blackscholes.json',
  'fusion/01-smooth.json',
])('whole-pipeline stub ≡ unstaged: %s', (rel) => {
  let w: Awaited<ReturnType<typeof wholeStub>>;
  beforeAll(async () => {
    w = await wholeStub(rel);
  }, 120_000);

  it('stages one module, whose manifest lists every pass', () => {
    expect(readdirSync(w.dir).filter((f) => f.endsWith('.staged.mjs'))).toEqual([
      `${w.staged.fun.name}.whole.staged.mjs`,
    ]);
    const manifest = JSON.parse(readFileSync(path.join(w.dir, `${w.staged.fun.name}.manifest.json`), 'utf8'));
    expect(manifest.staging).toBe('whole');
    expect(manifest.passes.map((p: { name: string }) => p.name)).toEqual(w.c.pipeline);
    expect(manifest.modules).toHaveLength(1);
  });

  it(`random members of the description (${RUNS} runs)`, () => {
    const stage = w.staged.stages[0];
    if (!stage) throw new Error('no stage');
    fc.assert(
      fc.property(arbMember(stage.input[1] as AbsValue, { ctors: stage.ctors }), (formals) => {
        const fs = listToArray(formals as never) as LatticeVal[];
        if (!isDeepStrictEqual(w.stub.stagedPipeline(fs), w.stub.unstagedPipeline(fs)))
          throw new Error('staged and unstaged results differ');
      }),
      { numRuns: RUNS },
    );
  }, 600_000);

  it('the sample runs staged, with no warning', () => {
    const sample = w.c.sample as Record<string, unknown> | undefined;
    if (!sample) return;
    const warnings: string[] = [];
    const r = w.stub.specialize(sample as never, (m) => warnings.push(m));
    expect(warnings).toEqual([]);
    expect(r.staged).toBe(true);
    expect(isDeepStrictEqual(r.fun, w.stub.unstagedPipeline(w.stub.formalsOf(sample as never)))).toBe(true);
  });
});

describe('whole-pipeline stubs and values outside the description', () => {
  it('mul_add with a ∈ {0, 1}: a = 3 runs the unstaged pipeline, with the documented warning', async () => {
    const w = await wholeStub('table2/02-mul_add-0or1.json');
    const warnings: string[] = [];
    const r = w.stub.specialize({ a: 3 } as never, (m) => warnings.push(m));
    expect(r.staged).toBe(false);
    expect(warnings).toEqual([
      expect.stringMatching(
        /^scf: mul_add: formal 'a' = 3 is outside its early description .*; running the unstaged pipeline$/,
      ),
    ]);
    expect(isDeepStrictEqual(r.fun, w.stub.unstagedPipeline(w.stub.formalsOf({ a: 3 } as never)))).toBe(true);
  });
});

describe("the config's staging and scf stage --per-pass", () => {
  it('auto stages mul_add as one program and blackscholes (whose composition stops on fuel) pass by pass', async () => {
    const mulAdd = await stageConfig(loadConfig(config('table2/01-mul_add.json')));
    expect(mulAdd.stages.map((s) => s.pass.name)).toEqual(['whole']);
    expect(mulAdd.stages[0]?.composed?.map((p) => p.name)).toEqual(['const-prop', 'copy-prop', 'dae']);
    const bs = await stageConfig(loadConfig(config('kernel/06-blackscholes.json')));
    expect(bs.stages.map((s) => s.pass.name)).toEqual(bs.config.pipeline);
  });

  it('"per-pass" stages pass by pass; a bad value and "whole" with a user\'s pass are C1014', async () => {
    const dir = mkdtempSync(path.join(TMP, 'cfg-'));
    const kernel = path.join(ROOT, 'benchmarks/inputs/mul_add.c');
    const write = (extra: Record<string, unknown>, pipeline = ['const-prop', 'copy-prop', 'dae']) => {
      const file = path.join(dir, `c${Object.keys(extra).length}-${pipeline.length}.json`);
      writeFileSync(
        file,
        JSON.stringify({ input: kernel, function: 'mul_add', pipeline, bind: { a: "'Int" }, ...extra }),
      );
      return file;
    };
    const perPass = await stageConfig(loadConfig(write({ staging: 'per-pass' })));
    expect(perPass.stages.map((s) => s.pass.name)).toEqual(['const-prop', 'copy-prop', 'dae']);
    expect(() => loadConfig(write({ staging: 'fused' }))).toThrow(/error C1014: 'staging' is "auto"/);
    const pass = path.join(dir, 'id.ts');
    writeFileSync(
      pass,
      "import type { Fun } from 'scf/kernel';\nexport function optimize(f: Fun): Fun {\n  return f;\n}\n",
    );
    const user = loadConfig(write({ staging: 'whole' }, ['const-prop', './id.ts']));
    await expect(stageConfig(user)).rejects.toThrow(ConfigError);
    await expect(stageConfig(user)).rejects.toThrow(/C1014: "whole" stages built-in passes only/);
  });

  it('scf stage writes the whole module by default and one module per pass with --per-pass', async () => {
    const whole = path.join(TMP, 'cli-whole');
    const perPass = path.join(TMP, 'cli-per-pass');
    const file = config('table2/01-mul_add.json');
    const a = await cli('stage', file, '--out', whole, '-q');
    expect(a.code, a.err).toBe(0);
    expect(a.err).toContain('[1/1] whole:');
    expect(readdirSync(whole).filter((f) => f.endsWith('.staged.mjs'))).toEqual(['mul_add.whole.staged.mjs']);
    const b = await cli('stage', file, '--out', perPass, '-q', '--per-pass');
    expect(b.code, b.err).toBe(0);
    expect(b.err).toContain('[3/3] dae:');
    expect(
      readdirSync(perPass)
        .filter((f) => f.endsWith('.staged.mjs'))
        .sort(),
    ).toEqual(['mul_add.const-prop.staged.mjs', 'mul_add.copy-prop.staged.mjs', 'mul_add.dae.staged.mjs']);
    for (const out of [whole, perPass]) {
      const stub = await importStub(path.join(out, 'mul_add.stub.mjs'));
      const warnings: string[] = [];
      const r = stub.specialize({ a: 3 } as never, (m) => warnings.push(m));
      expect(r.staged).toBe(true);
      expect(warnings).toEqual([]);
    }
  });

  it('--explain says between which passes the intermediate kernel is built, where and why', async () => {
    const r = await cli(
      'stage',
      config('table2/05-dotproduct-s3.json'),
      '--out',
      path.join(TMP, 'explain'),
      '-q',
      '--explain',
    );
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain('whole (const-prop → copy-prop → dae, staged as one program): stop widened');
    expect(r.out).toContain(
      'between the passes (each intermediate kernel is an abstract value inside the staging):',
    );
    expect(r.out).toMatch(
      /^ {4}const-prop → copy-prop: materialized where late values reach it: \d+ kernel node construction\(s\) in \d+ residual function\(s\)/m,
    );
    // each place: a residual function of the earlier pass (or the entry, where its code was
    // unfolded), how many kernel nodes it builds and what it handles
    expect(r.out).toMatch(
      /^ {6}1:kernel-walk\.relabelExpr\$\d+: \d+ × builds a kernel node; handles 1:kernel-walk\.relabelExpr\(_, _\)$/m,
    );
    // where auto tried the composition and staged pass by pass, it says why
    const perPass = await cli(
      'stage',
      config('kernel/06-blackscholes.json'),
      '--out',
      path.join(TMP, 'bs'),
      '-q',
      '--explain',
    );
    expect(perPass.code, perPass.err).toBe(0);
    expect(perPass.out).toMatch(
      /^staged pass by pass: the composition of the passes, tried as one program with a budget of 100000 visits, stopped on fuel \(.+\); so each intermediate kernel \(I2, I3, …\) is built, as its pass's output, and walked again by the next pass$/m,
    );
    const json = await cli(
      'stage',
      config('table2/05-dotproduct-s3.json'),
      '--out',
      path.join(TMP, 'json'),
      '--json',
    );
    const report = JSON.parse(json.out);
    expect(report.manifest.staging).toBe('whole');
    expect(report.passes[0].composes).toEqual(['const-prop', 'copy-prop', 'dae']);
    expect(report.passes[0].materialized.length).toBeGreaterThan(0);
  });
});
