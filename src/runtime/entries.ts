/** The package's public entries, each the module (under src/ or dist/) that implements it. */
export const PUBLIC_ENTRIES: Readonly<Record<string, string>> = {
  scf: 'index',
  'scf/prelude': 'scf-lang/prelude',
  'scf/runtime': 'runtime',
  'scf/kernel': 'kernel/public',
  'scf/gpu': 'target/index',
  'scf/stage': 'stage',
  'scf/testing': 'testing',
};
