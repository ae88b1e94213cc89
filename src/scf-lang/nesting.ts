/**
 * How deeply an optimizer's source nests, estimated on the raw text before it is parsed.
 *
 * Why before: oxc-parser recurses natively along the syntax tree, and a deep enough tree (about
 * 10,000 nested parentheses, or a 100,000-term `a + b + …`, `!!!…x`, `c ? … : c ? … : …` or
 * `else if` chain) overflows the native stack: the process dies of a segmentation fault, which no
 * JavaScript can catch. After it the front end (elaboration to Core, where each statement of a
 * block nests the rest of the block: `const x = e; rest` is `let x = e in rest`), the Core
 * validator, printer and interpreter and the stager recurse along the same depth on the JS stack.
 *
 * The estimate, one pass over the text, skipping comments, strings and template text: the sum over
 * the open brackets (`(`, `[`, `{`, `${`) of 1 (CALL_COST for a call's parenthesis) + STATEMENT_COST × the statements finished in that
 * bracket (`;`, and `}` of a block) + OPERATOR_COST × the operators (and `else`s) since its last
 * statement or `,` (a run of operator characters is one operator, or one per `!~+-` in it). Top-level statements do not count (declarations do not nest). Each unit costs
 * about the same stack in the slowest walk; MAX_SCF_NESTING leaves every walk a margin of two at
 * least on node's default stack, and is far above real optimizers (the built-in ones stay under
 * 10% of it).
 */

/** Most nesting, as estimated, an SCF-lang module may have. */
export const MAX_SCF_NESTING = 1000;

const STATEMENT_COST = 4;
const OPERATOR_COST = 2;
const CALL_COST = 3;

/** Characters that make up operators: a run of them counts as one operator. */
const OPERATOR_CHARS = new Set([...'+-*/%!?:<>=&|^~']);
/** Operator characters that may each be a prefix operator of their own. */
const PREFIX_CHARS = new Set([...'!~+-']);

interface Level {
  /** What closes it: `)`, `]`, `}`; `${` for a template placeholder. */
  readonly open: string;
  /** What opening it cost (CALL_COST for a call's parenthesis, else 1). */
  readonly cost: number;
  /** Statements and operators so far. */
  statements: number;
  operators: number;
}

/**
 * The offset of the first place where `text`'s estimated nesting exceeds `limit`, with the
 * estimate there; undefined when it never does.
 */
export function firstTooDeepOffset(
  text: string,
  limit: number = MAX_SCF_NESTING,
): { readonly offset: number; readonly estimate: number } | undefined {
  const levels: Level[] = [{ open: '', cost: 1, statements: 0, operators: 0 }];
  // The last character that was neither blank nor inside a comment (calls follow names).
  let lastSignificant = '';
  // The running estimate: Σ over levels of 1 + STATEMENT_COST·statements + OPERATOR_COST·operators.
  let estimate = 1;
  const top = (): Level => levels[levels.length - 1] as Level;
  const endStatement = (l: Level, counts: boolean): void => {
    estimate -= OPERATOR_COST * l.operators;
    l.operators = 0;
    if (counts && levels.length > 1) {
      l.statements++;
      estimate += STATEMENT_COST;
    }
  };
  const n = text.length;
  let i = 0;
  /** Skips template text from i (after '`' or a placeholder's '}'); true when a '${' opened. */
  const templateText = (): boolean => {
    while (i < n) {
      const c = text[i];
      if (c === '\\') i += 2;
      else if (c === '`') {
        i++;
        return false;
      } else if (c === '$' && text[i + 1] === '{') {
        i += 2;
        return true;
      } else i++;
    }
    return false;
  };
  /** Whether the next word, after blanks and comments, is `else`. */
  const elseFollows = (): boolean =>
    /^(?:\s|\/\/[^\n]*\n|\/\*[\s\S]*?\*\/)*else\b/.test(text.slice(i, i + 200));
  const open = (kind: string, cost = 1): void => {
    levels.push({ open: kind, cost, statements: 0, operators: 0 });
    estimate += cost;
  };
  while (i < n) {
    if (estimate > limit) return { offset: i, estimate };
    const c = text[i] as string;
    const next = text[i + 1];
    const previous = lastSignificant;
    if (c !== ' ' && c !== '\t' && c !== '\n' && c !== '\r' && !(c === '/' && (next === '/' || next === '*')))
      lastSignificant = c === '`' || c === '"' || c === "'" ? 'string' : c;
    if (c === '/' && next === '/') {
      const eol = text.indexOf('\n', i);
      i = eol < 0 ? n : eol + 1;
    } else if (c === '/' && next === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? n : end + 2;
    } else if (c === '"' || c === "'") {
      for (i++; i < n && text[i] !== c && text[i] !== '\n'; i++) if (text[i] === '\\') i++;
      i++;
    } else if (c === '`') {
      i++;
      if (templateText()) open('${');
    } else if (c === '(' || c === '[' || c === '{') {
      // a call's parenthesis (after a name, `)`, `]` or `>` of type arguments) costs more
      open(c, c === '(' && /[\w$)\]>]/.test(previous) ? CALL_COST : 1);
      i++;
    } else if (c === ')' || c === ']' || c === '}') {
      i++;
      if (levels.length > 1) {
        const l = levels.pop() as Level;
        estimate -= l.cost + STATEMENT_COST * l.statements + OPERATOR_COST * l.operators;
        if (l.open === '${') {
          if (templateText()) open('${');
        } else if (c === '}' && l.open === '{' && !elseFollows()) endStatement(top(), true);
      }
    } else if (c === ';' || c === ',') {
      i++;
      // `if (c) return a; else …`: the else chain goes on
      if (c === ',' || !elseFollows()) endStatement(top(), c === ';');
    } else if (OPERATOR_CHARS.has(c)) {
      // One operator per run (`===`, `&&`, `+=`), except that prefix operators nest one per
      // character (`!!!x`, `--x` parses as a decrement of ...): at least one per `!~+-`.
      let prefixes = 0;
      for (; i < n && OPERATOR_CHARS.has(text[i] as string); i++)
        if (PREFIX_CHARS.has(text[i] as string)) prefixes++;
      const count = Math.max(1, prefixes);
      top().operators += count;
      estimate += OPERATOR_COST * count;
    } else if (/[A-Za-z_$]/.test(c)) {
      const start = i;
      while (i < n && /[\w$]/.test(text[i] as string)) i++;
      if (text.slice(start, i) === 'else') {
        top().operators++;
        estimate += OPERATOR_COST;
      }
    } else i++;
  }
  return estimate > limit ? { offset: n, estimate } : undefined;
}
