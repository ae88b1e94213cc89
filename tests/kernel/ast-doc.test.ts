/**
 * docs/kernel-ast.md, the pass writer's reference to the kernel AST (scripts/gen-kernel-ast-doc.ts):
 * - it is fresh: generated in memory from its sources it equals the committed file (run
 *   `npm run gen:ast-doc`, or `npm run gen:fields`, after changing ast.ts's doc comments,
 *   validate.ts's or eval.ts's header, or what `scf/kernel` exports and their doc comments);
 * - it has a section for every node kind and union of ast.ts and a line for every export of
 *   `scf/kernel`, and the generator fails when a validator rule is missing from validate.ts's
 *   header or from the invariants of ast.ts's header;
 * - the helpers it names for keeping the invariants keep them: `freshLabel` is above every label,
 *   `appendSeq` and `seqOf` build right-nested statement lists without `skip`s (the strict `seq`
 *   rule) with fresh labels, `countNodes` counts what `astNodes` counts; and a pass calling them
 *   through `scf/kernel` is SCF-lang (loaded as a user's pass) and returns a valid function.
 */
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { AST_DOC_FILE, generateAstDoc, readRepoFile } from '../../scripts/gen-kernel-ast-doc.js';
import {
  astNodes,
  type Cmd,
  type Fun,
  formatProblems,
  KERNEL_NODES,
  KERNEL_UNIONS,
  listFromArray,
  listToArray,
  loadKernelParser,
  type NodeInfo,
  parseKernelSync,
  printFun,
  repeatedLabels,
  validateFun,
} from '../../src/kernel/index.js';
import * as kernel from '../../src/kernel/public.js';
import { loadUserPass } from '../../src/optimizers/index.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const INPUTS = path.join(ROOT, 'benchmarks/inputs');

beforeAll(loadKernelParser);

/** Every function of the benchmark kernels, as parsed. */
function benchmarkFuns(): Fun[] {
  return readdirSync(INPUTS)
    .filter((f) => f.endsWith('.c'))
    .flatMap((f) => {
      const r = parseKernelSync(readFileSync(path.join(INPUTS, f), 'utf8'), f);
      expect(r.diagnostics).toEqual([]);
      return listToArray(r.program);
    });
}

/** `f` with body `body`. */
function withBody(f: Fun, body: Cmd): Fun {
  return { ...f, body };
}

/** The commands of a statement list, in order, whatever its nesting. */
function stmts(c: Cmd): Cmd[] {
  return c.kind === 'seq' ? [...stmts(c.first), ...stmts(c.second)] : [c];
}

describe('docs/kernel-ast.md', () => {
  const doc = generateAstDoc();

  it('is fresh: generated from its sources it equals the committed file (npm run gen:ast-doc)', () => {
    expect(readFileSync(AST_DOC_FILE, 'utf8')).toBe(doc);
  });

  it('has a section for every node kind and union, with every field', () => {
    for (const [kind, info] of Object.entries(KERNEL_NODES) as [string, NodeInfo][]) {
      const at = doc.indexOf(`\n### ${info.iface}\n\n\`kind: '${kind}'\``);
      expect(at, info.iface).toBeGreaterThan(0);
      const section = doc.slice(at, doc.indexOf('\n### ', at + 1));
      for (const f of info.fields)
        expect(section, `${info.iface}.${f.name}`).toMatch(new RegExp(`\\n\\| \`${f.name}\` +\\|`));
    }
    for (const u of Object.keys(KERNEL_UNIONS)) expect(doc).toContain(`\n### ${u}\n`);
    expect(doc).toContain('\n### Program\n');
  });

  it('lists every export of scf/kernel', () => {
    const names = Object.keys(kernel);
    expect(names).toContain('freshLabel');
    for (const name of names) expect(doc, name).toMatch(new RegExp(`\\n- \`(const )?${name}[(< ]`));
  });

  it('cites every validator rule, and fails when one is missing', () => {
    for (const rule of ['shape', 'label', 'type', 'elaborated', 'seq', 'soac'])
      expect(doc).toContain(`- \`${rule}\`: `);
    const without = (file: string, from: string, to: string) => (rel: string) => {
      const text = readRepoFile(rel);
      return rel === file ? text.replace(from, to) : text;
    };
    expect(() => generateAstDoc(without('src/kernel/ast.ts', 'rule `seq`', 'rule'))).toThrow(
      /cites no invariant as rule `seq`/,
    );
    expect(() => generateAstDoc(without('src/kernel/validate.ts', '- `soac`:', '- soac:'))).toThrow(
      /rule 'soac' is not in its header's rule list/,
    );
  });
});

