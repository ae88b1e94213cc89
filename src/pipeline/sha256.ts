/**
 * SHA-256 of a string's UTF-8 bytes, as hex, by the Web Crypto API (`crypto.subtle`, in pages,
 * workers and node alike): the hash a folder staged in memory states for its modules and its
 * kernel (memory.ts), where `node:crypto` is not there. It gives node's `createHash('sha256')`
 * hex (tests/pipeline/memory.test.ts).
 */

/** The SHA-256 of `text` (UTF-8), 64 hex digits. */
export async function sha256Hex(text: string): Promise<string> {
  const digest = await globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('');
}
