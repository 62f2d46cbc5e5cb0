import * as Y from 'yjs';
import { buildInitialState } from '../server/docs/create-doc.ts';
import { docParts } from '../shared/model/doc-layout.ts';
import { paragraphsMarkdown } from './lib/docs.ts';
import { subject } from './applier-subject.ts';
const blocksN = Number(process.argv[2] ?? 100), opsN = Number(process.argv[3] ?? 100), iters = Number(process.argv[4] ?? 400);
const state = buildInitialState({ kind: 'text', title: 'A', markdown: paragraphsMarkdown(blocksN, 200) });
function ids(ydoc: Y.Doc, count: number) { const b = docParts(ydoc).content.toArray(); const r: string[] = []; for (let i = 0; i < count; i++) { const x = b[Math.floor((i * b.length) / count)]; if (x instanceof Y.XmlElement) r.push(String(x.getAttribute('id'))); } return r; }
let tApply = 0, tFloor = 0; const times: number[] = [], ftimes: number[] = [];
for (let i = 0; i < iters; i++) {
  const ydoc = new Y.Doc(); Y.applyUpdate(ydoc, state);
  const ops = subject.makeOps(ydoc, ids(ydoc, opsN), ' (revised by the agent)');
  const t0 = performance.now(); const a = subject.apply(ydoc, ops); const t1 = performance.now();
  subject.discard(ydoc, a); ydoc.destroy(); if (i > 20) times.push(t1 - t0);
  // floor
  const fdoc = new Y.Doc(); Y.applyUpdate(fdoc, state); const content = docParts(fdoc).content; const wanted = new Set(ids(fdoc, opsN));
  const origin = { run: 'f' }; const um = new Y.UndoManager(content, { trackedOrigins: new Set([origin]), captureTimeout: 1e15 });
  const f0 = performance.now();
  fdoc.transact(() => { for (const block of content.toArray()) { if (!(block instanceof Y.XmlElement) || !wanted.has(String(block.getAttribute('id')))) continue; const text = block.toArray().find((c): c is Y.XmlText => c instanceof Y.XmlText); text?.insert(text.length, ' (revised by the agent)'); } }, origin);
  const f1 = performance.now(); um.undo(); um.destroy(); fdoc.destroy(); if (i > 20) ftimes.push(f1 - f0);
}
const med = (a: number[]) => a.sort((x, y) => x - y)[Math.floor(a.length / 2)];
console.log(`blocks ${blocksN} ops ${opsN}: apply median ${med(times).toFixed(3)} ms, floor ${med(ftimes).toFixed(3)} ms, ratio ${(med(times) / med(ftimes)).toFixed(2)}`);
