/** Deletes the oldest entries of `map` (its first inserted) until it holds at most `capacity`. */
export function evictOldest<K, V>(map: Map<K, V>, capacity: number): void {
  for (const key of map.keys()) {
    if (map.size <= capacity) return;
    map.delete(key);
  }
}
