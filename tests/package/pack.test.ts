/**
 * scf as a user gets it: the package is packed (`npm pack`, which builds dist/), installed from
 * the tarball into a temporary app outside the repository, and used there under plain node.
 * First as installed, without its optional peer dependencies (oxc-parser, fast-check): what the
 * install weighs, the CLI and the API, the published declarations type-checked by TypeScript 7 and
 * 5 in an app with neither the DOM nor Node types, a staged Table 2 config, the example app and a
 * kernel config benchmarked and run in tiers — all with the built-in passes — and a user's pass
 * and `scf/testing` each saying in one line what to install. Then with the peers installed: a
 * user's own optimizer checked, staged and made stale, and `scf/testing`'s members drawn.
 */
import { spawnSync } from 'node:child_process';
import {
  appendFileSync,
  copyFileSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { installPacked, userEnv } from './pack-copy.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const APP = mkdtempSync(path.join(tmpdir(), 'scf-app-'));
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const PEERS = (
  JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
    peerDependencies: Record<string, string>;
  }
).peerDependencies;
/** The optional peers a user's pass and `scf/testing` need. */
const OPTIONAL = ['oxc-parser', 'fast-check'] as const;

function run(cmd: string, args: string[]): { code: number; out: string; err: string } {
  const r = spawnSync(cmd, args, { cwd: APP, env: userEnv(), encoding: 'utf8', timeout: 120_000 });
  return { code: r.status ?? -1, out: r.stdout, err: r.stderr };
}

const scf = (...args: string[]) => run(path.join(APP, 'node_modules/.bin/scf'), args);
const node = (...args: string[]) => run(process.execPath, args);

beforeAll(() => {
  installPacked(APP);
  copyFileSync(path.join(ROOT, 'benchmarks/inputs/mul_add.c'), path.join(APP, 'mul_add.c'));
  writeFileSync(
    path.join(APP, 'mul_add.json'),
    JSON.stringify({
      input: './mul_add.c',
      function: 'mul_add',
      pipeline: ['const-prop', 'copy-prop', 'dae'],
      bind: { a: "'Int" },
    }),
  );
  mkdirSync(path.join(APP, 'passes'));
  copyFileSync(path.join(ROOT, 'tests/package/fixtures/add-zero.ts'), path.join(APP, 'passes/add-zero.ts'));
  copyFileSync(path.join(ROOT, 'tests/package/fixtures/kernel.c'), path.join(APP, 'kernel.c'));
  writeFileSync(
    path.join(APP, 'add-zero.json'),
    JSON.stringify({
      input: './kernel.c',
      function: 'f',
      pipeline: ['./passes/add-zero.ts', 'dae'],
      bind: { a: '0|1|2' },
    }),
  );
}, 300_000);

/** Copies a folder of the repository into the app (what `git clone` of an example would give). */
function copyInto(from: string, to: string): void {
  cpSync(path.join(ROOT, from), path.join(APP, to), {
    recursive: true,
    filter: (f) => !/node_modules|generated/.test(path.relative(ROOT, f)),
  });
}

afterAll(() => {
  rmSync(APP, { recursive: true, force: true });
});

/** A module of the app that loads a stub and prints `specialize`'s result per value of `a`. */
function runStub(stub: string, values: number[]): { staged: boolean; fun: string }[] {
  const file = path.join(APP, `run-${path.basename(stub)}-${values.join('_')}.mjs`);
  writeFileSync(
    file,
    [
      `import { specialize } from ${JSON.stringify(stub)};`,
      "import { printFun } from 'scf';",
      `const out = ${JSON.stringify(values)}.map((a) => specialize({ a }, (m) => console.error(m)));`,
      'console.log(JSON.stringify(out.map((r) => ({ staged: r.staged, fun: printFun(r.fun) }))));',
    ].join('\n'),
  );
  const r = node(file);
  expect(r.err.includes('Error'), r.err).toBe(false);
  expect(r.code, r.err).toBe(0);
  return JSON.parse(r.out);
}

