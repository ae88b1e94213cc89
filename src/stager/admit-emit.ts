/**
 * Admission emitted: `emitAdmission(desc, …)` emits JavaScript that decides `args[i] ∈ Ψ(desc[i])`
 * and throws `InputNotAdmitted` when not, from the plan of admit-plan.ts (`AdmissionEmitter`), with
 * the error semantics stated in admit-check.ts (whose `checkAdmitted` is its interpreted twin).
 * The emitted `admit(args, from = 0)` skips the arguments before `from` (a stub admits its frozen
 * kernel once and then only the formals).
 *
 * Tails. In emitted code, a definition whose tails (followed through inlined entries) end in a
 * definition is a *step*: `NAME_sN(t)` checks all but the tail and returns the next definition,
 * its value left in `NAME_t`; the loops `NAME_run` / `NAME_runx` (throwing, with the path in
 * `NAME_p`) call the steps until a member (-1) or a non-member (-2) is found. A definition's
 * function is emitted from a queue, not from the function that first calls it, so a chain of
 * definitions costs no emitter stack either. Recursion remains where a value nests off its tails
 * (a tree's left branch), bounded by that nesting, and where alternatives of one constructor have
 * different tails (tried in turn).
 *
 * Code shape. The common case — a big, mostly concrete AST with a few unions and `'Int` holes —
 * becomes straight-line code: one `const` per node and one head comparison per node, written
 * inline (`v3?.kind !== 'assign' || …`), no calls, no allocation, paths as string literals
 * that are only used when throwing. Functions hold at most `CHUNK` plan nodes (larger subtrees
 * are split into helper functions): V8 optimizes only functions below a bytecode size, and an
 * unoptimized checker is several times slower.
 *
 * Invariants
 * - For every description, value and constructor table, the emitted checker accepts exactly the
 *   values `conforms` accepts, and throws what `checkAdmitted` throws.
 * - Generated names are `NAME` and `NAME_…`; the code refers to the runtime names in
 *   `ADMISSION_RUNTIME_IMPORTS` (module `scf-lang/staged-helpers.ts`), which the enclosing module imports.
 */
import { assertNever, jsString } from '../common/index.js';
import type { AbsValue, CtorTable, Prim } from '../abstract-values/index.js';
import {
  type AdmissionPlan,
  type Entry,
  type Group,
  groupSize,
  lastChecked,
  type MapLeaf,
  member,
  type ObjLeaf,
  type Plan,
  planAdmission,
  type SetLeaf,
  type TailShape,
  tailOf,
} from './admit-plan.js';
import { shortValue } from '../scf-lang/index.js';

/** Runtime exports the emitted checker refers to (import them under these names). */
export const ADMISSION_RUNTIME_IMPORTS = [
  'IS_MAP',
  'IS_SET',
  'InputNotAdmitted',
  'ctorFields',
  'isMap',
  'isSet',
  'notAdmitted',
  'shortValue',
] as const;

/** Largest number of plan nodes checked inline in one emitted function. */
export const CHUNK = 150;
/** Longest static path suffix written as a literal before the rest of a subtree moves out. */
const PATH_MAX = 160;
/** Boolean tests nest at most this many projections before moving into a helper function. */
const BOOL_DEPTH = 4;
/** Constant sets larger than this are tested with a module-level `Set`. */
const INLINE_CONSTS = 4;

// ---- emission ----------------------------------------------------------------------------------

export interface AdmissionOptions {
  /** Name of the emitted function; helpers are named `NAME_…`. */
  readonly name: string;
  /** Field names of constructors (a Core program's `ctors` fits); the prelude's are added. */
  readonly ctors: CtorTable;
  /** Prefix the function with `export` (default false). */
  readonly exported?: boolean;
}

/**
 * JavaScript source of `function NAME(args)` (it returns nothing, or throws `InputNotAdmitted`), plus the helper
 * constants and functions it needs (all named `NAME_…`), which throws `InputNotAdmitted` unless
 * every `args[i]` is a member of `desc[i]`. The code refers to the runtime exports listed in
 * `ADMISSION_RUNTIME_IMPORTS`, which the enclosing module must import from `scf-lang/staged-helpers.ts`.
 */
export function emitAdmission(desc: readonly AbsValue[], opts: AdmissionOptions): string {
  return new AdmissionEmitter(planAdmission(desc, opts.ctors), opts.name).emit(opts.exported ?? false);
}

