import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type GoalTable, lambdaContext, startHandlerEnvironment } from "../../loop/support";
import { createReflexionGoal, reflexionSpec } from "./support";

const context = lambdaContext("reflexion-step", "1024");

/**
 * The Reflexion handlers as Lambda loads them: module-scope clients from the environment (the
 * DynamoDB endpoint through AWS_ENDPOINT_URL_DYNAMODB), the state payload parsed. No model is called
 * here: the goals run under another run id, so each step only answers `stop`.
 */
describe("Reflexion step handlers", () => {
  let table: GoalTable;
  let goalId: string;

  beforeAll(async () => {
    table = await startHandlerEnvironment();
    goalId = (await createReflexionGoal(table, reflexionSpec())).goalId;
  });

  afterAll(async () => {
    await table?.stop();
  });

  it.each([
    ["Evaluate", "evaluate", "verify"],
    ["Reflect", "reflect", "reflect"],
    ["Attempt", "attempt", "attempt"],
  ])(
    "%s loads with its environment and answers stop for a run that does not own the goal",
    async (_state, file, next) => {
      // Prepare
      const { handler } = await import(`../../../../lambdas/handlers/patterns/reflexion/${file}.ts`);

      // Act
      const answer = await handler({ goalId, runId: "r9", iteration: 0, next }, context);

      // Assess
      expect(answer).toEqual({ goalId, runId: "r9", iteration: 0, next: "stop" });
    },
  );

  it("rejects a payload without a run id as a ValidationError", async () => {
    // Prepare
    const { handler } = await import("../../../../lambdas/handlers/patterns/reflexion/attempt");

    // Act
    const answer = handler({ goalId, iteration: 0 }, context);

    // Assess
    await expect(answer).rejects.toMatchObject({ name: "ValidationError" });
  });
});
