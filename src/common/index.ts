/**
 * What every stage shares and nothing else: where the installation lives (`paths.ts`), the
 * exhaustiveness check of IR switches (`assert.ts`) and offsets to line and column (`text.ts`).
 * The lowest layer: it imports no other folder of scf (tests/architecture checks it).
 */
export { assertNever } from './assert.js';
export {
  FROM_SOURCES,
  MODULE_ROOT,
  moduleUrl,
  PACKAGE_ROOT,
  SOURCE_ROOT,
  scfVersion,
} from './paths.js';
export { type LineCol, lineCol } from './text.js';
