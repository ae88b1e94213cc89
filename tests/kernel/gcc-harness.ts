/**
 * Test helper: runs kernel functions under gcc and under the reference evaluator and renders both
 * results as the same lines of text, so that they can be compared exactly.
 *
 * gcc runs with `-O0 -fwrapv -ffp-contract=off -std=c11` (FLT_EVAL_METHOD 0 on x86-64). Floats are
 * passed in and printed out as bit patterns (`%08x`), so every binary32 value, -0 and infinities
 * included, is compared bit for bit; every NaN prints as `nan` (payloads are not part of C's semantics).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type ArgValue,
  type EvalResult,
  float32Bits,
  type Fun,
  listToArray,
} from '../../src/kernel/index.js';

export interface GccCase {
  /** The function to call (defined in the C source given to `runGcc`). */
  readonly fun: Fun;
  /** Arguments in parameter order. */
  readonly args: readonly ArgValue[];
}

function floatText(x: number): string {
  if (Number.isNaN(x)) return 'nan';
  return float32Bits(x).toString(16).padStart(8, '0');
}

function cScalar(x: number | boolean, ty: string): string {
  const v = typeof x === 'boolean' ? (x ? 1 : 0) : x;
  if (ty === 'float') return `bits2f(0x${float32Bits(Math.fround(v)).toString(16)}u)`;
  if (ty === 'bool') return v !== 0 ? '1' : '0';
  return v === -2147483648 ? '(-2147483647 - 1)' : String(v);
}

/** The lines a case prints: `R value` (or `R void`), then `O name e0 e1 ...` per non-const array. */
export function expectedLines(c: GccCase, r: EvalResult): string[] {
  const res = r.result;
  if (Array.isArray(res)) throw new Error('the gcc harness covers scalar results only');
  const lines = [res === undefined ? 'R void' : `R ${c.fun.ret === 'float' ? floatText(res) : res}`];
  for (const p of listToArray(c.fun.params)) {
    if (!p.isArray || p.isConst) continue;
    const arr = r.outputs[p.name] ?? [];
    lines.push(`O ${p.name}${arr.map((x) => ` ${p.ty === 'float' ? floatText(x) : x}`).join('')}`);
  }
  return lines;
}

/** A C `main` that runs every case and prints its lines, each case introduced by `C index`. */
export function harnessMain(cases: readonly GccCase[]): string {
  const out: string[] = [
    '#include <stdio.h>',
    '#include <string.h>',
    'static float bits2f(unsigned u) { float f; memcpy(&f, &u, 4); return f; }',
    'static void pf(float f) { unsigned u; memcpy(&u, &f, 4);',
    '  if (f != f) printf(" nan"); else printf(" %08x", u); }',
    'int main(void) {',
  ];
  cases.forEach((c, k) => {
    out.push(`  { printf("C ${k}\\n");`);
    const params = listToArray(c.fun.params);
    const actuals = params.map((p, i) => {
      const a = c.args[i] as ArgValue;
      if (!p.isArray) return cScalar(a as number | boolean, p.ty);
      const xs = a as readonly (number | boolean)[];
      const cty = p.ty === 'bool' ? '_Bool' : p.ty;
      const init = xs.length ? xs.map((x) => cScalar(x, p.ty)).join(', ') : '0';
      out.push(`    ${cty} a${i}[${Math.max(1, xs.length)}] = {${init}};`);
      return `a${i}`;
    });
    const call = `${c.fun.name}(${actuals.join(', ')})`;
    if (c.fun.ret === 'void') out.push(`    ${call}; printf("R void\\n");`);
    else if (c.fun.ret === 'float') out.push(`    float r = ${call}; printf("R"); pf(r); printf("\\n");`);
    else out.push(`    int r = ${call}; printf("R %d\\n", r);`);
    params.forEach((p, i) => {
      if (!p.isArray || p.isConst) return;
      const n = (c.args[i] as readonly unknown[]).length;
      const each = p.ty === 'float' ? `pf(a${i}[j]);` : `printf(" %d", (int)a${i}[j]);`;
      out.push(`    printf("O ${p.name}"); for (int j = 0; j < ${n}; j++) { ${each} } printf("\\n");`);
    });
    out.push('  }');
  });
  out.push('  return 0;', '}');
  return out.join('\n');
}

/** Compiles `kernelSource` + `main` with gcc, runs it, and returns its output split per case. */
export function runGcc(kernelSource: string, cases: readonly GccCase[]): string[][] {
  const dir = mkdtempSync(join(tmpdir(), 'scf-gcc-'));
  try {
    const src = join(dir, 'k.c');
    const exe = join(dir, 'k');
    writeFileSync(src, `${kernelSource}\n${harnessMain(cases)}\n`);
    execFileSync('gcc', ['-O0', '-fwrapv', '-ffp-contract=off', '-std=c11', '-w', '-o', exe, src, '-lm'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const text = execFileSync(exe, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    const perCase: string[][] = [];
    for (const line of text.split('\n')) {
      if (line.startsWith('C ')) perCase.push([]);
      else if (line !== '') perCase[perCase.length - 1]?.push(line);
    }
    return perCase;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Whether gcc can be run here (the differential tests are skipped without it). */
export function haveGcc(): boolean {
  try {
    execFileSync('gcc', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
