// Signals of the event delivery workflow, shared by the workflows, the activities (which hand
// freed slots to waiting deliveries) and the client. No Node built-ins: workflow code imports this.
import { defineSignal } from '@temporalio/workflow';

/**
 * What an attempt came to: `held`, `cancelled` and `waiting` mean nothing was sent (`waiting`:
 * the subscription's bound; try again after `wait`); `remote`: the local activity took the slot
 * for a receiver not known to be fast, and the attempt is to be sent as a regular activity.
 */
export type AttemptOutcome = 'succeeded' | 'failed' | 'held' | 'cancelled' | 'waiting' | 'remote';

/** To a held delivery of the event: attempt now, then answer `replyTo` with the outcome. */
export const releaseSignal = defineSignal<[{ replyTo: string; deliveryId: string }]>('release');
/** A released delivery's answer to the release workflow. */
export const releasedSignal = defineSignal<[{ deliveryId: string; outcome: AttemptOutcome }]>('released');
/** To a delivery waiting for its subscription's in-flight bound: a slot was handed to it. */
export const slotSignal = defineSignal<[{ deliveryId: string }]>('slot');
