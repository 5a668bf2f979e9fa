/** --events and --type: event types of any shape a delivery may carry can be named exactly. */
import { describe, expect, it } from 'vitest';
import { eventTypePattern, parseEventFilter } from '../../src/listener/filter.js';

describe('event type patterns', () => {
  const odd = ['order-v2.delivered', 'Order Delivered', 'order,refunded', 'order.*', 'a\\b', ' padded ', 'ordre.livrée', 'x'];

  it('a type written by eventTypePattern matches that type and no other', () => {
    for (const type of odd) {
      const filter = parseEventFilter(eventTypePattern(type), '--type');
      expect(odd.filter(filter), type).toEqual([type]);
    }
    const several = parseEventFilter(['order,refunded', 'order.*'].map(eventTypePattern).join(','), '--type');
    expect([...odd, 'order.delivered'].filter(several)).toEqual(['order,refunded', 'order.*']);
  });

  it('lists and globs read as before', () => {
    const filter = parseEventFilter(' order.* , voucher.issued', '--type');
    expect(['order.delivered', 'voucher.issued', 'wallet.low'].filter(filter)).toEqual(['order.delivered', 'voucher.issued']);
    expect(() => parseEventFilter('wallet.*', '--type')).toThrow('--type: "wallet.*" matches no event type');
    expect(() => parseEventFilter(' , ', '--type')).toThrow('--type needs at least one event type');
  });
});
