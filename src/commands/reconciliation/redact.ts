/**
 * A drift's two sides, `our_allocation` and `vendor_record`, are the voucher itself in the
 * API document ("voucher allocated by the service", "voucher in the vendor's record"): our
 * sandbox puts the voucher's id there, a real service may put its code, as a string or as
 * an object. Unless the user asks to reveal, what is not an id is masked as codes are.
 */
import { ID_PREFIXES, idPattern } from '../../contract/common.js';
import { maskCode } from '../../core/output/format.js';
import { maskCodes } from '../../core/output/mask.js';
import { mapOwnFields } from '../../core/own-field.js';

/** The fields of a drift that hold a voucher. */
const VOUCHER_FIELDS = new Set(['our_allocation', 'vendor_record']);

const IDS = ID_PREFIXES.map(idPattern);

/**
 * Whether a string a voucher's field holds is shown as it is: an id of a shape the client
 * accepts (`vch_…`, `ord_…`), or words in lower case (`no vendor record`), which no voucher
 * code is.
 */
function shownAsIs(v: string): boolean {
  return IDS.some((re) => re.test(v)) || /^[a-z]+(?: [a-z]+)+$/.test(v);
}

/**
 * A voucher as it may be shown: an id as it is; another string or a number masked to its
 * last 4, as codes are; an object read as a voucher record (`{voucher_id, code}`, `{value}`:
 * its code's fields masked); each of a list so.
 */
function shownVoucher(v: unknown, depth: number): unknown {
  if (v === null || v === undefined || v === '') return v;
  if (typeof v === 'string') return shownAsIs(v) ? v : maskCode(v);
  if (typeof v === 'number') return maskCode(v);
  if (Array.isArray(v)) return depth > 32 ? [] : v.map((x) => shownVoucher(x, depth + 1));
  if (typeof v === 'object') return maskCodes({ voucher: v }).voucher;
  return v;
}

/**
 * The report (of any shape) with the vouchers of its drifts masked, wherever such a field
 * sits; `masked` says whether anything was. With `reveal`, the report as received.
 */
export function redactReport(report: unknown, reveal: boolean): { report: unknown; masked: boolean } {
  if (reveal) return { report, masked: false };
  const walk = (value: unknown, depth: number): unknown => {
    if (depth > 32 || value === null || typeof value !== 'object') return value;
    if (Array.isArray(value)) return value.map((v) => walk(v, depth + 1));
    return mapOwnFields(value, (v, k) => (VOUCHER_FIELDS.has(k) ? shownVoucher(v, depth + 1) : walk(v, depth + 1)));
  };
  // Then every code-like field elsewhere (a `code`, a `pin` under any name), as `vouchers api` masks them.
  const shown = maskCodes(walk(report, 0));
  return { report: shown, masked: JSON.stringify(shown) !== JSON.stringify(report) };
}
