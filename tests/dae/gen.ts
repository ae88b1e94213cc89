/**
 * Random well-typed Core programs for the DAE differential tests: a few functions over ints,
 * booleans, maps int → int, sets of ints, a pair constructor `P(int, map)` and options, with
 * many `let`s (often dead), map and set updates with small keys (so the collecting semantics
 * often proves an update disjoint from later lookups), and calls from each function to later
 * ones only (so every run terminates). Built from a seed with a small PRNG; failures print the
 * program.
 */
import { Map as IMap } from 'immutable';
import type { Expr, FunDef, Program } from '../../src/scf-lang/core.js';
import type { PrimOp } from '../../src/scf-lang/prims.js';
import { Builder, ctor, fun, program } from './helpers.js';

type Ty = 'int' | 'bool' | 'map' | 'set' | 'pair' | 'opt';
const TYPES: readonly Ty[] = ['int', 'bool', 'map', 'set', 'pair', 'opt'];

interface Sig {
  readonly name: string;
  readonly params: readonly Ty[];
  readonly ret: Ty;
}

type Env = readonly (readonly [string, Ty])[];

export interface GenProgram {
  readonly program: Program;
  readonly entry: string;
  /** Argument lists for the entry function. */
  readonly inputs: readonly (readonly unknown[])[];
}

/** mulberry32 */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const P_CTOR = ctor('P', 'fst', 'snd');

class Gen {
  private readonly rnd: () => number;
  private readonly b = new Builder(1);
  private vars = 0;
  private sigs: Sig[] = [];

  constructor(seed: number) {
    this.rnd = prng(seed);
  }

