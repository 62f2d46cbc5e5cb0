import * as v from 'valibot';
import { maxSourceBytes, maxTitleLength } from '../protocol/limits.ts';
import { jsonObject, utf8Length } from './parse.ts';

/** The wire forms of documents: `POST /api/docs`, `GET /api/docs`, `GET /api/docs/:id`. */

export const DocKind = v.picklist(['text', 'page']);

const title = v.pipe(
  v.string('title must be a string.'),
  v.maxLength(maxTitleLength, `title must be at most ${maxTitleLength} characters.`),
);

const source = (field: 'markdown' | 'html') =>
  v.pipe(
    v.string(`${field} must be a string.`),
    v.check((text) => utf8Length(text) <= maxSourceBytes, `${field} must be at most ${maxSourceBytes} bytes.`),
  );

/** `POST /api/docs`: `{title, markdown?}` (kind "text", the default) or `{title, kind: "page", html}`. */
export const NewDocBody = jsonObject(
  v.variant(
    'kind',
    [
      v.object({
        title,
        kind: v.optional(v.literal('text'), 'text'),
        markdown: v.optional(source('markdown'), ''),
        html: v.optional(v.never('html is only for documents of kind "page".')),
      }),
      v.object({
        title,
        kind: v.literal('page'),
        html: source('html'),
        markdown: v.optional(v.never('A page takes html, not markdown.')),
      }),
    ],
    'kind must be "text" or "page".',
  ),
  'The body must be a JSON object.',
);
export type NewDocBody = v.InferOutput<typeof NewDocBody>;

/** The answer of `POST /api/docs`; `warnings` say what of its Markdown could not be kept (CAT6). */
export const CreatedDoc = v.object({ id: v.string(), title: v.string(), kind: DocKind, warnings: v.optional(v.array(v.string())) });
export type CreatedDoc = v.InferOutput<typeof CreatedDoc>;

/** One entry of `GET /api/docs`; `updatedAt` is an ISO time. */
export const DocSummary = v.object({ id: v.string(), title: v.string(), kind: DocKind, updatedAt: v.string() });
export type DocSummary = v.InferOutput<typeof DocSummary>;

export const DocList = v.array(DocSummary);

/**
 * One block as the API and agents see it, top-level or nested (OP12): `parentId` is the id of the
 * block holding it (null at the top level); `hash` is what an op's `expectHash` names.
 */
export const BlockView = v.object({ id: v.string(), parentId: v.nullable(v.string()), type: v.string(), markdown: v.string(), hash: v.string() });
export type BlockView = v.InferOutput<typeof BlockView>;

/** One element of a page (PAGE3); `hash` is what a page op's `expectHash` names. */
export const ElementView = v.object({ id: v.string(), tag: v.string(), text: v.string(), hash: v.string() });
export type ElementView = v.InferOutput<typeof ElementView>;

/**
 * `GET /api/docs/:id`: a text document has `blocks`, a page `html` and `elements`. Annotations and runs are
 * read here as lists only: their records have their own parsers (shared/notes/annotations.ts,
 * shared/protocol/run-record.ts).
 */
/** An agent that asked for work or worked on a run in the last 60 s (RUN7); `model` for a model agent. */
export const AgentView = v.object({ name: v.string(), model: v.nullable(v.string()), lastSeen: v.string() });
export type AgentView = v.InferOutput<typeof AgentView>;
export const AgentList = v.array(AgentView);

export const DocView = v.object({
  id: v.string(),
  title: v.string(),
  kind: DocKind,
  blocks: v.optional(v.array(BlockView)),
  html: v.optional(v.string()),
  elements: v.optional(v.array(ElementView)),
  annotations: v.array(v.unknown()),
  runs: v.array(v.unknown()),
  agents: v.array(AgentView),
});
export type DocView = v.InferOutput<typeof DocView>;

/** The answer of a request that creates one record (an annotation, an escalation): its id. */
export const CreatedId = v.object({ id: v.string() });
export type CreatedId = v.InferOutput<typeof CreatedId>;
