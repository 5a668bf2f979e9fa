/** --events and --type: event types of any shape a delivery may carry can be named exactly. */
import { describe, expect, it } from 'vitest';
import { eventTypePattern, expandEventPatterns, parseEventFilter, unknownEventTypesNote } from '../../src/listener/filter.js';
import { runCli, tempConfigDir } from '../helpers/run-cli.js';

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

describe('an event type slipped', () => {
  it('a filter keeps it as given and its note names the type it likely means', () => {
    expect(parseEventFilter('order.deliverd', '--type')('order.deliverd')).toBe(true);
    expect(unknownEventTypesNote('order.deliverd,order.*,wallet.low', '--type')).toMatch(
      /^Note: --type "order\.deliverd" \(did you mean order\.delivered\?\), "wallet\.low": not event types this version knows \(order\.created, .*\); kept as given/,
    );
    expect(unknownEventTypesNote('order.*,voucher.issued')).toBeUndefined();
    expect(unknownEventTypesNote(undefined)).toBeUndefined();
  });

  it("webhooks register's refusal names the type it likely means", () => {
    expect(() => expandEventPatterns('order.deliverd')).toThrow(
      expect.objectContaining({ hint: expect.stringMatching(/^did you mean order\.delivered\? \(known types: order\.created, /) }),
    );
  });

  it('events list --type says so on stderr, as a notice under --json', async () => {
    const dir = tempConfigDir();
    const table = await runCli(['events', 'list', '--type', 'order.deliverd'], { configDir: dir });
    expect(table.code, table.stderr).toBe(0);
    expect(table.stderr).toContain('Note: --type "order.deliverd" (did you mean order.delivered?): not an event type this version knows');
    const json = await runCli(['events', 'list', '--type', 'order.deliverd', '--json'], { configDir: dir });
    expect(JSON.parse(json.stderr.trim())).toMatchObject({ notice: { code: 'UNKNOWN_FILTER_VALUE' } });
    expect(JSON.parse(json.stdout)).toEqual([]);
  });
});
