import {
  Badge,
  Banner,
  BlockStack,
  Button,
  Card,
  FormLayout,
  InlineStack,
  Layout,
  Modal,
  Page,
  SkeletonBodyText,
  Text,
  TextField,
} from '@shopify/polaris';
import { useState } from 'react';
import { api, ApiError, errorMessage } from '../api.ts';
import type { OrderDetail } from '../../contract.ts';
import { formatMoney, formatTime, stageTone, stageToneLabel } from '../format.ts';
import { navigate } from '../navigation.tsx';
import { useApi } from '../use-api.ts';

type Action = 'mark-delivered' | 'resend' | 'cancel';

const ACTION_DONE: Record<Action, string> = {
  'mark-delivered': 'Marked as delivered',
  resend: 'The video message is being sent again',
  cancel: 'The video order was cancelled',
};

export function OrderView({ id }: { id: string }) {
  const detail = useApi<OrderDetail>(`/orders/${encodeURIComponent(id)}`);
  const [busy, setBusy] = useState<Action | 'recipient' | null>(null);
  const [actionError, setActionError] = useState<string>();
  const [editing, setEditing] = useState(false);
  const [confirmingCancel, setConfirmingCancel] = useState(false);
  const data = detail.data;

  const run = async (action: Action) => {
    setBusy(action);
    setActionError(undefined);
    try {
      detail.setData(await api<OrderDetail>('POST', `/orders/${encodeURIComponent(id)}/${action}`));
      shopify.toast.show(ACTION_DONE[action]);
    } catch (error) {
      setActionError(errorMessage(error));
    } finally {
      setBusy(null);
      setConfirmingCancel(false);
    }
  };

  const copyRecordLink = async () => {
    if (!data?.record_url) return;
    try {
      await navigator.clipboard.writeText(data.record_url);
      shopify.toast.show('Record link copied');
    } catch {
      shopify.toast.show('The browser did not allow copying; select the link on the page instead', { isError: true });
    }
  };

  const title = data ? (data.shopify_order_name ?? `Video order for ${data.order.recipient_name}`) : 'Video order';
  return (
    <Page
      title={title}
      titleMetadata={
        data && (
          <InlineStack gap="100">
            <Badge tone={stageTone(data.stage)} toneAndProgressLabelOverride={stageToneLabel(data.stage)}>
              {data.stage_label}
            </Badge>
            {data.test_gift && <Badge>Test</Badge>}
          </InlineStack>
        )
      }
      subtitle={
        data ? `“${data.order.video_title}” from ${data.order.name} to ${data.order.recipient_name}` : undefined
      }
      backAction={{ content: 'Orders', onAction: () => navigate('/orders') }}
      secondaryActions={
        data
          ? [
              {
                content: 'Mark delivered',
                disabled: !data.actions.mark_delivered || busy !== null,
                helpText: data.action_refusals.mark_delivered ?? undefined,
                loading: busy === 'mark-delivered',
                onAction: () => void run('mark-delivered'),
              },
              {
                content: 'Resend',
                disabled: !data.actions.resend || busy !== null,
                helpText: data.action_refusals.resend ?? undefined,
                loading: busy === 'resend',
                onAction: () => void run('resend'),
              },
              {
                content: 'Edit recipient',
                disabled: !data.actions.edit_recipient || busy !== null,
                helpText: data.action_refusals.edit_recipient ?? undefined,
                onAction: () => setEditing(true),
              },
              {
                content: 'Copy record link',
                disabled: !data.record_url,
                onAction: () => void copyRecordLink(),
              },
              {
                content: 'Cancel order',
                destructive: true,
                disabled: !data.actions.cancel || busy !== null,
                helpText: data.action_refusals.cancel ?? undefined,
                onAction: () => setConfirmingCancel(true),
              },
            ]
          : []
      }
    >
      <Layout>
        {(detail.error || actionError) && (
          <Layout.Section>
            <Banner tone="critical" title={detail.error ? 'The order could not be loaded' : 'That did not work'}>
              <p>{detail.error ?? actionError}</p>
            </Banner>
          </Layout.Section>
        )}
        {!data && detail.loading && (
          <Layout.Section>
            <Card>
              <SkeletonBodyText lines={6} />
            </Card>
          </Layout.Section>
        )}
        {data && <OrderBody data={data} />}
      </Layout>
      {data && editing && (
        <RecipientModal
          data={data}
          onClose={() => setEditing(false)}
          onSaved={(saved) => {
            detail.setData(saved);
            setEditing(false);
            shopify.toast.show('Recipient saved');
          }}
        />
      )}
      <Modal
        open={confirmingCancel}
        onClose={() => setConfirmingCancel(false)}
        title="Cancel this video order?"
        primaryAction={{
          content: 'Cancel video order',
          destructive: true,
          loading: busy === 'cancel',
          onAction: () => void run('cancel'),
        }}
        secondaryActions={[{ content: 'Keep it', onAction: () => setConfirmingCancel(false) }]}
      >
        <Modal.Section>
          <p>The video message will not be sent, and tracking stops. This cannot be undone.</p>
        </Modal.Section>
      </Modal>
    </Page>
  );
}

