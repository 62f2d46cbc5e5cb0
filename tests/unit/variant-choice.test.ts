import { describe, expect, it } from 'vitest';
import { variantCounts, variantsAskedLabel, variantStep } from '../../client/variant-choice.ts';

const candidates = (count: number) => Array.from({ length: count }, (_, index) => ({ index, markdown: `answer ${index}` }));

describe('variants in the app', () => {
  it('[VAR1] offers one to four answers and names only more than one in the Send dialog', () => {
    expect(variantCounts).toEqual([1, 2, 3, 4]);
    expect(variantsAskedLabel(undefined)).toBeNull();
    expect(variantsAskedLabel(1)).toBeNull();
    expect(variantsAskedLabel(3)).toBe('3 variants');
  });

  it('[VAR2] reads the candidate shown from 1 and steps to its neighbours, wrapping at both ends', () => {
    expect(variantStep({ variants: candidates(3), chosen: 0 })).toEqual({ label: 'Variant 1 of 3', previous: 2, next: 1 });
    expect(variantStep({ variants: candidates(3), chosen: 1 })).toEqual({ label: 'Variant 2 of 3', previous: 0, next: 2 });
    expect(variantStep({ variants: candidates(3), chosen: 2 })).toEqual({ label: 'Variant 3 of 3', previous: 1, next: 0 });
    expect(variantStep({ variants: candidates(2), chosen: 1 })).toEqual({ label: 'Variant 2 of 2', previous: 0, next: 0 });
  });

  it('[VAR2] has no step for an item without candidates or with no candidate shown', () => {
    expect(variantStep({ variants: [], chosen: null })).toBeNull();
    expect(variantStep({ variants: candidates(2), chosen: null })).toBeNull();
    expect(variantStep({ variants: candidates(2), chosen: 2 })).toBeNull();
  });
});
