/** `vouchers products list|get`. Light: each verb loads its implementation when it runs. */
import { addOutputOptions } from '../../core/output/options.js';
import type { Command, FlagsOf } from '../../core/run/commander.js';
import { runVerb, type RegisterCommand } from '../types.js';

function declareList(products: Command) {
  const list = products
    .command('list')
    .alias('ls')
    .description('List the products you may order, optionally filtered')
    .option('--currency <code>', 'only products in this currency (ISO 4217, e.g. USD)')
    .option('--country <cc>', 'only products redeemable in this country (ISO 3166 alpha-2, e.g. US)')
    .option('--category <id>', 'only products of this category (see vouchers categories list)')
    .option('--search <text>', 'only products whose id, name or brand holds this text (case aside; several words: each must be found)');
  return addOutputOptions(list, 'list');
}
export type ProductsListOptions = FlagsOf<typeof declareList>;

function declareGet(products: Command) {
  const get = products
    .command('get')
    .description('Show one product: every denomination, availability with cached stock, expiry policy')
    .argument('<product_id>', 'product id, e.g. sbx-instant');
  return addOutputOptions(get, 'record');
}
export type ProductsGetOptions = FlagsOf<typeof declareGet>;

export const registerProducts: RegisterCommand = (program, f, seam) => {
  const products = program.command('products').description('Browse the catalog: products (SKUs), denominations, availability, expiry');

  const list = declareList(products);
  list.addHelpText(
    'after',
    `
Denominations cut short by the server end in "…": see them all with vouchers products get ID.
--output csv: product_id, name, vendor, currency, countries and denominations (values separated
by spaces, e.g. 10 25 50 100), denominations_truncated (true when the server cut the list),
expiry_policy (in words). --output json or ndjson carry the lists and the policy as JSON.
--search is matched by this command over every page (the API has no search parameter);
when no product matches, it says so with a near id, name or brand, and exits 4 (SEARCH_NO_MATCH).

Examples:
  $ vouchers products list
  $ vouchers products list --currency EUR --country DE
  $ vouchers products list --category sandbox --json
  $ vouchers products list --search northwind --currency USD
  $ vouchers products list --output csv --fields product_id,name,currency`,
  );
  list.action(async (opts, command) => {
    await runVerb(seam, command, { flags: opts }, async () => (await import('./list.js')).run(f, opts));
  });

  const get = declareGet(products);
  get.addHelpText(
    'after',
    `
Examples:
  $ vouchers products get sbx-instant
  $ vouchers products get sbx-async --json`,
  );
  get.action(async (productId, opts, command) => {
    await runVerb(seam, command, { args: [productId], flags: opts }, async () => (await import('./get.js')).run(f, productId, opts));
  });
};
