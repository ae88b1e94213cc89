/**
 * Types of the SCF-lang subset, as the front end's own checker sees them.
 *
 * The subset's types are few: number, boolean, string; algebraic data types (a set of
 * constructors, possibly narrowed by `kind` tests); tuples; the prelude's maps and sets.
 * `unknown` is the checker's wildcard: the element type of an empty collection before
 * anything fixes it, and the type given to erroneous expressions so one error does not
 * cascade. Type variables appear in the prelude's generic signatures and in those of generic
 * functions (`function nth<T>(…)`), whose bodies treat them as opaque types.
 *
 * This checker is not a replacement for `tsc` (which checks the same files in full); it
 * infers what desugaring needs — which constructors a value may have — and rejects what
 * the subset forbids.
 */
export type Type =
  | { readonly tag: 'num' }
  | { readonly tag: 'bool' }
  | { readonly tag: 'str' }
  | DataType
  | { readonly tag: 'tuple'; readonly elems: readonly Type[] }
  | { readonly tag: 'map'; readonly key: Type; readonly val: Type }
  | { readonly tag: 'set'; readonly elem: Type }
  | { readonly tag: 'unknown' }
  | { readonly tag: 'var'; readonly name: string };

/** A data type: the constructors (kinds) a value may have. `args` instantiate a generic prelude type. */
export interface DataType {
  readonly tag: 'data';
  readonly name: string;
  readonly ctors: readonly string[];
  readonly args: readonly Type[];
}

export const NUM: Type = { tag: 'num' };
export const BOOL: Type = { tag: 'bool' };
export const STR: Type = { tag: 'str' };
export const UNKNOWN: Type = { tag: 'unknown' };

export function isPrimType(t: Type): boolean {
  return t.tag === 'num' || t.tag === 'bool' || t.tag === 'str';
}

/** The TypeScript spelling of the types without parts. */
const ATOM_NAMES = { num: 'number', bool: 'boolean', str: 'string', unknown: 'unknown' } as const;

export function showType(t: Type): string {
  switch (t.tag) {
    case 'num':
    case 'bool':
    case 'str':
    case 'unknown':
      return ATOM_NAMES[t.tag];
    case 'var':
      return t.name;
    case 'tuple':
      return `[${t.elems.map(showType).join(', ')}]`;
    case 'map':
      return `PMap<${showType(t.key)}, ${showType(t.val)}>`;
    case 'set':
      return `PSet<${showType(t.elem)}>`;
    case 'data': {
      const args = t.args.length > 0 ? `<${t.args.map(showType).join(', ')}>` : '';
      return `${t.name}${args}`;
    }
  }
}

/** Whether a value of type `actual` may be used where `expected` is required. */
export function assignable(actual: Type, expected: Type): boolean {
  if (actual.tag === 'unknown' || expected.tag === 'unknown') return true;
  switch (expected.tag) {
    case 'var':
      return actual.tag === 'var' && actual.name === expected.name;
    case 'data': {
      if (actual.tag !== 'data') return false;
      if (!actual.ctors.every((c) => expected.ctors.includes(c))) return false;
      if (actual.args.length === 0 || expected.args.length === 0) return true;
      return actual.args.every(
        (a, i) => i >= expected.args.length || assignable(a, expected.args[i] as Type),
      );
    }
    default:
      return sameShape(expected, actual, (e, a) => assignable(a, e));
  }
}

/**
 * Whether `actual` is a primitive type, tuple, map or set as `expected` is, with its parts related
 * to `expected`'s by `parts(expected part, actual part)` (called in order, left to right): the
 * common case of `assignable` and `unify`, which differ on type variables and data types.
 */
function sameShape(
  expected: Exclude<Type, { tag: 'var' | 'data' | 'unknown' }>,
  actual: Type,
  parts: (expected: Type, actual: Type) => boolean,
): boolean {
  switch (expected.tag) {
    case 'num':
    case 'bool':
    case 'str':
      return actual.tag === expected.tag;
    case 'tuple':
      return (
        actual.tag === 'tuple' &&
        actual.elems.length === expected.elems.length &&
        expected.elems.every((e, i) => parts(e, actual.elems[i] as Type))
      );
    case 'map':
      return actual.tag === 'map' && parts(expected.key, actual.key) && parts(expected.val, actual.val);
    case 'set':
      return actual.tag === 'set' && parts(expected.elem, actual.elem);
  }
}

