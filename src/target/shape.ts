/**
 * Shapes of specialized programs: one walk that tells which compiled template a program is and
 * the values its template's parameters take, building nothing (the template itself is made by
 * template.ts, once per shape).
 *
 * Why. A staged pipeline's output for late values of a shape compiled before differs from the
 * compiled one only in its float constants. Finding its kernel by making its template afresh —
 * two walks that rebuild the program and print it as JSON — costs more than the staged pipeline
 * itself; the shape needs only one walk that writes what it reads.
 *
 * Algorithm. `shapeOf(program, entry, keep)` walks every node once, fields in declaration order,
 * writing each node's kind and scalar fields (names, types, operators, labels, int and bool
 * literals) into a text; a float literal is a hole, its value put aside in walk order, and marked
 * `k` with its value where the template keeps it whatever its place (`keep`, as template.ts reads
 * it: -0 is never kept), else `h`. Two programs with one shape text differ at most in the values
 * of their `h` holes. The first time a shape is met, `learnShape` asks template.ts for the
 * template of a probe: the program with each `h` hole filled with its own tag value, so the
 * probe's constants say which hole each of the template's parameters takes. The holes no
 * parameter takes are literals the template leaves in place (neutral elements, ⊕'s literals,
 * literal-only subexpressions, recursive functions', functions the entry does not reach); their
 * values are part of the key of the compiled kernel (`Shape.keyOf`, which names the shape by a
 * number of its own rather than by its text, so a key is short). Quicker still, `matchShape`
 * compares a program with one met before, side by side, stopping at the first difference and
 * skipping a subtree the two hold as one object: a staged pipeline returns what it knew early as
 * the same objects on every call, so only what the late values built is walked (a `TieredKernels`
 * tries the last program of each of its few most recent shapes before writing the text).
 *
 * Invariants. Which literals template.ts lifts, how it numbers them and what it names their
 * parameters depend only on what the shape text holds — the program's structure, names and
 * labels, and which literals `keep` holds — never on the values in the `h` holes; and no tag is a
 * kept value or -0. So the probe's parameters are those of every program of its shape, and for
 * each: `constantsOf(holes)` equals `kernelTemplate(program, entry, keep).constants`, and
 * `keyOf(holes)` fixes the lifted program (tests/target/shape.test.ts checks both). `matchShape`
 * matches exactly where `shapeOf` writes one text for both programs, and gives `shapeOf`'s holes
 * (a shared subtree's holes are the earlier program's, the same values). The walk is
 * bounded as template.ts's: past MAX_TREE_DEPTH levels (depth.ts) there is no shape.
 */
import { mapChildren, maxTreeDepth, type Program, slotsOf } from '../kernel/index.js';
import { kernelTemplate } from './template.js';

/** A program's shape text (`shapeOf`) and the values of its float literals, in walk order. */
export interface ShapeText {
  readonly text: string;
  readonly holes: readonly number[];
}

/** What a shape's template needs from a program of that shape (see the header). */
export interface Shape {
  /**
   * The key of the compiled template for a program of this shape with these holes: the shape's
   * own name (unique in the process) and the values of the holes that stay literals.
   */
  keyOf(holes: readonly number[]): string;
  /** The values of the template's parameters, by name, for those holes. */
  constantsOf(holes: readonly number[]): Record<string, number>;
}

/** A number as the text of a key: -0 apart from 0, NaN and ±Infinity by name. */
const num = (v: number): string => (Object.is(v, -0) ? '-0' : String(v));

/** A string with its length, so no two sequences of fields write one text. */
const str = (s: string): string => `${s.length}:${s}`;

/** Whether template.ts keeps a literal of this value wherever it is (`keep`; -0 never). */
const kept = (v: number, keep: ReadonlySet<number>): boolean => keep.has(v) && !Object.is(v, -0);

/** The shape of `program` for `entry`, or undefined where it nests deeper than the walks may go. */
export function shapeOf(program: Program, entry: string, keep: ReadonlySet<number>): ShapeText | undefined {
  const holes: number[] = [];
  const limit = maxTreeDepth();
  let text = `${str(entry)}|`;
  // `+=` joins ropes, no copying; one pass over every node, fields in declaration order
  const walk = (x: object, depth: number): boolean => {
    if (depth > limit) return false;
    const node = x as Record<string, unknown>;
    const kind = node.kind as string;
    if (kind === 'floatLit') {
      const v = node.value as number;
      holes.push(v);
      text += kept(v, keep) ? `(k${num(v)} ${num(node.lbl as number)})` : `(h ${num(node.lbl as number)})`;
      return true;
    }
    text += `(${kind}`;
    for (const s of slotsOf(x)) {
      const v = node[s.name];
      if (typeof v === 'object' && v !== null) {
        if (!walk(v, depth + 1)) return false;
      } else if (typeof v === 'number') text += ` ${num(v)}`;
      else if (typeof v === 'string') text += ` ${str(v)}`;
      else text += ` ${String(v)}`;
    }
    text += ')';
    return true;
  };
  return walk(program, 0) ? { text, holes } : undefined;
}

