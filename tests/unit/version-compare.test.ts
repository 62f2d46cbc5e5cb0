import { describe, expect, it } from 'vitest';
import { compareTexts } from '../../server/versions/compare.ts';
import { thinnedAway } from '../../server/versions/retention.ts';
import type { StoredVersion } from '../../server/store/version-book.ts';

const ana = { kind: 'person' as const, name: 'Ana' };
const bo = { kind: 'person' as const, name: 'Bo' };
const block = (blockId: string, ...spans: [string, typeof ana][]) => ({ blockId, spans: spans.map(([text, by]) => ({ text, by })) });

describe('comparing two texts', () => {
  it('[HIST5] cuts a change where its writers change, and slides an edit onto word boundaries', () => {
    const from = [block('a', ['one two three', ana])];
    const to = [block('a', ['one three', ana], [' and Bo', bo])];
    expect(compareTexts(from, to)).toEqual([
      { kind: 'delete', blockId: 'a', text: 'two ', by: ana },
      { kind: 'insert', blockId: 'a', text: ' and Bo', by: bo },
    ]);
    expect(compareTexts([block('a', ['ab', ana], ['cd', bo])], [block('a', ['a', ana])])).toEqual([
      { kind: 'delete', blockId: 'a', text: 'b', by: ana },
      { kind: 'delete', blockId: 'a', text: 'cd', by: bo },
    ]);
  });

  it('[HIST5] puts a removed block where it stood, and a moved one where it is now', () => {
    const from = [block('a', ['first', ana]), block('b', ['gone', bo]), block('c', ['third', ana])];
    const to = [block('c', ['third', ana]), block('a', ['first', ana]), block('d', ['new', bo])];
    expect(compareTexts(from, to)).toEqual([
      { kind: 'delete', blockId: 'b', text: 'gone', by: bo },
      { kind: 'insert', blockId: 'd', text: 'new', by: bo },
    ]);
    expect(compareTexts(to, to)).toEqual([]);
  });
});

describe('thinning automatic versions', () => {
  const hour = 3_600_000;
  const day = 24 * hour;
  const now = 100 * day;
  let n = 0;
  const version = (reason: StoredVersion['reason'], age: number): StoredVersion => ({ id: `v${++n}`, docId: 'd', name: '', reason, createdAt: now - age, byName: 'Ana' });

  it('[HIST3] keeps every version of the last day, the newest per hour for a week, then the newest per day, and never thins named ones', () => {
    const recent = [version('auto', 1000), version('auto', 2000)];
    const sameHour = [version('auto', 2 * day + 60_000), version('auto', 2 * day + 120_000)];
    const sameDay = [version('auto', 10 * day + hour), version('auto', 10 * day + 2 * hour)];
    const named = version('named', 30 * day);
    const namedTwin = version('run-accepted', 30 * day + 1);
    const away = thinnedAway([...recent, ...sameHour, ...sameDay, named, namedTwin], now);
    expect(away.sort()).toEqual([sameHour[1].id, sameDay[1].id].sort());
  });
});
