import { describe, expect, it } from 'vitest';
import { schema, blockTypes } from '../../shared/model/schema.ts';

describe('schema', () => {
  it('lets every container be empty, so concurrent deletions never leave unbuildable content', () => {
    for (const name of ['doc', 'blockquote', 'bullet_list', 'ordered_list', 'list_item', 'paragraph', 'heading', 'code_block', 'table', 'table_row', 'table_cell', 'table_header']) {
      const type = schema.nodes[name];
      expect(type.contentMatch.validEnd, name).toBe(true);
      expect(() => type.create().check(), name).not.toThrow();
    }
  });

  it('gives every attribute a default', () => {
    for (const type of Object.values(schema.nodes)) {
      expect(type.hasRequiredAttrs(), type.name).toBe(false);
    }
    for (const mark of Object.values(schema.marks)) {
      expect(() => mark.create(), mark.name).not.toThrow();
    }
  });

  it('puts an id attribute on every top-level block type', () => {
    for (const name of blockTypes) {
      expect(schema.nodes[name].create().attrs, name).toHaveProperty('id', null);
    }
  });

  it('has headings 1 to 3, the listed marks, and hard breaks', () => {
    expect(Object.keys(schema.marks).sort()).toEqual(['change', 'code', 'em', 'link', 'strike', 'strong']);
    expect(schema.nodes.hard_break.isInline).toBe(true);
    expect(schema.nodes.heading.create({ level: 3 }).attrs.level).toBe(3);
  });
});
