const SHIM = new URL("./fs-glob-shim.mjs", import.meta.url).href;

export async function resolve(specifier, context, nextResolve) {
  const fromConformance = context.parentURL?.includes("/@modelcontextprotocol/conformance/") ?? false;
  if (fromConformance && (specifier === "fs" || specifier === "node:fs"))
    return { url: SHIM, shortCircuit: true };
  return nextResolve(specifier, context);
}
