import { describe, expect, it } from 'vitest';
import { ConflictError, ValidationError } from '../../src/errors.ts';
import { defaultTitleIn } from '../../src/orders/default-title.ts';
import { orderUpdateSchema } from '../../src/orders/request-schemas.ts';
import type { OrderRow } from '../../src/orders/serializer.ts';
import { planUpdate } from '../../src/orders/update-plan.ts';
import { orderRow } from './order-row.ts';

const now = new Date('2026-12-05T12:00:00Z');
const base = orderRow();
const plan = (order: Partial<OrderRow>, body: unknown) =>
  planUpdate({ ...base, ...order }, orderUpdateSchema.parse(body), now);

describe('planUpdate', () => {
  it('sets a shipment and records it on the timeline', () => {
    const result = plan({}, { carrier: 'UPS', tracking_number: '1z 5r8 9390357567127' });
    expect(result.shipment).toEqual({ kind: 'set', carrier: 'ups', trackingNumber: '1Z5R89390357567127' });
    expect(result.changes).toMatchObject({ carrier: 'ups', tracking_number: '1Z5R89390357567127', updated_at: now });
    expect(result.events.map((e) => e.type)).toEqual(['shipment.set']);
  });

  it('changes a sent video’s price only while the month it was sent in runs', () => {
    expect(plan({ sent_at: new Date('2026-12-01T00:00:00Z'), price: 100 }, { price: 200 }).changes.price).toBe(200);
    expect(() => plan({ sent_at: new Date('2026-11-30T23:59:59Z'), price: 100 }, { price: 200 })).toThrow(
      'The video was sent in 2026-11, whose billing statement is closed: its price can no longer change.',
    );
    // The same price again is no change, and other fields still change.
    expect(plan({ sent_at: new Date('2026-11-30T23:59:59Z'), price: 100 }, { price: 100 }).changes).toEqual({});
    expect(() => plan({ sent_at: new Date('2026-10-01T00:00:00Z'), price: 100 }, { video_title: 'Hi' })).not.toThrow();
  });

  it('retitles an order whose title was the default when the sender’s name is corrected, and only then', () => {
    const title = (name: string) => `A video message from ${name}`;
    const retitled = planUpdate(
      { ...base, name: 'Jhon', video_title: title('Jhon') },
      orderUpdateSchema.parse({ name: 'John' }),
      now,
      'en',
    );
    expect(retitled.changes).toMatchObject({ name: 'John', video_title: 'A video message from John' });
    expect(retitled.changedDetails).toEqual(['name', 'video_title']);
    // A title someone gave stays; so does one given in the same request.
    const own = planUpdate(
      { ...base, name: 'Jhon', video_title: 'Happy birthday' },
      orderUpdateSchema.parse({ name: 'John' }),
      now,
      'en',
    );
    expect(own.changes.video_title).toBeUndefined();
    const both = planUpdate(
      { ...base, name: 'Jhon', video_title: title('Jhon') },
      orderUpdateSchema.parse({ name: 'John', video_title: 'For you' }),
      now,
      'en',
    );
    expect(both.changes.video_title).toBe('For you');
  });

  // Fields probe: the old title was compared with the default in the store's current language only.
  it('recognises a default title in any language it speaks, and retitles in the store’s language of today', () => {
    const rename = (video_title: string, name = 'Élodie') =>
      planUpdate({ ...base, name, video_title }, orderUpdateSchema.parse({ name: 'Amélie' }), now, 'es').changes
        .video_title;
    for (const made of ['A video message from Élodie', 'Un message vidéo d’Élodie', 'Un videomensaje de Élodie'])
      expect(rename(made)).toBe('Un videomensaje de Amélie');
    expect(rename('Un message vidéo de Élodie')).toBeUndefined(); // not what any default reads
    // A title made with the whole of a long name, before defaults kept to the limit, is a default too.
    const long = 'L'.repeat(200);
    expect(rename(`A video message from ${long}`, long)).toBe('Un videomensaje de Amélie');
    expect(rename(defaultTitleIn('fr', long), long)).toBe('Un videomensaje de Amélie');
  });

  it('does nothing when the same shipment is sent again', () => {
    const result = plan({ carrier: 'ups', tracking_number: 'X1' }, { carrier: 'ups', tracking_number: 'x1' });
    expect(result.shipment).toBeNull();
    expect(result.changes).toEqual({});
  });

  it('clears a shipment when both are sent as null', () => {
    const result = plan({ carrier: 'ups', tracking_number: 'X1' }, { carrier: null, tracking_number: null });
    expect(result.shipment).toEqual({ kind: 'cleared' });
    expect(result.changes).toMatchObject({ carrier: null, tracking_number: null });
  });

  it('rejects half a shipment', () => {
    expect(() => plan({}, { tracking_number: 'X1' })).toThrow(ValidationError);
    expect(() => plan({ carrier: 'ups', tracking_number: 'X1' }, { carrier: null })).toThrow(ValidationError);
  });

  it('names the missing half when a shipment is set by half, and says how to clear one that is cleared by half', () => {
    const fieldsOf = (order: Partial<OrderRow>, body: unknown) => {
      try {
        plan(order, body);
      } catch (error) {
        if (error instanceof ValidationError) return error.fields;
      }
      throw new Error('not refused');
    };
    const shipped = { carrier: 'ups', tracking_number: 'X1' } as const;
    const clearBoth = 'send carrier and tracking_number both null to clear the shipment';
    expect(fieldsOf(shipped, { tracking_number: null })).toEqual({ tracking_number: clearBoth });
    expect(fieldsOf(shipped, { carrier: null })).toEqual({ carrier: clearBoth });
    expect(fieldsOf({}, { tracking_number: 'X1' })).toEqual({
      carrier: expect.stringMatching(/^is required with tracking_number/),
    });
    expect(fieldsOf({}, { carrier: 'ups' })).toEqual({ tracking_number: 'is required with carrier' });
    expect(fieldsOf(shipped, { carrier: null, tracking_number: 'X2' })).toEqual({
      carrier: expect.stringMatching(/^is required with tracking_number/),
    });
    expect(fieldsOf(shipped, { carrier: 'fedex', tracking_number: null })).toEqual({
      tracking_number: 'is required with carrier',
    });
  });

  it('delivers: status, flag and time together', () => {
    const result = plan({}, { delivered: 1 });
    expect(result.deliveredNow).toBe(true);
    expect(result.changes).toMatchObject({ status: 'delivered', delivered: true, delivered_at: now, updated_at: now });
  });

  it('applies a shipment and delivery sent together, shipment first', () => {
    const result = plan({}, { carrier: 'usps', tracking_number: '9400100000000000000000', delivered: 1 });
    expect(result.events.map((e) => e.type)).toEqual(['shipment.set', 'order.delivered']);
  });

  it('refuses to change the shipment of a delivered order', () => {
    expect(() =>
      plan(
        { status: 'delivered', delivered: true, delivered_at: now, carrier: 'ups', tracking_number: 'A' },
        { tracking_number: 'B' },
      ),
    ).toThrow(ConflictError);
  });

  it('refuses any change to a cancelled order', () => {
    expect(() => plan({ status: 'cancelled' }, { price: 1 })).toThrow(ConflictError);
  });

  it('records which details changed, with the price change in full', () => {
    const result = plan({ price: 100 }, { price: 550, video_title: 'New' });
    expect(result.events[0]).toEqual({
      type: 'order.updated',
      data: { fields: ['video_title', 'price'], price: { from: 100, to: 550 } },
    });
  });

  it('requires send_on for date-triggered sending', () => {
    expect(() => plan({}, { send_trigger: 'date' })).toThrow(ValidationError);
    expect(plan({}, { send_trigger: 'date', send_on: '2026-12-24T09:00:00Z' }).changes.send_on).toEqual(
      new Date('2026-12-24T09:00:00Z'),
    );
  });

  // Spec: send_on is "null when sending is not scheduled". A probe left a date on a package order.
  it('keeps send_on only while sending is scheduled for a date', () => {
    const scheduled = { send_trigger: 'date' as const, send_on: new Date('2026-12-24T09:00:00Z') };
    const leaving = plan(scheduled, { send_trigger: 'package' });
    expect(leaving.changes).toMatchObject({ send_trigger: 'package', send_on: null });
    expect(leaving.changedDetails).toEqual(['send_trigger', 'send_on']);
    expect(plan(scheduled, { send_trigger: 'now', send_on: null }).changes).toMatchObject({ send_on: null });
    const refused = (order: Partial<OrderRow>, body: unknown) => {
      try {
        plan(order, body);
      } catch (error) {
        return (error as ValidationError).fields;
      }
      throw new Error('expected a ValidationError');
    };
    expect(refused({}, { send_on: '2026-12-24T09:00:00Z' }).send_on).toMatch(/only used when send_trigger is "date"/);
    expect(refused(scheduled, { send_trigger: 'package', send_on: '2026-12-25T09:00:00Z' }).send_on).toMatch(
      /only used when send_trigger is "date"/,
    );
  });
});
