import { describe, expect, it } from 'vitest';
import { transition } from '../../src/orders/state-machine.ts';

describe('order state machine', () => {
  it('records a video: created → recorded', () => {
    expect(transition({ status: 'created', sent: false }, 'video_recorded')).toEqual({
      kind: 'moved',
      next: 'recorded',
    });
  });

  it('delivers from created and from recorded', () => {
    expect(transition({ status: 'created', sent: false }, 'delivered')).toEqual({ kind: 'moved', next: 'delivered' });
    expect(transition({ status: 'recorded', sent: false }, 'delivered')).toEqual({ kind: 'moved', next: 'delivered' });
  });

  it('never leaves delivered: a second delivery or a late recording changes nothing', () => {
    expect(transition({ status: 'delivered', sent: false }, 'delivered')).toEqual({ kind: 'unchanged' });
    expect(transition({ status: 'delivered', sent: true }, 'video_recorded')).toEqual({ kind: 'unchanged' });
  });

  it('cancels until the video is sent, and not after', () => {
    expect(transition({ status: 'delivered', sent: false }, 'cancelled')).toEqual({ kind: 'moved', next: 'cancelled' });
    expect(transition({ status: 'delivered', sent: true }, 'cancelled').kind).toBe('rejected');
  });

  it('keeps a cancelled order cancelled', () => {
    expect(transition({ status: 'cancelled', sent: false }, 'delivered').kind).toBe('rejected');
    expect(transition({ status: 'cancelled', sent: false }, 'video_recorded').kind).toBe('rejected');
    expect(transition({ status: 'cancelled', sent: false }, 'cancelled')).toEqual({ kind: 'unchanged' });
  });
});
