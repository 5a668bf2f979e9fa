/**
 * `ID[:DENOMINATION]`, the product certify orders for a role (`--product ROLE=…`, or the
 * profile's certify.product.ROLE): the denomination is what follows the last colon when it
 * reads as a number (an id may itself hold colons); a number that is not a positive amount
 * (`-5`, `0`, `1e3`, a decimal comma: `25,50`) is refused, never taken as part of the id.
 */
import { UsageError } from '../errors/index.js';

export function parseProductValue(text: string, what: string, hint: string): { id: string; denomination?: number } {
  const value = text.trim();
  const colon = value.lastIndexOf(':');
  const tail = colon >= 0 ? value.slice(colon + 1).trim() : '';
  let id = value;
  let denomination: number | undefined;
  if (colon >= 0 && /^\d+(\.\d+)?$/.test(tail)) {
    id = value.slice(0, colon).trim();
    denomination = Number(tail);
    if (!(denomination > 0)) throw new UsageError(`${what}: the denomination must be above 0`, hint);
  } else if (colon >= 0 && /^[-+]?(\d|[.,]\d)[\d.,]*(e[-+]?\d+)?$/i.test(tail)) {
    throw new UsageError(`${what}: the denomination ${JSON.stringify(tail)} is not a positive amount (write it as 25 or 25.50)`, hint);
  } else if (colon === value.length - 1 && colon >= 0) {
    throw new UsageError(`${what}: no denomination after the colon`, hint);
  }
  if (id === '') throw new UsageError(`${what}: no product id`, hint);
  return denomination === undefined ? { id } : { id, denomination };
}
