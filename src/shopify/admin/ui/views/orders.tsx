import {
  Badge,
  Banner,
  BlockStack,
  Box,
  Card,
  EmptyState,
  IndexTable,
  InlineStack,
  Link,
  Page,
  Pagination,
  Tabs,
  Text,
  TextField,
  useBreakpoints,
} from '@shopify/polaris';
import { useEffect, useState } from 'react';
import { STAGES, type OrderList, type Stage } from '../../contract.ts';
import { formatTime, shorten, STAGE_TAB_LABELS, stageTone, stageToneLabel } from '../format.ts';
import { navigate } from '../navigation.tsx';
import { pathOf } from '../routing.ts';
import { useApi } from '../use-api.ts';

const TABS: Array<{ id: string; content: string; stage: Stage | null }> = [
  { id: 'all', content: 'All', stage: null },
  ...STAGES.map((stage) => ({ id: stage, content: STAGE_TAB_LABELS[stage], stage })),
];

/** The list shows the start of why an order needs attention (the whole reason is on the order). */
const ATTENTION_IN_LIST_CHARACTERS = 70;

/** Waits this long after the last key before searching, so typing a name is one request, not ten. */
const SEARCH_DELAY_MS = 300;

export function OrdersView() {
  // On a phone the table becomes a list: each order's cells stacked, nothing running off the screen.
  const { smDown } = useBreakpoints();
  const [tab, setTab] = useState(0);
  const [search, setSearch] = useState('');
  const [query, setQuery] = useState('');
  // The cursors of the pages before this one: Shopify-style paging goes forward by cursor, back by memory.
  const [cursors, setCursors] = useState<Array<string | null>>([null]);

  useEffect(() => {
    const timer = setTimeout(() => {
      setQuery(search.trim());
      setCursors([null]);
    }, SEARCH_DELAY_MS);
    return () => clearTimeout(timer);
  }, [search]);

  const stage = TABS[tab]!.stage;
  const cursor = cursors.at(-1) ?? null;
  const params = new URLSearchParams();
  if (stage) params.set('stage', stage);
  if (query) params.set('q', query);
  if (cursor) params.set('cursor', cursor);
  params.set('limit', '25');
  const orders = useApi<OrderList>(`/orders?${params}`);
  const rows = orders.data?.data ?? [];
  const timeZone = orders.data?.time_zone ?? 'UTC';

  return (
    <Page title="Orders" backAction={{ content: 'Home', onAction: () => navigate('/') }}>
      <BlockStack gap="400">
        {orders.error && (
          <Banner tone="critical" title="The orders could not be loaded">
            <p>{orders.error}</p>
          </Banner>
        )}
        <Card padding="0">
          <Tabs
            tabs={TABS.map(({ id, content }) => ({ id: `stage-${id}`, content, panelID: 'orders-panel' }))}
            selected={tab}
            onSelect={(index) => {
              setTab(index);
              setCursors([null]);
            }}
          />
          <Box padding="300">
            <TextField
              label="Search orders"
              labelHidden
              placeholder="Search by name, e-mail or Shopify order (#1001)"
              value={search}
              onChange={setSearch}
              clearButton
              onClearButtonClick={() => setSearch('')}
              autoComplete="off"
            />
          </Box>
          <div id="orders-panel">
            <IndexTable
              condensed={smDown}
              resourceName={{ singular: 'video order', plural: 'video orders' }}
              itemCount={rows.length}
              selectable={false}
              loading={orders.loading}
              emptyState={
                <EmptyState heading="No video orders here" image="">
                  <p>
                    {query || stage
                      ? 'Try another filter or search.'
                      : 'Video orders appear here as your store sells them.'}
                  </p>
                </EmptyState>
              }
              headings={[
                { title: 'Order' },
                { title: 'From' },
                { title: 'For' },
                { title: 'Stage' },
                { title: 'Created' },
              ]}
            >
              {rows.map((order, index) => (
                <IndexTable.Row
                  key={order.id}
                  id={order.id}
                  position={index}
                  onClick={() => navigate(pathOf({ view: 'order', id: order.id }))}
                >
                  {smDown ? (
                    // A phone: one cell, stacked (Polaris's condensed list shows one; five ran off screen).
                    <IndexTable.Cell>
                      <BlockStack gap="100">
                        <InlineStack align="space-between" blockAlign="center" gap="200" wrap={false}>
                          <OrderName order={order} />
                          <Text as="span" tone="subdued" variant="bodySm">
                            {formatTime(order.created_at, timeZone)}
                          </Text>
                        </InlineStack>
                        <Text as="span">
                          {order.sender_name} → {order.recipient_name}
                        </Text>
                        <OrderStageCell order={order} />
                      </BlockStack>
                    </IndexTable.Cell>
                  ) : (
                    <>
                      <IndexTable.Cell>
                        <OrderName order={order} />
                      </IndexTable.Cell>
                      <IndexTable.Cell>
                        <BlockStack>
                          <Text as="span">{order.sender_name}</Text>
                          <Text as="span" tone="subdued" variant="bodySm">
                            {order.sender_email}
                          </Text>
                        </BlockStack>
                      </IndexTable.Cell>
                      <IndexTable.Cell>{order.recipient_name}</IndexTable.Cell>
                      <IndexTable.Cell>
                        <OrderStageCell order={order} />
                      </IndexTable.Cell>
                      <IndexTable.Cell>{formatTime(order.created_at, timeZone)}</IndexTable.Cell>
                    </>
                  )}
                </IndexTable.Row>
              ))}
            </IndexTable>
          </div>
          <Box padding="300">
            <Pagination
              hasPrevious={cursors.length > 1}
              onPrevious={() => setCursors((previous) => previous.slice(0, -1))}
              hasNext={Boolean(orders.data?.has_more && orders.data.next_cursor)}
              onNext={() => {
                const next = orders.data?.next_cursor;
                if (next) setCursors((previous) => [...previous, next]);
              }}
            />
          </Box>
        </Card>
      </BlockStack>
    </Page>
  );
}

type OrderRowJson = OrderList['data'][number];

/** The order's name in the list, the row's link. */
function OrderName({ order }: { order: OrderRowJson }) {
  return (
    <Link url={pathOf({ view: 'order', id: order.id })} dataPrimaryLink removeUnderline monochrome>
      <Text as="span" fontWeight="semibold">
        {order.shopify_order_name ?? (order.test_gift ? 'Test gift' : 'Video order')}
      </Text>
    </Link>
  );
}

/** The order's stage badge, and why it needs attention when it does. */
function OrderStageCell({ order }: { order: OrderRowJson }) {
  return (
    <BlockStack gap="100">
      <InlineStack gap="100">
        <Badge tone={stageTone(order.stage)} toneAndProgressLabelOverride={stageToneLabel(order.stage)}>
          {order.stage_label}
        </Badge>
        {order.test_gift && <Badge>Test</Badge>}
      </InlineStack>
      {order.attention && (
        <span title={order.attention}>
          <Text as="span" tone="critical" variant="bodySm">
            {shorten(order.attention, ATTENTION_IN_LIST_CHARACTERS)}
          </Text>
        </span>
      )}
    </BlockStack>
  );
}
