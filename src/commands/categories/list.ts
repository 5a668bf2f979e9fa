/** `vouchers categories list`: GET /categories. */
import { listCategories } from '../../api/catalog.js';
import type { Category } from '../../contract/catalog.js';
import { handleFieldsFlag, printList, type Column } from '../../core/output/print.js';
import { resolveOutput } from '../../core/output/options.js';
import type { Factory } from '../../core/run/factory.js';
import type { CategoriesListOptions } from './index.js';

export type { CategoriesListOptions };

const COLUMNS: Column<Category>[] = [
  { field: 'category_id', header: 'ID' },
  { field: 'name', header: 'NAME', shrink: true },
  { field: 'description', header: 'DESCRIPTION', shrink: true },
];

export async function run(f: Factory, options: CategoriesListOptions): Promise<void> {
  const settings = resolveOutput(f.io, options, f.globals().color !== false);
  if (
    await handleFieldsFlag(
      f.io,
      settings,
      COLUMNS.map((c) => c.field),
      { open: true },
    )
  )
    return;
  const client = await f.client();
  const res = await listCategories(client, { signal: f.io.signal });
  await printList(f.io, res.data.data, COLUMNS, settings, {
    empty: 'No categories are open to your organisation.',
    required: ['category_id', 'name'],
  });
}
