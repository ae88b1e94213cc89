/**
 * The kernel AST's public shape and the rule that guards it. A pass of a user's own builds kernel
 * AST literals, so a field added, removed or retyped breaks it (`SCF3006: bad constructor`); such a
 * change ships only in a release that says so. The shape is recorded per version in
 * tests/fixtures/kernel-ast-shape/shapes.json; `shapeVerdict` compares the current field table
 * with the record and accepts a change only when
 * - package.json's version is a breaking bump of the newest recorded version below it (0.x: a
 *   higher minor; from 1.0 on, a higher major), and
 * - CHANGELOG.md's section for that version (`## 0.2.0 …`) has a `### Breaking` heading whose text
 *   names each change: `Iface.field` for a field added, removed or retyped, `Iface` for a kind
 *   added or removed or whose fields only moved, the union's name for a union's members.
 * The decision is a pure function of its arguments, so tests feed it changed tables too.
 */
import type { FieldType, NodeInfo } from '../../src/kernel/index.js';

/** One kind: its interface and fields (`name: type`, declaration order); the unions list kinds. */
export interface Shape {
  readonly kinds: Readonly<Record<string, { readonly iface: string; readonly fields: readonly string[] }>>;
  readonly unions: Readonly<Record<string, readonly string[]>>;
}

/** Recorded shapes by version. */
export type ShapeRecord = Readonly<Record<string, Shape>>;

function showType(t: FieldType): string {
  switch (t.tag) {
    case 'number':
    case 'string':
    case 'boolean':
      return t.tag;
    case 'node':
      return t.name;
    case 'list':
      return `List<${showType(t.of)}>`;
    case 'option':
      return `Option<${showType(t.of)}>`;
  }
}

/** The shape of a field table (src/kernel/fields.generated.ts's `KERNEL_NODES`, `KERNEL_UNIONS`). */
export function shapeOf(
  nodes: Readonly<Record<string, NodeInfo>>,
  unions: Readonly<Record<string, readonly string[]>>,
): Shape {
  return {
    kinds: Object.fromEntries(
      Object.entries(nodes).map(([kind, n]) => [
        kind,
        { iface: n.iface, fields: n.fields.map((f) => `${f.name}: ${showType(f.type)}`) },
      ]),
    ),
    unions: Object.fromEntries(Object.entries(unions).map(([u, ks]) => [u, [...ks]])),
  };
}

/** A difference between two shapes, with the name a Breaking entry must mention. */
export interface ShapeChange {
  readonly name: string;
  readonly what: string;
}

/** What changed from `from` to `to`, in a stable order. */
export function shapeChanges(from: Shape, to: Shape): ShapeChange[] {
  const out: ShapeChange[] = [];
  const kinds = new Set([...Object.keys(from.kinds), ...Object.keys(to.kinds)]);
  for (const kind of kinds) {
    const a = from.kinds[kind];
    const b = to.kinds[kind];
    if (a === undefined || b === undefined) {
      const iface = (a ?? b)?.iface ?? kind;
      out.push({ name: iface, what: `kind '${kind}' ${a === undefined ? 'added' : 'removed'}` });
      continue;
    }
    const fieldsOf = (fs: readonly string[]) => new Map(fs.map((f) => [f.slice(0, f.indexOf(':')), f]));
    const fa = fieldsOf(a.fields);
    const fb = fieldsOf(b.fields);
    let fieldChanged = false;
    for (const name of new Set([...fa.keys(), ...fb.keys()])) {
      const x = fa.get(name);
      const y = fb.get(name);
      if (x === y) continue;
      fieldChanged = true;
      const what = x === undefined ? `added (${y})` : y === undefined ? `removed (${x})` : `${x} → ${y}`;
      out.push({ name: `${b.iface}.${name}`, what: `field ${what}` });
    }
    if (!fieldChanged && a.fields.join() !== b.fields.join())
      out.push({ name: b.iface, what: `fields reordered: ${b.fields.join(', ')}` });
    if (a.iface !== b.iface)
      out.push({ name: b.iface, what: `kind '${kind}' is now ${b.iface}, was ${a.iface}` });
  }
  for (const u of new Set([...Object.keys(from.unions), ...Object.keys(to.unions)])) {
    const a = from.unions[u]?.join(', ');
    const b = to.unions[u]?.join(', ');
    if (a !== b) out.push({ name: u, what: `union ${u}: ${a ?? '(none)'} → ${b ?? '(none)'}` });
  }
  return out;
}

/** `[major, minor, patch]` of a plain `x.y.z` version; undefined for anything else. */
function parseVersion(v: string): [number, number, number] | undefined {
  const m = /^(\d+)\.(\d+)\.(\d+)$/.exec(v);
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : undefined;
}

