/**
 * What authorship (WHO2) adds to each incoming update: before Hocuspocus applies a writable
 * connection's update, AuthorshipGuard reads the client ids it writes (`Y.parseUpdateMeta`),
 * compares them with the document's state vector and asks the owners' cache. This prints that
 * work per update beside the apply it precedes (the baseline), for keystrokes and for the
 * whole-document sync step 2 of a tab that reconnects with edits. Run: `npx tsx bench/authorship.ts`.
 */
import * as Y from 'yjs';
import { addedClients } from '../server/authorship/authorship-guard.ts';
import { ClientOwners } from '../server/authorship/client-owners.ts';
import type { AuthorshipBook } from '../server/store/authorship-book.ts';
import { docParts } from '../shared/model/doc-layout.ts';
import { makeYDoc } from '../tests/helpers/doc-builder.ts';

const paragraphs = Array.from({ length: 5_000 }, (_, i) => `Paragraph ${i} with some words to make the document long enough to matter here.`);
const keystrokes = 5_000;

/** A book that keeps claims in memory: the cache answers every keystroke after the first. */
function memoryBook(): AuthorshipBook {
  const rows = new Map<string, string>();
  return {
    async claim(docId, claims) {
      for (const { client, subject } of claims) if (!rows.has(`${docId}:${client}`)) rows.set(`${docId}:${client}`, subject);
      return new Map(claims.map(({ client }) => [client, rows.get(`${docId}:${client}`) ?? '']));
    },
    async authors() {
      return new Map();
    },
    async accepted() {},
  };
}

function typedUpdates(source: Y.Doc): Uint8Array[] {
  const writer = new Y.Doc();
  Y.applyUpdate(writer, Y.encodeStateAsUpdate(source));
  const updates: Uint8Array[] = [];
  writer.on('update', (update: Uint8Array) => updates.push(update));
  const block = docParts(writer).content.get(0) as Y.XmlElement;
  const ytext = block.toArray().find((child): child is Y.XmlText => child instanceof Y.XmlText)!;
  for (let i = 0; i < keystrokes; i++) ytext.insert(ytext.length, 'x');
  return updates;
}

/** Applies `updates` to a copy of `source`, each after the guard's work when `withGuard`; µs per update, all and the guard's part. */
async function measure(updates: Uint8Array[], source: Y.Doc, withGuard: boolean): Promise<{ total: number; guard: number }> {
  const server = new Y.Doc();
  Y.applyUpdate(server, Y.encodeStateAsUpdate(source));
  const owners = new ClientOwners(memoryBook());
  let guard = 0;
  const started = performance.now();
  for (const update of updates) {
    if (withGuard) {
      const before = performance.now();
      const added = addedClients(update, server);
      if (added.length > 0 && !added.every((client) => owners.known('bench', client) === 'ana')) {
        await owners.claim('bench', added.map((client) => ({ client, subject: 'ana', author: { kind: 'person', name: 'Ana' } })));
      }
      guard += performance.now() - before;
    }
    Y.applyUpdate(server, update);
  }
  return { total: ((performance.now() - started) * 1000) / updates.length, guard: (guard * 1000) / updates.length };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

const source = makeYDoc(paragraphs.join('\n\n'));
const size = Y.encodeStateAsUpdate(source).length;
const updates = typedUpdates(source);
await measure(updates, source, true);
const bare: number[] = [];
const guarded: number[] = [];
const guardOnly: number[] = [];
// Alternating rounds, so that a busy moment of the machine weighs on both alike.
for (let round = 0; round < 7; round++) {
  bare.push((await measure(updates, source, false)).total);
  const withGuard = await measure(updates, source, true);
  guarded.push(withGuard.total);
  guardOnly.push(withGuard.guard);
}
console.log(`${keystrokes} keystrokes into a ${(size / 1024).toFixed(0)} KiB text, median of 7 rounds:`);
console.log(`  apply only (baseline): ${median(bare).toFixed(2)} µs per update`);
console.log(`  with the authorship guard: ${median(guarded).toFixed(2)} µs per update (${(median(guarded) / median(bare)).toFixed(2)}×), the guard's own part ${median(guardOnly).toFixed(2)} µs`);

// A reconnecting tab's sync step 2 holding the whole text written offline (a fresh client id).
const offline = new Y.Doc();
Y.applyUpdate(offline, Y.encodeStateAsUpdate(makeYDoc(paragraphs.join('\n\n'))));
const whole = Y.encodeStateAsUpdate(offline);
const empty = new Y.Doc();
let started = performance.now();
for (let i = 0; i < 20; i++) addedClients(whole, empty);
const parse = (performance.now() - started) / 20;
started = performance.now();
for (let i = 0; i < 20; i++) Y.applyUpdate(new Y.Doc(), whole);
const apply = (performance.now() - started) / 20;
console.log(`whole ${(whole.length / 1024).toFixed(0)} KiB step 2: client ids read in ${parse.toFixed(1)} ms, applied to an empty doc in ${apply.toFixed(1)} ms (${(parse / apply).toFixed(2)}×)`);
