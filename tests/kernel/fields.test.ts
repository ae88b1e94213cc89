/**
 * The kernel AST's field table (src/kernel/fields.generated.ts):
 * - it is fresh: regenerated in memory from src/kernel/ast.ts it equals the committed file (run
 *   `npm run gen:fields` after changing ast.ts), and the generator rejects what ast.ts's rules forbid;
 * - so is src/kernel/shape.generated.ts, the fast shape check (tests/kernel/bounded-tree.test.ts
 *   checks what it accepts), and src/optimizers/leaf.generated.ts, the leaf commands for the SCF-lang passes' `default`
 *   cases: `leafExprs` lists exactly a leaf's expressions (as the table finds them), `leafWith` puts
 *   them back, `leafEnds` follows the `@ends` tags, and the generator leaves out kinds tagged
 *   `@assigns`, kinds with sub-commands and kinds whose expressions it could not put back in order;
 * - the SCF-lang label skeletons (`relabelCmd`/`relabelExpr`/`maxLabelCmd`/`maxLabelExpr`/
 *   `maxLabelFun` in src/optimizers/kernel-walk.ts, which must stay SCF-lang and cannot read a table)
 *   follow it: on samples built from the table, in which every field of every kind holds labelled
 *   nodes, they agree with the table-driven `relabel`/`maxLabel` (src/kernel/walk.ts), so a field
 *   or a kind they miss fails here.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  AST_FILE,
  FIELDS_FILE,
  generateKernelFields,
  generateLeafCommands,
  generateShapeChecker,
  LEAF_FILE,
  readAst,
  SHAPE_FILE,
} from '../../scripts/gen-kernel-fields.js';
import { NAME_FIELDS } from '../../src/kernel/tree-walk.js';
import {
  type Cmd,
  type Expr,
  type FieldType,
  type Fun,
  KERNEL_NODES,
  KERNEL_UNIONS,
  listToArray,
  maxLabel,
  type NodeInfo,
  nodesOfType,
  relabel,
} from '../../src/kernel/index.js';
import { type LeafCmd, leafEnds, leafExprs, leafWith } from '../../src/optimizers/leaf.generated.js';
import { maxLabelCmd, maxLabelExpr, maxLabelFun, relabelCmd, relabelExpr } from '../../src/kernel/public.js';

const AST = readFileSync(AST_FILE, 'utf8');

describe('the field table', () => {
  it('is fresh: generated from ast.ts it equals the committed fields.generated.ts', () => {
    expect(readFileSync(FIELDS_FILE, 'utf8')).toBe(generateKernelFields(AST));
  });

  it('is fresh: generated from ast.ts it equals the committed leaf.generated.ts', () => {
    expect(readFileSync(LEAF_FILE, 'utf8')).toBe(generateLeafCommands(AST));
  });

  it('is fresh: generated from ast.ts it equals the committed shape.generated.ts', () => {
    expect(readFileSync(SHAPE_FILE, 'utf8')).toBe(generateShapeChecker(AST, NAME_FIELDS));
  });

  it('lists every kind of ast.ts in declaration order, fields but kind, lbl last', () => {
    const kinds = [...AST.matchAll(/readonly kind: '(\w+)'/g)].map((m) => m[1]);
    expect(Object.keys(KERNEL_NODES)).toEqual(kinds);
    for (const info of Object.values(KERNEL_NODES) as NodeInfo[])
      expect(info.fields.at(-1)).toEqual({ name: 'lbl', type: { tag: 'number' } });
    expect(KERNEL_NODES.soac.fields.map((f) => f.name)).toEqual([
      'op',
      'dest',
      'ty',
      'fn',
      'comb',
      'ne',
      'args',
      'lbl',
    ]);
    expect(KERNEL_NODES.return.fields[0]?.type).toEqual({ tag: 'option', of: { tag: 'node', name: 'Expr' } });
    expect(KERNEL_UNIONS.SoacArg).toEqual(['argArray', 'argIota', 'argScalar']);
  });

  it('rejects what ast.ts’s rules forbid', () => {
    const node = (fields: string) => `export interface A { readonly kind: 'a';${fields} }`;
    const cases: [string, RegExp][] = [
      [node(' readonly x?: number; readonly lbl: number;'), /A\.x: fields are readonly and not optional/],
      [node(' x: number; readonly lbl: number;'), /A\.x: fields are readonly/],
      [node(' readonly xs: number[]; readonly lbl: number;'), /A\.xs: field types are/],
      [node(' readonly x: number;'), /A: the last field is `lbl: number`/],
      [node(' readonly e: Nope; readonly lbl: number;'), /A\.e: 'Nope' is not a node type/],
      [
        `${node(' readonly lbl: number;')} export interface B { readonly kind: 'a'; readonly lbl: number }`,
        /kind 'a' is used twice/,
      ],
      ['export interface A { readonly lbl: number; readonly kind: "a" }', /the first field is `kind`/],
    ];
    for (const [src, message] of cases) expect(() => generateKernelFields(src), src).toThrow(message);
  });
});

// ---- samples from the table ---------------------------------------------------------------------

type Obj = Record<string, unknown>;

/**
 * One node of `kind` with every field filled: a list of a union holds one node of each member kind,
 * a list of an interface two nodes, an option is `some`, a union field takes the next member in
 * turn. From depth 3 on, unions take a member without children and lists are empty, so it ends.
 */
