import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Insertable, Updateable } from 'kysely';
import type { CarrierCode } from '../carriers/carrier-code.ts';
import type { Db } from '../db/database.ts';
import { filterOnly } from '../db/filter-only.ts';
import type { OrderEventsTable, OrdersTable } from '../db/schema.ts';
import { ConflictError, GoneError, NotFoundError, ValidationError } from '../errors.ts';
import type { Locale } from '../i18n/locale.ts';
import { isUuid } from '../validation.ts';
import type { Channel, EventSource, OrderStatus, ThanksReply } from '../vocabulary.ts';
import { defaultTitleIn } from './default-title.ts';
import type { CarrierLook, OrderEvent } from './order-events.ts';
import type { OrderOutbox, RecordedEvents } from './outbox.ts';
import { sendMethodReaching } from './recipient.ts';
import type { OrderCreate, OrderUpdate, RecipientInput } from './request-schemas.ts';
import type { OrderRow, Warning } from './serializer.ts';
import { transition } from './state-machine.ts';
import {
  recordTimeline,
  timelineEntryJson,
  timelineRows,
  timelineJsonColumn,
  type TimelineEntry,
  type TimelineEntryJson,
} from './timeline.ts';
import { NUMBER_WARNING_ENTRY_TYPES, standingNumberWarning } from './number-warning.ts';
import { consistencyProblems, planUpdate } from './update-plan.ts';

/**
 * Checks a tracking number; a problem is a warning, never a rejection (spec §4 rule 2). When the
 * check asked the carrier and it answered, `look` is that answer: the shipment's event hands it to
 * tracking as the package's first poll result, so a new number costs one carrier call, not two.
 */
export interface TrackingNumberVerifier {
  verify(carrier: CarrierCode, trackingNumber: string): Promise<Verification>;
}

export interface Verification {
  warning: Warning | null;
  look: CarrierLook | null;
}

/**
 * Whether the recipient's video is being handed to a provider right now (asked of notifications,
 * which owns `sends`, under the order's row lock): such an order can no longer be stopped.
 */
export type SendInProgressCheck = (trx: Db, orderId: string) => Promise<boolean>;

/**
 * A processed video's decision, taken under the order's row lock — the lock the dispatcher's move
 * of the recipient's video to `sending` waits for, so a send and this decision cannot interleave.
 * The videos module writes its own row with it and answers whether the order records the video
 * (false: the order is not changed). `videoGoneOut`: the recipient's video was sent, is being
 * handed to a provider right now, or may have been (uncertain after a crash); a video processed from
 * then on can no longer become it.
 */
export type RecordingDecision = (
  trx: Db,
  order: OrderRow,
  context: { videoGoneOut: boolean; now: Date },
) => Promise<boolean>;

export interface OrderServiceDeps {
  db: Db;
  verifier: TrackingNumberVerifier;
  /** Where every change's domain events go, in the change's own transaction. */
  outbox: OrderOutbox;
  sendInProgress: SendInProgressCheck;
  /**
   * Whether the recipient's video has left, or may have (sending, uncertain, or sent before the order
   * recorded it): asked of notifications under the order's row lock before a newly processed video
   * replaces the order's.
   */
  recipientVideoLeft: SendInProgressCheck;
  /**
   * The account's language (accounts module), for the default video title of an order created
   * without one (read then, not from a cached account: a language just changed counts); `en` when absent.
   */
  accountLocale?: (accountId: string) => Promise<Locale>;
  now?: () => Date;
}

/** What a change writes besides the order row: timeline entries for people, events for modules. */
interface ChangeRecord {
  timeline: readonly TimelineEntry[];
  events: readonly OrderEvent[];
}

export interface OrderListQuery {
  limit: number;
  cursor?: string | undefined;
  status?: OrderStatus | undefined;
  delivered?: boolean | undefined;
}

export interface OrderPage {
  orders: OrderRow[];
  hasMore: boolean;
  nextCursor: string | null;
}

export interface UpdateResult {
  order: OrderRow;
  warning: Warning | null;
}

export interface CreateResult extends UpdateResult {
  /** True when an Idempotency-Key matched an earlier create and that order is returned. */
  replayed: boolean;
}

class IdempotencyRace extends Error {}

/** A shipment the carrier was asked about before an update sets it, and its answer. */
interface CheckedShipment {
  carrier: CarrierCode;
  trackingNumber: string;
  verification: Verification;
}

/**
 * How often an update asks the carrier about a shipment before giving up (409) because the order's
 * shipment keeps changing under it: each ask is one carrier call from the shared budget.
 */
