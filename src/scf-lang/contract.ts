/**
 * The pass contract: the signature an optimizer's exported `optimize` must have for scf to run it
 * as a pass — `optimize(f: Fun): Fun`, or `optimize(f: Fun, formals: List<LatticeVal>): Fun` when
 * it wants the formals' early values (docs/writing-an-optimizer.md).
 *
 * Types are compared by their constructors, which are unique program-wide (SCF3007): `Fun` is
 * the data type whose one kind is `fun` (the kernel AST's function, from `scf/kernel`),
 * `LatticeVal` the one whose kinds are exactly `nonConst`, `const` and `constArray`, `List<T>`
 * the prelude's `nil | cons`. An alias of one of them is the same type. A parameter or result
 * whose type is already in error (`unknown`) is not reported again.
 *
 * Which modules are held to it (`PassCheck`): a module named as a pass always; otherwise (`scf
 * check`) a module that exports `optimize` and whose program has a constructor of kind `fun` —
 * so helper modules, and optimizers over another AST (src/optimizers/fig3), are not.
 */
import type { PassCheck } from './compile-types.js';
import type { Span } from './core.js';
import type { Declarations, FunSig, Module } from './declarations.js';
import { type DiagnosticLog, diag } from './diagnostics.js';
import { showType, type Type } from './types.js';

const FUN_KINDS = ['fun'];
const LATTICE_KINDS = ['const', 'constArray', 'nonConst'];
const LIST_KINDS = ['cons', 'nil'];

/** Reports (SCF3017) every way the entry module's `optimize` breaks the pass contract. */
export function checkPassContract(
  decls: Declarations,
  entry: Module,
  mode: PassCheck,
  log: DiagnosticLog,
): void {
  const sig = decls.sigs.get(entry)?.get('optimize');
  if (sig === undefined || !sig.exported) return;
  if (mode === 'auto' && !decls.ctors.has('fun')) return;
  const at = (node: { start: number; end: number }): Span => decls.span(entry, node);
  const name = at(sig.node.id ?? sig.node);
  const n = sig.params.length;
  if (n !== 1 && n !== 2) {
    log.add(diag('SCF3017', name, `it takes ${n} parameter${n === 1 ? '' : 's'}`));
  }
  const [f, formals] = sig.params;
  if (f !== undefined && !isData(f.type, FUN_KINDS)) {
    log.add(diag('SCF3017', f.span, `its first parameter '${f.name}' is ${shown(sig, 0)}, not Fun`));
  }
  if (n === 2 && formals !== undefined && !isFormals(formals.type)) {
    log.add(
      diag(
        'SCF3017',
        formals.span,
        `its second parameter '${formals.name}' is ${shown(sig, 1)}, not List<LatticeVal>`,
      ),
    );
  }
  if (!isData(sig.ret, FUN_KINDS)) {
    const ret = sig.node.returnType;
    log.add(diag('SCF3017', ret ? at(ret.typeAnnotation) : name, `it returns ${shown(sig, 'ret')}, not Fun`));
  }
}

/** Whether `t` is the data type of exactly `kinds` (sorted), or a type already in error. */
function isData(t: Type, kinds: readonly string[]): boolean {
  if (t.tag === 'unknown') return true;
  return t.tag === 'data' && sameKinds(t.ctors, kinds);
}

function isFormals(t: Type): boolean {
  if (t.tag === 'unknown') return true;
  if (t.tag !== 'data' || !sameKinds(t.ctors, LIST_KINDS)) return false;
  const elem = t.args[0];
  return elem !== undefined && isData(elem, LATTICE_KINDS);
}

function sameKinds(ctors: readonly string[], kinds: readonly string[]): boolean {
  return ctors.length === kinds.length && [...ctors].sort().every((c, i) => c === kinds[i]);
}

/** The declared type of parameter `which` or of the result, for the message. */
function shown(sig: FunSig, which: number | 'ret'): string {
  const t = which === 'ret' ? sig.ret : sig.params[which]?.type;
  return t === undefined ? 'missing' : `'${showType(t)}'`;
}
