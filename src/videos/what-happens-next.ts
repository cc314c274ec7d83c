import { UNNAMED_RECIPIENT } from '../orders/recipient.ts';
import { dayText } from '../i18n/dates.ts';
import type { Locale } from '../i18n/locale.ts';
import { phrase } from '../i18n/phrases.ts';
import type { OrderRow } from '../orders/serializer.ts';

/** The carrier's estimate for the order's package, with the destination's time zone when known. */
export interface DeliveryEstimate {
  at: Date;
  timeZone: string | null;
}

/**
 * Whether the sentence needs the carrier's estimate: a package not yet delivered, on a record page that
 * still takes a video (a cancelled or sent order's page says something else).
 */
export function needsDeliveryEstimate(
  order: Pick<OrderRow, 'send_trigger' | 'delivered' | 'status' | 'sent_at'>,
): boolean {
  return order.send_trigger === 'package' && !order.delivered && order.status !== 'cancelled' && order.sent_at === null;
}

/**
 * The record page's promise to the sender, in one sentence: who gets the video, and when — "Grandpa
 * Joe gets your video when the package arrives, about November 26." In the page's language, the date written the visitor's way.
 * Pure: the order, the carrier's
 * estimate (if any) and nothing else. The estimate's date is the destination's calendar day when its
 * zone is known (a 23:59 estimate in California is not "tomorrow" in UTC), else UTC's, as `send_on` is.
 */
export function whatHappensNext(
  order: Pick<OrderRow, 'recipient_name' | 'send_trigger' | 'send_on' | 'delivered'>,
  estimate: DeliveryEstimate | null,
  language: { locale: Locale; dateLocale: string } = { locale: 'en', dateLocale: 'en' },
): string {
  const { locale, dateLocale } = language;
  // A recipient nobody named is "your recipient" in the page's language; the sentence starts with it.
  const who = {
    recipient_name:
      order.recipient_name === UNNAMED_RECIPIENT ? phrase(locale, 'page_unnamed_recipient') : order.recipient_name,
  };
  return capitalized(sentence(), locale);

  function sentence(): string {
    switch (order.send_trigger) {
      case 'now':
        return phrase(locale, 'page_next_now', who);
      case 'date':
        return order.send_on
          ? phrase(locale, 'page_next_on_date', { ...who, date: dayText(order.send_on, dateLocale, null) })
          : phrase(locale, 'page_next_on_store_day', who);
      case 'package':
        if (order.delivered) return phrase(locale, 'page_next_arrived', who);
        return estimate
          ? phrase(locale, 'page_next_package_about', {
              ...who,
              date: dayText(estimate.at, dateLocale, estimate.timeZone),
            })
          : phrase(locale, 'page_next_package', who);
    }
  }
}

function capitalized(text: string, locale: Locale): string {
  return text.charAt(0).toLocaleUpperCase(locale) + text.slice(1);
}
