import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.ts';
import { createEmailChannel } from '../../src/notifications/email.ts';
import { maskAddress } from '../../src/notifications/masked-address.ts';
import { createSmsChannel } from '../../src/notifications/sms.ts';

/** Issue 13 items 2 and 14: the outbox is private, and its log lines carry no address or subject. */
function capturedLogger() {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { logger: createLogger('debug', sink), text: () => lines.join('') };
}

let dir: string;
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('the outbox', () => {
  it('writes e-mails 0600 in a 0700 directory and logs only a masked address', async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'outbox-privacy-'));
    const outboxDir = path.join(dir, 'outbox');
    const log = capturedLogger();
    const email = createEmailChannel({
      smtpUrl: undefined,
      from: 'gifts@doorstep.test',
      outboxDir,
      logger: log.logger,
    });
    await email.send({
      to: 'grandpa.joe.private@example.com',
      subject: 'A video message from Annabel Private',
      text: 'Watch it: https://doorstep.test/watch/ord_secret',
      html: '<p>Watch it</p>',
      messageId: '<m1@doorstep.test>',
    });
    expect(fs.statSync(outboxDir).mode & 0o777).toBe(0o700);
    const [file] = fs.readdirSync(outboxDir);
    expect(fs.statSync(path.join(outboxDir, file!)).mode & 0o777).toBe(0o600);
    expect(log.text()).toContain('e-mail written to the outbox');
    expect(log.text()).toContain('g…@example.com');
    expect(log.text()).not.toMatch(/grandpa|Annabel|ord_secret/i);
  });

  it('writes SMS 0600 and logs only a masked number', async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'outbox-privacy-'));
    const outboxDir = path.join(dir, 'outbox');
    const log = capturedLogger();
    const sms = createSmsChannel({ provider: null, outboxDir, logger: log.logger });
    await sms.send({ to: '+14155550123', body: 'Annabel sent you a video', reference: 'ref1' });
    const [file] = fs.readdirSync(outboxDir);
    expect(fs.statSync(path.join(outboxDir, file!)).mode & 0o777).toBe(0o600);
    expect(log.text()).toContain('+1…23');
    expect(log.text()).not.toMatch(/4155550123|Annabel/);
  });
});

describe('maskAddress', () => {
  it.each([
    ['ann@example.com', 'a…@example.com'],
    ['+14155550123', '+1…23'],
    ['123', '…'],
  ])('%s → %s', (address, masked) => expect(maskAddress(address)).toBe(masked));
});

describe('logged errors', () => {
  it("keep the statement and SQLSTATE but never a database error's parameters or detail", () => {
    const log = capturedLogger();
    const error = Object.assign(new Error('duplicate key value violates unique constraint "x"'), {
      code: '23505',
      query: 'insert into orders (name, email) values ($1, $2)',
      params: ['Annabel Private', 'annabel.private@example.com'],
      detail: 'Key (email)=(annabel.private@example.com) already exists.',
    });
    log.logger.error({ err: error }, 'request failed');
    expect(log.text()).toContain('23505');
    expect(log.text()).toContain('insert into orders');
    expect(log.text()).not.toMatch(/annabel/i);
  });
});
