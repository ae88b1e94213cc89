/**
 * `scf/testing`: random members of early descriptions, to test a staged optimizer with as scf's
 * own property tests do (docs/api.md, "Test a staged optimizer like scf does"): `arbMember` and
 * `arbMembers` are fast-check arbitraries (abstract-values/arbitrary.ts), and `testEntry` is
 * `scf test` on an entry config (`testEntry(loadEntry(loadEntryConfig(file)))`, docs/own-ir.md). fast-check is an
 * optional package (common/optional.ts) whose types these declarations name, so they are an
 * entry of their own: the other entries' declarations type-check in an app without it.
 */
export { arbMember, arbMembers, type MemberOptions } from './abstract-values/arbitrary.js';
export { type EntryTestOptions, type EntryTestResult, testEntry } from './pipeline/index.js';
