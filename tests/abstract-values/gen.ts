/**
 * Random abstract values for the property tests: typed families (numbers, strings, booleans,
 * primitives, maps, sets) and general values over a small constructor table, with recursive
 * lists and shared tags (the same node used twice).
 */
import fc from 'fast-check';
import {
  type AbsValue,
  absMap,
  absSet,
  anyBool,
  base,
  bottom,
  type CtorTable,
  con,
  consts,
  LIST_ARRAYS,
  type Prim,
  top,
  union,
} from '../../src/abstract-values/index.js';

export const CTORS: CtorTable = new Map([
  ['leaf', { fields: [] }],
  ['wrap', { fields: ['inner'] }],
  ['node', { fields: ['left', 'right'] }],
  ['none', { fields: [] }],
  ['some', { fields: ['value'] }],
  ['nil', { fields: [] }],
  ['cons', { fields: ['head', 'tail'] }],
]);

const nums = fc.oneof(
  fc.integer({ min: -5, max: 5 }),
  fc.constantFrom(0.5, -2.25, Number.NaN, Number.POSITIVE_INFINITY, -0, 2147483647, 1e10),
);
const strs = fc.constantFrom('', 'a', 'b', 'ab', 'x');

export const numAbs: fc.Arbitrary<AbsValue> = fc.oneof(
  { weight: 3, arbitrary: fc.array(nums, { minLength: 1, maxLength: 4 }).map((xs) => consts(xs)) },
  { weight: 1, arbitrary: fc.constantFrom('Int' as const, 'Float' as const).map((b) => base(b)) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.array(nums, { minLength: 1, maxLength: 3 }))
      .map(([xs]) => union([consts(xs), base('Int')])),
  },
);
export const strAbs: fc.Arbitrary<AbsValue> = fc.oneof(
  fc.array(strs, { minLength: 1, maxLength: 3 }).map((xs) => consts(xs)),
  fc.constant(null).map(() => base('Str')),
);
export const boolAbs: fc.Arbitrary<AbsValue> = fc
  .constantFrom([true], [false], [true, false])
  .map((xs) => consts(xs));
export const primAbs: fc.Arbitrary<AbsValue> = fc.oneof(
  numAbs,
  strAbs,
  boolAbs,
  fc.tuple(numAbs, strAbs).map(([a, b]) => union([a, b])),
);
/** Small finite key sets, so maps have must keys and collisions. */
export const keyAbs: fc.Arbitrary<AbsValue> = fc.oneof(
  { weight: 3, arbitrary: fc.integer({ min: 0, max: 4 }).map((k) => consts([k])) },
  {
    weight: 1,
    arbitrary: fc
      .array(fc.integer({ min: 0, max: 4 }), { minLength: 1, maxLength: 3 })
      .map((xs) => consts(xs)),
  },
  { weight: 1, arbitrary: fc.constant(null).map(() => base('Int')) },
);

const leafAbs: fc.Arbitrary<AbsValue> = fc.oneof(
  { weight: 4, arbitrary: primAbs },
  { weight: 1, arbitrary: fc.constant(null).map(() => top()) },
  { weight: 1, arbitrary: fc.constant(null).map(() => con('leaf', [])) },
  { weight: 1, arbitrary: fc.constant(null).map(() => con('none', [])) },
);

function mapOf(val: fc.Arbitrary<AbsValue>): fc.Arbitrary<AbsValue> {
  return fc
    .tuple(
      fc.uniqueArray(fc.integer({ min: 0, max: 4 }), { maxLength: 3 }),
      fc.array(val, { minLength: 3, maxLength: 3 }),
      fc.array(fc.tuple(keyAbs, val), { maxLength: 2 }),
    )
    .map(([ks, vs, may]) =>
      absMap(
        ks.map((k, i) => [k, vs[i] as AbsValue] as const),
        may,
      ),
    );
}

export const mapAbs: fc.Arbitrary<AbsValue> = mapOf(leafAbs);
export const setAbs: fc.Arbitrary<AbsValue> = fc
  .tuple(
    fc.uniqueArray(fc.integer({ min: 0, max: 4 }), { maxLength: 3 }),
    fc.oneof(
      keyAbs,
      fc.constant(null).map(() => bottom()),
    ),
  )
  .map(([must, may]) => absSet(must as Prim[], may));

/** General abstract values (closed, inhabited), up to a small depth. */
export const anyAbs: fc.Arbitrary<AbsValue> = fc.letrec<{ v: AbsValue }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    { weight: 5, arbitrary: leafAbs },
    { weight: 2, arbitrary: tie('v').map((x) => con('wrap', [x])) },
    { weight: 2, arbitrary: fc.tuple(tie('v'), tie('v')).map(([x, y]) => con('node', [x, y])) },
    // a shared node: both fields carry one tag, so they are one value
    { weight: 1, arbitrary: tie('v').map((x) => con('node', [x, x])) },
    { weight: 1, arbitrary: fc.tuple(tie('v'), tie('v')).map(([x, y]) => con('#2', [x, y])) },
    { weight: 1, arbitrary: tie('v').map((x) => con('some', [x])) },
    { weight: 2, arbitrary: fc.tuple(tie('v'), tie('v')).map(([x, y]) => union([x, y])) },
    { weight: 1, arbitrary: leafAbs.map((x) => LIST_ARRAYS.of(x)) },
    { weight: 1, arbitrary: fc.array(leafAbs, { maxLength: 3 }).map((xs) => LIST_ARRAYS.exactly(xs)) },
    { weight: 1, arbitrary: mapOf(leafAbs) },
    { weight: 1, arbitrary: setAbs },
    { weight: 1, arbitrary: fc.constant(null).map(() => anyBool()) },
  ),
})).v;
