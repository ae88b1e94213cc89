/**
 * SCF's Table 3 (Philipose, Chambers & Eggers, POPL 2002), the figures to compare with: per
 * configuration of Table 2, the late-stage compiler speed-up, the reduction in (map-manipulation)
 * instructions executed, the input function's size, the staged pipeline's size relative to the
 * unstaged one, and the compiled code's speed-up (hand-staged DyC in parentheses where given).
 */
export interface PaperRow {
  readonly id: number;
  readonly function: string;
  readonly compilerSpeedup: number;
  readonly instructionReduction: number;
  readonly inputLoc: number;
  readonly inputNodes: number;
  readonly sizeRatio: number;
  readonly codeSpeedup: number;
  readonly handStagedCodeSpeedup?: number;
}

export const PAPER_TABLE3: readonly PaperRow[] = [
  row(1, 'mul_add', 1.9, 2.1, 4, 148, 1.4, 1.2),
  row(2, 'mul_add', 2.9, 2.2, 4, 148, 1.4, 1.2),
  row(3, 'mul_add', 5.5, 7.9, 4, 148, 1.3, 1.2),
  row(4, 'dotproduct', 2.9, 2.6, 8, 198, 1.6, 2.7),
  row(5, 'dotproduct', 2.5, 2.9, 8, 198, 3.6, 2.7, 5.7),
  row(6, 'doconvol', 1.1, 1.2, 102, 2880, 47.7, 1.7, 3.1),
  row(7, 'doconvol_1d', 4.7, 4.2, 50, 1097, 7.9, 1.9),
  row(8, 'main_loop', 12.2, 9.8, 39, 1084, 6.7, 1.0),
  row(9, 'main_loop_f', 4.7, 6.0, 150, 3960, 19.2, 1.1),
  row(10, 'main_loop_f_u', 4.8, 8.5, 292, 7656, 36.3, 1.1),
  row(11, 'main_loop_f_u_f', 4.7, 9.0, 322, 8396, 38.5, 1.3, 1.7),
];

function row(
  id: number,
  fn: string,
  compilerSpeedup: number,
  instructionReduction: number,
  inputLoc: number,
  inputNodes: number,
  sizeRatio: number,
  codeSpeedup: number,
  handStagedCodeSpeedup?: number,
): PaperRow {
  return {
    id,
    function: fn,
    compilerSpeedup,
    instructionReduction,
    inputLoc,
    inputNodes,
    sizeRatio,
    codeSpeedup,
    ...(handStagedCodeSpeedup === undefined ? {} : { handStagedCodeSpeedup }),
  };
}
