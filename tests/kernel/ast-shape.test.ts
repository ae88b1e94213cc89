/**
 * The kernel AST's public shape: the field table (src/kernel/fields.generated.ts) as recorded per
 * version in tests/fixtures/kernel-ast-shape/shapes.json may change only in a release whose
 * version is a breaking bump and whose CHANGELOG.md section names each change under Breaking
 * (tests/kernel/ast-shape.ts states the rule). `UPDATE_GOLDEN=1` records the current shape under
 * package.json's version, once the change is announced. The rule itself is tested on changed
 * tables, so it can fail.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SOURCE_ROOT } from '../../src/common/index.js';
import { KERNEL_NODES, KERNEL_UNIONS, type NodeInfo } from '../../src/kernel/index.js';
import {
  breakingSection,
  formatRecord,
  isBreakingBump,
  type Shape,
  type ShapeRecord,
  shapeChanges,
  shapeOf,
  shapeVerdict,
} from './ast-shape.js';

const ROOT = path.resolve(SOURCE_ROOT, '..');
const FIXTURE = path.join(ROOT, 'tests/fixtures/kernel-ast-shape/shapes.json');
const VERSION: string = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version;
const CHANGELOG = readFileSync(path.join(ROOT, 'CHANGELOG.md'), 'utf8');
const current = shapeOf(KERNEL_NODES as unknown as Record<string, NodeInfo>, KERNEL_UNIONS);

describe("the kernel AST's recorded shape", () => {
  it('changes only with a breaking bump and a CHANGELOG Breaking entry naming each change', () => {
    const recorded: ShapeRecord = JSON.parse(readFileSync(FIXTURE, 'utf8'));
    const verdict = shapeVerdict(current, recorded, VERSION, CHANGELOG);
    expect(verdict.ok ? [] : verdict.reasons).toEqual([]);
    if (process.env.UPDATE_GOLDEN === '1' && verdict.ok && verdict.against !== VERSION)
      writeFileSync(FIXTURE, formatRecord({ ...recorded, [VERSION]: current }));
    else
      expect(recorded[VERSION], `no shape recorded for ${VERSION}: run with UPDATE_GOLDEN=1`).toEqual(
        current,
      );
  });
  it('the fixture is as formatRecord writes it', () => {
    const text = readFileSync(FIXTURE, 'utf8');
    expect(formatRecord(JSON.parse(text))).toBe(text);
  });
});

/** `current` with `fun`'s fields replaced. */
const withFunFields = (s: Shape, fields: readonly string[]): Shape => ({
  ...s,
  kinds: { ...s.kinds, fun: { iface: 'Fun', fields } },
});
const noFns = withFunFields(
  current,
  (current.kinds.fun?.fields ?? []).filter((f) => !f.startsWith('fns:')),
);
const log = (version: string, breaking: string): string =>
  `# Changelog\n\n## ${version} — unreleased\n\n### Breaking\n\n${breaking}\n\n### 2026-12-01 — a milestone\n\n- \`Fun.fns\` in a milestone does not count.\n\n## 0.1.0 — the first package\n`;

