/**
 * Voucher codes never leave the CLI unasked: an order's vouchers lose `code` and `pin`
 * (keeping `code_last4`, as GET /orders/{id} shows them), and a note quoting one is masked, unless
 * the user asked to reveal.
 * Secrets never leave it.
 */
import type { Order, OrderCodes, OrderVoucher, VoucherCode } from '../../contract/orders.js';
import { codeTail, maskCode } from '../../core/output/format.js';
import { maskCodes, maskSecrets, rowCodesMasked } from '../../core/output/mask.js';
import { codeFieldAt, codeText } from '../../core/output/code-fields.js';
import type { Column } from '../../core/output/print.js';
import { moreCodes } from '../../api/order-read.js';

export function redactVoucher(v: OrderVoucher): OrderVoucher {
  const { code, pin: _pin, ...rest } = v;
  const last4 = v.code_last4 ?? (typeof code === 'string' && codeTail(code) !== '' ? codeTail(code) : undefined);
  // A server's own names for a code or pin (`redemption_code`, `card_number`…) are masked too.
  const masked = maskCodes(rest, false, { voucher: true });
  return last4 === undefined ? masked : { ...masked, code_last4: last4 };
}

/**
 * The order as it may be printed: codes masked unless `reveal`; a field named as a secret
 * (a server's own `webhook_secret`, anywhere in the order) always, as `--reveal` shows codes only.
 */
export function redactOrder(order: Order, reveal: boolean): Order {
  if (reveal) return maskSecrets(order);
  // Masked over the whole order first (when it may hold a code: most listed orders do not), so
  // that a note or message quoting a voucher's code is masked too.
  return maskSecrets({ ...rowCodesMasked(order), vouchers: order.vouchers.map(redactVoucher) });
}

/** The code as shown: in full when revealed, else the last 4 behind dots. */
export function shownCode(v: { code?: string | null; code_last4?: string | null }, reveal: boolean): string {
  if (v.code && reveal) return v.code;
  if (v.code) return maskCode(v.code);
  // The server's own last characters are shown as it gave them.
  return v.code_last4 ? `••••••••${v.code_last4}` : '';
}

export function shownPin(pin: string | null | undefined, reveal: boolean): string | null {
  if (!pin) return null;
  return reveal ? pin : '••••';
}

/** The secure endpoint's answer with codes and pins masked unless `reveal`. */
export function redactCodes(codes: OrderCodes, reveal: boolean): OrderCodes {
  if (reveal) return codes;
  // Every code-like field, under whatever name the server used, not only `code` and `pin`.
  return {
    ...codes,
    data: codes.data.map((c: VoucherCode) => ({
      ...maskCodes(c, false, { voucher: true }),
      code: maskCode(c.code),
      pin: shownPin(c.pin, false),
    })),
  };
}

/** Whether any voucher still carries its full code. */
export function hasCodes(order: Order): boolean {
  return order.vouchers.some((v) => typeof v.code === 'string' && v.code.length > 0);
}

/**
 * One column for each code the `vouchers` carry beside code and pin (a card number, a
 * security code, a redemption link), named by the server's field. The names come from the
 * vouchers as read (before masking); a column shows the field of the row printed, which is
 * masked unless the codes are revealed.
 */
export function moreCodeColumns<T extends object>(vouchers: readonly (OrderVoucher | VoucherCode)[]): Column<T>[] {
  const keys: string[] = [];
  for (const v of vouchers) for (const { key } of moreCodes(v)) if (!keys.includes(key)) keys.push(key);
  return keys.map((key) => ({
    field: key,
    get: (row: T) => codeText(codeFieldAt(row as Record<string, unknown>, key).value) ?? '',
    shrink: false,
  }));
}
