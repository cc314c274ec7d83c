import { onServer } from '../../test/support/database.ts';

/**
 * A fresh database beside the one at `serverUrl` (same server and user), dropped again by `drop`.
 * A bench script that writes rows it would otherwise have to delete again measures in one of these:
 * deleting them from the caller's database is slow (foreign-key checks) and leaves its tables changed
 * for the steps after it. `purpose` names the script in the database's name and in the error.
 */
export async function scratchDatabase(
  serverUrl: string,
  purpose: string,
): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `doorstep_${purpose.replace(/[^a-z0-9]/gi, '_').toLowerCase()}_${process.pid}`;
  const admin = (statement: string) => onServer(serverUrl, statement);
  try {
    await admin(`create database ${name}`);
  } catch (error) {
    throw new Error(
      `the ${purpose} bench measures in a scratch database of its own and could not create one on DATABASE_URL's server (the user needs CREATEDB): ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`drop database if exists ${name}`) };
}
