/** The Table 3 benchmark: staged against unstaged pipelines (table3.ts), its table and targets (report.ts), chart (chart.ts) and the paper's figures (paper.ts); the late-shape table (late.ts). */
export { speedupChartSvg } from './chart.js';
export { kernelArgs } from './kernel-args.js';
export {
  type BackendReport,
  balancedOrder,
  configArgs,
  formatKernelConfigReport,
  KERNEL_CONFIG_METHOD,
  type KernelConfigOptions,
  type KernelConfigReport,
  runKernelConfigBench,
} from './kernel-config.js';
export {
  formatLateTable,
  LATE_METHOD,
  LATE_SHAPE_CONFIGS,
  LATE_TARGETS,
  type LateShapeOptions,
  type LateShapeReport,
  type LateShapeRow,
  runLateShapes,
} from './late.js';
export { PAPER_TABLE3, type PaperRow } from './paper.js';
export { checkTargets, formatTable, median, type TargetCheck } from './report.js';
export {
  type BenchOptions,
  type BenchProgress,
  type BenchReport,
  type BenchRow,
  configId,
  KernelBenchError,
  listConfigs,
  METHOD,
  requireSample,
  runBenchmarks,
  sideBySide,
  TABLE2_DIR,
} from './table3.js';
export { benchEntryConfig, type EntryBenchRow, entryConfigsIn, formatEntryTable } from './entry.js';