function OrderBody({ data }: { data: OrderDetail }) {
  const { order, tracking } = data;
  return (
    <>
      <Layout.Section>
        <BlockStack gap="400">
          {data.attention && (
            <Banner tone="critical" title="Needs attention">
              <p id="attention">{data.attention}</p>
            </Banner>
          )}
          {data.waiting_reason && (
            <Banner tone="info" title="Waiting">
              <p id="waiting-reason">{data.waiting_reason}</p>
            </Banner>
          )}
          {data.warnings.length > 0 && (
            <Banner tone="warning" title="Worth knowing">
              <ul id="warnings">
                {data.warnings.map((warning) => (
                  <li key={warning}>{warning}</li>
                ))}
              </ul>
            </Banner>
          )}
          <Card>
            <BlockStack gap="300">
              <Text as="h2" variant="headingMd">
                What happened
              </Text>
              <ol id="timeline" style={{ listStyle: 'none', margin: 0, padding: 0 }}>
                {data.timeline.map((entry, index) => (
                  <li key={`${entry.at}-${index}`} className="timeline-entry">
                    <BlockStack gap="050">
                      <Text as="p" fontWeight="semibold">
                        {entry.title}
                      </Text>
                      {entry.detail && <Text as="p">{entry.detail}</Text>}
                      {entry.moment && (
                        <Text as="p">
                          {entry.moment.label}: {formatTime(entry.moment.at, data.time_zone)}
                        </Text>
                      )}
                      <Text as="p" tone="subdued" variant="bodySm">
                        {entry.source_label} · {formatTime(entry.at, data.time_zone)}
                      </Text>
                    </BlockStack>
                    {index < data.timeline.length - 1 && <hr style={{ border: 0, margin: '8px 0' }} />}
                  </li>
                ))}
              </ol>
            </BlockStack>
          </Card>
        </BlockStack>
      </Layout.Section>
      <Layout.Section variant="oneThird">
        <BlockStack gap="400">
          <Card>
            <BlockStack gap="200">
              <Text as="h2" variant="headingMd">
                Video message
              </Text>
              {data.video_url ? (
                <video
                  id="order-video"
                  src={data.video_url}
                  controls
                  preload="metadata"
                  playsInline
                  style={{ width: '100%', borderRadius: 8, background: '#000' }}
                />
              ) : (
                <Text as="p" tone="subdued">
                  No video yet.
                </Text>
              )}
              <Text as="p" id="order-price">
                Price: {order.price === null ? 'none (not billed)' : formatMoney(order.price, data.price_currency)}
              </Text>
              {data.shopify_order_url && (
                <Button url={data.shopify_order_url} variant="plain" id="shopify-order-link">
                  {`Open ${data.shopify_order_name ?? 'the order'} in Shopify`}
                </Button>
              )}
            </BlockStack>
          </Card>
          <Card>
            <BlockStack gap="200">
              <Text as="h2" variant="headingMd">
                Tracking
              </Text>
              {tracking ? (
                <BlockStack gap="100" id="tracking">
                  <InlineStack gap="200">
                    <Text as="span" fontWeight="semibold">
                      {tracking.carrier.toUpperCase()}
                    </Text>
                    <Text as="span">{tracking.tracking_number}</Text>
                  </InlineStack>
                  <Text as="p">Status: {tracking.status_label}</Text>
                  <Text as="p">Last checked: {formatTime(tracking.last_checked_at, data.time_zone)}</Text>
                  <Text as="p">Next check: {formatTime(tracking.next_check_at, data.time_zone)}</Text>
                  <Text as="p">Carrier's estimate: {formatTime(tracking.estimated_delivery_at, data.time_zone)}</Text>
                </BlockStack>
              ) : (
                <Text as="p" tone="subdued">
                  No package is being tracked for this order.
                </Text>
              )}
            </BlockStack>
          </Card>
          <Card>
            <BlockStack gap="200">
              <Text as="h2" variant="headingMd">
                Recipient
              </Text>
              <Text as="p" id="recipient-name">
                {order.recipient_name}
              </Text>
              <Text as="p" id="recipient-email">
                {order.recipient_email ?? 'No e-mail address'}
              </Text>
              <Text as="p" id="recipient-phone">
                {order.recipient_phone ?? 'No mobile number'}
              </Text>
            </BlockStack>
          </Card>
          <Card>
            <BlockStack gap="200">
              <Text as="h2" variant="headingMd">
                Sender
              </Text>
              <Text as="p">{order.name}</Text>
              <Text as="p">{order.email}</Text>
              {data.record_url && (
                <Text as="p" breakWord tone="subdued" variant="bodySm">
                  <span id="record-url">{data.record_url}</span>
                </Text>
              )}
            </BlockStack>
          </Card>
        </BlockStack>
      </Layout.Section>
    </>
  );
}

