/**
 * From a configuration's early-stage descriptions to the abstract input of the pipeline: the
 * I1 of SCF Fig. 4 (§2.2.1), `(P1, [non_const, non_const, const('Int)])` for mul_add with a = 'Int.
 *
 * A `Description` is an abstract value over *bind values* (what `formalsFromBindings` in
 * src/optimizers/index.ts accepts: numbers, booleans, arrays as the prelude's cons lists), as
 * written in a config (`'Int`, `0|1`, `[0,1,7]`, `'Array[3]`, …; see `parseDescription`).
 *
 * Algorithm, per formal (in two steps, so that tests can draw the bindings a description admits):
 * 1. `typedDescription`: the description read at the formal's type. `'Any` at a scalar position
 *    of type T is any T ('Int, 'Float, or 'Bool for bool); at an array formal it is any array of
 *    the element type. Everything else must already fit: a value the formal cannot take
 *    (`1.5` or `'Float` for an int, an array for a scalar, a scalar for an array, a string, a
 *    constructor) is a `FormalDescriptionError` naming the formal, because `formalsFromBindings`
 *    would throw `BindError` for such a binding.
 * 2. `describeFormal`: the image of that set under `formalsFromBindings`' conversion, computed
 *    structurally: constants are converted one by one *by `formalsFromBindings` itself* (so
 *    int range checks, `Math.fround` for floats and `x !== 0` for bools are the same code), base
 *    sets map to base sets, unions to unions, and cons-list structure (including `fix` for
 *    lists of any length) is kept, wrapped in `constArray(ty, …)`; an unbound formal is
 *    `nonConst`; the formals form a cons list (`List<LatticeVal>`).
 *
 * Invariants (property-tested in tests/pipeline/config.test.ts): for every binding b drawn from
 * the typed descriptions, `conforms(formalsFromBindings(fun, b), describeFormals(fun, bind))`;
 * the abstraction is exact (bindings outside the description give lists outside the result)
 * except where the abstract domain has no exact form: a float formal described by `'Int` or
 * `'Float` gets `'Float` (all numbers ⊇ the binary32 values `fround` can produce). Every node is
 * built fresh, so no two positions share an identity tag (§3.3.1): two formals that are
 * "some integer" are not claimed equal.
 *
 * Sizes. Lists are rebuilt by a loop down their tails (`mapSpine`), so a described array of any
 * length takes no stack. An array formal's description states at most `MAX_DESCRIBED_LENGTH`
 * (2^13) elements, and at most `MAX_OPEN_ARRAY` (1024) when some are unknown (`'Array[n]`, a
 * literal with holes): the partial evaluator walks such a list recursively. Beyond either, a
 * `FormalDescriptionError`, so staging refuses the config at the bind entry instead of crashing.
 */
import {
  type AbsValue,
  anyBool,
  base,
  type Con,
  type CtorTable,
  con,
  consts,
  constant,
  DescriptionError,
  fix,
  fromConcrete,
  inhabited,
  isConcrete,
  LIST_ARRAYS,
  MAX_DESCRIBED_LENGTH,
  MAX_DESCRIBED_TOTAL,
  type Prim,
  parseDescription,
  rec,
  union,
} from '../abstract-values/index.js';
import { type Fun, listFromArray, listToArray, type Param } from '../kernel/index.js';
import { BindError, type BindValue, formalsFromBindings } from '../optimizers/index.js';
import { assertNever, clip } from '../common/index.js';

/** What is known early about one formal: a set of bind values, as written. */
export interface Description {
  /** The description's text (a JSON literal is shown as its JSON text). */
  readonly text: string;
  /** The admitted bind values; arrays are prelude cons lists (`[0,1,7]`, `'Array[3]`). */
  readonly value: AbsValue;
}

/** A description that does not fit its formal, or names no formal. The caller adds the position. */
export class FormalDescriptionError extends DescriptionError {
  constructor(
    /** The bind key: the formal's name (or the unknown name). */
    readonly formal: string,
    /** The message without the formal's name prefix. */
    readonly reason: string,
  ) {
    super(reason, formal, 'D1003');
    this.name = 'FormalDescriptionError';
  }
}

/** Parses a description string (`'Int`, `0|1`, `[0,1,7]`, `'Array[3]`, …); throws `DescriptionError`. */
export function parseBindDescription(text: string): Description {
  return { text, value: parseDescription(text) };
}

/** The description admitting exactly one bind value (a scalar or an array). */
export function literalDescription(x: BindValue): Description {
  const go = (y: BindValue): AbsValue =>
    Array.isArray(y) ? LIST_ARRAYS.exactly((y as readonly BindValue[]).map(go)) : constant(y as Prim);
  return { text: JSON.stringify(x), value: go(x) };
}

