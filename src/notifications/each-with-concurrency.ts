/**
 * Runs `work` on each item, at most `concurrency` at once, starting them in the items' order. When
 * one fails, no further item is started; those already running finish (a message half-way through
 * its provider call is never abandoned mid-step), and then the first error is thrown. Items never
 * started stay as they were: for the dispatcher, claimed sends that the reconciler hands back.
 */
export async function eachWithConcurrency<T>(
  items: readonly T[],
  concurrency: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | null = null;
  const lane = async (): Promise<void> => {
    while (failure === null && next < items.length) {
      const item = items[next++]!;
      try {
        await work(item);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, items.length)) }, lane));
  if (failure !== null) throw (failure as { error: unknown }).error;
}
