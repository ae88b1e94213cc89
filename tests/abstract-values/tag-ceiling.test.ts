/** `withTagCeiling` (value.ts): the bound on abstract nodes built that the partial evaluator's node budget is. */
import { describe, expect, it } from 'vitest';
import { freshTag, TagCeilingReached, withTagCeiling } from '../../src/abstract-values/index.js';

describe('withTagCeiling: a bound on the abstract nodes built', () => {
  it('freshTag throws past the ceiling, nested ceilings keep the lower, and it is lifted after', () => {
    expect(withTagCeiling(3, () => [freshTag(), freshTag(), freshTag()])).toHaveLength(3);
    expect(() => withTagCeiling(3, () => [freshTag(), freshTag(), freshTag(), freshTag()])).toThrow(
      TagCeilingReached,
    );
    expect(
      withTagCeiling(10, () => withTagCeiling(100, () => Array.from({ length: 10 }, freshTag)).length),
    ).toBe(10);
    expect(() =>
      withTagCeiling(10, () => withTagCeiling(100, () => Array.from({ length: 11 }, freshTag))),
    ).toThrow(TagCeilingReached);
    // lifted: as many tags as wanted
    expect(Array.from({ length: 1000 }, freshTag)).toHaveLength(1000);
  });
});
