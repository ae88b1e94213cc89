/**
 * What every `scf` command does alike, through the CLI entry (in-process, and as the real binary
 * where the process itself matters): `--version`; `--help` of scf and of every command it lists;
 * one uniform answer to an unknown command or flag (exit 2); `scf check`'s bad input and its
 * `--json` report; and the optional packages: `--help` loads no dependency at all, `scf bench`
 * without 'vega' skips its chart with a note, a missing 'webgpu' is a one-line note or error,
 * never a stack trace, and so is a missing 'oxc-parser' or 'fast-check' for a command that needs
 * it (staging with the built-in passes needs no fast-check; tests/package/pack.test.ts stages
 * without oxc-parser too, from the built package). Packages are made to look uninstalled
 * by tests/cli/hide-packages.mjs.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BENCH } from '../../src/cli/bench.js';
import { CHECK } from '../../src/cli/check.js';
import { EVAL } from '../../src/cli/eval.js';
import type { CommandSpec } from '../../src/cli/io.js';
import { KERNEL } from '../../src/cli/kernel.js';
import { OPT } from '../../src/cli/opt.js';
import { STAGE } from '../../src/cli/stage.js';
import { TEST } from '../../src/cli/test.js';
import { cli } from './helpers.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const HIDE = path.join(ROOT, 'tests/cli/hide-packages.mjs');
const PKG = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  version: string;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
};
const GOOD = 'src/optimizers/fig3/fig3-dae.ts';
const BAD = 'tests/fixtures/scf-lang/reject/many-errors/input.ts'; // 4 errors
const MAP_MAP_REDUCE = 'tests/fixtures/fusion/map_map_reduce.c'; // float f(const float xs[])

/** `node bin/scf.js ARGS…` in the repository root, with the packages `hide` made to look uninstalled. */
function scf(args: readonly string[], hide: readonly string[] = []) {
  const r = spawnSync(
    process.execPath,
    [...(hide.length > 0 ? ['--import', HIDE] : []), 'bin/scf.js', ...args],
    {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, SCF_HIDE_PACKAGES: hide.join(',') },
    },
  );
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/** The command names `scf --help` lists. */
async function listedCommands(): Promise<string[]> {
  const help = (await cli('--help')).out;
  const section = help.slice(help.indexOf('Commands:\n'), help.indexOf('\nOptions:'));
  return [...section.matchAll(/^ {2}([a-z]+) /gm)].map((m) => m[1] as string);
}

describe('scf --version and --help', () => {
  it("--version and -V print 'scf' and package.json's version", () => {
    for (const flag of ['--version', '-V']) {
      const r = scf([flag]);
      expect(r).toEqual({ code: 0, out: `scf ${PKG.version}\n`, err: '' });
    }
  });

  it('--help and --version load no dependency: they work with every package hidden', () => {
    const deps = Object.keys({ ...PKG.dependencies, ...PKG.peerDependencies, ...PKG.optionalDependencies });
    expect(deps).toContain('oxc-parser');
    const help = scf(['--help'], deps);
    expect(help.code).toBe(0);
    expect(help.out).toMatch(/^scf — a staged compilation framework\n/);
    expect(scf(['--version'], deps).out).toBe(`scf ${PKG.version}\n`);
    // and hiding them does hide them: a command that needs them fails
    expect(scf(['check', GOOD], deps).code).not.toBe(0);
  });

  it('lists every command, and each one has a --help naming it, exit 0', async () => {
    const names = await listedCommands();
    expect(names).toEqual(['check', 'eval', 'opt', 'kernel', 'stage', 'test', 'bench']);
    for (const name of names) {
      const r = await cli(name, '--help');
      expect(r.code, name).toBe(0);
      expect(r.out, name).toMatch(new RegExp(`^Usage: scf ${name} `));
      expect(r.err, name).toBe('');
    }
  });

  it('without a command: the help on stderr, exit 2', async () => {
    const r = await cli();
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    expect(r.err).toMatch(/^scf — a staged compilation framework\n/);
  });
});

