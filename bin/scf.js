#!/usr/bin/env node
// The `scf` command: registers tsx's TypeScript loader, then runs the CLI written in TypeScript.
import { register } from 'tsx/esm/api';

register();
const { main, mustExit } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2), {
  out: (s) => process.stdout.write(`${s}\n`),
  err: (s) => process.stderr.write(`${s}\n`),
});
if (mustExit()) process.exit();
