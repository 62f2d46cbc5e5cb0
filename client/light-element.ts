import { LitElement } from 'lit';

/**
 * The base of the app's elements: a Lit element that renders into itself instead of a shadow
 * root, so that the page's one stylesheet styles it and its text, labels and landmarks are part
 * of the page for tests, screen readers and ProseMirror alike.
 */
export class LightElement extends LitElement {
  protected createRenderRoot(): HTMLElement {
    return this;
  }
}
