/**
 * The two object languages the glue stages for, whole (runtime/language.ts's `ObjectLanguage`:
 * the run-time hooks plus the pass contract, the descriptions and the printer):
 * - `kernelLanguage`: passes over the kernel's `Fun`, late values bound to its formals. Its
 *   run-time hooks are optimizers/kernel-stub.ts's (`KERNEL_RUNTIME`), its contract
 *   `KERNEL_CONTRACT`; a config's `bind` and `sample` become the abstract function and formals
 *   (config.ts's `configPipelineInput`), printed in SCF Fig. 6's notation (print-abstract.ts);
 * - `entryLanguage(…)`: an entry config's, whatever types the entry's modules declare; its
 *   run-time hooks are runtime/entry-language.ts's (`ENTRY_RUNTIME`), it has no contract (the
 *   writer's signature is the entry's), a `bind` description becomes one abstract argument per
 *   parameter (entry-describe.ts, `1` for a parameter not bound), printed in the abstract domain's
 *   notation (`printAbs`).
 * `stageKernel` and `loadEntry` describe through them; nothing below the glue names either.
 */
import type { Node } from 'jsonc-parser';
import { type AbsValue, printAbs, top } from '../abstract-values/index.js';
import type { Fun } from '../kernel/index.js';
import { type Bindings, KERNEL_CONTRACT, KERNEL_RUNTIME, type LatticeVal } from '../optimizers/index.js';
import { ENTRY_RUNTIME, type EntrySubject, type ObjectLanguage } from '../runtime/index.js';
import type { Type } from '../scf-lang/index.js';
import { configPipelineInput, type StageConfig } from './config.js';
import type { EntryValues } from './entry-describe.js';
import { printAbstractFun } from './print-abstract.js';

/** The kernel as the glue sees it: its descriptions are a kernel config's `bind` and `sample`. */
export type KernelLanguage = ObjectLanguage<Fun, Bindings, LatticeVal, StageConfig>;

export const kernelLanguage: KernelLanguage = {
  ...KERNEL_RUNTIME,
  contract: KERNEL_CONTRACT,
  describe: (fun, config, tables) => configPipelineInput(config, fun, tables.subject, tables.formals),
  printAbstract: (value, full = false) => printAbstractFun(value, { full }),
};

/**
 * An entry's types as the glue sees them: its descriptions are an entry config's `bind`, by
 * parameter (the JSON nodes), its late values the arguments.
 */
export type EntryLanguage = ObjectLanguage<
  EntrySubject,
  readonly unknown[],
  unknown,
  ReadonlyMap<string, Node>
>;

/**
 * The object language of an entry whose parameters have the types `types` (in order), read by
 * `values` (the entry's `EntryValues`). `describe` throws entry-describe.ts's `EntryValueError`
 * (an offset into the config's text, which `loadEntry` positions).
 */
export function entryLanguage(values: EntryValues, types: readonly Type[]): EntryLanguage {
  return {
    ...ENTRY_RUNTIME,
    contract: undefined,
    describe: (subject, bind) =>
      subject.params.map((name, i): AbsValue => {
        const b = bind.get(name);
        return b === undefined ? top() : values.describe(b, types[i] as Type);
      }),
    printAbstract: (value) => printAbs(value),
  };
}
