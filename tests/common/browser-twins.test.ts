/**
 * The browser twins of node-only modules (package.json's "browser" map, `X.js` → `X.browser.js`;
 * its `X.page.js` entries are the runtime bundle's page twins, written at build):
 * each map entry names a module and its twin that both exist in src/, export the same names, and
 * the twin imports no `node:` module and no module the map does not also replace with a twin of
 * its own (what a bundle for a page resolves); build-info.generated.ts is fresh (the hashes a
 * page checks a stub's manifest against) and its version is package.json's, and so is
 * programs.generated.ts (the built-in passes' Core programs a page stages with).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  BUILD_INFO_FILE,
  CORE_PROGRAMS_FILE,
  generateBuildInfo,
  generateCorePrograms,
} from '../../scripts/gen-build-info.js';
import { SCF_VERSION } from '../../src/common/index.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const PKG = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  version: string;
  browser: Record<string, string>;
};

/** `./dist/a/b.js` → `src/a/b.ts`. */
const srcOf = (dist: string) => path.join(ROOT, dist.replace(/^\.\/dist\//, 'src/').replace(/\.js$/, '.ts'));

/** A page twin (`X.page.js`) is not in src/: the runtime's bundling writes it (scripts/bundle-runtime.ts). */
const isPageTwin = ([, twin]: [string, string]) => twin.endsWith('.page.js');

describe('browser twins', () => {
  const pairs = Object.entries(PKG.browser).filter((e) => !isPageTwin(e));

  it('the page twins name modules of src/ and their own copies', () => {
    for (const [mod, twin] of Object.entries(PKG.browser).filter(isPageTwin)) {
      expect(twin).toBe(mod.replace(/\.js$/, '.page.js'));
      expect(readFileSync(srcOf(mod), 'utf8').length).toBeGreaterThan(0);
    }
  });

  it('the map names modules and twins that exist', () => {
    expect(pairs.length).toBeGreaterThan(0);
    for (const [mod, twin] of pairs) {
      expect(twin).toBe(mod.replace(/\.js$/, '.browser.js'));
      expect(readFileSync(srcOf(mod), 'utf8').length).toBeGreaterThan(0);
      expect(readFileSync(srcOf(twin), 'utf8').length).toBeGreaterThan(0);
    }
  });

  it.each(pairs)('%s and its twin export the same names', async (mod, twin) => {
    const a = await import(srcOf(mod));
    const b = await import(srcOf(twin));
    expect(Object.keys(b).sort()).toEqual(Object.keys(a).sort());
  });

  it.each(pairs)("%s's twin imports no node module, and no value of the module it replaces", (mod, twin) => {
    const text = readFileSync(srcOf(twin), 'utf8');
    expect(text).not.toMatch(/from\s+['"]node:/);
    expect(text).not.toMatch(/import\(\s*['"]node:/);
    // in a bundle the module's own name resolves to the twin: only its types may be imported
    const own = `./${path.basename(mod)}`;
    for (const m of text.matchAll(/^(import|export)(\s+type)?\b[^;]*?from\s+['"]([^'"]+)['"]/gms))
      if (m[3] === own) expect(m[2], `${twin}: ${m[0]}`).toBeDefined();
  });
});

describe('build-info.generated.ts', () => {
  it('is fresh (npm run gen:build-info after changing a shipped SCF-lang source or the version)', () => {
    expect(readFileSync(BUILD_INFO_FILE, 'utf8')).toBe(generateBuildInfo());
    expect(SCF_VERSION).toBe(PKG.version);
  });
});

describe('programs.generated.ts', () => {
  it("is fresh (npm run gen:build-info after changing a built-in optimizer's sources)", () => {
    expect(readFileSync(CORE_PROGRAMS_FILE, 'utf8')).toBe(generateCorePrograms());
  });
});
