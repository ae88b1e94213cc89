/**
 * Fresh names for generated code: the one place where the back ends (js.ts, wgsl.ts) make the
 * identifiers they emit, so no generated name can collide with another, with a user identifier,
 * or with a reserved word or builtin of the target language.
 *
 * A `NameSupply` is a tree of scopes, one root per emitted program (a JS source, a WGSL plan):
 *
 *   root (JS: kernel functions · WGSL: one site's module-level names)
 *   ├─ scope (JS: a kernel function · WGSL: one pass's shader module)
 *   │   └─ scope (JS: a combinator's loop block · WGSL: a device function, `main`)
 *   └─ …
 *
 * Invariant: a name handed out in scope S differs from every name handed out in S, in S's
 * ancestors and in S's descendants, and from the target's reserved words and builtins; sibling
 * scopes may reuse a name (two JS functions may both have a `v_x`). Since every identifier the
 * back ends emit comes from the supply — user identifiers through `user` (a fixed prefix per kind
 * of name, then the identifier, mangled when the target cannot spell it), generated ones through
 * `fresh`, fixed template names (`main`, `params`, the loop index `i`) registered with `reserve`
 * before anything else is drawn — two different things never get one name, whatever the user
 * calls them: a user function `g__in_b` and the helper specialised from `g` for buffer `in_b` are
 * two `user`/`fresh` requests and get two names.
 *
 * Names are readable: the base itself when free, else the base with `_2`, `_3`, … appended.
 * Everything is deterministic (no counters shared between programs).
 */

export type TargetLanguage = 'js' | 'wgsl';

/** JavaScript's reserved words (strict mode) and the globals the JS back end's code uses. */
const JS_RESERVED = [
  // keywords, future reserved words, literals
  'await break case catch class const continue debugger default delete do else enum export extends false',
  'finally for function if implements import in instanceof interface let new null package private',
  'protected public return static super switch this throw true try typeof var void while with yield',
  // strict mode forbids binding these
  'arguments eval',
  // globals the generated code reads
  'Array Error Float32Array Infinity Int32Array Math NaN Number Object RangeError Uint8Array',
  'globalThis undefined',
];

/**
 * WGSL's keywords, reserved words and predeclared names (types, builtin functions, enumerants)
 * the back end uses or might: shadowing a predeclared name is legal WGSL, but the generated code
 * must still be able to call `select`, `bitcast`, …
 */
const WGSL_RESERVED = [
  // keywords
  'alias break case const const_assert continue continuing default diagnostic discard else enable',
  'false fn for if let loop override requires return struct switch true var while',
  // reserved words (WGSL §15.3)
  'NULL Self abstract active alignas alignof as asm asm_fragment async attribute auto await become',
  'binding_array cast catch class co_await co_return co_yield coherent column_major common compile',
  'compile_fragment concept const_cast consteval constexpr constinit crate debugger decltype delete',
  'demote demote_to_helper do dynamic_cast enum explicit export extends extern external fallthrough',
  'filter final finally friend from fxgroup get goto groupshared highp impl implements import inline',
  'instanceof interface layout lowp macro macro_rules match mediump meta mod module move mut mutable',
  'namespace new nil noexcept noinline nointerpolation non_coherent noncoherent noperspective null',
  'nullptr of operator package packoffset partition pass patch pixelfragment precise precision',
  'premerge priv protected pub public readonly ref regardless register reinterpret_cast require',
  'resource restrict self set shared sizeof smooth snorm static static_assert static_cast std',
  'subroutine super target template this thread_local throw trait try type typedef typeid typename',
  'typeof union unless unorm unsafe unsized use using varying virtual volatile wgsl where with',
  'writeonly yield',
  // predeclared types and enumerants
  'array atomic bool f16 f32 i32 u32 ptr sampler sampler_comparison vec2 vec3 vec4 mat2x2 mat2x3',
  'mat2x4 mat3x2 mat3x3 mat3x4 mat4x2 mat4x3 mat4x4 function private workgroup uniform storage',
  'handle read write read_write vec2i vec3i vec4i vec2u vec3u vec4u vec2f vec3f vec4f vec2h vec3h',
  'vec4h',
  // builtin functions
  'abs acos acosh all any arrayLength asin asinh atan atan2 atanh atomicAdd atomicAnd',
  'atomicCompareExchangeWeak atomicExchange atomicLoad atomicMax atomicMin atomicOr atomicStore',
  'atomicSub atomicXor bitcast ceil clamp cos cosh countLeadingZeros countOneBits',
  'countTrailingZeros cross degrees determinant distance dot dot4I8Packed dot4U8Packed exp exp2',
  'extractBits faceForward firstLeadingBit firstTrailingBit floor fma fract frexp insertBits',
  'inverseSqrt ldexp length log log2 max min mix modf normalize pow quantizeToF16 radians reflect',
  'refract reverseBits round saturate select sign sin sinh smoothstep sqrt step storageBarrier tan',
  'tanh transpose trunc workgroupBarrier workgroupUniformLoad textureBarrier',
];

