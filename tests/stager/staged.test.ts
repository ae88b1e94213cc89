/**
 * The core property (SCF §2, DESIGN "Test oracles"): for each of the 11 configurations of SCF
 * Table 2, the fusion configurations (configs/fusion: pipelines ending in staged fusion) the kernel suite (configs/kernel) and the late-shape benchmark's own configs (configs/late: a user's pass between constant and copy propagation), the staged pipeline returns exactly what the unstaged pipeline returns, on random
 * members of the early-stage description drawn from the abstract value itself (fast-check,
 * `arbMember`); inputs outside the description are detected (`InputNotAdmitted`) and the stub
 * then runs the unstaged pipeline, so nothing is ever optimized wrongly. Each config is staged as
 * `scf stage` stages it by default: as one program where the composition of its passes converges
 * (a whole-pipeline stub, one module), else pass by pass (tests/pipeline/whole.test.ts stages the
 * others whole too).
 *
 * Results are compared with `isDeepStrictEqual` (SameValue on numbers), so a -0 folded into a 0
 * counts as a difference. Each configuration is staged in-process, written to a temporary folder and its stub imported,
 * so the code under test is the emitted TypeScript that users run. SCF_STAGED_RUNS sets the
 * number of runs per property (1,000 by default; `npm run test:nightly` runs 100,000).
 */
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AbsValue,
  base as absBase,
  con,
  conforms,
  constant,
  LIST_ARRAYS,
  union,
} from '../../src/abstract-values/index.js';
import { arbMember } from '../../src/testing.js';
import { type Fun, listToArray, loadKernelParser } from '../../src/kernel/index.js';
import type { LatticeVal } from '../../src/optimizers/index.js';
import { loadConfig, stageConfig, writeStaged } from '../../src/pipeline/index.js';
import { InputNotAdmitted } from '../../src/stager/index.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const CONFIG_DIRS = ['table2', 'fusion', 'kernel', 'late'].map((d) => path.join(ROOT, 'configs', d));
const TMP = path.join(import.meta.dirname, `.tmp-staged-${process.pid}`);
const RUNS = Number(process.env.SCF_STAGED_RUNS ?? 1000);
/** Time allowed per property: 10 minutes, or 30 ms a run for `npm run test:nightly`'s 100,000. */
const PROPERTY_TIMEOUT = Math.max(600_000, RUNS * 30);

interface Stub {
  FUN: Fun;
  formalsOf(values: Record<string, unknown>): LatticeVal[];
  stagedPipeline(formals: readonly LatticeVal[]): Fun;
  unstagedPipeline(formals: readonly LatticeVal[]): Fun;
  specialize(values: Record<string, unknown>, warn?: (m: string) => void): { fun: Fun; staged: boolean };
}

beforeAll(async () => {
  await loadKernelParser();
  mkdirSync(TMP, { recursive: true });
});
afterAll(() => rmSync(TMP, { recursive: true, force: true }));

/** Any lattice value of the right type for each formal: wider than every config's description. */
function widerFormals(fun: Fun): AbsValue {
  return LIST_ARRAYS.exactly(
    listToArray(fun.params).map((p) =>
      p.isArray
        ? union([con('nonConst', []), con('constArray', [constant(p.ty), LIST_ARRAYS.of(base(p.ty))])])
        : union([con('nonConst', []), con('const', [base(p.ty), constant(p.ty)])]),
    ),
  );
}

function base(ty: string): AbsValue {
  return ty === 'float'
    ? absBase('Float')
    : ty === 'bool'
      ? union([constant(0), constant(1)])
      : absBase('Int');
}

const files = CONFIG_DIRS.flatMap((dir) =>
  readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => path.join(dir, f)),
);

describe.each(files.map((f) => [path.relative(ROOT, f), f]))('staged ≡ unstaged: %s', (_name, file) => {
  let stub: Stub;
  let formalsDesc: AbsValue;
  let ctors: ReadonlyMap<string, { fields: readonly string[] }>;
  let fun: Fun;
  let sample: Record<string, unknown> | undefined;

  beforeAll(async () => {
    const config = loadConfig(file);
    const staged = await stageConfig(config);
    fun = staged.fun;
    sample = config.sample as Record<string, unknown> | undefined;
    const first = staged.stages[0];
    if (!first) throw new Error('no stages');
    formalsDesc = first.input[1] as AbsValue;
    ctors = first.ctors;
    const dir = path.join(TMP, path.basename(file, '.json'));
    const written = writeStaged(staged.stages, {
      outDir: dir,
      fun,
      bind: config.bind,
    });
    stub = (await import(written.stub)) as Stub;
  }, 600_000);

  it(
    `random members of the description (${RUNS} runs)`,
    () => {
      fc.assert(
        fc.property(arbMember(formalsDesc, { ctors }), (formals) => {
          const fs = listToArray(formals as never) as LatticeVal[];
          const staged = stub.stagedPipeline(fs);
          const unstaged = stub.unstagedPipeline(fs);
          if (!isDeepStrictEqual(staged, unstaged)) throw new Error('staged and unstaged results differ');
        }),
        { numRuns: RUNS },
      );
    },
    PROPERTY_TIMEOUT,
  );

  it(
    'inputs outside the description are detected, never optimized wrongly',
    () => {
      const wider = widerFormals(fun);
      let rejected = 0;
      fc.assert(
        fc.property(arbMember(wider, { ctors }), (formals) => {
          const fs = listToArray(formals as never) as LatticeVal[];
          const admitted = conforms(formals, formalsDesc, ctors);
          let staged: Fun | undefined;
          try {
            staged = stub.stagedPipeline(fs);
          } catch (e) {
            if (!(e instanceof InputNotAdmitted)) throw e;
          }
          if (staged === undefined) {
            rejected++;
            if (admitted) throw new Error('an admitted input was rejected');
          } else {
            if (!admitted) throw new Error('an input outside the description was not detected');
            if (!isDeepStrictEqual(staged, stub.unstagedPipeline(fs)))
              throw new Error('staged and unstaged results differ');
          }
        }),
        { numRuns: Math.max(100, RUNS / 5) },
      );
      expect(rejected).toBeGreaterThan(0);
    },
    PROPERTY_TIMEOUT,
  );

  it('the stub specializes the sample values with the staged pipeline', () => {
    if (!sample) return;
    const warnings: string[] = [];
    const r = stub.specialize(sample, (m) => warnings.push(m));
    expect(warnings).toEqual([]);
    expect(r.staged).toBe(true);
    expect(isDeepStrictEqual(r.fun, stub.unstagedPipeline(stub.formalsOf(sample)))).toBe(true);
  });

  it('the stub’s kernel is frozen, so admitting it once (not on every run) stays exact', () => {
    expect(isDeepStrictEqual(stub.FUN, fun)).toBe(true);
    expect(Object.isFrozen(stub.FUN) && Object.isFrozen(stub.FUN.body)).toBe(true);
    expect(() => {
      (stub.FUN as { name: string }).name = 'other';
    }).toThrow(TypeError);
    expect(() => {
      (stub.FUN.params as { kind: string }).kind = 'nil';
    }).toThrow(TypeError);
  });
});
