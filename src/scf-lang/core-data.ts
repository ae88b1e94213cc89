/**
 * Core programs as JSON data, and back: how the built-in passes' Core programs, compiled from
 * their SCF-lang sources under node, reach a bundle that has no front end (a page, a worker: the
 * optimizers' `programs.browser.ts` decodes `programs.generated.ts`, which scripts/gen-build-info.ts
 * writes with `encodePrograms`).
 *
 * Algorithm: one generic walk over the program's plain data. An object becomes an array, its
 * shape's index (into `shapes`, the key lists met, in order) then its values in key order, but for
 * a string `kind`, which the shape holds (as the key `kind=var`: a node's kind costs no more than
 * its shape); a span `{ file, start, end }` becomes `[-1, FILE, start, end - start]` with FILE an
 * index into `files`; an
 * array becomes `{ a: [...] }`; a number JSON cannot hold (-0, NaN, ±Infinity) `{ n: 'NaN' }`;
 * strings and booleans stay. A function's labels are written less its smallest label, so a
 * function several programs share (the passes share the kernel walks) is kept once, in `funs`,
 * and each program lists its functions as `[index, base]`: labels are numbered per program, in
 * one run per function. Each function is kept as the JSON text of its encoding (a string literal
 * in the generated module: cheap to type-check, one line per function in a diff, parsed only when
 * its program is asked for), a program's constructors as one more. The tables are shared.
 *
 * Invariants: `decodeProgram(encodePrograms(ps), name)` is `ps[name]`, field for field and in each
 * object's key order (a walk or a printer that iterates keys sees the same program), its maps in
 * the same order; the source texts (`sources`) are not carried: a decoded program has none, so a
 * runtime error in it names offsets, not lines. `encodePrograms` throws on anything else
 * (`undefined`, a Map inside a node, a class instance), so a Core change that breaks the format
 * fails where the data is generated.
 */
import { type CtorDecl, type FunDef, forEachExpr, type Program } from './core.js';

/** An encoded value (see the header). */
export type Encoded =
  | string
  | boolean
  | number
  | null
  | { readonly a: readonly Encoded[] }
  | { readonly n: string }
  | readonly Encoded[];

/** Core programs encoded together: the shared tables and each program's functions and constructors. */
export interface CoreData {
  readonly files: readonly string[];
  readonly shapes: readonly (readonly string[])[];
  /** Each distinct function's encoding (labels less the smallest), as JSON text. */
  readonly funs: readonly string[];
  /** Per program: its functions as `[index into funs, smallest label]`, its constructors' encoding. */
  readonly programs: Readonly<
    Record<string, { readonly funs: readonly (readonly [number, number])[]; readonly ctors: string }>
  >;
}

const SPAN = -1;

function isSpan(keys: readonly string[]): boolean {
  return keys.length === 3 && keys[0] === 'file' && keys[1] === 'start' && keys[2] === 'end';
}

/** The encoder's tables, filled as it meets files and shapes. */
class Encoder {
  readonly files: string[] = [];
  readonly shapes: string[][] = [];
  private readonly fileIndex = new Map<string, number>();
  private readonly shapeIndex = new Map<string, number>();

  /** `v` encoded, every `label` less `base`. */
  value(v: unknown, at: string, base = 0): Encoded {
    if (typeof v === 'string' || typeof v === 'boolean' || v === null) return v;
    if (typeof v === 'number')
      return Number.isFinite(v) && !Object.is(v, -0) ? v : { n: Object.is(v, -0) ? '-0' : String(v) };
    if (Array.isArray(v)) return { a: v.map((x, i) => this.value(x, `${at}[${i}]`, base)) };
    if (typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype) {
      const o = v as Record<string, unknown>;
      const keys = Object.keys(o);
      if (
        isSpan(keys) &&
        typeof o.file === 'string' &&
        typeof o.start === 'number' &&
        typeof o.end === 'number'
      )
        return [
          SPAN,
          this.file(o.file),
          this.value(o.start, at),
          this.value((o.end as number) - (o.start as number), at),
        ];
      const field = (k: string) =>
        k === 'label' && typeof o[k] === 'number' ? o[k] - base : this.value(o[k], `${at}.${k}`, base);
      const kind = typeof o.kind === 'string' ? o.kind : undefined;
      const shape = keys.map((k) => (k === 'kind' && kind !== undefined ? `kind=${kind}` : k));
      return [this.shape(shape), ...keys.filter((k) => k !== 'kind' || kind === undefined).map(field)];
    }
    throw new Error(`core-data: cannot encode ${typeof v} at ${at}`);
  }

