/**
 * A pipeline as one Core program (SCF §6, "deforestation between adjacent optimizations"): the
 * passes' Core programs side by side, each function renamed under its pass's place in the
 * pipeline (`2:copy-prop.optimize`), each label moved past the labels of the passes before it,
 * and one entry that is their composition,
 *
 *   whole.optimize(f, lv) = let x1 = p1(f, lv) in let x2 = p2(x1) in p3(x2)
 *
 * (a pass not taking the formals is called on the subject alone). The engine (src/stager) stages
 * it as it stages one pass: on the static path from the entry every pass's entry is unfolded in
 * place (unless a config's `unfoldDepth` is 0), so the intermediate kernels are abstract values
 * flowing from one pass's body into the next one's, never a stage's output cut off at its
 * interface; what the next pass dispatches on in them and the early description fixes is decided
 * at staging time, and only what depends on late values is built in the residual. Each node also
 * gets a span of its own, recorded as its pass's (`passOf`), which is how `materializations`
 * tells which pass's code built a residual kernel node.
 *
 * Invariants: for every input, the composed program computes what running the passes' programs
 * in order computes (the renaming is a bijection per pass, the labels stay unique program-wide,
 * constructors are program-wide names, and two passes declaring one agree on it — checked here);
 * the output is a pure function of the passes' programs and their order.
 */
import {
  type CoreExpr,
  type CoreProgram,
  type CtorDecl,
  type FunDef,
  forEachExpr,
  mapCoreChildren,
} from '../scf-lang/index.js';
import type { SourceSpan as Span } from '../common/index.js';

/** The entry of a composed pipeline. */
export const WHOLE_ENTRY = 'whole.optimize';

/** One pass of a composition: its Core program, its entry and whether it takes the formals. */
export interface ComposedPass {
  readonly name: string;
  readonly program: CoreProgram;
  readonly entry: string;
  readonly takesFormals: boolean;
}

/** The name pass `index` (0-based) of a composition gives its Core function `name`. */
export function composedName(index: number, name: string): string {
  return `${index + 1}:${name}`;
}

/** The largest label of `program`, or -1 for a program without nodes. */
function maxLabel(program: CoreProgram): number {
  let max = -1;
  for (const f of program.funs.values())
    forEachExpr(f.body, (e) => {
      if (e.label > max) max = e.label;
    });
  return max;
}

/**
 * `e` with every call renamed by `rename` and every label moved by `offset`; each node gets a span
 * of its own (equal to its old one), recorded in `spans` as pass `index`'s: the partial evaluator
 * gives a residual node the span of the node it came from, so the span tells which pass's code
 * built it (`materializations`).
 */
function moved(
  e: CoreExpr,
  offset: number,
  rename: (f: string) => string,
  spans: Map<Span, number>,
  index: number,
): CoreExpr {
  const inner = mapCoreChildren(e, (c) => moved(c, offset, rename, spans, index));
  const span = { ...inner.span };
  spans.set(span, index);
  const base = { ...inner, label: inner.label + offset, span };
  return base.kind === 'call' ? { ...base, fn: rename(base.fn) } : base;
}

/** The constructors of both tables; a constructor both declare must be declared alike. */
function mergeCtors(into: Map<string, CtorDecl>, from: ReadonlyMap<string, CtorDecl>, pass: string): void {
  for (const [name, c] of from) {
    const had = into.get(name);
    if (had === undefined) into.set(name, c);
    else if (had.repr !== c.repr || had.fields.join(',') !== c.fields.join(','))
      throw new Error(
        `internal error: composing pass '${pass}': its constructor '${name}' differs from an earlier pass's`,
      );
  }
}

/**
 * The composition of `passes` (in pipeline order) as one Core program whose entry is
 * `WHOLE_ENTRY`, taking the subject and the formals (see the header).
 */
