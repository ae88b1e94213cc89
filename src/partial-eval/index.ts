/**
 * The online partial evaluator of SCF §3: abstract execution of a Core program on an abstract
 * input with a collecting semantics, producing the residual program, `cs` and the abstract
 * output. pe.ts is the evaluator and its header maps the parts it is composed of: the table of
 * specializations (table.ts), the growth staircase (growth.ts), representations and where they
 * meet (raise.ts), the cursor (cursor.ts), limits and budget (limits.ts), keys and call chains
 * (context.ts, finiteness.ts), dispatch (dispatch.ts), narrowing (narrow.ts) and residual code
 * (residual.ts, residual-program.ts); types.ts holds the options and records.
 */
export { type Chain, Contexts, type Key } from './context.js';
export { type Finiteness, finitenessAnalysis } from './finiteness.js';
export {
  GROW_CAP,
  K,
  MAX_NODES,
  NEST_LIMIT,
  SPEC_FUEL,
  STATIC_WORK,
  UNFOLD_DEPTH,
} from './limits.js';
export { partialEvaluate } from './pe.js';
export type { PeEvent, PeOptions, PeResult, PeStats, PeStop } from './types.js';