/** A path known when emitting (`'$[0].body'`), or `base + suffix` with `base` a runtime string. */
interface PathExpr {
  readonly base: string | null;
  readonly suffix: string;
}

/**
 * Where checking statements go: the lines `out` of the function being emitted, indented by
 * `ind`, and the count of plan nodes inlined into that function so far (`fn.nodes`, see CHUNK).
 */
interface Block {
  readonly out: string[];
  readonly ind: string;
  readonly fn: { nodes: number };
}

function pathJs(p: PathExpr): string {
  const lit = jsString(p.suffix);
  if (p.base === null) return lit;
  return p.suffix === '' ? p.base : `${p.base} + ${lit}`;
}

function step(p: PathExpr, s: string): PathExpr {
  return { base: p.base, suffix: p.suffix + s };
}

/** `!(e)`, written as `a !== b` for one comparison and `!f(x)` for a call. */
function not(e: string): string {
  const eq = /^([\w$.[\]]+) === ((?:'(?:[^'\\]|\\.)*'|[\w.$-]+))$/.exec(e);
  if (eq) return `${eq[1]} !== ${eq[2]}`;
  if (/^[\w$]+\([^()]*\)$/.test(e)) return `!${e}`;
  return `!(${e})`;
}

/** JS literal of a primitive. */
function primJs(p: Prim): string {
  if (typeof p === 'string') return jsString(p);
  if (typeof p === 'boolean') return String(p);
  if (Number.isNaN(p)) return 'Number.NaN';
  if (p === Number.POSITIVE_INFINITY) return 'Number.POSITIVE_INFINITY';
  if (p === Number.NEGATIVE_INFINITY) return 'Number.NEGATIVE_INFINITY';
  return Object.is(p, -0) ? '-0' : String(p);
}

class AdmissionEmitter {
  /** Module-level declarations (constants, helper functions), in emission order. */
  private readonly decls: string[] = [];
  private next = 0;
  /** Definitions whose boolean / throwing functions were emitted or requested. */
  private readonly boolDefs = new Set<number>();
  private readonly checkDefs = new Set<number>();
  /** Definitions whose boolean / throwing step functions were emitted or requested. */
  private readonly boolSteps = new Set<number>();
  private readonly checkSteps = new Set<number>();
  /** Definitions with a tail ending in a definition: run as steps of the `NAME_run` loops. */
  private readonly stepDefs: ReadonlySet<number>;
  private readonly sizes = new Map<Entry, number>();
  /** Functions requested and not yet emitted. */
  private readonly pending: (() => void)[] = [];

  constructor(
    private readonly plan: AdmissionPlan,
    private readonly name: string,
  ) {
    const steps = new Set<number>();
    plan.defs.forEach((d, i) => {
      if (tailRefs(d).length > 0) steps.add(i);
    });
    this.stepDefs = steps;
  }

  emit(exported: boolean): string {
    const body: string[] = [];
    const n = this.plan.args.length;
    body.push(
      `  if (args.length !== ${n}) throw new InputNotAdmitted('$', '${n} arguments', \`\${args.length} arguments\`);`,
    );
    const fn = { nodes: 0 };
    this.plan.args.forEach((e, i) => {
      if (e.k === 'any') return;
      const a = `a${i}`;
      // arguments before `from` are not checked (the caller admitted them already and they
      // cannot have changed: a stub's frozen kernel)
      body.push(`  if (from <= ${i}) {`, `    const ${a} = args[${i}];`);
      this.checkEntry(e, a, { base: null, suffix: `$[${i}]` }, { out: body, ind: '    ', fn });
      body.push('  }');
    });
    const main = [`${exported ? 'export ' : ''}function ${this.name}(args, from = 0) {`, ...body, '}'].join(
      '\n',
    );
    // the definitions' functions, which may request more (a queue, not a recursion: a chain of
    // definitions is as long as the description is deep)
    for (let i = 0; i < this.pending.length; i++) (this.pending[i] as () => void)();
    return [...this.drivers(), ...this.decls, main].join('\n\n');
  }

  /**
   * The name `fn` of a definition's function, whose declaration `emitIt` pushes after the current
   * one (see `emit`), once: `requested` holds the definitions already asked for.
   */
  private once(requested: Set<number>, def: number, fn: string, emitIt: () => void): string {
    if (!requested.has(def)) {
      requested.add(def);
      this.pending.push(emitIt);
    }
    return fn;
  }