  private int(n: number): number {
    return Math.floor(this.rnd() * n);
  }
  private pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)] as T;
  }
  private chance(p: number): boolean {
    return this.rnd() < p;
  }

  generate(): GenProgram {
    const nfun = 1 + this.int(4);
    this.sigs = Array.from({ length: nfun }, (_, i) => ({
      name: `f${i}`,
      params:
        i === 0 ? ['int', 'int', 'pair'] : Array.from({ length: 1 + this.int(3) }, () => this.pick(TYPES)),
      ret: i === 0 && this.chance(0.5) ? this.pick(['opt', 'bool'] as const) : this.pick(TYPES),
    }));
    const funs: FunDef[] = this.sigs.map((s, i) => {
      const params = s.params.map((_, j) => `p${j}`);
      const env: Env = s.params.map((t, j) => [`p${j}`, t] as const);
      return fun(s.name, params, this.expr(s.ret, env, 3 + this.int(3), i));
    });
    const inputs = Array.from({ length: 4 }, () => [this.int(5), this.int(5), this.pairValue()]);
    return { program: program(funs, [P_CTOR]), entry: 'f0', inputs };
  }

  private pairValue(): unknown {
    let m = IMap<number, number>();
    const n = this.int(4);
    for (let i = 0; i < n; i++) m = m.set(this.int(5), this.int(10));
    return { kind: 'P', fst: this.int(5), snd: m };
  }

  private prim(op: PrimOp, ...args: Expr[]): Expr {
    return this.b.prim(op, args);
  }

  private leaf(ty: Ty, env: Env): Expr {
    const vs = env.filter(([, t]) => t === ty);
    if (vs.length > 0 && this.chance(0.7)) return this.b.v(this.pick(vs)[0]);
    const b = this.b;
    switch (ty) {
      case 'int':
        return b.lit(this.int(5));
      case 'bool':
        return b.lit(this.chance(0.5));
      case 'map':
        return this.prim('map_empty');
      case 'set':
        return this.prim('set_empty');
      case 'pair':
        return b.con('P', [b.lit(this.int(5)), this.prim('map_empty')]);
      case 'opt':
        return this.chance(0.5) ? b.con('none', []) : b.con('some', [b.lit(this.int(5))]);
    }
  }

  /** A key as residual code computes them: a small constant, a variable, or a variable plus one. */
  private key(env: Env): Expr {
    const vs = env.filter(([, t]) => t === 'int');
    const r = this.rnd();
    if (vs.length === 0 || r < 0.4) return this.b.lit(this.int(5));
    const x = this.b.v(this.pick(vs)[0]);
    return r < 0.8 ? x : this.prim('add', x, this.b.lit(1));
  }

  /**
   * The shape of residual analysis code: `let m1 = update(m0, k1 …) in … lookup(mn, k)` over a map
   * (`map_insert`/`map_delete` then `map_find` or `map_has`) or a set (`set_add`/`set_delete`
   * then `set_has`); updates whose keys are never looked up are what DAE should remove.
   */
  private updateChain(
    kind: 'map' | 'set',
    result: 'opt' | 'bool',
    env: Env,
    depth: number,
    fi: number,
  ): Expr {
    const b = this.b;
    const n = 1 + this.int(4);
    const names: string[] = [];
    let cur: Env = env;
    const values: Expr[] = [];
    for (let i = 0; i < n; i++) {
      const prev =
        names.length > 0 ? b.v(names[names.length - 1] as string) : this.expr(kind, cur, depth, fi);
      const del = this.chance(0.2);
      const upd =
        kind === 'map'
          ? del
            ? this.prim('map_delete', prev, this.key(cur))
            : this.prim('map_insert', prev, this.key(cur), this.expr('int', cur, 1, fi))
          : this.prim(del ? 'set_delete' : 'set_add', prev, this.key(cur));
      const x = `v${this.vars++}`;
      names.push(x);
      values.push(upd);
      cur = [...cur, [x, kind]];
    }
    const last = b.v(names[names.length - 1] as string);
    let body: Expr =
      result === 'opt'
        ? this.prim('map_find', last, this.key(cur))
        : this.prim(kind === 'set' ? 'set_has' : 'map_has', last, this.key(cur));
    for (let i = n - 1; i >= 0; i--) body = b.let(names[i] as string, values[i] as Expr, body);
    return body;
  }

  private expr(ty: Ty, env: Env, depth: number, fi: number): Expr {
    if (depth <= 0 || this.chance(0.15)) return this.leaf(ty, env);
    const d = depth - 1;
    const b = this.b;
    const e = (t: Ty) => this.expr(t, env, d, fi);
    const r = this.rnd();
    if (r < 0.3) {
      // let x = e1 in e2, with x often unused
      const x = `v${this.vars++}`;
      const t = this.pick(TYPES);
      return b.let(x, e(t), this.expr(ty, [...env, [x, t]], d, fi));
    }
    if (r < 0.38) return b.if(e('bool'), e(ty), e(ty));
    if (r < 0.45) {
      const callees = this.sigs.filter((s, j) => j > fi && s.ret === ty);
      if (callees.length > 0) {
        const s = this.pick(callees);
        return b.call(s.name, s.params.map(e));
      }
    }
    switch (ty) {
      case 'int':
        switch (this.int(6)) {
          case 0:
            return this.prim(this.pick(['add', 'sub', 'mul'] as const), e('int'), e('int'));
          case 1:
            return b.proj('P', 0, e('pair'));
          case 2:
            return this.prim('map_size', e('map'));
          case 3:
            return this.prim('set_size', e('set'));
          default: {
            // let o = … in if some?(o) then some⁻¹(o) else …
            const o = `v${this.vars++}`;
            const inner: Env = [...env, [o, 'opt']];
            return b.let(
              o,
              e('opt'),
              b.if(b.test('some', b.v(o)), b.proj('some', 0, b.v(o)), this.expr('int', inner, d, fi)),
            );
          }
        }
      case 'bool':
        if (this.chance(0.3)) return this.updateChain(this.chance(0.5) ? 'map' : 'set', 'bool', env, d, fi);
        switch (this.int(6)) {
          case 0:
            return this.prim(this.pick(['lt', 'eq'] as const), e('int'), e('int'));
          case 1:
            return this.prim('map_has', e('map'), e('int'));
          case 2:
          case 3:
            return this.prim('set_has', e('set'), e('int'));
          case 4:
            return this.prim('not', e('bool'));
          default:
            return this.chance(0.5) ? this.prim('set_subset', e('set'), e('set')) : b.test('some', e('opt'));
        }
      case 'map':
        switch (this.int(5)) {
          case 0:
          case 1:
          case 2:
            return this.prim('map_insert', e('map'), e('int'), e('int'));
          case 3:
            return this.prim('map_delete', e('map'), e('int'));
          default:
            return b.proj('P', 1, e('pair'));
        }
      case 'set':
        switch (this.int(6)) {
          case 0:
            return this.prim('set_singleton', e('int'));
          case 1:
          case 2:
            return this.prim(this.pick(['set_add', 'set_delete'] as const), e('set'), e('int'));
          case 3:
            return this.prim(
              this.pick(['set_union', 'set_intersect', 'set_diff'] as const),
              e('set'),
              e('set'),
            );
          default:
            return this.prim('map_keys', e('map'));
        }
      case 'pair':
        return b.con('P', [e('int'), e('map')]);
      case 'opt':
        if (this.chance(0.4)) return this.updateChain('map', 'opt', env, d, fi);
        return this.chance(0.7) ? this.prim('map_find', e('map'), e('int')) : b.con('some', [e('int')]);
    }
  }
}

export function genProgram(seed: number): GenProgram {
  return new Gen(seed).generate();
}
