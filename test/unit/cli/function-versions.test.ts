import {
  DeleteFunctionCommand,
  LambdaClient,
  ListAliasesCommand,
  ListTagsCommand,
  ListVersionsByFunctionCommand,
} from "@aws-sdk/client-lambda";
import {
  DeleteStateMachineVersionCommand,
  DescribeStateMachineAliasCommand,
  DescribeStateMachineCommand,
  ListExecutionsCommand,
  ListStateMachineVersionsCommand,
  SFNClient,
} from "@aws-sdk/client-sfn";
import { mockClient } from "aws-sdk-client-mock";
import { afterEach, describe, expect, it } from "vitest";
import { versionDescription } from "../../../lambdas/core/goal/runs-on";
import { formatPrune, listDeployedVersions, pruneVersions } from "../../../lib/local/cli/deployed-versions";
import { functionVersionsNamedIn } from "../../../lib/local/cli/function-versions";

const STATES = "arn:aws:states:eu-west-1:111122223333:stateMachine";
const REACT = `${STATES}:S-react`;
const REFLEXION = `${STATES}:S-reflexion`;
const MACHINES = [REACT, REFLEXION];
const FN = "arn:aws:lambda:eu-west-1:111122223333:function";
const fn = (name: string, version: number | string) => `${FN}:${name}:${version}`;
const SHARED = "arn:aws:lambda:eu-west-1:444455556666:function:shared:3";

/**
 * Four deploys of a stack (state machine versions 1–4, `live` on 4; goals run on 1 and 4; version
 * 2's goal paused when `ended` says so). Each deploy published a version of `S-act` and `S-reason`;
 * `S-attempt`'s code changed only at deploy 3, so deploys 1–2 name its version 1 and 3–4 its
 * version 2. Each act version's environment names its deploy's version of the user tool `S-tool`,
 * which the act step invokes; someone pinned an alias of the tool to its version 3. Every function's
 * `live` alias names its newest version.
 */
function account(options: { ended?: readonly number[]; unreadableEnvironment?: string } = {}) {
  const sfn = mockClient(SFNClient);
  const lambda = mockClient(LambdaClient);
  const order: string[] = [];
  const definition = (machine: string, deploy: number) =>
    JSON.stringify({
      StartAt: "Act",
      States: {
        Act: {
          Type: "Task",
          Resource: "arn:aws:states:::lambda:invoke",
          Parameters: { FunctionName: fn("S-act", deploy) },
          Next: "Think",
        },
        Think: {
          Type: "Task",
          Resource: "arn:aws:states:::lambda:invoke",
          Parameters: {
            FunctionName: machine === REACT ? fn("S-reason", deploy) : fn("S-attempt", deploy < 3 ? 1 : 2),
          },
          End: true,
        },
      },
    });
  for (const machine of MACHINES) {
    sfn
      .on(DescribeStateMachineAliasCommand, { stateMachineAliasArn: `${machine}:live` })
      .resolves({ routingConfiguration: [{ stateMachineVersionArn: `${machine}:4`, weight: 100 }] });
    sfn.on(ListStateMachineVersionsCommand, { stateMachineArn: machine }).resolves({
      stateMachineVersions: [4, 3, 2, 1].map((n) => ({
        stateMachineVersionArn: `${machine}:${n}`,
        creationDate: new Date(),
      })),
    });
    // The state machine itself: its definition is the last deploy's.
    sfn
      .on(DescribeStateMachineCommand, { stateMachineArn: machine })
      .resolves({ definition: definition(machine, 4) });
    for (const n of [1, 2, 3, 4]) {
      sfn.on(DescribeStateMachineCommand, { stateMachineArn: `${machine}:${n}` }).resolves({
        description: versionDescription(`0.1.0-0000000${n}`, 2),
        definition: definition(machine, n),
      });
      const running = machine === REACT && (n === 1 || n === 4) ? 1 : 0;
      sfn
        .on(ListExecutionsCommand, { stateMachineArn: `${machine}:${n}`, statusFilter: "RUNNING" })
        .resolves({ executions: Array.from({ length: running }, () => ({}) as never) });
      const ran = running > 0 || (machine === REACT && (options.ended ?? []).includes(n));
      sfn
        .on(ListExecutionsCommand, { stateMachineArn: `${machine}:${n}`, maxResults: 1 })
        .resolves({ executions: ran ? [{} as never] : [] });
    }
  }
  sfn.on(DeleteStateMachineVersionCommand).callsFake((input) => {
    order.push(`states ${input.stateMachineVersionArn}`);
    return {};
  });
  const versionsOf: Record<string, number> = {
    "S-act": 4,
    "S-reason": 4,
    "S-attempt": 2,
    "S-tool": 4,
    theirs: 8,
  };
  for (const [name, newest] of Object.entries(versionsOf)) {
    const environment = (n: number | string) =>
      name !== "S-act"
        ? undefined
        : fn("S-act", n) === options.unreadableEnvironment
          ? { Error: { ErrorCode: "KMSAccessDeniedException", Message: "no kms:Decrypt" } }
          : {
              Variables: {
                TOOLS: JSON.stringify([
                  { name: "tool", functionArn: fn("S-tool", n) },
                  // A user's own function, given as a qualified functionArn; deploy 2 named its version 7.
                  { name: "theirs", functionArn: fn("theirs", n === "2" ? 7 : 8) },
                  // Another account's function: reading it is denied.
                  { name: "shared", functionArn: SHARED },
                ]),
              },
            };
    lambda.on(ListVersionsByFunctionCommand, { FunctionName: `${FN}:${name}` }).resolves({
      Versions: ["$LATEST", ...Array.from({ length: newest }, (_, i) => String(i + 1))].map((version) => ({
        FunctionArn: fn(name, version),
        Version: version,
        Environment: environment(version === "$LATEST" ? newest : version),
      })),
    });
    // CloudFormation tags what it creates with its stack's name; the user's function is not the stack's.
    lambda
      .on(ListTagsCommand, { Resource: `${FN}:${name}` })
      .resolves({ Tags: name === "theirs" ? { team: "tickets" } : { "aws:cloudformation:stack-name": "S" } });
    lambda.on(ListAliasesCommand, { FunctionName: `${FN}:${name}` }).resolves({
      Aliases: [
        { Name: "live", FunctionVersion: String(newest) },
        ...(name === "S-tool" ? [{ Name: "pinned", FunctionVersion: "3" }] : []),
      ],
    });
  }
  const denied = Object.assign(new Error("not authorized"), { name: "AccessDeniedException" });
  lambda
    .on(ListVersionsByFunctionCommand, { FunctionName: SHARED.slice(0, SHARED.lastIndexOf(":")) })
    .rejects(denied);
  lambda.on(ListTagsCommand, { Resource: SHARED.slice(0, SHARED.lastIndexOf(":")) }).rejects(denied);
  lambda.on(DeleteFunctionCommand).callsFake((input) => {
    order.push(`lambda ${input.FunctionName}:${input.Qualifier}`);
    return {};
  });
  return { sfn, lambda, order };
}

