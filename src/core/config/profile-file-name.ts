/**
 * The name a profile's own files take on disk (the sandbox's `sandboxes/NAME.pid`, its log
 * and its start lock). Profile names tell case apart ("Pacing" and "pacing" are two
 * profiles); the default file systems of macOS and Windows do not, so there the files of the
 * two would be one. A name in lower case is its own file name, as it always was (files
 * written by earlier versions are found where they are); any other is lower-cased and
 * followed by `~` and 8 hex digits of a hash of the exact name. No profile name holds a `~`,
 * so neither kind can be mistaken for the other, in any case.
 */
import { hash } from 'node:crypto';

export function profileFileName(profile: string): string {
  const lower = profile.toLowerCase();
  if (lower === profile) return profile;
  return `${lower}~${hash('sha256', profile, 'hex').slice(0, 8)}`;
}