// ---- step 1: the description at the formal's type --------------------------------------------

/** Any value of scalar type `ty` as a bind value. */
function anyScalar(ty: string): AbsValue {
  switch (ty) {
    case 'int':
      return base('Int');
    case 'float':
      return base('Float');
    default:
      return anyBool();
  }
}

/** Lists of any length whose elements are in `elem`. */
function anyList(elem: () => AbsValue): AbsValue {
  return fix(union([con('cons', [elem(), rec(0)]), con('nil', [])]));
}

function describeValueKind(v: AbsValue): string {
  switch (v.kind) {
    case 'con':
      return v.ctor === 'cons' || v.ctor === 'nil' ? 'an array' : `constructor '${v.ctor}'`;
    case 'fix':
    case 'rec':
      return 'an array';
    case 'map':
      return 'a map';
    case 'set':
      return 'a set';
    case 'base':
      return `'${v.base}`;
    case 'consts':
      return v.values.length === 1 ? `the scalar ${String(v.values[0])}` : 'scalars';
    case 'top':
      return "'Any";
    case 'bottom':
    case 'union':
      return 'this value';
    default:
      return assertNever(v);
  }
}

function scalarName(ty: string): string {
  return ty === 'int' ? 'an int' : `a ${ty}`;
}

/**
 * The bind values `d` admits for formal `p`, with `'Any` read at `p`'s type; throws
 * `FormalDescriptionError` when `d` admits a value `formalsFromBindings` rejects for `p`.
 * Every node is rebuilt (fresh tags).
 */
export function typedDescription(p: Param, d: Description): AbsValue {
  const fail = (reason: string): never => {
    throw new FormalDescriptionError(p.name, reason);
  };
  const what = `parameter '${p.name}' is ${p.isArray ? `an array of ${p.ty}` : `a scalar ${p.ty}`}`;
  const scalar = (v: AbsValue): AbsValue => {
    switch (v.kind) {
      case 'top':
        return anyScalar(p.ty);
      case 'bottom':
        return v;
      case 'base':
        if (v.base === 'Str') return fail(`${what}; 'Str admits strings`);
        if (p.ty === 'int' && v.base === 'Float')
          return fail(`${what}; 'Float admits non-integers (use 'Int)`);
        return base(v.base);
      case 'consts':
        for (const x of v.values) bindScalar(p, x);
        return consts(v.values);
      case 'union':
        return union(v.alts.map(scalar));
      case 'con':
      case 'fix':
      case 'rec':
      case 'map':
      case 'set':
        return fail(
          p.isArray
            ? `${what}; its elements are scalars, not ${describeValueKind(v)}`
            : `${what}, not ${describeValueKind(v)}`,
        );
      default:
        return assertNever(v);
    }
  };
  if (!p.isArray) return scalar(d.value);
  // the cons-list structure is kept; `rec` stays inside the fix it refers to
  const list = (v: AbsValue): AbsValue =>
    mapSpine(v, (x) => {
      switch (x.kind) {
        case 'top':
          return anyList(() => anyScalar(p.ty));
        case 'bottom':
          return x;
        case 'con':
          if (x.ctor === 'nil' && x.args.length === 0) return con('nil', []);
          if (x.ctor === 'cons' && x.args.length === 2) return { head: scalar(x.args[0] as AbsValue) };
          return fail(`${what}; describe it as [..] or 'Array, not ${describeValueKind(x)}`);
        case 'union':
          return union(x.alts.map(list));
        case 'fix':
          return fix(list(x.body));
        case 'rec':
          return rec(x.index);
        case 'base':
        case 'consts':
        case 'map':
        case 'set':
          return fail(`${what}; describe it as [..] or 'Array, not ${describeValueKind(x)}`);
        default:
          return assertNever(x);
      }
    });
  return list(d.value);
}

/**
 * Rebuilds a list description cell by cell: `cell(x)` gives the rebuilt value of a node that is
 * not a `cons` cell, or, for a `cons` cell, its rebuilt head, the tail being rebuilt the same
 * way. A loop down the tails, not a recursion, so a described array of any length takes no
 * stack; nodes are built in the order a recursive rebuild builds them (each head before the
 * rest of its list, each cell after its tail).
 */
function mapSpine(v: AbsValue, cell: (x: AbsValue) => AbsValue | { readonly head: AbsValue }): AbsValue {
  const heads: AbsValue[] = [];
  let x = v;
  for (;;) {
    const r = cell(x);
    if (!('head' in r)) {
      let out = r;
      for (let i = heads.length - 1; i >= 0; i--) out = con('cons', [heads[i] as AbsValue, out]);
      return out;
    }
    heads.push(r.head);
    x = (x as Con).args[1] as AbsValue;
  }
}

