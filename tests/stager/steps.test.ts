/**
 * The stager's steps as records (stager/stage-program.ts): `stage` runs partial evaluation, then
 * the steps it is given in order; `DEFAULT_STEPS` are DAE, merging equal functions and outlining
 * parts of large ones; under `SCF_PASS_DEBUG=1` a step that breaks the Core program is named.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { fromConcrete } from '../../src/abstract-values/index.js';
import { compileFile, interpret, type CoreProgram } from '../../src/scf-lang/index.js';
import { DEFAULT_STEPS, daeStep, type StageStep, stage } from '../../src/stager/index.js';

const SRC = `
export function twice(x: number, k: number): number { return step(step(x, k), k); }
function step(x: number, k: number): number {
  const unused = x * 7;
  return k > 0 ? x + k : x - 1;
}
`;

function compile(src: string): CoreProgram {
  const r = compileFile('/virtual/m.ts', { cwd: '/virtual', readFile: () => src });
  if (!r.program) throw new Error(r.diagnostics.map((d) => d.message).join('\n'));
  return r.program;
}

const program = compile(SRC);
const entry = 'm.twice';
const input = [fromConcrete(5, new Map()), fromConcrete(3, new Map())];

afterEach(() => {
  delete process.env.SCF_PASS_DEBUG;
});

describe('stage(program, entry, input, opts, steps)', () => {
  it('runs the default steps (dae, minimize, outline) after partial evaluation', () => {
    expect(DEFAULT_STEPS.map((s) => s.name)).toEqual(['dae', 'minimize', 'outline']);
    const r = stage(program, entry, input);
    expect(r.sizes.staged).toBeLessThanOrEqual(r.sizes.residual);
    expect(interpret(r.residual, r.entry, [5, 3]).value).toBe(11);
  });

  it('runs exactly the steps it is given: none leaves the residual program as PE made it', () => {
    const none = stage(program, entry, input, {}, []);
    expect(none.sizes.staged).toBe(none.sizes.residual);
    const dae = stage(program, entry, input, {}, [daeStep]);
    expect(dae.dae.rounds).toBeGreaterThan(0);
    expect(none.dae.rounds).toBe(0);
  });

  it('a step of ones own: its result is what stage returns, its comments kept', () => {
    const mark: StageStep = {
      name: 'mark',
      run: (s) => ({ ...s, comments: new Map([...s.comments, [s.entry, 'marked']]) }),
    };
    const r = stage(program, entry, input, {}, [...DEFAULT_STEPS, mark]);
    expect(r.comments.get(r.entry)).toBe('marked');
  });

  it('under SCF_PASS_DEBUG=1, a step that breaks the Core program is named', () => {
    const breaks: StageStep = {
      name: 'breaks',
      run: (s) => {
        const funs = new Map(s.program.funs);
        const f = funs.get(s.entry);
        if (f === undefined) throw new Error('no entry');
        funs.set(s.entry, { ...f, body: { ...f.body, kind: 'var', name: 'nowhere' } as never });
        return { ...s, program: { ...s.program, funs } };
      },
    };
    expect(() => stage(program, entry, input, {}, [breaks])).not.toThrow();
    process.env.SCF_PASS_DEBUG = '1';
    expect(() => stage(program, entry, input, {}, [breaks])).toThrow(
      /stager step 'breaks' broke the program/,
    );
  });
});
