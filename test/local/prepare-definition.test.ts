import { describe, expect, it } from "vitest";
import type { JsonObject } from "../../lib/local/shared/cloud-assembly-model";
import { MAX_TIMEOUT_SECONDS, prepareDefinition } from "../../lib/local/step-functions/prepare-definition";

const FUNCTION = "arn:aws:lambda:us-east-1:000000000000:function:f";

describe("prepareDefinition", () => {
  it("gives every Task the timeout AWS would, within what a Node timer can hold", () => {
    // Prepare
    const definition: JsonObject = {
      StartAt: "A",
      TimeoutSeconds: 31_536_000,
      States: {
        A: { Type: "Task", Resource: FUNCTION, Next: "B" },
        B: { Type: "Task", Resource: "arn:aws:states:::lambda:invoke.waitForTaskToken", Next: "C" },
        C: { Type: "Task", Resource: FUNCTION, TimeoutSeconds: 5, Next: "D" },
        D: { Type: "Task", Resource: FUNCTION, TimeoutSecondsPath: "$.t", End: true },
      },
    };

    // Act
    const prepared = prepareDefinition(definition);

    // Assess: no TimeoutSeconds means no practical limit (a year for callbacks), not the engine's 60 s.
    expect(prepared).toMatchObject({
      TimeoutSeconds: MAX_TIMEOUT_SECONDS,
      States: {
        A: { TimeoutSeconds: MAX_TIMEOUT_SECONDS },
        B: { TimeoutSeconds: MAX_TIMEOUT_SECONDS },
        C: { TimeoutSeconds: 5 },
        D: { TimeoutSecondsPath: "$.t" },
      },
    });
    expect(prepared.States).not.toHaveProperty("D.TimeoutSeconds");
    expect(definition.States).not.toHaveProperty("A.TimeoutSeconds");
  });

  it("inlines $$.State.Name, which the engine's context object lacks, also in nested branches", () => {
    // Prepare
    const definition: JsonObject = {
      StartAt: "Fan",
      States: {
        Fan: {
          Type: "Parallel",
          End: true,
          Branches: [
            {
              StartAt: "Inner",
              States: {
                Inner: {
                  Type: "Task",
                  Resource: FUNCTION,
                  Parameters: {
                    "state.$": "$$.State.Name",
                    nested: { "also.$": "$$.State.Name" },
                    "id.$": "$.id",
                  },
                  End: true,
                },
              },
            },
          ],
        },
      },
    };

    // Act
    const prepared = prepareDefinition(definition);

    // Assess
    expect(prepared).toMatchObject({
      States: {
        Fan: {
          Branches: [
            {
              States: {
                Inner: { Parameters: { state: "Inner", nested: { also: "Inner" }, "id.$": "$.id" } },
              },
            },
          ],
        },
      },
    });
  });
});
