/**
 * General SCF-lang programs (tests/fixtures/scf-lang/programs/<case>: a stack-machine
 * interpreter, a backtracking regex matcher, …) run the same in the three places SCF-lang code
 * runs: natively (the module imported as TypeScript), under the Core interpreter, and staged
 * (partially evaluated with the arguments `known` marks as known early, the others unknown; the
 * residual program interpreted, then emitted as a JavaScript module, imported and called).
 *
 * Each case's cases.json lists calls: the exported function, its arguments, the expected result
 * and which arguments are known when staging; `absent` names constructors the staged program
 * must no longer touch, because the values they build were known early (a top-level constant's).
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AbsValue, fromConcrete, top } from '../../src/abstract-values/index.js';
import { forEachExpr } from '../../src/scf-lang/core.js';
import { compileFile, formatDiagnostic, Interpreter } from '../../src/scf-lang/index.js';
import { equal } from '../../src/scf-lang/prelude.js';
import { emitModule, stage } from '../../src/stager/index.js';

interface Call {
  readonly fn: string;
  readonly args: readonly unknown[];
  readonly expected: unknown;
  readonly known: readonly boolean[];
  /** Constructors the staged program no longer tests, projects or builds (they were known early). */
  readonly absent?: readonly string[];
}

const ROOT = path.resolve(import.meta.dirname, '../..');
const FIXTURES = path.join(ROOT, 'tests/fixtures/scf-lang/programs');
const TMP = path.join(ROOT, 'tests/scf-lang', `.tmp-programs-${process.pid}`);
const IMPORTS = {
  prelude: path.relative(TMP, path.join(ROOT, 'src/scf-lang/prelude.ts')).split(path.sep).join('/'),
  runtime: path.relative(TMP, path.join(ROOT, 'src/scf-lang/staged-helpers.ts')).split(path.sep).join('/'),
};
let fileNo = 0;

beforeAll(() => {
  mkdirSync(TMP, { recursive: true });
});
afterAll(() => {
  rmSync(TMP, { recursive: true, force: true });
});

/** `expected` as the program computes it: JSON has no NaN, so the string "NaN" stands for it. */
function value(x: unknown): unknown {
  return x === 'NaN' ? Number.NaN : x;
}

for (const name of readdirSync(FIXTURES).sort()) {
  describe(name, () => {
    const file = path.join(FIXTURES, name, 'input.ts');
    const calls = JSON.parse(readFileSync(path.join(FIXTURES, name, 'cases.json'), 'utf8')) as Call[];
    const compiled = compileFile(file, { cwd: ROOT });
    const program = compiled.program;

    it('compiles with no diagnostics', () => {
      expect(compiled.diagnostics.map((d) => formatDiagnostic(d, compiled.sources))).toEqual([]);
      expect(program).not.toBeNull();
      expect(calls.length).toBeGreaterThan(0);
    });

    for (const [i, c] of calls.entries()) {
      const label = `${c.fn}(${c.args.map((a) => JSON.stringify(a)).join(', ')})`;
      it(`#${i} ${label}: native, Core and staged agree with the expected result`, async () => {
        if (program === null) throw new Error('not compiled');
        const expected = value(c.expected);
        const native = (await import(pathToFileURL(file).href)) as Record<
          string,
          (...a: unknown[]) => unknown
        >;
        expect(equal(native[c.fn]?.(...c.args), expected)).toBe(true);

        const entry = compiled.entries.get(c.fn);
        if (entry === undefined) throw new Error(`no exported '${c.fn}'`);
        expect(equal(new Interpreter(program).run(entry, c.args).value, expected)).toBe(true);

        const input: AbsValue[] = c.args.map((a, k) => (c.known[k] ? fromConcrete(a, program.ctors) : top()));
        const staged = stage(program, entry, input);
        expect(equal(new Interpreter(staged.residual).run(staged.entry, c.args).value, expected)).toBe(true);
        const touched = new Set<string>();
        for (const f of staged.residual.funs.values())
          forEachExpr(f.body, (x) => {
            if (x.kind === 'con' || x.kind === 'test' || x.kind === 'proj') touched.add(x.ctor);
          });
        for (const k of c.absent ?? []) expect(touched.has(k), `staged code touches '${k}'`).toBe(false);
        const code = emitModule(staged.residual, {
          entry: staged.entry,
          exportName: 'main',
          imports: IMPORTS,
        });
        const out = path.join(TMP, `${name}-${fileNo++}.mjs`);
        writeFileSync(out, code);
        const mod = (await import(pathToFileURL(out).href)) as { main: (...a: unknown[]) => unknown };
        expect(equal(mod.main(...c.args), expected)).toBe(true);
      });
    }
  });
}
