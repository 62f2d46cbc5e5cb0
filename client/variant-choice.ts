import { maxVariants } from '../shared/applier/ops.ts';
import type { RunItem } from '../shared/protocol/run-record.ts';

/** The numbers of answers an instruction may ask for (VAR1): 1 to 4, one unless chosen. */
export const variantCounts: readonly number[] = Array.from({ length: maxVariants }, (_, index) => index + 1);

/** What the Send dialog says of an instruction asking for `variants` answers (`3 variants`); null for one. */
export function variantsAskedLabel(variants: number | undefined): string | null {
  return variants !== undefined && variants > 1 ? `${variants} variants` : null;
}

/** Where an item with variants stands: what it says, and which candidate each button shows. */
export interface VariantStep {
  /** `Variant K of N`, K counting from 1. */
  label: string;
  /** The index `Previous variant` asks for. */
  previous: number;
  /** The index `Next variant` asks for. */
  next: number;
}

/**
 * The step of an item that has candidates (VAR2), or null when it has none. Previous and next
 * wrap around (after the last comes the first), so that neither button is ever disabled and the
 * focus stays on the one pressed.
 */
export function variantStep(item: Pick<RunItem, 'variants' | 'chosen'>): VariantStep | null {
  const count = item.variants.length;
  const chosen = item.chosen;
  if (count === 0 || chosen === null || chosen < 0 || chosen >= count) return null;
  return {
    label: `Variant ${chosen + 1} of ${count}`,
    previous: (chosen - 1 + count) % count,
    next: (chosen + 1) % count,
  };
}