const SHIPMENT_CHECK_ATTEMPTS = 3;

/**
 * The new shipment the update sets, planned on the order as read (null when it sets none); throws the
 * update's 409 or 422 as the locked plan would, so a refused update asks no carrier.
 */
function plannedShipment(
  order: OrderRow,
  update: OrderUpdate,
  now: Date,
  titleLanguage: Locale | undefined,
): { carrier: CarrierCode; trackingNumber: string } | null {
  const { shipment } = planUpdate(order, update, now, titleLanguage);
  return shipment?.kind === 'set' ? shipment : null;
}

function isShipment(
  checked: CheckedShipment | null,
  shipment: { carrier: CarrierCode; trackingNumber: string },
): checked is CheckedShipment {
  return checked !== null && checked.carrier === shipment.carrier && checked.trackingNumber === shipment.trackingNumber;
}

function withLook(verification: Verification | null): { first_look?: CarrierLook } {
  return verification?.look ? { first_look: verification.look } : {};
}

/** What erased personal fields read afterwards (the columns are NOT NULL). */
const ERASED = '[erased]';

/**
 * The one place every order state change happens (docs/design.md §2): the API routes, the Shopify
 * mapper, the tracking and sending jobs all call these functions; none of them writes order rows.
 * Each change writes the order, its timeline and its domain events (the outbox) in one transaction;
 * other modules react to the events, never to the call.
 */
export class OrderService {
  private readonly db: Db;
  private readonly now: () => Date;

  constructor(private readonly deps: OrderServiceDeps) {
    this.db = deps.db;
    this.now = deps.now ?? (() => new Date());
  }

  /**
   * An order without a title is titled in its store's language: the recipient reads it on the watch
   * page and in the e-mail, which are in that language (gift pages probe: a French store's recipient
   * read "A video message from Élodie").
   */
  private async defaultVideoTitle(accountId: string, senderName: string): Promise<string> {
    return defaultTitleIn((await this.deps.accountLocale?.(accountId)) ?? 'en', senderName);
  }

  async create(
    accountId: string,
    input: OrderCreate,
    options: {
      idempotencyKey?: string | undefined;
      source?: EventSource;
      /** Create it without a recipient, waiting for one (why, for the timeline). Shopify only. */
      awaitingRecipient?: { reason: string };
      /**
       * The caller has seen no trace of an earlier create with this key (Shopify: no link for the
       * line item), so the key is not looked up first: one statement fewer per new order. A key that
       * exists after all makes the insert conflict, and the earlier create is answered, as in a race.
       * Not for creates that ask a carrier first (that call would be repeated on a replay).
       */
      keyIsNew?: boolean;
      /**
       * The calling module's own rows that belong with the new order (the Shopify link), written in
       * the create's transaction, after the order: they commit together or not at all. Not run when
       * an earlier create is answered instead.
       */
      alongside?: (trx: Db, order: OrderRow) => Promise<void>;
    } = {},
  ): Promise<CreateResult> {
    const source = options.source ?? 'api';
    const requestHash = createHash('sha256').update(JSON.stringify(input)).digest('hex');
    const asksCarrier = input.carrier != null && input.tracking_number != null;
    if (options.idempotencyKey && !(options.keyIsNew && !asksCarrier)) {
      const replay = await this.findIdempotentCreate(accountId, options.idempotencyKey, requestHash);
      if (replay) return replay;
    }

    const carrier = input.carrier ?? null;
    const trackingNumber = input.tracking_number ?? null;
    if ((carrier === null) !== (trackingNumber === null)) {
      throw new ValidationError(
        'carrier and tracking_number must be set together.',
        carrier === null
          ? { carrier: 'is required with tracking_number (one of ups, fedex, usps)' }
          : { tracking_number: 'is required with carrier' },
      );
    }
    const now = this.now();
    const row: Insertable<OrdersTable> = {
      id: `ord_${randomBytes(12).toString('hex')}`,
      account_id: accountId,
      uuid: randomUUID(),
      status: 'created',
      name: input.name,
      email: input.email,
      recipient_name: input.recipient_name,
      recipient_email: input.recipient_email ?? null,
      recipient_phone: input.recipient_phone ?? null,
      sender_phone: input.sender_phone ?? null,
      send_method: input.send_method ?? (input.recipient_email ? 'email' : 'sms'),
      send_trigger: input.send_trigger ?? 'package',
      send_on: input.send_on ?? null,
      carrier,
      tracking_number: trackingNumber,
      delivered: false,
      video_title: input.video_title ?? (await this.defaultVideoTitle(accountId, input.name)),
      price: input.price ?? null,
      created_at: now,
      updated_at: now,
    };
    const problems = consistencyProblems(row as OrderRow, { recipientRequired: !options.awaitingRecipient });
    if (Object.keys(problems).length > 0)
      throw new ValidationError('The order could not be sent as described.', problems);

    const verification = carrier && trackingNumber ? await this.deps.verifier.verify(carrier, trackingNumber) : null;
    const warning = verification?.warning ?? null;
    const timeline: TimelineEntry[] = [{ type: 'order.created', data: {} }];
    if (options.awaitingRecipient && row.recipient_email === null && row.recipient_phone === null)
      timeline.push({ type: 'order.needs_recipient', data: { reason: options.awaitingRecipient.reason } });
    const events: OrderEvent[] = [{ type: 'order.created' }];
    if (carrier && trackingNumber) {
      timeline.push({ type: 'shipment.set', data: { carrier, tracking_number: trackingNumber } });
      events.push({ type: 'order.shipment_set', carrier, tracking_number: trackingNumber, ...withLook(verification) });
    }
    if (warning) timeline.push({ type: 'tracking.warning', data: { message: warning.message } });

    try {
      const order = await this.change(async (trx, write) => {
        const order = await trx.insertInto('orders').values(row).returningAll().executeTakeFirstOrThrow();
        if (options.idempotencyKey) {
          const claimed = await trx
            .insertInto('idempotency_keys')
            .values({
              account_id: accountId,
              key: options.idempotencyKey,
              request_hash: requestHash,
              order_id: order.id,
              warning: warning?.message ?? null,
            })
            .onConflict((oc) => oc.doNothing())
            .returning('key')
            .executeTakeFirst();
          // Another request with this key committed first: undo ours and answer with theirs.
          if (!claimed) throw new IdempotencyRace();
        }
        await write(order, source, { timeline, events }, now);
        await options.alongside?.(trx, order);
        return order;
      });
      return { order, warning, replayed: false };
    } catch (error) {
      if (error instanceof IdempotencyRace && options.idempotencyKey) {
        const replay = await this.findIdempotentCreate(accountId, options.idempotencyKey, requestHash);
        if (replay) return replay;
      }
      throw error;
    }
  }

