#!/usr/bin/env node
// The `scf` command: registers tsx's TypeScript loader, then runs the CLI written in TypeScript.
import { fileURLToPath } from 'node:url';
import { register } from 'tsx/esm/api';

// the checkout's tsconfig maps scf/prelude, scf/runtime, scf/kernel to the sources (package.json's
// exports name dist/, which a checkout need not have built), whatever the working directory
register({ tsconfig: fileURLToPath(new URL('../tsconfig.json', import.meta.url)) });
const { main, mustExit } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2), {
  out: (s) => process.stdout.write(`${s}\n`),
  err: (s) => process.stderr.write(`${s}\n`),
});
if (mustExit()) process.exit();
