/**
 * The order lifecycle (docs/design.md §1 "status values"):
 *
 *   created ──video recorded──▶ recorded ──delivered──▶ delivered
 *      └──────────────delivered──────────────────────────▲
 *   any state before the video is sent ──cancelled──▶ cancelled
 *
 * `delivered` and `cancelled` are terminal for status. A video recorded after delivery keeps the
 * order delivered (the video is then sent as soon as it is processed). Sending and viewing are
 * recorded as `sent_at` / `viewed_at`; they do not change status.
 */
import type { OrderStatus } from '../vocabulary.ts';

export type OrderTransition = 'video_recorded' | 'delivered' | 'cancelled';

export interface LifecycleSnapshot {
  status: OrderStatus;
  /** True once the video has gone out to the recipient. */
  sent: boolean;
}

export type TransitionOutcome =
  | { kind: 'moved'; next: OrderStatus }
  /** The fact is already true (first signal wins): nothing changes, nothing fails. */
  | { kind: 'unchanged' }
  | { kind: 'rejected'; reason: string };

export function transition(order: LifecycleSnapshot, event: OrderTransition): TransitionOutcome {
  const { status } = order;
  if (status === 'cancelled') {
    return event === 'cancelled' ? { kind: 'unchanged' } : { kind: 'rejected', reason: 'The order is cancelled.' };
  }
  switch (event) {
    case 'video_recorded':
      return status === 'created' ? { kind: 'moved', next: 'recorded' } : { kind: 'unchanged' };
    case 'delivered':
      return status === 'delivered' ? { kind: 'unchanged' } : { kind: 'moved', next: 'delivered' };
    case 'cancelled':
      return order.sent
        ? { kind: 'rejected', reason: 'The video has already been sent; the order can no longer be cancelled.' }
        : { kind: 'moved', next: 'cancelled' };
  }
}
