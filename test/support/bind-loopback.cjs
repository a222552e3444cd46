// Preloaded (`node -r`) into MCP test servers that listen on every interface by default
// (server-everything has no HOST setting, FACTS): a port-only listen() binds 127.0.0.1 instead.
const net = require("node:net");

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function listenOnLoopback(...args) {
  const [first] = args;
  if (typeof first === "number" || (typeof first === "string" && /^\d+$/.test(first))) {
    const callback = args.find((arg) => typeof arg === "function");
    return listen.call(this, Number(first), "127.0.0.1", ...(callback ? [callback] : []));
  }
  if (first && typeof first === "object" && first.path === undefined) {
    args[0] = { ...first, host: "127.0.0.1" };
  }
  return listen.apply(this, args);
};
