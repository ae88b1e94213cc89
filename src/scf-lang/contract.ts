/**
 * The pass contract: the signature an optimizer's exported `optimize` must have for scf to run it
 * as a pass over an object language — `optimize(s: S): S`, or `optimize(s: S, formals:
 * List<F>): S` when it wants the formals' early values (docs/writing-an-optimizer.md). The object
 * language names S and F (`PassContract`, compile-types.ts): SCF-lang knows none of its own, and
 * the kernel's — `Fun`, and `LatticeVal` with the kinds `nonConst`, `const`, `constArray` — is
 * src/optimizers/pass-io.ts's `KERNEL_CONTRACT`, which the kernel's callers of `compileFile` pass.
 *
 * Types are compared by their constructors, which are unique program-wide (SCF3007): S is the
 * data type whose kinds are exactly the contract's, F likewise, `List<T>` the prelude's `nil |
 * cons`. An alias of one of them is the same type. A parameter or result whose type is already in
 * error (`unknown`) is not reported again.
 *
 * Which modules are held to it (`PassCheck`), given a contract: a module named as a pass always;
 * otherwise (`scf check`) a module that exports `optimize` and whose program has a constructor of
 * one of S's kinds — so helper modules, and optimizers over another AST (src/optimizers/fig3), are
 * not. Without a contract nothing is checked.
 */
import type { PassCheck, PassContract } from './compile-types.js';
import type { Span } from './core.js';
import type { Declarations, FunSig, Module } from './declarations.js';
import { type DiagnosticLog, diag } from './diagnostics.js';
import { showType, type Type } from './types.js';

const LIST_KINDS = ['cons', 'nil'];

/** Reports (SCF3017) every way the entry module's `optimize` breaks the pass contract. */
export function checkPassContract(
  decls: Declarations,
  entry: Module,
  mode: PassCheck,
  contract: PassContract | undefined,
  log: DiagnosticLog,
): void {
  if (contract === undefined) return;
  const sig = decls.sigs.get(entry)?.get('optimize');
  if (sig === undefined || !sig.exported) return;
  if (mode === 'auto' && !contract.subject.kinds.some((k) => decls.ctors.has(k))) return;
  const S = contract.subject.name;
  const F = contract.formal.name;
  const signature = `optimize(f: ${S}): ${S}, or optimize(f: ${S}, formals: List<${F}>): ${S}`;
  const subjectKinds = [...contract.subject.kinds].sort();
  const formalKinds = [...contract.formal.kinds].sort();
  const at = (node: { start: number; end: number }): Span => decls.span(entry, node);
  const name = at(sig.node.id ?? sig.node);
  const n = sig.params.length;
  if (n !== 1 && n !== 2) {
    log.add(diag('SCF3017', name, `it takes ${n} parameter${n === 1 ? '' : 's'}`, signature));
  }
  const [f, formals] = sig.params;
  if (f !== undefined && !isData(f.type, subjectKinds)) {
    log.add(
      diag('SCF3017', f.span, `its first parameter '${f.name}' is ${shown(sig, 0)}, not ${S}`, signature),
    );
  }
  if (n === 2 && formals !== undefined && !isFormals(formals.type, formalKinds)) {
    log.add(
      diag(
        'SCF3017',
        formals.span,
        `its second parameter '${formals.name}' is ${shown(sig, 1)}, not List<${F}>`,
        signature,
      ),
    );
  }
  if (!isData(sig.ret, subjectKinds)) {
    const ret = sig.node.returnType;
    log.add(
      diag(
        'SCF3017',
        ret ? at(ret.typeAnnotation) : name,
        `it returns ${shown(sig, 'ret')}, not ${S}`,
        signature,
      ),
    );
  }
}

/** Whether `t` is the data type of exactly `kinds` (sorted), or a type already in error. */
function isData(t: Type, kinds: readonly string[]): boolean {
  if (t.tag === 'unknown') return true;
  return t.tag === 'data' && sameKinds(t.ctors, kinds);
}

function isFormals(t: Type, kinds: readonly string[]): boolean {
  if (t.tag === 'unknown') return true;
  if (t.tag !== 'data' || !sameKinds(t.ctors, LIST_KINDS)) return false;
  const elem = t.args[0];
  return elem !== undefined && isData(elem, kinds);
}

function sameKinds(ctors: readonly string[], kinds: readonly string[]): boolean {
  return ctors.length === kinds.length && [...ctors].sort().every((c, i) => c === kinds[i]);
}

/** The declared type of parameter `which` or of the result, for the message. */
function shown(sig: FunSig, which: number | 'ret'): string {
  const t = which === 'ret' ? sig.ret : sig.params[which]?.type;
  return t === undefined ? 'missing' : `'${showType(t)}'`;
}
