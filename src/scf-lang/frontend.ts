/**
 * The SCF-lang front end's entry: load an optimizer's modules, check them against the subset
 * and desugar them to a Core program (`declarations.ts`, then `elaborate.ts` per function).
 * Constants whose value is data are evaluated before the functions (`constants.ts`).
 * The entry module's `optimize`, when it is a pass's, is checked against the pass contract
 * (`contract.ts`). A program is returned only when there were no diagnostics; the Core validator
 * runs on it before it is handed out, so a front-end bug surfaces as an internal error, not as a
 * wrong optimizer.
 */
import path from 'node:path';
import type { CtorDecl, FunDef, Program } from './core.js';
import { forEachExpr, tupleCtor } from './core.js';
import { constantEvaluator } from './constants.js';
import { checkPassContract } from './contract.js';
import type { CtorInfo, PassCheck, PassContract, SourceReader } from './compile-types.js';
import { Declarations } from './declarations.js';
import { type Diagnostic, DiagnosticLog } from './diagnostics.js';
import { FunctionElaborator } from './elaborate.js';
import { isPreludeFunction } from './prelude-sigs.js';
import type { Type } from './types.js';
import { validateProgram } from './validate.js';

export interface CompileOptions {
  /** Reads a source file (default: from disk). Tests pass in-memory sources. */
  readonly readFile?: SourceReader;
  /** Paths in diagnostics are shown relative to this directory (default: the working directory). */
  readonly cwd?: string;
  /**
   * Whether the entry module's exported `optimize` is held to the pass contract (contract.ts):
   * `'pass'` for a module run as a pass; `'auto'` (default) when it exports `optimize` and the
   * program has a constructor of the contract's subject type (the kernel's `Fun`).
   */
  readonly passCheck?: PassCheck;
  /**
   * The pass contract of the object language the passes are over (contract.ts): without one, no
   * module is held to a contract.
   */
  readonly contract?: PassContract;
}

export interface CompileResult {
  /** The Core program; null when there are diagnostics. */
  readonly program: Program | null;
  readonly diagnostics: readonly Diagnostic[];
  /** Source texts by displayed file name, for printing diagnostics. */
  readonly sources: ReadonlyMap<string, string>;
  /** Core names of the entry module's exported functions, by source name. */
  readonly entries: ReadonlyMap<string, string>;
  /** The entry module's exported functions' signatures, by source name (what an entry config binds). */
  readonly signatures: ReadonlyMap<string, EntrySignature>;
  /** Every constructor the program declares (the prelude's too), with its field types. */
  readonly ctorTypes: ReadonlyMap<string, CtorInfo>;
}

/** An exported function's parameters and result, as the checker typed them. */
export interface EntrySignature {
  readonly coreName: string;
  readonly params: readonly { readonly name: string; readonly type: Type }[];
  readonly ret: Type;
}

/** Largest tuple arity given a Core constructor up front. */
const MAX_TUPLE = 8;

export function compileFile(entry: string, options: CompileOptions = {}): CompileResult {
  const log = new DiagnosticLog();
  const decls = new Declarations(log, options.readFile, options.cwd);
  const entryModule = decls.load(path.resolve(options.cwd ?? process.cwd(), entry));
  decls.disambiguateNames();
  decls.checkImports(isPreludeFunction);
  // Resolve every declared type, so unused declarations are checked too.
  for (const m of decls.modules.values()) {
    for (const [name, d] of m.typeDecls) decls.resolveName(m, name, [], decls.span(m, d.id));
  }
  decls.resolveFieldTypes();
  decls.resolveSignatures();
  if (entryModule) checkPassContract(decls, entryModule, options.passCheck ?? 'auto', options.contract, log);

  const labels = { next: 0 };
  // constants of data are evaluated on their first read; each is read here once, so an unused one
  // is checked too
  decls.constEvaluator = constantEvaluator(decls, labels, log);
  for (const m of decls.modules.values())
    for (const name of [...m.pendingConsts.keys()]) decls.lookupConst(m, name);
  const funs = new Map<string, FunDef>();
  for (const [m, sigs] of decls.sigs) {
    for (const sig of sigs.values()) {
      funs.set(sig.coreName, new FunctionElaborator(decls, m, sig, labels, log).elaborate());
    }
  }
  const entries = new Map<string, string>();
  const signatures = new Map<string, EntrySignature>();
  if (entryModule) {
    for (const [name, sig] of decls.sigs.get(entryModule) ?? [])
      if (sig.exported) {
        entries.set(name, sig.coreName);
        signatures.set(name, {
          coreName: sig.coreName,
          params: sig.params.map((p) => ({ name: p.name, type: p.type })),
          ret: sig.ret,
        });
      }
  }
  const sources = decls.sources;
  const ctorTypes: ReadonlyMap<string, CtorInfo> = decls.ctors;
  const found = { sources, entries, signatures, ctorTypes };
  if (log.hasErrors) return { program: null, diagnostics: log.sorted(), ...found };

  const ctors = new Map<string, CtorDecl>();
  for (const c of decls.ctors.values()) {
    ctors.set(c.kind, { name: c.kind, fields: c.fields.map((f) => f.name), repr: 'object' });
  }
  for (let n = 0; n <= MAX_TUPLE; n++) ctors.set(tupleCtor(n).name, tupleCtor(n));
  const program: Program = { funs, ctors, sources };
  // Tuples wider than MAX_TUPLE get their constructor on demand.
  for (const f of funs.values()) addWideTuples(f, ctors);
  const problems = validateProgram(program);
  if (problems.length > 0) {
    throw new Error(`internal error: the front end produced invalid Core:\n${problems.join('\n')}`);
  }
  return { program, diagnostics: [], ...found };
}

function addWideTuples(f: FunDef, ctors: Map<string, CtorDecl>): void {
  forEachExpr(f.body, (e) => {
    if (
      (e.kind === 'con' || e.kind === 'proj' || e.kind === 'test') &&
      e.ctor.startsWith('#') &&
      !ctors.has(e.ctor)
    ) {
      ctors.set(e.ctor, tupleCtor(Number(e.ctor.slice(1))));
    }
  });
}