  private async findIdempotentCreate(
    accountId: string,
    key: string,
    requestHash: string,
  ): Promise<CreateResult | null> {
    const existing = await idempotencyKeyQuery(this.db, accountId, key).executeTakeFirst();
    if (!existing) return null;
    if (existing.request_hash !== requestHash) {
      throw new ConflictError(
        'This Idempotency-Key was already used with a different request body. Use a new key for a new order.',
      );
    }
    const order = await this.db
      .selectFrom('orders')
      .selectAll()
      .where('id', '=', existing.order_id)
      .executeTakeFirstOrThrow();
    // The key stays bound to the order it made: after a DELETE the replay says so, consistently,
    // instead of a 201 with an id that then answers 404 (or a second order made by a retry).
    if (order.deleted_at !== null)
      throw new GoneError(
        `The order this Idempotency-Key created (${order.id}) has been deleted. Use a new key to create a new order.`,
      );
    return { order, warning: existing.warning ? { type: 'request', message: existing.warning } : null, replayed: true };
  }

  async get(accountId: string, orderId: string): Promise<OrderRow> {
    const order = await orderQuery(this.db, accountId, orderId).executeTakeFirst();
    if (!order) throw notFound(orderId);
    return order;
  }

  async list(accountId: string, query: OrderListQuery): Promise<OrderPage> {
    const rows = await orderPageQuery(this.db, accountId, query).execute();
    const hasMore = rows.length > query.limit;
    const orders = rows.slice(0, query.limit);
    const last = orders.at(-1);
    return { orders, hasMore, nextCursor: hasMore && last ? encodeCursor(last.seq) : null };
  }

  async events(accountId: string, orderId: string): Promise<TimelineEntryJson[]> {
    return (await this.getWithTimeline(accountId, orderId)).timeline;
  }

  /** The order and its timeline, oldest first, in one round trip (the events route, the admin's order page). */
  async getWithTimeline(
    accountId: string,
    orderId: string,
  ): Promise<{ order: OrderRow; timeline: TimelineEntryJson[] }> {
    const row = await orderWithTimelineQuery(this.db, accountId, orderId).executeTakeFirst();
    if (!row) throw notFound(orderId);
    const { timeline, ...order } = row;
    return { order, timeline: timeline.map(timelineEntryJson) };
  }

