/**
 * Runs async tasks one at a time, in call order. The sandbox's state changes (memory, then the
 * database) run through one queue so a request never sees another's half-done change and two
 * overlapping submissions cannot both pass the overlap check (docs/upstream.md, Lifecycle).
 */
export class SerialQueue {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(task: () => Promise<T> | T): Promise<T> {
    const result = this.tail.then(task);
    this.tail = result.catch(() => undefined);
    return result;
  }
}