  /**
   * The loops that run step functions (none when no definition has a tail ending in one):
   * `NAME_run(s, t)` and `NAME_runx(s, t, path)` call the step of definition `s` on `t`, which
   * returns the next definition, having left its value in `NAME_t` (and its path in `NAME_p`),
   * or -1 (a member) or -2 (not one). So a list is checked by a loop down its tails, and a chain
   * of definitions (a long list described exactly) by one loop too.
   */
  private drivers(): string[] {
    if (this.boolSteps.size === 0 && this.checkSteps.size === 0) return [];
    const n = this.name;
    const out = [`let ${n}_t;\nlet ${n}_p;`];
    const loops = [
      {
        run: `${n}_run`,
        steps: this.boolSteps,
        stepSuffix: '',
        params: 't',
        end: ' s === -1',
        move: `    t = ${n}_t;`,
      },
      {
        run: `${n}_runx`,
        steps: this.checkSteps,
        stepSuffix: '_x',
        params: 't, path',
        end: '',
        move: `    t = ${n}_t;\n    path = ${n}_p;`,
      },
    ];
    for (const { run, steps, stepSuffix, params, end, move } of loops) {
      if (steps.size === 0) continue;
      const cases = [...steps]
        .sort((a, b) => a - b)
        .flatMap((d) => [
          `      case ${d}:`,
          `        s = ${n}_s${d}${stepSuffix}(${params});`,
          '        break;',
        ]);
      out.push(
        [
          `function ${run}(s, ${params}) {`,
          '  for (;;) {',
          '    switch (s) {',
          ...cases,
          '      default:',
          `        return${end};`,
          '    }',
          move,
          '  }',
          '}',
        ].join('\n'),
      );
    }
    return out;
  }

  private fresh(prefix: string): string {
    return `${prefix}${this.next++}`;
  }

  private helper(kind: string): string {
    return `${this.name}_${kind}${this.next++}`;
  }

  private def(n: number): Plan {
    return this.plan.defs[n] as Plan;
  }

  /** Plan nodes inlined when checking `e` (references count one). */
  private size(e: Entry): number {
    const cached = this.sizes.get(e);
    if (cached !== undefined) return cached;
    let n = 1;
    if (e.k === 'leaves') {
      for (const g of e.groups) {
        switch (g.k) {
          case 'prim':
            break;
          case 'obj':
            for (const m of g.members) for (const a of m.args) n += this.size(a);
            break;
          case 'tuple':
            for (const m of g.members) for (const a of m) n += this.size(a);
            break;
          case 'map':
            for (const m of g.members) {
              for (const [, y] of m.must) n += this.size(y);
              for (const [k, y] of m.may) n += this.size(k) + this.size(y);
            }
            break;
          case 'set':
            for (const m of g.members) n += this.size(m.may);
            break;
          default:
            return assertNever(g);
        }
      }
    }
    this.sizes.set(e, n);
    return n;
  }

  // -- boolean tests (expressions over a side-effect-free operand `x`)

  private boolRef(def: number): string {
    const fn = `${this.name}_r${def}`;
    return this.once(this.boolDefs, def, fn, () => {
      if (this.stepDefs.has(def)) {
        this.boolStep(def);
        this.decls.push(`function ${fn}(t) {\n  return ${this.name}_run(${def}, t);\n}`);
      } else {
        const expr = this.boolExpr(this.def(def), 't', 0);
        this.decls.push(`function ${fn}(t) {\n  return ${expr};\n}`);
      }
    });
  }

  /** The boolean step function of a definition with a tail: `NAME_sN(t)` (see `drivers`). */
  private boolStep(def: number): string {
    const fn = `${this.name}_s${def}`;
    return this.once(this.boolSteps, def, fn, () => {
      const body: string[] = [];
      this.stepStatements(this.def(def), 't', body, '  ');
      this.decls.push([`function ${fn}(t) {`, ...body, '}'].join('\n'));
    });
  }

