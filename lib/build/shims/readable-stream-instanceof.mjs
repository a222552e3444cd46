// Bundled in place of "node:stream/web" for @middy/core only (lib/build/build-handlers.ts says why):
// middy imports ReadableStream from there for one `instanceof` check in its streaming mode. This
// stand-in answers that check with Node's own ReadableStream, looked up on first use, so a handler's
// cold start does not load the WHATWG streams implementation that none of these handlers uses.
export function ReadableStream() {
  throw new TypeError("goal-loops' stand-in for node:stream/web only answers `instanceof`");
}
Object.defineProperty(ReadableStream, Symbol.hasInstance, {
  value: (value) => value instanceof globalThis.ReadableStream,
});
