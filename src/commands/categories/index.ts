/** `vouchers categories list`. Light: the verb loads its implementation when it runs. */
import { addOutputOptions } from '../../core/output/options.js';
import type { Command, FlagsOf } from '../../core/run/commander.js';
import { runVerb, type RegisterCommand } from '../types.js';

function declareList(categories: Command) {
  const list = categories.command('list').alias('ls').description('List the categories you may order from');
  return addOutputOptions(list, 'list');
}
export type CategoriesListOptions = FlagsOf<typeof declareList>;

export const registerCategories: RegisterCommand = (program, f, seam) => {
  const categories = program.command('categories').description('Product categories open to your organisation');
  const list = declareList(categories);
  list.addHelpText(
    'after',
    `
Examples:
  $ vouchers categories list
  $ vouchers categories list --json
  $ vouchers categories list --output csv --fields category_id,name`,
  );
  list.action(async (opts, command) => {
    await runVerb(seam, command, { flags: opts }, async () => (await import('./list.js')).run(f, opts));
  });
};
