/**
 * Describing inputs (SCF §2.2, Fig. 4's `toAbsValue`): the early-stage user writes what is
 * known about an input, and gets the abstract value whose members are exactly the inputs meant.
 *
 * Two front doors:
 * - `toAbsValue(x)`: a concrete SCF-lang value with holes (`holes.int` for "some integer",
 *   `holes.oneOf(0, 1)`, `holes.array(holes.any, 3)` for "some array of length 3", …).
 * - `parseDescription(text)`: the textual syntax of configurations:
 *
 *     d ::= d '|' d | 'fix' x '.' d | x                 union, recursion, recursion variable
 *         | 'Int | 'Float | 'Str | 'Bool | 'Any | 'Empty  base sets, 1 and 0
 *         | 'Array ['(' d ')'] ['[' n ']']              array of any length / length n
 *         | 123 | -1.5 | NaN | Infinity | "str" | true | false
 *         | c | c '(' d, … ')'                        constructor (checked against the table;
 *                                                     `#n(…)` is the n-tuple)
 *         | '(' d ')' | '(' d ',' d, … ')'              grouping, tuple (#n)
 *         | '[' d, … ']'                              array with these elements
 *         | '{' k ['?'] ':' d, … '}'                   map: constant keys certain (must), others
 *                                                     (and `k?:`) may
 *         | '#{' d ['?'], … '}'                        set: constants certain, others (and `d?`) may
 *
 * Arrays are abstract over their representation (`ArrayRepr`); the default is the prelude's
 * cons list. A description states at most `MAX_DESCRIBED_LENGTH` elements of an array (`'Array[n]`,
 * `[d, …]`, `holes.array(d, n)`): each is a node, so a length such as 10^9 would exhaust memory
 * rather than fail. Errors (`DescriptionError`) name the position: a path such as `$.body.e[1]`
 * for `toAbsValue`, `line:col` for text.
 */
import { Map as IMap, Set as ISet } from 'immutable';
import { lineCol } from '../common/index.js';
import { type CtorTable, fieldsOf, isPrimValue, tupleArity, withPrelude } from './member.js';
import {
  type AbsValue,
  absMap,
  absSet,
  anyBool,
  base,
  bottom,
  con,
  constant,
  fix,
  freshen,
  type MapBinding,
  type MayBinding,
  type Prim,
  rec,
  top,
  union,
} from './value.js';

/** How arrays of the kernel language are represented as SCF-lang values. */
export interface ArrayRepr {
  /** Arrays with exactly these elements. */
  exactly(elems: readonly AbsValue[]): AbsValue;
  /** Arrays whose every element is in `elem`, of length `length` (any length when undefined). */
  of(elem: AbsValue, length?: number): AbsValue;
}

/**
 * The most elements a description states of one array: a length `'Array[n]` or
 * `holes.array(d, n)` gives, or the elements a `[d, …]` lists (2^13). Staging costs memory in
 * proportion to the elements stated (about 10 KB each: an abstract value, its admission code and
 * the staged code that reads it), so this keeps a config's staging under 1 GB; longer arrays are
 * described by `'Array`, of any length.
 */
export const MAX_DESCRIBED_LENGTH = 2 ** 13;

/** The most elements a config's descriptions state over all its array formals (2^14). */
export const MAX_DESCRIBED_TOTAL = 2 ** 14;

/** Arrays as the prelude's cons lists (`List<T>`): the default. */
export const LIST_ARRAYS: ArrayRepr = {
  exactly(elems) {
    let out: AbsValue = con('nil', []);
    for (let i = elems.length - 1; i >= 0; i--) out = con('cons', [elems[i] as AbsValue, out]);
    return out;
  },
  of(elem, length) {
    // each position its own copy: one node (one tag) at n positions would claim n equal elements
    if (length !== undefined) return LIST_ARRAYS.exactly(Array.from({ length }, () => freshen(elem)));
    return fix(union([con('cons', [elem, rec(0)]), con('nil', [])]));
  },
};

export interface DescribeOptions {
  /** Constructor table; the prelude's constructors are always included. */
  readonly ctors?: CtorTable;
  readonly arrays?: ArrayRepr;
}

/**
 * The description language's diagnostic codes, sorted. A configuration reports them under their
 * own codes, at the description's place in the file (`FILE:L:C: error D1001: …`).
 */
