import { describe, expect, it } from 'vitest';
import { elementRemovedNote, pageItemChanges, pageNotApplied, stagedPageChanges } from '../../shared/page/page-items.ts';
import type { RunChange } from '../../shared/protocol/run-record.ts';
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

  it('[REV6] notes a change whose element is gone from the source, unless an earlier change of the run made it', () => {
    const runChanges: RunChange[] = [
      { op: 'replace_element', blockId: 'e1', instructionId: 'i1', before: '<p data-tandem-id="e1">x</p>', after: '<p data-tandem-id="e1"><b data-tandem-id="e9">y</b></p>' },
      { op: 'set_text', blockId: 'e9', instructionId: 'i1', before: '<b data-tandem-id="e9">y</b>', after: '<b data-tandem-id="e9">z</b>' },
      { op: 'set_text', blockId: 'e2', instructionId: 'i2', before: '<h1 data-tandem-id="e2">a</h1>', after: '<h1 data-tandem-id="e2">b</h1>' },
    ];
    const accepting = runChanges.map((change) => ({ op: change.op as 'set_text', elementId: change.blockId, instructionId: change.instructionId, before: change.before!, after: change.after! }));
    expect(pageNotApplied(runChanges, accepting, new Set(['e1', 'e2']))).toEqual(new Map());
    expect(pageNotApplied(runChanges, accepting, new Set(['e1']))).toEqual(new Map([[2, elementRemovedNote]]));
    expect(pageNotApplied(runChanges, accepting.slice(2), new Set([]))).toEqual(new Map([[2, elementRemovedNote]]));
  });
});
