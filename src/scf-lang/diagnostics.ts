/**
 * Diagnostics of the SCF-lang front end: every code and its message factory, in one sorted
 * table; the diagnostics themselves, their log and their printing are common's
 * (`common/diagnostics.ts`, shared with the kernel, configuration and description languages).
 * They are collected in a log, never thrown, so one run reports every error in a file.
 *
 * Code ranges: SCF1xxx files, syntax and modules; SCF2xxx constructs outside the subset;
 * SCF3xxx typing (SCF3017: an exported `optimize` that breaks the pass contract, contract.ts).
 */
import {
  type Diagnostic as CommonDiagnostic,
  DiagnosticLog as CommonDiagnosticLog,
  diagnosticFactory,
} from '../common/index.js';

export const MESSAGES = {
  SCF1001: (msg: string) => `syntax error: ${msg}`,
  SCF1002: (path: string, why: string) => `cannot read module '${path}': ${why}`,
  SCF1003: (spec: string) =>
    `import of '${spec}' is not allowed: SCF-lang modules import only other SCF-lang modules (relative paths), the prelude ('scf/prelude') and the kernel AST ('scf/kernel')`,
  SCF1004: (what: string) =>
    `${what} is not allowed at the top level of an SCF-lang module (only functions, types, interfaces, imports and constants)`,
  SCF1005: (name: string) => `'${name}' is not exported by that module`,
  SCF1006: (limit: number) =>
    `nesting too deep (limit ${limit}): brackets, operator chains and the statements of blocks nest deeper than the front end can parse here (a block's statements nest: 'const x = e; rest' is 'let x = e in rest')`,
  SCF1007: (limit: number) =>
    `imports nest more than ${limit} modules deep (a module imports one that imports another, …): import the modules you use from fewer levels`,
  SCF1008: (what: string) =>
    `a top-level constant's value is data known when the module is compiled (literals, object literals, tuples, prelude calls and other constants), not ${what}`,
  SCF2001: (kw: string) => `'${kw}' declarations are not allowed: bindings are immutable, use 'const'`,
  SCF2002: () => 'assignment is not allowed: SCF-lang has no mutable variables; bind a new name with const',
  SCF2003: (loop: string) => `'${loop}' loops are not allowed: use recursion`,
  SCF2004: (what: string) => `${what} are not allowed: SCF-lang is first-order (no closures)`,
  SCF2005: (name: string) => `function '${name}' is used as a value: SCF-lang is first-order`,
  SCF2006: () => 'classes are not allowed: declare data as interfaces with a kind tag',
  SCF2007: () => "'this' is not allowed",
  SCF2008: (what: string) => `mutation is not allowed: ${what}`,
  SCF2009: () => "'throw' is not allowed: return an Option or a result variant instead",
  SCF2010: () => "'try' is not allowed: SCF-lang has no exceptions",
  SCF2011: (t: string) => `type '${t}' is not allowed: give a precise type`,
  SCF2012: (op: string, t: string) =>
    `'${op}' compares values of type ${t} by identity: use the prelude's 'equal' for structural equality`,
  SCF2013: (what: string) => `${what} is not supported in SCF-lang`,
  SCF2014: (what: string) => `statement '${what}' is not supported in SCF-lang`,
  SCF2015: (what: string) => `type syntax '${what}' is not supported in SCF-lang`,
  SCF2016: (name: string, what: string) =>
    `type parameter '${name}' has ${what}: type parameters of SCF-lang functions are plain (<T>), with no bound or default`,
  SCF2017: (what: string) => `${what} parameters are not supported`,
  SCF2018: (what: string) => `${what} needs a type annotation`,
  SCF2019: () => 'unreachable code',
  SCF2020: (fn: string) => `not all paths of '${fn}' return a value`,
  SCF2021: () => 'expression statement has no effect: SCF-lang is pure',
  SCF2022: (method: string, hint: string) => `method call '.${method}(…)' is not allowed: ${hint}`,
  SCF2023: () => "'new' is not allowed: build values with object literals and the prelude",
  SCF2024: (what: string) => `${what} are not allowed`,
  SCF2025: (name: string) => `nested function '${name}' is not allowed: declare it at the top level`,
  SCF2026: () => "spread syntax is allowed only at the start of an object literal, as in '{ ...x, f: e }'",
  SCF2027: () => "tuple elements are read with a literal index, as in 't[0]'",
  SCF2028: () => "'break' is allowed only to leave a switch case",
  SCF2029: () => 'a case body may not fall through into the next case: end it with return or break',
  SCF2030: (why: string) => `object spread ${why}`,
  SCF2031: () =>
    "arrays are not allowed: a '[…]' literal is a tuple only where a tuple type is expected (annotate it); for a sequence use a List<T>, built with the prelude's cons and nil",
  SCF2032: (kw: string) =>
    `'${kw}' at the top level would be mutable module state, which SCF-lang does not have: declare a constant with 'const'`,
  SCF3001: (expected: string, actual: string) => `type mismatch: expected ${expected}, got ${actual}`,
  SCF3002: (name: string) => `unknown name '${name}'`,
  SCF3003: (name: string) => `unknown type '${name}'`,
  SCF3004: (field: string, t: string, hint = '') => `type ${t} has no field '${field}'${hint}`,
  SCF3005: (fn: string, expected: number, actual: number) =>
    `'${fn}' takes ${expected} argument${expected === 1 ? '' : 's'}, got ${actual}`,
  SCF3006: (msg: string) => `bad constructor: ${msg}`,
  SCF3007: (kind: string) => `kind '${kind}' is declared twice with different fields: kinds must be unique`,
  SCF3008: (name: string) => `'${name}' is declared twice`,
  SCF3009: (name: string) => `'${name}' is not a function`,
  SCF3010: (field: string, t: string, missing: string) =>
    `field '${field}' is not on every variant of ${t} (missing on ${missing}): test 'kind' first`,
  SCF3011: (msg: string) => `bad case: ${msg}`,
  SCF3012: (t: string) => `map keys and set elements must be number, string or boolean, not ${t}`,
  SCF3013: (t: string) => `condition must be boolean, got ${t}`,
  SCF3014: (op: string, t: string) => `operator '${op}' cannot be applied to ${t}`,
  SCF3015: () => "'absurd' is reachable here: the value it is given is not of type never",
  SCF3016: () => "'return' needs a value: every SCF-lang function returns one",
  SCF3017: (what: string, signature: string) =>
    `'optimize' does not have the signature of a pass: ${what} (a pass is ${signature})`,
  SCF3018: (name: string) =>
    `constant '${name}' is defined in terms of itself: a constant may read only other constants`,
  SCF3019: (param: string, fn: string) =>
    `cannot infer type parameter '${param}' of '${fn}': no argument's type fixes it and no type is expected here (annotate the binding, or write ${fn}<…>(…))`,
} as const;

export type DiagCode = keyof typeof MESSAGES;

/** An SCF-lang diagnostic. */
export type Diagnostic = CommonDiagnostic<DiagCode>;

/** A log of SCF-lang diagnostics. */
export class DiagnosticLog extends CommonDiagnosticLog<DiagCode> {}

/** An SCF-lang diagnostic: the code, the place and the facts its message needs. */
export const diag = diagnosticFactory(MESSAGES);

export { codeFrame, formatDiagnostic, formatLocation } from '../common/index.js';
