// Writes server/pages/purify-lists.ts: DOMPurify's allowlists, read from its distribution, and
// the names DOMPurify's SANITIZE_DOM refuses as an id or name over jsdom (those of a document
// and of a form). Run again after upgrading DOMPurify or jsdom:
// `node scripts/purify-lists.mjs`; tests/unit/page-sanitizer.test.ts fails until then.
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const purifyPath = new URL('../node_modules/dompurify/dist/purify.es.mjs', import.meta.url);
const source = readFileSync(purifyPath, 'utf8');
const version = JSON.parse(readFileSync(new URL('../node_modules/dompurify/package.json', import.meta.url), 'utf8')).version;
const jsdomVersion = JSON.parse(readFileSync(new URL('../node_modules/jsdom/package.json', import.meta.url), 'utf8')).version;

/** The strings of `const NAME = freeze([...])` (top level) or `const NAME = addToSet({}, [...])` (in the factory). */
export function listOf(text, name) {
  const escaped = name.replace(/\$/g, '\\$');
  const match = new RegExp(`const ${escaped} = (?:freeze\\(\\[|(?:freeze\\()?addToSet\\(\\{\\}, \\[)([^\\]]*)\\]`).exec(text);
  if (!match) throw new Error(`DOMPurify has no list ${name}`);
  return [...match[1].matchAll(/"([^"]*)"/g)].map((each) => each[1].toLowerCase());
}

const lists = {
  htmlTags: listOf(source, 'html$1'),
  svgTags: listOf(source, 'svg$1'),
  svgFilterTags: listOf(source, 'svgFilters'),
  svgDisallowedTags: listOf(source, 'svgDisallowed'),
  mathMlTags: listOf(source, 'mathMl$1'),
  mathMlDisallowedTags: listOf(source, 'mathMlDisallowed'),
  textTags: listOf(source, 'text'),
  htmlAttributes: listOf(source, 'html'),
  svgAttributes: listOf(source, 'svg'),
  mathMlAttributes: listOf(source, 'mathMl'),
  xmlAttributes: listOf(source, 'xml'),
  forbidContents: listOf(source, 'DEFAULT_FORBID_CONTENTS'),
  dataUriTags: listOf(source, 'DEFAULT_DATA_URI_TAGS'),
  uriSafeAttributes: listOf(source, 'DEFAULT_URI_SAFE_ATTRIBUTES'),
  mathMlTextIntegrationPoints: listOf(source, 'DEFAULT_MATHML_TEXT_INTEGRATION_POINTS'),
  commonSvgAndHtmlElements: listOf(source, 'COMMON_SVG_AND_HTML_ELEMENTS'),
  voidElements: listOf(source, 'VOID_ELEMENTS'),
  literalTextElements: listOf(source, 'LITERAL_TEXT_ELEMENTS'),
  escapableTextElements: listOf(source, 'ESCAPABLE_TEXT_ELEMENTS'),
};

function propertyNames(object) {
  const names = new Set();
  for (let at = object; at; at = Object.getPrototypeOf(at)) for (const name of Object.getOwnPropertyNames(at)) names.add(name);
  return names;
}

export function clobberingNames() {
  const { JSDOM } = require('jsdom');
  const { document } = new JSDOM('<!doctype html><html><body></body></html>').window;
  return [...new Set([...propertyNames(document), ...propertyNames(document.createElement('form'))])].sort();
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const body = Object.entries(lists)
    .map(([name, values]) => `export const ${name}: readonly string[] = ${JSON.stringify(values)};`)
    .join('\n');
  const text = `/**
 * DOMPurify ${version}'s lists (its dist/purify.es.mjs), which the server's page sanitizer
 * (page-sanitizer.ts) applies as DOMPurify does; and the names DOMPurify's SANITIZE_DOM refuses as
 * an element's id or name when it runs over jsdom ${jsdomVersion} (the properties of a document and of a
 * form). Written by scripts/purify-lists.mjs; tests/unit/page-sanitizer.test.ts checks it still
 * matches the installed DOMPurify and jsdom.
 */
${body}
export const clobberingNames: readonly string[] = ${JSON.stringify(clobberingNames())};
`;
  writeFileSync(new URL('../server/pages/purify-lists.ts', import.meta.url), text);
}
