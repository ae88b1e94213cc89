import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ABS_PRIMS,
  type AbsValue,
  absEqual,
  base,
  con,
  constant,
  conforms,
  printAbs,
  project,
  testCtor,
  top,
  union,
} from '../../src/abstract-values/index.js';
import { arbMember, arbMembers } from '../../src/testing.js';
import { PRIMS, type PrimOp } from '../../src/scf-lang/index.js';
import { anyAbs, boolAbs, CTORS, keyAbs, mapAbs, numAbs, primAbs, setAbs, strAbs } from './gen.js';

type A = fc.Arbitrary<AbsValue>;
/** Argument families per primitive: the types SCF-lang's checker allows. */
const SIG: { readonly [K in PrimOp]: readonly A[] } = {
  add: [numAbs, numAbs],
  sub: [numAbs, numAbs],
  mul: [numAbs, numAbs],
  div: [numAbs, numAbs],
  mod: [numAbs, numAbs],
  neg: [numAbs],
  bitand: [numAbs, numAbs],
  bitor: [numAbs, numAbs],
  bitxor: [numAbs, numAbs],
  bitnot: [numAbs],
  shl: [numAbs, numAbs],
  shr: [numAbs, numAbs],
  ushr: [numAbs, numAbs],
  imul: [numAbs, numAbs],
  fround: [numAbs],
  trunc: [numAbs],
  floor: [numAbs],
  sqrt: [numAbs],
  abs: [numAbs],
  min: [numAbs, numAbs],
  max: [numAbs, numAbs],
  cmath: [
    fc.constantFrom('sqrtf', 'powf', 'fminf', 'roundf', 'fmodf', 'abs').map((n) => constant(n)),
    numAbs,
    numAbs,
  ],
  eq: [primAbs, primAbs],
  ne: [primAbs, primAbs],
  lt: [primAbs, primAbs],
  le: [primAbs, primAbs],
  gt: [primAbs, primAbs],
  ge: [primAbs, primAbs],
  not: [boolAbs],
  concat: [strAbs, strAbs],
  num_to_string: [numAbs],
  str_length: [strAbs],
  char_code_at: [strAbs, numAbs],
  char_at: [strAbs, numAbs],
  substring: [strAbs, numAbs, numAbs],
  equal: [anyAbs, anyAbs],
  tuple_with: [
    fc.tuple(anyAbs, anyAbs, anyAbs).map(([a, b, c]) => union([con('#3', [a, b, c]), con('#3', [c, a, b])])),
    fc.constantFrom(0, 1, 2).map((k) => constant(k)),
    anyAbs,
  ],
  map_empty: [],
  map_insert: [mapAbs, keyAbs, anyAbs],
  map_find: [mapAbs, keyAbs],
  map_delete: [mapAbs, keyAbs],
  map_has: [mapAbs, keyAbs],
  map_size: [mapAbs],
  map_keys: [mapAbs],
  set_empty: [],
  set_singleton: [keyAbs],
  set_add: [setAbs, keyAbs],
  set_delete: [setAbs, keyAbs],
  set_has: [setAbs, keyAbs],
  set_union: [setAbs, setAbs],
  set_intersect: [setAbs, setAbs],
  set_diff: [setAbs, setAbs],
  set_size: [setAbs],
  set_subset: [setAbs, setAbs],
  set_to_list: [setAbs],
};

/** Arguments of a signature; for two arguments of one family, sometimes the same node (one tag). */
function argsOf(sig: readonly A[]): fc.Arbitrary<AbsValue[]> {
  const fresh = fc.tuple(...sig);
  if (sig.length === 2 && sig[0] === sig[1]) {
    const same = (sig[0] as A).map((x) => [x, x]);
    return fc.oneof({ weight: 3, arbitrary: fresh }, { weight: 1, arbitrary: same });
  }
  return fresh;
}

