import { deviceKeys, readDevice, updateDevice } from './device-store.ts';

/** A document opened on this device, listed even when the server cannot be reached. */
export interface RecentDoc {
  id: string;
  title: string;
  openedAt: number;
}

const limit = 50;

export async function readRecentDocs(): Promise<RecentDoc[]> {
  const list = (await readDevice<RecentDoc[]>(deviceKeys.recent)) ?? [];
  return [...list].sort((a, b) => b.openedAt - a.openedAt);
}

/** Records that `id` was opened now; a title of undefined keeps the one already known. */
export function rememberDoc(id: string, title?: string): Promise<void> {
  return updateDevice<RecentDoc[]>(deviceKeys.recent, (old = []) => {
    const previous = old.find((doc) => doc.id === id);
    const entry = { id, title: title ?? previous?.title ?? '', openedAt: Date.now() };
    return [entry, ...old.filter((doc) => doc.id !== id)].slice(0, limit);
  });
}

/** Updates the title of a known document without moving it up the list. */
export function renameRecentDoc(id: string, title: string): Promise<void> {
  return updateDevice<RecentDoc[]>(deviceKeys.recent, (old = []) =>
    old.map((doc) => (doc.id === id ? { ...doc, title } : doc)),
  );
}
