import type { KeyObject } from 'node:crypto';
import { sendgridPublicKey } from './providers/sendgrid.ts';

/**
 * Which e-mail providers' event webhooks are on, with what to check their calls against
 * (docs/notifications.md "Bounces"). A provider left unconfigured has no route (404).
 */
export interface EmailEventConfig {
  /** POSTMARK_WEBHOOK_USERNAME / _PASSWORD: the Basic credentials put in the webhook URL at Postmark. */
  postmark: { username: string; password: string } | null;
  /** SES_SNS_TOPIC_ARNS: the SNS topics SES publishes bounces and complaints to; SES_SNS_CERT_HOSTS: whose certificates count. */
  ses: { topicArns: string[]; certHosts: string[] } | null;
  /** SENDGRID_WEBHOOK_PUBLIC_KEY: the Signed Event Webhook's verification key. */
  sendgrid: { publicKey: KeyObject } | null;
}

/** Amazon SNS's signing certificates are served from `sns.<region>.amazonaws.com`, over https. */
export const DEFAULT_SNS_CERT_HOSTS = ['sns.*.amazonaws.com'];

export class EmailEventConfigError extends Error {
  override name = 'EmailEventConfigError';
}

export function loadEmailEventConfig(env: NodeJS.ProcessEnv): EmailEventConfig {
  const problems: string[] = [];
  const value = (name: string) => env[name]?.trim() || undefined;

  const username = value('POSTMARK_WEBHOOK_USERNAME');
  const password = value('POSTMARK_WEBHOOK_PASSWORD');
  if (Boolean(username) !== Boolean(password))
    problems.push('POSTMARK_WEBHOOK_USERNAME and POSTMARK_WEBHOOK_PASSWORD must be set together');
  if (username?.includes(':')) problems.push('POSTMARK_WEBHOOK_USERNAME: must not contain ":"');
  if (password && password.length < 16) problems.push('POSTMARK_WEBHOOK_PASSWORD: must be at least 16 characters');

  const topicArns = (value('SES_SNS_TOPIC_ARNS') ?? '')
    .split(',')
    .map((arn) => arn.trim())
    .filter(Boolean);
  for (const arn of topicArns)
    if (!/^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]{1,256}$/.test(arn))
      problems.push(
        `SES_SNS_TOPIC_ARNS: ${JSON.stringify(arn)} is not an SNS topic ARN (arn:aws:sns:region:account:name)`,
      );
  const certHostsText = value('SES_SNS_CERT_HOSTS');
  const certHosts = certHostsText
    ? certHostsText
        .split(',')
        .map((host) => host.trim())
        .filter(Boolean)
    : DEFAULT_SNS_CERT_HOSTS;
  for (const host of certHosts) {
    const ok = host.includes('://') ? URL.canParse(host) : /^[a-z0-9*-]+(\.[a-z0-9*-]+)+$/i.test(host);
    if (!ok) problems.push(`SES_SNS_CERT_HOSTS: ${JSON.stringify(host)} is neither a host pattern nor an origin`);
  }

  let sendgrid: EmailEventConfig['sendgrid'] = null;
  const key = value('SENDGRID_WEBHOOK_PUBLIC_KEY');
  if (key) {
    try {
      sendgrid = { publicKey: sendgridPublicKey(key) };
    } catch {
      problems.push(
        "SENDGRID_WEBHOOK_PUBLIC_KEY: must be the Signed Event Webhook's ECDSA public key (base64, as SendGrid shows it)",
      );
    }
  }
  if (problems.length > 0) throw new EmailEventConfigError(problems.map((p) => `  ${p}`).join('\n'));
  return {
    postmark: username && password ? { username, password } : null,
    ses: topicArns.length > 0 ? { topicArns, certHosts } : null,
    sendgrid,
  };
}

/** Which are on, for the start-up log: never a credential. */
export function describeEmailEventConfig(config: EmailEventConfig): Record<string, string> {
  return {
    postmark: config.postmark ? 'on (Basic auth)' : 'off',
    ses: config.ses
      ? `on (${config.ses.topicArns.length} topic(s); certificates from ${config.ses.certHosts.join(', ')})`
      : 'off',
    sendgrid: config.sendgrid ? 'on (signed)' : 'off',
  };
}
