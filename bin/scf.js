#!/usr/bin/env node
// The `scf` command: registers tsx's TypeScript loader, then runs the CLI written in TypeScript.
// Commands that walk kernels run on a thread with a large stack (src/cli/thread.ts), which
// registers the loader again (a worker does not inherit it).
import { fileURLToPath } from 'node:url';
import { register } from 'tsx/esm/api';

// the checkout's tsconfig maps scf/prelude, scf/runtime, scf/kernel to the sources (package.json's
// exports name dist/, which a checkout need not have built), whatever the working directory
const tsconfig = fileURLToPath(new URL('../tsconfig.json', import.meta.url));
register({ tsconfig });
const { commandLine } = await import('../src/cli/main.ts');
const api = import.meta.resolve('tsx/esm/api');
const thread = new URL('../src/cli/thread.ts', import.meta.url).href;
await commandLine(
  process.argv.slice(2),
  `import(${JSON.stringify(api)}).then((t) => { t.register({ tsconfig: ${JSON.stringify(tsconfig)} }); return import(${JSON.stringify(thread)}); }).then((m) => m.serveThread())`,
);