  /**
   * Statements of a boolean step: they return -1 when `x` is a member of `e`, -2 when not, or
   * the next definition along `e`'s tail (its value in `NAME_t`). A group without a tail is
   * decided by its expression; a single constructor tests its other arguments and goes on with
   * its tail (the heads are disjoint, so a value whose head matched one group fails the rest).
   */
  private stepStatements(e: Entry, x: string, out: string[], ind: string): void {
    switch (e.k) {
      case 'any':
        out.push(`${ind}return -1;`);
        return;
      case 'none':
        out.push(`${ind}return -2;`);
        return;
      case 'ref':
        if (this.stepDefs.has(e.def)) {
          this.boolStep(e.def);
          out.push(`${ind}${this.name}_t = ${x};`, `${ind}return ${e.def};`);
        } else out.push(`${ind}return ${this.boolRef(e.def)}(${x}) ? -1 : -2;`);
        return;
      case 'leaves':
        break;
      default:
        assertNever(e);
    }
    const tailed = e.groups.filter((g) => tailOf(g) !== undefined);
    for (const g of e.groups) {
      if (!tailed.includes(g)) out.push(`${ind}if (${this.groupExpr(g, x, 0)}) return -1;`);
    }
    for (const g of tailed) {
      const { members, last, access } = tailOf(g) as TailShape;
      // the conditions before the tail: each member's conjunction, one disjunction for several
      const conjuncts = members.map((args) =>
        args
          .slice(0, last)
          .map((a, i) => this.boolExpr(a, access(x, i), 1))
          .filter((c) => c !== 'true'),
      );
      const conds =
        conjuncts.length === 1
          ? (conjuncts[0] as string[])
          : conjuncts.some((c) => c.length === 0)
            ? []
            : [
                conjuncts
                  .map((c) => `(${c.map((d) => (c.length > 1 ? wrapOr(d) : d)).join(' && ')})`)
                  .join(' || '),
              ];
      const inner = tailed.length === 1 ? ind : `${ind}  `;
      if (tailed.length === 1) out.push(`${ind}if (${this.notHead(g, x)}) return -2;`);
      else out.push(`${ind}if (${this.headExpr(g, x)}) {`);
      if (conds.length > 0) {
        out.push(
          `${inner}if (${not(conds.map((c) => (conds.length > 1 ? wrapOr(c) : c)).join(' && '))}) return -2;`,
        );
      }
      const v = this.fresh('v');
      out.push(`${inner}const ${v} = ${access(x, last)};`);
      this.stepStatements((members[0] as readonly Entry[])[last] as Entry, v, out, inner);
      if (tailed.length !== 1) out.push(`${ind}}`);
    }
    if (tailed.length !== 1) out.push(`${ind}return -2;`);
  }

  /** A boolean expression: whether `x` is a member of `e`. */
  private boolExpr(e: Entry, x: string, depth: number): string {
    switch (e.k) {
      case 'ref':
        return `${this.boolRef(e.def)}(${x})`;
      case 'any':
        return 'true';
      case 'none':
        return 'false';
      case 'leaves': {
        if (depth >= BOOL_DEPTH && this.size(e) > 1) return `${this.boolHelper(e)}(${x})`;
        const parts = e.groups.map((g) => this.groupExpr(g, x, depth));
        return parts.length === 1 ? (parts[0] as string) : parts.map((p) => `(${p})`).join(' || ');
      }
      default:
        return assertNever(e);
    }
  }

  /** An outlined boolean test (deep nesting, or a leaf that needs statements). */
  private boolHelper(e: Entry): string {
    const fn = this.helper('b');
    const expr = this.boolExpr(e, 't', 0);
    this.decls.push(`function ${fn}(t) {\n  return ${expr};\n}`);
    return fn;
  }

  private groupExpr(g: Group, x: string, depth: number): string {
    if (g.k === 'prim') return this.primExpr(g, x);
    const head = this.headExpr(g, x);
    const bodies = this.groupBodies(g, x, depth).filter((b) => b !== 'true');
    if (bodies.length < groupSize(g)) return head; // some member has no further condition
    const body = bodies.length === 1 ? (bodies[0] as string) : bodies.map((b) => `(${b})`).join(' || ');
    return `${head} && ${bodies.length === 1 ? wrapOr(body) : `(${body})`}`;
  }

