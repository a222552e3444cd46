import type { APIGatewayProxyResult } from "aws-lambda";

/**
 * Headers of every page the email door serves. The signed query is a credential for one decision:
 * no referrer carries it elsewhere, no cache keeps it; no frame can overlay the confirm button;
 * the page loads nothing and posts only to itself.
 */
const PAGE_HEADERS = {
  "content-type": "text/html; charset=utf-8",
  "cache-control": "no-store",
  "referrer-policy": "no-referrer",
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "content-security-policy":
    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
} as const;

export function htmlPage(
  statusCode: number,
  body: string,
  headers: Record<string, string> = {},
): APIGatewayProxyResult {
  return { statusCode, headers: { ...PAGE_HEADERS, ...headers }, body };
}
