/**
 * The online partial evaluator of SCF §3: abstract execution of a Core program on an abstract
 * input with a collecting semantics, producing the residual program, `cs` and the abstract
 * output (pe.ts), with the finiteness analysis (finiteness.ts) and call chains of
 * specialization keys bounded by k (context.ts).
 */
export { type Chain, Contexts, type Key } from './context.js';
export { type Finiteness, finitenessAnalysis } from './finiteness.js';
export {
  type PeEvent,
  type PeOptions,
  type PeResult,
  type PeStats,
  type PeStop,
  GROW_CAP,
  NEST_LIMIT,
  partialEvaluate,
  SPEC_FUEL,
  STATIC_WORK,
  UNFOLD_DEPTH,
} from './pe.js';
