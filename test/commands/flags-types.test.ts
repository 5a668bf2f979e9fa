/**
 * The flags types are derived from the `.option()` declarations: checked by `tsc` (npm run
 * typecheck covers test/), not at run time. Each `@ts-expect-error` is a mismatch that must
 * fail to compile; if it ever compiled, tsc would report the unused directive.
 */
import { describe, expectTypeOf, it } from 'vitest';
import type { ListenFlags } from '../../src/commands/listen/index.js';
import type { CodesFlags, CreateFlags, ListFlags } from '../../src/commands/orders/index.js';
import type { AdminKeysRotateFlags } from '../../src/commands/sandbox/admin-register.js';
import type { TransactionsListOptions } from '../../src/commands/transactions/index.js';
import type { Command, FlagsOf } from '../../src/core/run/commander.js';
import type { ListFormat } from '../../src/core/output/options.js';

describe('flags typed from their declaration', () => {
  it('gives each kind of option its parsed type', () => {
    expectTypeOf<CreateFlags['quantity']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<CreateFlags['dryRun']>().toEqualTypeOf<true | undefined>();
    // --item repeats through `collect`: an array
    expectTypeOf<CreateFlags['item']>().toEqualTypeOf<string[] | undefined>();
    // addOutputOptions adds --json and --fields (and --output to lists)
    expectTypeOf<CreateFlags['json']>().toEqualTypeOf<true | undefined>();
    expectTypeOf<CreateFlags['fields']>().toEqualTypeOf<string | true | undefined>();
    expectTypeOf<CodesFlags['output']>().toEqualTypeOf<ListFormat | undefined>();
    // a status is any text (checked by the verb in any case), not only the listed choices
    expectTypeOf<ListFlags['status']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<TransactionsListOptions['all']>().toEqualTypeOf<true | undefined>();
    // a default makes the flag always present
    expectTypeOf<ListenFlags['port']>().toEqualTypeOf<string>();
    expectTypeOf<ListenFlags['secret']>().toEqualTypeOf<string[] | undefined>();
    // --no-update-profile: a boolean that defaults to true
    expectTypeOf<AdminKeysRotateFlags['updateProfile']>().toEqualTypeOf<boolean>();
  });

  it('fails tsc when a verb and its declaration disagree', () => {
    // @ts-expect-error orders create declares --quantity, not --qty
    expectTypeOf<CreateFlags['qty']>().toBeUnknown();
    // @ts-expect-error --dry-run is a boolean flag: no text to read
    const dryRun: string | undefined = ({} as CreateFlags).dryRun;

    const _declare = (parent: Command) => parent.command('create').option('--item <id:denom:qty>', 'an item');
    type Declared = FlagsOf<typeof _declare>;
    // @ts-expect-error without a `collect` parser a repeated option keeps its last value: a string, not a list
    const items: string[] | undefined = ({} as Declared).item;

    const _renamed = (parent: Command) => parent.command('list').option('--created-from <date>', 'from');
    const verb = (flags: { from?: string }) => flags.from;
    // @ts-expect-error the option was renamed to --created-from; the verb still reads `from`
    verb({} as FlagsOf<typeof _renamed>);
    void dryRun;
    void items;
  });
});
