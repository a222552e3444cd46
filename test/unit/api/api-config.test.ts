import { describe, expect, it } from "vitest";
import { readApiConfig } from "../../../lambdas/handlers/api/api-config";

const BUS = { GOAL_EVENT_BUS_NAME: "goal-bus" };

describe("readApiConfig", () => {
  it("reads the table name and the pattern → state machine ARN map", () => {
    // Act
    const config = readApiConfig({
      ...BUS,
      GOAL_TABLE_NAME: "goals",
      STATE_MACHINE_ARNS: '{"react":"arn:react"}',
    });

    // Assess
    expect(config).toEqual({
      tableName: "goals",
      stateMachineArns: { react: "arn:react" },
      eventBusName: "goal-bus",
      toolNames: [
        "http_request",
        "notify",
        "spawn_subgoal",
        "workspace_list",
        "workspace_read",
        "workspace_write",
      ],
    });
  });

  it("adds the deployment's own tools (USER_TOOL_NAMES) to the ones a GoalSpec may grant", () => {
    // Act
    const config = readApiConfig({
      ...BUS,
      GOAL_TABLE_NAME: "goals",
      STATE_MACHINE_ARNS: '{"react":"arn:react"}',
      USER_TOOL_NAMES: "lookup_ticket, crm_lookup",
    });

    // Assess
    expect(config.toolNames).toEqual([
      "http_request",
      "notify",
      "spawn_subgoal",
      "workspace_list",
      "workspace_read",
      "workspace_write",
      "lookup_ticket",
      "crm_lookup",
    ]);
  });

  it.each([
    [{ ...BUS, STATE_MACHINE_ARNS: "{}" }, /GOAL_TABLE_NAME/],
    [{ ...BUS, GOAL_TABLE_NAME: "goals" }, /STATE_MACHINE_ARNS/],
    [{ ...BUS, GOAL_TABLE_NAME: "goals", STATE_MACHINE_ARNS: "react=arn" }, /not JSON/],
    [{ ...BUS, GOAL_TABLE_NAME: "goals", STATE_MACHINE_ARNS: '{"tree_of_thought":"arn"}' }, /map patterns/],
    [
      { ...BUS, GOAL_TABLE_NAME: "goals", STATE_MACHINE_ARNS: "{}", HEAVY_MODEL_ID: "m", FAST_MODEL_ID: "m" },
      /must be set together/,
    ],
    [
      {
        ...BUS,
        GOAL_TABLE_NAME: "goals",
        STATE_MACHINE_ARNS: "{}",
        HEAVY_MODEL_ID: "m",
        FAST_MODEL_ID: "m",
        ALLOWED_MODEL_IDS: " , ,",
      },
      /ALLOWED_MODEL_IDS names no model/,
    ],
  ])("refuses a broken environment %#, naming what is wrong", (env, message) => {
    // Act + Assess
    expect(() => readApiConfig(env)).toThrow(
      expect.objectContaining({ name: "ApiConfigurationError", message: expect.stringMatching(message) }),
    );
  });
});
