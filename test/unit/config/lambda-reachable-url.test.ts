import { describe, expect, it } from "vitest";
import { lambdaUnreachableReason } from "../../../lib/config/lambda-reachable-url";

describe("lambdaUnreachableReason", () => {
  it.each([
    ["http://127.0.0.1:3001/mcp", "a loopback address"],
    ["http://127.8.9.10/", "a loopback address"],
    ["http://localhost:8080/hook", "a loopback host"],
    ["http://tools.localhost/mcp", "a loopback host"],
    ["http://[::1]:3001/mcp", "a loopback address"],
    ["http://[::ffff:127.0.0.1]/mcp", "a loopback address"],
    ["http://169.254.169.254/latest", "a link-local address"],
    ["http://[fe80::1]/mcp", "a link-local address"],
    ["http://0.0.0.0:3001/mcp", "the unspecified address"],
  ])("refuses %s: %s", (url, reason) => {
    // Act + Assess
    expect(lambdaUnreachableReason(url)).toBe(reason);
  });

  it.each([
    "https://mcp.example.com/mcp",
    "http://10.0.0.12:3001/mcp",
    "https://172.16.0.1/hook",
    "https://[2001:db8::1]/mcp",
    "https://localhost.example.com/mcp",
  ])("lets %s through (reachable from a function in a VPC, or on the internet)", (url) => {
    // Act + Assess
    expect(lambdaUnreachableReason(url)).toBeUndefined();
  });
});