export const DESCRIPTION_CODES = {
  /** The text is not a description: syntax, nesting. */
  D1001: 'syntax',
  /** A value description names an unknown constructor, or gives a constructor the wrong fields. */
  D1002: 'value',
  /** A description that does not fit its formal's type, or names no formal. */
  D1003: 'formal',
} as const;

export type DescriptionCode = keyof typeof DESCRIPTION_CODES;

export class DescriptionError extends Error {
  constructor(
    message: string,
    /** `$.field[1]` for value descriptions, `line:col` for text. */
    readonly position: string,
    readonly code: DescriptionCode = 'D1002',
  ) {
    super(`${position}: ${message}`);
    this.name = 'DescriptionError';
  }
}

// ---- holes ----------------------------------------------------------------------------------

const HOLE: unique symbol = Symbol('scf.abstract-values.hole');

/** A placeholder in a concrete value for an unknown part. */
export interface Hole {
  readonly [HOLE]: (opts: Required<DescribeOptions>, path: string) => AbsValue;
}

function hole(f: Hole[typeof HOLE]): Hole {
  return { [HOLE]: f };
}

function isHole(x: unknown): x is Hole {
  return typeof x === 'object' && x !== null && HOLE in x;
}

const ANY: Hole = hole(() => top());

/** Holes for `toAbsValue`. */
export const holes = {
  /** Some int32 integer ('Int). */
  int: hole(() => base('Int')),
  /** Some number ('Float). */
  float: hole(() => base('Float')),
  str: hole(() => base('Str')),
  bool: hole(() => anyBool()),
  /** Any value (1). */
  any: ANY,
  /** One of the described values: `oneOf(0, 1)` is 0|1. */
  oneOf: (...xs: unknown[]): Hole =>
    hole((o, path) => union(xs.map((x, i) => describeValue(x, o, `${path}<${i}>`)))),
  /** An array whose elements are described by `elem`, of length `length` (any when omitted). */
  array: (elem: unknown = ANY, length?: number): Hole =>
    hole((o, path) => {
      if (length !== undefined && length > MAX_DESCRIBED_LENGTH) {
        throw new DescriptionError(
          `an array of ${length} elements is more than a description states (MAX_DESCRIBED_LENGTH = ${MAX_DESCRIBED_LENGTH}); leave the length out for any length`,
          path,
        );
      }
      return o.arrays.of(describeValue(elem, o, `${path}[*]`), length);
    }),
  /** An array with exactly these elements (each possibly a hole). */
  arrayOf: (...elems: unknown[]): Hole =>
    hole((o, path) => o.arrays.exactly(elems.map((e, i) => describeValue(e, o, `${path}[${i}]`)))),
  /** An abstract value built by hand. */
  abs: (v: AbsValue): Hole => hole(() => v),
} as const;

/**
 * The abstract value of a concrete SCF-lang value with holes. Constructor objects are checked
 * against the table: an unknown constructor or a wrong field set throws `DescriptionError`
 * naming the path.
 */
export function toAbsValue(x: unknown, opts: DescribeOptions = {}): AbsValue {
  return describeValue(x, { ctors: withPrelude(opts.ctors), arrays: opts.arrays ?? LIST_ARRAYS }, '$');
}

/**
 * The walk of `toAbsValue`. A constructor's last field (a list's tail) is followed by a loop, not
 * a call, so a long list takes no stack; nodes are built in the order a recursive walk builds
 * them (each field before the node, left to right).
 */
function describeValue(x0: unknown, o: Required<DescribeOptions>, path0: string): AbsValue {
  // the constructors along the last fields from `x0`, with their other fields described
  const spine: { readonly ctor: string; readonly init: readonly AbsValue[] }[] = [];
  let x = x0;
  let path = path0;
  let out: AbsValue;
  for (;;) {
    if (
      typeof x === 'object' &&
      x !== null &&
      !isHole(x) &&
      !Array.isArray(x) &&
      !IMap.isMap(x) &&
      !ISet.isSet(x)
    ) {
      if (typeof (x as { kind?: unknown }).kind === 'string') {
        const obj = x as { readonly kind: string; readonly [f: string]: unknown };
        const fields = ctorFieldsOf(obj, o, path);
        if (fields.length > 0) {
          const init: AbsValue[] = [];
          for (const f of fields.slice(0, -1)) init.push(describeValue(obj[f], o, `${path}.${f}`));
          spine.push({ ctor: obj.kind, init });
          const last = fields[fields.length - 1] as string;
          x = obj[last];
          path = `${path}.${last}`;
          continue;
        }
        out = con(obj.kind, []);
        break;
      }
    }
    out = describeLeaf(x, o, path);
    break;
  }
  for (let i = spine.length - 1; i >= 0; i--) {
    const s = spine[i] as { readonly ctor: string; readonly init: readonly AbsValue[] };
    out = con(s.ctor, [...s.init, out]);
  }
  return out;
}

