/**
 * An entry config's object language at run time (language.ts's `RuntimeLanguage`): the types the
 * entry's modules declare, whose values are the native SCF-lang values themselves. So:
 * - the subject is the entry's signature as the manifest records it (`EntrySubject`), hashed as
 *   its JSON (the manifest records the entry's sources instead);
 * - the late values are the arguments, in order; they are the formals (after a count check) and
 *   the Core values the staged code takes, unchanged (SCF-lang's values are one representation
 *   natively and in Core);
 * - an admitted argument is deep-frozen, so that it is checked once;
 * - the output is not checked: the function is the writer's own, with no invariants beyond its
 *   type, which SCF-lang's checker holds it to;
 * - a refusal names the argument (the check's path `$[I]…` is the I-th) and its description.
 */
import { clip } from '../common/index.js';
import type { RuntimeLanguage } from './language.js';
import { deepFreeze } from './stub.js';
import { sha256 } from './files.js';

/** The staged function of an entry config, as its stub knows it. */
export interface EntrySubject {
  /** The entry as the config names it (`./interp.ts#run`). */
  readonly entry: string;
  /** Its parameters, in order. */
  readonly params: readonly string[];
}

/** The entry's run-time hooks (see the header). */
export const ENTRY_RUNTIME: RuntimeLanguage<EntrySubject, readonly unknown[], unknown> = {
  name: 'entry',
  hash: (subject) => sha256(JSON.stringify(subject)),
  freeze: (value, seen) => deepFreeze(value, seen),
  formals(subject, args) {
    if (args.length !== subject.params.length)
      throw new TypeError(
        `scf: ${subject.entry} takes ${subject.params.length} argument(s) (${subject.params.join(', ')}), not ${args.length}`,
      );
    return [...args];
  },
  toCore: (formals) => formals,
  checkOutput() {},
  refusal(e, subject, bind) {
    const m = /^\$\[(\d+)\]/.exec(e.path);
    const name = m ? subject.params[Number(m[1])] : undefined;
    if (name === undefined) return e.message;
    const desc = clip((bind[name] ?? e.expected).replace(/\s+/g, ' '), 120);
    return `argument '${clip(name)}' is outside its early description ${desc} (${e.message})`;
  },
};
