/** An answer of the sandbox: JSON (Shopify's APIs) or a page (the approval page) or a redirect. */
export interface SandboxAnswer {
  status: number;
  body?: unknown;
  html?: string;
  location?: string;
}