  private headExpr(g: Group, x: string): string {
    switch (g.k) {
      case 'prim':
        return this.primExpr(g, x);
      case 'obj':
        // `isCtor` inline: each site sees one shape, so its `kind` load and the two loads that
        // miss (excluding Immutable maps and sets exactly as `conforms` does) stay monomorphic —
        // 3–4x faster than calling one shared helper, whose loads go megamorphic
        return (
          `${x}?.kind === ${jsString(g.ctor)} && typeof ${x} === 'object' && !Array.isArray(${x})` +
          ` && !${x}[IS_MAP] && !${x}[IS_SET]`
        );
      case 'tuple':
        return `Array.isArray(${x}) && ${x}.length === ${g.n}`;
      case 'map':
        return `isMap(${x})`;
      case 'set':
        return `isSet(${x})`;
      default:
        return assertNever(g);
    }
  }

  /** For each member, the condition after the head test (`'true'` when there is none). */
  private groupBodies(g: Group, x: string, depth: number): string[] {
    switch (g.k) {
      case 'prim':
        return ['true'];
      case 'obj':
        return g.members.map((m) => {
          if (m.fields === null) return `${this.objHelper(m)}(${x})`;
          const conds = m.args
            .map((a, i) =>
              this.boolExpr(a, member(x, (m.fields as readonly string[])[i] as string), depth + 1),
            )
            .filter((c) => c !== 'true');
          return conds.length === 0
            ? 'true'
            : conds.map((c) => (conds.length > 1 ? wrapOr(c) : c)).join(' && ');
        });
      case 'tuple':
        return g.members.map((args) => {
          const conds = args
            .map((a, i) => this.boolExpr(a, `${x}[${i}]`, depth + 1))
            .filter((c) => c !== 'true');
          return conds.length === 0
            ? 'true'
            : conds.map((c) => (conds.length > 1 ? wrapOr(c) : c)).join(' && ');
        });
      case 'map':
        return g.members.map((m) => `${this.mapHelper(m)}(${x})`);
      case 'set':
        return g.members.map((m) => `${this.setHelper(m)}(${x})`);
      default:
        return assertNever(g);
    }
  }

  private primExpr(g: Extract<Group, { k: 'prim' }>, x: string): string {
    const parts: string[] = [];
    for (const b of g.bases) {
      if (b === 'Int') parts.push(`typeof ${x} === 'number' && (${x} | 0) === ${x}`);
      else if (b === 'Float') parts.push(`typeof ${x} === 'number'`);
      else parts.push(`typeof ${x} === 'string'`);
    }
    if (g.consts.length > INLINE_CONSTS) {
      const k = this.helper('k');
      this.decls.push(`const ${k} = new Set([${g.consts.map(primJs).join(', ')}]);`);
      // a Set is SameValueZero; a zero of the wrong sign must not pass
      const pos = g.consts.some((p) => Object.is(p, 0));
      const neg = g.consts.some((p) => Object.is(p, -0));
      const sign = pos === neg ? '' : ` && !Object.is(${x}, ${pos ? '-0' : '0'})`;
      parts.push(`${k}.has(${x})${sign}`);
    } else {
      for (const p of g.consts)
        parts.push(
          Number.isNaN(p)
            ? `${x} !== ${x}`
            : p === 0
              ? `Object.is(${x}, ${primJs(p)})`
              : `${x} === ${primJs(p)}`,
        );
    }
    if (parts.length === 0) return 'false';
    return parts.length === 1
      ? (parts[0] as string)
      : parts.map((p) => (p.includes('&&') ? `(${p})` : p)).join(' || ');
  }

  /** Boolean test of an object leaf whose fields come from the value itself. */
  private objHelper(m: ObjLeaf): string {
    const fn = this.helper('o');
    const lines = [`function ${fn}(t) {`, '  const f = ctorFields(t);'];
    lines.push(`  if (f.length !== ${m.args.length}) return false;`);
    m.args.forEach((a, i) => {
      if (a.k === 'any') return;
      lines.push(`  const x${i} = t[f[${i}]];`);
      lines.push(`  if (${not(this.boolExpr(a, `x${i}`, 0))}) return false;`);
    });
    lines.push('  return true;', '}');
    this.decls.push(lines.join('\n'));
    return fn;
  }

  private mustSet(keys: readonly Prim[]): string {
    const k = this.helper('m');
    this.decls.push(`const ${k} = new Set([${keys.map(primJs).join(', ')}]);`);
    return k;
  }

