import {
  ConflictException,
  DeleteStateMachineVersionCommand,
  DescribeExecutionCommand,
  DescribeStateMachineAliasCommand,
  DescribeStateMachineCommand,
  ListExecutionsCommand,
  ListStateMachineVersionsCommand,
  type SFNClient,
  StartExecutionCommand,
  UpdateStateMachineAliasCommand,
} from "@aws-sdk/client-sfn";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadCloudAssembly } from "../../lib/local/cdk-out/cdk-out";
import { LambdaHost } from "../../lib/local/lambda/lambda-host";
import type { RunningServer } from "../../lib/local/shared/listen";
import { startSfnEndpoint } from "../../lib/local/step-functions/sfn-endpoint";
import { StateMachineRunner } from "../../lib/local/step-functions/state-machine-runner";
import { synthFixtureApp } from "./fixtures/fixture-app";
import { collectingLog, sfnClientFor } from "./support";

/** Two published versions of the fixture's flow, the `live` alias on version 2, as after two deploys. */
describe("state machine versions and the live alias on the local Step Functions endpoint", () => {
  let runner: StateMachineRunner;
  let endpoint: RunningServer;
  let host: LambdaHost;
  let sfn: SFNClient;
  let flowArn = "";
  const aliased: [string, string][] = [];

  beforeAll(async () => {
    const model = loadCloudAssembly(synthFixtureApp());
    const flow = model.stateMachines[0];
    if (flow === undefined) throw new Error("the fixture app has no state machine");
    flowArn = flow.arn;
    runner = new StateMachineRunner({
      stateMachines: model.stateMachines,
      versions: [1, 2].map((n) => ({
        arn: `${flowArn}:${n}`,
        description: `goal-loops version 0.1.0-0000000${n} record schema 2`,
        spec: flow,
        creationDate: new Date(),
      })),
      aliases: new Map([[`${flowArn}:live`, `${flowArn}:2`]]),
      onAliasUpdated: (aliasArn, versionArn) => aliased.push([aliasArn, versionArn]),
      invokeFunction: (ref, payload) => host.invoke(ref, payload),
    });
    endpoint = await startSfnEndpoint(runner);
    host = new LambdaHost({
      functions: model.functions,
      endpoints: { sfn: endpoint.url },
      log: collectingLog().log,
    });
    sfn = sfnClientFor(endpoint.url);
  });
  afterAll(async () => {
    await runner.close();
    await host.close();
    sfn.destroy();
    await endpoint.close();
  });

  const start = (stateMachineArn: string, name: string) =>
    sfn.send(
      new StartExecutionCommand({
        stateMachineArn,
        name,
        input: JSON.stringify({ scenario: "retry", errorName: "TransientError", times: 0 }),
      }),
    );

  it("starts through the alias on the version it names, the execution ARN the state machine's own", async () => {
    // Act
    const { executionArn } = await start(`${flowArn}:live`, "through-alias");
    const described = await sfn.send(new DescribeExecutionCommand({ executionArn }));
    const onVersion2 = await sfn.send(new ListExecutionsCommand({ stateMachineArn: `${flowArn}:2` }));

    // Assess
    expect(executionArn).toBe(`${flowArn.replace(":stateMachine:", ":execution:")}:through-alias`);
    expect(described).toMatchObject({
      stateMachineArn: flowArn,
      stateMachineVersionArn: `${flowArn}:2`,
      stateMachineAliasArn: `${flowArn}:live`,
    });
    expect(onVersion2.executions?.map((e) => e.name)).toContain("through-alias");
  });

  it("describes versions by their deploy's description, newest first", async () => {
    // Act
    const listed = await sfn.send(new ListStateMachineVersionsCommand({ stateMachineArn: flowArn }));
    const version1 = await sfn.send(new DescribeStateMachineCommand({ stateMachineArn: `${flowArn}:1` }));

    // Assess
    expect(listed.stateMachineVersions?.map((v) => v.stateMachineVersionArn)).toEqual([
      `${flowArn}:2`,
      `${flowArn}:1`,
    ]);
    expect(version1.description).toBe("goal-loops version 0.1.0-00000001 record schema 2");
  });

  it("points the alias back on UpdateStateMachineAlias: the next start runs the older version, and the change is kept", async () => {
    // Act
    await sfn.send(
      new UpdateStateMachineAliasCommand({
        stateMachineAliasArn: `${flowArn}:live`,
        routingConfiguration: [{ stateMachineVersionArn: `${flowArn}:1`, weight: 100 }],
      }),
    );
    const alias = await sfn.send(
      new DescribeStateMachineAliasCommand({ stateMachineAliasArn: `${flowArn}:live` }),
    );
    const { executionArn } = await start(`${flowArn}:live`, "after-rollback");
    const described = await sfn.send(new DescribeExecutionCommand({ executionArn }));

    // Assess
    expect(alias.routingConfiguration).toEqual([{ stateMachineVersionArn: `${flowArn}:1`, weight: 100 }]);
    expect(described.stateMachineVersionArn).toBe(`${flowArn}:1`);
    expect(aliased).toEqual([[`${flowArn}:live`, `${flowArn}:1`]]);
  });

  it("refuses to delete the version the alias names, and deletes another", async () => {
    // Act: the alias names version 1 now (previous test)
    const refused = await sfn
      .send(new DeleteStateMachineVersionCommand({ stateMachineVersionArn: `${flowArn}:1` }))
      .catch((error: unknown) => error);
    await sfn.send(new DeleteStateMachineVersionCommand({ stateMachineVersionArn: `${flowArn}:2` }));
    const listed = await sfn.send(new ListStateMachineVersionsCommand({ stateMachineArn: flowArn }));

    // Assess
    expect(refused).toBeInstanceOf(ConflictException);
    expect(listed.stateMachineVersions?.map((v) => v.stateMachineVersionArn)).toEqual([`${flowArn}:1`]);
  });
});