  /** PUT /v1/orders/{id} and the Shopify mapper: spec §4. */
  async update(
    accountId: string,
    orderId: string,
    update: OrderUpdate,
    source: EventSource = 'api',
  ): Promise<UpdateResult> {
    // A new sender name may retitle an order whose title was the default (planUpdate): its language.
    const titleLanguage =
      update.name !== undefined && update.video_title === undefined
        ? ((await this.deps.accountLocale?.(accountId)) ?? 'en')
        : undefined;
    const namesShipment = update.carrier !== undefined || update.tracking_number !== undefined;

    // The carrier is asked only about a shipment the update really sets, and never under the row
    // lock (a slow carrier would hold the order): plan on the order as read, ask, then lock and plan
    // again. A re-sent stored pair, a 409 or a 422 asks nobody: every carrier call spends a budget
    // every account shares (USPS: 60 an hour; shipment probe: re-sent pairs used it up).
    let checked = namesShipment
      ? await this.checkShipment(plannedShipment(await this.get(accountId, orderId), update, this.now(), titleLanguage))
      : null;
    for (let attempt = 1; ; attempt++) {
      const outcome = await this.change(async (trx, write) => {
        const order = await lockOrder(trx, orderId, accountId);
        const now = this.now();
        const plan = planUpdate(order, update, now, titleLanguage);
        // The order changed since it was read, so that the update now sets a pair nobody asked about:
        // ask about it first (nothing written, the lock let go).
        if (plan.shipment?.kind === 'set' && !isShipment(checked, plan.shipment))
          return { kind: 'unchecked', shipment: plan.shipment } as const;
        if (Object.keys(plan.changes).length === 0) return { kind: 'unchanged' } as const;
        const verification = plan.shipment?.kind === 'set' ? checked!.verification : null;
        const timeline: TimelineEntry[] = verification?.warning
          ? [...plan.events, { type: 'tracking.warning', data: { message: verification.warning.message } }]
          : plan.events;
        const events: OrderEvent[] = [];
        if (plan.changedDetails.length > 0) events.push({ type: 'order.updated', fields: plan.changedDetails });
        if (plan.shipment?.kind === 'set')
          events.push({
            type: 'order.shipment_set',
            carrier: plan.shipment.carrier,
            tracking_number: plan.shipment.trackingNumber,
            ...withLook(verification),
          });
        if (plan.shipment?.kind === 'cleared') events.push({ type: 'order.shipment_cleared' });
        if (plan.deliveredNow) events.push({ type: 'order.delivered', delivered_at: now.toISOString() });
        // The order and its timeline in one statement: a round trip fewer for every PUT (issue 11).
        const changed = await updateWithTimelineQuery(
          trx,
          order.id,
          plan.changes,
          timelineRows(order, source, timeline, now),
        ).executeTakeFirstOrThrow();
        await write(changed, source, { timeline: [], events }, now);
        return { kind: 'changed', order: changed, verification } as const;
      });
      if (outcome.kind === 'unchecked') {
        if (attempt >= SHIPMENT_CHECK_ATTEMPTS)
          throw new ConflictError(
            "The order's shipment kept changing while its tracking number was being checked. Send the update again.",
          );
        checked = await this.checkShipment(outcome.shipment);
        continue;
      }
      if (outcome.kind === 'changed' && outcome.verification)
        return { order: outcome.order, warning: outcome.verification.warning };
      const order = outcome.kind === 'changed' ? outcome.order : await this.get(accountId, orderId);
      // The stored shipment re-sent: its answer is the warning that still stands for it, not a new ask.
      const warning = namesShipment && order.carrier !== null ? await this.standingShipmentWarning(order.id) : null;
      return { order, warning };
    }
  }

  /** Asks the carrier about the shipment an update sets; null when it sets none. */
  private async checkShipment(
    shipment: { carrier: CarrierCode; trackingNumber: string } | null,
  ): Promise<CheckedShipment | null> {
    if (shipment === null) return null;
    return { ...shipment, verification: await this.deps.verifier.verify(shipment.carrier, shipment.trackingNumber) };
  }

  /** The tracking-number warning still standing for the order's stored shipment (its timeline's). */
  private async standingShipmentWarning(orderId: string): Promise<Warning | null> {
    const entries = await this.db
      .selectFrom('order_events')
      .select(['type', 'data'])
      .where('order_id', '=', orderId)
      .where('type', 'in', NUMBER_WARNING_ENTRY_TYPES)
      .orderBy('id')
      .execute();
    const message = standingNumberWarning(entries);
    return message === null ? null : { type: 'request', message };
  }

