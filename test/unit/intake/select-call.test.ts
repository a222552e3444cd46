import { describe, expect, it } from "vitest";
import { parseGoalSpec } from "../../../lambdas/core/goal/goal-spec";
import {
  CHOOSE_PATTERN_TOOL,
  SELECTION_INPUT_SCHEMA,
  SelectionSchema,
  selectRequest,
} from "../../../lambdas/core/intake/select-call";
import * as z from "../../../lambdas/core/zod";
import { specInput } from "../goal/support";

describe("the select call's choose_pattern tool", () => {
  it("offers the input schema zod converts SelectionSchema to, byte for byte", () => {
    // Act
    const converted = JSON.stringify(z.toJSONSchema(SelectionSchema));

    // Assess: written out so the goals API bundle needs no converter; the request must not change.
    expect(JSON.stringify(SELECTION_INPUT_SCHEMA)).toBe(converted);
  });

  it("sends that schema in the request", () => {
    // Act
    const request = selectRequest(
      parseGoalSpec(specInput({})),
      "g-1",
      { modelId: "m", thinking: { allowanceTokens: 0 } },
      0,
    );

    // Assess
    const tool = request.tools?.find((spec) => spec.name === CHOOSE_PATTERN_TOOL);
    expect(JSON.stringify(tool?.inputSchema)).toBe(JSON.stringify(z.toJSONSchema(SelectionSchema)));
  });
});
