import { Badge, Banner, BlockStack, Button, Card, InlineStack, ProgressBar, Text, TextField } from '@shopify/polaris';
import { useState } from 'react';
import { api, errorMessage } from '../api.ts';
import type { SetupJson } from '../../contract.ts';
import { navigate } from '../navigation.tsx';
import { useApi } from '../use-api.ts';
import { usePlanApproval } from '../approve-plan.ts';

/**
 * Home's setup guide (Polaris's setup-guide pattern, issue 28): the four steps of a merchant's first
 * hour, each ticked from the shop's real state (GET /shopify/api/setup), with the action that does it.
 * Hidden once every step is done; a visit whose last step finished it says so first.
 */
export function SetupGuide() {
  const setup = useApi<SetupJson>('/setup');
  const [sending, setSending] = useState(false);
  const [sent, setSent] = useState<string>();
  const [failed, setFailed] = useState<string>();
  const [price, setPrice] = useState('5.00');
  const [creating, setCreating] = useState(false);
  const plan = usePlanApproval(null);
  const data = setup.data;
  if (setup.error)
    return (
      <Banner tone="warning" title="The setup guide could not be loaded">
        <p>{setup.error}</p>
      </Banner>
    );
  if (!data) return null;
  // A guide finished before this visit is gone; one finished by this visit's last step says so.
  if (data.completed === data.steps.length)
    return sent ? (
      <Banner tone="success" title="Doorstep is set up">
        <p id="test-gift-sent">{sent}</p>
      </Banner>
    ) : null;

  const sendTestGift = async () => {
    setSending(true);
    setFailed(undefined);
    try {
      const answer = await api<{ message: string }>('POST', '/test-gift');
      setSent(answer.message);
      setup.reload();
    } catch (error) {
      setFailed(errorMessage(error));
    } finally {
      setSending(false);
    }
  };

  const createVideoProduct = async () => {
    setCreating(true);
    setFailed(undefined);
    try {
      const product = await api<{ title: string; price: string }>('POST', '/video-product', { price });
      shopify.toast.show(`“${product.title}” created at ${product.price}`);
      setup.reload();
    } catch (error) {
      setFailed(errorMessage(error));
    } finally {
      setCreating(false);
    }
  };

  return (
    <Card>
      <BlockStack gap="400">
        <BlockStack gap="200">
          <Text as="h2" variant="headingMd">
            Set up Doorstep
          </Text>
          <Text as="p" tone="subdued" id="setup-progress">
            {data.completed} of {data.steps.length} steps done
          </Text>
          <ProgressBar progress={(data.completed / data.steps.length) * 100} size="small" tone="primary" />
        </BlockStack>
        {(failed ?? plan.error) && (
          <Banner tone="critical">
            <p>{failed ?? plan.error}</p>
          </Banner>
        )}
        {sent && (
          <Banner tone="success">
            <p id="test-gift-sent">{sent}</p>
          </Banner>
        )}
        <BlockStack gap="300" as="ol">
          {data.steps.map((step) => (
            <li key={step.id} id={`setup-${step.id}`} className="setup-step">
              <BlockStack gap="100">
                <InlineStack gap="200" blockAlign="center">
                  <Text as="h3" variant="headingSm">
                    {step.title}
                  </Text>
                  {step.done ? <Badge tone="success">Done</Badge> : <Badge>To do</Badge>}
                </InlineStack>
                {!step.done && (
                  <BlockStack gap="200">
                    <Text as="p" tone="subdued">
                      {step.description}
                    </Text>
                    {step.id === 'video_product' && (
                      <InlineStack gap="200" blockAlign="end">
                        <div style={{ maxWidth: 160 }}>
                          <TextField
                            label="Price, in your store’s currency"
                            id="video-product-price"
                            value={price}
                            onChange={setPrice}
                            autoComplete="off"
                            inputMode="decimal"
                          />
                        </div>
                        <Button
                          variant="primary"
                          loading={creating}
                          id="setup-video_product-create"
                          onClick={() => void createVideoProduct()}
                        >
                          Create it for me
                        </Button>
                      </InlineStack>
                    )}
                    <InlineStack>
                      {step.id === 'plan' ? (
                        <Button
                          variant="primary"
                          loading={plan.approving}
                          id="setup-plan-action"
                          onClick={() => void plan.approve()}
                        >
                          Approve the plan in Shopify
                        </Button>
                      ) : step.id === 'test_gift' ? (
                        <Button variant="primary" loading={sending} onClick={() => void sendTestGift()}>
                          Send a test gift to yourself
                        </Button>
                      ) : step.action?.target === 'top' ? (
                        <Button url={step.action.url} target="_top" id={`setup-${step.id}-action`}>
                          {step.action.label}
                        </Button>
                      ) : step.action ? (
                        <Button onClick={() => navigate(step.action!.url)}>{step.action.label}</Button>
                      ) : null}
                    </InlineStack>
                  </BlockStack>
                )}
              </BlockStack>
            </li>
          ))}
        </BlockStack>
      </BlockStack>
    </Card>
  );
}