describe("pruning a deployed stack's Lambda function versions", () => {
  let mocks: ReturnType<typeof account> | undefined;

  afterEach(() => {
    mocks?.sfn.restore();
    mocks?.lambda.restore();
  });

  it("deletes the versions only the pruned deploys named, after their state machine versions", async () => {
    // Prepare
    mocks = account();
    const versions = await listDeployedVersions(new SFNClient({}), MACHINES);

    // Act: keep the newest 1; deploys 3 and 2 go
    const result = await pruneVersions(new SFNClient({}), versions, 1, {
      lambda: { client: new LambdaClient({}), stackName: "S" },
      stateMachineArns: MACHINES,
    });

    // Assess: act and reason 2–3 and the tool version act 2 named; not S-attempt 1 (deploy 1 names
    // it) nor 2 (deploy 4), not the tool's 3 (an alias), not the user's own function nor another
    // account's, never $LATEST
    expect(result.removed.map((version) => version.label)).toEqual(["0.1.0-00000003", "0.1.0-00000002"]);
    const deleted = [fn("S-act", 2), fn("S-act", 3), fn("S-reason", 2), fn("S-reason", 3), fn("S-tool", 2)];
    expect(result.functionVersions).toEqual(deleted);
    expect(mocks.lambda.commandCalls(DeleteFunctionCommand).map((call) => call.args[0].input)).toEqual(
      deleted.map((arn) => ({
        FunctionName: arn.slice(0, arn.lastIndexOf(":")),
        Qualifier: arn.slice(arn.lastIndexOf(":") + 1),
      })),
    );
    expect(mocks.order).toEqual([
      `states ${REACT}:3`,
      `states ${REFLEXION}:3`,
      `states ${REACT}:2`,
      `states ${REFLEXION}:2`,
      ...deleted.map((arn) => `lambda ${arn}`),
    ]);
    expect(formatPrune(result, 1)).toEqual([
      "Pruned 0.1.0-00000003, 0.1.0-00000002",
      "Deleted 5 Lambda function versions only they named:",
      ...deleted.map((arn) => `  ${arn}`),
    ]);
  });

  it("keeps the function versions of a deploy a paused goal's ended run was on", async () => {
    // Prepare: version 2's only execution ended (its goal paused); only deploy 3 goes
    mocks = account({ ended: [2] });
    const versions = await listDeployedVersions(new SFNClient({}), MACHINES);

    // Act
    const result = await pruneVersions(new SFNClient({}), versions, 1, {
      lambda: { client: new LambdaClient({}), stackName: "S" },
      stateMachineArns: MACHINES,
    });

    // Assess: the tool's version 3 has an alias; act 2, reason 2 and tool 2 serve the paused goal
    expect(result.removed.map((version) => version.label)).toEqual(["0.1.0-00000003"]);
    expect(result.functionVersions).toEqual([fn("S-act", 3), fn("S-reason", 3)]);
  });

  it("deletes no function version when an environment cannot be read, and says why", async () => {
    // Prepare: what act 1 (a kept deploy's) invokes is unknown
    mocks = account({ unreadableEnvironment: fn("S-act", 1) });
    const versions = await listDeployedVersions(new SFNClient({}), MACHINES);

    // Act
    const result = await pruneVersions(new SFNClient({}), versions, 1, {
      lambda: { client: new LambdaClient({}), stackName: "S" },
      stateMachineArns: MACHINES,
    });

    // Assess: the state machine versions still go; every Lambda version stays
    expect(result.removed).toHaveLength(2);
    expect(mocks.lambda.commandCalls(DeleteFunctionCommand)).toHaveLength(0);
    expect(formatPrune(result, 1).at(-1)).toBe(
      `Kept every Lambda function version: the environment of ${fn("S-act", 1)} could not be read`,
    );
  });

  it("reads numbered versions only from a definition: never $LATEST, an alias or an unqualified ARN", () => {
    // Act
    const named = functionVersionsNamedIn(
      JSON.stringify({
        a: fn("S-act", 12),
        b: `${FN}:S-act`,
        c: fn("S-act", "$LATEST"),
        d: fn("S-act", "live"),
        e: "arn:aws-us-gov:lambda:us-gov-west-1:111122223333:function:S-act:3",
      }),
    );

    // Assess
    expect([...named]).toEqual([
      fn("S-act", 12),
      "arn:aws-us-gov:lambda:us-gov-west-1:111122223333:function:S-act:3",
    ]);
  });
});
