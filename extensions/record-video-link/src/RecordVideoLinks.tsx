import { useEffect, useState } from 'preact/hooks';
import { configuredAppUrl } from './app-url.ts';
import { loadRecordLinks, type RecordLinkMessage, type RecordLinksView } from './record-links.ts';

export interface RecordVideoLinksProps {
  /** The Shopify order (an Order or OrderIdentity gid); undefined while the page does not know it. */
  orderId: string | undefined;
  getSessionToken: () => Promise<string>;
  /** `shopify.i18n.translate` with plain-text replacements. */
  translate: (key: string, replacements?: Record<string, string>) => string;
}

/**
 * One banner per video message of the order: a button to the record page, or "recorded". Nothing
 * while loading and nothing for an order without a video message — most orders have none, so a
 * spinner or a placeholder would be noise on every thank-you page.
 */
export function RecordVideoLinks({ orderId, getSessionToken, translate }: RecordVideoLinksProps) {
  const [view, setView] = useState<RecordLinksView>({ show: 'nothing' });

  useEffect(() => {
    const controller = new AbortController();
    void loadRecordLinks({ appUrl: configuredAppUrl(), orderId, getSessionToken, signal: controller.signal }).then(
      (loaded) => {
        if (!controller.signal.aborted) setView(loaded);
      },
    );
    return () => controller.abort();
    // The token getter is the same for the page's life; only a new order means asking again.
  }, [orderId]);

  if (view.show === 'nothing') return null;
  return (
    <s-stack gap="base">
      {view.messages.map((message) => (
        <MessageBanner key={message.recordUrl} message={message} translate={translate} />
      ))}
    </s-stack>
  );
}

function MessageBanner({
  message,
  translate,
}: {
  message: RecordLinkMessage;
  translate: RecordVideoLinksProps['translate'];
}) {
  const name = { name: message.recipientName };
  if (message.recorded) {
    return (
      <s-banner tone="success" heading={translate('recordedHeading', name)}>
        <s-text>{translate('recordedBody', name)}</s-text>
      </s-banner>
    );
  }
  return (
    <s-banner tone="info" heading={translate('recordHeading', name)}>
      <s-stack gap="base">
        <s-text>{translate('recordBody', name)}</s-text>
        <s-button href={message.recordUrl} target="_blank" variant="primary">
          {translate('recordAction')}
        </s-button>
      </s-stack>
    </s-banner>
  );
}
