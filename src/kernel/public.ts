/**
 * `scf/kernel`: what a compiler writer's own optimizer imports besides the prelude — the kernel
 * AST's types and the SCF-lang helpers the built-in optimizers share (walks and relabelling, the
 * leaf commands a pass's `default` case reads, expression facts, the constant lattice). Run
 * natively, these are ordinary TypeScript; the SCF-lang front end resolves the same specifier to
 * the same modules (scf-lang/declarations.ts: `KERNEL_MODULES`), so a user's pass type-checks, runs
 * and stages alike.
 */
export type * from './ast.js';
export { exprType, hasCall } from './expr-info.js';
export {
  arraysPassed,
  arraysPassedList,
  hasSoac,
  isScalarSoac,
  maxLabelCmd,
  maxLabelExpr,
  maxLabelFun,
  mkSeq,
  modifiedNames,
  relabelCmd,
  relabelExpr,
  relabelExprs,
  relabelLam,
  relabelSoac,
  reverseCmds,
  soacDests,
} from '../optimizers/kernel-walk.js';
export { type LeafCmd, leafEnds, leafExprs, leafWith } from '../optimizers/leaf.generated.js';
export * from '../optimizers/lattice.js';
