/**
 * A user's optimizer (a pass named by path) is compiled to JavaScript by the code emitter and run
 * natively. Loading the built-in optimizers' own sources that way gives a second implementation
 * of each, which must agree with the native built-in on every benchmark kernel and binding.
 */
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { listToArray, loadKernelParser, printFun } from '../../src/kernel/index.js';
import { findPass, loadUserPass, type Pass, PassError, resolvePass } from '../../src/optimizers/index.js';
import { SOURCE_ROOT } from '../../src/common/index.js';
import { INPUTS, parseC } from './helpers.js';

await loadKernelParser();
const kernels = readdirSync(INPUTS)
  .filter((f) => f.endsWith('.c'))
  .map((f) => ({ file: f, program: parseC(readFileSync(path.join(INPUTS, f), 'utf8'), f) }));

describe("a user's pass runs natively", () => {
  for (const name of ['const-prop', 'copy-prop', 'dae', 'fusion']) {
    it(`${name} loaded from its source as a user's pass equals the built-in`, () => {
      const builtin = findPass(name) as Pass;
      const user = loadUserPass(path.join(SOURCE_ROOT, 'optimizers', `${name}.ts`));
      expect(user.builtin).toBe(false);
      expect(user.takesFormals).toBe(builtin.takesFormals);
      let compared = 0;
      for (const { program } of kernels) {
        for (const fun of listToArray(program)) {
          const bound = listToArray(fun.params).map((p) =>
            p.isArray
              ? { kind: 'constArray' as const, ty: p.ty, elems: { kind: 'nil' as const } }
              : { kind: 'const' as const, value: 3, ty: p.ty },
          );
          for (const formals of [listToArray(fun.params).map(() => ({ kind: 'nonConst' as const })), bound]) {
            expect(printFun(user.run(fun, { formals }))).toBe(printFun(builtin.run(fun, { formals })));
            compared++;
          }
        }
      }
      expect(compared).toBeGreaterThan(10);
    });
  }

  it('a path that is not a pass is a PassError naming the problem', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'scf-user-pass-'));
    expect(() => resolvePass('./nope.ts', dir)).toThrow(/nope\.ts: no such file/);
    expect(() => resolvePass('inline')).toThrow(/unknown pass 'inline' \(built-in: const-prop/);
    writeFileSync(
      path.join(dir, 'bad.ts'),
      'export function optimize(f: Fun): Fun { let x = 1; return f; }\n',
    );
    expect(() => resolvePass('./bad.ts', dir)).toThrow(PassError);
    expect(() => resolvePass('./bad.ts', dir)).toThrow(/bad\.ts:1:\d+: error SCF/);
    // a pass rebuilding a function without a field the kernel AST added: run or staged, the
    // error names the spread that copies it
    writeFileSync(
      path.join(dir, 'rebuild.ts'),
      "import type { Fun } from 'scf/kernel';\nexport function optimize(f: Fun): Fun {\n  return { kind: 'fun', name: f.name, ret: f.ret, params: f.params, locals: f.locals, body: f.body, lbl: f.lbl };\n}\n",
    );
    expect(() => resolvePass('./rebuild.ts', dir)).toThrow(
      "rebuild.ts:3:10: error SCF3006: bad constructor: kind 'fun' needs field 'fns': copy it from the input, `{ ...f }`",
    );
    writeFileSync(
      path.join(dir, 'noentry.ts'),
      "import type { Fun } from 'scf/kernel';\nexport function run(f: Fun): Fun { return f; }\n",
    );
    expect(() => resolvePass('./noentry.ts', dir)).toThrow(/exports no function 'optimize'/);
  });
});
