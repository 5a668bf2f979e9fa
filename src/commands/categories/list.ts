/** `vouchers categories list`: GET /categories. */
import { allPages, listCategories } from '../../api/catalog.js';
import type { Category } from '../../contract/catalog.js';
import { endOfPages } from '../../core/output/paging-notice.js';
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
  // Every page, should the server page its categories (there is no --all: the list is all there is).
  const all = await allPages((page) => listCategories(client, { signal: f.io.signal, page }));
  await printList(f.io, all.rows, COLUMNS, settings, {
    empty: 'No categories are open to your organisation.',
    required: ['category_id', 'name'],
  });
  endOfPages(f.io, settings, 'categories list', all, `${all.rows.length} categor${all.rows.length === 1 ? 'y' : 'ies'}`, '/categories');
}