function sampleNode(kind: string, depth: number, next: { lbl: number; turn: Map<string, number> }): Obj {
  const info = (KERNEL_NODES as Record<string, NodeInfo>)[kind] as NodeInfo;
  const out: Obj = { kind };
  const lbl = next.lbl++;
  for (const f of info.fields) out[f.name] = f.name === 'lbl' ? lbl : sampleOf(f.type, depth + 1, next);
  return out;
}

function isChildlessKind(kind: string): boolean {
  const info = (KERNEL_NODES as Record<string, NodeInfo>)[kind] as NodeInfo;
  return info.fields.every(
    (f) => f.type.tag === 'number' || f.type.tag === 'string' || f.type.tag === 'boolean',
  );
}

function kindsOf(name: string): readonly string[] {
  const union = KERNEL_UNIONS[name];
  if (union) return union;
  const entry = Object.entries(KERNEL_NODES).find(([, i]) => i.iface === name);
  return entry ? [entry[0]] : [];
}

function sampleOf(t: FieldType, depth: number, next: { lbl: number; turn: Map<string, number> }): unknown {
  switch (t.tag) {
    case 'number':
      return 7;
    case 'string':
      return 'x';
    case 'boolean':
      return true;
    case 'option':
      return { kind: 'some', value: sampleOf(t.of, depth, next) };
    case 'list': {
      const items: unknown[] = [];
      if (depth < 3) {
        const kinds = t.of.tag === 'node' ? kindsOf(t.of.name) : [];
        if (kinds.length > 1) for (const k of kinds) items.push(sampleNode(k, depth, next));
        else items.push(sampleOf(t.of, depth, next), sampleOf(t.of, depth, next));
      }
      let l: unknown = { kind: 'nil' };
      for (const x of items.reverse()) l = { kind: 'cons', head: x, tail: l };
      return l;
    }
    case 'node': {
      const kinds = kindsOf(t.name);
      if (depth >= 3 && kinds.length > 1)
        return sampleNode(kinds.find(isChildlessKind) as string, depth, next);
      const i = next.turn.get(t.name) ?? 0;
      next.turn.set(t.name, i + 1);
      return sampleNode(kinds[i % kinds.length] as string, depth, next);
    }
  }
}

/** Every `(kind, field)` whose field holds nodes, and those `root` has labelled nodes in. */
function coverage(roots: readonly unknown[]): { all: Set<string>; seen: Set<string> } {
  const all = new Set<string>();
  for (const [kind, info] of Object.entries(KERNEL_NODES) as [string, NodeInfo][])
    for (const f of info.fields)
      if (f.type.tag !== 'number' || f.name !== 'lbl') all.add(`${kind}.${f.name}`);
  const seen = new Set<string>();
  const labelled = (x: unknown): boolean =>
    typeof x === 'object' && x !== null && ('lbl' in x || Object.values(x).some(labelled));
  const go = (x: unknown): void => {
    if (typeof x !== 'object' || x === null) return;
    const o = x as Obj;
    for (const [k, v] of Object.entries(o)) {
      if (k !== 'kind' && k !== 'lbl' && (typeof v !== 'object' || labelled(v))) seen.add(`${o.kind}.${k}`);
      go(v);
    }
  };
  for (const r of roots) go(r);
  return { all, seen };
}

