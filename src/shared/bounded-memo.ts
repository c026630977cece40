/**
 * `compute` remembered for up to `kept` distinct keys; past that, everything is forgotten at once, so a
 * flood of new keys costs only the computing the memo saves, never unbounded memory.
 */
export function boundedMemo<V>(compute: (key: string) => V, kept: number): (key: string) => V {
  const memo = new Map<string, V>();
  return (key) => {
    let value = memo.get(key);
    if (value === undefined) {
      value = compute(key);
      if (memo.size >= kept) memo.clear();
      memo.set(key, value);
    }
    return value;
  };
}
