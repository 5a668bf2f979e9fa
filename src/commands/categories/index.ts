/** `vouchers categories list`. Light: the verb loads its implementation when it runs. */
import { addOutputOptions } from '../../core/output/options.js';
import type { RegisterCommand } from '../types.js';

export const registerCategories: RegisterCommand = (program, f) => {
  const categories = program.command('categories').description('Product categories open to your organisation');
  const list = categories.command('list').description('List the categories you may order from');
  addOutputOptions(list, 'list');
  list.addHelpText('after', `
Examples:
  $ vouchers categories list
  $ vouchers categories list --json
  $ vouchers categories list --output csv --fields category_id,name`);
  list.action(async (opts) => {
    const { run } = await import('./list.js');
    await run(f, opts);
  });
};
