import { createStore, get, getMany, set, setMany, update } from 'idb-keyval';

/**
 * Small per-device state in IndexedDB (idb-keyval): the token and the recently opened
 * documents (a person's name and colour come from the token, not from the device). Kept apart from y-indexeddb's `tandem:<id>` databases.
 */
const store = createStore('tandem-device', 'keyval');

export const deviceKeys = {
  token: 'token',
  recent: 'recent-docs',
} as const;

export type DeviceKey = (typeof deviceKeys)[keyof typeof deviceKeys];

export function readDevice<T>(key: DeviceKey): Promise<T | undefined> {
  return get<T>(key, store);
}

/** Several keys in one IndexedDB transaction (each transaction is a round trip before the first paint). */
export function readDevices(keys: readonly DeviceKey[]): Promise<unknown[]> {
  return getMany([...keys], store);
}

/** Several keys written in one IndexedDB transaction. */
export function writeDevices(entries: readonly [DeviceKey, unknown][]): Promise<void> {
  return setMany([...entries], store);
}

export function writeDevice(key: DeviceKey, value: unknown): Promise<void> {
  return set(key, value, store);
}

export function updateDevice<T>(key: DeviceKey, fn: (old: T | undefined) => T): Promise<void> {
  return update<T>(key, fn, store);
}
