/**
 * The types `compileFile`'s options and result name besides Core's: how it reads sources, which
 * modules it holds to the pass contract (contract.ts), the constructors it found with their field
 * types. They are kept apart from declarations.ts and contract.ts, whose records hold oxc-parser's
 * syntax trees, so that the published declarations of the API name no oxc-parser type and
 * type-check in an app without it, an optional package (common/optional.ts).
 */
import type { Span } from './core.js';
import type { Type } from './types.js';

export interface FieldInfo {
  readonly name: string;
  type: Type;
}

export interface CtorInfo {
  readonly kind: string;
  /** The declaring interface (or union, for inline members) — the name of the one-constructor type. */
  readonly typeName: string;
  readonly fields: FieldInfo[];
  /** Type parameters the field types may mention (only the prelude's generic types have any). */
  readonly typeParams: readonly string[];
  readonly span: Span | null;
}

/** Reads a source file by its absolute path (the front end's default reads it from disk). */
export type SourceReader = (absPath: string) => string;

/** `'pass'`: the module is run as a pass; `'auto'`: only when it looks like one (contract.ts). */
export type PassCheck = 'pass' | 'auto';

/** A data type of a pass contract: its name in messages, and its constructors' kinds. */
export interface ContractType {
  readonly name: string;
  readonly kinds: readonly string[];
}

/**
 * The signature a pass over an object language has (contract.ts checks it, SCF3017):
 * `optimize(s: Subject): Subject`, or `optimize(s: Subject, formals: List<Formal>): Subject` for
 * a pass that reads the formals' early values. The object language supplies it (the kernel's:
 * `Fun`, whose one kind is `fun`, and `LatticeVal`, src/optimizers/pass-io.ts); SCF-lang knows no
 * object language of its own.
 */
export interface PassContract {
  readonly subject: ContractType;
  readonly formal: ContractType;
}