/** The fields of constructor object `obj`, checked against the table. */
function ctorFieldsOf(
  obj: { readonly kind: string; readonly [f: string]: unknown },
  o: Required<DescribeOptions>,
  path: string,
): readonly string[] {
  const fields = fieldsOf(obj.kind, o.ctors);
  if (fields === undefined) throw new DescriptionError(`unknown constructor '${obj.kind}'`, path);
  const given = Object.keys(obj).filter((k) => k !== 'kind');
  const missing = fields.filter((f) => !given.includes(f));
  const extra = given.filter((f) => !fields.includes(f));
  if (missing.length > 0 || extra.length > 0) {
    throw new DescriptionError(
      `constructor '${obj.kind}' has ${fields.length} field(s) (${fields.join(', ') || 'none'}), ` +
        `got ${given.length} (${given.join(', ') || 'none'})` +
        (missing.length > 0 ? `; missing ${missing.join(', ')}` : '') +
        (extra.length > 0 ? `; unexpected ${extra.join(', ')}` : ''),
      path,
    );
  }
  return fields;
}

/** `describeValue` of anything but a constructor object. */
function describeLeaf(x: unknown, o: Required<DescribeOptions>, path: string): AbsValue {
  if (isHole(x)) return x[HOLE](o, path);
  if (isPrimValue(x)) return constant(x);
  if (Array.isArray(x))
    return con(
      `#${x.length}`,
      x.map((y, i) => describeValue(y, o, `${path}[${i}]`)),
    );
  if (IMap.isMap(x)) {
    const must: MapBinding[] = [];
    const may: MayBinding[] = [];
    for (const [k, y] of x as IMap<unknown, unknown>) {
      const v = describeValue(y, o, `${path}{${String(k)}}`);
      if (isPrimValue(k)) must.push([k, v]);
      else may.push([describeValue(k, o, `${path}{key}`), v]);
    }
    return absMap(must, may);
  }
  if (ISet.isSet(x)) {
    const must: Prim[] = [];
    const may: AbsValue[] = [];
    for (const y of x as ISet<unknown>) {
      if (isPrimValue(y)) must.push(y);
      else may.push(describeValue(y, o, `${path}{elem}`));
    }
    return absSet(must, union(may));
  }
  throw new DescriptionError(`not a describable value: ${String(x)}`, path);
}

// ---- the textual syntax -------------------------------------------------------------------

type Tok =
  | { readonly t: 'num'; readonly v: number; readonly at: number }
  | { readonly t: 'str'; readonly v: string; readonly at: number }
  | { readonly t: 'id'; readonly v: string; readonly at: number }
  | { readonly t: 'base'; readonly v: string; readonly at: number }
  | { readonly t: 'punct'; readonly v: string; readonly at: number }
  | { readonly t: 'eof'; readonly at: number };

const ID_START = /[A-Za-z_$\u0370-\u03ff]/;
const ID_PART = /[A-Za-z0-9_$\u0370-\u03ff]/;

