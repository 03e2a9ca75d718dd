/**
 * Resolves with the first value `subscribe` reports that matches `accept`. The subscription is removed
 * afterwards. Lets a test await an event instead of sleeping.
 */
export function nextEvent<T>(
  subscribe: (listener: (value: T) => void) => () => void,
  accept: (value: T) => boolean = () => true,
): Promise<T> {
  return new Promise((resolve) => {
    const unsubscribe = subscribe((value) => {
      if (!accept(value)) return;
      unsubscribe();
      resolve(value);
    });
  });
}

/** Collects every value `subscribe` reports, until the returned `stop` is called. */
export function collect<T>(subscribe: (listener: (value: T) => void) => () => void) {
  const values: T[] = [];
  const stop = subscribe((value) => values.push(value));
  return { values, stop };
}
