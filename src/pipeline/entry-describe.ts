/**
 * Descriptions of a writer's own values (an entry config's `bind`) and the run-time values of its
 * `sample` and `args`, read at the types the entry's SCF-lang signature declares.
 *
 * A description, as JSON (docs/own-ir.md):
 * - a literal: the JSON of the native SCF-lang value. An object with `kind` is a constructor of
 *   the position's type, with exactly its fields; a JSON array is a `List` (or a tuple at a tuple
 *   type); numbers, booleans and strings are themselves;
 * - holes, a string starting with `'`: `'Int`, `'Float` (any number), `'Str`, `'Bool`, `'Any`
 *   (any value of the position's type) and `'T` for a type `T` of the entry's modules that fits
 *   the position; `'A | 'B` is their union;
 * - a union of descriptions: `{ "$oneOf": [d, …] }`;
 * - a literal with holes or unions inside it is a partially known tree.
 * Maps and sets cannot be described (they are `'Any` only).
 *
 * Algorithm. One walk over the JSON tree (jsonc-parser's, with offsets) beside the type: each node
 * becomes an abstract value (abstract-values/value.ts) built fresh, so no two positions share an
 * identity tag. "Any value of type T" is the regular tree of T's declaration: a union of its
 * constructors over their fields' types, under a `fix` where T reaches itself (a list, a tree).
 *
 * Invariants. Every error is an `EntryValueError` at the offset of the JSON value at fault, whose
 * message names the type and, inside a constructor, the field; the caller makes it positioned.
 * A value read by `nativeValue` is a member of the description read by `describeValue` from the
 * same JSON (checked by tests with `conforms`). Objects are built with own properties only, so a
 * `__proto__` key is a field name like any other (and refused unless the type declares it).
 */
import type { Node } from 'jsonc-parser';
import {
  type AbsValue,
  anyBool,
  base,
  con,
  constant,
  fix,
  LIST_ARRAYS,
  MAX_DESCRIBED_LENGTH,
  rec,
  top,
  union,
} from '../abstract-values/index.js';
import { clip } from '../common/index.js';
import { type CtorInfo, type DataType, showType, substitute, type Type } from '../scf-lang/index.js';

/** A description or value that does not fit its type, at `offset` of the config's text. */
export class EntryValueError extends Error {
  constructor(
    readonly offset: number,
    readonly reason: string,
    /** D1001 (syntax of a hole), D1002 (a value that does not fit), D1003 (a parameter). */
    readonly code: 'D1001' | 'D1002' | 'D1003' = 'D1002',
  ) {
    super(reason);
  }
}

/** What reading a description needs: the constructors with their field types. */
export interface TypeContext {
  readonly ctors: ReadonlyMap<string, CtorInfo>;
}

/** The key naming a data type with its arguments (`List<Instr>`). */
function typeKey(t: Type): string {
  return showType(t);
}

/** The type of field `f` of constructor `c` read at data type `t`. */
function fieldAt(c: CtorInfo, f: CtorInfo['fields'][number], t: DataType): Type {
  if (c.typeParams.length === 0) return f.type;
  return substitute(f.type, new Map(c.typeParams.map((p, i) => [p, t.args[i] ?? { tag: 'unknown' }])));
}

/** The data types named by a type, its fields' types and theirs: what `'T` may name. */
export function namedTypes(ctx: TypeContext, roots: readonly Type[]): Map<string, DataType> {
  const out = new Map<string, DataType>();
  const stack = [...roots];
  const seen = new Set<string>();
  while (stack.length > 0) {
    const t = stack.pop() as Type;
    const key = typeKey(t);
    if (seen.has(key)) continue;
    seen.add(key);
    switch (t.tag) {
      case 'data':
        if (!out.has(t.name)) out.set(t.name, t);
        for (const kind of t.ctors) {
          const c = ctx.ctors.get(kind);
          if (c === undefined) continue;
          // a one-constructor type is named by its interface
          if (!out.has(c.typeName))
            out.set(c.typeName, { tag: 'data', name: c.typeName, ctors: [kind], args: t.args });
          for (const f of c.fields) stack.push(fieldAt(c, f, t));
        }
        break;
      case 'tuple':
        stack.push(...t.elems);
        break;
      case 'map':
        stack.push(t.key, t.val);
        break;
      case 'set':
        stack.push(t.elem);
        break;
      default:
        break;
    }
  }
  return out;
}

/** Whether data type `t` reaches itself through its fields (so "any T" needs a `fix`). */
function recursive(ctx: TypeContext, t: DataType): boolean {
  const target = typeKey(t);
  const seen = new Set<string>();
  const stack: Type[] = [];
  const push = (d: DataType): void => {
    for (const kind of d.ctors) {
      const c = ctx.ctors.get(kind);
      if (c) for (const f of c.fields) stack.push(fieldAt(c, f, d));
    }
  };
  push(t);
  while (stack.length > 0) {
    const x = stack.pop() as Type;
    const key = typeKey(x);
    if (key === target) return true;
    if (seen.has(key)) continue;
    seen.add(key);
    if (x.tag === 'data') push(x);
    else if (x.tag === 'tuple') stack.push(...x.elems);
  }
  return false;
}