function lex(text: string): Tok[] {
  const out: Tok[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i] as string;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    const at = i;
    if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(text[i + 1] ?? ''))) {
      const m = /^(?:0[xX][0-9a-fA-F]+|[0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)/.exec(text.slice(i));
      const s = (m as RegExpExecArray)[0];
      out.push({ t: 'num', v: Number(s), at });
      i += s.length;
    } else if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      if (j >= text.length) throw posError(text, at, 'unterminated string');
      let v: string;
      try {
        v = JSON.parse(text.slice(i, j + 1)) as string;
      } catch {
        throw posError(text, at, 'bad string literal');
      }
      out.push({ t: 'str', v, at });
      i = j + 1;
    } else if (c === "'") {
      let j = i + 1;
      while (j < text.length && ID_PART.test(text[j] as string)) j++;
      out.push({ t: 'base', v: text.slice(i + 1, j), at });
      i = j;
    } else if (ID_START.test(c)) {
      let j = i + 1;
      while (j < text.length && ID_PART.test(text[j] as string)) j++;
      out.push({ t: 'id', v: text.slice(i, j), at });
      i = j;
    } else if (c === '#' && /[0-9]/.test(text[i + 1] ?? '')) {
      let j = i + 1;
      while (j < text.length && /[0-9]/.test(text[j] as string)) j++;
      out.push({ t: 'id', v: text.slice(i, j), at });
      i = j;
    } else if (c === '#' && text[i + 1] === '{') {
      out.push({ t: 'punct', v: '#{', at });
      i += 2;
    } else if ('|.,:?()[]{}-'.includes(c)) {
      out.push({ t: 'punct', v: c, at });
      i++;
    } else {
      throw posError(text, at, `unexpected character '${c}'`);
    }
  }
  out.push({ t: 'eof', at: text.length });
  return out;
}

function posError(
  text: string,
  at: number,
  message: string,
  code: DescriptionCode = 'D1001',
): DescriptionError {
  const { line, col } = lineCol(text, Math.min(at, text.length));
  return new DescriptionError(message, `${line}:${col}`, code);
}

/** Parses the textual description syntax (see the module comment) into an abstract value. */
export function parseDescription(text: string, opts: DescribeOptions = {}): AbsValue {
  return new DescriptionParser(text, lex(text), withPrelude(opts.ctors), opts.arrays ?? LIST_ARRAYS).parse();
}

/** The recursive-descent parser of `parseDescription`, over the tokens of one description. */
class DescriptionParser {
  private pos = 0;
  /** `fix` variables in scope, innermost last. */
  private readonly scope: string[] = [];

  constructor(
    private readonly text: string,
    private readonly toks: readonly Tok[],
    private readonly ctors: CtorTable,
    private readonly arrays: ArrayRepr,
  ) {}

  /** The whole description: one value, then the end of the text. */
  parse(): AbsValue {
    const v = this.parseUnion();
    const end = this.peek();
    if (end.t !== 'eof') throw this.err(end, 'unexpected text after the description');
    return v;
  }

  private peek(): Tok {
    return this.toks[this.pos] as Tok;
  }

  private next(): Tok {
    return this.toks[this.pos++] as Tok;
  }

  private err(tok: Tok, m: string, code: DescriptionCode = 'D1001'): DescriptionError {
    return posError(this.text, tok.at, m, code);
  }

  private isP(v: string) {
    const t = this.peek();
    return t.t === 'punct' && t.v === v;
  }
  private expect(v: string): Tok {
    const t = this.next();
    if (t.t !== 'punct' || t.v !== v) throw this.err(t, `expected '${v}'`);
    return t;
  }
  private list(close: string, item: () => void): void {
    if (this.isP(close)) {
      this.next();
      return;
    }
    for (;;) {
      item();
      if (this.isP(',')) {
        this.next();
        continue;
      }
      this.expect(close);
      return;
    }
  }

  private parseUnion(): AbsValue {
    const alts = [this.parsePrefix()];
    while (this.isP('|')) {
      this.next();
      alts.push(this.parsePrefix());
    }
    return alts.length === 1 ? (alts[0] as AbsValue) : union(alts);
  }

  private parsePrefix(): AbsValue {
    const t = this.peek();
    if (t.t === 'id' && t.v === 'fix') {
      this.next();
      const name = this.next();
      if (name.t !== 'id') throw this.err(name, 'expected a variable name after fix');
      this.expect('.');
      this.scope.push(name.v);
      const body = this.parseUnion();
      this.scope.pop();
      return fix(body);
    }
    return this.parseAtom();
  }

  private parseAtom(): AbsValue {
    const t = this.next();
    switch (t.t) {
      case 'num':
      case 'str':
        return constant(t.v);
      case 'base':
        return this.parseBase(t);
      case 'id':
        return this.parseIdent(t);
      case 'punct':
        return this.parsePunct(t);
      case 'eof':
        throw this.err(t, 'unexpected end of description');
      default:
        throw this.err(t, 'unexpected token');
    }
  }

