import { Plugin, PluginKey, type EditorState, type Transaction } from 'prosemirror-state';
import type { Mapping } from 'prosemirror-transform';
import { Decoration, DecorationSet, type EditorView } from 'prosemirror-view';
import { ySyncPluginKey } from 'y-prosemirror';
import type { Anchor, PinnedRange, ProsemirrorMapping } from '../shared/model/anchors.ts';
import type { Annotation, AnnotationKind } from '../shared/notes/annotations.ts';

/**
 * Annotations in the editor: where each one sits in the text now, the highlights, the
 * annotation in focus, and the draft being written. The annotations come in from the notes
 * Y.Doc as a `setAnnotations` transaction; everything else is derived here. `apply` reads
 * nothing but the transaction and the previous state.
 *
 * Placement: a change that arrives through Yjs (another person, an undo, the first render), and
 * a new list of annotations, carry the placements resolved from the anchors (`placedKey` meta,
 * added by client/annotation-placer.ts). A change made here is mapped through the transaction,
 * highlights included, because the binding writes it to Yjs only in its view update; the plugin
 * view then compares the mapped ranges with the anchors and, where they disagree (a split with
 * Enter before an anchor orphans it, y-prosemirror #204), keeps the mapped range and asks its
 * owner to re-pin the anchor there.
 */

export type Placement =
  | { status: 'attached'; from: number; to: number }
  | { status: 'orphaned'; reason: 'deleted' | 'not-synced' };

export interface Draft {
  kind: AnnotationKind;
  pin: PinnedRange;
  placement: Placement;
}

export interface AnnotationsState {
  annotations: readonly Annotation[];
  placements: ReadonlyMap<string, Placement>;
  /** The annotation whose card and highlight are in focus. */
  active: string | null;
  draft: Draft | null;
  /** True when the placements were mapped through a local change and not yet checked. */
  mapped: boolean;
  decorations: DecorationSet;
}

export type AnnotationsMeta =
  | { type: 'annotations'; annotations: readonly Annotation[] }
  | { type: 'placements'; placements: ReadonlyMap<string, Placement>; draftPin: PinnedRange | null }
  | { type: 'active'; id: string | null }
  | { type: 'draft'; draft: Draft | null };

export const annotationsKey = new PluginKey<AnnotationsState>('tandem-annotations');

/** The placements resolved from the anchors, carried by a transaction (`tr.setMeta(placedKey, …)`). */
export interface Placed {
  placements: ReadonlyMap<string, Placement>;
  /** The draft's placement, null when there is no draft. */
  draft: Placement | null;
}

export const placedKey = new PluginKey<Placed>('tandem-annotations-placed');

export interface AnnotationsPluginOptions {
  /** Where each anchor is in `state`'s text now (reads the text Y.Doc; never called in `apply`). */
  resolve(state: EditorState, anchors: readonly Anchor[]): Placement[];
  /** A new pin for `from`–`to` of `state`'s text, or null. */
  pin(state: EditorState, from: number, to: number): PinnedRange | null;
  /** Stores a new pin for an annotation whose anchor lost its text in a local change. */
  repin(id: string, pin: PinnedRange): void;
}

export const kindLabels: Record<AnnotationKind, string> = { comment: 'Comment', instruction: 'Instruction' };

/** The y-prosemirror binding's mapping; undefined before the binding exists. */
export function bindingMapping(state: EditorState): ProsemirrorMapping | undefined {
  return ySyncPluginKey.getState(state)?.binding?.mapping as ProsemirrorMapping | undefined;
}

export function annotationsPlugin(options: AnnotationsPluginOptions): Plugin<AnnotationsState> {
  return new Plugin<AnnotationsState>({
    key: annotationsKey,
    state: {
      init: () => ({
        annotations: [],
        placements: new Map(),
        active: null,
        draft: null,
        mapped: false,
        decorations: DecorationSet.empty,
      }),
      apply(tr, prev, _old, state) {
        const meta = tr.getMeta(annotationsKey) as AnnotationsMeta | undefined;
        const placed = tr.getMeta(placedKey) as Placed | undefined;
        if (!meta && !placed && !tr.docChanged) return prev;
        let { annotations, placements, active, draft, mapped } = prev;
        if (tr.docChanged) {
          placements = new Map(Array.from(placements, ([id, place]) => [id, mapPlacement(place, tr.mapping)]));
          if (draft) draft = { ...draft, placement: mapPlacement(draft.placement, tr.mapping) };
          mapped = true;
        }
        if (meta?.type === 'annotations') {
          annotations = meta.annotations;
          if (active !== null && !annotations.some((a) => a.id === active)) active = null;
        } else if (meta?.type === 'placements') {
          placements = meta.placements;
          if (draft && meta.draftPin) draft = { ...draft, pin: meta.draftPin };
          mapped = false;
        } else if (meta?.type === 'active') {
          active = meta.id;
        } else if (meta?.type === 'draft') {
          draft = meta.draft;
        }
        if (placed) {
          placements = placed.placements;
          if (draft && placed.draft) draft = { ...draft, placement: placed.draft };
          mapped = false;
        }
        // Mapping inline decorations is what mapPlacement does to their ranges (from to the
        // right, to to the left, gone when empty): a plain local change maps the highlights.
        const decorations =
          meta || placed ? decorate(state, annotations, placements, active, draft) : prev.decorations.map(tr.mapping, tr.doc);
        return { annotations, placements, active, draft, mapped, decorations };
      },
    },
    view: () => {
      let checked: AnnotationsState | null = null;
      return {
        update(view: EditorView) {
          const current = annotationsKey.getState(view.state);
          if (!current || !current.mapped || current === checked) return;
          checked = current;
          const corrected = checkMapped(view.state, current, options);
          if (corrected) view.dispatch(view.state.tr.setMeta(annotationsKey, corrected).setMeta('addToHistory', false));
        },
      };
    },
    props: {
      decorations: (state) => annotationsKey.getState(state)?.decorations,
      /** A click in highlighted text puts the innermost annotation there in focus. */
      handleClick(view, pos) {
        const current = annotationsKey.getState(view.state);
        if (!current) return false;
        const id = annotationAt(current, pos);
        if (id !== current.active) view.dispatch(view.state.tr.setMeta(annotationsKey, { type: 'active', id }));
        return false;
      },
    },
  });
}

