// Named points of the delivery engine where another actor's step matters: between two statements
// that read and then write, or between a step and its record. In the service nothing is
// installed. A test or the seeded simulation (test/webhooks/simulation/) installs a scheduler that may park the caller at a point and let
// another actor (a resume, a second relay, a retried batch) go first, as FoundationDB's BUGGIFY
// does: races that real timing almost never shows become a seed that shows them every time.
// Callers `await interleave(…)`: with nothing installed that is one comparison and an await of
// undefined. No Node built-ins, so anything may import it.

/** Where the engine may be held. Each names the step that has just happened. */
export type InterleavePoint =
  /** claimDue read the subscription's condition and settings; it has written nothing yet. */
  | 'claim:read'
  /** The relay leased a batch of events and has not written their deliveries. */
  | 'relay:claimed'
  /** The relay wrote the deliveries; it has not woken their runs nor marked the events relayed. */
  | 'relay:written'
  /** sendBatch took its deliveries over (its fence is on them); nothing is sent yet. */
  | 'batch:taken'
  /** sendBatch has its answers; nothing is recorded yet. */
  | 'batch:sent'
  /** sendBatch recorded its answers; the runs waiting for room in the cap are not woken yet. */
  | 'batch:recorded'
  /** `secrets reencrypt` re-sealed and read every row; the earlier keys are not dropped yet. */
  | 'secrets:resealed';

/** What the point is about: a subscription's id, the events' ids for the relay, the current key's id for the secrets. */
export type InterleaveHook = (point: InterleavePoint, about: string) => Promise<void> | void;

let hook: InterleaveHook | null = null;

/** Installs (or with null removes) the process's scheduler of points. */
export function setInterleaveHook(next: InterleaveHook | null): void {
  hook = next;
}

/** Passes a point: undefined at once when nothing is installed, else what the scheduler returns. */
export function interleave(point: InterleavePoint, about: string): Promise<void> | void {
  return hook === null ? undefined : hook(point, about);
}
