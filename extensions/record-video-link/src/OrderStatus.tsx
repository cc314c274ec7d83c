import '@shopify/ui-extensions/preact';
import { render } from 'preact';
import { RecordVideoLinks } from './RecordVideoLinks.tsx';

// customer-account.order-status.block.render: the order's status page in customer accounts, where
// the shopper comes back later. Shopify CLI's entry calls this default export from `shopify.extend`.
export default async () => {
  render(<OrderStatusRecordLinks />, document.body);
};

function OrderStatusRecordLinks() {
  // Reading the signal's value inside the component re-renders it if the order changes.
  const orderId = shopify.order.value?.id;
  return (
    <RecordVideoLinks
      orderId={orderId}
      getSessionToken={() => shopify.sessionToken.get()}
      translate={(key, replacements) => shopify.i18n.translate(key, replacements)}
    />
  );
}