/** The least type covering both, when there is one (used for the two arms of a conditional). */
export function join(a: Type, b: Type): Type | null {
  if (a.tag === 'unknown') return b;
  if (b.tag === 'unknown') return a;
  if (assignable(a, b)) return refineUnknowns(b, a);
  if (assignable(b, a)) return refineUnknowns(a, b);
  if (a.tag === 'data' && b.tag === 'data') {
    const ctors = [...a.ctors, ...b.ctors.filter((c) => !a.ctors.includes(c))];
    const args: Type[] = [];
    const n = Math.max(a.args.length, b.args.length);
    for (let i = 0; i < n; i++) {
      const x = a.args[i] ?? UNKNOWN;
      const y = b.args[i] ?? UNKNOWN;
      const j = join(x, y);
      if (j === null) return null;
      args.push(j);
    }
    return { tag: 'data', name: a.name === b.name ? a.name : `${a.name} | ${b.name}`, ctors, args };
  }
  return null;
}

/** `t` with its `unknown` parts filled in from `from` where `from` knows more. */
function refineUnknowns(t: Type, from: Type): Type {
  if (t.tag === 'unknown') return from;
  if (t.tag === 'map' && from.tag === 'map') {
    return { tag: 'map', key: refineUnknowns(t.key, from.key), val: refineUnknowns(t.val, from.val) };
  }
  if (t.tag === 'set' && from.tag === 'set') return { tag: 'set', elem: refineUnknowns(t.elem, from.elem) };
  if (t.tag === 'data' && from.tag === 'data' && from.args.length === t.args.length) {
    return { ...t, args: t.args.map((a, i) => refineUnknowns(a, from.args[i] as Type)) };
  }
  return t;
}

/** Binds type variables of `pattern` so that `actual` fits it; false when it cannot. */
export function unify(pattern: Type, actual: Type, subst: Map<string, Type>): boolean {
  if (pattern.tag === 'var') {
    const bound = subst.get(pattern.name);
    if (bound === undefined || bound.tag === 'unknown') {
      subst.set(pattern.name, actual);
      return true;
    }
    const j = join(bound, actual);
    if (j === null) return false;
    subst.set(pattern.name, j);
    return true;
  }
  if (actual.tag === 'unknown' || pattern.tag === 'unknown') return true;
  switch (pattern.tag) {
    case 'data':
      if (actual.tag !== 'data') return false;
      if (!actual.ctors.every((c) => pattern.ctors.includes(c))) return false;
      return pattern.args.every((p, i) => unify(p, actual.args[i] ?? UNKNOWN, subst));
    default:
      return sameShape(pattern, actual, (p, a) => unify(p, a, subst));
  }
}

/** Whether type variable `name` occurs in `t`. */
export function mentionsVar(t: Type, name: string): boolean {
  switch (t.tag) {
    case 'var':
      return t.name === name;
    case 'tuple':
      return t.elems.some((e) => mentionsVar(e, name));
    case 'map':
      return mentionsVar(t.key, name) || mentionsVar(t.val, name);
    case 'set':
      return mentionsVar(t.elem, name);
    case 'data':
      return t.args.some((a) => mentionsVar(a, name));
    default:
      return false;
  }
}

export function substitute(t: Type, subst: ReadonlyMap<string, Type>): Type {
  switch (t.tag) {
    case 'var':
      return subst.get(t.name) ?? UNKNOWN;
    case 'tuple':
      return { tag: 'tuple', elems: t.elems.map((e) => substitute(e, subst)) };
    case 'map':
      return { tag: 'map', key: substitute(t.key, subst), val: substitute(t.val, subst) };
    case 'set':
      return { tag: 'set', elem: substitute(t.elem, subst) };
    case 'data':
      return t.args.length === 0 ? t : { ...t, args: t.args.map((a) => substitute(a, subst)) };
    default:
      return t;
  }
}

/** `t` restricted to the constructors in `keep`. */
export function narrow(t: DataType, keep: (ctor: string) => boolean): DataType {
  return { ...t, ctors: t.ctors.filter(keep) };
}

/** The prelude's `Option<elem>`. */
export function optionType(elem: Type): DataType {
  return { tag: 'data', name: 'Option', ctors: ['none', 'some'], args: [elem] };
}

/** The prelude's `List<elem>`. */
export function listType(elem: Type): DataType {
  return { tag: 'data', name: 'List', ctors: ['nil', 'cons'], args: [elem] };
}
