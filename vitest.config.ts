import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const src = (f: string) => fileURLToPath(new URL(`./src/${f}`, import.meta.url));

export default defineConfig({
  resolve: {
    // the package's public entries resolve to the sources (package.json's exports name dist/),
    // also from staged modules written outside the repository
    alias: [
      { find: /^scf$/, replacement: src('index.ts') },
      { find: /^scf\/prelude$/, replacement: src('scf-lang/prelude.ts') },
      { find: /^scf\/runtime$/, replacement: src('runtime.ts') },
      { find: /^scf\/kernel$/, replacement: src('kernel/public.ts') },
      { find: /^scf\/gpu$/, replacement: src('target/index.ts') },
      { find: /^scf\/stage$/, replacement: src('stage.ts') },
      { find: /^scf\/testing$/, replacement: src('testing.ts') },
    ],
  },
  test: {
    include: ['tests/**/*.test.ts'],
    testTimeout: 60_000,
    pool: 'forks',
    setupFiles: ['tests/fc-seed.ts'],
  },
});
