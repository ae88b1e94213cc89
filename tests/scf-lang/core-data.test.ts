/**
 * Core programs as data (scf-lang/core-data.ts): each built-in pass's program decoded from
 * programs.generated.ts — what a page stages with (optimizers/programs.browser.ts) — is the one the
 * front end compiles from its sources, field for field, key order and -0 included, and the twin
 * names the same sources; the values JSON cannot hold survive the round trip, and what the format
 * cannot carry is refused where the data is made.
 */
import { describe, expect, it } from 'vitest';
import * as browser from '../../src/optimizers/programs.browser.js';
import {
  allPasses,
  builtinSources,
  constPropFiniteMath,
  optimizerProgram,
  optimizerSources,
} from '../../src/optimizers/index.js';
import { type CoreProgram, decodeProgram, encodePrograms } from '../../src/scf-lang/index.js';

/** The program's functions and constructors as JSON: key order shows, -0 does not (checked apart). */
const text = (p: CoreProgram) => JSON.stringify([[...p.funs], [...p.ctors]]);

describe('Core programs as data', () => {
  it.each([...allPasses, constPropFiniteMath])(
    '$name ($entry): the decoded program is the compiled one',
    (pass) => {
      const compiled = optimizerProgram(pass);
      const decoded = browser.optimizerProgram(pass);
      expect(text(decoded)).toBe(text(compiled));
      expect([...decoded.funs]).toEqual([...compiled.funs]);
      expect([...decoded.ctors]).toEqual([...compiled.ctors]);
      expect(decoded.sources.size).toBe(0);
      // node's `sourceFile` names them by absolute path here, a page's by src/…
      expect(browser.optimizerSources(pass)).toEqual(optimizerSources(pass));
      expect(browser.builtinSources(pass)).toEqual(builtinSources(pass));
    },
  );

  it('numbers JSON cannot hold, arrays and spans survive; other values are refused', () => {
    const span = { file: 'f.ts', start: 1, end: 2 };
    const lit = (value: number, label: number) => ({ kind: 'lit' as const, value, label, span });
    const body = {
      kind: 'prim' as const,
      op: 'add',
      args: [lit(-0, 1), lit(Number.NaN, 2), lit(-Infinity, 3), lit(0.1, 4)],
      label: 5,
      span,
    };
    const program = {
      funs: new Map([['m.f', { name: 'm.f', params: ['x'], body, span, exported: true }]]),
      ctors: new Map([['#2', { name: '#2', fields: ['0', '1'], repr: 'tuple' as const }]]),
      sources: new Map([['f.ts', 'text']]),
    } as unknown as CoreProgram;
    const back = decodeProgram(JSON.parse(JSON.stringify(encodePrograms({ p: program }))), 'p');
    expect([...back.funs]).toEqual([...program.funs]);
    expect([...back.ctors]).toEqual([...program.ctors]);
    const args = ((back.funs.get('m.f') as { body: unknown }).body as typeof body).args.map((a) => a.value);
    expect(Object.is(args[0], -0)).toBe(true);
    expect(args.slice(1)).toEqual([Number.NaN, -Infinity, 0.1]);
    const bad = { ...program, funs: new Map([['m.f', { ...program.funs.get('m.f'), extra: new Map() }]]) };
    expect(() => encodePrograms({ p: bad as unknown as CoreProgram })).toThrow(
      /cannot encode object at p\.m\.f\.extra/,
    );
    expect(() => decodeProgram(encodePrograms({ p: program }), 'q')).toThrow(/no program 'q'/);
  });

  it("a user's pass has no program in a page", () => {
    const user = { ...allPasses[0], name: 'mine', builtin: false } as (typeof allPasses)[number];
    expect(() => browser.optimizerProgram(user)).toThrow(browser.OptimizerError);
  });
});
