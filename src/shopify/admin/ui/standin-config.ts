/**
 * The App Bridge stand-in's configuration, written by the server as a global before the stand-in's
 * code (src/shopify/dev/app-bridge-standin.ts), and what it records for tests.
 */
export const STANDIN_CONFIG_GLOBAL = '__appBridgeStandinConfig';

/** A product as App Bridge's resource picker returns it (the fields the admin reads). */
export interface PickerProduct {
  id: string;
  title: string;
  variants: Array<{ id: string; title: string }>;
}

export interface StandinConfig {
  /** The app's secret the session tokens are signed with: the test or the public development one only. */
  apiSecret: string;
  /** What `resourcePicker` answers, whatever was asked. */
  products: PickerProduct[];
}

export interface StandinState {
  toasts: Array<{ message: string; isError: boolean }>;
  pickerCalls: unknown[];
}
