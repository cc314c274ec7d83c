import type { TimelineEventType } from '../vocabulary.ts';

/** The timeline entries that tell what became of a tracking-number warning. */
export const NUMBER_WARNING_ENTRY_TYPES = [
  'shipment.set',
  'shipment.cleared',
  'tracking.warning',
  'tracking.status',
] as const satisfies readonly TimelineEventType[];

type Entry = { type: TimelineEventType; data: Record<string, unknown> };

/**
 * What became of the tracking-number warning at `index`: the carrier went on to report on the
 * number (`answered`: it was right after all), the package was set again (`replaced`), or neither
 * (`standing`). One rule for the admin's warnings, how its timeline words the entry, and the warning
 * a PUT that re-sends the stored shipment answers with.
 */
export function numberWarningFate(timeline: readonly Entry[], index: number): 'standing' | 'answered' | 'replaced' {
  for (const entry of timeline.slice(index + 1)) {
    if (entry.type === 'shipment.set' || entry.type === 'shipment.cleared') return 'replaced';
    if (entry.type === 'tracking.status' && entry.data.status !== 'not_found') return 'answered';
  }
  return 'standing';
}

/** The message of the last tracking-number warning, when it still stands; null otherwise. */
export function standingNumberWarning(timeline: readonly Entry[]): string | null {
  const last = timeline.findLastIndex((entry) => entry.type === 'tracking.warning');
  if (last < 0 || numberWarningFate(timeline, last) !== 'standing') return null;
  const message = timeline[last]!.data.message;
  return typeof message === 'string' ? message : null;
}
