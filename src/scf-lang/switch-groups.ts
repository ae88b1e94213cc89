/**
 * A `switch` statement's cases, grouped as the elaborator desugars them (`elaborate.ts`): a case
 * with an empty body shares the next case's body (`case 'a': case 'b': …`), and the default
 * group goes last whatever its place, since it matches only what no other case does.
 */
import type { Expression, Statement, SwitchStatement } from 'oxc-parser';

/** A switch's cases grouped: empty bodies share the next body; the default group goes last. */
export interface SwitchGroup {
  labels: Expression[];
  body: Statement[];
  isDefault: boolean;
  at: { readonly type: string; readonly start: number; readonly end: number };
}

export function switchGroups(s: SwitchStatement): SwitchGroup[] {
  const groups: SwitchGroup[] = [];
  let pending: Expression[] = [];
  let pendingDefault = false;
  s.cases.forEach((c, idx) => {
    if (c.test === null) pendingDefault = true;
    else pending.push(c.test);
    if (c.consequent.length > 0 || idx === s.cases.length - 1) {
      groups.push({ labels: pending, body: c.consequent, isDefault: pendingDefault, at: c });
      pending = [];
      pendingDefault = false;
    }
  });
  const def = groups.find((g) => g.isDefault);
  return [...groups.filter((g) => !g.isDefault), ...(def ? [def] : [])];
}
