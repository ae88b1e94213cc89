/**
 * The Core validator: checks the invariants every pass may rely on, so a pass that breaks the
 * IR is caught where it breaks it (run after the front end, and after every pass when
 * `SCF_PASS_DEBUG=1`).
 *
 * Checked: variables bound; calls name existing functions with the right number of arguments;
 * constructors exist and are applied to as many arguments as they have fields; projections
 * are within range; primitives exist with their arity; labels are unique program-wide.
 */
import { assertNever, children, type Expr, type Program } from './core.js';
import { isPrimOp, primInfo } from './prims.js';

/** Problems found, as `function: message` lines; empty when the program is well formed. */
export function validateProgram(p: Program): string[] {
  const problems: string[] = [];
  const labels = new Set<number>();
  for (const f of p.funs.values()) {
    const report = (msg: string, e: Expr) => problems.push(`${f.name}: label ${e.label}: ${msg}`);
    const seenParams = new Set<string>();
    for (const x of f.params) {
      if (seenParams.has(x)) problems.push(`${f.name}: duplicate parameter '${x}'`);
      seenParams.add(x);
    }
    const walk = (e: Expr, scope: ReadonlySet<string>): void => {
      if (labels.has(e.label)) report('duplicate label', e);
      labels.add(e.label);
      switch (e.kind) {
        case 'var':
          if (!scope.has(e.name)) report(`unbound variable '${e.name}'`, e);
          break;
        case 'lit':
          break;
        case 'con': {
          const c = p.ctors.get(e.ctor);
          if (!c) report(`unknown constructor '${e.ctor}'`, e);
          else if (c.fields.length !== e.args.length)
            report(`'${e.ctor}' applied to ${e.args.length} arguments, has ${c.fields.length} fields`, e);
          break;
        }
        case 'test':
          if (!p.ctors.has(e.ctor)) report(`unknown constructor '${e.ctor}'`, e);
          break;
        case 'proj': {
          const c = p.ctors.get(e.ctor);
          if (!c) report(`unknown constructor '${e.ctor}'`, e);
          else if (e.index < 0 || e.index >= c.fields.length)
            report(`projection ${e.index} out of range for '${e.ctor}'`, e);
          break;
        }
        case 'if':
          break;
        case 'let':
          walk(e.value, scope);
          walk(e.body, new Set([...scope, e.name]));
          return;
        case 'call': {
          const g = p.funs.get(e.fn);
          if (!g) report(`call of unknown function '${e.fn}'`, e);
          else if (g.params.length !== e.args.length)
            report(`'${e.fn}' called with ${e.args.length} arguments, takes ${g.params.length}`, e);
          break;
        }
        case 'prim':
          if (!isPrimOp(e.op)) report(`unknown primitive '${e.op}'`, e);
          else if (primInfo(e.op).arity !== e.args.length)
            report(`primitive '${e.op}' applied to ${e.args.length} arguments`, e);
          break;
        default:
          assertNever(e);
      }
      for (const c of children(e)) walk(c, scope);
    };
    walk(f.body, new Set(f.params));
  }
  return problems;
}
