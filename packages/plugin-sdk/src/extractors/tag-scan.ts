/** Result of {@link scanForTag}. */
export interface TagScan {
  /** Where the found tag starts, or where a possibly incomplete tag starts, or the input's length. */
  readonly index: number;
  /** The complete tag found at `index`; undefined when none was found. */
  readonly tag?: string;
}

/**
 * Finds the first complete occurrence of any of `tags` in `input`. When there is none, `index` is where the
 * input's tail may still grow into a tag: everything before it is safe to release, the rest must be held back.
 * Every tag must start with `<` and contain no other `<`; a partial tag can then only begin at the last `<` that
 * is still a prefix of a tag, which keeps the held-back tail shorter than the longest tag.
 */
export function scanForTag(input: string, tags: readonly string[]): TagScan {
  for (let index = input.indexOf('<'); index !== -1; index = input.indexOf('<', index + 1)) {
    for (const tag of tags) {
      if (input.startsWith(tag, index)) return { index, tag };
    }
    const tail = input.length - index;
    for (const tag of tags) {
      if (tail < tag.length && tag.startsWith(input.slice(index))) return { index };
    }
  }
  return { index: input.length };
}
