/** The value `map` holds for `key`, made by `make` and added on the first ask (a `Map` or a `WeakMap`). */
export function getOrAdd<K, V>(map: { get(key: K): V | undefined; set(key: K, value: V): unknown }, key: K, make: () => V): V {
  let value = map.get(key);
  if (value === undefined) {
    value = make();
    map.set(key, value);
  }
  return value;
}