describe('the packed package, installed in an app without its optional peers', () => {
  it('runs the CLI and the API under plain node', () => {
    const v = scf('--version');
    expect(v.code).toBe(0);
    expect(v.out.trim()).toMatch(/^scf \d+\.\d+\.\d+/);
    const api = node(
      '--input-type=module',
      '-e',
      "const m = await import('scf'); const k = await import('scf/kernel'); const p = await import('scf/prelude'); const r = await import('scf/runtime'); console.log(typeof m.stageConfig, typeof m.runPipeline, typeof k.mkSeq, typeof p.mapInsert, typeof r.makeStub);",
    );
    expect(api.err).toBe('');
    expect(api.out.trim()).toBe('function function function function function');
  });

  it('ships the docs the README, the help and the messages point to, every relative link resolving', () => {
    const pkg = path.join(APP, 'node_modules/scf');
    const pages = [
      'README.md',
      ...readdirSync(path.join(pkg, 'docs'))
        .filter((f) => f.endsWith('.md'))
        .map((f) => `docs/${f}`),
    ];
    for (const f of ['docs/writing-an-optimizer.md', 'docs/kernel-ast.md', 'docs/config.md', 'docs/api.md'])
      expect(pages, f).toContain(f);
    const broken: string[] = [];
    for (const page of pages) {
      const text = readFileSync(path.join(pkg, page), 'utf8');
      for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = (m[1] as string).replace(/#.*$/, '');
        if (target === '' || /^[a-z]+:/.test(target)) continue;
        if (!existsSync(path.join(pkg, path.dirname(page), target))) broken.push(`${page}: ${m[1]}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('installs small: no tree-sitter package, the parser from its own copies, no optional peer', () => {
    const modules = path.join(APP, 'node_modules');
    for (const gone of ['tree-sitter-c', 'web-tree-sitter', 'node-addon-api', 'node-gyp-build', ...OPTIONAL])
      expect(existsSync(path.join(modules, gone)), gone).toBe(false);
    for (const f of ['tree-sitter.js', 'tree-sitter.wasm', 'tree-sitter-c.wasm', 'tree-sitter-c.LICENSE'])
      expect(existsSync(path.join(modules, 'scf/dist/vendor', f)), f).toBe(true);
    const parsed = node(
      '--input-type=module',
      '-e',
      "import { parseKernel } from 'scf'; const r = await parseKernel('int f(int x) { return x + 1; }'); console.log(r.diagnostics.length);",
    );
    expect(parsed.err).toBe('');
    expect(parsed.out.trim()).toBe('0');
    // the bytes of every file under node_modules (du --apparent-size), and the largest packages
    const bytes = (p: string): number => {
      const st = lstatSync(p);
      return st.isDirectory() ? readdirSync(p).reduce((n, f) => n + bytes(path.join(p, f)), 0) : st.size;
    };
    const packages = readdirSync(modules)
      .filter((f) => !f.startsWith('.'))
      .flatMap((f) => (f.startsWith('@') ? readdirSync(path.join(modules, f)).map((g) => `${f}/${g}`) : [f]))
      .map((f) => ({ f, n: bytes(path.join(modules, f)) }))
      .sort((a, b) => b.n - a.n);
    const total = bytes(modules);
    const mib = (n: number) => `${(n / 2 ** 20).toFixed(1)} MiB`;
    console.log(
      `the app's node_modules: ${mib(total)} (${packages
        .slice(0, 6)
        .map((p) => `${p.f} ${mib(p.n)}`)
        .join(', ')})`,
    );
    // at most 12 MB: the package ships only the SCF-lang sources the stager reads, and its docs
    // (0.3 MiB), and needs none of its optional peers to stage with the built-in passes; the app's
    // dependencies resolve afresh, so their patch releases may move it a little
    expect(total).toBeLessThanOrEqual(12_000_000);
  });

  it('the published declarations type-check in a strict app without the DOM or Node types, under TypeScript 7 and 5', () => {
    const dir = path.join(APP, 'types-app');
    mkdirSync(dir);
    writeFileSync(
      path.join(dir, 'app.ts'),
      [
        "import * as scf from 'scf';",
        "import * as kernel from 'scf/kernel';",
        "import * as prelude from 'scf/prelude';",
        "import * as runtime from 'scf/runtime';",
        "import * as gpuEntry from 'scf/gpu';",
        "import * as stage from 'scf/stage';",
        'export const entries = [scf, kernel, prelude, runtime, gpuEntry, stage];',
        'export async function adapter(): Promise<string> {',
        '  const gpu = await scf.GpuRuntime.open();',
        '  if (!(gpu instanceof scf.GpuRuntime)) return gpu.reason;',
        '  const label: string = gpu.device.label;',
        '  gpu.destroy();',
        "  return [gpu.adapterName, label].join(' ');",
        '}',
      ].join('\n'),
    );
    writeFileSync(
      path.join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          module: 'nodenext',
          target: 'es2022',
          lib: ['ES2022'],
          types: [],
          skipLibCheck: false,
          noEmit: true,
        },
        files: ['app.ts'],
      }),
    );
    // TypeScript 5 from the npm registry, in a folder of its own (cached under the app)
    const ts5 = path.join(APP, 'ts5');
    mkdirSync(ts5);
    writeFileSync(path.join(ts5, 'package.json'), JSON.stringify({ name: 'ts5', private: true }));
    const install = spawnSync(
      NPM,
      ['install', '--no-audit', '--no-fund', '--cache', path.join(APP, 'npm-cache'), 'typescript@5'],
      { cwd: ts5, env: userEnv(), encoding: 'utf8', timeout: 180_000 },
    );
    expect(install.status, `npm install typescript@5: ${install.stderr}`).toBe(0);
    for (const tsc of [
      path.join(ROOT, 'node_modules/typescript/bin/tsc'),
      path.join(ts5, 'node_modules/typescript/bin/tsc'),
    ]) {
      const version = run(process.execPath, [tsc, '--version']).out.trim();
      const r = run(process.execPath, [tsc, '-p', dir]);
      expect(r.out + r.err, version).toBe('');
      expect(r.code, version).toBe(0);
    }
  }, 240_000);

  it('stages a Table 2 config; its stub under plain node, bundled, and scf opt --staged equal the unstaged pipeline', async () => {
    expect(scf('stage', 'mul_add.json', '--out', 'staged', '-q').code).toBe(0);
    const values = [0, 1, 2, 3, -7];
    const unstaged = values.map((a) => scf('opt', 'mul_add.c', '--bind', `a=${a}`).out);
    const viaStub = runStub('./staged/mul_add.stub.mjs', values);
    expect(viaStub.map((r) => r.fun)).toEqual(unstaged.map((s) => s.trim()));
    expect(viaStub.every((r) => r.staged)).toBe(true);
    for (const [i, a] of values.entries())
      expect(scf('opt', 'mul_add.c', '--bind', `a=${a}`, '--staged', 'staged').out).toBe(unstaged[i]);
    // the staged folder's declarations and scf's own pass tsc --strict in the app; specialize is
    // typed by the staged formals
    writeFileSync(
      path.join(APP, 'typed.ts'),
      [
        "import { specialize } from './staged/mul_add.stub.mjs';",
        "import { type Pass, resolvePass } from 'scf';",
        "import type { Fun } from 'scf/kernel';",
        'const fun: Fun = specialize({ a: 3 }).fun;',
        "const pass: Pass = resolvePass('dae');",
        '// @ts-expect-error b is not a staged formal',
        'specialize({ b: 3 });',
        'export const used = [fun, pass];',
      ].join('\n'),
    );
    writeFileSync(
      path.join(APP, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          module: 'nodenext',
          target: 'es2022',
          noEmit: true,
          skipLibCheck: false,
          types: [],
        },
        include: ['typed.ts', 'staged/*.d.mts'],
      }),
    );
    const tsc = run(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', APP]);
    expect(tsc.out + tsc.err).toBe('');
    expect(tsc.code).toBe(0);
    // a bundler takes the folder as it is (plain ES modules, relative imports): esbuild bundles
    // the app's module with the stub and the staged modules into one file, scf left installed
    const { build } = await import('esbuild');
    writeFileSync(
      path.join(APP, 'bundle-entry.mjs'),
      "import { specialize } from './staged/mul_add.stub.mjs';\nimport { printFun } from 'scf';\nconsole.log(printFun(specialize({ a: 1 }).fun));\n",
    );
    await build({
      entryPoints: [path.join(APP, 'bundle-entry.mjs')],
      bundle: true,
      platform: 'node',
      format: 'esm',
      packages: 'external',
      outfile: path.join(APP, 'bundled/app.mjs'),
      logLevel: 'silent',
    });
    const bundled = node(path.join(APP, 'bundled/app.mjs'));
    expect(bundled.code, bundled.err).toBe(0);
    expect(bundled.out).toBe(unstaged[1]);
    // inlined, with no module file to read, each module's own STAGE_HASH is checked: staged
    expect(bundled.err).not.toMatch(/unstaged pipeline/);
    // the folder still works after a move (it imports only scf/runtime and itself)
    mkdirSync(path.join(APP, 'moved/deeper'), { recursive: true });
    for (const f of readdirSync(path.join(APP, 'staged')))
      copyFileSync(path.join(APP, 'staged', f), path.join(APP, 'moved/deeper', f));
    expect(runStub('./moved/deeper/mul_add.stub.mjs', values).map((r) => r.fun)).toEqual(
      viaStub.map((r) => r.fun),
    );
    // a staged module edited in the app never runs: the stub warns and runs the unstaged pipeline
    cpSync(path.join(APP, 'staged'), path.join(APP, 'tampered'), { recursive: true });
    const module = path.join(APP, 'tampered/mul_add.whole.staged.mjs');
    writeFileSync(module, `globalThis.TAMPERED = 1;\n${readFileSync(module, 'utf8')}`);
    const tampered = node(
      '--input-type=module',
      '-e',
      "import { specialize } from './tampered/mul_add.stub.mjs'; const r = specialize({ a: 1 }); console.log(JSON.stringify({ staged: r.staged, ran: globalThis.TAMPERED ?? 0 }));",
    );
    expect(tampered.code, tampered.err).toBe(0);
    expect(JSON.parse(tampered.out)).toEqual({ staged: false, ran: 0 });
    expect(tampered.err).toMatch(/mul_add\.whole\.staged\.mjs is not the one staged with this stub/);
  });

  it("a stub's import loads scf's bundled runtime alone and reads no file; its first call reads and checks", () => {
    // a load hook (registered by the script, so the stub does not see a loader flag) logs every
    // module the import loads; fs's reads are counted in the app's own thread
    writeFileSync(
      path.join(APP, 'log-loads.mjs'),
      [
        "import { appendFileSync } from 'node:fs';",
        'let log;',
        'export function initialize(data) { log = data.log; }',
        'export async function load(url, context, next) { appendFileSync(log, url + "\\n"); return next(url, context); }',
      ].join('\n'),
    );
    const log = path.join(APP, 'loads.txt');
    writeFileSync(log, '');
    writeFileSync(
      path.join(APP, 'cold-import.mjs'),
      [
        "import fs from 'node:fs';",
        "import { register, syncBuiltinESMExports } from 'node:module';",
        `register('./log-loads.mjs', import.meta.url, { data: { log: ${JSON.stringify(log)} } });`,
        'const reads = [];',
        "for (const k of ['readFileSync', 'openSync', 'readFile', 'open']) {",
        '  const f = fs[k];',
        '  fs[k] = function (p, ...rest) { reads.push(String(p)); return f.call(this, p, ...rest); };',
        '}',
        'syncBuiltinESMExports();',
        "const stub = await import('./staged/mul_add.stub.mjs');",
        'const atImport = [...reads];',
        'const r = stub.specialize({ a: 3 });',
        'console.log(JSON.stringify({ atImport, atCall: reads.slice(atImport.length), staged: r.staged }));',
      ].join('\n'),
    );
    const r = node(path.join(APP, 'cold-import.mjs'));
    expect(r.code, r.err).toBe(0);
    const got = JSON.parse(r.out) as { atImport: string[]; atCall: string[]; staged: boolean };
    expect(got.atImport).toEqual([]);
    expect(got.staged).toBe(true);
    // the first call read the staged modules (to check them before they run) and the sources
    expect(got.atCall.filter((f) => f.endsWith('.staged.mjs')).length).toBeGreaterThan(0);
    expect(got.atCall.some((f) => f.endsWith('optimizers/const-prop.ts'))).toBe(true);
    const scfLoads = readFileSync(log, 'utf8')
      .split('\n')
      .filter((u) => u.includes('/node_modules/'))
      .map((u) => u.slice(u.indexOf('/node_modules/') + '/node_modules/'.length));
    expect(scfLoads).toEqual(['scf/dist/runtime.js']);
    expect(readFileSync(log, 'utf8')).not.toMatch(/staged\.mjs/);
  });

  it('the example app stages with the API at build time and runs the specialized kernel', () => {
    copyInto('examples/dot-app', 'dot');
    const build = node(path.join(APP, 'dot/scripts/stage.mjs'));
    expect(build.code, build.err).toBe(0);
    const start = node(path.join(APP, 'dot/src/main.mjs'), '[2,0,5]');
    expect(start.code, start.err).toBe(0);
    expect(start.out).toContain('// specialized by the staged pipeline');
    expect(start.out).toContain('int dotproduct(');
    // v1 = [1, 2, 3]: 1*2 + 2*0 + 3*5
    expect(start.out.trim().split('\n').at(-1)).toBe(JSON.stringify({ v1: [1, 2, 3], result: 17 }));
  });

  it('a kernel config with late taps: scf bench --kernel, and tiered kernels from its staged stub', () => {
    copyFileSync(path.join(ROOT, 'benchmarks/inputs/kernel/curve.c'), path.join(APP, 'curve.c'));
    writeFileSync(
      path.join(APP, 'curve.json'),
      JSON.stringify({
        input: './curve.c',
        function: 'curve',
        pipeline: ['const-prop', 'copy-prop', 'dae', 'fusion'],
        bind: { cs: "'Array", deg: '0|1|2|3' },
        sample: { cs: [0.5, -1, 0.25], deg: 2 },
        args: { xs: { random: 256, seed: 1 } },
      }),
    );
    const bench = scf('bench', '--kernel', 'curve.json', '--json', '--backend', 'js');
    expect(bench.code, bench.err).toBe(0);
    const report = JSON.parse(bench.out);
    expect(report.backends.js.equal).toBe(true);
    expect(report.backends.js.runMs.specialized).toBeGreaterThan(0);
    expect(scf('stage', 'curve.json', '--out', 'staged-curve', '-q').code).toBe(0);
    const main = path.join(APP, 'tiers.mjs');
    writeFileSync(
      main,
      [
        "import { tieredKernels } from 'scf';",
        "import * as stub from './staged-curve/curve.stub.mjs';",
        "const kernels = await tieredKernels(stub, { backend: 'js' });",
        'const k = kernels.forValues({ cs: [0.5, -1, 0.25], deg: 2 });',
        'const xs = [0, 0.5, 1, 2];',
        'const first = await k.run({ xs });',
        'const tier = k.tier;',
        'await k.ready;',
        'const next = await k.run({ xs });',
        '// other coefficients of the same degree: the template compiled for the first ones',
        'const other = { cs: [1, 2, -0.5], deg: 2 };',
        'const made = await kernels.specializedKernel(other);',
        'const again = await made.run({ xs, ...other });',
        'console.log(JSON.stringify({ tier, now: k.tier, first: first.result, next: next.result, again: again.result }));',
      ].join('\n'),
    );
    const r = node(main);
    expect(r.code, r.err).toBe(0);
    // 0.5 - x + 0.25 x^2, and 1 + 2x - 0.5 x^2
    const expected = [0.5, 0.0625, -0.25, -0.5];
    expect(JSON.parse(r.out)).toEqual({
      tier: 'generic',
      now: 'specialized',
      first: expected,
      next: expected,
      again: [1, 1.875, 2.5, 3],
    });
  });

  it("without the optional peers, a user's pass and scf/testing say in one line what to install", () => {
    const line = (pkg: string, what: string) =>
      `${what} needs the optional package '${pkg}', which is not installed: npm install ${pkg}@${PEERS[pkg]}`;
    const compiling = line('oxc-parser', "compiling an SCF-lang source (a user's optimizer or entry)");
    const check = scf('check', 'passes/add-zero.ts');
    expect(check).toEqual({ code: 2, out: '', err: `scf check: ${compiling}\n` });
    const opt = scf('opt', 'kernel.c', '--passes', './passes/add-zero.ts,dae', '--bind', 'a=1');
    expect(opt).toEqual({ code: 2, out: '', err: `scf opt: ${compiling}\n` });
    const stage = scf('stage', 'add-zero.json', '--out', 'unstaged', '-q');
    expect(stage.code).toBe(2);
    expect(stage.err.trimEnd().split('\n').at(-1)).toBe(`scf stage: ${compiling}`);
    expect(existsSync(path.join(APP, 'unstaged'))).toBe(false);
    const drawn = node(
      '--input-type=module',
      '-e',
      "import { parseDescription } from 'scf'; import { arbMember } from 'scf/testing'; try { arbMember(parseDescription('0|1')); } catch (e) { console.log(e.message); }",
    );
    expect(drawn.err).toBe('');
    expect(drawn.out.trim()).toBe(
      line('fast-check', 'drawing random members of descriptions (scf test, testEntry, arbMember)'),
    );
  });
});

describe('the packed package, with its optional peers installed', () => {
  beforeAll(() => {
    const r = spawnSync(
      NPM,
      ['install', '--no-audit', '--no-fund', '--prefer-offline', ...OPTIONAL.map((p) => `${p}@${PEERS[p]}`)],
      { cwd: APP, env: userEnv(), encoding: 'utf8', timeout: 240_000 },
    );
    expect(r.status, `npm install ${OPTIONAL.join(' ')}: ${r.stderr}`).toBe(0);
  }, 300_000);

  it("a user's optimizer in the app is checked, run, staged, and its stub falls back when the pass changes", () => {
    const check = scf('check', 'passes/add-zero.ts');
    expect(check.code, check.err).toBe(0);
    const values = [0, 1, 2];
    const unstaged = values.map((a) =>
      scf('opt', 'kernel.c', '--passes', './passes/add-zero.ts,dae', '--bind', `a=${a}`),
    );
    for (const u of unstaged) expect(u.code, u.err).toBe(0);
    expect(unstaged[0]?.out).toContain('w = x;');
    expect(scf('stage', 'add-zero.json', '--out', 'zstaged', '-q').code).toBe(0);
    const staged = runStub('./zstaged/f.stub.mjs', values);
    expect(staged.map((r) => r.fun)).toEqual(unstaged.map((u) => u.out.trim()));
    expect(staged.every((r) => r.staged)).toBe(true);
    // after an edit the stub warns once and runs the unstaged pipeline — the current pass
    appendFileSync(path.join(APP, 'passes/add-zero.ts'), '\n// edited after staging\n');
    const file = path.join(APP, 'stale.mjs');
    writeFileSync(
      file,
      "import { specialize } from './zstaged/f.stub.mjs';\nconst r = specialize({ a: 1 });\nconsole.log(JSON.stringify({ staged: r.staged }));\n",
    );
    const r = node(file);
    expect(r.code, r.err).toBe(0);
    expect(r.err).toMatch(
      /staged from an older pipeline \(add-zero's source .*add-zero\.ts changed\); re-stage/,
    );
    expect(JSON.parse(r.out)).toEqual({ staged: false });
    const opt = scf('opt', 'kernel.c', '--bind', 'a=1', '--staged', 'zstaged');
    expect(opt.code).toBe(0);
    expect(opt.out).toBe(unstaged[1]?.out);
    // the unstaged pipeline compiles the pass: where oxc-parser is gone, specialize says so
    const oxc = path.join(APP, 'node_modules/oxc-parser');
    renameSync(oxc, `${oxc}.away`);
    try {
      writeFileSync(
        file,
        "import { specialize } from './zstaged/f.stub.mjs';\ntry { specialize({ a: 1 }, () => {}); } catch (e) { console.log(e.message); }\n",
      );
      const gone = node(file);
      expect(gone.code, gone.err).toBe(0);
      expect(gone.out.trim()).toMatch(
        /needs the optional package 'oxc-parser', which is not installed: npm install oxc-parser@\S+$/,
      );
    } finally {
      renameSync(`${oxc}.away`, oxc);
    }
  });

  it("scf/testing draws members of a description with the app's fast-check, and its declarations type-check", () => {
    const drawn = node(
      '--input-type=module',
      '-e',
      "import fc from 'fast-check'; import { parseDescription } from 'scf'; import { arbMember } from 'scf/testing'; console.log(JSON.stringify([...new Set(fc.sample(arbMember(parseDescription('0|1|7')), 50))].sort()));",
    );
    expect(drawn.err).toBe('');
    expect(drawn.out.trim()).toBe('[0,1,7]');
    const dir = path.join(APP, 'types-testing');
    mkdirSync(dir);
    writeFileSync(
      path.join(dir, 'app.ts'),
      [
        "import fc from 'fast-check';",
        "import { parseDescription } from 'scf';",
        "import { arbMember, type MemberOptions } from 'scf/testing';",
        'const opts: MemberOptions = { maxDepth: 2 };',
        "export const property = fc.property(arbMember(parseDescription('0|1'), opts), (x) => x !== 2);",
      ].join('\n'),
    );
    writeFileSync(
      path.join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          module: 'nodenext',
          target: 'es2022',
          lib: ['ES2022'],
          types: [],
          skipLibCheck: false,
          noEmit: true,
        },
        files: ['app.ts'],
      }),
    );
    const r = run(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', dir]);
    expect(r.out + r.err).toBe('');
    expect(r.code).toBe(0);
  });
});
