import { describe, expect, it } from "vitest";
import { ValidationError } from "../../../lambdas/core/goal/errors";
import { DEFAULT_LIMITS, goalSpecJsonSchema, parseGoalSpec } from "../../../lambdas/core/goal/goal-spec";
import { specInput } from "./support";

function validationIssues(input: unknown): { path: string; message: string }[] {
  try {
    parseGoalSpec(input);
  } catch (error) {
    if (error instanceof ValidationError) return [...error.issues];
    throw error;
  }
  throw new Error("expected a ValidationError");
}

describe("parseGoalSpec", () => {
  it("fills in the default limits, pattern and approval policy", () => {
    // Prepare
    const input = specInput();

    // Act
    const spec = parseGoalSpec(input);

    // Assess
    expect(spec.limits).toEqual({
      maxSteps: 25,
      maxNoProgressCycles: 3,
      maxCostUsd: 1,
      maxReplans: 3,
      maxAttempts: 3,
    });
    expect(DEFAULT_LIMITS).toEqual(spec.limits);
    expect(spec.pattern).toBe("auto");
    expect(spec.approval).toEqual({ requireFor: [], preAuthorized: [], channels: ["api"] });
  });

  it("names the dotted path of a bad nested field", () => {
    // Prepare
    const input = specInput({
      successChecks: [
        { id: "report", description: "d", verify: { kind: "artifact", path: "../etc/passwd" } },
      ],
    });

    // Act
    const issues = validationIssues(input);

    // Assess
    expect(issues.map((issue) => issue.path)).toEqual(["successChecks.0.verify.path"]);
    expect(issues[0]?.message).toContain("relative path");
  });

  it("names every bad field at once, including unknown keys and duplicate check ids", () => {
    // Prepare
    const check = { id: "same", description: "d", verify: { kind: "approval", prompt: "ok?" } };
    const input = {
      objective: "  ",
      successChecks: [check, check],
      limits: { maxSteps: 0 },
      colour: "blue",
    };

    // Act
    const paths = validationIssues(input).map((issue) => issue.path);

    // Assess
    expect(paths).toEqual(expect.arrayContaining(["objective", "limits.maxSteps", "colour"]));
    expect(validationIssues({ ...specInput(), successChecks: [check, check] })).toEqual([
      { path: "successChecks.1.id", message: "duplicate success check id 'same'" },
    ]);
  });

  it("rejects a spec without success checks and says so", () => {
    // Prepare
    const input = specInput({ successChecks: [] });

    // Act
    const issues = validationIssues(input);

    // Assess
    expect(issues).toEqual([{ path: "successChecks", message: "must list at least one success check" }]);
  });

  it("keeps the error's name stable and serializable", () => {
    // Prepare
    let caught: unknown;

    // Act
    try {
      parseGoalSpec({});
    } catch (error) {
      caught = error;
    }

    // Assess
    expect(caught).toBeInstanceOf(ValidationError);
    const object = (caught as ValidationError).toErrorObject();
    expect(object.name).toBe("ValidationError");
    expect(object.issues.map((issue) => issue.path)).toEqual(["objective", "successChecks"]);
  });
});

describe("goalSpecJsonSchema", () => {
  it("generates a draft 2020-12 schema with the spec's fields and required ones", () => {
    // Act
    const schema = goalSpecJsonSchema();

    // Assess
    expect(schema.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
    expect(schema.required).toEqual(["objective", "successChecks"]);
    expect(Object.keys(schema.properties as object)).toEqual(
      expect.arrayContaining([
        "objective",
        "scope",
        "successChecks",
        "limits",
        "pattern",
        "hints",
        "approval",
      ]),
    );
    expect(schema.additionalProperties).toBe(false);
    expect(JSON.parse(JSON.stringify(schema))).toEqual(schema);
  });
});
