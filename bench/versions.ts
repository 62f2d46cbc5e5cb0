/**
 * What version history (HIST1–HIST4) costs a document of about 1 MB: its cold load (the stored
 * state read and applied, as the server loads it) with 1,000 versions kept beside it vs the same
 * text with none in the same database (the baseline, loaded in turn with it); reading one version
 * the first time (its row, inflate, apply, Markdown, which the server does in its work pool and
 * then keeps) and again (the kept Markdown); recording one; and the storage per version.
 * Run: `npx tsx bench/versions.ts [versions]` (1,000 by default).
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as Y from 'yjs';
import { docName, docParts } from '../shared/model/doc-layout.ts';
import { docMarkdown } from '../server/docs/doc-markdown.ts';
import { openSqliteStore } from '../server/store/sqlite-store.ts';
import { makeYDoc } from '../tests/helpers/doc-builder.ts';

const count = Number(process.argv[2] ?? 1000);
const paragraphs = Array.from({ length: 7_600 }, (_, i) => `Paragraph ${i} with some words to make the document about a megabyte.`);
const dataDir = mkdtempSync(join(tmpdir(), 'tandem-bench-versions-'));
const store = openSqliteStore(dataDir);
const docId = 'benchdoc01';
const name = docName(docId);
const bareName = docName('benchdoc02');
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

const live = makeYDoc(paragraphs.join('\n\n'));
const state = Y.encodeStateAsUpdate(live);
for (const [id, part] of [[docId, name], ['benchdoc02', bareName]]) {
  await store.createDoc({ id, title: 'Bench', kind: 'text', createdAt: Date.now(), updatedAt: Date.now() }, new Map([[part, state]]));
}

async function coldLoad(part: string): Promise<number> {
  const started = performance.now();
  const loaded = new Y.Doc();
  Y.applyUpdate(loaded, (await store.loadState(part))!);
  const ms = performance.now() - started;
  loaded.destroy();
  return ms;
}


const block = docParts(live).content.get(0) as Y.XmlElement;
const text = block.get(0) as Y.XmlText;
const recordTimes: number[] = [];
const ids: string[] = [];
for (let i = 0; i < count; i++) {
  text.insert(text.length, ` ${i}`);
  const started = performance.now();
  const id = `v${String(i).padStart(6, '0')}`;
  await store.versions.add({
    id,
    docId,
    name: '',
    reason: 'auto',
    createdAt: Date.now(),
    byName: 'Bench',
    state: Y.encodeStateAsUpdate(live),
    snapshot: Y.encodeSnapshot(Y.snapshot(live)),
  });
  recordTimes.push(performance.now() - started);
  ids.push(id);
}
await coldLoad(name);
await coldLoad(bareName);
const withVersions: number[] = [];
const without: number[] = [];
// Alternating rounds, so that a busy moment of the machine weighs on both alike.
for (let round = 0; round < 9; round++) {
  withVersions.push(await coldLoad(name));
  without.push(await coldLoad(bareName));
}

const reads: number[] = [];
for (let round = 0; round < 21; round++) {
  const started = performance.now();
  const version = new Y.Doc();
  Y.applyUpdate(version, (await store.versions.state(docId, ids[Math.floor((round / 21) * ids.length)]))!);
  await store.versions.keepMarkdown(docId, ids[Math.floor((round / 21) * ids.length)], docMarkdown('text', version));
  reads.push(performance.now() - started);
  version.destroy();
}
const again: number[] = [];
for (let round = 0; round < 21; round++) {
  const started = performance.now();
  await store.versions.markdown(docId, ids[Math.floor((round / 21) * ids.length)]);
  again.push(performance.now() - started);
}
const listStarted = performance.now();
await store.versions.list(docId);
const listMs = performance.now() - listStarted;
await store.close();
const fileBytes = statSync(join(dataDir, 'tandem.sqlite')).size + (statSync(join(dataDir, 'tandem.sqlite-wal'), { throwIfNoEntry: false })?.size ?? 0);
rmSync(dataDir, { recursive: true, force: true });

const base = median(without);
const loaded = median(withVersions);
console.log(`A ${(state.length / 1024 / 1024).toFixed(2)} MiB text document, ${count} versions, medians:`);
console.log(`  cold load of the same text without versions (baseline): ${base.toFixed(1)} ms; with ${count} versions: ${loaded.toFixed(1)} ms (${(loaded / base).toFixed(2)}×, goal ≤ 1.2×)`);
console.log(`  one version read the first time (row, inflate, apply, Markdown; in the work pool): ${median(reads).toFixed(1)} ms; again (the kept Markdown): ${median(again).toFixed(2)} ms (goal ≤ 50 ms); the list of ${count}: ${listMs.toFixed(1)} ms`);
console.log(`  one version recorded (encode, snapshot, deflate, insert): ${median(recordTimes).toFixed(1)} ms`);
console.log(`  storage: ${(fileBytes / 1024 / 1024).toFixed(1)} MiB in all, ${(fileBytes / count / 1024).toFixed(0)} KiB per version beside a ${(state.length / 1024).toFixed(0)} KiB state`);