/** One scalar bind value converted by `formalsFromBindings` itself; its BindError becomes ours. */
function bindScalar(p: Param, x: Prim): number {
  if (typeof x === 'string')
    throw new FormalDescriptionError(p.name, `'${p.name}' is ${scalarName(p.ty)}, not a string`);
  const only: Param = { ...p, isArray: false };
  const f: Fun = {
    kind: 'fun',
    name: '<formal>',
    ret: 'void',
    params: listFromArray([only]),
    locals: { kind: 'nil' },
    body: { kind: 'skip', lbl: 0 },
    fns: { kind: 'nil' },
    lbl: 0,
  };
  try {
    const [lv] = formalsFromBindings(f, { [p.name]: x });
    if (lv?.kind !== 'const') throw new Error(`internal error: ${JSON.stringify(lv)}`);
    return lv.value;
  } catch (e) {
    if (e instanceof BindError) throw new FormalDescriptionError(p.name, e.message);
    throw e;
  }
}

// ---- step 2: the image under formalsFromBindings ---------------------------------------------

/** A constructor value with its fields given by name, in the table's field order. */
function build(ctor: string, fields: Readonly<Record<string, AbsValue>>, ctors: CtorTable): AbsValue {
  const order = ctors.get(ctor)?.fields;
  if (order === undefined) throw new Error(`internal error: constructor table lacks '${ctor}'`);
  return con(
    ctor,
    order.map((f) => {
      const v = fields[f];
      if (v === undefined) throw new Error(`internal error: no field '${f}' for '${ctor}'`);
      return v;
    }),
  );
}

/** The converted scalar values (the `value` of `const`), from a typed description. */
function convertScalar(p: Param, v: AbsValue): AbsValue {
  switch (v.kind) {
    case 'bottom':
      return v;
    case 'base':
      // int: 'Int → 'Int; float: 'Int/'Float → 'Float (⊇ binary32); bool: both 0 and 1 occur
      if (p.ty === 'bool') return consts([0, 1]);
      return base(p.ty === 'int' ? 'Int' : 'Float');
    case 'consts':
      return consts(v.values.map((x) => bindScalar(p, x)));
    case 'union':
      return union(v.alts.map((a) => convertScalar(p, a)));
    case 'top':
    case 'con':
    case 'fix':
    case 'rec':
    case 'map':
    case 'set':
      throw new Error(`internal error: untyped scalar description ${v.kind}`);
    default:
      return assertNever(v);
  }
}

function convertList(p: Param, v: AbsValue): AbsValue {
  return mapSpine(v, (x) => {
    switch (x.kind) {
      case 'bottom':
        return x;
      case 'con':
        if (x.ctor === 'nil') return con('nil', []);
        return { head: convertScalar(p, x.args[0] as AbsValue) };
      case 'union':
        return union(x.alts.map((a) => convertList(p, a)));
      case 'fix':
        return fix(convertList(p, x.body));
      case 'rec':
        return rec(x.index);
      case 'top':
      case 'base':
      case 'consts':
      case 'map':
      case 'set':
        throw new Error(`internal error: untyped array description ${x.kind}`);
      default:
        return assertNever(x);
    }
  });
}

/**
 * The abstract lattice value of formal `p` (the set of `formalsFromBindings` results for `p` over
 * the bindings `d` admits); `nonConst` when `d` is undefined (the formal is not staged).
 */
export function describeFormal(p: Param, d: Description | undefined, ctors: CtorTable): AbsValue {
  if (d === undefined) return build('nonConst', {}, ctors);
  const typed = typedDescription(p, d);
  if (p.isArray) checkLengths(p, d, typed);
  const out = p.isArray
    ? build('constArray', { ty: constant(p.ty), elems: convertList(p, typed) }, ctors)
    : build('const', { value: convertScalar(p, typed), ty: constant(p.ty) }, ctors);
  if (!inhabited(out))
    throw new FormalDescriptionError(p.name, `the description '${clip(d.text)}' admits no value`);
  return out;
}

/**
 * The most elements of an array a bind description may state with some of them unknown
 * (`'Array[n]` with n ≤ 1024, `[1, 'Int, 3]`): the partial evaluator walks such a list element
 * by element, recursively, so a longer one would exhaust its stack. An array whose elements are
 * all known constants may have up to `MAX_DESCRIBED_LENGTH` (2^13); `'Array` is any length.
 */
export const MAX_OPEN_ARRAY = 1024;

