/**
 * aws-local-stepfunctions 3 calls `Promise.withResolvers()` in every Task state; Node 20 lacks it
 * (Node 22 has it). Imported for its side effect before the engine runs anything.
 */
interface Resolvers<T> {
  promise: Promise<T>;
  resolve: (value: T | PromiseLike<T>) => void;
  reject: (reason?: unknown) => void;
}

const withResolvers = <T>(): Resolvers<T> => {
  let resolve: Resolvers<T>["resolve"] = () => {};
  let reject: Resolvers<T>["reject"] = () => {};
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
};

if (typeof Reflect.get(Promise, "withResolvers") !== "function") {
  Object.defineProperty(Promise, "withResolvers", {
    value: withResolvers,
    configurable: true,
    writable: true,
  });
}

export {};