/** Semver's order of plain versions: negative, zero or positive. */
export function compareVersions(a: string, b: string): number {
  const x = parseVersion(a) ?? [0, 0, 0];
  const y = parseVersion(b) ?? [0, 0, 0];
  return x[0] - y[0] || x[1] - y[1] || x[2] - y[2];
}

/** Whether `to` may break what `from` offered: 0.x bumps the minor, later versions the major. */
export function isBreakingBump(from: string, to: string): boolean {
  const a = parseVersion(from);
  const b = parseVersion(to);
  if (a === undefined || b === undefined) return false;
  return a[0] === 0 ? b[0] > 0 || b[1] > a[1] : b[0] > a[0];
}

/** The text under `### Breaking` in CHANGELOG's section `## VERSION …`; undefined without one. */
export function breakingSection(changelog: string, version: string): string | undefined {
  const lines = changelog.split('\n');
  const head = lines.findIndex((l) => l === `## ${version}` || l.startsWith(`## ${version} `));
  if (head < 0) return undefined;
  let end = lines.findIndex((l, i) => i > head && l.startsWith('## '));
  if (end < 0) end = lines.length;
  const section = lines.slice(head + 1, end);
  const at = section.findIndex((l) => l.trim() === '### Breaking');
  if (at < 0) return undefined;
  let stop = section.findIndex((l, i) => i > at && l.startsWith('### '));
  if (stop < 0) stop = section.length;
  return section.slice(at + 1, stop).join('\n');
}

/** Whether `text` names `name` as a word (`Fun.fns`, `Fun`; not `Function`, not `Fun.fnsX`). */
function names(text: string, name: string): boolean {
  const esc = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(^|[^A-Za-z0-9_$.])${esc}(?![A-Za-z0-9_$])`).test(text);
}

export type Verdict =
  | { readonly ok: true; readonly changes: readonly ShapeChange[]; readonly against: string | undefined }
  | { readonly ok: false; readonly reasons: readonly string[] };

/**
 * Whether the current shape may ship as `version`: it equals the record of `version`, or it
 * equals that of the newest version below, or the change from that one is announced (above).
 * `against` is the version compared with.
 */
export function shapeVerdict(
  current: Shape,
  recorded: ShapeRecord,
  version: string,
  changelog: string,
): Verdict {
  if (parseVersion(version) === undefined)
    return { ok: false, reasons: [`package version '${version}' is not x.y.z`] };
  const own = recorded[version];
  if (own !== undefined && shapeChanges(own, current).length === 0)
    return { ok: true, changes: [], against: version };
  const newer = Object.keys(recorded).filter((v) => compareVersions(v, version) > 0);
  if (newer.length > 0)
    return {
      ok: false,
      reasons: [`the shape is recorded for ${newer.join(', ')}, newer than the package's ${version}`],
    };
  const below = Object.keys(recorded)
    .filter((v) => compareVersions(v, version) < 0)
    .sort(compareVersions)
    .at(-1);
  if (below === undefined)
    return own === undefined
      ? { ok: true, changes: [], against: undefined }
      : { ok: false, reasons: [`the kernel AST changed within ${version}, the first version recorded`] };
  const base = recorded[below] as Shape;
  const changes = shapeChanges(base, current);
  if (changes.length === 0) return { ok: true, changes, against: below };
  const reasons: string[] = [];
  const list = changes.map((c) => `${c.name} (${c.what})`).join('; ');
  if (!isBreakingBump(below, version))
    reasons.push(`the kernel AST changed since ${below} (${list}), but ${version} is no breaking bump of it`);
  const text = breakingSection(changelog, version);
  if (text === undefined) reasons.push(`CHANGELOG.md has no '### Breaking' under '## ${version}'`);
  else
    for (const c of changes)
      if (!names(text, c.name))
        reasons.push(`CHANGELOG.md's Breaking for ${version} does not name ${c.name} (${c.what})`);
  return reasons.length === 0 ? { ok: true, changes, against: below } : { ok: false, reasons };
}

/** The record as the fixture writes it: JSON with one line per kind and per union, versions in order. */
export function formatRecord(record: ShapeRecord): string {
  const versions = Object.keys(record).sort(compareVersions);
  const block = (v: string): string => {
    const s = record[v] as Shape;
    const kinds = Object.entries(s.kinds).map(([k, x]) => `      ${JSON.stringify(k)}: ${JSON.stringify(x)}`);
    const unions = Object.entries(s.unions).map(
      ([u, ks]) => `      ${JSON.stringify(u)}: ${JSON.stringify(ks)}`,
    );
    return `  ${JSON.stringify(v)}: {\n    "kinds": {\n${kinds.join(',\n')}\n    },\n    "unions": {\n${unions.join(',\n')}\n    }\n  }`;
  };
  return `{\n${versions.map(block).join(',\n')}\n}\n`;
}
