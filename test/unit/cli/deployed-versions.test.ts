import {
  DeleteStateMachineVersionCommand,
  DescribeStateMachineAliasCommand,
  DescribeStateMachineCommand,
  ListExecutionsCommand,
  ListStateMachineVersionsCommand,
  SFNClient,
  UpdateStateMachineAliasCommand,
} from "@aws-sdk/client-sfn";
import { mockClient } from "aws-sdk-client-mock";
import { beforeEach, describe, expect, it } from "vitest";
import { versionDescription } from "../../../lambdas/core/goal/runs-on";
import {
  formatVersions,
  listDeployedVersions,
  pruneVersions,
  rollBack,
  VersionCommandError,
} from "../../../lib/local/cli/deployed-versions";

const REACT = "arn:aws:states:eu-west-1:111122223333:stateMachine:S-react";
const REFLEXION = "arn:aws:states:eu-west-1:111122223333:stateMachine:S-reflexion";
const MACHINES = [REACT, REFLEXION];

/**
 * Four deploys (versions 1–4 of each machine), the live alias on `live`, goals running per version,
 * and the versions with only ended executions (a paused or failed goal's last run).
 */
function account(live: number, running: Readonly<Record<number, number>>, ended: readonly number[] = []) {
  const sfn = mockClient(SFNClient);
  for (const machine of MACHINES) {
    sfn
      .on(DescribeStateMachineAliasCommand, { stateMachineAliasArn: `${machine}:live` })
      .resolves({ routingConfiguration: [{ stateMachineVersionArn: `${machine}:${live}`, weight: 100 }] });
    sfn.on(ListStateMachineVersionsCommand, { stateMachineArn: machine }).resolves({
      stateMachineVersions: [4, 3, 2, 1].map((n) => ({
        stateMachineVersionArn: `${machine}:${n}`,
        creationDate: new Date(),
      })),
    });
    for (const n of [1, 2, 3, 4]) {
      sfn
        .on(DescribeStateMachineCommand, { stateMachineArn: `${machine}:${n}` })
        .resolves({ description: versionDescription(`0.1.0-0000000${n}`, n < 3 ? 1 : 2) });
      // Goals run on the react machine only.
      const count = machine === REACT ? (running[n] ?? 0) : 0;
      sfn
        .on(ListExecutionsCommand, { stateMachineArn: `${machine}:${n}`, statusFilter: "RUNNING" })
        .resolves({ executions: Array.from({ length: count }, () => ({}) as never) });
      const anyRun = count > 0 || (machine === REACT && ended.includes(n));
      sfn
        .on(ListExecutionsCommand, { stateMachineArn: `${machine}:${n}`, maxResults: 1 })
        .resolves({ executions: anyRun ? [{} as never] : [] });
    }
  }
  sfn.on(UpdateStateMachineAliasCommand).resolves({});
  sfn.on(DeleteStateMachineVersionCommand).resolves({});
  return sfn;
}

describe("deployed versions", () => {
  let sfn: ReturnType<typeof account>;

  beforeEach(() => {
    sfn = account(4, { 1: 2, 4: 1 });
  });

  it("lists each deploy once, newest first, with its schema, the goals on it, and which is live", async () => {
    // Act
    const versions = await listDeployedVersions(new SFNClient({}), MACHINES);

    // Assess
    expect(versions.map((v) => [v.label, v.schema, v.running, v.live])).toEqual([
      ["0.1.0-00000004", 2, 1, true],
      ["0.1.0-00000003", 2, 0, false],
      ["0.1.0-00000002", 1, 0, false],
      ["0.1.0-00000001", 1, 2, false],
    ]);
    expect(formatVersions(versions)[0]).toBe(
      "* 0.1.0-00000004  (version 4, record schema 2)  1 goal running  live",
    );
  });

  it("rolls every pattern's live alias back to the deploy before the live one, or to the one asked for", async () => {
    // Prepare
    const versions = await listDeployedVersions(new SFNClient({}), MACHINES);

    // Act
    const previous = await rollBack(new SFNClient({}), versions, MACHINES);
    const chosen = await rollBack(new SFNClient({}), versions, MACHINES, "1");

    // Assess
    expect(previous.label).toBe("0.1.0-00000003");
    expect(chosen.label).toBe("0.1.0-00000001");
    expect(sfn.commandCalls(UpdateStateMachineAliasCommand).map((call) => call.args[0].input)).toEqual([
      {
        stateMachineAliasArn: `${REACT}:live`,
        routingConfiguration: [{ stateMachineVersionArn: `${REACT}:3`, weight: 100 }],
      },
      {
        stateMachineAliasArn: `${REFLEXION}:live`,
        routingConfiguration: [{ stateMachineVersionArn: `${REFLEXION}:3`, weight: 100 }],
      },
      {
        stateMachineAliasArn: `${REACT}:live`,
        routingConfiguration: [{ stateMachineVersionArn: `${REACT}:1`, weight: 100 }],
      },
      {
        stateMachineAliasArn: `${REFLEXION}:live`,
        routingConfiguration: [{ stateMachineVersionArn: `${REFLEXION}:1`, weight: 100 }],
      },
    ]);
  });

  it("refuses a rollback to a version that was never deployed, changing nothing", async () => {
    // Prepare
    const versions = await listDeployedVersions(new SFNClient({}), MACHINES);

    // Act
    const refused = rollBack(new SFNClient({}), versions, MACHINES, "0.9.0-ffffffff");

    // Assess
    await expect(refused).rejects.toThrow(VersionCommandError);
    expect(sfn.commandCalls(UpdateStateMachineAliasCommand)).toHaveLength(0);
  });

  it("prunes only versions no goal runs on, beyond the live one and the newest kept", async () => {
    // Prepare
    const versions = await listDeployedVersions(new SFNClient({}), MACHINES);

    // Act: keep the newest 1; 4 is live and newest, 1 has goals running
    const removed = await pruneVersions(new SFNClient({}), versions, 1);

    // Assess
    expect(removed.removed.map((v) => v.label)).toEqual(["0.1.0-00000003", "0.1.0-00000002"]);
    expect(
      sfn
        .commandCalls(DeleteStateMachineVersionCommand)
        .map((call) => call.args[0].input.stateMachineVersionArn),
    ).toEqual([`${REACT}:3`, `${REFLEXION}:3`, `${REACT}:2`, `${REFLEXION}:2`]);
  });

  it("keeps a version a paused or failed goal's ended run was on: the goal resumes on it", async () => {
    // Prepare: version 2's only execution ended (its goal paused); 3 never ran
    sfn = account(4, { 1: 2, 4: 1 }, [2]);
    const versions = await listDeployedVersions(new SFNClient({}), MACHINES);

    // Act
    const removed = await pruneVersions(new SFNClient({}), versions, 1);

    // Assess
    expect(removed.removed.map((v) => v.label)).toEqual(["0.1.0-00000003"]);
    expect(
      sfn
        .commandCalls(DeleteStateMachineVersionCommand)
        .map((call) => call.args[0].input.stateMachineVersionArn),
    ).toEqual([`${REACT}:3`, `${REFLEXION}:3`]);
  });
});