/** Any value of type `t`: the regular tree of its declaration (fresh nodes everywhere). */
export function anyOfType(ctx: TypeContext, t: Type, binders: readonly string[] = []): AbsValue {
  switch (t.tag) {
    case 'num':
      return base('Float');
    case 'str':
      return base('Str');
    case 'bool':
      return anyBool();
    case 'tuple':
      return con(
        `#${t.elems.length}`,
        t.elems.map((e) => anyOfType(ctx, e, binders)),
      );
    case 'data': {
      const key = typeKey(t);
      const at = binders.lastIndexOf(key);
      if (at >= 0) return rec(binders.length - 1 - at);
      const rec_ = recursive(ctx, t);
      const inner = rec_ ? [...binders, key] : binders;
      const alts = t.ctors.map((kind) => {
        const c = ctx.ctors.get(kind);
        if (c === undefined) return top();
        return con(
          kind,
          c.fields.map((f) => anyOfType(ctx, fieldAt(c, f, t), inner)),
        );
      });
      const body = alts.length === 1 ? (alts[0] as AbsValue) : union(alts);
      return rec_ ? fix(body) : body;
    }
    case 'map':
    case 'set':
    case 'unknown':
    case 'var':
      return top();
    default:
      return t satisfies never;
  }
}

/** How a type is written in messages. */
function shown(t: Type): string {
  return `'${showType(t)}'`;
}

/** The element type of a `List<T>`, or undefined. */
function listElem(t: Type): Type | undefined {
  if (t.tag !== 'data' || t.name !== 'List') return undefined;
  return t.args[0] ?? { tag: 'unknown' };
}

/** A hole's text (`'Int`, `'Instr | 'Str`) at type `t`. */
function holeAt(
  ctx: TypeContext,
  text: string,
  t: Type,
  offset: number,
  names: Map<string, DataType>,
): AbsValue {
  const alts = text.split('|').map((s) => s.trim());
  return union(
    alts.map((alt) => {
      const m = /^'([A-Za-z_$][\w$]*)$/.exec(alt);
      if (!m)
        throw new EntryValueError(
          offset,
          `'${clip(alt)}' is not a hole ('Int, 'Float, 'Str, 'Bool, 'Any or 'T for a type T)`,
          'D1001',
        );
      const name = m[1] as string;
      const fits = (ok: boolean, v: () => AbsValue): AbsValue => {
        if (!ok) throw new EntryValueError(offset, `'${name} does not fit type ${shown(t)}`);
        return v();
      };
      switch (name) {
        case 'Any':
          return anyOfType(ctx, t);
        case 'Int':
          return fits(t.tag === 'num', () => base('Int'));
        case 'Float':
          return fits(t.tag === 'num', () => base('Float'));
        case 'Str':
          return fits(t.tag === 'str', () => base('Str'));
        case 'Bool':
          return fits(t.tag === 'bool', () => anyBool());
        default: {
          const d = names.get(name);
          if (d === undefined)
            throw new EntryValueError(
              offset,
              `no type '${clip(name)}' is declared where type ${shown(t)} is expected`,
            );
          return fits(t.tag === 'data' && d.ctors.every((k) => t.ctors.includes(k)), () =>
            anyOfType(ctx, t.tag === 'data' ? { ...d, args: d.args.length > 0 ? d.args : t.args } : d),
          );
        }
      }
    }),
  );
}

/** The properties of a JSON object node, as [key, key node, value node]. */
function props(n: Node): [string, Node, Node][] {
  return (n.children ?? []).map((p) => {
    const [k, v] = p.children as [Node, Node];
    return [k.value as string, k, v];
  });
}

/** Reads descriptions (`describeValue`) and values (`nativeValue`) of the entry's types. */
export class EntryValues {
  private readonly names: Map<string, DataType>;

  constructor(
    private readonly ctx: TypeContext,
    roots: readonly Type[],
  ) {
    this.names = namedTypes(ctx, roots);
  }

  /** Any value of type `t` (`anyOfType`): what an argument of that type may be. */
  anyOf(t: Type): AbsValue {
    return anyOfType(this.ctx, t);
  }

  /** The abstract value a JSON description denotes at type `t`. */
  describe(n: Node, t: Type): AbsValue {
    return this.walk(n, t, true) as AbsValue;
  }

  /** The native SCF-lang value a JSON literal denotes at type `t` (no holes). */
  value(n: Node, t: Type): unknown {
    return this.walk(n, t, false);
  }

