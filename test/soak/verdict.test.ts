import { describe, expect, it } from 'vitest';
import { judgeDelivery, judgeMemory, type ExpectedOrder } from '../../scripts/soak/verdict.ts';

const order = (n: number, overrides: Partial<ExpectedOrder> = {}): ExpectedOrder => ({
  orderId: `ord_${n}`,
  kind: 'api UPS (pushed), e-mail + SMS',
  email: `r${n}@soak.example`,
  phone: `+1555000000${n}`,
  sender: `s${n}@soak.example`,
  senderMessages: 1,
  ...overrides,
});
const sent = (...ids: string[]) => new Map(ids.map((id) => [id, '2026-12-01T10:00:00.000Z']));

describe('the soak’s delivery verdict', () => {
  it('passes when every recipient got one message and every sender its notes', () => {
    const verdict = judgeDelivery(
      [order(1)],
      [
        { to: 'r1@soak.example', subject: 'video' },
        { to: '+15550000001', subject: 'video sms' },
        { to: 's1@soak.example', subject: 'sent note' },
      ],
      sent('ord_1'),
    );
    expect(verdict).toMatchObject({ orders: 1, recipientMessages: 2, senderMessages: 1, lost: [], duplicated: [] });
  });

  it('counts a channel that never arrived, an order without sent_at and a missing sender note as lost', () => {
    const verdict = judgeDelivery(
      [order(1), order(2, { phone: null, senderMessages: 2 })],
      [
        { to: 'r1@soak.example', subject: 'video' },
        { to: 's1@soak.example', subject: 'sent note' },
        { to: 'r2@soak.example', subject: 'video' },
        { to: 's2@soak.example', subject: 'record link' },
      ],
      new Map([
        ['ord_1', '2026-12-01T10:00:00.000Z'],
        ['ord_2', null],
      ]),
    );
    expect(verdict.lost).toEqual([
      'ord_1 (api UPS (pushed), e-mail + SMS): nothing reached +15550000001',
      'ord_2 (api UPS (pushed), e-mail + SMS): sent_at never set',
      'ord_2 (api UPS (pushed), e-mail + SMS): the sender got 1 of 2 notes',
    ]);
    expect(verdict.duplicated).toEqual([]);
  });

  it('counts a second message to a recipient, and the same note twice to a sender, as duplicated', () => {
    const verdict = judgeDelivery(
      [order(1, { phone: null })],
      [
        { to: 'r1@soak.example', subject: 'video' },
        { to: 'r1@soak.example', subject: 'video' },
        { to: 's1@soak.example', subject: 'sent note' },
        { to: 's1@soak.example', subject: 'sent note' },
      ],
      sent('ord_1'),
    );
    expect(verdict.duplicated).toEqual([
      'ord_1 (api UPS (pushed), e-mail + SMS): r1@soak.example got 2 messages',
      's1@soak.example got "sent note" 2 times',
    ]);
    expect(verdict.lost).toEqual([]);
  });
});

describe('the soak’s memory verdict', () => {
  const MB = 1024 * 1024;
  const samples = [100, 110, 120, 300].map((mb, i) => ({ atMs: i * 20_000, rss: mb * MB }));

  it('takes the median of the first minute as the start and allows the larger of the two tolerances', () => {
    const flat = judgeMemory({ name: 'web', samples, endRss: 170 * MB }, 300_000, { ratio: 0.5, bytes: 64 * MB });
    expect(flat).toMatchObject({ startRss: 115 * MB, grew: false });
    const grown = judgeMemory({ name: 'web', samples, endRss: 180 * MB }, 300_000, { ratio: 0.5, bytes: 64 * MB });
    expect(grown.grew).toBe(true);
    expect(judgeMemory({ name: 'web', samples, endRss: 180 * MB }, 300_000, { ratio: 0.1, bytes: 70 * MB }).grew).toBe(
      false,
    );
  });

  it('uses the first half of a run shorter than two minutes', () => {
    const verdict = judgeMemory({ name: 'web', samples, endRss: 100 * MB }, 60_000, { ratio: 0.5, bytes: 0 });
    expect(verdict.startRss).toBe(105 * MB);
  });
});

describe('a send the system holds as uncertain', () => {
  it('is reported as held, not lost, when its message never arrived', () => {
    const verdict = judgeDelivery(
      [order(1, { phone: null })],
      [{ to: 'r1@soak.example', subject: 'video' }],
      sent('ord_1'),
      new Set(['s1@soak.example']),
    );
    expect(verdict.lost).toEqual([]);
    expect(verdict.held).toEqual(['ord_1 (api UPS (pushed), e-mail + SMS): the sender got 0 of 1 notes']);
  });

  it('holds the whole order when its gift send is uncertain: no sent_at, no "sent" note, by design', () => {
    const verdict = judgeDelivery(
      [order(1, { phone: null }), order(2, { phone: null })],
      [],
      new Map([
        ['ord_1', null],
        ['ord_2', null],
      ]),
      new Set(['r1@soak.example']),
    );
    expect(verdict.held).toEqual([
      'ord_1 (api UPS (pushed), e-mail + SMS): sent_at never set',
      'ord_1 (api UPS (pushed), e-mail + SMS): nothing reached r1@soak.example',
      'ord_1 (api UPS (pushed), e-mail + SMS): the sender got 0 of 1 notes',
    ]);
    // The other order's send is not uncertain: that is a loss.
    expect(verdict.lost).toEqual([
      'ord_2 (api UPS (pushed), e-mail + SMS): sent_at never set',
      'ord_2 (api UPS (pushed), e-mail + SMS): nothing reached r2@soak.example',
      'ord_2 (api UPS (pushed), e-mail + SMS): the sender got 0 of 1 notes',
    ]);
  });
});
