import type { Db } from '../db/database.ts';
import type { Brand } from '../design/tokens.ts';
import { DEFAULT_LOCALE, type Locale } from '../i18n/locale.ts';
import { findAccount } from './accounts.ts';
import { findAccountSettings, type AccountSettings } from './settings.ts';

/** What a page or message says about the store a gift came from, and the language it says it in. */
export interface StoreBranding {
  name: string;
  /**
   * The store's logo (account settings: a URL the merchant gave, or their upload's); null
   * when neither is known, and then the name alone is shown.
   */
  logoUrl: string | null;
  /** The account's language (src/accounts/locale.ts): its pages' and messages' words. */
  locale: Locale;
  /** The store's accent and font (src/design/tokens.ts), each null for Doorstep's. */
  brand: Brand;
  /** The e-mails' Reply-To, or null. */
  contactEmail: string | null;
}

/**
 * Only when the account is gone (every account has a name; accounts.ts requires one): the service
 * that sends the message is then the truthful name to give.
 */
export const DEFAULT_STORE_NAME = 'Doorstep';

const MYSHOPIFY_DOMAIN = /^([a-z0-9][a-z0-9-]{0,62})\.myshopify\.com$/i;

/**
 * The store's name is its account's name: an API account's own, a Shopify shop's name as Shopify
 * gave it at install (src/shopify/auth/install.ts). A shop whose name could not be read was named after
 * its domain; its handle, in words, reads better in a message than the domain does.
 */
export function storeBranding(
  account: { name: string; locale: Locale } | undefined,
  settings?: Pick<AccountSettings, 'logoUrl' | 'accentColor' | 'font' | 'contactEmail'>,
): StoreBranding {
  const logoUrl = settings?.logoUrl ?? null;
  const brand: Brand = { accentColor: settings?.accentColor ?? null, font: settings?.font ?? null };
  const contactEmail = settings?.contactEmail ?? null;
  const locale = account?.locale ?? DEFAULT_LOCALE;
  const name = account?.name.trim() ?? '';
  const handle = MYSHOPIFY_DOMAIN.exec(name)?.[1];
  if (handle) {
    const words = handle.split('-').filter(Boolean);
    return { name: words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join(' '), logoUrl, locale, brand, contactEmail };
  }
  return { name: name || DEFAULT_STORE_NAME, logoUrl, locale, brand, contactEmail };
}

/** One read of the account (its name and language) and one of its settings (its logo). */
export async function findStoreBranding(db: Db, accountId: string): Promise<StoreBranding> {
  const [account, settings] = await Promise.all([findAccount(db, accountId), findAccountSettings(db, accountId)]);
  return storeBranding(account, settings);
}
