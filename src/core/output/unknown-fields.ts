/**
 * The usage error of `--fields` naming fields the output has not: the fields it has, after
 * the likely one for each a letter or two from one of them (`stauts` → status), as an
 * unknown command or option is answered.
 */
import { UsageError } from '../errors/index.js';
import { nearestKnown, validWordsHint } from '../run/known-word.js';

export function unknownFieldsError(missing: string[], available: string[], note = ''): UsageError {
  const near = missing.flatMap((f) => {
    const known = nearestKnown(f, available);
    return known === undefined ? [] : [{ f, known }];
  });
  const meant =
    near.length === 0 ? undefined : missing.length === 1 ? near[0]!.known : near.map((n) => `${n.known} (for ${n.f})`).join(', ');
  return new UsageError(`unknown field${missing.length > 1 ? 's' : ''}: ${missing.join(', ')}${note}`, validWordsHint(available, meant));
}