describe("each command's flags: one table for the parser, its --help and the README", () => {
  const SPECS: readonly CommandSpec[] = [CHECK, EVAL, OPT, KERNEL, STAGE, TEST, BENCH];
  const README = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const flagsIn = (text: string): string[] => [...new Set(text.match(/--[a-z][a-z-]*/g) ?? [])].sort();
  const accepted = (spec: CommandSpec): string[] =>
    Object.keys(spec.flags)
      .filter((f) => f !== 'help')
      .map((f) => `--${f}`)
      .sort();

  it('lists every command', async () => {
    expect(SPECS.map((s) => s.name).sort()).toEqual((await listedCommands()).sort());
  });

  for (const spec of [CHECK, EVAL, OPT, KERNEL, STAGE, BENCH] as CommandSpec[]) {
    it(`scf ${spec.name}: --help's options and synopsis name exactly the flags it accepts, made from the table the parser reads`, async () => {
      const help = (await cli(spec.name, '--help')).out;
      const options = help.slice(help.indexOf('\nOptions:\n'));
      const listed = [...options.matchAll(/^ {2}(?:-[a-z], | {4})(--[a-z-]+)/gm)].map((m) => m[1]);
      expect(listed.sort()).toEqual([...accepted(spec), '--help'].sort());
      expect(flagsIn(spec.usage)).toEqual(accepted(spec));
    });

    it(`scf ${spec.name}: the README's Commands table names exactly its flags`, () => {
      const rows = README.split('\n').filter((l) => l.startsWith(`| \`npx scf ${spec.name} `));
      expect(rows.length, spec.name).toBeGreaterThan(0);
      const synopses = rows.map((l) => l.split(/(?<!\\)\|/)[1] as string).join(' ');
      expect(flagsIn(synopses)).toEqual(accepted(spec));
    });
  }
});

describe('unknown commands and flags: one answer, exit 2', () => {
  it('an unknown command or top-level flag', async () => {
    expect(await cli('frobnicate')).toEqual({
      code: 2,
      out: '',
      err: "scf: unknown command 'frobnicate'\nRun 'scf --help' for the commands.",
    });
    expect(await cli('--frobnicate')).toEqual({
      code: 2,
      out: '',
      err: "scf: unknown option '--frobnicate'\nRun 'scf --help' for its options.",
    });
  });

  for (const name of ['check', 'eval', 'opt', 'kernel', 'stage', 'bench']) {
    it(`an unknown flag of scf ${name}`, async () => {
      for (const flag of ['--no-such-flag', '-Z']) {
        expect(await cli(name, 'x', flag)).toEqual({
          code: 2,
          out: '',
          err: `scf ${name}: unknown option '${flag}'\nRun 'scf ${name} --help' for its options.`,
        });
      }
    });
  }

  it('a flag without its value', async () => {
    expect(await cli('bench', '--budget')).toEqual({
      code: 2,
      out: '',
      err: "scf bench: option '--budget <value>' argument missing\nRun 'scf bench --help' for its options.",
    });
  });
});

describe('scf check: bad input and --json', () => {
  it('a file that cannot be read is bad input, exit 2, one line', async () => {
    expect(await cli('check', 'nosuch.ts')).toEqual({
      code: 2,
      out: '',
      err: "scf check: cannot read 'nosuch.ts': no such file",
    });
    expect(await cli('check', 'tests')).toEqual({
      code: 2,
      out: '',
      err: "scf check: cannot read 'tests': is a directory",
    });
    // checked before anything is: no report for the readable file either
    expect(await cli('check', '--json', GOOD, 'nosuch.ts')).toMatchObject({ code: 2, out: '' });
  });

  it('a good file: ok, no diagnostics, exit 0', async () => {
    const r = await cli('check', '--json', GOOD);
    expect(r.code).toBe(0);
    expect(r.err).toBe('');
    expect(JSON.parse(r.out)).toEqual({ files: [{ file: GOOD, ok: true, diagnostics: [] }] });
  });

  it('a bad file: every diagnostic with its code, position and severity, exit 1', async () => {
    const r = await cli('check', '--json', BAD);
    expect(r.code).toBe(1);
    expect(r.err).toBe('');
    const report = JSON.parse(r.out);
    expect(report.files).toHaveLength(1);
    expect(report.files[0]).toMatchObject({ file: BAD, ok: false });
    expect(report.files[0].diagnostics).toHaveLength(4);
    expect(report.files[0].diagnostics[0]).toEqual({
      code: 'SCF2001',
      message: "'let' declarations are not allowed: bindings are immutable, use 'const'",
      file: BAD,
      line: 2,
      col: 3,
      severity: 'error',
    });
    // the same positions the text output prints
    const text = await cli('check', '--no-frame', BAD);
    expect(text.code).toBe(1);
    for (const d of report.files[0].diagnostics)
      expect(text.err).toContain(`${d.file}:${d.line}:${d.col}: error ${d.code}: ${d.message}`);
  });

  it('several files: one entry each, exit 1 when any has an error', async () => {
    const r = await cli('check', '--json', GOOD, BAD);
    expect(r.code).toBe(1);
    const report = JSON.parse(r.out);
    expect(report.files.map((f: { file: string; ok: boolean }) => [f.file, f.ok])).toEqual([
      [GOOD, true],
      [BAD, false],
    ]);
    // and without --json, one line per good file, the errors, then their count
    const text = await cli('check', '--no-frame', GOOD, BAD);
    expect(text.code).toBe(1);
    expect(text.out).toBe(`${GOOD}: ok (9 functions in 2 modules)`);
    expect(text.err.split('\n').at(-1)).toBe('4 errors');
  });
});

