// An object made on its first use rather than when its module is imported: the configuration and
// what is built from it (the database, the logger) wait until something reads them, so a caller
// (a test) may hand in its own environment with loadConfig(env) after importing the service.
const forgetters = new WeakMap<object, () => unknown>();

export function onFirstUse<T extends object>(make: () => T): T {
  let made: T | undefined;
  const target = () => (made ??= make());
  const proxy = new Proxy({} as T, {
    get(_, key) {
      const real = target();
      const value = Reflect.get(real, key, real) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(real) : value;
    },
    set: (_, key, value) => Reflect.set(target(), key, value),
    has: (_, key) => Reflect.has(target(), key),
    ownKeys: () => Reflect.ownKeys(target()),
    getOwnPropertyDescriptor(_, key) {
      const descriptor = Reflect.getOwnPropertyDescriptor(target(), key);
      // The proxy's own (empty) target must not contradict it: report every property as configurable.
      return descriptor && { ...descriptor, configurable: true };
    },
    getPrototypeOf: () => Reflect.getPrototypeOf(target()),
  });
  forgetters.set(proxy, () => {
    const was = made;
    made = undefined;
    return was;
  });
  return proxy;
}

/**
 * Test support only (src/reset-for-tests.ts): the next use of `lazy` (an onFirstUse object) makes
 * it afresh. Returns what it had made, if anything, so that the caller can close it.
 */
export function forget<T extends object>(lazy: T): T | undefined {
  return forgetters.get(lazy)?.() as T | undefined;
}