  private file(f: string): number {
    let i = this.fileIndex.get(f);
    if (i === undefined) {
      i = this.files.push(f) - 1;
      this.fileIndex.set(f, i);
    }
    return i;
  }

  private shape(keys: string[]): number {
    const key = keys.join('\0');
    let i = this.shapeIndex.get(key);
    if (i === undefined) {
      i = this.shapes.push(keys) - 1;
      this.shapeIndex.set(key, i);
    }
    return i;
  }
}

/** The programs by name as data (see the header); throws on a value the format cannot carry. */
export function encodePrograms(programs: Readonly<Record<string, Program>>): CoreData {
  const enc = new Encoder();
  const funs: string[] = [];
  const funIndex = new Map<string, number>();
  const out: Record<string, { funs: [number, number][]; ctors: string }> = {};
  for (const [name, p] of Object.entries(programs)) {
    for (const [k, f] of p.funs) if (k !== f.name) throw new Error(`core-data: ${name}: ${k} ≠ ${f.name}`);
    for (const [k, c] of p.ctors) if (k !== c.name) throw new Error(`core-data: ${name}: ${k} ≠ ${c.name}`);
    out[name] = {
      funs: [...p.funs.values()].map((f): [number, number] => {
        let base = Number.POSITIVE_INFINITY;
        forEachExpr(f.body, (e) => {
          base = Math.min(base, e.label);
        });
        const text = JSON.stringify(enc.value(f, `${name}.${f.name}`, base));
        let i = funIndex.get(text);
        if (i === undefined) {
          i = funs.push(text) - 1;
          funIndex.set(text, i);
        }
        return [i, base];
      }),
      ctors: JSON.stringify(enc.value([...p.ctors.values()], `${name}.ctors`)),
    };
  }
  return { files: enc.files, shapes: enc.shapes, funs, programs: out };
}

/** `e` decoded, every `label` plus `base`. */
function decode(data: CoreData, e: Encoded, base: number): unknown {
  if (e === null || typeof e !== 'object') return e;
  if ('a' in e) return e.a.map((x) => decode(data, x, base));
  if ('n' in e) return e.n === '-0' ? -0 : Number(e.n);
  const [head, ...values] = e as readonly Encoded[];
  if (head === SPAN) {
    const [file, start, length] = values as [number, number, number];
    return { file: data.files[file], start, end: start + length };
  }
  const keys = data.shapes[head as number] as readonly string[];
  const o: Record<string, unknown> = {};
  let i = 0;
  for (const k of keys) {
    if (k.startsWith('kind=')) {
      o.kind = k.slice('kind='.length);
      continue;
    }
    const v = values[i++] as Encoded;
    o[k] = k === 'label' && typeof v === 'number' ? v + base : decode(data, v, base);
  }
  return o;
}

/** The program `name` of `data`, rebuilt (see the header: no source texts). */
export function decodeProgram(data: CoreData, name: string): Program {
  const p = data.programs[name];
  if (p === undefined) throw new Error(`core-data: no program '${name}'`);
  const funs = p.funs.map(
    ([i, base]) => decode(data, JSON.parse(data.funs[i] as string) as Encoded, base) as FunDef,
  );
  const ctors = decode(data, JSON.parse(p.ctors) as Encoded, 0) as CtorDecl[];
  return {
    funs: new Map(funs.map((f) => [f.name, f])),
    ctors: new Map(ctors.map((c) => [c.name, c])),
    sources: new Map(),
  };
}
