/**
 * The online partial evaluator of SCF §3: abstract execution of a Core program on an abstract
 * input with a collecting semantics, producing the residual program, `cs` and the abstract
 * output. pe.ts is its core and its header maps the other modules: the finiteness analysis
 * (finiteness.ts), call chains of specialization keys bounded by k (context.ts), the table of
 * specializations (specs.ts), growth (growth.ts), dispatch (dispatch.ts), arity raising
 * (raise.ts), residual code (residual.ts, residual-program.ts), narrowing (narrow.ts).
 */
export { type Chain, Contexts, type Key } from './context.js';
export { type Finiteness, finitenessAnalysis } from './finiteness.js';
export { partialEvaluate } from './pe.js';
export {
  GROW_CAP,
  NEST_LIMIT,
  type PeEvent,
  type PeOptions,
  type PeResult,
  type PeStats,
  type PeStop,
  MAX_NODES,
  SPEC_FUEL,
  STATIC_WORK,
  UNFOLD_DEPTH,
} from './types.js';
