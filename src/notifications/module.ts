import path from 'node:path';
import type { Config } from '../config.ts';
import type { Db } from '../db/database.ts';
import type { Logger } from '../logger.ts';
import type { OrderEventSubscriber } from '../orders/order-events.ts';
import type { OrderService } from '../orders/service.ts';
import { SendDispatcher, type SendObserver } from './dispatcher.ts';
import { createEmailChannel, type EmailChannel } from './email.ts';
import { EmailEvents } from './email-events/email-events.ts';
import type { MessageTemplates } from './messages/message-templates.ts';
import { NotWatchedNotes } from './not-watched.ts';
import { notificationsSubscriber } from './order-subscriber.ts';
import { createSmsChannel } from './sms.ts';

/**
 * The notifications module, made by the composition root (src/app.ts): every message we send (the
 * dispatcher over e-mail and SMS), the providers' events, the not-watched notes, and what an order
 * change makes due (the outbox subscriber).
 */
export interface NotificationsModule {
  dispatcher: SendDispatcher;
  /** E-mail providers' events (bounces), stored by the webhooks and applied after (docs/notifications.md "Bounces"). */
  emailEvents: EmailEvents;
  /** The three-day "not watched yet" checks, decided on the send dispatch tick. */
  notWatched: NotWatchedNotes;
  email: EmailChannel;
  subscriber: OrderEventSubscriber;
}

export interface NotificationsDeps {
  config: Config;
  db: Db;
  orders: OrderService;
  templates: MessageTemplates;
  logger: Logger;
  now: () => Date;
  observer: SendObserver;
  /** Replaces the e-mail channel (fault-injection tests wrap the real one). */
  email?: EmailChannel | undefined;
  /** Messages were queued: dispatch now rather than on the next tick (the queues' producer). */
  onMessagesQueued: () => void;
  /** The other modules the messages speak of, asked only when a message is sent. */
  hasPoster: (orderId: string) => Promise<boolean>;
  thanksMessage: NonNullable<ConstructorParameters<typeof SendDispatcher>[0]['thanksMessage']>;
  thanksSent: (trx: Db, orderId: string, at: Date) => Promise<void>;
}

export function createNotifications(deps: NotificationsDeps): NotificationsModule {
  const { config, db, logger, now, onMessagesQueued, thanksSent } = deps;
  const outboxDir = path.join(config.dataDir, 'outbox');
  const email =
    deps.email ??
    createEmailChannel({
      smtpUrl: config.smtpUrl,
      from: config.emailFrom,
      outboxDir,
      logger,
      maxConnections: config.smtpMaxConnections,
    });
  const dispatcher = new SendDispatcher({
    db,
    orders: deps.orders,
    email,
    // As many messages in flight as the SMTP pool has connections: each gets one, none queues in it.
    concurrency: config.smtpMaxConnections,
    sms: createSmsChannel({ provider: config.sms, outboxDir, logger }),
    templates: deps.templates,
    publicUrl: config.publicUrl,
    logger,
    now,
    observer: deps.observer,
    hasPoster: deps.hasPoster,
    thanksMessage: deps.thanksMessage,
    thanksSent,
    timing: config.sendTiming,
    emailEventsOn: Boolean(config.emailEvents.postmark || config.emailEvents.ses || config.emailEvents.sendgrid),
    // An uncertain send is queued again only on a reconciler run.
    onMessagesQueued,
  });
  return {
    dispatcher,
    emailEvents: new EmailEvents({ db, logger, now, onMessagesQueued, thanksSent }),
    notWatched: new NotWatchedNotes({ db, logger, now }),
    email,
    subscriber: notificationsSubscriber({
      now,
      onMessagesQueued,
      thanksSendDelayMs: config.videos.thanks.sendDelaySeconds * 1000,
    }),
  };
}