/**
 * Throws `FormalDescriptionError` when the typed description of array formal `p` states an
 * array longer than `MAX_DESCRIBED_LENGTH` (a JSON literal in a config is not parsed, so is not
 * checked by the parser), or longer than `MAX_OPEN_ARRAY` with some element unknown. One walk
 * with an explicit stack: each path down the tails counts its cells, and its cells that are not
 * fully known.
 */
function checkLengths(p: Param, d: Description, typed: AbsValue): number {
  let longest = 0;
  let longestOpen = 0;
  const work: [AbsValue, number, number][] = [[typed, 0, 0]];
  for (let w = work.pop(); w !== undefined; w = work.pop()) {
    const [x, n, open] = w;
    longest = Math.max(longest, n);
    longestOpen = Math.max(longestOpen, open);
    if (x.kind === 'con' && x.ctor === 'cons') {
      work.push([x.args[1] as AbsValue, n + 1, isConcrete(x) ? open : open + 1]);
    } else if (x.kind === 'union') {
      for (const a of x.alts) work.push([a, n, open]);
    } else if (x.kind === 'fix') work.push([x.body, n, open]);
  }
  const text = d.text.length > 40 ? `${d.text.slice(0, 39)}…` : d.text;
  if (longest > MAX_DESCRIBED_LENGTH) {
    throw new FormalDescriptionError(
      p.name,
      `the description '${clip(text)}' is an array of ${longest} elements, more than a description states (MAX_DESCRIBED_LENGTH = ${MAX_DESCRIBED_LENGTH}); 'Array is an array of any length`,
    );
  }
  if (longestOpen > MAX_OPEN_ARRAY) {
    throw new FormalDescriptionError(
      p.name,
      `the description '${clip(text)}' is an array of ${longest} elements, some of them unknown, more than staging takes (MAX_OPEN_ARRAY = ${MAX_OPEN_ARRAY}); 'Array is an array of any length, and an array of known elements may have up to ${MAX_DESCRIBED_LENGTH}`,
    );
  }
  return longest;
}

/** The most `cons` cells along one path of `v` (the elements a formal's description states). */
function statedLength(v: AbsValue): number {
  let longest = 0;
  const work: [AbsValue, number][] = [[v, 0]];
  for (let w = work.pop(); w !== undefined; w = work.pop()) {
    const [x, n] = w;
    longest = Math.max(longest, n);
    if (x.kind === 'con') for (const a of x.args) work.push([a, x.ctor === 'cons' ? n + 1 : n]);
    else if (x.kind === 'union') for (const a of x.alts) work.push([a, n]);
    else if (x.kind === 'fix') work.push([x.body, n]);
  }
  return longest;
}

/** Throws `FormalDescriptionError` for a bind key that names no formal of `fun`. */
function checkNames(fun: Fun, bind: Readonly<Record<string, unknown>>): Param[] {
  const params = listToArray(fun.params);
  for (const name of Object.keys(bind)) {
    if (!params.some((p) => p.name === name))
      throw new FormalDescriptionError(name, `'${fun.name}' has no parameter '${clip(name)}'`);
  }
  return params;
}

/** The abstract lattice values of `fun`'s formals, in order (`describeFormal` of each). */
export function describeFormalList(
  fun: Fun,
  bind: Readonly<Record<string, Description>>,
  ctors: CtorTable,
): AbsValue[] {
  let total = 0;
  return checkNames(fun, bind).map((p) => {
    const d = Object.hasOwn(bind, p.name) ? bind[p.name] : undefined;
    const v = describeFormal(p, d, ctors);
    if (p.isArray && d !== undefined) {
      total += statedLength(v);
      if (total > MAX_DESCRIBED_TOTAL)
        throw new FormalDescriptionError(
          p.name,
          `the descriptions state ${total} array elements up to '${clip(p.name)}', more than staging takes over all formals (MAX_DESCRIBED_TOTAL = ${MAX_DESCRIBED_TOTAL}); describe some arrays as 'Array`,
        );
    }
    return v;
  });
}

/**
 * The abstract `List<LatticeVal>`: the abstraction of `formalsFromBindings(fun, b)` over every
 * binding b admitted by `bind`. Throws `FormalDescriptionError` naming the offending formal.
 */
export function describeFormals(
  fun: Fun,
  bind: Readonly<Record<string, Description>>,
  ctors: CtorTable,
): AbsValue {
  return LIST_ARRAYS.exactly(describeFormalList(fun, bind, ctors));
}

/** Fig. 4's I1 for constant propagation (`optimize(f, formals)`): `[f, formals]`. */
export function abstractPipelineInput(
  fun: Fun,
  bind: Readonly<Record<string, Description>>,
  ctors: CtorTable,
): AbsValue[] {
  return [fromConcrete(fun, ctors), describeFormals(fun, bind, ctors)];
}
