import fc from 'fast-check';
import * as Y from 'yjs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { readAnnotations, type Annotation } from '../../shared/notes/annotations.ts';
import { docName, notesParts } from '../../shared/model/doc-layout.ts';
import { instructionStates } from '../../shared/notes/annotations.ts';
import { maxNotesUpdateBytes, snapshotNotes } from '../../shared/notes/notes-rules.ts';
import { RawCollabClient, type Outcome } from '../helpers/raw-collab.ts';
import { createDoc, instruct } from '../helpers/runs.ts';
import { looseAnchor } from '../helpers/notes.ts';
import { useTestServer } from '../helpers/use-test-server.ts';

/**
 * Thousands of random updates to `<id>/notes`, from a commenter and an editor: random bytes,
 * real updates with a few bytes flipped, and structurally plausible updates made on a scratch
 * copy of the server's state (records of every shape, replies, stray fields, other top-level
 * types, content under deleted records, oversized text). Whatever arrives, the server logs
 * nothing but refusals, a refused update leaves the notes byte-identical, and an accepted one
 * leaves only valid records in the annotations map and every sent instruction sent (NOTES13).
 */

const server = useTestServer();

const people = {
  editor: { sub: 'ed', name: 'Ed', role: 'editor' as const },
  commenter: { sub: 'cora', name: 'Cora', role: 'commenter' as const },
};
type Who = keyof typeof people;

const hour = 3600_000;
const timeChoices = [() => Date.now(), () => Date.now() - 3 * hour, () => Date.now() + 365 * 24 * hour, () => 0, () => -1, () => 1.5];
const nameChoices = (who: Who) => [people[who].name, 'Owner', ''];
const idChoices = (who: Who) => [people[who].sub, 'owner', 'someone'];
const keyChoices = ['id', 'kind', 'anchor', 'blockId', 'quote', 'author', 'createdAt', 'resolved', 'turns', 'state', 'runId', 'fromCommentId', 'junk'];
const valueChoices: (() => unknown)[] = [
  () => 'text',
  () => 7,
  () => null,
  () => true,
  () => ({ id: 'ed', name: 'Ed' }),
  () => new Y.Text('a text'),
  () => {
    const text = new Y.Text();
    text.insert(0, 'brave', { hidden: 'x'.repeat(200) });
    return text;
  },
  () => new Y.Map(),
  () => new Y.Array(),
  () => [1, 2],
];

const op = fc.oneof(
  fc.record({ k: fc.constant('add' as const), instruction: fc.boolean(), id: fc.nat(2), name: fc.nat(2), time: fc.nat(5), state: fc.nat(3), run: fc.nat(2), extra: fc.boolean(), text: fc.string({ maxLength: 12 }) }),
  fc.record({ k: fc.constant('reply' as const), target: fc.nat(), id: fc.nat(2), name: fc.nat(2), time: fc.nat(5), text: fc.string({ maxLength: 12 }) }),
  fc.record({ k: fc.constant('set' as const), target: fc.nat(), key: fc.nat(keyChoices.length - 1), value: fc.nat(valueChoices.length - 1) }),
  fc.record({ k: fc.constant('delete' as const), target: fc.nat() }),
  fc.record({ k: fc.constant('state' as const), target: fc.nat(), state: fc.nat(3), run: fc.nat(2) }),
  fc.record({ k: fc.constant('edit' as const), target: fc.nat(), turn: fc.nat(2), text: fc.string({ maxLength: 12 }) }),
  fc.record({ k: fc.constant('dropTurn' as const), target: fc.nat() }),
  fc.record({ k: fc.constant('orphan' as const), target: fc.nat(), text: fc.string({ maxLength: 12 }) }),
  fc.record({ k: fc.constant('topLevel' as const), name: fc.constantFrom('stash', 'meta', 'content', 'runs'), type: fc.nat(2), big: fc.nat(30) }),
);
type Op = typeof op extends fc.Arbitrary<infer T> ? T : never;

const attempt = fc.record({
  who: fc.constantFrom<Who>('editor', 'commenter'),
  shape: fc.oneof(
    { weight: 1, arbitrary: fc.record({ mode: fc.constant('bytes' as const), bytes: fc.uint8Array({ maxLength: 120 }) }) },
    { weight: 2, arbitrary: fc.record({ mode: fc.constant('flip' as const), ops: fc.array(op, { minLength: 1, maxLength: 3 }), flips: fc.array(fc.tuple(fc.nat(), fc.nat(255)), { minLength: 1, maxLength: 3 }) }) },
    { weight: 7, arbitrary: fc.record({ mode: fc.constant('ops' as const), ops: fc.array(op, { minLength: 1, maxLength: 4 }) }) },
  ),
});

