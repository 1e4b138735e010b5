/**
 * At most `size` tasks run at once; the others wait their turn in order. Password hashes go
 * through this so that a burst of signins queues for the CPU instead of taking every core
 * from the page and video requests.
 */
export function slots(size: number) {
  let running = 0;
  const waiting: Array<() => void> = [];
  return async function run<T>(task: () => Promise<T>): Promise<T> {
    if (running < size) running += 1;
    else await new Promise<void>((resolve) => waiting.push(resolve));
    try {
      return await task();
    } finally {
      // Hand the slot straight to the next in line, or give it back.
      const next = waiting.shift();
      if (next) next();
      else running -= 1;
    }
  };
}
