/**
 * What the fast check of a function's shape (shape.generated.ts, generated from the field table
 * by scripts/gen-kernel-fields.ts) carries along its walk and the steps it shares: entering an
 * object within the bound on objects per label, taking a node's label (a label met twice ends the
 * walk), and the identifier rule for the fields that hold names. validate.ts's `isBoundedTree`
 * starts the walk; its header says what an answer of true guarantees.
 *
 * The bound: a labelled node reached twice repeats its label, so a DAG of labelled nodes ends the
 * walk when its first shared node is reached the second time. The objects without a label are the
 * prelude's list cells and options: a tree of kernel values holds a few per labelled node (a cell
 * per element, a `nil` per list, an option per field), so a walk that has entered more than
 * `OBJECTS_PER_LABEL` objects per label, plus `UNLABELLED_SLACK`, ends too: a DAG of unlabelled
 * cells, exponentially big as a tree, is refused after a number of steps linear in its labels.
 */

/** What the walk carries: the depth limit, the labels met and their count, the objects entered. */
export interface TreeWalk {
  readonly limit: number;
  /** The stamp of this walk in `STAMPS` (see `takeLabel`). */
  readonly stamp: number;
  /** The labels met that `STAMPS` does not hold (negative, fractional or large ones). */
  other: Set<number> | undefined;
  /** Labels met so far. */
  labels: number;
  /** Objects entered so far. */
  visited: number;
}

/**
 * The labels met, as stamps: `STAMPS[l]` is the stamp of the last walk that met label `l`, so a
 * walk needs no set of its own for the labels below `STAMPED_LABELS` (a function's labels are
 * small non-negative integers: a counter from the parser's) and nothing to clear afterwards.
 * Walks do not nest (none calls out while it runs).
 */
let STAMPS = new Uint32Array(1024);
let lastStamp = 0;
/** Labels at or above it go to the walk's own set (its stamps would take more than 16 MiB). */
const STAMPED_LABELS = 2 ** 22;

/** A fresh walk with depth limit `limit`. */
export function newWalk(limit: number): TreeWalk {
  if (lastStamp === 0xffffffff) {
    STAMPS.fill(0);
    lastStamp = 0;
  }
  lastStamp++;
  return { limit, stamp: lastStamp, other: undefined, labels: 0, visited: 0 };
}

/**
 * Objects a bounded tree may hold per label: a node, the `nil` and the cell being entered of each
 * of its lists, its options, and its own cell when it is a list's element — at most 8 for the node
 * kinds of the table (`fun`: three lists; tests/kernel/bounded-tree.test.ts checks it).
 */
export const OBJECTS_PER_LABEL = 8;
/** Objects a bounded tree may hold beyond `OBJECTS_PER_LABEL` per label. */
const UNLABELLED_SLACK = 16;

/** Whether `w` may enter one more object. */
export function enter(w: TreeWalk): boolean {
  return ++w.visited <= OBJECTS_PER_LABEL * w.labels + UNLABELLED_SLACK;
}

/**
 * Takes a node's label `l` (read by the caller, at a site of its kind) when it is a number; false
 * when the walk met that label before (0 and -0 are one label, as a `Map` takes them).
 */
export function takeLabel(l: unknown, w: TreeWalk): boolean {
  if (typeof l !== 'number') return true; // the field's own check refuses it
  if (l >>> 0 === l && l < STAMPED_LABELS) {
    if (l >= STAMPS.length) {
      const grown = new Uint32Array(Math.min(STAMPED_LABELS, Math.max(2 * STAMPS.length, l + 1)));
      grown.set(STAMPS);
      STAMPS = grown;
    }
    if (STAMPS[l] === w.stamp) return false;
    STAMPS[l] = w.stamp;
  } else {
    w.other ??= new Set();
    const before = w.other.size;
    if (w.other.add(l).size === before) return false;
  }
  w.labels++;
  return true;
}

/** The string fields that hold names (of variables, arrays, functions): each must be an identifier. */
export const NAME_FIELDS: ReadonlySet<string> = new Set(['name', 'array', 'dest']);

/** An identifier: a letter or `_`, then letters, digits and `_`. */
const IDENTIFIER = /^[\p{L}_][\p{L}\p{N}_]*$/u;
/** An ASCII identifier, which is an identifier (tried first: the common case, and faster). */
const ASCII_IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Names found to be identifiers lately: a function names the same few again and again. */
const KNOWN_IDENTIFIERS = new Set<string>();
/** At most this many names are remembered (then the set starts afresh). */
const KNOWN_LIMIT = 4096;

/** Whether `name` is an identifier (a name is printed into C, JavaScript and WGSL as it is). */
export function isIdentifier(name: string): boolean {
  if (KNOWN_IDENTIFIERS.has(name)) return true;
  if (!ASCII_IDENTIFIER.test(name) && !IDENTIFIER.test(name)) return false;
  if (KNOWN_IDENTIFIERS.size >= KNOWN_LIMIT) KNOWN_IDENTIFIERS.clear();
  if (name.length <= 64) KNOWN_IDENTIFIERS.add(name);
  return true;
}
