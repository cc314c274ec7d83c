import {
  Banner,
  BlockStack,
  Button,
  Card,
  Checkbox,
  DropZone,
  FormLayout,
  InlineStack,
  Layout,
  Modal,
  Page,
  Select,
  SkeletonBodyText,
  Tag,
  Text,
  TextField,
} from '@shopify/polaris';
import { useEffect, useState } from 'react';
// The pages' own tokens (pure, no Node): the preview draws with exactly what the pages use.
import { DEFAULT_ACCENT, FONT_STACKS, onAccent } from '../../../../design/tokens.ts';
import { api, apiUpload, authorizedFetch, errorMessage } from '../api.ts';
import {
  CARRIERS,
  LANGUAGES,
  BRAND_FONT_CHOICES,
  type BrandFont,
  type CarrierCode,
  type CredentialsJson,
  type DataExportList,
  type GiftPackages,
  type Locale,
  type RotatedCredentials,
  type SendMethod,
  type SettingsJson,
  type SettingsUpdate,
} from '../../contract.ts';
import { formatTime, uploadedLogoPath, videoIdsFromPicker, type PickedProduct } from '../format.ts';
import { navigate } from '../navigation.tsx';
import { useApi } from '../use-api.ts';

interface Mapping {
  key: number;
  name: string;
  carrier: CarrierCode;
}

interface Form {
  fallback_delivered: boolean;
  mappings: Mapping[];
  video_product_ids: string[];
  video_variant_ids: string[];
  gift_packages: GiftPackages;
  default_send_method: SendMethod | undefined;
  /** The text field: empty = no logo (the store's name alone). */
  logo_url: string;
  not_watched_note: boolean;
  locale: Locale;
  /** `#rrggbb`; empty: Doorstep's. */
  accent_color: string;
  font: BrandFont;
  contact_email: string;
}

let nextKey = 1;

function formOf(settings: SettingsJson): Form {
  return {
    fallback_delivered: settings.fallback_delivered,
    mappings: Object.entries(settings.carrier_aliases).map(([name, carrier]) => ({ key: nextKey++, name, carrier })),
    video_product_ids: settings.video_product_ids,
    video_variant_ids: settings.video_variant_ids,
    gift_packages: settings.gift_packages,
    default_send_method: settings.default_send_method,
    logo_url: settings.logo_url ?? '',
    not_watched_note: settings.not_watched_note ?? true,
    locale: settings.locale ?? 'en',
    accent_color: settings.accent_color ?? '',
    font: settings.font ?? 'modern',
    contact_email: settings.contact_email ?? '',
  };
}

function updateOf(form: Form): SettingsUpdate {
  return {
    fallback_delivered: form.fallback_delivered,
    carrier_aliases: Object.fromEntries(
      form.mappings.filter((m) => m.name.trim()).map((m) => [m.name.trim(), m.carrier] as const),
    ),
    video_product_ids: form.video_product_ids,
    video_variant_ids: form.video_variant_ids,
    gift_packages: form.gift_packages,
    ...(form.default_send_method ? { default_send_method: form.default_send_method } : {}),
    logo_url: form.logo_url.trim() === '' ? null : form.logo_url.trim(),
    not_watched_note: form.not_watched_note,
    locale: form.locale,
    accent_color: form.accent_color.trim() === '' ? null : form.accent_color.trim(),
    font: form.font,
    contact_email: form.contact_email.trim() === '' ? null : form.contact_email.trim(),
  };
}