  private walk(n: Node, t: Type, abstract: boolean): unknown {
    const wrong = (what: string): never => {
      throw new EntryValueError(n.offset, `${what} does not fit type ${shown(t)}`);
    };
    switch (n.type) {
      case 'number':
        if (t.tag !== 'num') wrong(`the number ${clip(String(n.value))}`);
        return abstract ? constant(n.value as number) : n.value;
      case 'boolean':
        if (t.tag !== 'bool') wrong(`${String(n.value)}`);
        return abstract ? constant(n.value as boolean) : n.value;
      case 'null':
        return wrong('null');
      case 'string': {
        const s = n.value as string;
        if (abstract && s.startsWith("'")) return holeAt(this.ctx, s, t, n.offset, this.names);
        if (t.tag !== 'str') wrong(`the string ${JSON.stringify(clip(s))}`);
        return abstract ? constant(s) : s;
      }
      case 'array': {
        const items = n.children ?? [];
        if (items.length > MAX_DESCRIBED_LENGTH)
          throw new EntryValueError(
            n.offset,
            `a list of ${items.length} elements (at most ${MAX_DESCRIBED_LENGTH})`,
          );
        if (t.tag === 'tuple') {
          if (items.length !== t.elems.length) wrong(`a tuple of ${items.length}`);
          const parts = items.map((x, i) => this.walk(x, t.elems[i] as Type, abstract));
          return abstract ? con(`#${parts.length}`, parts as AbsValue[]) : parts;
        }
        const elem = listElem(t);
        if (elem === undefined) return wrong('a JSON array (a List)');
        const parts = items.map((x) => this.walk(x, elem, abstract));
        if (abstract) return LIST_ARRAYS.exactly(parts as AbsValue[]);
        let out: unknown = { kind: 'nil' };
        for (let i = parts.length - 1; i >= 0; i--) out = { kind: 'cons', head: parts[i], tail: out };
        return out;
      }
      case 'object':
        return this.object(n, t, abstract);
      default:
        return wrong('this value');
    }
  }

  private object(n: Node, t: Type, abstract: boolean): unknown {
    const ps = props(n);
    const oneOf = ps.find(([k]) => k === '$oneOf');
    if (oneOf !== undefined) {
      if (!abstract)
        throw new EntryValueError(n.offset, "'$oneOf' describes values; here a value is expected");
      const [, , alts] = oneOf;
      if (ps.length !== 1 || alts.type !== 'array' || (alts.children ?? []).length === 0)
        throw new EntryValueError(
          n.offset,
          "'$oneOf' is an object's only key, and holds a non-empty array of descriptions",
        );
      return union((alts.children ?? []).map((a) => this.walk(a, t, true) as AbsValue));
    }
    const kindProp = ps.find(([k]) => k === 'kind');
    if (t.tag !== 'data')
      throw new EntryValueError(
        n.offset,
        `an object does not fit type ${shown(t)}${t.tag === 'map' || t.tag === 'set' ? " (maps and sets cannot be described: use 'Any)" : ''}`,
      );
    if (kindProp === undefined || kindProp[2].type !== 'string')
      throw new EntryValueError(
        n.offset,
        `an object of type ${shown(t)} needs a string 'kind' (one of ${t.ctors.map((c) => `'${c}'`).join(', ')})`,
      );
    const kind = kindProp[2].value as string;
    const c = this.ctx.ctors.get(kind);
    if (c === undefined || !t.ctors.includes(kind))
      throw new EntryValueError(
        kindProp[2].offset,
        `type ${shown(t)} has no constructor '${clip(kind)}' (expected ${t.ctors.map((x) => `'${x}'`).join(', ')})`,
      );
    const given = new Map<string, Node>();
    for (const [k, kn, v] of ps) {
      if (k === 'kind') continue;
      if (!c.fields.some((f) => f.name === k))
        throw new EntryValueError(
          kn.offset,
          `constructor '${kind}' of type ${shown(t)} has no field '${clip(k)}'${c.fields.length > 0 ? ` (its fields: ${c.fields.map((f) => `'${f.name}'`).join(', ')})` : ''}`,
        );
      given.set(k, v);
    }
    const parts = c.fields.map((f) => {
      const v = given.get(f.name);
      if (v === undefined)
        throw new EntryValueError(
          n.offset,
          `constructor '${kind}' of type ${shown(t)} needs its field '${f.name}'`,
        );
      try {
        return this.walk(v, fieldAt(c, f, t), abstract);
      } catch (e) {
        if (e instanceof EntryValueError && !e.reason.includes(' (in field '))
          throw new EntryValueError(e.offset, `${e.reason} (in field '${f.name}' of '${kind}')`, e.code);
        throw e;
      }
    });
    if (abstract) return con(kind, parts as AbsValue[]);
    const out: Record<string, unknown> = {};
    Object.defineProperty(out, 'kind', { value: kind, enumerable: true, writable: true, configurable: true });
    c.fields.forEach((f, i) => {
      Object.defineProperty(out, f.name, {
        value: parts[i],
        enumerable: true,
        writable: true,
        configurable: true,
      });
    });
    return out;
  }
}