describe('abstract primitives', () => {
  it('every Core primitive has an abstract version (and a test signature)', () => {
    expect(Object.keys(ABS_PRIMS).sort()).toEqual(Object.keys(PRIMS).sort());
    expect(Object.keys(SIG).sort()).toEqual(Object.keys(PRIMS).sort());
  });

  for (const op of Object.keys(PRIMS) as PrimOp[]) {
    it(`${op} is sound: γ(op#(a)) ⊇ op(γ(a))`, () => {
      const impl = PRIMS[op].impl as (...xs: unknown[]) => unknown;
      const abs = ABS_PRIMS[op];
      fc.assert(
        fc.property(
          argsOf(SIG[op]).chain((args) => fc.tuple(fc.constant(args), arbMembers(args, { ctors: CTORS }))),
          ([args, members]) => {
            const r = impl(...members);
            const ar = abs(...args);
            if (!conforms(r, ar, CTORS)) {
              throw new Error(
                `${op}(${args.map((a) => printAbs(a)).join(', ')}) = ${printAbs(ar)} misses ${String(r)}`,
              );
            }
          },
        ),
        { numRuns: 120 },
      );
    });
  }
});

describe('identity tags (§3.3.1)', () => {
  it('1#i = 1#i is {true}; different tags give {true, false}', () => {
    const x = top();
    expect(printAbs(ABS_PRIMS.equal(x, x))).toBe('true');
    expect(printAbs(ABS_PRIMS.equal(x, top()))).toBe("'Bool");
    const n = base('Int');
    expect(printAbs(ABS_PRIMS.eq(n, n))).toBe('true');
    expect(printAbs(ABS_PRIMS.ne(n, n))).toBe('false');
    expect(printAbs(ABS_PRIMS.lt(n, n))).toBe('false');
    // x === x is false for NaN: a 'Float may be NaN
    const f = base('Float');
    expect(printAbs(ABS_PRIMS.eq(f, f))).toBe("'Bool");
    expect(printAbs(ABS_PRIMS.equal(f, f))).toBe('true');
  });

  it('projection keeps the tag of a single alternative, so fields of one node compare equal', () => {
    const x = top();
    const p = con('#2', [x, x]);
    expect(printAbs(absEqual(project('#2', 0, p), project('#2', 1, p)))).toBe('true');
  });

  it('members drawn jointly give one value to one tag', () => {
    fc.assert(
      fc.property(
        anyAbs.chain((a) => arbMembers([a, a, con('node', [a, a])], { ctors: CTORS })),
        ([x, y, n]) => {
          const eq = PRIMS.equal.impl as (a: unknown, b: unknown) => boolean;
          const node = n as { left: unknown; right: unknown };
          return eq(x, y) && eq(node.left, x) && eq(node.right, x);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('tag-aware equality is sound on jointly drawn members', () => {
    fc.assert(
      fc.property(
        fc
          .oneof(
            fc.tuple(anyAbs, anyAbs),
            anyAbs.map((a) => [a, a] as [AbsValue, AbsValue]),
          )
          .chain(([a, b]) => fc.tuple(fc.constant([a, b]), arbMembers([a, b], { ctors: CTORS }))),
        ([[a, b], [x, y]]) =>
          conforms(
            (PRIMS.equal.impl as (p: unknown, q: unknown) => boolean)(x, y),
            absEqual(a as AbsValue, b as AbsValue),
          ),
      ),
      { numRuns: 200 },
    );
  });
});

describe('constructor test and projection', () => {
  it('c? and c⁻ᵏ are sound', () => {
    const ctors = ['node', 'wrap', 'leaf', 'some', 'cons', 'nil', '#2'];
    fc.assert(
      fc.property(
        anyAbs.chain((a) =>
          fc.tuple(fc.constant(a), arbMember(a, { ctors: CTORS }), fc.constantFrom(...ctors)),
        ),
        ([a, t, c]) => {
          const built =
            c === '#2'
              ? Array.isArray(t) && t.length === 2
              : typeof t === 'object' && t !== null && (t as { kind?: unknown }).kind === c;
          expect(conforms(built, testCtor(c, a))).toBe(true);
          if (built) {
            const fields = c === '#2' ? ['0', '1'] : (CTORS.get(c)?.fields ?? []);
            fields.forEach((f, i) => {
              const v = (t as Record<string, unknown>)[f];
              expect(conforms(v, project(c, i, a), CTORS)).toBe(true);
            });
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
