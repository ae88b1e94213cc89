/**
 * The layering of src/, checked on every import (docs/ARCHITECTURE.md,
 * "Layers"). Two rules:
 * - Direction: a folder imports only folders of its own layer or below (LAYERS, lowest first).
 *   A lower stage importing a higher one (say abstract-values → cli) fails here.
 * - Surface: an import from another folder names its `index.ts`, except the prelude (the
 *   optimizers' standard library, a package export of its own) and imports made by SCF-lang
 *   sources (the files the built-in passes are compiled from: the SCF-lang loader reads the files
 *   an optimizer imports, and an index.ts is not SCF-lang).
 * What breaks a rule is listed in EXCEPTIONS, each with its reason; an exception that does not
 * occur fails too, so the list only shrinks. The object language (the kernel, and the passes over
 * it) sits above the engine and the runtime, which take it as a parameter (runtime/language.ts):
 * neither imports anything of it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseSync } from 'oxc-parser';
import { describe, expect, it } from 'vitest';
import { allPasses, findPass, optimizerSources } from '../../src/optimizers/index.js';

const SRC = path.resolve(import.meta.dirname, '../../src');

/** Folders of src/, lowest layer first; folders of one layer may import each other. */
const LAYERS: readonly (readonly string[])[] = [
  ['common'],
  ['scf-lang'],
  ['abstract-values'],
  ['partial-eval', 'dae'],
  ['stager'],
  ['runtime'],
  ['kernel'],
  ['optimizers'],
  ['pipeline'],
  ['target'],
  ['bench'],
  ['bundler'],
  ['cli'],
];

/**
 * Package entries (package.json `exports`, `bin`) that gather the public API of several folders:
 * exempt from both rules, and, being public surfaces, importable as an index.ts is.
 */
const ENTRIES = new Set([
  'index.ts',
  'runtime.ts',
  'runtime.browser.ts',
  'stage.ts',
  'testing.ts',
  'kernel/public.ts',
]);

/** The prelude: any module may import it directly (`scf/prelude` is its own package export). */
const PRELUDE = 'scf-lang/prelude.ts';

/** `importer -> imported` (paths relative to src/) that break a rule, each with its reason. */
const EXCEPTIONS: ReadonlyMap<string, string> = new Map([
  [
    'optimizers/user.ts -> stager/emit.ts',
    "a user's optimizer is compiled to a native module by the stager's emitter alone: through stager/index.ts every command that resolves a pass, and every app that runs staged output (scf/runtime reaches the registry), would load the whole engine (partial evaluator, DAE), about 60–80 ms",
  ],
  [
    'pipeline/test-entry.ts -> abstract-values/arbitrary.ts',
    "arbitrary.ts's declarations name fast-check's types, an optional package: abstract-values/index.ts, which every entry's declarations reach, does not export it (scf/testing does)",
  ],
  [
    'cli/io.ts -> common/optional-errors.ts',
    'io.ts is loaded by `scf --help` and `scf --version`, which load no more than they need: it takes the error of a missing optional package alone, not all of common/index.ts',
  ],
]);

interface Import {
  readonly from: string;
  readonly to: string;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(p);
    return /\.ts$/.test(e.name) && !e.name.endsWith('.d.ts') ? [p] : [];
  });
}

/** Every relative import and re-export of src/ (static and dynamic), resolved to files under src/. */
function imports(): Import[] {
  const out: Import[] = [];
  for (const file of sourceFiles(SRC)) {
    const text = readFileSync(file, 'utf8');
    const { module } = parseSync(file, text, { lang: 'ts', sourceType: 'module' });
    const specs = [
      ...module.staticImports.map((i) => i.moduleRequest.value),
      ...module.staticExports.flatMap((e) =>
        e.entries.flatMap((x) => (x.moduleRequest ? [x.moduleRequest.value] : [])),
      ),
      ...module.dynamicImports.map((d) =>
        text.slice(d.moduleRequest.start, d.moduleRequest.end).replace(/^['"`]|['"`]$/g, ''),
      ),
    ];
    for (const spec of specs) {
      if (!spec.startsWith('.')) continue;
      const target = path.resolve(path.dirname(file), spec).replace(/\.js$/, '.ts');
      out.push({ from: path.relative(SRC, file), to: path.relative(SRC, target) });
    }
  }
  return out;
}

const folder = (p: string) => (p.includes('/') ? (p.split('/')[0] as string) : '');
const layer = (f: string) => LAYERS.findIndex((l) => l.includes(f));
const key = (i: Import) => `${i.from} -> ${i.to}`;

/** The files the built-in passes are compiled from (SCF-lang sources), relative to src/. */
function scfSources(): Set<string> {
  const out = new Set<string>();
  for (const p of allPasses) {
    for (const f of optimizerSources(findPass(p.name) as never)) out.add(path.relative(SRC, f));
  }
  return out;
}

describe('layering of src/', () => {
  const all = imports().filter((i) => folder(i.from) !== folder(i.to) && folder(i.from) !== '');
  const scf = scfSources();

  it('knows every folder of src/', () => {
    const folders = new Set(
      sourceFiles(SRC)
        .map((f) => folder(path.relative(SRC, f)))
        .filter((f) => f !== ''),
    );
    expect([...folders].filter((f) => layer(f) < 0)).toEqual([]);
  });

  it('finds the imports it checks', () => {
    // a parser change that lost them would make both rules pass vacuously
    expect(all.length).toBeGreaterThan(100);
    expect(scf).toContain('optimizers/const-prop.ts');
    expect(scf).toContain('kernel/ast.ts');
  });

  it('imports only its own layer or lower ones', () => {
    const upward = all
      .filter((i) => !ENTRIES.has(i.from) && layer(folder(i.to)) > layer(folder(i.from)))
      .map(key)
      .filter((k) => !EXCEPTIONS.has(k));
    expect(upward).toEqual([]);
  });

  it("goes through another folder's index.ts", () => {
    const deep = all
      .filter(
        (i) =>
          !ENTRIES.has(i.from) &&
          !ENTRIES.has(i.to) &&
          !scf.has(i.from) &&
          i.to !== PRELUDE &&
          path.basename(i.to) !== 'index.ts',
      )
      .map(key)
      .filter((k) => !EXCEPTIONS.has(k));
    expect([...new Set(deep)].sort()).toEqual([]);
  });

  it('puts the kernel above the engine and the runtime', () => {
    const below = ['scf-lang', 'abstract-values', 'partial-eval', 'dae', 'stager', 'runtime'];
    for (const f of below) expect(layer(f)).toBeLessThan(layer('kernel'));
    const kernelSide = new Set(['kernel', 'optimizers', 'pipeline', 'target']);
    const leaks = all.filter((i) => below.includes(folder(i.from)) && kernelSide.has(folder(i.to))).map(key);
    expect(leaks).toEqual([]);
  });

  it('lists no exception that does not occur', () => {
    const seen = new Set(all.map(key));
    expect([...EXCEPTIONS.keys()].filter((k) => !seen.has(k))).toEqual([]);
  });
});
