/**
 * SCF-lang's front end for optimizers over the kernel: `compileFile` with the kernel's pass
 * contract (`KERNEL_CONTRACT`, pass-io.ts), so that a module exporting `optimize` over `Fun` is
 * held to the signature of a pass (SCF3017, scf-lang/contract.ts), as `scf check` holds it. What
 * the package exports as `compileFile`; the front end itself knows no object language.
 */
import { type CompileOptions, type CompileResult, compileFile as compileScfFile } from '../scf-lang/index.js';
import { KERNEL_CONTRACT } from './pass-io.js';

/** `compileFile` of scf-lang/frontend.ts, the kernel's contract unless `options` name another. */
export function compileFile(file: string, options: CompileOptions = {}): CompileResult {
  return compileScfFile(file, { contract: KERNEL_CONTRACT, ...options });
}
