import { html, nothing } from 'lit';
import { styleMap } from 'lit/directives/style-map.js';
import { ContextConsumer } from '@lit/context';
import * as v from 'valibot';
import { LightElement } from './light-element.ts';
import { ApiError } from './api.ts';
import { sessionContext } from './session-context.ts';
import { compareVersions, fetchVersionMarkdown, listVersions, nameVersion, restoreVersion } from './versions-api.ts';
import { comparisonView, versionBefore, versionTitle, type ComparisonView } from './version-history.ts';
import { markdownPreview } from './markdown-preview.ts';
import { NameVersionBody, type VersionView } from '../shared/wire/versions.ts';
import './tandem-time.ts';

/** The version the panel shows: each part null until it has arrived. */
interface ChosenVersion {
  version: VersionView;
  /** The version recorded before it; null for the oldest. */
  before: VersionView | null;
  text: HTMLElement | null;
  sinceBefore: ComparisonView | null;
  toCurrent: ComparisonView | null;
}

/**
 * HIST6: `Version history` of a text document, a button opening a panel beside the text that
 * lists the versions, newest first, names the current text as a version (editors), and shows a
 * chosen version read-only with what changed since the one before, its comparison with the
 * current text, and `Restore this version` (editors). A restore reaches the editor over Yjs; the
 * panel only asks the API. Escape in the panel closes it and puts focus back on the button.
 */
export class TandemVersionHistory extends LightElement {
  static properties = {
    docId: {},
    canEdit: { type: Boolean },
    blocker: {},
    open: { state: true },
    versions: { state: true },
    chosen: { state: true },
    busy: { state: true },
    problem: { state: true },
    notice: { state: true },
  };
  declare docId: string;
  declare canEdit: boolean;
  /** Why naming and restoring cannot go now (offline, own changes not yet on the server), or null. */
  declare blocker: string | null;
  declare open: boolean;
  declare versions: readonly VersionView[];
  declare chosen: ChosenVersion | null;
  /** What is being loaded, in words, or null. */
  declare busy: string | null;
  declare problem: string | null;
  declare notice: string | null;

  private readonly sessionFrom = new ContextConsumer(this, { context: sessionContext, subscribe: true });
  private pending = 0;
  /** Counts the choices made, so that a slow answer for an earlier choice is dropped. */
  private choices = 0;

  constructor() {
    super();
    this.docId = '';
    this.canEdit = false;
    this.blocker = null;
    this.open = false;
    this.versions = [];
    this.chosen = null;
    this.busy = null;
    this.problem = null;
    this.notice = null;
  }

  private get token(): string {
    return this.sessionFrom.value?.token ?? '';
  }

  protected willUpdate(changed: Map<string, unknown>): void {
    if (changed.has('docId') && changed.get('docId') !== undefined) this.reset();
  }

  render() {
    return html`<button
        type="button"
        class="version-history-button"
        aria-expanded=${String(this.open)}
        aria-controls="version-history"
        @click=${this.toggle}
      >
        Version history
      </button>
      ${this.open ? this.renderPanel() : nothing}`;
  }

  private renderPanel() {
    return html`<section id="version-history" class="version-panel" aria-labelledby="version-history-title" tabindex="-1" @keydown=${this.onKeyDown}>
      <div class="version-panel-head">
        <h2 id="version-history-title">Version history</h2>
        <button type="button" @click=${this.close}>Close</button>
      </div>
      ${this.busy ? html`<p class="version-busy" role="status"><progress aria-label=${this.busy}></progress> ${this.busy}</p>` : nothing}
      ${this.problem ? html`<p class="message error" role="alert">${this.problem}</p>` : nothing}
      ${this.notice ? html`<p class="message" role="status">${this.notice}</p>` : nothing}
      ${this.canEdit
        ? html`<form class="version-name-form" @submit=${this.onName}>
            <label>Version name <input name="name" maxlength="200" autocomplete="off" /></label>
            <button type="submit" ?disabled=${!!this.blocker} title=${this.blocker ?? nothing}>Name this version</button>
          </form>`
        : nothing}
      <ol class="version-list" aria-label="Versions">
        ${this.versions.map((version) => this.renderListed(version))}
      </ol>
      ${this.versions.length === 0 && !this.busy && !this.problem ? html`<p class="muted">No versions yet.</p>` : nothing}
      ${this.chosen ? this.renderChosen(this.chosen) : nothing}
    </section>`;
  }

  private renderListed(version: VersionView) {
    return html`<li>
      <button
        type="button"
        class="version-choice"
        aria-current=${this.chosen?.version.versionId === version.versionId ? 'true' : nothing}
        @click=${() => this.choose(version)}
      >
        <span class="version-title">${versionTitle(version)}</span>
        <span class="muted">${version.by.name} · <tandem-time .at=${Date.parse(version.createdAt)}></tandem-time></span>
      </button>
    </li>`;
  }

