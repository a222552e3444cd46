import { describe, expect, it } from "vitest";
import { DirectiveError } from "../../../lambdas/core/goal/errors";
import { directiveRevisionType, parseDirective } from "../../../lambdas/core/human/directive";

describe("parseDirective", () => {
  it.each([
    ["/goal status", { kind: "status" }],
    ["status", { kind: "status" }],
    ["  /GOAL   Status  ", { kind: "status" }],
    ["/goal add-constraint Use British spelling", { kind: "add_constraint", text: "Use British spelling" }],
    ["ADD-CONSTRAINT   keep it short  ", { kind: "add_constraint", text: "keep it short" }],
    ["/goal redirect Ship the CLI first", { kind: "redirect", text: "Ship the CLI first" }],
    ["redirect line one\nline two", { kind: "redirect", text: "line one\nline two" }],
    ["/goal redirect /goal status", { kind: "redirect", text: "/goal status" }],
  ])("parses %j", (text, expected) => {
    // Act
    const directive = parseDirective(text);

    // Assess
    expect(directive).toEqual(expected);
  });

  it.each([
    ["", "empty input"],
    ["   ", "empty input"],
    ["/goal", "missing subcommand"],
    ["/goal pause", "unknown subcommand 'pause'"],
    ["/goalstatus", "unknown subcommand '/goalstatus'"],
    ["/goal add-constraint", "missing text for add-constraint"],
    ["/goal add-constraint    ", "missing text for add-constraint"],
    ["redirect", "missing text for redirect"],
    ["/goal status now please", "status takes no text, got 'now please'"],
  ])("rejects %j and says what was wrong", (text, problem) => {
    // Act
    const attempt = () => parseDirective(text);

    // Assess
    expect(attempt).toThrow(DirectiveError);
    expect(attempt).toThrow(problem);
    expect(attempt).toThrow("/goal status, /goal add-constraint <text>, /goal redirect <text>");
  });

  it("throws an error with a stable name", () => {
    // Act
    let name = "";
    try {
      parseDirective("/goal nope");
    } catch (error) {
      name = (error as Error).name;
    }

    // Assess
    expect(name).toBe("DirectiveError");
  });
});

describe("directiveRevisionType", () => {
  it("maps text directives to the revision type they queue", () => {
    // Act & Assess
    expect(directiveRevisionType({ kind: "add_constraint", text: "x" })).toBe("add_constraint");
    expect(directiveRevisionType({ kind: "redirect", text: "x" })).toBe("redirect");
  });
});