export function SettingsView() {
  const settings = useApi<SettingsJson>('/settings');
  const [form, setForm] = useState<Form>();
  const [saving, setSaving] = useState(false);
  const [saveError, setSaveError] = useState<{ message: string; fields: Record<string, string> }>();
  const [titles, setTitles] = useState<Record<string, string>>({});

  useEffect(() => {
    if (settings.data) setForm(formOf(settings.data));
  }, [settings.data]);

  const save = async (update: SettingsUpdate) => {
    setSaving(true);
    setSaveError(undefined);
    try {
      settings.setData(await api<SettingsJson>('PUT', '/settings', update));
      shopify.toast.show('Settings saved');
    } catch (error) {
      const fields = (error as { fields?: Record<string, string> }).fields ?? {};
      setSaveError({ message: errorMessage(error), fields });
    } finally {
      setSaving(false);
    }
  };

  const pickProducts = async () => {
    if (!form) return;
    const selection = (await shopify.resourcePicker({
      type: 'product',
      multiple: true,
      action: 'select',
      filter: { variants: true },
      selectionIds: form.video_product_ids.map((id) => ({ id: `gid://shopify/Product/${id}` })),
    })) as PickedProduct[] | undefined;
    if (!selection) return; // the merchant closed the picker
    const { productIds, variantIds } = videoIdsFromPicker(selection);
    const named: Record<string, string> = {};
    for (const product of selection) if (product.title) named[`product:${product.id.split('/').pop()}`] = product.title;
    setTitles((previous) => ({ ...previous, ...named }));
    setForm({ ...form, video_product_ids: productIds, video_variant_ids: variantIds });
  };

  const set = (change: Partial<Form>) => form && setForm({ ...form, ...change });
  const unmapped = settings.data?.unmapped_tracking_companies ?? [];
  const timeZone = settings.data?.time_zone ?? 'UTC';

  return (
    <Page
      title="Settings"
      backAction={{ content: 'Home', onAction: () => navigate('/') }}
      primaryAction={{
        content: 'Save',
        loading: saving,
        disabled: !form,
        onAction: () => form && void save(updateOf(form)),
      }}
    >
      <Layout>
        {(settings.error || saveError) && (
          <Layout.Section>
            <Banner tone="critical" title={settings.error ? 'The settings could not be loaded' : 'Not saved'}>
              {/* The message names each refused field in words (api.ts fieldProblems); the fields show theirs too. */}
              <p>{settings.error ?? saveError?.message}</p>
            </Banner>
          </Layout.Section>
        )}
        {!form ? (
          <Layout.Section>
            <Card>
              <SkeletonBodyText lines={8} />
            </Card>
          </Layout.Section>
        ) : (
          <>
            <Layout.AnnotatedSection
              title="Delivery"
              description="When the carrier cannot be asked, Shopify's own delivered status can count as the delivery."
            >
              <Card>
                <FormLayout>
                  <Checkbox
                    label="Use Shopify's delivered status as a fallback"
                    helpText="For packages whose carrier Doorstep does not track."
                    checked={form.fallback_delivered}
                    onChange={(checked) => set({ fallback_delivered: checked })}
                  />
                  <Select
                    label="Which packages a video add-on waits for"
                    options={[
                      { label: 'All shipped items of the order', value: 'all_shipped_items' },
                      { label: 'Only the gift item it is linked to', value: 'gift_item' },
                    ]}
                    value={form.gift_packages}
                    onChange={(value) => set({ gift_packages: value as GiftPackages })}
                  />
                  {form.default_send_method !== undefined && (
                    <Select
                      label="Default send method"
                      options={[
                        { label: 'E-mail', value: 'email' },
                        { label: 'Text message', value: 'sms' },
                        { label: 'E-mail and text message', value: 'email_and_sms' },
                      ]}
                      value={form.default_send_method}
                      onChange={(value) => set({ default_send_method: value as SendMethod })}
                    />
                  )}
                </FormLayout>
              </Card>
            </Layout.AnnotatedSection>

            <Layout.AnnotatedSection
              title="Branding and notes"
              description="What the sender's record page, the recipient's watch page and every e-mail show above your store's name, and the note to a sender whose gift has not been watched."
            >
              <Card>
                <FormLayout>
                  <LogoUpload
                    logoUrl={settings.data?.logo_url ?? null}
                    onChange={(saved) => {
                      settings.setData(saved);
                      set({ logo_url: saved.logo_url ?? '' });
                    }}
                  />
                  <TextField
                    label="Or a logo’s address"
                    type="url"
                    autoComplete="off"
                    placeholder="https://…"
                    helpText="An https address of an image. Empty, and no logo uploaded: your store name alone."
                    value={form.logo_url}
                    error={saveError?.fields.logo_url}
                    onChange={(value) => set({ logo_url: value })}
                  />
                  <Checkbox
                    label="Tell the sender when the gift has not been watched after three days"
                    helpText="By text message when the order has the sender's phone, else by e-mail; it offers to have you send it again."
                    checked={form.not_watched_note}
                    onChange={(checked) => set({ not_watched_note: checked })}
                  />
                  <Select
                    label="Language of pages and messages"
                    helpText="The record, watch and thank-you pages, the e-mails and the text messages your customers get."
                    options={LANGUAGES.map((language) => ({ label: language.label, value: language.value }))}
                    value={form.locale}
                    error={saveError?.fields.locale}
                    onChange={(value) => set({ locale: value as Locale })}
                  />
                  <InlineStack gap="300" blockAlign="end" wrap={false}>
                    <input
                      type="color"
                      aria-label="Pick the accent colour"
                      value={/^#[0-9a-f]{6}$/i.test(form.accent_color) ? form.accent_color : DEFAULT_ACCENT}
                      onChange={(event) => set({ accent_color: event.currentTarget.value })}
                      style={{ width: 48, height: 36, border: 0, padding: 0, background: 'none' }}
                    />
                    <div style={{ flex: 1 }}>
                      <TextField
                        label="Accent colour"
                        autoComplete="off"
                        placeholder={`${DEFAULT_ACCENT} (Doorstep's)`}
                        helpText="Buttons and the play button on your pages and e-mails. Text on it is made readable for you."
                        value={form.accent_color}
                        error={saveError?.fields.accent_color}
                        onChange={(value) => set({ accent_color: value })}
                      />
                    </div>
                  </InlineStack>
                  <Select
                    label="Font"
                    helpText="System fonts only: nothing to download when a page or e-mail opens."
                    options={BRAND_FONT_CHOICES.map((choice) => ({ label: choice.label, value: choice.value }))}
                    value={form.font}
                    onChange={(value) => set({ font: value as BrandFont })}
                  />
                  <TextField
                    label="Reply-to e-mail"
                    type="email"
                    autoComplete="off"
                    helpText="Where a recipient's or sender's reply to an e-mail goes. Empty: replies go nowhere."
                    value={form.contact_email}
                    error={saveError?.fields.contact_email}
                    onChange={(value) => set({ contact_email: value })}
                  />
                  <BrandPreview form={form} storeName={settings.data?.shop ?? ''} />
                </FormLayout>
              </Card>
            </Layout.AnnotatedSection>

            <Layout.AnnotatedSection
              title="Carrier names"
              description="The tracking companies your fulfillments name, and which carrier Doorstep asks about them."
            >
              <Card>
                <BlockStack gap="400">
                  {form.mappings.map((mapping, index) => (
                    <InlineStack key={mapping.key} gap="200" blockAlign="end" wrap={false}>
                      <div style={{ flex: 1 }}>
                        <TextField
                          label="Tracking company"
                          labelHidden={index > 0}
                          value={mapping.name}
                          autoComplete="off"
                          onChange={(name) =>
                            set({ mappings: form.mappings.map((m) => (m.key === mapping.key ? { ...m, name } : m)) })
                          }
                        />
                      </div>
                      <Select
                        label="Carrier"
                        labelHidden={index > 0}
                        options={CARRIERS.map((c) => ({ ...c }))}
                        value={mapping.carrier}
                        onChange={(carrier) =>
                          set({
                            mappings: form.mappings.map((m) =>
                              m.key === mapping.key ? { ...m, carrier: carrier as CarrierCode } : m,
                            ),
                          })
                        }
                      />
                      <Button
                        accessibilityLabel={`Remove ${mapping.name}`}
                        onClick={() => set({ mappings: form.mappings.filter((m) => m.key !== mapping.key) })}
                      >
                        Remove
                      </Button>
                    </InlineStack>
                  ))}
                  <InlineStack>
                    <Button
                      onClick={() =>
                        set({ mappings: [...form.mappings, { key: nextKey++, name: '', carrier: 'ups' }] })
                      }
                    >
                      Add a carrier name
                    </Button>
                  </InlineStack>
                  {unmapped.length > 0 && (
                    <BlockStack gap="200">
                      <Text as="h3" variant="headingSm">
                        Used by your fulfillments, not mapped yet
                      </Text>
                      {unmapped.map((company) => (
                        <InlineStack key={company.name} gap="300" blockAlign="center" align="space-between">
                          <Text as="span">
                            {company.name} ({company.fulfillments} fulfillment{company.fulfillments === 1 ? '' : 's'},
                            last {formatTime(company.last_seen_at, timeZone)})
                          </Text>
                          <Select
                            label={`Map ${company.name} to…`}
                            labelHidden
                            options={[{ label: 'Map to…', value: '' }, ...CARRIERS.map((c) => ({ ...c }))]}
                            value=""
                            onChange={(carrier) => {
                              if (!carrier) return;
                              const mappings = [
                                ...form.mappings,
                                { key: nextKey++, name: company.name, carrier: carrier as CarrierCode },
                              ];
                              setForm({ ...form, mappings });
                              // A quick mapping is saved at once: the merchant chose it from what Shopify sent.
                              void save({ carrier_aliases: updateOf({ ...form, mappings }).carrier_aliases });
                            }}
                          />
                        </InlineStack>
                      ))}
                    </BlockStack>
                  )}
                </BlockStack>
              </Card>
            </Layout.AnnotatedSection>

            <Layout.AnnotatedSection
              title="Video message products"
              description="Line items of these products or variants are video messages, even without the storefront block."
            >
              <Card>
                <BlockStack gap="300">
                  <div id="video-products">
                    <InlineStack gap="200">
                      {form.video_product_ids.length === 0 && form.video_variant_ids.length === 0 && (
                        <Text as="span" tone="subdued">
                          No products chosen.
                        </Text>
                      )}
                      {form.video_product_ids.map((id) => (
                        <Tag
                          key={`p${id}`}
                          onRemove={() => set({ video_product_ids: form.video_product_ids.filter((p) => p !== id) })}
                        >
                          {titles[`product:${id}`] ?? `Product ${id}`}
                        </Tag>
                      ))}
                      {form.video_variant_ids.map((id) => (
                        <Tag
                          key={`v${id}`}
                          onRemove={() => set({ video_variant_ids: form.video_variant_ids.filter((v) => v !== id) })}
                        >
                          {`Variant ${id}`}
                        </Tag>
                      ))}
                    </InlineStack>
                  </div>
                  <InlineStack>
                    <Button onClick={() => void pickProducts()}>Choose products</Button>
                  </InlineStack>
                </BlockStack>
              </Card>
            </Layout.AnnotatedSection>
          </>
        )}

        <Layout.AnnotatedSection
          title="API credentials"
          description="For the Doorstep API (/v1), e.g. to create video orders from another system."
        >
          <Credentials />
        </Layout.AnnotatedSection>

        <Layout.AnnotatedSection
          title="Customer data exports"
          description="What Doorstep holds about a customer, prepared when Shopify asked for it on their behalf."
        >
          <DataExports />
        </Layout.AnnotatedSection>
      </Layout>
    </Page>
  );
}

/**
 * A live preview of the recipient's watch page in the chosen accent and font, as the merchant types:
 * the same colours the pages use (a pale accent gets dark text on its button).
 */
function BrandPreview({ form, storeName }: { form: Form; storeName: string }) {
  const accent = /^#[0-9a-f]{6}$/i.test(form.accent_color) ? form.accent_color : DEFAULT_ACCENT;
  const font = FONT_STACKS[form.font];
  return (
    <div
      id="brand-preview"
      aria-label="Preview of your watch page"
      style={{ fontFamily: font, background: '#f6f1ea', color: '#2b2118', borderRadius: 12, padding: 16 }}
    >
      <div
        style={{
          textAlign: 'center',
          fontSize: 12,
          letterSpacing: '0.04em',
          textTransform: 'uppercase',
          color: '#5e5046',
        }}
      >
        {storeName.replace(/\.myshopify\.com$/, '')}
      </div>
      <div style={{ fontSize: 14, marginTop: 8 }}>A video message from Ann, with a gift from your store</div>
      <div style={{ fontSize: 22, fontWeight: 700, margin: '4px 0 12px' }}>Happy birthday!</div>
      <div style={{ background: '#1f1712', borderRadius: 10, height: 120, display: 'grid', placeItems: 'center' }}>
        <span
          id="brand-preview-play"
          style={{
            width: 52,
            height: 52,
            borderRadius: '50%',
            background: accent,
            color: onAccent(accent),
            display: 'grid',
            placeItems: 'center',
            fontSize: 22,
          }}
        >
          ▶
        </span>
      </div>
    </div>
  );
}

/** The store's logo: its preview, an upload (PNG, JPEG or WebP; Doorstep re-encodes it) and removal. */
function LogoUpload({ logoUrl, onChange }: { logoUrl: string | null; onChange: (saved: SettingsJson) => void }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const run = async (work: () => Promise<SettingsJson>, done: string) => {
    setBusy(true);
    setError(undefined);
    try {
      onChange(await work());
      shopify.toast.show(done);
    } catch (failure) {
      setError(errorMessage(failure));
    } finally {
      setBusy(false);
    }
  };
  // An uploaded logo is served by this app, the admin page's own origin: previewed from there. An
  // address the merchant typed is not loaded here (the admin's policy allows images from Shopify
  // and this app only).
  const uploaded = logoUrl ? uploadedLogoPath(logoUrl) : null;
  const upload = (file: File | undefined) =>
    file && void run(() => apiUpload<SettingsJson>('/settings/logo', file), 'Logo saved');
  return (
    <BlockStack gap="200">
      <Text as="span">Logo</Text>
      {uploaded ? (
        <img src={uploaded} alt="Your store's logo" id="logo-preview" style={{ maxHeight: 60, maxWidth: 240 }} />
      ) : logoUrl ? (
        <Text as="p" tone="subdued">
          Your logo is the image at the address below.
        </Text>
      ) : (
        <Text as="p" tone="subdued">
          No logo: pages and e-mails show your store's name.
        </Text>
      )}
      <div style={{ maxWidth: 240 }}>
        <DropZone
          id="logo-file"
          accept="image/png,image/jpeg,image/webp"
          type="image"
          allowMultiple={false}
          disabled={busy}
          label="Upload a logo"
          labelHidden
          onDropAccepted={(files) => upload(files[0])}
        >
          <DropZone.FileUpload actionTitle={busy ? 'Saving…' : 'Upload a logo'} actionHint="PNG, JPEG or WebP" />
        </DropZone>
      </div>
      {logoUrl && (
        <InlineStack>
          <Button
            tone="critical"
            variant="plain"
            disabled={busy}
            onClick={() => void run(() => api<SettingsJson>('DELETE', '/settings/logo'), 'Logo removed')}
          >
            Remove the logo
          </Button>
        </InlineStack>
      )}
      {error && (
        <Text as="p" tone="critical" id="logo-error">
          {error}
        </Text>
      )}
    </BlockStack>
  );
}

function Credentials() {
  const credentials = useApi<CredentialsJson>('/credentials');
  const [confirming, setConfirming] = useState(false);
  const [rotating, setRotating] = useState(false);
  const [rotated, setRotated] = useState<RotatedCredentials>();
  const [error, setError] = useState<string>();

  const rotate = async () => {
    setRotating(true);
    setError(undefined);
    try {
      setRotated(await api<RotatedCredentials>('POST', '/credentials/rotate'));
      credentials.reload();
    } catch (failure) {
      setError(errorMessage(failure));
    } finally {
      setRotating(false);
      setConfirming(false);
    }
  };

  return (
    <Card>
      <BlockStack gap="300">
        {(credentials.error || error) && (
          <Banner tone="critical">
            <p>{credentials.error ?? error}</p>
          </Banner>
        )}
        {credentials.data && (
          <BlockStack gap="100">
            <Text as="p">
              App id: <code id="app-id">{credentials.data.app_id}</code>
            </Text>
            {credentials.data.api_key_hint && (
              <Text as="p" tone="subdued">
                Current key: {credentials.data.api_key_hint}
              </Text>
            )}
          </BlockStack>
        )}
        {rotated && (
          <Banner tone="warning" title="Your new API key — shown only this once">
            <BlockStack gap="200">
              <p>
                Copy it now and keep it safe: Doorstep does not store it and cannot show it again. The old key no longer
                works.
              </p>
              <code id="new-api-key">{rotated.api_key}</code>
            </BlockStack>
          </Banner>
        )}
        <InlineStack>
          <Button onClick={() => setConfirming(true)} disabled={!credentials.data}>
            Rotate key
          </Button>
        </InlineStack>
      </BlockStack>
      <Modal
        open={confirming}
        onClose={() => setConfirming(false)}
        title="Rotate the API key?"
        primaryAction={{ content: 'Rotate key', destructive: true, loading: rotating, onAction: () => void rotate() }}
        secondaryActions={[{ content: 'Cancel', onAction: () => setConfirming(false) }]}
      >
        <Modal.Section>
          <p>The current key stops working at once. Anything using it must be given the new key.</p>
        </Modal.Section>
      </Modal>
    </Card>
  );
}

function DataExports() {
  const exports = useApi<DataExportList>('/data-exports');
  const [error, setError] = useState<string>();

  /** A plain link cannot carry the session token, so the file is fetched and handed over as a blob. */
  const download = async (id: string) => {
    setError(undefined);
    try {
      const response = await authorizedFetch(`/shopify/api/data-exports/${encodeURIComponent(id)}`);
      if (!response.ok) throw new Error(`The export could not be downloaded (${response.status}).`);
      const url = URL.createObjectURL(await response.blob());
      const link = document.createElement('a');
      link.href = url;
      link.download = `doorstep-data-export-${id}.json`;
      link.click();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
    } catch (failure) {
      setError(errorMessage(failure));
    }
  };

  const rows = exports.data?.data ?? [];
  const timeZone = exports.data?.time_zone ?? 'UTC';
  return (
    <Card>
      <BlockStack gap="300">
        {(exports.error || error) && (
          <Banner tone="critical">
            <p>{exports.error ?? error}</p>
          </Banner>
        )}
        {exports.data && rows.length === 0 && (
          <Text as="p" tone="subdued">
            No customer has asked for their data.
          </Text>
        )}
        {rows.map((row) => (
          <InlineStack key={row.id} align="space-between" blockAlign="center">
            <Text as="span">
              {row.customer_id ? `Customer ${row.customer_id}` : 'A customer known by e-mail only'} ·{' '}
              {formatTime(row.created_at, timeZone)}
            </Text>
            <Button onClick={() => void download(row.id)}>Download</Button>
          </InlineStack>
        ))}
      </BlockStack>
    </Card>
  );
}
