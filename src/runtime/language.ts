/**
 * The object language as a parameter of the glue: what the stub, the manifest and pipeline
 * staging need to know of the values a staged function works on, and nothing more. The engine
 * below (the partial evaluator, DAE, the emitter) sees only Core and abstract values; an object
 * language is a set of SCF-lang data types plus these hooks:
 * - its pass contract (the signature a pass over it has, SCF3017; none for an entry, whose
 *   signature is the writer's own);
 * - how its values are hashed (the manifest's record of the subject) and frozen (immutable, so an
 *   admitted value is admitted once);
 * - how the late values a caller gives become the staged code's input: first the formals the
 *   unstaged pipeline takes (`formals`), then the Core value the staged code takes (`toCore`);
 * - how a pass's output is validated (a user's pass that breaks the language's invariants is the
 *   user's error, named);
 * - how a refusal of the admission check reads in the user's terms (`refusal`: the check names a
 *   path into the staged input; the language says whose value that is);
 * - at staging only (`ObjectLanguage`): how the early descriptions become the abstract arguments,
 *   and how an abstract value prints.
 *
 * `RuntimeLanguage` is the part a stub needs, kept apart so that what a page loads with a staged
 * stub holds no staging code. Two languages implement it: the kernel (optimizers/kernel-stub.ts at
 * run time, pipeline/languages.ts's `kernelLanguage` with staging: passes over `Fun`, late values
 * bound to its formals) and an entry config's (entry-language.ts at run time,
 * pipeline/languages.ts's `entryLanguage`: whatever types the entry's modules declare, the
 * arguments themselves as late values, which needs nothing but SCF-lang values and so lives here).
 * Nothing in the runtime or the engine names the kernel.
 */
import type { AbsValue, CtorTable } from '../abstract-values/index.js';
import type { PassContract } from '../scf-lang/index.js';

/** What a pass gets besides its subject: the formals' values (in order). */
export interface LanguagePassContext<F> {
  readonly formals: readonly F[];
}

/**
 * A pass over subjects `S` whose formals are `F`: an SCF-lang `optimize` held to the language's
 * contract. The kernel's `Pass` (src/optimizers) is `LanguagePass<Fun, LatticeVal>`.
 */
export interface LanguagePass<S, F> {
  readonly name: string;
  readonly description: string;
  /** Absolute path of the pass's SCF-lang source (what the stager specializes). */
  readonly file: string;
  /** Core name of its entry function (`const-prop.optimize`). */
  readonly entry: string;
  /** Whether the entry takes the formals after the subject. */
  readonly takesFormals: boolean;
  /** A pass shipped with scf, or a user's. */
  readonly builtin: boolean;
  readonly run: (subject: S, ctx: LanguagePassContext<F>) => S;
}

/** Where a staged module's admission check refused an input (`InputNotAdmitted`'s parts). */
export interface Refused {
  /**
   * The path into the staged function's input array: `$[1].tail.head.value` is, for a pass
   * pipeline, the formals' list (`$[1]`), its second element's value; for an entry, `$[I]` is the
   * I-th argument.
   */
  readonly path: string;
  /** The description the value fell outside of, as the check states it. */
  readonly expected: string;
  /** The check's own words. */
  readonly message: string;
}

/** A function or pass whose output `checkOutput` validates. */
export interface OutputOf {
  readonly name: string;
  /** A pass shipped with scf (checked only when asked to), or a user's (always checked). */
  readonly builtin: boolean;
}

/**
 * What a run-time stub needs of an object language (see the header). `S` is the subject (the
 * kernel's `Fun`; an entry's parameter list), `V` the late values as a caller gives them (the
 * kernel's bindings by formal; an entry's arguments), `F` the formals they become.
 */
export interface RuntimeLanguage<S, V, F> {
  /** How messages name the language (`kernel`, `entry`). */
  readonly name: string;
  /** The SHA-256 a manifest records for the subject (the kernel's: of its JSON). */
  hash(subject: S): string;
  /**
   * `value` and everything it reaches frozen: the language's values are immutable. `seen` holds
   * objects frozen so already, everything they reach included; those frozen now are added to it.
   */
  freeze<T>(value: T, seen?: WeakSet<object>): T;
  /**
   * The formals for these late values, as the unstaged pipeline takes them; throws the language's
   * error for values that cannot be (an unknown formal, a value of another type, a wrong count).
   */
  formals(subject: S, values: V): F[];
  /** The formals as the Core value the staged code takes (the kernel's: their `List`). */
  toCore(formals: readonly F[]): unknown;
  /** Throws the language's error when `output`, what `by` returned, breaks its invariants. */
  checkOutput(by: OutputOf, output: unknown): void;
  /**
   * Why the admission check refused the input, in the user's terms: whose value, which value, and
   * the early description (`bind`, the config's text by name) it is outside of.
   */
  refusal(refused: Refused, subject: S, bind: Readonly<Record<string, string>>, values: V): string;
}

/** The constructor tables describing reads: the subject's program's and the formals'. */
export interface DescribeTables {
  readonly subject: CtorTable;
  readonly formals: CtorTable;
}

/**
 * An object language as the whole glue sees it: the run-time part, plus its pass contract and,
 * for staging, its descriptions (`D`: what a config states of the early values) and its printer.
 */
export interface ObjectLanguage<S, V, F, D> extends RuntimeLanguage<S, V, F> {
  /** The signature a pass over it has (scf-lang's SCF3017), or undefined when any function stages. */
  readonly contract: PassContract | undefined;
  /**
   * The abstract arguments of the staged function for the early descriptions `descriptions` (a
   * pass pipeline's: the subject and the formals; an entry's: one per parameter, `1` where none
   * is given). Throws the language's positioned error for a description that does not fit.
   */
  describe(subject: S, descriptions: D, tables: DescribeTables): AbsValue[];
  /** An abstract value in the language's own notation (the kernel's: SCF Fig. 6). */
  printAbstract(value: AbsValue, full?: boolean): string;
}
