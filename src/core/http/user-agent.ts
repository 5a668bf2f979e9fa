/** `User-Agent: vouchers/<version>`. */
import { VERSION } from '../version.js';

export function userAgent(): string {
  return `vouchers/${VERSION}`;
}