  private mayExpr(m: MapLeaf, k: string, y: string): string {
    if (m.may.length === 0) return 'false';
    return m.may
      .map(([kp, yp]) => {
        const conds = [this.boolExpr(kp, k, 0), this.boolExpr(yp, y, 0)].filter((c) => c !== 'true');
        return conds.length === 0 ? 'true' : conds.map(wrapOr).join(' && ');
      })
      .map((c) => (m.may.length > 1 ? `(${c})` : c))
      .join(' || ');
  }

  private mapHelper(m: MapLeaf): string {
    const fn = this.helper('map');
    const mustLines: string[] = [];
    m.must.forEach(([k, y], i) => {
      mustLines.push(`  if (!t.has(${primJs(k)})) return false;`);
      if (y.k === 'any') return;
      mustLines.push(`  const y${i} = t.get(${primJs(k)});`);
      mustLines.push(`  if (${not(this.boolExpr(y, `y${i}`, 0))}) return false;`);
    });
    const may = { entry: '[k, y]', key: 'k', test: this.mayExpr(m, 'k', 'y') };
    return this.collectionHelper(
      fn,
      mustLines,
      m.must.map(([k]) => k),
      may,
    );
  }

  private setHelper(m: SetLeaf): string {
    const fn = this.helper('set');
    const mustLines = m.must.map((p) => `  if (!t.has(${primJs(p)})) return false;`);
    const may = { entry: 'x', key: 'x', test: this.boolExpr(m.may, 'x', 0) };
    return this.collectionHelper(fn, mustLines, m.must, may);
  }

  /**
   * Declares the Boolean test `fn(t)` of a Map or Set `t`: `mustLines` (the must part), then,
   * unless `may.test` is `'true'`, a loop over `t`'s entries (`may.entry`) whose keys
   * (`may.key`) are not among `mustKeys`, each of which must pass `may.test`.
   */
  private collectionHelper(
    fn: string,
    mustLines: readonly string[],
    mustKeys: readonly Prim[],
    may: { entry: string; key: string; test: string },
  ): string {
    const lines = [`function ${fn}(t) {`, ...mustLines];
    if (may.test !== 'true') {
      const must = mustKeys.length > 0 ? this.mustSet(mustKeys) : null;
      lines.push(`  for (const ${may.entry} of t) {`);
      if (must !== null) lines.push(`    if (${must}.has(${may.key})) continue;`);
      lines.push(`    if (!(${may.test})) return false;`, '  }');
    }
    lines.push('  return true;', '}');
    this.decls.push(lines.join('\n'));
    return fn;
  }

  // -- throwing checks (statements)

  /** The throwing function of a definition: `NAME_rN_x(t, path)`. */
  private checkRef(def: number): string {
    const fn = `${this.name}_r${def}_x`;
    return this.once(this.checkDefs, def, fn, () => {
      if (this.stepDefs.has(def)) {
        this.checkStep(def);
        this.decls.push(`function ${fn}(t, path) {\n  ${this.name}_runx(${def}, t, path);\n}`);
      } else this.checkFunction(fn, 't, path', this.def(def), { base: 'path', suffix: '' });
    });
  }

  /**
   * The throwing step function of a definition with a tail: `NAME_sN_x(t, path)` checks all but
   * the tail, then returns the next definition (its value and path in `NAME_t`, `NAME_p`), or -1.
   */
  private checkStep(def: number): string {
    const fn = `${this.name}_s${def}_x`;
    return this.once(this.checkSteps, def, fn, () =>
      this.checkFunction(fn, 't, path', this.def(def), { base: 'path', suffix: '' }, true),
    );
  }

  /**
   * Declares `function fn(params)` with the statements that check its parameter `t` against
   * `e`, paths starting from `path` (which may use a parameter `path`). With `tail`, a step
   * function: a definition at the end of `e`'s tail is returned to the loop (see `drivers`).
   */
  private checkFunction(fn: string, params: string, e: Entry, path: PathExpr, tail = false): void {
    const body: string[] = [];
    this.checkEntry(e, 't', path, { out: body, ind: '  ', fn: { nodes: 0 } }, tail);
    if (tail) body.push('  return -1;');
    this.decls.push([`function ${fn}(${params}) {`, ...body, '}'].join('\n'));
  }

