import { isIP } from "node:net";

/**
 * Why Lambda could not reach `url`, or undefined when it may: a loopback host (`localhost`,
 * 127.0.0.0/8, `::1`) is the function's own sandbox, a link-local one (169.254.0.0/16, fe80::/10)
 * its runtime's metadata, and an unspecified one (0.0.0.0, `::`) nothing at all. A URL that cannot
 * be parsed is left to the schema that checks URLs.
 */
export function lambdaUnreachableReason(url: string): string | undefined {
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase();
  } catch {
    return undefined;
  }
  const bare = host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
  if (bare === "localhost" || bare.endsWith(".localhost")) return "a loopback host";
  const version = isIP(bare);
  if (version === 4) return ipv4Reason(bare);
  if (version === 6) {
    const mapped = ipv4MappedAddress(bare);
    if (mapped !== undefined) return ipv4Reason(mapped);
    if (bare === "::1") return "a loopback address";
    if (bare === "::") return "the unspecified address";
    if (/^fe[89ab][0-9a-f]:/.test(bare)) return "a link-local address";
  }
  return undefined;
}

function ipv4Reason(address: string): string | undefined {
  const [first, second] = address.split(".").map(Number);
  if (first === 127) return "a loopback address";
  if (first === 169 && second === 254) return "a link-local address";
  if (first === 0) return "the unspecified address";
  return undefined;
}

/** The IPv4 address inside an IPv4-mapped IPv6 one (`::ffff:127.0.0.1`, which URL writes `::ffff:7f00:1`). */
function ipv4MappedAddress(address: string): string | undefined {
  const dotted = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(address)?.[1];
  if (dotted !== undefined) return dotted;
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(address);
  if (hex === null) return undefined;
  const [high, low] = [Number.parseInt(hex[1] ?? "0", 16), Number.parseInt(hex[2] ?? "0", 16)];
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join(".");
}
