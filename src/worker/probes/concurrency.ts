/** How many targets one probe step checks at once: enough for a rack, few enough not to flood a link. */
export const PROBE_PARALLELISM = 16;

/** `work` for every item, at most `limit` at once, answers in the items' order. */
export async function mapConcurrent<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return results;
}
