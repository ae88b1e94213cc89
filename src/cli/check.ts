/**
 * `scf check FILE.ts [--core] [--labels]`: checks an optimizer (and the modules it imports)
 * against the SCF-lang subset. Diagnostics print as `FILE:LINE:COL: error SCFnnnn: message`
 * with a code frame; exit status 1 on any error. `--core` prints the desugared Core program.
 */
import { parseArgs } from 'node:util';
import { compileFile, formatDiagnostic, printProgram } from '../scf-lang/index.js';
import type { CliIo } from './io.js';

export const CHECK_HELP = `Usage: scf check FILE.ts [--core] [--labels] [--no-frame]

Checks an optimizer written in SCF-lang (a pure, first-order subset of TypeScript), and every
SCF-lang module it imports. Prints diagnostics as FILE:LINE:COL: error SCFnnnn: message.

Options:
  --core       print the program desugared to Core SCF
  --labels     with --core, show every node's label
  --no-frame   print diagnostics without code frames
  -h, --help   show this help

Exit status: 0 when the file is in the subset, 1 on any error.`;

export function checkCommand(argv: readonly string[], io: CliIo): number {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (e) {
    io.err(`scf check: ${(e as Error).message}\n\n${CHECK_HELP}`);
    return 1;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.out(CHECK_HELP);
    return 0;
  }
  if (positionals.length !== 1) {
    io.err(`scf check: expected one FILE.ts, got ${positionals.length}\n\n${CHECK_HELP}`);
    return 1;
  }
  const file = positionals[0] as string;
  const r = compileFile(file);
  for (const d of r.diagnostics) io.err(formatDiagnostic(d, r.sources, !values['no-frame']));
  if (r.program === null) {
    const n = r.diagnostics.length;
    io.err(`${n} error${n === 1 ? '' : 's'}`);
    return 1;
  }
  if (values.core) io.out(printProgram(r.program, { labels: values.labels ?? false }).trimEnd());
  else {
    const mods = r.sources.size;
    io.out(`${file}: ok (${r.program.funs.size} functions in ${mods} module${mods === 1 ? '' : 's'})`);
  }
  return 0;
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      core: { type: 'boolean' },
      labels: { type: 'boolean' },
      'no-frame': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}