const attemptsPerRound = 1_000;
let docId = '';
let runId = '';
let clients: Record<Who, RawCollabClient>;
let viewer: RawCollabClient;
const errors: unknown[][] = [];

/**
 * A fresh document for one round of attempts: a sent instruction (run `runId`), a queued one and
 * a comment, and the three raw clients on its notes. Rounds keep each document small, so the cost
 * of an attempt (which reads the whole notes state) stays flat over the 10,000.
 */
async function openRound(): Promise<void> {
  for (const client of [clients?.editor, clients?.commenter, viewer]) client?.close();
  const doc = await createDoc(server, 'first block\n\nsecond block');
  docId = doc.id;
  await instruct(server, docId, doc.blocks[0].id, 'uppercase');
  const sent = await server.api(`/api/docs/${docId}/runs`, { method: 'POST' });
  runId = sent.body.runId;
  await instruct(server, docId, doc.blocks[1].id, 'lowercase');
  await server.api(`/api/docs/${docId}/annotations`, { method: 'POST', body: { kind: 'comment', blockId: doc.blocks[1].id, text: 'a comment' } });
  const name = docName(docId, 'notes');
  clients = {
    editor: new RawCollabClient(server.wsUrl, name, server.token('editor', { sub: 'ed', name: 'Ed' })),
    commenter: new RawCollabClient(server.wsUrl, name, server.token('commenter', { sub: 'cora', name: 'Cora' })),
  };
  viewer = new RawCollabClient(server.wsUrl, name, server.token('viewer'));
}

beforeAll(() => {
  vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => void errors.push(args));
});

afterAll(() => {
  vi.restoreAllMocks();
  for (const client of [clients?.editor, clients?.commenter, viewer]) client?.close();
});

function docOf(state: Uint8Array): Y.Doc {
  const ydoc = new Y.Doc();
  Y.applyUpdate(ydoc, state);
  return ydoc;
}

/** The update `ops` make on a scratch copy of `state`, as `who` would send it. */
function makeUpdate(state: Uint8Array, ops: Op[], who: Who): Uint8Array {
  const scratch = docOf(state);
  const annotations = notesParts(scratch).annotations;
  const pick = (index: number) => {
    const keys = [...annotations.keys()].sort();
    return keys.length === 0 ? null : keys[index % keys.length];
  };
  const record = (index: number) => {
    const key = pick(index);
    const value = key === null ? undefined : annotations.get(key);
    return value instanceof Y.Map ? (value as Y.Map<unknown>) : null;
  };
  const turn = (id: number, name: number, time: number, text: string) => {
    const map = new Y.Map<unknown>();
    map.set('author', { id: idChoices(who)[id], name: nameChoices(who)[name] });
    map.set('text', text || 'x');
    map.set('at', timeChoices[time]());
    return map;
  };
  for (const next of ops) {
    try {
      scratch.transact(() => {
        switch (next.k) {
          case 'add': {
            const id = `n${Math.random().toString(36).slice(2, 10)}`;
            const map = new Y.Map<unknown>();
            const author = { id: idChoices(who)[next.id], name: nameChoices(who)[next.name] };
            map.set('id', id);
            map.set('kind', next.instruction ? 'instruction' : 'comment');
            map.set('anchor', looseAnchor);
            map.set('blockId', 'b1');
            map.set('quote', 'quoted');
            map.set('author', author);
            map.set('createdAt', timeChoices[next.time]());
            map.set('resolved', false);
            const turns = new Y.Array<Y.Map<unknown>>();
            turns.push([turn(next.id, next.name, next.time, next.text)]);
            map.set('turns', turns);
            if (next.instruction) {
              map.set('state', instructionStates[next.state]);
              map.set('runId', [null, runId, 'rforged0001'][next.run]);
              map.set('fromCommentId', null);
            }
            if (next.extra) map.set('colour', 'red');
            annotations.set(id, map);
            return;
          }
          case 'reply':
            (record(next.target)?.get('turns') as Y.Array<Y.Map<unknown>> | undefined)?.push([turn(next.id, next.name, next.time, next.text)]);
            return;
          case 'set':
            record(next.target)?.set(keyChoices[next.key], valueChoices[next.value]());
            return;
          case 'delete': {
            const key = pick(next.target);
            if (key !== null) annotations.delete(key);
            return;
          }
          case 'state':
            record(next.target)?.set('state', instructionStates[next.state]);
            record(next.target)?.set('runId', [null, runId, 'rforged0001'][next.run]);
            return;
          case 'edit': {
            const turns = record(next.target)?.get('turns');
            const target = turns instanceof Y.Array ? turns.get(next.turn % Math.max(1, turns.length)) : null;
            if (target instanceof Y.Map) target.set('text', next.text || 'y');
            return;
          }
          case 'dropTurn': {
            const turns = record(next.target)?.get('turns');
            if (turns instanceof Y.Array && turns.length > 0) turns.delete(turns.length - 1, 1);
            return;
          }
          case 'orphan': {
            const map = record(next.target);
            const key = pick(next.target);
            if (map === null || key === null) return;
            annotations.delete(key);
            map.set('quote', next.text.repeat(100));
            return;
          }
          case 'topLevel': {
            const text = next.big === 0 ? 'z'.repeat(maxNotesUpdateBytes + 100) : 'stowaway';
            if (next.type === 0) scratch.getText(next.name).insert(0, text);
            else if (next.type === 1) scratch.getMap(next.name).set('k', text);
            else scratch.getArray(next.name).push([text]);
            return;
          }
        }
      });
    } catch {
      // A scratch write Yjs itself refuses (e.g. a second type under an existing name) is skipped.
    }
  }
  return Y.encodeStateAsUpdate(scratch, Y.encodeStateVector(docOf(state)));
}

