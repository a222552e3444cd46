/**
 * `promise`, or a rejection naming `what` when it does not settle within `ms`: a hung step fails its
 * test with a message saying which wait it was, not with the test's own timeout.
 */
export function within<T>(promise: Promise<T>, what: string, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms / 1000} s`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}
