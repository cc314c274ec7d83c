import {
  Banner,
  BlockStack,
  Box,
  Button,
  Card,
  InlineGrid,
  InlineStack,
  Layout,
  Page,
  SkeletonBodyText,
  Text,
} from '@shopify/polaris';
import type { BillingJson, HomeJson } from '../../contract.ts';
import { formatDuration, formatMoney, formatMonth, formatTime } from '../format.ts';
import { navigate } from '../navigation.tsx';
import { useApi } from '../use-api.ts';
import { usePlanApproval } from '../approve-plan.ts';
import { SetupGuide } from './setup-guide.tsx';

export function HomeView() {
  const home = useApi<HomeJson>('/home');
  return (
    <Page
      title="Doorstep"
      subtitle={home.data ? home.data.shop.name : undefined}
      secondaryActions={[
        { content: 'Orders', onAction: () => navigate('/orders') },
        { content: 'Settings', onAction: () => navigate('/settings') },
      ]}
    >
      <Layout>
        <Layout.Section>
          <SetupGuide />
        </Layout.Section>
        <Layout.Section>
          <BlockStack gap="400">
            {home.error && (
              <Banner tone="critical" title="The counts could not be loaded">
                <p>{home.error}</p>
              </Banner>
            )}
            <Counts home={home.data} loading={home.loading} />
            {home.data && home.data.refused_lines.length > 0 && (
              <RefusedLines lines={home.data.refused_lines} timeZone={home.data.time_zone} />
            )}
          </BlockStack>
        </Layout.Section>
        <Layout.Section>
          <Bill />
        </Layout.Section>
      </Layout>
    </Page>
  );
}

/** Rule 3 in the merchant's sight: a paid video line that made no video order says why. */
function RefusedLines({ lines, timeZone }: { lines: HomeJson['refused_lines']; timeZone: string }) {
  return (
    <Banner tone="warning" title="Video messages Doorstep could not take">
      <BlockStack gap="200">
        <p>
          These Shopify orders have a video line that did not become a video order. Correct the order in Shopify (its
          next update is taken) or contact the customer.
        </p>
        <ul id="refused-lines">
          {lines.map((line) => (
            <li key={`${line.shopify_order_id}-${line.refused_at}-${line.reason}`}>
              <strong>{line.shopify_order_name ?? `Order ${line.shopify_order_id}`}</strong> (
              {formatTime(line.refused_at, timeZone)}): {line.reason}
            </li>
          ))}
        </ul>
      </BlockStack>
    </Banner>
  );
}

function Counts({ home, loading }: { home: HomeJson | undefined; loading: boolean }) {
  const tiles: Array<[string, string, string]> = home
    ? [
        ['video-orders', 'Video orders', String(home.counts.video_orders)],
        ['delivered', 'Delivered', String(home.counts.delivered)],
        ['sent', 'Videos sent', String(home.counts.sent)],
        ['viewed', 'Videos watched', String(home.counts.viewed)],
        ['median', 'Median delivery → sent', formatDuration(home.median_delivery_to_sent_seconds)],
        ['needs-attention', 'Needs attention', String(home.counts.needs_attention)],
      ]
    : [];
  return (
    <Card>
      <BlockStack gap="400">
        <InlineStack align="space-between">
          <Text as="h2" variant="headingMd">
            Last 30 days
          </Text>
          {home && (
            <Text as="span" tone="subdued">
              {formatTime(home.period.from, home.time_zone)} – {formatTime(home.period.to, home.time_zone)}
            </Text>
          )}
        </InlineStack>
        {loading && !home ? (
          <SkeletonBodyText lines={3} />
        ) : (
          <InlineGrid columns={{ xs: 2, md: 3 }} gap="400">
            {tiles.map(([id, label, value]) => (
              <Box key={id} id={`count-${id}`} padding="300" background="bg-surface-secondary" borderRadius="200">
                <BlockStack gap="100">
                  <Text as="p" tone="subdued">
                    {label}
                  </Text>
                  <Text as="p" variant="headingXl">
                    {value}
                  </Text>
                </BlockStack>
              </Box>
            ))}
          </InlineGrid>
        )}
        {home && home.counts.needs_attention > 0 && (
          <InlineStack>
            <Button onClick={() => navigate('/orders')}>See the orders that need attention</Button>
          </InlineStack>
        )}
      </BlockStack>
    </Card>
  );
}

function Bill() {
  const billing = useApi<BillingJson>('/billing');
  const data = billing.data;
  const plan = usePlanApproval(data?.subscription.confirmation_url ?? null, billing.setData);

  const needsApproval = data && data.subscription.status !== 'active';
  return (
    <Card>
      <BlockStack gap="400">
        <Text as="h2" variant="headingMd">
          This month's bill{data ? ` (${formatMonth(data.month.month)})` : ''}
        </Text>
        {billing.error && (
          <Banner tone="critical" title="The bill could not be loaded">
            <p>{billing.error}</p>
          </Banner>
        )}
        {plan.error && (
          <Banner tone="critical">
            <p>{plan.error}</p>
          </Banner>
        )}
        {data?.notice && (
          <Banner tone={needsApproval ? 'warning' : 'info'} title="Billing">
            <BlockStack gap="200">
              <p id="billing-notice">{data.notice}</p>
              {needsApproval && (
                <InlineStack>
                  <Button variant="primary" loading={plan.approving} onClick={() => void plan.approve()}>
                    Approve plan
                  </Button>
                </InlineStack>
              )}
            </BlockStack>
          </Banner>
        )}
        {billing.loading && !data && <SkeletonBodyText lines={2} />}
        {data && (
          <InlineGrid columns={{ xs: 2, md: 4 }} gap="400">
            <Figure label="Videos charged" value={String(data.month.videos_charged)} />
            <Figure label="Charged so far" value={formatMoney(data.month.charged_cents, data.subscription.currency)} />
            <Figure label="Pending" value={formatMoney(data.month.pending_cents, data.subscription.currency)} />
            <Figure
              label="Not billed (over the cap or not approved)"
              value={formatMoney(data.month.unbilled_cents + data.month.over_cap_cents, data.subscription.currency)}
            />
          </InlineGrid>
        )}
        {data && (
          <Text as="p" tone="subdued">
            {data.subscription.terms}
          </Text>
        )}
        {data?.subscription.test && (
          <Banner tone="info" title="Test charges">
            <p id="billing-test">
              This is a development or review store: its plan and charges are tests, and nothing is billed.
            </p>
          </Banner>
        )}
      </BlockStack>
    </Card>
  );
}

function Figure({ label, value }: { label: string; value: string }) {
  return (
    <BlockStack gap="100">
      <Text as="p" tone="subdued">
        {label}
      </Text>
      <Text as="p" variant="headingLg">
        {value}
      </Text>
    </BlockStack>
  );
}
