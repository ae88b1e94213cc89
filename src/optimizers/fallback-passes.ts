/**
 * The built-in passes as the unstaged fallback of a staged stub reaches them (fallback.ts): only
 * `findPassEntry`, so that in a page, where fallback.browser.ts imports this module dynamically,
 * the chunk a bundler splits off holds the passes' native code and not the rest of what
 * optimizers/index.ts exports (the passes' Core programs among it).
 */
export { findPassEntry } from './index.js';