/** `x` with the label of its k-th labelled node (pre-order) set to `to`. */
function bump(x: unknown, k: number, to: number): unknown {
  let i = 0;
  const go = (y: unknown): unknown => {
    if (typeof y !== 'object' || y === null) return y;
    const o = y as Obj;
    const mine = typeof o.lbl === 'number' ? i++ : -1;
    const out: Obj = {};
    for (const [key, v] of Object.entries(o)) out[key] = key === 'lbl' ? (mine === k ? to : v) : go(v);
    return out;
  };
  return go(x);
}

describe('the SCF-lang label skeletons follow the table', () => {
  const next = { lbl: 1, turn: new Map<string, number>() };
  const cmds = KERNEL_UNIONS.Cmd?.map((k) => sampleNode(k, 0, next) as unknown as Cmd) ?? [];
  const exprs = KERNEL_UNIONS.Expr?.map((k) => sampleNode(k, 0, next) as unknown as Expr) ?? [];
  const funs = cmds.map((body) => ({ ...sampleNode('fun', 0, next), body }) as unknown as Fun);

  it('the samples hold labelled nodes in every field of every kind', () => {
    const { all, seen } = coverage([...cmds, ...exprs, ...funs]);
    // `decl.size` is an Option<number>: nothing labelled can be in it
    expect([...all].filter((f) => !seen.has(f))).toEqual(['decl.size']);
  });

  it('relabelCmd / relabelExpr renumber as the table-driven relabel does', () => {
    for (const c of cmds) {
      const [out, n] = relabelCmd(c, 100);
      expect(out).toEqual(relabel(c, 100));
      expect(n).toBe(maxLabel(out) + 1);
    }
    for (const e of exprs) {
      const [out, n] = relabelExpr(e, 100);
      expect(out).toEqual(relabel(e, 100));
      expect(n).toBe(maxLabel(out) + 1);
    }
  });

  it('maxLabelFun / maxLabelCmd / maxLabelExpr see every labelled node', () => {
    const check = (x: unknown, f: (y: never) => number): void => {
      const labelled = (JSON.stringify(x).match(/"lbl":/g) ?? []).length;
      expect(f(x as never)).toBe(maxLabel(x));
      for (let k = 0; k < labelled; k++) expect(f(bump(x, k, 10_000) as never), `node ${k}`).toBe(10_000);
    };
    for (const c of cmds) check(c, maxLabelCmd);
    for (const e of exprs) check(e, maxLabelExpr);
    for (const f of funs) check(f, maxLabelFun);
  });
});

