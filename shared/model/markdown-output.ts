import { MarkdownSerializerState, type MarkdownSerializer } from 'prosemirror-markdown';
import type { Node } from 'prosemirror-model';

/**
 * prosemirror-markdown's serializer builds its output by appending to the string `state.out`
 * and, at nearly every write, reads its last character (`atBlank`) or its last two (`text`).
 * Reading a character of a string built by appending makes V8 flatten it, a copy of all of it,
 * so serializing is quadratic in the output (20,000 paragraphs: seconds). This adapter keeps
 * the output as finished chunks plus a short tail and shows the serializer only the tail as
 * `out`: every read it makes looks at most two characters back, and it only appends or
 * replaces the last character (prosemirror-markdown 1.13; `out` is marked internal there, so
 * tests/unit/markdown-output.test.ts checks over generated documents that the output is the
 * stock serializer's, and fails when upstream changes how it uses `out`).
 */
const BaseState = MarkdownSerializerState as unknown as new (
  nodes: MarkdownSerializer['nodes'],
  marks: MarkdownSerializer['marks'],
  options: MarkdownSerializer['options'],
) => MarkdownSerializerState;

class ChunkedState extends BaseState {
  private chunks: string[] | undefined;
  private tail = '';

  // The base constructor assigns `this.out = ""`, which reaches this setter.
  get out(): string {
    return this.tail;
  }

  set out(value: string) {
    if (value.length <= tailFlushAt) {
      this.tail = value;
      return;
    }
    (this.chunks ??= []).push(value.slice(0, value.length - tailKeep));
    this.tail = value.slice(value.length - tailKeep);
  }

  /** Everything written so far. */
  written(): string {
    return (this.chunks ?? []).join('') + this.tail;
  }
}

/** The tail grows to this length before all but its last `tailKeep` characters become a chunk. */
const tailFlushAt = 4096;
const tailKeep = 16;

/** `serializer.serialize(content, options)`, linear in the output. */
export function serializeMarkdown(serializer: MarkdownSerializer, content: Node, options: Record<string, unknown>): string {
  const state = new ChunkedState(serializer.nodes, serializer.marks, { ...serializer.options, ...options });
  state.renderContent(content);
  return state.written();
}
