import { describe, expect, it } from 'vitest';
import { applyObservation, type TrackingObservation } from '../../src/tracking/observation.ts';
import { newTrackingState, nextPoll, type TrackingState } from '../../src/tracking/schedule.ts';

/** The pure rule a simulator applies (docs/tracking.md "Free signals"); the app's path is test/shopify/fulfillment-event-signals.test.ts. */
const at = (iso: string) => new Date(iso);
const observation = (o: Partial<TrackingObservation>): TrackingObservation => ({
  source: 'shopify',
  at: at('2026-12-03T14:00:00Z'),
  status: null,
  estimatedDeliveryAt: null,
  ...o,
});
const inTransit = (o: Partial<TrackingState> = {}): TrackingState => ({
  ...newTrackingState(at('2026-12-01T15:00:00Z'), -300),
  status: 'in_transit',
  lastPolledAt: at('2026-12-03T13:00:00Z'),
  lastChangedAt: at('2026-12-02T13:00:00Z'),
  estimatedDeliveryAt: at('2026-12-05T23:59:59Z'),
  ...o,
});

describe('applyObservation', () => {
  it('out for delivery is news: the next poll comes on the dense cadence, not at the evening look', () => {
    const now = at('2026-12-03T14:35:00Z');
    // Its morning look (09:30 local) done minutes ago.
    const state = inTransit({ lastPolledAt: at('2026-12-03T14:31:00Z') });
    const before = nextPoll(state, now);
    // The carrier expects it Saturday: in transit, the next look is hours away (this evening's).
    expect(before.kind === 'poll' && before.at.getTime()).toBeGreaterThan(now.getTime() + 3_600_000);
    const next = applyObservation(state, observation({ status: 'out_for_delivery' }), now);
    expect(next).toMatchObject({ status: 'out_for_delivery', lastChangedAt: now });
    // On the dense cadence: within 15 min of its last look, not this evening.
    const after = nextPoll(next, now);
    expect(after.kind === 'poll' && after.at.getTime()).toBeLessThanOrEqual(
      state.lastPolledAt!.getTime() + 15 * 60_000,
    );
  });

  it('never moves a package backwards, nor past what the carrier said last', () => {
    const ofd = inTransit({ status: 'out_for_delivery' });
    expect(applyObservation(ofd, observation({ status: 'in_transit' }))).toBe(ofd);
    const delivered = inTransit({ status: 'delivered' });
    expect(applyObservation(delivered, observation({ status: 'out_for_delivery' }))).toBe(delivered);
    const state = inTransit();
    expect(
      applyObservation(state, observation({ status: 'out_for_delivery' }), undefined, {
        lastEventAt: at('2026-12-03T15:00:00Z'),
      }),
    ).toBe(state);
  });

  it('fills an estimate only when the carrier gave none; an earlier observed one is replaced', () => {
    const carrier = inTransit();
    expect(applyObservation(carrier, observation({ estimatedDeliveryAt: at('2026-12-09T23:59:59Z') }))).toBe(carrier);
    const none = inTransit({ estimatedDeliveryAt: null });
    const filled = applyObservation(none, observation({ estimatedDeliveryAt: at('2026-12-09T23:59:59Z') }));
    expect(filled.estimatedDeliveryAt).toEqual(at('2026-12-09T23:59:59Z'));
    expect(filled.lastChangedAt).toEqual(none.lastChangedAt);
    const moved = applyObservation(
      filled,
      observation({ estimatedDeliveryAt: at('2026-12-10T23:59:59Z') }),
      undefined,
      {
        estimateObserved: true,
      },
    );
    expect(moved.estimatedDeliveryAt).toEqual(at('2026-12-10T23:59:59Z'));
  });
});
