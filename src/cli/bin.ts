#!/usr/bin/env node
// The `scf` command of the installed package: the compiled CLI under plain node (a checkout runs
// the TypeScript sources through bin/scf.js instead).
import { main, mustExit } from './main.js';

process.exitCode = await main(process.argv.slice(2), {
  out: (s) => process.stdout.write(`${s}\n`),
  err: (s) => process.stderr.write(`${s}\n`),
});
if (mustExit()) process.exit();
