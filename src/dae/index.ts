/**
 * The stager's dead-assignment elimination (SCF §4): liveness patterns (`patterns.ts`) and the
 * backward analysis and transform over a residual Core program that consults the partial
 * evaluator's collecting semantics (`core-dae.ts`). Entry point: `eliminateDeadAssignments`.
 */
export {
  type CollectingSemantics,
  DAE_FUEL,
  DAE_WIDEN_AFTER,
  type DaeExprResult,
  type DaeHooks,
  type DaeOptions,
  type DaeResult,
  daeExpr,
  eliminateDeadAssignments,
  emptyStats,
  type Liveness,
  type LPMap,
  type RemovalStats,
} from './core-dae.js';
export * from './patterns.js';
