/**
 * The stager's engine (SCF Fig. 8): staging one optimizer's Core program against abstract inputs
 * with its steps as records (stage-program.ts: partial evaluation, then DAE, merging equal residual
 * functions (minimize.ts) and outlining parts of large ones (outline.ts)), and emitting the staged
 * optimizer as a JavaScript module with a checked admission of its input (emit.ts; admit-plan.ts
 * plans it, admit-emit.ts emits it, admit-check.ts interprets it; the helpers emitted code calls
 * at run time are scf-lang/staged-helpers.ts). Which optimizers, kernel and config are staged is the
 * pipeline's business (src/pipeline).
 */
export { checkAdmitted } from './admit-check.js';
export { ADMISSION_RUNTIME_IMPORTS, type AdmissionOptions, emitAdmission } from './admit-emit.js';
export { planAdmission } from './admit-plan.js';
export { chargeEachCall, type EmitMeta, type EmitOptions, emitModule } from './emit.js';
export { type MinimizeResult, mergeEqualFunctions } from './minimize.js';
export { InputNotAdmitted, stagedRuntime } from '../scf-lang/index.js';
export { freeVars, MAX_FUN_NODES, type OutlineResult, outlineLargeFunctions } from './outline.js';
export {
  DEFAULT_STEPS,
  daeStep,
  minimizeStep,
  type StageOptions,
  type StageResult,
  type StageStep,
  type StepState,
  outlineStep,
  stage,
} from './stage-program.js';