function RecipientModal({
  data,
  onClose,
  onSaved,
}: {
  data: OrderDetail;
  onClose(): void;
  onSaved(detail: OrderDetail): void;
}) {
  const [name, setName] = useState(data.order.recipient_name);
  const [email, setEmail] = useState(data.order.recipient_email ?? '');
  const [phone, setPhone] = useState(data.order.recipient_phone ?? '');
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<ApiError | string>();

  const save = async () => {
    setSaving(true);
    setError(undefined);
    try {
      onSaved(
        await api<OrderDetail>(
          'PUT',
          `/orders/${encodeURIComponent(data.order.id)}/recipient`,
          recipientChanges(data, { name, email, phone }),
        ),
      );
    } catch (failure) {
      setError(failure instanceof ApiError ? failure : errorMessage(failure));
    } finally {
      setSaving(false);
    }
  };

  const fields = error instanceof ApiError ? error.fields : {};
  return (
    <Modal
      open
      onClose={onClose}
      title="Edit recipient"
      primaryAction={{ content: 'Save recipient', loading: saving, onAction: () => void save() }}
      secondaryActions={[{ content: 'Cancel', onAction: onClose }]}
    >
      <Modal.Section>
        <FormLayout>
          {error && (
            <Banner tone="critical">
              <p>{typeof error === 'string' ? error : error.message}</p>
            </Banner>
          )}
          <TextField label="Name" value={name} onChange={setName} autoComplete="off" error={fields.recipient_name} />
          <TextField
            label="E-mail"
            type="email"
            value={email}
            onChange={setEmail}
            autoComplete="off"
            error={fields.recipient_email}
          />
          <TextField
            label="Mobile number"
            type="tel"
            value={phone}
            onChange={setPhone}
            autoComplete="off"
            helpText="With the country code, e.g. +1 555 010 0100"
            error={fields.recipient_phone}
          />
        </FormLayout>
      </Modal.Section>
    </Modal>
  );
}

/**
 * Only what the merchant changed: a field left alone is not sent, a cleared one is null (the API
 * says when that leaves no way to reach the recipient).
 */
function recipientChanges(
  data: OrderDetail,
  form: { name: string; email: string; phone: string },
): Record<string, string | null> {
  const changes: Record<string, string | null> = {};
  if (form.name.trim() !== data.order.recipient_name) changes.recipient_name = form.name.trim();
  if (form.email.trim() !== (data.order.recipient_email ?? '')) changes.recipient_email = form.email.trim() || null;
  if (form.phone.trim() !== (data.order.recipient_phone ?? '')) changes.recipient_phone = form.phone.trim() || null;
  return changes;
}
