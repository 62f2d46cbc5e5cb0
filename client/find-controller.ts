import { html, type ReactiveController, type ReactiveControllerHost } from 'lit';
import type { Command } from 'prosemirror-state';
import type { EditorController } from './editor-controller.ts';
import { ownUndoStep } from './editor-commands.ts';
import { clearFind, findNext, findPrev, findStatus, findStatusText, replaceAll, replaceNext, setFindQuery } from './find-commands.ts';
import './tandem-find-bar.ts';
import type { TandemFindBar } from './tandem-find-bar.ts';

interface FindHost extends ReactiveControllerHost, HTMLElement {
  readOnly: boolean;
}

/**
 * The find bar of an editor (FIND1): Ctrl+F anywhere on the page opens it, or goes back to it,
 * instead of the browser's find (a read-only text cannot take the focus, so its readers' keys
 * reach only the page); its requests become commands on `editor`'s view. The host renders
 * `render()` above the text.
 */
export class FindController implements ReactiveController {
  private open = false;
  /** What the bar searches for (the match count shows only for some text). */
  private searched = '';
  /** The text the bar opens with: the selection when Ctrl+F was pressed over a short one. */
  private seed = '';

  constructor(
    private readonly host: FindHost,
    private readonly editor: EditorController,
  ) {
    host.addController(this);
  }

  hostConnected(): void {
    document.addEventListener('keydown', this.onKeyDown);
  }

  hostDisconnected(): void {
    document.removeEventListener('keydown', this.onKeyDown);
  }

  render() {
    const state = this.editor.state;
    if (!this.open || !state) return '';
    return html`<tandem-find-bar
      ?canReplace=${!this.host.readOnly}
      .status=${this.searched !== '' ? findStatusText(findStatus(state)) : ''}
      @find-query=${(event: CustomEvent<{ search: string; replace: string }>) => this.search(event.detail.search, event.detail.replace)}
      @find-next=${() => this.editor.apply(findNext)}
      @find-previous=${() => this.editor.apply(findPrev)}
      @find-replace=${() => this.replace(replaceNext)}
      @find-replace-all=${() => this.replace(replaceAll)}
      @find-close=${this.close}
    ></tandem-find-bar>`;
  }

  private search(search: string, replace: string) {
    this.searched = search;
    this.editor.apply(setFindQuery(search, replace));
  }

  /** A replacement is the person's own edit, one undo step each, in an editable view only. */
  private replace(command: Command) {
    const view = this.editor.view;
    if (!view || !view.editable) return;
    ownUndoStep(command)(view.state, view.dispatch, view);
  }

  private readonly close = () => {
    this.open = false;
    this.searched = '';
    this.editor.apply(clearFind, { focus: true });
    this.host.requestUpdate();
  };

  private readonly onKeyDown = (event: KeyboardEvent) => {
    if (event.key !== 'f' || !(event.ctrlKey || event.metaKey) || event.altKey || event.shiftKey || event.defaultPrevented) return;
    const state = this.editor.state;
    if (!state) return;
    event.preventDefault();
    const { from, to } = state.selection;
    const selected = state.doc.textBetween(from, to, '\n');
    const seed = !this.open && selected.trim() !== '' && selected.length <= 200 && !selected.includes('\n') ? selected : '';
    this.open = true;
    this.host.requestUpdate();
    void this.host.updateComplete.then(() => {
      const bar = this.host.querySelector<TandemFindBar>('tandem-find-bar');
      if (seed) bar?.seed(seed);
      bar?.focusFind();
    });
  };
}