export function composePasses(passes: readonly ComposedPass[]): Composition {
  const spans = new Map<Span, number>();
  const funs = new Map<string, FunDef>();
  const ctors = new Map<string, CtorDecl>();
  const sources = new Map<string, string>();
  let offset = 0;
  passes.forEach((p, i) => {
    const rename = (f: string): string => composedName(i, f);
    for (const f of p.program.funs.values())
      funs.set(rename(f.name), {
        ...f,
        name: rename(f.name),
        body: moved(f.body, offset, rename, spans, i),
        exported: false,
      });
    mergeCtors(ctors, p.program.ctors, p.name);
    for (const [file, text] of p.program.sources) sources.set(file, text);
    offset += maxLabel(p.program) + 1;
  });
  funs.set(WHOLE_ENTRY, compositionEntry(passes, offset));
  return { program: { funs, ctors, sources }, passOf: spans };
}

/** A composed pipeline: its Core program, and which pass each node's span belongs to. */
export interface Composition {
  readonly program: CoreProgram;
  /** The pass (its index) whose code a node with this span is: residual nodes keep spans. */
  readonly passOf: ReadonlyMap<Span, number>;
}

/**
 * Where a staged composition builds an intermediate subject at run time: a residual function in
 * which code of pass `after` (not the last) constructs the subject's nodes (`ctors`: the kernel
 * AST's), which the next pass then reads at run time — where the late values reach what pass
 * `after` passes on. `comment` says what the function handles (its specialization key).
 */
export interface Materialization {
  readonly after: number;
  readonly fn: string;
  /** Constructor applications of the subject's type that pass `after`'s code makes there. */
  readonly nodes: number;
  readonly comment?: string;
}

/**
 * The materializations of a staged composition of `passCount` passes (see `Materialization`):
 * every residual constructor application of `ctors` whose span is a pass's before the last, by
 * pass and residual function, in pass order, then by function name.
 */
export function materializations(
  residual: CoreProgram,
  composition: Composition,
  passCount: number,
  ctors: ReadonlySet<string>,
  comments: ReadonlyMap<string, string>,
): Materialization[] {
  const counts = new Map<string, { after: number; fn: string; nodes: number }>();
  for (const f of residual.funs.values())
    forEachExpr(f.body, (e) => {
      if (e.kind !== 'con' || !ctors.has(e.ctor)) return;
      const after = composition.passOf.get(e.span);
      if (after === undefined || after >= passCount - 1) return;
      const key = `${after}\u0000${f.name}`;
      const c = counts.get(key) ?? { after, fn: f.name, nodes: 0 };
      counts.set(key, { ...c, nodes: c.nodes + 1 });
    });
  return [...counts.values()]
    .sort((a, b) => a.after - b.after || (a.fn < b.fn ? -1 : a.fn > b.fn ? 1 : 0))
    .map((m) => {
      const comment = comments.get(m.fn);
      return comment === undefined ? m : { ...m, comment };
    });
}

/** `whole.optimize(f, lv)`: the passes' entries called in order, labels from `first` on. */
function compositionEntry(passes: readonly ComposedPass[], first: number): FunDef {
  let label = first;
  const span = { file: '', start: 0, end: 0 };
  const at = () => ({ label: label++, span });
  const v = (name: string): CoreExpr => ({ kind: 'var', name, ...at() });
  const calls = passes.map(
    (p, i): CoreExpr => ({
      kind: 'call',
      fn: composedName(i, p.entry),
      args: [v(i === 0 ? 'f' : `x${i}`), ...(p.takesFormals ? [v('lv')] : [])],
      ...at(),
    }),
  );
  // let x1 = call1 in let x2 = call2 in … callN
  let body = calls[calls.length - 1] as CoreExpr;
  for (let i = calls.length - 2; i >= 0; i--)
    body = { kind: 'let', name: `x${i + 1}`, value: calls[i] as CoreExpr, body, ...at() };
  return { name: WHOLE_ENTRY, params: ['f', 'lv'], body, span, exported: true };
}