/**
 * Hocuspocus logs each refusal twice: `[beforeSync] <reason>`, then the error it closes the
 * connection for; the shape guard (SHAPE1–SHAPE4) refuses what does not decode before the notes
 * guard reads it.
 */
function isRefusalLog(args: unknown[]): boolean {
  if (args.some((arg) => arg instanceof Error && (arg.name === 'NotesWriteRefused' || arg.name === 'ShapeRefused'))) return true;
  const [hook, reason] = args;
  return hook === '[beforeSync]' && typeof reason === 'string' && /^(\[(NOTES|SHAPE)\d+\] |The update (is malformed|depends on))/.test(reason);
}

function heldInstructions(ydoc: Y.Doc): Map<string, string> {
  const held = new Map<string, string>();
  for (const note of readAnnotations(ydoc).annotations as Annotation[]) {
    if (note.kind === 'instruction' && (note.state === 'sent' || note.state === 'answered')) held.set(note.id, `${note.state} ${note.runId}`);
  }
  return held;
}

describe('notes under random updates', () => {
  it('[NOTES2] [NOTES11] [NOTES12] [NOTES13] logs only refusals, leaves refused updates without a trace and accepted ones valid', async () => {
    const tally: Record<Outcome['kind'], number> = { accepted: 0, refused: 0, reset: 0 };
    // Only these updates change the notes (the server's write-backs land before its answer), so
    // the state after one attempt is the state before the next.
    // 10 rounds of 1,000 attempts, each round on a fresh document.
    for (let round = 0; round < 10; round++) {
      await openRound();
      let before = await viewer.state();
      await fc.assert(
        fc.asyncProperty(attempt, async ({ who, shape }) => {
          let update: Uint8Array;
          if (shape.mode === 'bytes') update = shape.bytes;
          else {
            update = makeUpdate(before, shape.ops, who);
            if (shape.mode === 'flip') {
              update = Uint8Array.from(update);
              for (const [at, byte] of shape.flips) if (update.length > 0) update[at % update.length] = byte;
            }
          }
          const outcome = await clients[who].send(update);
          tally[outcome.kind] += 1;
          const after = await viewer.state();
          const was = docOf(before);
          const previous = before;
          before = after;
          if (outcome.kind !== 'accepted') {
            expect(after).toEqual(previous);
            return;
          }
          const now = docOf(after);
          expect([...now.share.keys()]).toEqual(['annotations']);
          expect([...snapshotNotes(now)].filter(([, entry]) => !entry.parsed.ok)).toEqual([]);
          const stillThere = new Set(notesParts(now).annotations.keys());
          for (const [id, held] of heldInstructions(was)) if (stillThere.has(id)) expect(heldInstructions(now).get(id)).toBe(held);
        }),
        { numRuns: attemptsPerRound, endOnFailure: true },
      );
    }
    expect(tally.accepted).toBeGreaterThan(50);
    expect(tally.refused).toBeGreaterThan(100);
    expect(tally.reset).toBeGreaterThan(20);
    const unexpected = errors.filter((args) => !isRefusalLog(args));
    expect(unexpected).toEqual([]);
  }, 300_000);
});
