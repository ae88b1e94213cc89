/**
 * The kernel AST's children, defined once from its field table (fields.generated.ts, generated
 * from ast.ts by `npm run gen:fields`), as Binaryen's `wasm-delegations-fields.def` and acorn-walk's
 * `base` do for theirs: `children` and `mapChildren` know every node kind's fields, so generic walks
 * (walk.ts, depth.ts, `astNodes`, `soacCommands`, validate.ts, print.ts's lambda lifting and
 * forward declarations) and the Fig. 6 printer's constructor table need no case per kind, and a new
 * kind reaches them by regenerating the table.
 *
 * A *kernel value* is a node, a prelude list cell (`cons`/`nil`) or option (`some`/`none`) of
 * kernel values, or a scalar. A field holds children when its type is a node type, a list or an
 * option (an `Option<number>` too: its `some` cell is an object a walk visits, as before the table).
 * Not SCF-lang (it reads a table); the SCF-lang passes keep their own switches, checked against the
 * table by tests/kernel/fields.test.ts, and read leaf commands through src/optimizers/leaf.generated.ts
 * (generated from ast.ts with this table).
 */
import { type FieldType, KERNEL_NODES, type KernelNode, type NodeInfo } from './fields.generated.js';

export {
  type FieldInfo,
  type FieldType,
  KERNEL_NODES,
  KERNEL_UNIONS,
  type KernelNode,
  type NodeInfo,
} from './fields.generated.js';

/** One field of a constructor: its name and whether it holds children (nodes, lists, options). */
export interface Slot {
  readonly name: string;
  readonly child: boolean;
}

/** Whether a field of type `t` holds kernel values that are objects. */
function holdsChildren(t: FieldType): boolean {
  return t.tag === 'node' || t.tag === 'list' || t.tag === 'option';
}

/** The prelude's list and option constructors, as kernel values use them. */
const PRELUDE_SLOTS: ReadonlyMap<string, readonly Slot[]> = new Map([
  ['cons', [slot('head'), slot('tail')]],
  ['nil', []],
  ['some', [slot('value')]],
  ['none', []],
]);

function slot(name: string): Slot {
  return { name, child: true };
}

const SLOTS: ReadonlyMap<string, readonly Slot[]> = new Map([
  ...(Object.entries(KERNEL_NODES) as [string, NodeInfo][]).map(([kind, info]): [string, Slot[]] => [
    kind,
    info.fields.map((f) => ({ name: f.name, child: holdsChildren(f.type) })),
  ]),
  ...PRELUDE_SLOTS,
]);

/** The table entry of a node kind (undefined for the prelude's constructors and unknown kinds). */
export function nodeInfo(kind: string): NodeInfo | undefined {
  return Object.hasOwn(KERNEL_NODES, kind) ? (KERNEL_NODES as Record<string, NodeInfo>)[kind] : undefined;
}

/** Whether `x` is a node of the kernel AST (an object whose `kind` is in the table). */
export function isKernelNode(x: unknown): x is KernelNode {
  return (
    typeof x === 'object' && x !== null && nodeInfo((x as { kind?: unknown }).kind as string) !== undefined
  );
}

/**
 * The fields of kernel value `x` but `kind`, in declaration order (`lbl` last on a node); throws on
 * an object that is no kernel value (a kind outside the table and the prelude's lists and options).
 */
export function slotsOf(x: object): readonly Slot[] {
  const kind = (x as { kind?: unknown }).kind;
  const slots = typeof kind === 'string' ? SLOTS.get(kind) : undefined;
  if (slots === undefined) throw new Error(`internal error: not a kernel value (kind ${String(kind)})`);
  return slots;
}

/** The values of `x`'s fields that hold children, in declaration order (scalars of an option too). */
export function children(x: object): unknown[] {
  const o = x as Record<string, unknown>;
  const out: unknown[] = [];
  for (const s of slotsOf(x)) if (s.child) out.push(o[s.name]);
  return out;
}

/**
 * A copy of kernel value `x` with each child `c` replaced by `f(c)` and its label by `lbl()` (when it
 * has one; called before `f`, so a pre-order numbering runs parents first); keys in declaration order.
 */
export function mapChildren<T extends object>(x: T, f: (c: unknown) => unknown, lbl?: () => number): T {
  const o = x as Record<string, unknown>;
  const out: Record<string, unknown> = { kind: o.kind };
  const slots = slotsOf(x);
  const own = lbl !== undefined && slots.some((s) => s.name === 'lbl') ? lbl() : undefined;
  for (const s of slots)
    out[s.name] = s.name === 'lbl' && own !== undefined ? own : s.child ? f(o[s.name]) : o[s.name];
  return out as T;
}

/**
 * The nodes held by `x`'s fields declared of node type `name` (directly or in a list or an option),
 * in declaration order: `nodesOfType(c, 'Cmd')` are a command's sub-commands.
 */
export function nodesOfType(x: KernelNode, name: string): KernelNode[] {
  const info = nodeInfo(x.kind) as NodeInfo;
  const o = x as unknown as Record<string, unknown>;
  const out: KernelNode[] = [];
  const add = (t: FieldType, v: unknown): void => {
    if (t.tag === 'node') {
      if (t.name === name) out.push(v as KernelNode);
    } else if (t.tag === 'option') {
      const opt = v as { kind: string; value?: unknown };
      if (opt.kind === 'some') add(t.of, opt.value);
    } else if (t.tag === 'list') {
      for (
        let l = v as { kind: string; head?: unknown; tail?: unknown };
        l.kind === 'cons';
        l = l.tail as typeof l
      )
        add(t.of, l.head);
    }
  };
  for (const f of info.fields) add(f.type, o[f.name]);
  return out;
}
