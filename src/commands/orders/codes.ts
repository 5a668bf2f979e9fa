/**
 * `orders codes ID`: the secure code endpoint (GET /orders/{id}/vouchers, recorded by the
 * server). Codes and pins are masked unless --reveal; --codes-out writes them in full to a
 * new 0600 file while stdout stays masked.
 */
import { getOrderCodes } from '../../api/orders.js';
import type { VoucherCode } from '../../contract/orders.js';
import { assertCodesFileFree, writeCodesFile } from '../../core/io/codes-file.js';
import { err } from '../../core/io/io.js';
import { resolveOutput, type OutputFlags } from '../../core/output/options.js';
import { handleFieldsFlag, printJson, printList, type Column } from '../../core/output/print.js';
import type { Factory } from '../../factory.js';
import { callExtension } from './extension.js';
import { checkOrderId } from './order-args.js';
import { redactCodes } from './redact.js';

export interface CodesFlags extends OutputFlags {
  reveal?: boolean;
  codesOut?: string;
}

const COLUMNS: Column<VoucherCode>[] = [
  { field: 'voucher_id' },
  { field: 'product_id', header: 'PRODUCT' },
  { field: 'denomination', align: 'right' },
  { field: 'expiry' },
  { field: 'code' },
  { field: 'pin' },
];

export async function run(f: Factory, id: string, flags: CodesFlags): Promise<void> {
  const { io } = f;
  const orderId = checkOrderId(id);
  const reveal = Boolean(flags.reveal);
  const settings = resolveOutput(io, flags, f.globals().color !== false);
  if (await handleFieldsFlag(io, settings, COLUMNS.map((c) => c.field))) return;
  if (flags.codesOut !== undefined) await assertCodesFileFree(flags.codesOut, io.cwd);
  const client = await f.client();
  const res = await callExtension(client, 'the secure code endpoint (GET /orders/{id}/vouchers)', orderId,
    () => getOrderCodes(client, orderId, { signal: io.signal }));
  const codes = res.data;
  if (flags.codesOut !== undefined) {
    const written = await writeCodesFile(flags.codesOut, io.cwd, codes.data.map((c) => ({
      order_id: codes.order_id, voucher_id: c.voucher_id, product_id: c.product_id, denomination: c.denomination, expiry: c.expiry, code: c.code, pin: c.pin,
    })));
    err(io, `Wrote ${written.count} code${written.count === 1 ? '' : 's'} to ${written.path} (mode 0600)${res.traceId ? ` · trace ${res.traceId}` : ''}\n`);
  }
  const shown = redactCodes(codes, reveal);
  if (settings.format === 'json') {
    const pick = (c: VoucherCode) => (settings.fields ? Object.fromEntries(settings.fields.map((k) => [k, c[k]])) : c);
    await printJson(io, { ...shown, data: shown.data.map(pick), revealed: reveal });
  } else {
    await printList(io, shown.data, COLUMNS, settings, { empty: `Order ${orderId} has no issued vouchers yet.` });
  }
  if (!reveal && flags.codesOut === undefined && shown.data.length > 0) {
    err(io, `Codes are masked: add --reveal to show them, or --codes-out FILE to save them (mode 0600)${res.traceId ? ` · trace ${res.traceId}` : ''}\n`);
  }
}
