import { fetchAnswer, request } from './api.ts';
import { VersionComparison, VersionList, VersionRecorded, type NameVersionBody } from '../shared/wire/versions.ts';

/** The API of a document's versions (HIST), as the `Version history` panel uses it. */

const docPath = (docId: string) => `/api/docs/${encodeURIComponent(docId)}`;

/** The document's versions, newest first. */
export function listVersions(token: string, docId: string): Promise<VersionList> {
  return request(VersionList, token, 'GET', `${docPath(docId)}/versions`);
}

/** Records the current text as a version named `name` (editors; 403 for others). */
export function nameVersion(token: string, docId: string, body: NameVersionBody): Promise<VersionRecorded> {
  return request(VersionRecorded, token, 'POST', `${docPath(docId)}/versions`, body);
}

/** The changes from version `from` to version `to`, or to the current text. */
export function compareVersions(token: string, docId: string, from: string, to: string | 'current'): Promise<VersionComparison> {
  const query = `from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`;
  return request(VersionComparison, token, 'GET', `${docPath(docId)}/compare?${query}`);
}

/** Makes the text what it was at `versionId` (editors); the answer names the `restore` version recorded. */
export function restoreVersion(token: string, docId: string, versionId: string): Promise<VersionRecorded> {
  return request(VersionRecorded, token, 'POST', `${docPath(docId)}/versions/${encodeURIComponent(versionId)}/restore`, {});
}

/** A version's text as Markdown (the route answers `text/markdown`, not JSON). */
export async function fetchVersionMarkdown(token: string, docId: string, versionId: string): Promise<string> {
  return (await fetchAnswer(token, `${docPath(docId)}/versions/${encodeURIComponent(versionId)}/markdown`)).text();
}