  /**
   * A delivery signal from anywhere — carrier, Shopify, the client. The first one delivers; the
   * rest are recorded as no-ops (docs/design.md §3 rule 4). `at` is when the package was delivered.
   */
  async markDelivered(
    orderId: string,
    signal: {
      at: Date;
      source: EventSource;
      detail?: Record<string, unknown>;
      /**
       * The package the signal is about (a carrier's answer). A signal about a package the order
       * no longer ships with — the number was corrected or cleared meanwhile — is ignored.
       */
      shipment?: { carrier: CarrierCode; trackingNumber: string };
    },
  ): Promise<{ order: OrderRow; changed: boolean }> {
    return this.applyTransition(orderId, 'delivered', signal.source, (order, now) => {
      // A delivery time after now (a carrier's skewed clock, a local time read at the wrong offset) is
      // now: delivered_at, and the billing month it falls in, must not be in the future.
      const at = signal.at.getTime() > now.getTime() ? now : signal.at;
      const otherPackage =
        signal.shipment !== undefined &&
        (order.carrier !== signal.shipment.carrier || order.tracking_number !== signal.shipment.trackingNumber);
      const reason = otherPackage
        ? 'the order now ships with another tracking number'
        : order.status === 'cancelled'
          ? 'order cancelled'
          : 'already delivered';
      return {
        changes: { status: 'delivered', delivered: true, delivered_at: at },
        timeline: [{ type: 'order.delivered', data: { delivered_at: at.toISOString(), ...signal.detail } }],
        events: [{ type: 'order.delivered', delivered_at: at.toISOString() }],
        ignoredEntry: { type: 'delivery.signal_ignored', data: { reason, ...signal.detail } },
        notApplicable: otherPackage,
      };
    });
  }

  /**
   * The video is processed: the order is recorded (or stays delivered, and can now send). With
   * `decide`, the videos module first settles its own row under the order's row lock and says
   * whether the order records this video (see RecordingDecision).
   */
  async markRecorded(
    orderId: string,
    video: { durationTenths: number; source?: EventSource; decide?: RecordingDecision },
  ): Promise<OrderRow> {
    const source = video.source ?? 'system';
    const { decide } = video;
    const admit = decide
      ? async (trx: Db, current: OrderRow, now: Date) =>
          decide(trx, current, {
            videoGoneOut: current.sent_at !== null || (await this.deps.recipientVideoLeft(trx, current.id)),
            now,
          })
      : undefined;
    const { order } = await this.applyTransition(
      orderId,
      'video_recorded',
      source,
      (current, now) => ({
        changes: {
          ...(current.status === 'created' ? { status: 'recorded' } : {}),
          video_processed: true,
          video_duration_tenths: video.durationTenths,
          recorded_at: now,
        },
        timeline: [{ type: 'order.recorded', data: { video_duration: video.durationTenths / 10 } }],
        events: [{ type: 'order.recorded' }],
        alwaysApply: true,
      }),
      admit,
    );
    return order;
  }

  /**
   * The recipient started playing the video. Only the first play after the video was sent counts
   * (`viewed_at` is set once); earlier and later plays are no-ops. The caller decides what a play is
   * (not a page prefetch).
   */
  async markViewed(orderId: string): Promise<{ order: OrderRow; firstView: boolean }> {
    return this.change(async (trx, write) => {
      const order = await lockOrder(trx, orderId);
      // Plays before the video went out are the sender or merchant checking it, not the recipient.
      if (order.viewed_at !== null || order.sent_at === null) return { order, firstView: false };
      const now = this.now();
      const updated = await trx
        .updateTable('orders')
        .set({ viewed_at: now, updated_at: now })
        .where('id', '=', order.id)
        .returningAll()
        .executeTakeFirstOrThrow();
      await write(
        updated,
        'system',
        { timeline: [{ type: 'video.viewed', data: {} }], events: [{ type: 'order.viewed' }] },
        now,
      );
      return { order: updated, firstView: true };
    });
  }