/** How many float literals each subtree a comparison skipped holds (a property of the object). */
const holeCounts = new WeakMap<object, number>();

function holesIn(x: object): number {
  let n = holeCounts.get(x);
  if (n !== undefined) return n;
  n = 0;
  const node = x as Record<string, unknown>;
  if (node.kind === 'floatLit') n = 1;
  else
    for (const s of slotsOf(x))
      if (typeof node[s.name] === 'object' && node[s.name] !== null) n += holesIn(node[s.name] as object);
  holeCounts.set(x, n);
  return n;
}

/**
 * The holes of `program` where it has the shape of `seen` (a program `shapeOf` walked, with its
 * `holes`), else undefined: one walk of both side by side that stops at the first difference and
 * skips a subtree the two hold as one object (its holes are `seen`'s), so a staged pipeline's
 * output, whose parts known early are the same objects on every call, is walked only where the
 * late values built it. Two programs match exactly where `shapeOf` writes one text for both.
 */
export function matchShape(
  program: Program,
  seen: Program,
  seenHoles: readonly number[],
  keep: ReadonlySet<number>,
): number[] | undefined {
  const holes: number[] = [];
  const same = (x: object, y: object): boolean => {
    if (x === y) {
      const n = holesIn(y);
      for (let i = holes.length, end = i + n; i < end; i++) holes.push(seenHoles[i] as number);
      return true;
    }
    const a = x as Record<string, unknown>;
    const b = y as Record<string, unknown>;
    if (a.kind !== b.kind) return false;
    if (a.kind === 'floatLit') {
      const v = a.value as number;
      const w = b.value as number;
      const k = kept(v, keep);
      if (k !== kept(w, keep) || (k && !Object.is(v, w)) || a.lbl !== b.lbl) return false;
      holes.push(v);
      return true;
    }
    for (const s of slotsOf(y)) {
      const u = a[s.name];
      const v = b[s.name];
      if (typeof v === 'object' && v !== null) {
        if (typeof u !== 'object' || u === null || !same(u, v)) return false;
      } else if (!Object.is(u, v)) return false;
    }
    return true;
  };
  // `seen` was walked within the depth bound, and the walk goes no deeper than `seen`
  return same(program, seen) ? holes : undefined;
}

/**
 * `program` with the `h` holes (in `shapeOf`'s order) filled by `fill(index)`, the `k` ones as
 * they are: the walk is `shapeOf`'s, so the indices are its holes'.
 */
function fillHoles(program: Program, keep: ReadonlySet<number>, fill: (index: number) => number): Program {
  let index = 0;
  const go = (x: unknown): unknown => {
    if (typeof x !== 'object' || x === null) return x;
    const node = x as { kind?: string; value?: number };
    if (node.kind === 'floatLit') {
      const i = index++;
      return kept(node.value as number, keep) ? node : { ...node, value: fill(i) };
    }
    return mapChildren(node, go);
  };
  return go(program) as Program;
}

/** Shapes learnt in this process: each one's number names it in its keys. */
let shapesLearnt = 0;

/** The first tag value (an integer far above any constant a kernel holds, exact as a double). */
const TAG_BASE = 2 ** 40;

/**
 * What the template of `program`'s shape needs (see the header), or null where no template is
 * made for it (template.ts: no float literal to lift, too many, too deep).
 */
export function learnShape(
  program: Program,
  entry: string,
  keep: ReadonlySet<number>,
  shape: ShapeText,
): Shape | null {
  const n = shape.holes.length;
  let base = TAG_BASE;
  const clashes = () => [...keep].some((v) => v >= base && v < base + n);
  while (clashes()) base *= 2;
  const probe = kernelTemplate(
    fillHoles(program, keep, (i) => base + i),
    entry,
    keep,
  );
  if (probe === undefined) return null;
  const params = Object.entries(probe.constants).map(([name, tag]): [string, number] => [name, tag - base]);
  const taken = new Set(params.map(([, hole]) => hole));
  // the holes whose literals stay in the template: their values pick the compiled kernel
  const staying: number[] = [];
  for (let i = 0; i < n; i++) if (!taken.has(i) && !kept(shape.holes[i] as number, keep)) staying.push(i);
  // a short name for the shape text in keys (hashing the text again for each key would cost a walk)
  const id = `shape${++shapesLearnt}|`;
  return {
    keyOf: (holes) => {
      let key = id;
      for (const i of staying) key += ` ${num(holes[i] as number)}`;
      return key;
    },
    constantsOf: (holes) => {
      const out: Record<string, number> = Object.create(null);
      for (const [name, hole] of params) out[name] = holes[hole] as number;
      return out;
    },
  };
}
