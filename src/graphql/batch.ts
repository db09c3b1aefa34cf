// A per-request batch (the DataLoader idea, without the dependency): the resolvers of one field
// over a list (e.g. `health` of every subscription on a page) each ask for their key; the keys
// asked in the same turn of the event loop are loaded with ONE call, once per request.

/** `load` answers the keys it found (a key it leaves out resolves to undefined), for the request (its caller) that asked. */
export function batchPerRequest<R extends object, K, V>(load: (keys: K[], request: R) => Promise<Map<K, V>>) {
  const open = new WeakMap<R, { keys: K[]; result: Promise<Map<K, V>> }>();
  return (request: R, key: K): Promise<V | undefined> => {
    let batch = open.get(request);
    if (!batch) {
      const keys: K[] = [];
      // setImmediate: after the sibling resolvers of this pass (synchronous, or a few microtasks away) have asked.
      const result = new Promise<Map<K, V>>((resolve, reject) =>
        setImmediate(() => {
          open.delete(request);
          load([...new Set(keys)], request).then(resolve, reject);
        }),
      );
      batch = { keys, result };
      open.set(request, batch);
    }
    batch.keys.push(key);
    return batch.result.then((found) => found.get(key));
  };
}
