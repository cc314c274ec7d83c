import { randomBytes } from 'node:crypto';
import type { Config, OperatorCredentials } from '../config.ts';
import { readOrCreateSecretFile } from '../process/private-dir.ts';

export const OPERATOR_PASSWORD_FILE = 'operator-password';

/**
 * The operator's credentials for this process. OPERATOR_PASSWORD wins. In development (one person's
 * machine, whatever its database) a random password is generated once and kept in
 * `DATA_DIR/operator-password`, readable by its owner only, so /metrics and the queue dashboard work
 * out of the box without a password ever appearing in a log. In production with no password the
 * answer is null: those endpoints then say 503 "not configured" rather than inventing a secret
 * nobody knows on a fleet of processes.
 */
export function resolveOperatorCredentials(config: Pick<Config, 'operator' | 'production' | 'dataDir'>): {
  credentials: OperatorCredentials | null;
  generatedFile: string | null;
} {
  if (config.operator) return { credentials: config.operator, generatedFile: null };
  if (config.production) return { credentials: null, generatedFile: null };
  const { text, file } = readOrCreateSecretFile(config.dataDir, OPERATOR_PASSWORD_FILE, () =>
    randomBytes(24).toString('base64url'),
  );
  const password = text.trim();
  return { credentials: { username: 'operator', password }, generatedFile: file };
}
