/** A promise a test resolves by hand: gates a judge, a replay or a worker at a chosen point. */
export function deferred<T = void>() {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}
