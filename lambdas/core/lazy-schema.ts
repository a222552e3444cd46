import { type core, globalRegistry } from "zod/mini";

/**
 * A module-level zod schema built the first time anything touches it, not when its module loads.
 *
 * Every Lambda bundle loads the modules of the shapes it might meet (the goal record alone is a few
 * hundred schema objects), and building them all took 20–35 ms of each cold start, most of a
 * bundle's own import (bench/bundles.ts). Built on first use, a function builds only the schemas
 * its handler reaches, when it reaches them. A schema the handler does use still costs the same,
 * on its first invocation instead of at import; the saving is the schemas a function never touches.
 *
 * The value is a Proxy in front of the schema `build` returns, so call sites and composition keep
 * working unchanged: `Schema.parse`, `z.object({ field: Schema })`, `z.extend(Schema, …)`,
 * `instanceof`, `z.toJSONSchema` and `z.infer` all see the schema itself. The shape is still written
 * once, inside `build`. (`z.lazy` would defer too, but as a different schema type that has no
 * `shape` and cannot be extended or picked.)
 *
 * Every call site carries esbuild's pure mark (a `@__PURE__` block comment before the call): the
 * call has no effect until the schema is used, so a bundle leaves out a schema it never uses.
 * (esbuild does not carry this function's own `@__NO_SIDE_EFFECTS__` mark through the `export *`
 * of zod.ts to the call sites, checked with esbuild 0.28.2.)
 *
 * The one place identity shows: zod's registries are keyed by the object. A schema that `build`
 * registers (`.register(z.globalRegistry, { description })`) is registered as the built object,
 * while the composed schemas and `z.toJSONSchema` meet the Proxy; so the metadata is copied to the
 * Proxy when it is built. A registry lookup reads `schema._zod.parent` before the map, which builds
 * the schema first, so the copy is always there in time.
 */
/* @__NO_SIDE_EFFECTS__ */
export function lazySchema<T extends core.$ZodType>(build: () => T): T {
  let built: T | undefined;
  const schema = (): T => {
    if (built === undefined) {
      built = build();
      const metadata = globalRegistry.get(built);
      if (metadata !== undefined) globalRegistry.add(proxy, metadata);
    }
    return built;
  };
  // The target stays an empty, extensible object: every trap answers from the built schema, and a
  // reported property is always configurable, so no Proxy invariant ties the answers to the target.
  const proxy: T = new Proxy({} as T, {
    get: (_target, key) => Reflect.get(schema(), key),
    set: (_target, key, value) => Reflect.set(schema(), key, value),
    has: (_target, key) => Reflect.has(schema(), key),
    ownKeys: () => Reflect.ownKeys(schema()),
    getOwnPropertyDescriptor: (_target, key) => {
      const descriptor = Reflect.getOwnPropertyDescriptor(schema(), key);
      return descriptor === undefined ? undefined : { ...descriptor, configurable: true };
    },
    defineProperty: (_target, key, descriptor) => Reflect.defineProperty(schema(), key, descriptor),
    deleteProperty: (_target, key) => Reflect.deleteProperty(schema(), key),
    getPrototypeOf: () => Reflect.getPrototypeOf(schema()),
  });
  return proxy;
}
