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
    [
      "/goal redirect Tell support --check told: tool_result notify success contains support --check file: artifact out/a.md",
      {
        kind: "redirect",
        text: "Tell support",
        checks: [
          {
            id: "told",
            description: "tool_result notify success contains support",
            verify: {
              kind: "tool_result",
              tool: "notify",
              expect: { status: "success", contains: "support" },
            },
          },
          { id: "file", description: "artifact out/a.md", verify: { kind: "artifact", path: "out/a.md" } },
        ],
      },
    ],
    [
      "redirect Get sign-off --check ok: approval Ship it? --check tone: judge Friendly and short",
      {
        kind: "redirect",
        text: "Get sign-off",
        checks: [
          { id: "ok", description: "approval Ship it?", verify: { kind: "approval", prompt: "Ship it?" } },
          {
            id: "tone",
            description: "judge Friendly and short",
            verify: { kind: "model_judge", rubric: "Friendly and short" },
          },
        ],
      },
    ],
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
    ["/goal add-constraint short --check a: artifact x.md", "only redirect states success checks"],
    ["/goal redirect --check a: artifact x.md", "missing text for redirect"],
    ["/goal redirect Go --check a: artifact x.md --check a: approval ok?", "check id 'a' is given twice"],
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

  it.each([
    ["/goal redirect Go --check a: smoke x", "Invalid --check 'a: smoke x': unknown kind 'smoke'"],
    ["/goal redirect Go --check a artifact x.md", "expected '<id>: <kind> …'"],
    ["/goal redirect Go --check a: artifact x.md containing y", "expected 'contains <text>' after x.md"],
    ["/goal redirect Go --check a: tool_result", "tool_result needs a tool name"],
    ["/goal redirect Go --check Bad Id!: approval ok?", "expected '<id>: <kind> …'"],
  ])("rejects the check in %j, naming it and the check forms", (text, problem) => {
    // Act
    const attempt = () => parseDirective(text);

    // Assess
    expect(attempt).toThrow(DirectiveError);
    expect(attempt).toThrow(problem);
    expect(attempt).toThrow("--check <id>: artifact <path> [contains <text>]");
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
