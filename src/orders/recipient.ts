import type { SendMethod } from '../vocabulary.ts';

/**
 * Stands in for a recipient nobody named: a Shopify line item can come without one, and the order
 * is still made (docs/shopify.md, "Every video line item reaches a send"). The record page asks the
 * sender for the real name and shows an empty field instead of this.
 */
export const UNNAMED_RECIPIENT = 'your recipient';

/**
 * How a recipient is reached once we know where: both an e-mail and a phone → `whenBoth` (a shop
 * chooses it in the admin; `email_and_sms` otherwise), else the one there is; null when neither.
 */
export function sendMethodReaching(
  destinations: { email: boolean; phone: boolean },
  whenBoth: SendMethod = 'email_and_sms',
): SendMethod | null {
  if (destinations.email && destinations.phone) return whenBoth;
  if (destinations.email) return 'email';
  return destinations.phone ? 'sms' : null;
}
