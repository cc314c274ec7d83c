import '@shopify/ui-extensions/preact';
import { render } from 'preact';
import { RecordVideoLinks } from './RecordVideoLinks.tsx';

// purchase.thank-you.block.render: the page right after checkout. Shopify CLI's entry calls this
// default export from `shopify.extend(target, …)` (API 2025-10 and later).
export default async () => {
  render(<ThankYouRecordLinks />, document.body);
};

function ThankYouRecordLinks() {
  // Reading the signal's value inside the component re-renders it if the order changes.
  const orderId = shopify.orderConfirmation.value?.order?.id;
  return (
    <RecordVideoLinks
      orderId={orderId}
      getSessionToken={() => shopify.sessionToken.get()}
      translate={(key, replacements) => shopify.i18n.translate(key, replacements)}
    />
  );
}
