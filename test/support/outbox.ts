import fs from 'node:fs';
import path from 'node:path';
import { eventually } from './workers.ts';

/**
 * The e-mails the embedded defaults wrote (no SMTP_URL: `.eml` files in `DATA_DIR/outbox`), as
 * text, raw (quoted-printable bodies: `decodedMail` from mail-server.ts undoes them).
 */
export function outboxMails(dataDir: string): string[] {
  const outbox = path.join(dataDir, 'outbox');
  if (!fs.existsSync(outbox)) return [];
  return fs
    .readdirSync(outbox)
    .filter((file) => file.endsWith('.eml'))
    .map((file) => fs.readFileSync(path.join(outbox, file), 'utf8'));
}

/** The first outbox e-mail `wanted` accepts, once it is there. */
export function outboxMail(
  dataDir: string,
  wanted: (mail: string) => boolean,
  what: string,
  timeoutMs = 60_000,
): Promise<string> {
  return eventually(async () => outboxMails(dataDir).find(wanted), timeoutMs, what);
}