describe("without the optional 'vega' and 'vega-lite' packages", () => {
  it('scf bench --chart prints its report and one line saying it skipped the chart, exit 0', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'scf-chart-'));
    try {
      const chart = path.join(dir, 'chart.svg');
      const r = scf(
        ['bench', '--json', '--config', '1', '--budget', '20', '--chart', chart],
        ['vega', 'vega-lite'],
      );
      expect(r.code).toBe(0);
      expect(JSON.parse(r.out).configs).toHaveLength(1);
      expect(r.err.split('\n').filter((l) => l.includes('chart'))).toEqual([
        "scf bench: chart skipped: install 'vega' and 'vega-lite' to draw it",
      ]);
      expect(existsSync(chart)).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});

describe("without the optional 'webgpu' package", () => {
  const run = ['kernel', MAP_MAP_REDUCE, '--function', 'f', '--emit', 'wgsl', '--run', '--args', '[[1,2,3]]'];

  it('a run falls back to the JS back end with a one-line note', () => {
    const r = scf(run, ['webgpu']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toEqual({ backend: 'js', result: 17 });
    expect(r.err).toMatch(
      /^scf kernel: note: the 'webgpu' package could not be loaded .*JS back end instead/,
    );
    expect(r.err.trimEnd().split('\n')).toHaveLength(1);
  });

  it('--backend webgpu is a one-line error, exit 2', () => {
    const r = scf([...run, '--backend', 'webgpu'], ['webgpu']);
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    expect(r.err).toMatch(
      /^scf kernel: function 'f' cannot run on WebGPU: the 'webgpu' package could not be loaded/,
    );
    expect(r.err.trimEnd().split('\n')).toHaveLength(1);
  });
});

describe("without the optional 'oxc-parser' and 'fast-check' packages", () => {
  /** What a command that needs the optional package `pkg` says, after `scf CMD: ` (its range is package.json's). */
  const missing = (pkg: string, what: string) =>
    `${what} needs the optional package '${pkg}', which is not installed: npm install ${pkg}@${PKG.peerDependencies?.[pkg]}`;

  it("scf check without 'oxc-parser' is one line naming it and the command that installs it, exit 2", () => {
    const r = scf(['check', GOOD], ['oxc-parser']);
    expect(r).toEqual({
      code: 2,
      out: '',
      err: `scf check: ${missing('oxc-parser', "compiling an SCF-lang source (a user's optimizer or entry)")}\n`,
    });
  });

  it("scf test without 'fast-check' ends in one line naming it, exit 2; scf stage does not need it", () => {
    const r = scf(['test', 'examples/own-ir/regex.json', '--runs', '5'], ['fast-check']);
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    expect(r.err.trimEnd().split('\n').at(-1)).toBe(
      `scf test: ${missing('fast-check', 'drawing random members of descriptions (scf test, testEntry, arbMember)')}`,
    );
    expect(r.err).not.toMatch(/internal error|\n\s+at /);
    const dir = mkdtempSync(path.join(tmpdir(), 'scf-no-fc-'));
    try {
      const staged = scf(['stage', 'configs/table2/01-mul_add.json', '--out', dir, '-q'], ['fast-check']);
      expect(staged.code, staged.err).toBe(0);
      expect(existsSync(path.join(dir, 'mul_add.stub.mjs'))).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
