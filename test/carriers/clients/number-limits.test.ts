import { describe, expect, it } from 'vitest';
import { CARRIER_NUMBER_LIMITS, trackWithinLimits } from '../../../src/carriers/clients/number-limits.ts';
import { emptyResult } from '../../../src/carriers/clients/results.ts';

/** What the carriers' OpenAPI descriptions (test/fixtures/carriers/) say they take as a number. */
describe('carrier number limits', () => {
  it.each([
    ['ups', '1Z12', false],
    ['ups', '1Z999AA10123456784', true],
    ['ups', 'X'.repeat(34), true],
    ['ups', 'X'.repeat(35), false],
    ['usps', '123', false],
    ['usps', '9400', true],
    ['usps', 'NOT-A-USPS-NUMBER!', false],
    ['usps', '9'.repeat(34), true],
    ['usps', '9'.repeat(35), false],
  ] as const)('%s takes %s: %s', (carrier, number, taken) => {
    expect(CARRIER_NUMBER_LIMITS[carrier]!.accepts(number)).toBe(taken);
  });

  it('sends only the numbers the carrier takes, and answers the others in place, not found with the rule', async () => {
    const sent: string[][] = [];
    const results = await trackWithinLimits(
      'usps',
      ['BAD!', '9400111899223197', '12', '9405511899223197'],
      async (numbers) => {
        sent.push(numbers);
        return numbers.map((number) => emptyResult(number, 'in_transit'));
      },
    );
    expect(sent).toEqual([['9400111899223197', '9405511899223197']]);
    expect(results.map((result) => [result.trackingNumber, result.status])).toEqual([
      ['BAD!', 'not_found'],
      ['9400111899223197', 'in_transit'],
      ['12', 'not_found'],
      ['9405511899223197', 'in_transit'],
    ]);
    expect(results[0]!.description).toBe(CARRIER_NUMBER_LIMITS.usps!.rule);
  });

  it('makes no call when no number is one the carrier takes, and leaves carriers without published limits alone', async () => {
    let calls = 0;
    const track = async (numbers: string[]) => {
      calls++;
      return numbers.map((number) => emptyResult(number, 'in_transit'));
    };
    expect((await trackWithinLimits('ups', ['1Z12'], track)).map((result) => result.status)).toEqual(['not_found']);
    expect(calls).toBe(0);
    expect((await trackWithinLimits('fedex', ['1'], track)).map((result) => result.status)).toEqual(['in_transit']);
    expect(calls).toBe(1);
  });
});
