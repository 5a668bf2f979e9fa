/**
 * Text the sandbox keeps for its life (ids, codes, descriptions, stored replies), as one
 * flat string. V8 keeps a concatenation past 12 characters, and the text JSON.stringify
 * writes, as a tree of pieces: a kept reply body was a dozen heap objects and an id half a
 * dozen, each one more for every later garbage collection to walk.
 */
export function flat(text: string): string {
  // The UTF-8 round trip copies text exactly unless it holds a lone surrogate (replaced).
  return LONE_SURROGATE.test(text) ? text : Buffer.from(text).toString();
}

const LONE_SURROGATE = /\p{Cs}/u;
