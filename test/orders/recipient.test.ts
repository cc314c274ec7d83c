import { describe, expect, it } from 'vitest';
import { sendMethodReaching } from '../../src/orders/recipient.ts';

describe('sendMethodReaching', () => {
  it('sends by the one destination there is', () => {
    expect(sendMethodReaching({ email: true, phone: false })).toBe('email');
    expect(sendMethodReaching({ email: false, phone: true })).toBe('sms');
  });

  it('with both, uses the method given for both (a shop default), else both channels', () => {
    expect(sendMethodReaching({ email: true, phone: true })).toBe('email_and_sms');
    expect(sendMethodReaching({ email: true, phone: true }, 'sms')).toBe('sms');
  });

  it('has no method without a destination', () => {
    expect(sendMethodReaching({ email: false, phone: false })).toBeNull();
  });
});