  /** The negation of a single group's head test. */
  private notHead(g: Group, x: string): string {
    if (g.k === 'obj') {
      return (
        `${x}?.kind !== ${jsString(g.ctor)} || typeof ${x} !== 'object' || Array.isArray(${x})` +
        ` || ${x}[IS_MAP] || ${x}[IS_SET]`
      );
    }
    if (g.k === 'tuple') return `!Array.isArray(${x}) || ${x}.length !== ${g.n}`;
    return not(this.headExpr(g, x));
  }

  /**
   * Statements, put in `to`, that throw iff the value in variable `x` is not a member of `e`.
   * `to.fn.nodes` counts plan nodes inlined into the current function (subtrees past CHUNK move out). With
   * `tail`, `e` is the tail of a step function (the last thing it checks, and known not to be a
   * member): a step definition there is returned to the loop, untested.
   */
  private checkEntry(e: Entry, x: string, path: PathExpr, to: Block, tail = false): void {
    const { out, ind, fn } = to;
    switch (e.k) {
      case 'any':
        return;
      case 'ref':
        if (tail && this.stepDefs.has(e.def)) {
          this.checkStep(e.def);
          out.push(
            `${ind}${this.name}_t = ${x};`,
            `${ind}${this.name}_p = ${pathJs(path)};`,
            `${ind}return ${e.def};`,
          );
        } else {
          out.push(
            `${ind}if (!${this.boolRef(e.def)}(${x})) ${this.checkRef(e.def)}(${x}, ${pathJs(path)});`,
          );
        }
        return;
      case 'none':
        out.push(`${ind}notAdmitted(${pathJs(path)}, ${jsString(e.expected)}, ${x});`);
        return;
      case 'leaves':
        break;
      default:
        assertNever(e);
    }
    const size = this.size(e);
    if (path.suffix.length > PATH_MAX && size > 1) {
      // deep below the last path base: a function whose paths restart from a runtime base, so
      // path literals stay short and code size linear (one string concatenation per boundary)
      const d = this.helper('d');
      this.checkFunction(d, 't, path', e, { base: 'path', suffix: '' }, tail);
      out.push(`${ind}${tail ? 'return ' : ''}${d}(${x}, ${pathJs(path)});`);
      return;
    }
    if (!tail && fn.nodes > 0 && fn.nodes + size > CHUNK && size > 1 && path.base === null) {
      // a big subtree at a static path: its own function
      const part = this.helper('p');
      this.checkFunction(part, 't', e, path);
      out.push(`${ind}${part}(${x});`);
      return;
    }
    fn.nodes++;
    const fail = `notAdmitted(${pathJs(path)}, ${jsString(e.expected)}, ${x});`;
    const groups = e.groups;
    if (groups.length === 1 && groupSize(groups[0] as Group) === 1) {
      const g = groups[0] as Group;
      out.push(`${ind}if (${this.notHead(g, x)}) ${fail}`);
      this.checkBody(g, x, path, to, tail);
      return;
    }
    // several heads: dispatch on the head, then check the only group that can match
    groups.forEach((g, i) => {
      const kw = i === 0 ? 'if' : '} else if';
      if (g.k === 'prim') {
        out.push(`${ind}${kw} (${not(this.primExpr(g, x))}) {`, `${ind}  ${fail}`);
        return;
      }
      out.push(`${ind}${kw} (${this.headExpr(g, x)}) {`);
      if (groupSize(g) > 1) {
        const bodies = this.groupBodies(g, x, 1);
        if (!bodies.includes('true'))
          out.push(`${ind}  if (!(${bodies.map((b) => `(${b})`).join(' || ')})) ${fail}`);
      } else {
        this.checkBody(g, x, path, { out, ind: `${ind}  `, fn }, tail);
      }
    });
    if ((groups[groups.length - 1] as Group).k === 'prim') out.push(`${ind}}`);
    else out.push(`${ind}} else {`, `${ind}  ${fail}`, `${ind}}`);
  }

