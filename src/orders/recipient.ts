/**
 * Stands in for a recipient nobody named: a Shopify line item can come without one, and the order
 * is still made (docs/shopify.md, "Every video line item reaches a send"). The record page asks the
 * sender for the real name and shows an empty field instead of this.
 */
export const UNNAMED_RECIPIENT = 'your recipient';
