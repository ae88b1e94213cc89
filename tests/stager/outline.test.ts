/**
 * Outlining parts of residual functions too large for V8 to optimize (outline.ts): every function ends
 * within the limit, the split program computes what the original computes (errors in branches
 * not taken included), free variables respect `let` scoping, the result is deterministic, and a
 * staged optimizer split finely still equals the unstaged one.
 */
import { describe, expect, it } from 'vitest';
import { listFromArray } from '../../src/kernel/index.js';
import { formalsFromBindings, optimizerProgram } from '../../src/optimizers/index.js';
import { compileFile, forEachExpr, Interpreter, type CoreProgram } from '../../src/scf-lang/index.js';
import { equal } from '../../src/scf-lang/prelude.js';
import { loadConfig, stageConfig } from '../../src/pipeline/index.js';
import { freeVars, outlineLargeFunctions, stage } from '../../src/stager/index.js';

function compile(src: string): CoreProgram {
  const r = compileFile('/virtual/m.ts', { cwd: '/virtual', readFile: () => src });
  if (!r.program) throw new Error(r.diagnostics.map((d) => d.message).join('\n'));
  return r.program;
}

function size(p: CoreProgram, name: string): number {
  let n = 0;
  const f = p.funs.get(name);
  if (f === undefined) throw new Error(`no ${name}`);
  forEachExpr(f.body, () => n++);
  return n;
}

const steps = Array.from(
  { length: 40 },
  (_, i) => `  const x${i + 1} = x${i} * 3 + ${i} - (x${i} > 50 ? 7 : y);`,
);
const SRC = `
type Pair = { kind: 'nopair' } | { kind: 'pair'; a: number; b: number };
export function small(x: number): number { return x + 1; }
export function long(x0: number, y: number): number {
${steps.join('\n')}
  return x40 % 1000;
}
export function guarded(p: Pair, x: number): number {
  if (p.kind === 'nopair') {
    const u = x + 1;
    const v = u * u + x;
    const w = v - u + 3;
    return w * 2 + small(w);
  }
  const s = p.a + p.b;
  const t = s * s - p.a;
  return t + small(t) + s;
}
`;

describe('splitting large residual functions', () => {
  const p = compile(SRC);
  const max = 40;
  const r = outlineLargeFunctions(p, max);

  it('leaves every function within the limit and small functions as they are', () => {
    expect(size(p, 'm.long')).toBeGreaterThan(4 * max);
    for (const name of r.program.funs.keys()) expect(size(r.program, name)).toBeLessThanOrEqual(max);
    expect(r.program.funs.get('m.small')).toBe(p.funs.get('m.small'));
    expect(r.parts.get('m.long')?.length).toBeGreaterThan(2);
    expect(r.parts.has('m.small')).toBe(false);
  });

  it('computes what the original computes', () => {
    const a = new Interpreter(p);
    const b = new Interpreter(r.program);
    for (const [x, y] of [
      [0, 0],
      [1, -4],
      [7, 100],
      [-3, 2],
    ]) {
      expect(b.run('m.long', [x, y]).value).toBe(a.run('m.long', [x, y]).value);
    }
    const pair = { kind: 'pair', a: 3, b: 4 };
    for (const arg of [{ kind: 'nopair' }, pair]) {
      expect(b.run('m.guarded', [arg, 5]).value).toBe(a.run('m.guarded', [arg, 5]).value);
    }
  });

  it('is a pure function of the program, and a no-op within the limit', () => {
    const again = outlineLargeFunctions(p, max);
    expect([...again.program.funs.keys()]).toEqual([...r.program.funs.keys()]);
    expect(JSON.stringify([...again.program.funs.values()])).toBe(
      JSON.stringify([...r.program.funs.values()]),
    );
    expect(outlineLargeFunctions(p, 100_000).program).toBe(p);
  });

  it('passes only the free variables, scoped by let', () => {
    const g = p.funs.get('m.guarded');
    if (g === undefined) throw new Error('no guarded');
    // the whole body reads only its parameters; a let's body reads what the let binds
    expect(freeVars(g.body).sort()).toEqual(['p', 'x']);
    let inner: string[] | undefined;
    forEachExpr(g.body, (e) => {
      if (e.kind === 'let' && e.name === 'v' && inner === undefined) inner = freeVars(e.body);
    });
    expect(inner).toEqual(expect.arrayContaining(['v', 'u']));
    expect(inner).not.toContain('w');
  });
});

describe('a staged optimizer split finely', () => {
  it('still equals the unstaged one', async () => {
    const staged = await stageConfig(loadConfig('configs/table2/04-dotproduct.json'));
    const s = staged.stages[0];
    if (s === undefined) throw new Error('no stage');
    const fine = stage(optimizerProgram(s.pass), s.pass.entry, s.input, {
      pe: { k: 2, ...staged.config.pe },
      maxFunNodes: 60,
    });
    for (const name of fine.residual.funs.keys()) expect(size(fine.residual, name)).toBeLessThanOrEqual(60);
    expect(fine.residual.funs.size).toBeGreaterThan(s.result.residual.funs.size);
    const unstaged = new Interpreter(optimizerProgram(s.pass));
    const residual = new Interpreter(fine.residual);
    for (const s2 of [0, 1, 3, 8]) {
      const formals = listFromArray(formalsFromBindings(staged.fun, { ...staged.config.sample, s: s2 }));
      const u = unstaged.run(s.pass.entry, [staged.fun, formals]);
      const v = residual.run(fine.entry, [staged.fun, formals]);
      expect(equal(v.value, u.value)).toBe(true);
    }
  }, 60_000);
});
