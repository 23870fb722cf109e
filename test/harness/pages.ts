/** A page of a keyset listing: its items and the cursor of the next page (null on the last). */
export interface IdPage<C> {
  readonly items: readonly { readonly id: string }[];
  readonly next: C | null;
}

/**
 * The IDs of every page of a listing, in order: `read` gets the first page with no cursor and
 * each following page with the cursor the previous one returned, until it returns none.
 */
export async function idsOfEveryPage<C>(
  read: (cursor: C | undefined) => Promise<IdPage<C>>,
): Promise<string[]> {
  const seen: string[] = [];
  let page = await read(undefined);
  seen.push(...page.items.map((item) => item.id));
  while (page.next !== null) {
    page = await read(page.next);
    seen.push(...page.items.map((item) => item.id));
  }
  return seen;
}
