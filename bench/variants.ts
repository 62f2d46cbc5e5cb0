/**
 * What variants (VAR1–VAR3) cost the applier on a document of about 1 MB (7,600 paragraphs):
 * a `propose_variants` of 4 candidates beside a `replace_block` of the same block (the baseline,
 * the one write every candidate but the first is spared), and a choice of another candidate
 * beside that same `replace_block` written over the candidate shown. Medians of fresh documents,
 * each op on a paragraph in the middle. Run: `npx tsx bench/variants.ts [rounds]` (20 by default).
 */
import * as Y from 'yjs';
import { applyOps, type ApplierRun } from '../shared/applier/applier.ts';
import { chooseVariant } from '../shared/applier/choose-variant.ts';
import { managerScope } from '../shared/applier/run-items.ts';
import { runUndoManager } from '../shared/applier/run-scope.ts';
import { readBlocks } from '../shared/model/doc-content.ts';
import { opKinds } from '../shared/applier/op-kinds.ts';
import { runOrigin } from '../shared/model/origins.ts';
import { makeYDoc } from '../tests/helpers/doc-builder.ts';

const rounds = Number(process.argv[2] ?? 20);
const paragraphs = Array.from({ length: 7_600 }, (_, i) => `Paragraph ${i} with some words to make the document about a megabyte.`);
const source = Y.encodeStateAsUpdate(makeYDoc(paragraphs.join('\n\n')));
const candidates = ['A first take on paragraph 3800, shorter.', 'A second take, with **bold** words in it.', 'A third take\n\nin two paragraphs.', '## A heading instead'];
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

function fresh() {
  const ydoc = new Y.Doc();
  Y.applyUpdate(ydoc, source);
  const block = readBlocks(ydoc).find((candidate) => candidate.markdown.startsWith('Paragraph 3800 '))!;
  let count = 0;
  const run: ApplierRun = { runId: 'run1', fence: new Set([block.id]), instructions: new Set(['i1']), allowedOps: new Set(opKinds), makeId: () => `bench${++count}` };
  const origin = runOrigin('run1');
  return { ydoc, block, run, origin, manager: runUndoManager(ydoc, origin) };
}

function time(write: () => void): number {
  const started = performance.now();
  write();
  return performance.now() - started;
}

const figures = { replace: [] as number[], propose: [] as number[], choose: [] as number[], replaceOver: [] as number[] };
for (let round = 0; round < rounds; round++) {
  const baseline = fresh();
  figures.replace.push(time(() => applyOps(baseline.ydoc, [{ op: 'replace_block', blockId: baseline.block.id, markdown: candidates[0], expectHash: baseline.block.hash, instructionId: 'i1' }], baseline.run, baseline.origin)));
  const shownAfter = readBlocks(baseline.ydoc).find((candidate) => candidate.id === baseline.block.id)!;
  figures.replaceOver.push(time(() => applyOps(baseline.ydoc, [{ op: 'replace_block', blockId: shownAfter.id, markdown: candidates[1], expectHash: shownAfter.hash, instructionId: 'i1' }], baseline.run, baseline.origin)));

  const measured = fresh();
  let result: ReturnType<typeof applyOps> | undefined;
  figures.propose.push(time(() => (result = applyOps(measured.ydoc, [{ op: 'propose_variants', blockId: measured.block.id, candidates, expectHash: measured.block.hash, instructionId: 'i1' }], measured.run, measured.origin))));
  if (!result?.ok) throw new Error('propose_variants was refused');
  const change = result.changes[0];
  const { insertions } = managerScope(measured.manager);
  figures.choose.push(
    time(() =>
      chooseVariant(
        measured.ydoc,
        { runId: 'run1', instructionId: 'i1', blockId: measured.block.id, variants: { candidates: change.candidates ?? [], chosen: 0, blockIds: change.blockIds }, chosen: 1, writtenByRun: (item) => Y.isDeleted(insertions, item.id), makeId: measured.run.makeId },
        measured.origin,
      ),
    ),
  );
}

const row = (label: string, ms: number, baseline: number) => console.log(`${label.padEnd(58)} ${ms.toFixed(2).padStart(7)} ms  (${(ms / baseline).toFixed(2)}× baseline)`);
console.log(`variants on a 1 MB document, median of ${rounds}`);
console.log(`${'baseline: replace_block of one paragraph'.padEnd(58)} ${median(figures.replace).toFixed(2).padStart(7)} ms`);
row('propose_variants of 4 candidates', median(figures.propose), median(figures.replace));
console.log(`${'baseline: replace_block over the run\'s own change'.padEnd(58)} ${median(figures.replaceOver).toFixed(2).padStart(7)} ms`);
row('choose another candidate', median(figures.choose), median(figures.replaceOver));