describe('the helpers it names keep the invariants', () => {
  it('freshLabel is above every label of a function; countNodes counts its nodes', () => {
    for (const f of benchmarkFuns()) {
      const labels: number[] = [];
      const go = (x: unknown): void => {
        if (typeof x !== 'object' || x === null) return;
        const l = (x as { lbl?: unknown }).lbl;
        if (typeof l === 'number') labels.push(l);
        for (const v of Object.values(x)) go(v);
      };
      go(f);
      expect(kernel.freshLabel(f)).toBe(Math.max(...labels) + 1);
      expect(kernel.countNodes(f.body)).toBe(astNodes(f.body));
    }
  });

  it('appendSeq and seqOf build right-nested lists without skips, with fresh labels', () => {
    for (const f of benchmarkFuns()) {
      const n = kernel.freshLabel(f);
      const cs = stmts(f.body);
      const skip = (lbl: number): Cmd => ({ kind: 'skip', lbl });
      // the body's statements with skips between them, rebuilt as one list
      const spaced = cs.flatMap((c, i) => [skip(n + i), c]);
      const [body, next] = kernel.seqOf(listFromArray(spaced), n + cs.length);
      const g = withBody(f, body);
      expect(formatProblems(validateFun(g))).toBe('');
      expect(printFun(g)).toBe(printFun(f));
      expect(next).toBeGreaterThanOrEqual(n + cs.length);
      // a left-nested list (as copy-prop leaves one) appended to another
      if (cs.length >= 3) {
        const [a, b, ...rest] = cs as [Cmd, Cmd, ...Cmd[]];
        const left: Cmd = {
          kind: 'seq',
          first: { kind: 'seq', first: a, second: b, lbl: n },
          second: skip(n + 1),
          lbl: n + 2,
        };
        const [tail, n1] = kernel.seqOf(listFromArray(rest), n + 3);
        const [joined] = kernel.appendSeq(left, tail, n1);
        const h = withBody(f, joined);
        expect(formatProblems(validateFun(h))).toBe('');
        expect(repeatedLabels(h)).toEqual([]);
        expect(printFun(h)).toBe(printFun(f));
      }
    }
    const [empty, n] = kernel.seqOf({ kind: 'nil' }, 7);
    expect([empty, n]).toEqual([{ kind: 'skip', lbl: 7 }, 8]);
  });

  it('a pass calling them through scf/kernel is SCF-lang and returns a valid function', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'scf-ast-doc-'));
    const file = path.join(dir, 'respine.ts');
    writeFileSync(
      file,
      `// Rebuilds the body's statement list from fresh labels, dropping a skip put at its end.
import { appendSeq, type Cmd, freshLabel, type Fun, seqOf } from 'scf/kernel';

function respine(c: Cmd, n: number): [Cmd, number] {
  const [rest, n1] = seqOf({ kind: 'cons', head: { kind: 'skip', lbl: n }, tail: { kind: 'nil' } }, n + 1);
  return appendSeq(c, rest, n1);
}

export function optimize(f: Fun): Fun {
  const [body] = respine(f.body, freshLabel(f));
  return { kind: 'fun', name: f.name, ret: f.ret, params: f.params, locals: f.locals, body, fns: f.fns, lbl: f.lbl };
}
`,
    );
    const pass = loadUserPass(file);
    for (const f of benchmarkFuns()) {
      const g = pass.run(f, { formals: [] });
      expect(formatProblems(validateFun(g))).toBe('');
      expect(printFun(g)).toBe(printFun(f));
    }
  });
});
