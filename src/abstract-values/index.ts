/**
 * Abstract values for the stager: augmented regular tree expressions with identity tags and
 * must/may maps (SCF §3.3, Table 1). The partial evaluator's precision is decided here.
 *
 * - `value.ts`: the representation, canonical forms, tags, order / equality / hashing;
 * - `lattice.ts`: `leq`, `join`, `widen`, `meet`;
 * - `ops.ts`: `c?`, `c⁻ᵏ`, tag-aware equality and the abstract Core primitives (`ABS_PRIMS`);
 * - `member.ts`: `conforms` (membership), singletons, concrete → abstract;
 * - `describe.ts`: `toAbsValue` with holes and the textual description syntax;
 * - `arbitrary.ts`: fast-check generators of members (tag-respecting);
 * - `print.ts`: Fig. 6 notation and the debug printer.
 */
export { arbMember, arbMembers, type MemberOptions } from './arbitrary.js';
export {
  type ArrayRepr,
  type DescribeOptions,
  DescriptionError,
  type Hole,
  holes,
  LIST_ARRAYS,
  parseDescription,
  toAbsValue,
} from './describe.js';
export {
  boundedSkeleton,
  DEPTH_CAP,
  disjoint,
  type JoinResult,
  join,
  joinAll,
  leq,
  meet,
  mergeAlts,
  mergeSameCtor,
  shapeJoin,
  shapeTop,
  WIDTH_CAP,
  widen,
} from './lattice.js';
export {
  boolsOf,
  buildCtor,
  type CtorInfo,
  type CtorTable,
  conforms,
  finitePrims,
  fromConcrete,
  mustIndex,
  PRELUDE_CTORS,
  primIn,
  singleton,
  tupleArity,
  withPrelude,
} from './member.js';
export {
  ABS_PRIMS,
  type AbsPrim,
  absEqual,
  alternatives,
  EXACT_LIMIT,
  project,
  refineCtor,
  refineField,
  refineFieldIs,
  testCtor,
} from './ops.js';
export {
  type CtorPrinter,
  type Printed,
  type PrintOptions,
  printAbs,
  printDebug,
  printPrim,
} from './print.js';
export {
  type AbsKind,
  type AbsMap,
  type AbsSet,
  type AbsValue,
  absMap,
  absSet,
  agreeTags,
  anyBool,
  type Base,
  type BaseSet,
  type Bottom,
  base,
  bool,
  bottom,
  CONST_CAP,
  type Con,
  type Consts,
  childrenOf,
  compare,
  comparePrim,
  con,
  constant,
  consts,
  equals,
  equalsWithTags,
  type Fix,
  fix,
  freshen,
  freshTag,
  hash,
  inBase,
  inhabited,
  inheritCaches,
  isConcrete,
  isInt32,
  MAY_CAP,
  normPrim,
  primIndex,
  openSize,
  type MapBinding,
  type MayBinding,
  type Prim,
  type Rec,
  rec,
  resetTags,
  size,
  sortPrims,
  type Top,
  top,
  type Union,
  unfold,
  union,
  withTag,
} from './value.js';