  private parseBase(t: Tok & { t: 'base' }): AbsValue {
    switch (t.v) {
      case 'Int':
      case 'Float':
      case 'Str':
        return base(t.v);
      case 'Bool':
        return anyBool();
      case 'Any':
        return top();
      case 'Empty':
        return bottom();
      case 'Array': {
        let elem: AbsValue = top();
        let length: number | undefined;
        if (this.isP('(')) {
          this.next();
          elem = this.parseUnion();
          this.expect(')');
        }
        if (this.isP('[')) {
          this.next();
          const n = this.next();
          if (n.t !== 'num' || !Number.isInteger(n.v) || n.v < 0)
            throw this.err(n, 'expected an array length');
          if (n.v > MAX_DESCRIBED_LENGTH) {
            throw this.err(
              n,
              `the array length ${n.v} is more than a description states (MAX_DESCRIBED_LENGTH = ${MAX_DESCRIBED_LENGTH}); 'Array without a length is an array of any length`,
              'D1002',
            );
          }
          length = n.v;
          this.expect(']');
        }
        return this.arrays.of(elem, length);
      }
      default:
        throw this.err(
          t,
          `unknown base set '${t.v} (expected 'Int, 'Float, 'Str, 'Bool, 'Any, 'Empty or 'Array)`,
        );
    }
  }

  private parseIdent(t: Tok & { t: 'id' }): AbsValue {
    switch (t.v) {
      case 'true':
        return constant(true);
      case 'false':
        return constant(false);
      case 'NaN':
        return constant(Number.NaN);
      case 'Infinity':
        return constant(Number.POSITIVE_INFINITY);
      default:
        break;
    }
    const bound = this.scope.lastIndexOf(t.v);
    if (bound >= 0 && !this.isP('(')) return rec(this.scope.length - 1 - bound);
    const args: AbsValue[] = [];
    if (this.isP('(')) {
      this.next();
      this.list(')', () => args.push(this.parseUnion()));
    }
    const arity = tupleArity(t.v);
    const fields = arity !== undefined ? Array.from({ length: arity }) : fieldsOf(t.v, this.ctors);
    if (fields === undefined) throw this.err(t, `unknown constructor '${t.v}'`);
    if (fields.length !== args.length) {
      throw this.err(t, `constructor '${t.v}' takes ${fields.length} argument(s), got ${args.length}`);
    }
    return con(t.v, args);
  }

  private parsePunct(t: Tok & { t: 'punct' }): AbsValue {
    switch (t.v) {
      case '-': {
        const n = this.next();
        if (n.t === 'num') return constant(-n.v);
        if (n.t === 'id' && n.v === 'Infinity') return constant(Number.NEGATIVE_INFINITY);
        throw this.err(n, 'expected a number after -');
      }
      case '(': {
        const items: AbsValue[] = [];
        this.list(')', () => items.push(this.parseUnion()));
        if (items.length === 1) return items[0] as AbsValue;
        return con(`#${items.length}`, items);
      }
      case '[': {
        const items: AbsValue[] = [];
        this.list(']', () => items.push(this.parseUnion()));
        if (items.length > MAX_DESCRIBED_LENGTH) {
          throw this.err(
            t,
            `an array of ${items.length} elements is more than a description states (MAX_DESCRIBED_LENGTH = ${MAX_DESCRIBED_LENGTH}); 'Array is an array of any length`,
            'D1002',
          );
        }
        return this.arrays.exactly(items);
      }
      case '{': {
        const must: MapBinding[] = [];
        const may: MayBinding[] = [];
        this.list('}', () => {
          const kt = this.peek();
          const k = this.parseUnion();
          const forcedMay = this.isP('?');
          if (forcedMay) this.next();
          this.expect(':');
          const v = this.parseUnion();
          if (!forcedMay && k.kind === 'consts' && k.values.length === 1) {
            const key = k.values[0] as Prim;
            if (must.some(([x]) => x === key)) throw this.err(kt, `duplicate map key ${String(key)}`);
            must.push([key, v]);
          } else may.push([k, v]);
        });
        return absMap(must, may);
      }
      case '#{': {
        const must: Prim[] = [];
        const may: AbsValue[] = [];
        this.list('}', () => {
          const e = this.parseUnion();
          const forcedMay = this.isP('?');
          if (forcedMay) this.next();
          if (!forcedMay && e.kind === 'consts' && e.values.length === 1) must.push(e.values[0] as Prim);
          else may.push(e);
        });
        return absSet(must, union(may));
      }
      default:
        throw this.err(t, `unexpected '${t.v}'`);
    }
  }
}
