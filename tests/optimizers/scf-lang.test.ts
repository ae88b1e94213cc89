/**
 * The optimizers are SCF-lang: each file passes the subset checker, and running an optimizer
 * natively (TypeScript over Immutable.js) and desugared to Core on the counting interpreter gives
 * `equal` results.
 */
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { type Fun, findFun, listFromArray, loadKernelParser } from '../../src/kernel/index.js';
import { optimize as constProp } from '../../src/optimizers/const-prop.js';
import { optimize as copyProp } from '../../src/optimizers/copy-prop.js';
import { optimize as dae } from '../../src/optimizers/dae.js';
import { formalsFromBindings } from '../../src/optimizers/index.js';
import { compileFile, formatDiagnostic, Interpreter } from '../../src/scf-lang/index.js';
import { equal } from '../../src/scf-lang/prelude.js';
import { type Kernel, loadKernels, ROOT } from './helpers.js';

const FILES = ['const-prop.ts', 'copy-prop.ts', 'dae.ts', 'lattice.ts', 'kernel-walk.ts'];
const file = (f: string) => path.join(ROOT, 'src/optimizers', f);

describe('the optimizers pass the SCF-lang checker', () => {
  for (const f of FILES) {
    it(f, () => {
      const r = compileFile(file(f), { cwd: ROOT });
      expect(r.diagnostics.map((d) => formatDiagnostic(d, r.sources))).toEqual([]);
      expect(r.program).not.toBeNull();
    });
  }
});

describe('native and Core runs agree', () => {
  let kernels: Kernel[];
  const interp = new Map<string, Interpreter>();
  const core = (f: string): Interpreter => {
    let i = interp.get(f);
    if (!i) {
      const r = compileFile(file(f), { cwd: ROOT });
      if (!r.program) throw new Error(`${f} does not compile`);
      i = new Interpreter(r.program);
      interp.set(f, i);
    }
    return i;
  };
  beforeAll(async () => {
    await loadKernelParser();
    kernels = loadKernels();
  });

  const cases: [string, Record<string, number | number[]>][] = [
    ['mul_add', { a: 1 }],
    ['mul_add', { a: 3 }],
    ['dotproduct', { s: 3, v2: [0, 1, 7] }],
    ['doconvol_1d', { coef: [0, 1, 0], ccols: 3 }],
    ['doconvol', { coef: [1, 0, 1, 0, 1, 0, 1, 0, 1], crows: 3, ccols: 3 }],
    ['main_loop_f', { assoc: 1 }],
  ];
  for (const [name, binds] of cases) {
    it(`${name} ${JSON.stringify(binds)}`, () => {
      const k = kernels.find((x) => x.name === name) as Kernel;
      const f = findFun(k.program, k.fn) as Fun;
      const formals = listFromArray(formalsFromBindings(f, binds));
      const natCp = constProp(f, formals);
      const coreCp = core('const-prop.ts').run('const-prop.optimize', [f, formals]).value;
      expect(equal(coreCp, natCp)).toBe(true);
      const natCy = copyProp(natCp);
      expect(equal(core('copy-prop.ts').run('copy-prop.optimize', [natCp]).value, natCy)).toBe(true);
      const natDae = dae(natCy);
      expect(equal(core('dae.ts').run('dae.optimize', [natCy]).value, natDae)).toBe(true);
    });
  }
});
