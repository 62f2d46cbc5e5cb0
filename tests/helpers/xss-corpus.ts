/**
 * The XSS corpus of pages (shared/PROTOCOL.md PAGE2, PAGE9): scripts, event handlers,
 * `javascript:` and `data:` URLs, SVG, `srcdoc`, CSS expressions, mutation XSS. `call(name)` is
 * the script each payload runs when it gets to run (tests/e2e/page-xss.test.ts counts them in a
 * browser; tests/unit/page-sanitizer.test.ts holds the server's sanitizer to DOMPurify on them).
 */
export function xssCorpus(hit: (name: string) => string): string[] {
  return [
    `<p onclick="${hit('onclick')}" class="click">click me</p>`,
    `<script>${hit('script')}</script>`,
    `<img src="x" onerror="${hit('img-onerror')}">`,
    `<svg onload="${hit('svg-onload')}"><circle r="1"></circle></svg>`,
    `<svg><script>${hit('svg-script')}</script></svg>`,
    `<svg><animate onbegin="${hit('svg-animate')}" attributeName="x" dur="1s"></animate></svg>`,
    `<a class="click" href="javascript:${hit('js-link')}">js link</a>`,
    `<a class="click" href="data:text/html,<script>parent.${hit('data-link')}</script>">data link</a>`,
    `<iframe srcdoc="<script>parent.${hit('srcdoc')}</script>"></iframe>`,
    `<iframe src="javascript:parent.${hit('iframe-js')}"></iframe>`,
    `<object data="data:text/html,<script>parent.${hit('object')}</script>"></object>`,
    `<embed src="javascript:${hit('embed')}">`,
    `<details open ontoggle="${hit('ontoggle')}"><summary>s</summary></details>`,
    `<input autofocus onfocus="${hit('autofocus')}">`,
    `<form action="javascript:${hit('form')}"><button class="click" formaction="javascript:${hit('formaction')}">go</button></form>`,
    `<div style="width: expression(${hit('css-expression')}); background: url(javascript:${hit('css-url')})">css</div>`,
    `<style>@import 'javascript:${hit('css-import')}';</style>`,
    `<meta http-equiv="refresh" content="0;url=javascript:${hit('refresh')}">`,
    `<video><source onerror="${hit('video-source')}"></video>`,
    // Last: parsed in the wrong context, these swallow what follows them.
    `<noscript><p title="</noscript><img src=x onerror=${hit('noscript')}>"></p></noscript>`,
    `<math><mtext><table><mglyph><style><img src=x onerror="${hit('mxss')}">`,
  ];
}