/** The shortest highlighted range around `pos`, or null. */
export function annotationAt(current: AnnotationsState, pos: number): string | null {
  let best: { id: string; size: number } | null = null;
  for (const annotation of current.annotations) {
    const placed = current.placements.get(annotation.id);
    if (!isHighlighted(annotation) || placed?.status !== 'attached') continue;
    if (pos < placed.from || pos > placed.to) continue;
    const size = placed.to - placed.from;
    if (!best || size < best.size) best = { id: annotation.id, size };
  }
  return best?.id ?? null;
}

/** Resolved comments and answered instructions keep their cards but lose their highlight. */
export function isHighlighted(annotation: Annotation): boolean {
  return !annotation.resolved && !(annotation.kind === 'instruction' && annotation.state === 'answered');
}

function mapPlacement(placed: Placement, mapping: Mapping): Placement {
  if (placed.status !== 'attached') return placed;
  const from = mapping.map(placed.from, 1);
  const to = mapping.map(placed.to, -1);
  return from < to ? { status: 'attached', from, to } : { status: 'orphaned', reason: 'deleted' };
}

function samePlacement(a: Placement | undefined, b: Placement | undefined): boolean {
  if (!a || !b || a.status !== b.status) return a === b;
  if (a.status === 'attached' && b.status === 'attached') return a.from === b.from && a.to === b.to;
  return a.status === 'orphaned' && b.status === 'orphaned' && a.reason === b.reason;
}

/**
 * After a local change has reached Yjs: the placements the anchors give now, where they agree
 * with the mapped ones; where they do not and the mapped range still holds text, the mapped
 * range stays and the anchor is re-pinned there. Null when nothing needs correcting.
 */
function checkMapped(state: EditorState, current: AnnotationsState, options: AnnotationsPluginOptions): AnnotationsMeta | null {
  const { annotations, draft } = current;
  const found = options.resolve(state, [...annotations.map((a) => a.anchor), ...(draft ? [draft.pin.anchor] : [])]);
  const pinAt = (placed: Placement): PinnedRange | null =>
    placed.status === 'attached' ? options.pin(state, placed.from, placed.to) : null;
  let changed = false;
  const placements = new Map(current.placements);
  annotations.forEach((annotation, index) => {
    const mapped = current.placements.get(annotation.id);
    if (samePlacement(mapped, found[index])) return;
    const pin = mapped ? pinAt(mapped) : null;
    if (pin) options.repin(annotation.id, pin);
    else {
      placements.set(annotation.id, found[index]);
      changed = true;
    }
  });
  let draftPin: PinnedRange | null = null;
  if (draft && !samePlacement(draft.placement, found[annotations.length])) draftPin = pinAt(draft.placement);
  return changed || draftPin ? { type: 'placements', placements, draftPin } : null;
}

function decorate(
  state: EditorState,
  annotations: readonly Annotation[],
  placements: ReadonlyMap<string, Placement>,
  active: string | null,
  draft: Draft | null,
): DecorationSet {
  const decorations: Decoration[] = [];
  for (const annotation of annotations) {
    const placed = placements.get(annotation.id);
    if (!isHighlighted(annotation) || placed?.status !== 'attached') continue;
    const classes = ['annotation-highlight', `kind-${annotation.kind}`];
    if (annotation.id === active) classes.push('is-active');
    // A `nodeName` gives every annotation its own element, so overlapping ones nest.
    decorations.push(
      Decoration.inline(placed.from, placed.to, {
        nodeName: 'mark',
        class: classes.join(' '),
        'data-annotation-id': annotation.id,
        'data-kind': annotation.kind,
        title: kindLabels[annotation.kind],
      }),
    );
  }
  if (draft?.placement.status === 'attached') {
    const { from, to } = draft.placement;
    decorations.push(Decoration.inline(from, to, { nodeName: 'mark', class: `annotation-draft kind-${draft.kind}` }));
  }
  return decorations.length ? DecorationSet.create(state.doc, decorations) : DecorationSet.empty;
}

/** Sets the annotations read from the notes Y.Doc (a transaction that changes no text). */
export function setAnnotationsTr(tr: Transaction, annotations: readonly Annotation[]): Transaction {
  return tr.setMeta(annotationsKey, { type: 'annotations', annotations } satisfies AnnotationsMeta).setMeta('addToHistory', false);
}
