/** `orders get ID`: the order, its items, vouchers (codes masked) and fulfilment timeline. */
import { getOrder } from '../../api/orders.js';
import { err } from '../../core/io/io.js';
import { resolveOutput } from '../../core/output/options.js';
import { printedNoBody } from '../../core/output/no-body.js';
import type { Factory } from '../../core/run/factory.js';
import { maskedCodesLine } from './hint.js';
import type { GetFlags } from './index.js';
import { checkOrderId } from './order-args.js';
import { checkOrderFields, printOrder } from './render.js';

export type { GetFlags };

export async function run(f: Factory, id: string, flags: GetFlags): Promise<void> {
  const orderId = checkOrderId(id);
  const settings = resolveOutput(f.io, flags, f.globals().color !== false);
  if (await checkOrderFields(f.io, settings)) return;
  const client = await f.client();
  const res = await getOrder(client, orderId, { signal: f.io.signal });
  if (await printedNoBody(f.io, settings, res, `GET /orders/${orderId}`)) return;
  await printOrder(f.io, res.data, settings, { reveal: false, full: true, received: res.received });
  // With --json stderr carries nothing but a JSON error, as for orders create --json.
  if (f.io.stderrIsTTY && settings.format !== 'json' && res.data.vouchers.length > 0 && !settings.fields) {
    err(f.io, maskedCodesLine(f.globals(), orderId));
  }
}
