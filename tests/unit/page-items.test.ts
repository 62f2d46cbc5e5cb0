import { describe, expect, it } from 'vitest';
import { pageItemChanges, stagedPageChanges } from '../../shared/page/page-items.ts';
import type { PageChange } from '../../shared/page/page-applier.ts';

/* Which page changes an item owns and which a run still stages (shared/PROTOCOL.md REV12, PAGE7). */

const change = (elementId: string, instructionId: string, after: string): PageChange => ({ op: 'set_text', elementId, instructionId, before: '', after });
const changes = [change('e1', 'i1', 'a'), change('e2', 'i2', 'b'), change('e1', 'i2', 'c'), change('e3', 'i3', 'd')];
const items = (...decisions: (null | 'accepted' | 'discarded')[]) => decisions.map((decision, index) => ({ instructionId: `i${index + 1}`, decision }));

describe('the items of a page run', () => {
  it('[REV12] gives an element to the item of the first change naming it, a later item’s change to it included', () => {
    expect(pageItemChanges(changes, new Set(['i1'])).map((c) => c.after)).toEqual(['a', 'c']);
    expect(pageItemChanges(changes, new Set(['i2'])).map((c) => c.after)).toEqual(['b']);
  });

  it('[REV12] [PAGE7] stages the undecided items in review, the items not discarded once accepted, and all otherwise', () => {
    expect(stagedPageChanges({ state: 'review', items: items('accepted', null, 'discarded') }, changes).map((c) => c.after)).toEqual(['b']);
    expect(stagedPageChanges({ state: 'accepted', items: items('accepted', 'discarded', 'accepted') }, changes).map((c) => c.after)).toEqual(['a', 'c', 'd']);
    expect(stagedPageChanges({ state: 'accepted', items: items(null, null, null) }, changes)).toEqual(changes);
    expect(stagedPageChanges({ state: 'discarded', items: items('discarded', 'discarded', 'discarded') }, changes)).toEqual(changes);
  });
});
