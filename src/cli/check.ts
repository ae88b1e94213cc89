/**
 * `scf check FILE.ts... [--core] [--labels] [--no-frame] [--json]`: checks optimizers (and the
 * modules they import) against the SCF-lang subset. Diagnostics print as
 * `FILE:LINE:COL: error SCFnnnn: message` with a code frame; `--core` prints the desugared Core
 * program; `--json` prints `{ files: [{ file, ok, diagnostics: [{ code, message, file, line, col,
 * severity }] }] }` instead.
 *
 * A module that exports `optimize` and uses the kernel AST's `Fun` is a pass: its `optimize` is
 * also checked against the kernel's pass contract (SCF3017, src/scf-lang/contract.ts, with
 * `KERNEL_CONTRACT`), as `scf opt` and
 * `scf stage` check a pass they load. Helper modules, and optimizers over another AST, are not.
 *
 * Exit status: 0 every file is in the subset; 1 some file has an error; 2 bad input — a bad flag,
 * no file, or a file that cannot be read (missing, a folder, no permission), reported before
 * anything is checked as `scf check: cannot read 'F': no such file`.
 */
import path from 'node:path';
import { clip, lineCol, nearestName, readFailure, readSourceFile, SOURCE_ROOT } from '../common/index.js';
import { KERNEL_CONTRACT } from '../optimizers/index.js';
import { compileFile, formatDiagnostic, printCoreProgram, type ScfDiagnostic } from '../scf-lang/index.js';
import { type CliIo, type CommandArgs, type CommandSpec, defineCommand, UsageError } from './io.js';

export const CHECK = {
  name: 'check',
  usage: 'scf check FILE.ts... [--core] [--labels] [--no-frame] [--json]',
  about: `Checks optimizers written in SCF-lang (a pure, first-order subset of TypeScript), and every
SCF-lang module they import. Prints diagnostics as FILE:LINE:COL: error SCFnnnn: message.`,
  flags: {
    core: { type: 'boolean', help: 'print the programs desugared to Core SCF' },
    labels: { type: 'boolean', help: "with --core, show every node's label" },
    'no-frame': { type: 'boolean', help: 'print diagnostics without code frames' },
    json: {
      type: 'boolean',
      help: `print {"files": [{"file", "ok", "diagnostics": [{"code", "message", "file",
"line", "col", "severity"}]}]} instead (line and col 1-based, null when unknown)`,
    },
  },
  notes: `A file that exports optimize and uses the kernel AST's Fun is a pass: its optimize must be
optimize(f: Fun): Fun or optimize(f: Fun, formals: List<LatticeVal>): Fun (else error SCF3017).

Exit status: 0 when every file is in the subset, 1 on any error, 2 on bad input (a bad flag,
a file that cannot be read).`,
} satisfies CommandSpec;

/** One diagnostic of `scf check --json`. */
export interface JsonDiagnostic {
  readonly code: string;
  readonly message: string;
  readonly file: string | null;
  readonly line: number | null;
  readonly col: number | null;
  readonly severity: 'error';
}

/** One file of `scf check --json`. */
export interface JsonFileResult {
  readonly file: string;
  readonly ok: boolean;
  readonly diagnostics: readonly JsonDiagnostic[];
}

export const checkCommand = defineCommand(CHECK, run);

function run({ values, positionals: files }: CommandArgs<typeof CHECK.flags>, io: CliIo): number {
  if (files.length === 0) throw new UsageError("expected FILE.ts\nRun 'scf check --help' for its options.");
  if (values.json && values.core) throw new UsageError('--core and --json cannot be combined');
  for (const file of files) assertReadable(file);

  const results: JsonFileResult[] = [];
  let errors = 0;
  for (const file of files) {
    const r = compileFile(file, { contract: KERNEL_CONTRACT });
    errors += r.diagnostics.length;
    if (values.json) {
      results.push({
        file,
        ok: r.program !== null,
        diagnostics: r.diagnostics.map((d) => jsonDiagnostic(d, r.sources)),
      });
      continue;
    }
    for (const d of r.diagnostics) io.err(formatDiagnostic(d, r.sources, !values['no-frame']));
    if (r.program === null) continue;
    if (values.core) io.out(printCoreProgram(r.program, { labels: values.labels ?? false }).trimEnd());
    else {
      // the user's modules and functions, not those of scf (the prelude, the kernel AST) they use
      const ofScf = (f: string) => {
        const rel = path.relative(SOURCE_ROOT, path.resolve(f));
        return !rel.startsWith('..') && !path.isAbsolute(rel);
      };
      const counted = ofScf(file) ? () => true : (f: string) => !ofScf(f);
      const mods = [...r.sources.keys()].filter(counted).length;
      const funs = [...r.program.funs.values()].filter((d) => counted(d.span.file)).length;
      io.out(
        `${file}: ok (${funs} function${funs === 1 ? '' : 's'} in ${mods} module${mods === 1 ? '' : 's'})`,
      );
      // a pass whose entry is misspelt checks as a module of helpers; say so before scf opt does
      const near = r.entries.has('optimize') ? undefined : nearestName('optimize', r.entries.keys());
      if (near !== undefined)
        io.err(`${file}: note: it exports '${near}', not 'optimize': as a pass it has no entry`);
    }
  }
  if (values.json) io.out(JSON.stringify({ files: results }, null, 2));
  else if (errors > 0) io.err(`${errors} error${errors === 1 ? '' : 's'}`);
  return errors > 0 ? 1 : 0;
}

/**
 * A UsageError unless `file` is a source this process may read: a regular file (not a folder, a
 * FIFO, a device), outside the system's pseudo file systems (common/source-file.ts).
 */
function assertReadable(file: string): void {
  try {
    readSourceFile(file);
  } catch (e) {
    throw new UsageError(`cannot read '${clip(file)}': ${readFailure(e)}`);
  }
}

function jsonDiagnostic(d: ScfDiagnostic, sources: ReadonlyMap<string, string>): JsonDiagnostic {
  const text = d.span === null ? undefined : sources.get(d.span.file);
  const at = d.span === null || text === undefined ? null : lineCol(text, d.span.start);
  return {
    code: d.code,
    message: d.message,
    file: d.span?.file ?? null,
    line: at?.line ?? null,
    col: at?.col ?? null,
    severity: 'error',
  };
}