  private renderChosen({ version, before, text, sinceBefore, toCurrent }: ChosenVersion) {
    return html`<section class="version-chosen" aria-labelledby="version-chosen-title">
      <h3 id="version-chosen-title">${versionTitle(version)}</h3>
      <p class="muted">${version.by.name} · <tandem-time .at=${Date.parse(version.createdAt)}></tandem-time></p>
      <div class="version-actions">
        ${this.canEdit
          ? html`<button type="button" ?disabled=${!!this.blocker} title=${this.blocker ?? nothing} @click=${() => this.restore(version)}>
              Restore this version
            </button>`
          : nothing}
        <button type="button" @click=${() => this.compareWithCurrent(version)}>Compare with current</button>
      </div>
      <article class="version-text" aria-label="Text of this version">${text ?? nothing}</article>
      <h4>Changes since the version before</h4>
      ${before === null
        ? html`<p class="muted">The first version: nothing came before it.</p>`
        : sinceBefore
          ? this.renderComparison(sinceBefore, 'Changes since the version before')
          : nothing}
      ${toCurrent
        ? html`<h4>Changes from this version to the current text</h4>
            ${this.renderComparison(toCurrent, 'Changes from this version to the current text')}`
        : nothing}
    </section>`;
  }

  private renderComparison(view: ComparisonView, label: string) {
    if (view.blocks.length === 0) return html`<p class="muted" role="group" aria-label=${label}>No changes.</p>`;
    return html`<div class="version-changes" role="group" aria-label=${label}>
      ${view.blocks.map(
        (block) => html`<p class="version-change-block">
          ${block.pieces.map((piece) =>
            piece.kind === 'insert'
              ? html`<ins style=${styleMap({ '--author-color': piece.color })} title=${piece.words}>${piece.text}</ins>`
              : html`<del style=${styleMap({ '--author-color': piece.color })} title=${piece.words}>${piece.text}</del>`,
          )}
        </p>`,
      )}
      <ul class="version-authors" aria-label="Authors">
        ${view.authors.map(
          (author) => html`<li><span class="author-swatch" style=${styleMap({ background: author.color })} aria-hidden="true"></span>${author.name}</li>`,
        )}
      </ul>
    </div>`;
  }

  private readonly toggle = () => {
    if (this.open) this.close();
    else void this.show();
  };

  private async show() {
    this.open = true;
    this.notice = null;
    this.problem = null;
    await this.updateComplete;
    this.querySelector<HTMLElement>('.version-panel')?.focus();
    await this.refresh();
  }

  private readonly close = () => {
    this.open = false;
    this.chosen = null;
    this.choices += 1;
    this.querySelector<HTMLButtonElement>('.version-history-button')?.focus();
  };

  private onKeyDown(event: KeyboardEvent) {
    if (event.key !== 'Escape') return;
    event.stopPropagation();
    this.close();
  }

  private reset() {
    this.open = false;
    this.versions = [];
    this.chosen = null;
    this.choices += 1;
    this.problem = null;
    this.notice = null;
  }

  private async refresh() {
    await this.attempt('Loading versions…', async () => {
      this.versions = await listVersions(this.token, this.docId);
    });
  }

  private async onName(event: SubmitEvent) {
    event.preventDefault();
    const input = (event.target as HTMLFormElement).elements.namedItem('name') as HTMLInputElement;
    const body = v.safeParse(NameVersionBody, { name: input.value });
    if (!body.success) {
      this.problem = 'Give the version a name (at most 200 characters).';
      return;
    }
    const named = await this.attempt('Naming the version…', async () => {
      await nameVersion(this.token, this.docId, body.output);
    });
    if (!named) return;
    input.value = '';
    this.notice = `This text is now the version “${body.output.name}”.`;
    await this.refresh();
  }

  private async choose(version: VersionView) {
    const choice = ++this.choices;
    const before = versionBefore(this.versions, version.versionId);
    this.chosen = { version, before, text: null, sinceBefore: null, toCurrent: null };
    this.notice = null;
    await this.attempt('Loading the version…', async () => {
      const [markdown, comparison] = await Promise.all([
        fetchVersionMarkdown(this.token, this.docId, version.versionId),
        before ? compareVersions(this.token, this.docId, before.versionId, version.versionId) : null,
      ]);
      if (choice !== this.choices) return;
      this.chosen = { version, before, text: markdownPreview(markdown, document), sinceBefore: comparison && comparisonView(comparison), toCurrent: null };
    });
  }

  private async compareWithCurrent(version: VersionView) {
    const choice = this.choices;
    await this.attempt('Comparing with the current text…', async () => {
      const comparison = await compareVersions(this.token, this.docId, version.versionId, 'current');
      if (choice === this.choices && this.chosen) this.chosen = { ...this.chosen, toCurrent: comparisonView(comparison) };
    });
  }

  private async restore(version: VersionView) {
    const restored = await this.attempt('Restoring…', async () => {
      await restoreVersion(this.token, this.docId, version.versionId);
    });
    if (!restored) return;
    if (this.chosen?.version === version) this.chosen = { ...this.chosen, toCurrent: null };
    this.notice = `The text is back to “${versionTitle(version)}”.`;
    await this.refresh();
  }

  /** Runs `work` with `words` shown as what is loading; says its failure in words. Whether it succeeded. */
  private async attempt(words: string, work: () => Promise<void>): Promise<boolean> {
    this.problem = null;
    this.pending += 1;
    this.busy = words;
    try {
      await work();
      return true;
    } catch (error) {
      this.problem = error instanceof ApiError ? error.message : 'That did not work — try again.';
      return false;
    } finally {
      this.pending -= 1;
      if (this.pending === 0) this.busy = null;
    }
  }
}

customElements.define('tandem-version-history', TandemVersionHistory);