  /**
   * After the head of single-member group `g` matched `x`: check the member's parts (with
   * `tail`, the last one as the tail of a step function, see `checkEntry`).
   */
  private checkBody(g: Group, x: string, path: PathExpr, to: Block, tail = false): void {
    const { out, ind } = to;
    switch (g.k) {
      case 'prim':
        return;
      case 'obj': {
        const m = g.members[0] as ObjLeaf;
        if (m.fields === null) {
          const f = this.fresh('f');
          out.push(`${ind}const ${f} = ctorFields(${x});`);
          out.push(
            `${ind}if (${f}.length !== ${m.args.length}) notAdmitted(${pathJs(path)}, ${jsString(`${g.ctor} with ${m.args.length} fields`)}, ${x});`,
          );
          m.args.forEach((a, i) => {
            if (a.k === 'any') return;
            const v = this.fresh('v');
            out.push(`${ind}const ${v} = ${x}[${f}[${i}]];`);
            const p: PathExpr =
              path.base === null
                ? { base: `${jsString(`${path.suffix}.`)} + ${f}[${i}]`, suffix: '' }
                : { base: `${pathJs(path)} + '.' + ${f}[${i}]`, suffix: '' };
            this.checkEntry(a, v, p, to);
          });
          return;
        }
        const fields = m.fields;
        const last = lastChecked(m.args);
        m.args.forEach((a, i) => {
          if (a.k === 'any') return;
          const field = fields[i] as string;
          const v = this.fresh('v');
          out.push(`${ind}const ${v} = ${member(x, field)};`);
          this.checkEntry(a, v, step(path, `.${field}`), to, tail && i === last);
        });
        return;
      }
      case 'tuple': {
        const args = g.members[0] as readonly Entry[];
        const last = lastChecked(args);
        args.forEach((a, i) => {
          if (a.k === 'any') return;
          const v = this.fresh('v');
          out.push(`${ind}const ${v} = ${x}[${i}];`);
          this.checkEntry(a, v, step(path, `[${i}]`), to, tail && i === last);
        });
        return;
      }
      case 'map': {
        const m = g.members[0] as MapLeaf;
        for (const [k, y] of m.must) {
          const kt = shortValue(k);
          out.push(
            `${ind}if (!${x}.has(${primJs(k)})) notAdmitted(${pathJs(path)}, ${jsString(`a map with key ${kt}`)}, ${x});`,
          );
          if (y.k === 'any') continue;
          const v = this.fresh('v');
          out.push(`${ind}const ${v} = ${x}.get(${primJs(k)});`);
          this.checkEntry(y, v, step(path, `{${kt}}`), to);
        }
        const may = this.mayExpr(m, 'k', 'y');
        if (may === 'true') return;
        const must = m.must.length > 0 ? this.mustSet(m.must.map(([k]) => k)) : null;
        out.push(`${ind}for (const [k, y] of ${x}) {`);
        if (must !== null) out.push(`${ind}  if (${must}.has(k)) continue;`);
        out.push(
          `${ind}  if (!(${may})) notAdmitted(${pathJs(path)} + '{' + shortValue(k) + '}', ${jsString(m.mayText)}, y);`,
          `${ind}}`,
        );
        return;
      }
      case 'set': {
        const m = g.members[0] as SetLeaf;
        for (const p of m.must) {
          out.push(
            `${ind}if (!${x}.has(${primJs(p)})) notAdmitted(${pathJs(path)}, ${jsString(`a set containing ${shortValue(p)}`)}, ${x});`,
          );
        }
        const may = this.boolExpr(m.may, 'y', 0);
        if (may === 'true') return;
        const must = m.must.length > 0 ? this.mustSet(m.must) : null;
        out.push(`${ind}for (const y of ${x}) {`);
        if (must !== null) out.push(`${ind}  if (${must}.has(y)) continue;`);
        out.push(
          `${ind}  if (!(${may})) notAdmitted(${pathJs(path)} + '{' + shortValue(y) + '}', ${jsString(m.mayText)}, y);`,
          `${ind}}`,
        );
        return;
      }
      default:
        assertNever(g);
    }
  }
}

/** The definitions at the ends of `e`'s tails (followed through inlined entries). */
function tailRefs(e: Entry): number[] {
  const out: number[] = [];
  const go = (x: Entry): void => {
    if (x.k === 'ref') out.push(x.def);
    if (x.k !== 'leaves') return;
    for (const g of x.groups) {
      const t = tailOf(g);
      if (t !== undefined) go((t.members[0] as readonly Entry[])[t.last] as Entry);
    }
  };
  go(e);
  return out;
}

/** Parenthesizes a disjunction used as a conjunct. */
function wrapOr(c: string): string {
  return c.includes('||') ? `(${c})` : c;
}
