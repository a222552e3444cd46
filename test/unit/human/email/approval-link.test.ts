import { describe, expect, it } from "vitest";
import {
  ApprovalLinkError,
  type ApprovalLinkParts,
  ApprovalLinkSecretError,
  signApprovalLink,
  verifyApprovalLink,
} from "../../../../lambdas/core/human/email/approval-link";
import { APPROVER, BASE_URL, EXPIRES_AT, LINK_SECRET, NOW } from "./support";

function partsOf(link: string): ApprovalLinkParts {
  const url = new URL(link);
  return {
    approvalId: decodeURIComponent(url.pathname.split("/").at(-1) ?? ""),
    decision: url.searchParams.get("decision") ?? undefined,
    expires: url.searchParams.get("expires") ?? undefined,
    approver: url.searchParams.get("approver") ?? undefined,
    sig: url.searchParams.get("sig") ?? undefined,
  };
}

function refusal(parts: ApprovalLinkParts, now = NOW, secret = LINK_SECRET): ApprovalLinkError {
  try {
    verifyApprovalLink({ ...parts, secret, now });
  } catch (error) {
    if (error instanceof ApprovalLinkError) return error;
    throw error;
  }
  throw new Error("the link was accepted");
}

const signed = (decision: "approve" | "reject" = "approve") =>
  signApprovalLink({
    baseUrl: BASE_URL,
    approvalId: `ap-${"1".repeat(32)}`,
    decision,
    expiresAt: EXPIRES_AT,
    approver: APPROVER,
    secret: LINK_SECRET,
  });

describe("signApprovalLink / verifyApprovalLink", () => {
  it("signs a link to /email/approvals/{id} with decision, expiry in epoch seconds, the approver and a base64url HMAC", () => {
    // Act
    const link = new URL(signed("reject"));

    // Assess
    expect(link.origin + link.pathname).toBe(
      `https://api.example.test/v1/email/approvals/ap-${"1".repeat(32)}`,
    );
    expect([...link.searchParams.keys()]).toEqual(["decision", "expires", "approver", "sig"]);
    expect(link.searchParams.get("approver")).toBe(APPROVER);
    expect(link.searchParams.get("decision")).toBe("reject");
    expect(link.searchParams.get("expires")).toBe(String(EXPIRES_AT.getTime() / 1000));
    expect(link.searchParams.get("sig")).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it("verifies its own link, giving back what it decides, for whom and until when", () => {
    // Prepare
    const parts = partsOf(signed());

    // Act
    const verified = verifyApprovalLink({ ...parts, secret: LINK_SECRET, now: NOW });

    // Assess
    expect(verified).toEqual({
      approvalId: `ap-${"1".repeat(32)}`,
      decision: "approve",
      expiresAt: EXPIRES_AT,
      approver: APPROVER,
      signature: parts.sig,
    });
  });

  it.each([
    ["approvalId", { approvalId: `ap-${"2".repeat(32)}` }],
    ["decision", { decision: "reject" }],
    ["expires", { expires: String(EXPIRES_AT.getTime() / 1000 + 86_400) }],
    ["approver", { approver: "mallory@example.test" }],
    ["approver's case", { approver: APPROVER.toUpperCase() }],
    ["sig", { sig: "A".repeat(43) }],
  ] as const)("refuses a link whose %s was changed as tampered", (_field, change) => {
    // Prepare
    const parts = { ...partsOf(signed()), ...change };

    // Act
    const error = refusal(parts);

    // Assess
    expect(error.name).toBe("ApprovalLinkError");
    expect(error.reason).toBe("tampered");
  });

  it("refuses a sig that differs only in the last character's unused bits", () => {
    // Prepare: base64 ignores the low 2 bits of a 43rd character, so 'A' and 'B' decode alike
    const parts = partsOf(signed());
    const sig = parts.sig ?? "";
    const last = sig.at(-1) === "A" ? "B" : "A";
    const twin = `${sig.slice(0, -1)}${last}`;

    // Act
    const error = refusal({ ...parts, sig: twin });

    // Assess
    expect(error.reason).toBe("tampered");
  });

  it("refuses a link signed with another key as tampered", () => {
    // Act
    const error = refusal(partsOf(signed()), NOW, `${LINK_SECRET}-rotated`);

    // Assess
    expect(error.reason).toBe("tampered");
  });

  it("refuses a correctly signed link at and after its expiry as expired, saying when", () => {
    // Act
    const atExpiry = refusal(partsOf(signed()), EXPIRES_AT);
    const later = refusal(partsOf(signed()), new Date(EXPIRES_AT.getTime() + 1));

    // Assess
    expect(atExpiry.reason).toBe("expired");
    expect(later.reason).toBe("expired");
    expect(later.expiredAt).toEqual(EXPIRES_AT);
  });

  it.each([
    ["no approval id", { approvalId: undefined }],
    ["an approval id with the separator", { approvalId: "ap|1" }],
    ["no decision", { decision: undefined }],
    ["an unknown decision", { decision: "maybe" }],
    ["no expiry", { expires: undefined }],
    ["an expiry that is no number", { expires: "1e10" }],
    ["no approver", { approver: undefined }],
    ["an approver that is no address", { approver: "alice" }],
    ["no sig", { sig: undefined }],
    ["a sig cut short", { sig: "abc" }],
  ] as const)("refuses a link with %s as malformed", (_case, change) => {
    // Act
    const error = refusal({ ...partsOf(signed()), ...change });

    // Assess
    expect(error.reason).toBe("malformed");
  });

  it("refuses to sign or verify with a key shorter than 32 characters", () => {
    // Act + Assess
    expect(() =>
      signApprovalLink({
        baseUrl: BASE_URL,
        approvalId: `ap-${"3".repeat(32)}`,
        decision: "approve",
        expiresAt: EXPIRES_AT,
        approver: APPROVER,
        secret: "",
      }),
    ).toThrow(ApprovalLinkSecretError);
    expect(() => verifyApprovalLink({ ...partsOf(signed()), secret: "short", now: NOW })).toThrow(
      ApprovalLinkSecretError,
    );
  });
});
