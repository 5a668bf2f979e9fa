/**
 * A field's camelCase twin: the name a server writing camelCase gives a field the contract
 * spells in snake_case (`order_id` → `orderId`). Read everywhere a field is looked for under
 * both spellings.
 */
export function camelTwin(name: string): string {
  return name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}