function wordSet(lines: readonly string[]): ReadonlySet<string> {
  return new Set(lines.flatMap((l) => l.split(' ')));
}

const RESERVED: Readonly<Record<TargetLanguage, ReadonlySet<string>>> = {
  js: wordSet(JS_RESERVED),
  wgsl: wordSet(WGSL_RESERVED),
};

/**
 * Whether `name` is an identifier of `language` (ASCII; WGSL forbids a leading `__` and `_`).
 * JavaScript also allows `$`, which `mangle` never produces: the JS back end's run-time helpers
 * (`$fail`, `$fuel`, …) are reserved under such names, apart from every drawn name by construction.
 */
function spellable(name: string, language: TargetLanguage): boolean {
  if (language === 'js' && /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name)) return true;
  return /^[A-Za-z][A-Za-z0-9_]*$/.test(name) || /^_[A-Za-z0-9][A-Za-z0-9_]*$/.test(name);
}

/**
 * `name` spelled with `[A-Za-z0-9_]` only: every other character (the parser accepts `$` and
 * Unicode letters, which not every target does) becomes `_` + its code point in hex + `_`.
 * Distinct inputs may mangle alike (`$x` and `_24_x`); the supply keeps their names apart.
 */
export function mangle(name: string): string {
  let out = '';
  for (const ch of name) {
    out += /[A-Za-z0-9_]/.test(ch) ? ch : `_${(ch.codePointAt(0) as number).toString(16)}_`;
  }
  return out;
}

export class NameSupply {
  /** Names handed out (or reserved) in this scope. */
  private readonly own = new Set<string>();
  /** Names handed out in descendant scopes. */
  private readonly below = new Set<string>();
  /** `user` names already made in this scope, by kind and identifier. */
  private readonly users = new Map<string, string>();

  private constructor(
    readonly language: TargetLanguage,
    private readonly parent: NameSupply | undefined,
  ) {}

  /** The root scope of one emitted program. */
  static program(language: TargetLanguage): NameSupply {
    return new NameSupply(language, undefined);
  }

  /** A new scope inside this one (a function, a block, a shader module). */
  scope(): NameSupply {
    return new NameSupply(this.language, this);
  }

  /** Whether `name` is reserved, or in use in this scope, an ancestor or a descendant. */
  taken(name: string): boolean {
    if (RESERVED[this.language].has(name) || this.own.has(name) || this.below.has(name)) return true;
    for (let s = this.parent; s; s = s.parent) if (s.own.has(name)) return true;
    return false;
  }

  /**
   * Registers fixed names the code uses as they are (template names: `main`, `params`, `i`, …).
   * Call before drawing other names in the scope tree; a name that is already taken is an internal
   * error, since the template would then be ambiguous.
   */
  reserve(...names: readonly string[]): void {
    for (const n of names) {
      if (!spellable(n, this.language) || this.taken(n))
        throw new Error(`internal error: cannot reserve the name '${n}'`);
      this.add(n);
    }
  }

  /** A name not in use here (see the invariant): `base` (mangled) when free, else `base_2`, `base_3`, … */
  fresh(base: string): string {
    let stem = mangle(base);
    if (!/^[A-Za-z]/.test(stem)) stem = `n${stem}`;
    let name = stem;
    for (let k = 2; this.taken(name); k++) name = `${stem}_${k}`;
    this.add(name);
    return name;
  }

  /**
   * The name of user identifier `id` of one kind in this scope (a scalar, an array, a function,
   * a buffer): `prefix` + `id`, made fresh the first time, the same name afterwards. Different
   * kinds (prefixes) or identifiers never share a name.
   */
  user(prefix: string, id: string): string {
    const key = `${prefix}\u0000${id}`;
    const known = this.users.get(key);
    if (known !== undefined) return known;
    const name = this.fresh(prefix + id);
    this.users.set(key, name);
    return name;
  }

  private add(name: string): void {
    this.own.add(name);
    for (let s = this.parent; s; s = s.parent) s.below.add(name);
  }
}