  /**
   * A provider accepted the recipient's video message. `sent_at` is set by the first accepted
   * channel (for email_and_sms, whichever goes first); status stays `delivered` (spec §3).
   */
  async markSent(
    orderId: string,
    sent: { sendId: string; channel: Channel; providerMessageId: string; at: Date },
  ): Promise<OrderRow> {
    return this.change(async (trx, write) => {
      const order = await lockOrder(trx, orderId, undefined, { includeDeleted: true });
      const updated =
        order.sent_at === null
          ? await trx
              .updateTable('orders')
              .set({ sent_at: sent.at, updated_at: sent.at })
              .where('id', '=', order.id)
              .returningAll()
              .executeTakeFirstOrThrow()
          : order;
      // Notifications marks its send row sent from this event: the row cannot say "sent" while the
      // order does not, nor the other way round for longer than the outbox takes.
      const event: OrderEvent = {
        type: 'order.sent',
        send_id: sent.sendId,
        channel: sent.channel,
        provider_message_id: sent.providerMessageId,
        sent_at: sent.at.toISOString(),
      };
      await write(
        updated,
        'system',
        { timeline: [{ type: 'video.sent', data: { channel: sent.channel } }], events: [event] },
        this.now(),
      );
      return updated;
    });
  }

  /**
   * The recipient gave (or replaced) a thank-you reply. The thanks module's `save` writes its own row
   * under the order's row lock and says what it saved (null: nothing new, e.g. a processed reply video
   * recorded again); the timeline says so and `order.thanked` lets notifications e-mail the sender.
   */
  async recordThanks(
    orderId: string,
    save: (trx: Db, order: OrderRow, now: Date) => Promise<{ reply: ThanksReply; replaced: boolean } | null>,
  ): Promise<OrderRow> {
    return this.change(async (trx, write) => {
      const order = await lockOrder(trx, orderId);
      const now = this.now();
      const saved = await save(trx, order, now);
      if (saved)
        await write(
          order,
          'recipient',
          {
            timeline: [{ type: 'thanks.recorded', data: { reply: saved.reply, replaced: saved.replaced } }],
            events: [{ type: 'order.thanked', reply: saved.reply }],
          },
          now,
        );
      return order;
    });
  }

  /**
   * Runs `work` in a transaction that holds the order's row lock, for a module that must decide on
   * the order as it is and write its own rows with that decision (a video upload). The order row
   * itself is still written only here.
   */
  async whileLocked<T>(orderId: string, work: (trx: Db, order: OrderRow) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(async (trx) => work(trx, await lockOrder(trx, orderId)));
  }

  /** The order behind a record/playback URL's uuid, or NotFoundError. Deleted orders are gone. */
  async getByUuid(uuid: string): Promise<OrderRow> {
    if (!isUuid(uuid)) throw new NotFoundError('No such video message.');
    const order = await this.db
      .selectFrom('orders')
      .selectAll()
      .where('uuid', '=', uuid.toLowerCase())
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    if (!order) throw new NotFoundError('No such video message.');
    return order;
  }

  /**
   * The sender, on the record page, says who an order that came without a recipient is for. Only
   * such an order: the record link is not a way to redirect a video the store already addresses.
   * The method follows what was given. A validated recipient goes through `update` like any change.
   */
  async supplyRecipient(uuid: string, recipient: RecipientInput): Promise<OrderRow> {
    const order = await this.getByUuid(uuid);
    if (order.recipient_email !== null || order.recipient_phone !== null)
      throw new ConflictError('This video message already has a recipient; the store can change it.');
    if (order.status === 'cancelled') throw new ConflictError('The order was cancelled.');
    const sendMethod = sendMethodReaching({
      email: Boolean(recipient.recipient_email),
      phone: Boolean(recipient.recipient_phone),
    });
    const { order: updated } = await this.update(
      order.account_id,
      order.id,
      { ...recipient, ...(sendMethod ? { send_method: sendMethod } : {}) },
      'sender',
    );
    return updated;
  }

  /** Cancels tracking and any pending send; the order stays readable as `cancelled`. */
  async cancel(orderId: string, source: EventSource, reason: string): Promise<OrderRow> {
    const { order } = await this.applyTransition(orderId, 'cancelled', source, (_current, now) => ({
      changes: { status: 'cancelled', cancelled_at: now },
      timeline: [{ type: 'order.cancelled', data: { reason } }],
      events: [{ type: 'order.cancelled' }],
    }));
    return order;
  }

  /**
   * Privacy erasure (Shopify customers/redact, shop/redact): the people's names, addresses and the
   * title are blanked, an unsent order is cancelled, and the order is gone from the API. Dates,
   * price and status stay — billing and the merchant's records need them, and they identify no one.
   */
  async erasePersonalData(orderId: string, source: EventSource, reason: string): Promise<void> {
    await this.change(async (trx, write) => {
      const order = await lockOrder(trx, orderId, undefined, { includeDeleted: true });
      await this.refuseWhileSending(trx, order.id);
      const now = this.now();
      const cancel = transition({ status: order.status, sent: order.sent_at !== null }, 'cancelled');
      const updated = await trx
        .updateTable('orders')
        .set({
          name: ERASED,
          email: 'erased@invalid.invalid',
          recipient_name: ERASED,
          recipient_email: null,
          recipient_phone: null,
          sender_phone: null,
          video_title: ERASED,
          ...(cancel.kind === 'moved' ? { status: 'cancelled', cancelled_at: now } : {}),
          deleted_at: order.deleted_at ?? now,
          updated_at: now,
        })
        .where('id', '=', order.id)
        .returningAll()
        .executeTakeFirstOrThrow();
      await write(
        updated,
        source,
        { timeline: [{ type: 'order.erased', data: { reason } }], events: [{ type: 'order.erased' }] },
        now,
      );
    });
  }

