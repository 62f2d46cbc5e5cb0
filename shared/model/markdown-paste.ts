import { Slice, type Node } from 'prosemirror-model';
import { markdownToDoc } from './markdown.ts';

/**
 * Pasted plain text read as Markdown (EDIT4). Text is read as Markdown only when it shows a sign
 * of it and reading it gives some formatting: Markdown joins lines of a paragraph and drops
 * backslashes, which would change ordinary text for nothing.
 */

/** Lines that start a Markdown block: a heading, a list item, a quote, a fence. */
const blockSign = /^(?: {0,3}#{1,6}[ \t]+\S| {0,3}[-*+][ \t]+\S| {0,3}\d{1,9}[.)][ \t]+\S| {0,3}>| {0,3}(?:```|~~~))/m;

/** Inline Markdown: strong or em around text, inline code, a link, a strikethrough. */
const inlineSign = /\*\*\S(?:.*?\S)?\*\*|__\S(?:.*?\S)?__|(?:^|[\s(])[*_][^\s*_](?:[^*_\n]*[^\s*_])?[*_](?=$|[\s).,;:!?])|`[^`\n]+`|\[[^\]\n]+\]\([^)\s]+(?:\s+"[^"\n]*")?\)|~~\S(?:.*?\S)?~~/m;

/** A GFM table's delimiter row (`| --- | :-: |`), which a table's header row precedes. */
const tableSign = /^ {0,3}\|? *:?-+:? *(?:\| *:?-+:? *)*\|? *$/m;

/** Whether `text` shows a sign of Markdown (cheap; says nothing of what parsing gives). */
export function looksLikeMarkdown(text: string): boolean {
  return blockSign.test(text) || inlineSign.test(text) || (text.includes('|') && tableSign.test(text));
}

/** Whether `doc` holds anything but paragraphs of unmarked text. */
function hasFormatting(doc: Node): boolean {
  let formatted = false;
  doc.descendants((node) => {
    if (formatted) return false;
    if (node.isText ? node.marks.length > 0 : node.type.name !== 'paragraph' && node.type.name !== 'hard_break') formatted = true;
    return !formatted;
  });
  return formatted;
}

/**
 * The slice to paste for `text` when it is Markdown that gives formatting, else null (paste it
 * as plain text). Its blocks carry fresh ids; it is open as far as its ends allow, so one pasted
 * line joins the paragraph it lands in, while headings and lists keep their type; it is not
 * opened into a table (isolating), which is pasted whole.
 */
export function markdownPasteSlice(text: string): Slice | null {
  if (!looksLikeMarkdown(text)) return null;
  const doc = markdownToDoc(text);
  if (doc.childCount === 0 || !hasFormatting(doc)) return null;
  return Slice.maxOpen(doc.content, false);
}
