/** Integer minor units and the currency's minor digits (ISO 4217, via Intl). */
const digitsCache = new Map<string, number>();

export function minorDigits(currency: string): number {
  let d = digitsCache.get(currency);
  if (d === undefined) {
    try {
      d = new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
    } catch {
      d = 2;
    }
    digitsCache.set(currency, d);
  }
  return d;
}

/** Major units (JSON number) → integer minor units. Throws when the amount has more digits than the currency allows. */
export function toMinor(amount: number, currency: string): number {
  const digits = minorDigits(currency);
  const scaled = Math.round(amount * 10 ** digits);
  if (Math.abs(scaled / 10 ** digits - amount) > 1e-9) {
    throw new RangeError(`${amount} has more than ${digits} decimal digits, the most ${currency} allows`);
  }
  return scaled;
}

/** Integer minor units → major units as a JSON number. */
export function fromMinor(minor: number, currency: string): number {
  const digits = minorDigits(currency);
  return Number((minor / 10 ** digits).toFixed(digits));
}

/** "12.50 USD", "1000 JPY": always the currency's minor digits. */
export function formatMoney(amount: number, currency: string): string {
  return `${amount.toFixed(minorDigits(currency))} ${currency}`;
}
