/**
 * What every stage shares and nothing else: where the installation lives (`paths.ts`), the
 * exhaustiveness check of IR switches (`assert.ts`), offsets to line and column (`text.ts`), the escaping of
 * text written into generated code (`generated-text.ts`), the one way sources and configs are read
 * (`source-file.ts`), the optional packages loaded on first use (`optional.ts`) and diagnostics: spans, code tables, logs and printing (`diagnostics.ts`).
 * The lowest layer: it imports no other folder of scf (tests/architecture checks it).
 */
export { assertNever } from './assert.js';
export {
  codeFrame,
  type Diagnostic,
  DiagnosticLog,
  diagnosticFactory,
  formatDiagnostic,
  formatLocation,
  type MessageTable,
  type SourceSpan,
  unsortedCodes,
} from './diagnostics.js';
export {
  FROM_SOURCES,
  MODULE_ROOT,
  moduleUrl,
  PACKAGE_ROOT,
  SOURCE_ROOT,
  scfVersion,
  sourceFile,
} from './paths.js';
export { BUILTIN_SOURCE_SHA256, SCF_VERSION } from './build-info.generated.js';
export { clip, COMMENT_MAX, commentText, jsData, jsString } from './generated-text.js';
export {
  fileProblem,
  inSystemFileSystem,
  MAX_SOURCE_BYTES,
  readFailure,
  readSourceFile,
  recordSourceReads,
  SourceFileProblem,
} from './source-file.js';
export { MissingPackage, OPTIONAL_PACKAGES, type OptionalPackage, optionalPackage } from './optional.js';
export { didYouMean, type LineCol, lineCol, nearestName } from './text.js';