describe('the leaf commands (leaf.generated.ts) follow the table and the tags', () => {
  const next = { lbl: 1, turn: new Map<string, number>() };
  // the leaf kinds, as the generated file declares them
  const declared = /export type LeafCmd = ([^;]+);/.exec(readFileSync(LEAF_FILE, 'utf8'))?.[1] ?? '';
  const ifaces = declared.split(' | ');
  const leaves = (Object.entries(KERNEL_NODES) as [string, NodeInfo][])
    .filter(([, i]) => ifaces.includes(i.iface))
    .map(([k]) => k);
  const samples = leaves.map((k) => sampleNode(k, 0, next) as unknown as LeafCmd);
  const voidReturn = { kind: 'return', value: { kind: 'none' }, lbl: 99 } as const;
  // the interfaces ast.ts tags `@ends`
  const ends = readAst(AST)
    .ifaces.filter((i) => i.tags.has('ends'))
    .map((i) => i.name);

  it('are the kinds tagged @leaf: return, skip and callCmd, not assign, store nor kinds with sub-commands', () => {
    expect(leaves.length).toBe(ifaces.length);
    for (const k of ['return', 'skip', 'callCmd']) expect(leaves).toContain(k);
    for (const k of ['assign', 'store', 'seq', 'if', 'while', 'soac', 'hfused'])
      expect(leaves).not.toContain(k);
  });

  it('leafExprs lists the expressions the table finds; leafWith puts them back', () => {
    for (const c of [...samples, voidReturn]) {
      const es = leafExprs(c);
      expect(listToArray(es)).toEqual(nodesOfType(c, 'Expr'));
      expect(leafWith(c, es, c.lbl)).toEqual(c);
      const [relabelled] = relabelCmd(c, 500);
      expect(leafWith(c, leafExprs(relabelled as LeafCmd), 500)).toEqual(relabelled);
    }
  });

  it('leafEnds holds exactly for the kinds tagged @ends', () => {
    expect(ends).toContain('Return');
    const tagged = samples.filter((c) => ends.includes(KERNEL_NODES[c.kind].iface));
    expect(samples.filter(leafEnds)).toEqual(tagged);
  });

  it('the generator reads the tags and checks where they stand', () => {
    const head = [
      'export type Cmd = A | B | C | E;',
      'export type Expr = X | Y;',
      "export interface X { readonly kind: 'x'; readonly lbl: number }",
      "export interface Y { readonly kind: 'y'; readonly lbl: number }",
      "export interface B { readonly kind: 'b'; readonly name: string; readonly e: Expr; readonly lbl: number }",
      "export interface C { readonly kind: 'c'; readonly body: Cmd; readonly lbl: number }",
    ];
    const a = "export interface A { readonly kind: 'a'; readonly e: Expr; readonly lbl: number }";
    const e =
      "export interface E { readonly kind: 'e'; readonly e: Expr; readonly o: Option<Expr>; readonly lbl: number }";
    const src = (docA: string, docE = '/** @leaf */') =>
      [...head, `${docA}\n${a}`, `${docE}\n${e}`].join('\n');
    const out = generateLeafCommands(src('/**\n * ends here\n * @leaf\n * @ends\n */'));
    expect(out).toContain('export type LeafCmd = A | E;');
    expect(out).toMatch(/case 'a':\n\s+return true;/);
    expect(out).toMatch(/case 'e':\n\s+return false;/);
    expect(out).toContain("return { kind: 'e', e: headOr(es, c.e), o: firstOf(tailOf(es)), lbl };");
    expect(out).toContain(
      "return { kind: 'cons', head: c.e, tail: c.o.kind === 'some' ? { kind: 'cons', head: c.o.value, tail: { kind: 'nil' } } : { kind: 'nil' } };",
    );
    // tags on one line, and a line comment between the doc and the interface
    expect(generateLeafCommands(src('/** `a`: @leaf @ends */\n// biome-ignore lint: a note'))).toMatch(
      /case 'a':\n\s+return true;/,
    );
    // no tag: no leaf (B, with a string and an Expr, is no leaf either: it has no tag)
    expect(generateLeafCommands(src('/** a */'))).toContain('export type LeafCmd = E;');
    const wrong: [string, string, RegExp][] = [
      ['/** @leaf @assigns */', '/** @leaf */', /A: unknown tag @assigns/],
      ['/** @ends */', '/** @leaf */', /A: @ends is read on @leaf kinds only/],
    ];
    for (const [docA, docE, message] of wrong)
      expect(() => generateLeafCommands(src(docA, docE))).toThrow(message);
    const notCmd = [
      ...head,
      a,
      e,
      "/** @leaf */\nexport interface W { readonly kind: 'w'; readonly lbl: number }",
    ];
    expect(() => generateLeafCommands(notCmd.join('\n'))).toThrow(/W: @leaf is for members of the Cmd union/);
    const badShape = [...head, a, e]
      .join('\n')
      .replace('export interface C {', '/** @leaf */\nexport interface C {');
    expect(() => generateLeafCommands(badShape)).toThrow(/C: a @leaf's fields are scalars and expressions/);
  });
});
