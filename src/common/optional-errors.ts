/**
 * What a missing optional package says (optional.ts loads them; this file only words), kept apart
 * from the loading so that the browser twin of optional.ts shares the words without node's module
 * loader.
 */

/** The optional packages, each with what needs it (the first half of a `MissingPackage`'s message). */
export const OPTIONAL_PACKAGES = {
  'oxc-parser': "compiling an SCF-lang source (a user's optimizer or entry)",
  'fast-check': 'drawing random members of descriptions (scf test, testEntry, arbMember)',
} as const;

export type OptionalPackage = keyof typeof OPTIONAL_PACKAGES;

/** An optional package that a call needs is not installed, or could not be loaded. */
export class MissingPackage extends Error {
  override readonly name = 'MissingPackage';
  constructor(
    readonly pkg: OptionalPackage,
    /** Why it could not be loaded, as a clause (`is not installed`). */
    why = 'is not installed',
    /** What to do: the command that installs it. */
    fix = `npm install ${pkg}`,
  ) {
    super(`${OPTIONAL_PACKAGES[pkg]} needs the optional package '${pkg}', which ${why}: ${fix}`);
  }
}