  /** DELETE: gone from the API, kept (soft-deleted) for billing and audit; never sends. */
  async delete(accountId: string, orderId: string): Promise<void> {
    await this.change(async (trx, write) => {
      const order = await lockOrder(trx, orderId, accountId);
      await this.refuseWhileSending(trx, order.id);
      const now = this.now();
      const updated = await trx
        .updateTable('orders')
        .set({ deleted_at: now, updated_at: now })
        .where('id', '=', order.id)
        .returningAll()
        .executeTakeFirstOrThrow();
      await write(
        updated,
        'api',
        { timeline: [{ type: 'order.deleted', data: {} }], events: [{ type: 'order.deleted' }] },
        now,
      );
    });
  }

  private async applyTransition(
    orderId: string,
    transitionName: 'delivered' | 'video_recorded' | 'cancelled',
    source: EventSource,
    describe: (
      order: OrderRow,
      now: Date,
    ) => {
      changes: Partial<Insertable<OrdersTable>>;
      timeline: TimelineEntry[];
      events: OrderEvent[];
      /** Recorded instead when the transition does not apply (a late or duplicate signal). */
      ignoredEntry?: TimelineEntry;
      /** Apply the changes even when the status does not move (e.g. a video arriving after delivery). */
      alwaysApply?: boolean;
      /** The signal does not concern the order as it is now: record `ignoredEntry`, change nothing. */
      notApplicable?: boolean;
    },
    /** Asked first, under the row lock: false changes nothing (markRecorded's `decide`). */
    admit?: (trx: Db, order: OrderRow, now: Date) => Promise<boolean>,
  ): Promise<{ order: OrderRow; changed: boolean }> {
    return this.change(async (trx, write) => {
      const order = await lockOrder(trx, orderId);
      const now = this.now();
      if (admit && !(await admit(trx, order, now))) return { order, changed: false };
      const outcome = transition({ status: order.status, sent: order.sent_at !== null }, transitionName);
      const plan = describe(order, now);
      const applies =
        plan.notApplicable !== true &&
        (outcome.kind === 'moved' || (plan.alwaysApply === true && order.status !== 'cancelled'));
      if (!applies) {
        if (outcome.kind === 'rejected' && !plan.ignoredEntry) throw new ConflictError(outcome.reason);
        if (plan.ignoredEntry) await recordTimeline(trx, order, source, [plan.ignoredEntry], now);
        return { order, changed: false };
      }
      if (transitionName === 'cancelled') await this.refuseWhileSending(trx, order.id);
      const updated = await trx
        .updateTable('orders')
        .set({ ...plan.changes, updated_at: now })
        .where('id', '=', order.id)
        .returningAll()
        .executeTakeFirstOrThrow();
      await write(updated, source, { timeline: plan.timeline, events: plan.events }, now);
      return { order: updated, changed: true };
    });
  }

  /**
   * A message being handed to the provider right now cannot be recalled, so stopping the order is
   * refused rather than claiming a cancel that is not true. Under the order's row lock, the
   * dispatcher cannot start a hand-over meanwhile (it takes the same lock first).
   */
  private async refuseWhileSending(trx: Db, orderId: string): Promise<void> {
    if (await this.deps.sendInProgress(trx, orderId))
      throw new ConflictError('The video is being sent to the recipient right now and can no longer be stopped.');
  }

  /**
   * One order change: `work` runs in a transaction and `write`s the timeline entries and domain
   * events of the change with it; after the commit, the events go to their subscribers.
   */
  private async change<T>(
    work: (
      trx: Db,
      write: (order: OrderRow, source: EventSource, record: ChangeRecord, at: Date) => Promise<void>,
    ) => Promise<T>,
  ): Promise<T> {
    const recorded: RecordedEvents = { seqs: [], afterCommit: [] };
    const result = await this.db.transaction().execute(async (trx) =>
      work(trx, async (order, source, record, at) => {
        await recordTimeline(trx, order, source, record.timeline, at);
        const written = await this.deps.outbox.record(trx, order, source, record.events, at);
        recorded.seqs.push(...written.seqs);
        recorded.afterCommit.push(...written.afterCommit);
      }),
    );
    await this.deps.outbox.deliver(recorded);
    return result;
  }
}

