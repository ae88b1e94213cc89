#!/usr/bin/env node
// The `scf` command of the installed package: the compiled CLI under plain node (a checkout runs
// the TypeScript sources through bin/scf.js instead). Commands that walk kernels run on a thread
// with a large stack (thread.ts), which imports the compiled thread.js.
import { commandLine } from './main.js';

const thread = new URL('./thread.js', import.meta.url).href;
await commandLine(process.argv.slice(2), `import(${JSON.stringify(thread)}).then((m) => m.serveThread())`);