describe('shapeVerdict', () => {
  it('finds a field added, removed or retyped, a kind added or removed, fields moved, a union changed', () => {
    expect(shapeChanges(noFns, current).map((c) => c.name)).toEqual(['Fun.fns']);
    expect(shapeChanges(current, noFns)[0]?.what).toBe('field removed (fns: List<Fun>)');
    const retyped = withFunFields(
      current,
      (current.kinds.fun?.fields ?? []).map((f) => (f.startsWith('ret:') ? 'ret: number' : f)),
    );
    expect(shapeChanges(current, retyped)).toEqual([
      { name: 'Fun.ret', what: 'field ret: string → ret: number' },
    ]);
    const moved = withFunFields(current, [...(current.kinds.fun?.fields ?? [])].reverse());
    expect(shapeChanges(current, moved).map((c) => c.name)).toEqual(['Fun']);
    const { skip: _, ...rest } = current.kinds;
    const noSkip: Shape = { kinds: rest, unions: current.unions };
    expect(shapeChanges(current, noSkip).map((c) => c.name)).toEqual(['Skip']);
    const cmd = current.unions.Cmd ?? [];
    const smaller: Shape = { ...current, unions: { ...current.unions, Cmd: cmd.slice(1) } };
    expect(shapeChanges(current, smaller).map((c) => c.name)).toEqual(['Cmd']);
  });

  it('accepts the shape recorded for the version, and an unchanged one under a new version', () => {
    const rec = { '0.2.0': current };
    expect(shapeVerdict(current, rec, '0.2.0', '').ok).toBe(true);
    expect(shapeVerdict(current, rec, '0.2.1', '').ok).toBe(true);
  });

  it('refuses a change without a minor bump, without a Breaking heading, or not naming the field', () => {
    const rec = { '0.1.0': noFns };
    const announced = log('0.2.0', '- `Fun.fns`: copy it from the input, `{ ...f, body }`.');
    expect(shapeVerdict(current, rec, '0.2.0', announced)).toMatchObject({ ok: true, against: '0.1.0' });
    // a patch release may not break
    const patch = shapeVerdict(current, rec, '0.1.1', log('0.1.1', '- `Fun.fns`.'));
    expect(patch.ok ? [] : patch.reasons).toEqual([
      'the kernel AST changed since 0.1.0 (Fun.fns (field added (fns: List<Fun>))), but 0.1.1 is no breaking bump of it',
    ]);
    // the version's section has no Breaking heading, or one that names something else
    const none = shapeVerdict(current, rec, '0.2.0', '# Changelog\n\n## 0.2.0\n\n- `Fun.fns` added.\n');
    expect(none.ok ? [] : none.reasons).toEqual(["CHANGELOG.md has no '### Breaking' under '## 0.2.0'"]);
    const other = shapeVerdict(current, rec, '0.2.0', log('0.2.0', '- `Fun` has a new field `fnsList`.'));
    expect(other.ok ? [] : other.reasons).toEqual([
      "CHANGELOG.md's Breaking for 0.2.0 does not name Fun.fns (field added (fns: List<Fun>))",
    ]);
    // an entry under another version's heading does not count
    expect(shapeVerdict(current, rec, '0.3.0', announced).ok).toBe(false);
  });

  it('compares a version re-recorded before its release with the release before it', () => {
    // 0.2.0 recorded without fns, then fns added while 0.2.0 is unreleased
    const rec = { '0.1.0': noFns, '0.2.0': noFns };
    expect(shapeVerdict(current, rec, '0.2.0', log('0.2.0', '- nothing yet')).ok).toBe(false);
    expect(shapeVerdict(current, rec, '0.2.0', log('0.2.0', '- `Fun.fns` is new.')).ok).toBe(true);
    // a record newer than the package is refused
    expect(shapeVerdict(current, { '0.3.0': current }, '0.2.0', '').ok).toBe(false);
  });

  it('knows breaking bumps and Breaking sections', () => {
    expect(isBreakingBump('0.1.0', '0.2.0')).toBe(true);
    expect(isBreakingBump('0.1.0', '0.1.5')).toBe(false);
    expect(isBreakingBump('0.9.0', '1.0.0')).toBe(true);
    expect(isBreakingBump('1.2.0', '1.3.0')).toBe(false);
    expect(isBreakingBump('1.2.0', '2.0.0')).toBe(true);
    expect(breakingSection(log('0.2.0', '- x'), '0.2.0')?.trim()).toBe('- x');
    expect(breakingSection(log('0.2.0', '- x'), '0.1.0')).toBeUndefined();
    expect(breakingSection(log('0.2.0', '- x'), '0.2')).toBeUndefined();
  });
});