/** Locks the order row for the rest of the transaction: concurrent changes to one order queue up. */
async function lockOrder(
  trx: Db,
  orderId: string,
  accountId?: string,
  options: { includeDeleted?: boolean } = {},
): Promise<OrderRow> {
  const order = await lockOrderQuery(trx, orderId, accountId, options).executeTakeFirst();
  if (!order) throw notFound(orderId);
  return order;
}

/*
 * The hot queries' builders, exported so that test/db/hot-query-plans.test.ts explains the very
 * text the service runs (an index that stops serving one fails that test, not production).
 */

/** GET /v1/orders/{id}: one account's live order. */
export function orderQuery(db: Db, accountId: string, orderId: string) {
  return db
    .selectFrom('orders')
    .selectAll()
    .where('id', '=', orderId)
    .where(filterOnly('account_id'), '=', accountId)
    .where('deleted_at', 'is', null);
}

/** `orderQuery` with the order's timeline as a JSON column. */
export function orderWithTimelineQuery(db: Db, accountId: string, orderId: string) {
  return orderQuery(db, accountId, orderId).select(timelineJsonColumn().as('timeline'));
}

/**
 * One page of an account's live orders, newest first by insertion sequence, one row more than asked
 * (to know whether more follow). GET /v1/orders and the embedded admin's list add their filters.
 */
export function newestOrdersPageQuery(db: Db, accountId: string, page: { limit: number; cursor?: string }) {
  let select = db
    .selectFrom('orders')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('deleted_at', 'is', null)
    .orderBy('seq', 'desc')
    .limit(page.limit + 1);
  if (page.cursor !== undefined) select = select.where('seq', '<', decodeCursor(page.cursor));
  return select;
}

/** GET /v1/orders: one page, with the API's filters. */
export function orderPageQuery(db: Db, accountId: string, query: OrderListQuery) {
  let select = newestOrdersPageQuery(db, accountId, query);
  if (query.status !== undefined) select = select.where('status', '=', query.status);
  if (query.delivered !== undefined) select = select.where('delivered', '=', query.delivered);
  return select;
}

/** Every change starts here: the order's row lock. */
export function lockOrderQuery(
  trx: Db,
  orderId: string,
  accountId?: string,
  options: { includeDeleted?: boolean } = {},
) {
  let query = trx.selectFrom('orders').selectAll().where('id', '=', orderId);
  if (!options.includeDeleted) query = query.where('deleted_at', 'is', null);
  if (accountId !== undefined) query = query.where(filterOnly('account_id'), '=', accountId);
  return query.forUpdate();
}

/**
 * An order change and its timeline rows as one statement (the rows' insert is a data-modifying
 * CTE beside the update): PUT /v1/orders/{id} costs the lock and this, not the lock, the update and
 * an insert. Both see the order as locked; the answer is the updated row.
 */
export function updateWithTimelineQuery(
  trx: Db,
  orderId: string,
  changes: Updateable<OrdersTable>,
  timeline: Insertable<OrderEventsTable>[],
) {
  const changed = trx.with('changed', (db) =>
    db.updateTable('orders').set(changes).where('id', '=', orderId).returningAll(),
  );
  // VALUES needs at least one row: a change without a timeline entry is the update alone.
  if (timeline.length === 0) return changed.selectFrom('changed').selectAll();
  return changed
    .with('timeline', (db) => db.insertInto('order_events').values(timeline).returning('id'))
    .selectFrom('changed')
    .selectAll();
}

/** A create with an Idempotency-Key looks for the earlier create first. */
export function idempotencyKeyQuery(db: Db, accountId: string, key: string) {
  return db.selectFrom('idempotency_keys').selectAll().where('account_id', '=', accountId).where('key', '=', key);
}

function notFound(orderId: string): NotFoundError {
  return new NotFoundError(`No order with id "${orderId}".`);
}

export function encodeCursor(seq: number): string {
  return Buffer.from(`s:${seq}`).toString('base64url');
}

export function decodeCursor(cursor: string): number {
  const match = /^s:(\d{1,15})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match?.[1])
    throw new ValidationError('The cursor is not valid.', {
      cursor: 'must be a next_cursor value from a previous page',
    });
  return Number(match[1]);
}
