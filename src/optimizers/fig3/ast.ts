/**
 * A small imperative AST for the SCF Fig. 3 example: functions over integer variables with
 * assignments, sequencing, while loops, conditionals and return. Declared as SCF-lang data
 * types, so optimizers written in SCF-lang pattern-match on it. Every node carries a label.
 */
import type { List } from 'scf/prelude';

export type Var = string;
export type Label = number;

export interface VarRef {
  readonly kind: 'var_ref';
  readonly v: Var;
  readonly lbl: Label;
}
export interface IntConst {
  readonly kind: 'int_const';
  readonly n: number;
  readonly lbl: Label;
}
export interface Primop {
  readonly kind: 'primop';
  readonly op: string;
  readonly args: Exprs;
  readonly lbl: Label;
}
export type Expr = VarRef | IntConst | Primop;

export interface ExprsCons {
  readonly kind: 'exprs';
  readonly e: Expr;
  readonly rest: Exprs;
}
export interface ExprsNone {
  readonly kind: 'exprs_none';
}
export type Exprs = ExprsCons | ExprsNone;

export interface Assign {
  readonly kind: 'assign';
  readonly v: Var;
  readonly e: Expr;
  readonly lbl: Label;
}
export interface Seq {
  readonly kind: 'seq';
  readonly first: Cmd;
  readonly second: Cmd;
  readonly lbl: Label;
}
export interface WhileDo {
  readonly kind: 'while_do';
  readonly test: Expr;
  readonly body: Cmd;
  readonly lbl: Label;
}
export interface IfThenElse {
  readonly kind: 'if_then_else';
  readonly test: Expr;
  readonly thenC: Cmd;
  readonly elseC: Cmd;
  readonly lbl: Label;
}
export interface Return {
  readonly kind: 'return';
  readonly e: Expr;
  readonly lbl: Label;
}
export interface Skip {
  readonly kind: 'skip';
  readonly lbl: Label;
}
export type Cmd = Assign | Seq | WhileDo | IfThenElse | Return | Skip;

export interface Func {
  readonly kind: 'func';
  readonly name: string;
  readonly formals: List<Var>;
  readonly body: Cmd;
  readonly lbl: Label;
}
