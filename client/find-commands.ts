import { TextSelection, type Command, type EditorState } from 'prosemirror-state';
import { SearchQuery, getMatchHighlights, getSearchState, setSearchState } from 'prosemirror-search';

/**
 * Find and replace in the text (FIND1), over prosemirror-search: its plugin keeps the query and
 * highlights the matches (`ProseMirror-search-match`, the selected one
 * `ProseMirror-active-search-match`), mapped through every change, other people's too; its
 * commands move to a match and replace as ordinary transactions of the person, which the Yjs
 * binding writes and the person's undo takes back. Matching ignores case.
 */
export { search as findPlugin, findNext, findPrev, replaceNext, replaceAll } from 'prosemirror-search';

/**
 * Searches for `search` (replacing with `replace`) and selects the first match at or after the
 * start of the selection, wrapping to the document's start; an empty `search` finds nothing.
 */
export function setFindQuery(search: string, replace: string): Command {
  return (state, dispatch) => {
    if (!getSearchState(state)) return false;
    const query = new SearchQuery({ search, replace, literal: true });
    if (dispatch) {
      const tr = setSearchState(state.tr, query);
      const from = state.selection.from;
      const match = query.valid ? (query.findNext(state, from) ?? query.findNext(state, 0, from)) : null;
      const searchChanged = getSearchState(state)?.query.search !== search;
      if (match && searchChanged) tr.setSelection(TextSelection.create(tr.doc, match.from, match.to)).scrollIntoView();
      dispatch(tr);
    }
    return true;
  };
}

/** Ends the search: no query, no highlights. */
export const clearFind: Command = (state, dispatch) => {
  if (!getSearchState(state)) return false;
  dispatch?.(setSearchState(state.tr, new SearchQuery({ search: '' })));
  return true;
};

/** How many matches the text holds, and which of them (from 1) is selected, 0 when none is. */
export function findStatus(state: EditorState): { count: number; current: number } {
  const matches = getMatchHighlights(state)
    .find()
    .sort((a, b) => a.from - b.from);
  const { from, to } = state.selection;
  const index = matches.findIndex((match) => match.from === from && match.to === to);
  return { count: matches.length, current: index + 1 };
}

/** The match count as the find bar says it: `2 of 5`, `5 matches`, `No matches`. */
export function findStatusText({ count, current }: { count: number; current: number }): string {
  if (count === 0) return 'No matches';
  if (current > 0) return `${current} of ${count}`;
  return count === 1 ? '1 match' : `${count} matches`;
}
