import * as z from "zod";
import { type AwsJsonOperation, startAwsJsonServer } from "../shared/aws-json-server";
import type { JsonObject, JsonValue } from "../shared/cloud-assembly-model";
import { AwsApiError } from "../shared/errors";
import type { RunningServer } from "../shared/listen";
import type { Execution } from "./execution";
import type { HistoryEvent } from "./execution-history";
import type { StateMachineRunner } from "./state-machine-runner";

const STATUSES = ["RUNNING", "SUCCEEDED", "FAILED", "ABORTED", "TIMED_OUT"] as const;

const StartExecutionSchema = z.object({
  stateMachineArn: z.string(),
  input: z.string().optional(),
  name: z.string().optional(),
});
const ExecutionArnSchema = z.object({ executionArn: z.string() });
const StopExecutionSchema = ExecutionArnSchema.extend({
  error: z.string().optional(),
  cause: z.string().optional(),
});
const TokenSchema = z.object({ taskToken: z.string() });
const SendTaskSuccessSchema = TokenSchema.extend({ output: z.string() });
const SendTaskFailureSchema = TokenSchema.extend({
  error: z.string().optional(),
  cause: z.string().optional(),
});
const PageSchema = z.object({
  maxResults: z.number().int().min(0).max(1000).optional(),
  nextToken: z.string().optional(),
});
const StateMachineArnSchema = z.object({ stateMachineArn: z.string() });
const GetExecutionHistorySchema = PageSchema.extend({
  executionArn: z.string(),
  reverseOrder: z.boolean().optional(),
  includeExecutionData: z.boolean().optional(),
});
const ListExecutionsSchema = z.object({
  stateMachineArn: z.string().optional(),
  statusFilter: z.enum(STATUSES).optional(),
  maxResults: z.number().int().min(0).max(1000).optional(),
  nextToken: z.string().optional(),
});

const ListVersionsSchema = PageSchema.extend({ stateMachineArn: z.string() });
const VersionArnSchema = z.object({ stateMachineVersionArn: z.string() });
const AliasArnSchema = z.object({ stateMachineAliasArn: z.string() });
const UpdateAliasSchema = AliasArnSchema.extend({
  routingConfiguration: z
    .array(z.object({ stateMachineVersionArn: z.string(), weight: z.number().int().min(0).max(100) }))
    .optional(),
  description: z.string().optional(),
});

/** DescribeStateMachineAlias's answer, or ResourceNotFound as AWS answers an unknown alias. */
function aliasJson(runner: StateMachineRunner, aliasArn: string): JsonObject {
  const target = runner.aliasTarget(aliasArn);
  if (target === undefined) throw new AwsApiError("ResourceNotFound", `Resource not found: '${aliasArn}'`);
  return {
    stateMachineAliasArn: aliasArn,
    name: aliasArn.slice(aliasArn.lastIndexOf(":") + 1),
    routingConfiguration: [{ stateMachineVersionArn: target, weight: 100 }],
    creationDate: runner.createdAt.getTime() / 1000,
  };
}

/** Parses a request, or answers ValidationException naming the bad field, as AWS does. */
function parse<S extends z.ZodType>(schema: S, request: JsonObject): z.output<S> {
  const result = schema.safeParse(request);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  throw new AwsApiError(
    "ValidationException",
    `${issue?.path.join(".") || "request"}: ${issue?.message ?? "invalid"}`,
  );
}

/** JSON 1.0 timestamps are epoch seconds. */
const seconds = (date: Date | undefined) => (date === undefined ? undefined : date.getTime() / 1000);

function withoutUndefined(value: Record<string, JsonValue | undefined>): JsonObject {
  return Object.fromEntries(
    Object.entries(value).filter((entry): entry is [string, JsonValue] => entry[1] !== undefined),
  );
}

function describeExecution(execution: Execution): JsonObject {
  return withoutUndefined({
    executionArn: execution.executionArn,
    stateMachineArn: execution.stateMachineArn,
    stateMachineVersionArn: execution.versionArn,
    stateMachineAliasArn: execution.aliasArn,
    name: execution.name,
    status: execution.status,
    startDate: seconds(execution.startDate),
    stopDate: seconds(execution.stopDate),
    input: execution.inputText,
    inputDetails: { included: true },
    output: execution.status === "SUCCEEDED" ? JSON.stringify(execution.output ?? null) : undefined,
    error: execution.error,
    cause: execution.cause,
    redriveCount: 0,
  });
}

/**
 * One page of a list, with the position of the next as its token (Step Functions' tokens are
 * opaque; a number here). A token that is not one of ours is InvalidToken, as AWS answers it.
 */
function page<T>(all: readonly T[], maxResults: number | undefined, nextToken: string | undefined) {
  const start = nextToken === undefined ? 0 : Number(nextToken);
  if (!Number.isInteger(start) || start < 0 || start > all.length) {
    throw new AwsApiError("InvalidToken", `Invalid Token: '${nextToken}'`);
  }
  const size = maxResults === undefined || maxResults === 0 ? 100 : maxResults;
  const end = start + size;
  return { items: all.slice(start, end), nextToken: end < all.length ? String(end) : undefined };
}

/** A history event on the wire: epoch seconds, and its details under the type's own key. */
function historyEventJson(event: HistoryEvent, includeData: boolean): JsonObject {
  const details = event.details;
  const value =
    details === undefined || includeData
      ? details?.value
      : Object.fromEntries(
          Object.entries(details.value).filter(([key]) => key !== "input" && key !== "output"),
        );
  return withoutUndefined({
    timestamp: event.timestamp.getTime() / 1000,
    type: event.type,
    id: event.id,
    previousEventId: event.previousEventId,
    ...(details === undefined || value === undefined ? {} : { [details.key]: value }),
  });
}

function knownMachine(runner: StateMachineRunner, stateMachineArn: string) {
  const machine = runner.stateMachines().find((spec) => spec.arn === stateMachineArn);
  if (machine === undefined) {
    throw new AwsApiError("StateMachineDoesNotExist", `State Machine Does Not Exist: '${stateMachineArn}'`);
  }
  return machine;
}

function existing(runner: StateMachineRunner, executionArn: string): Execution {
  const execution = runner.describe(executionArn);
  if (execution === undefined)
    throw new AwsApiError("ExecutionDoesNotExist", `Execution Does Not Exist: '${executionArn}'`);
  return execution;
}

/**
 * The Step Functions API (JSON 1.0) over the local runner, for Lambda code, the CLI and tests that
 * use @aws-sdk/client-sfn through `AWS_ENDPOINT_URL_SFN`.
 */
export function startSfnEndpoint(runner: StateMachineRunner, port = 0): Promise<RunningServer> {
  const operations: Record<string, AwsJsonOperation> = {
    StartExecution: (request) => {
      const { stateMachineArn, input = "{}", name } = parse(StartExecutionSchema, request);
      const execution = runner.startExecution(stateMachineArn, input, name);
      return { executionArn: execution.executionArn, startDate: execution.startDate.getTime() / 1000 };
    },
    DescribeExecution: (request) =>
      describeExecution(existing(runner, parse(ExecutionArnSchema, request).executionArn)),
    StopExecution: (request) => {
      const { executionArn, error, cause } = parse(StopExecutionSchema, request);
      const execution = runner.stop(executionArn, { error, cause });
      return { stopDate: seconds(execution.stopDate) ?? Date.now() / 1000 };
    },
    ListExecutions: (request) => {
      const { stateMachineArn, statusFilter, maxResults, nextToken } = parse(ListExecutionsSchema, request);
      const known = (arn: string) =>
        runner.stateMachineArns().includes(arn) ||
        runner.version(arn) !== undefined ||
        runner.aliasTarget(arn) !== undefined;
      if (stateMachineArn !== undefined && !known(stateMachineArn)) {
        throw new AwsApiError(
          "StateMachineDoesNotExist",
          `State Machine Does Not Exist: '${stateMachineArn}'`,
        );
      }
      const all = runner.list({ stateMachineArn, status: statusFilter });
      const start = nextToken === undefined ? 0 : Number(nextToken);
      const pageSize = maxResults === undefined || maxResults === 0 ? 100 : maxResults;
      const page = all.slice(start, start + pageSize);
      return withoutUndefined({
        executions: page.map((e) =>
          withoutUndefined({
            executionArn: e.executionArn,
            stateMachineArn: e.stateMachineArn,
            stateMachineVersionArn: e.versionArn,
            stateMachineAliasArn: e.aliasArn,
            name: e.name,
            status: e.status,
            startDate: seconds(e.startDate),
            stopDate: seconds(e.stopDate),
          }),
        ),
        nextToken: start + pageSize < all.length ? String(start + pageSize) : undefined,
      });
    },
    GetExecutionHistory: (request) => {
      const { executionArn, maxResults, nextToken, reverseOrder, includeExecutionData } = parse(
        GetExecutionHistorySchema,
        request,
      );
      const history = existing(runner, executionArn).history();
      const ordered = reverseOrder ? history.reverse() : history;
      const { items, nextToken: next } = page(ordered, maxResults, nextToken);
      return withoutUndefined({
        events: items.map((event) => historyEventJson(event, includeExecutionData ?? true)),
        nextToken: next,
      });
    },
    ListStateMachines: (request) => {
      const { maxResults, nextToken } = parse(PageSchema, request);
      const { items, nextToken: next } = page(runner.stateMachines(), maxResults, nextToken);
      return withoutUndefined({
        stateMachines: items.map((spec) => ({
          stateMachineArn: spec.arn,
          name: spec.name,
          type: spec.type,
          creationDate: runner.createdAt.getTime() / 1000,
        })),
        nextToken: next,
      });
    },
    DescribeStateMachine: (request): JsonObject => {
      const { stateMachineArn } = parse(StateMachineArnSchema, request);
      const version = runner.version(stateMachineArn);
      if (version !== undefined) {
        // A version: its own definition and the description its deploy gave it.
        return {
          stateMachineArn: version.arn,
          name: version.spec.name,
          status: "ACTIVE",
          definition: JSON.stringify(version.spec.definition),
          roleArn: `arn:aws:iam::000000000000:role/${version.spec.name}-role`,
          type: version.spec.type,
          description: version.description,
          creationDate: version.creationDate.getTime() / 1000,
        };
      }
      const spec = knownMachine(runner, stateMachineArn);
      return {
        stateMachineArn: spec.arn,
        name: spec.name,
        status: "ACTIVE",
        definition: JSON.stringify(spec.definition),
        roleArn: `arn:aws:iam::000000000000:role/${spec.name}-role`,
        type: spec.type,
        creationDate: runner.createdAt.getTime() / 1000,
      };
    },
    ListStateMachineVersions: (request) => {
      const { stateMachineArn, maxResults, nextToken } = parse(ListVersionsSchema, request);
      knownMachine(runner, stateMachineArn);
      const { items, nextToken: next } = page(runner.versionsOf(stateMachineArn), maxResults, nextToken);
      return withoutUndefined({
        stateMachineVersions: items.map((version) => ({
          stateMachineVersionArn: version.arn,
          creationDate: version.creationDate.getTime() / 1000,
        })),
        nextToken: next,
      });
    },
    DescribeStateMachineAlias: (request) => {
      const { stateMachineAliasArn } = parse(AliasArnSchema, request);
      return aliasJson(runner, stateMachineAliasArn);
    },
    ListStateMachineAliases: (request) => {
      const { stateMachineArn } = parse(StateMachineArnSchema, request);
      knownMachine(runner, stateMachineArn);
      const aliasArn = `${stateMachineArn}:live`;
      return {
        stateMachineAliases:
          runner.aliasTarget(aliasArn) === undefined
            ? []
            : [{ stateMachineAliasArn: aliasArn, creationDate: 0 }],
      };
    },
    UpdateStateMachineAlias: (request) => {
      const { stateMachineAliasArn, routingConfiguration } = parse(UpdateAliasSchema, request);
      const [route, ...more] = routingConfiguration ?? [];
      if (route === undefined || more.length > 0 || route.weight !== 100) {
        // Routing between two versions (gradual rollout) is not run locally.
        throw new AwsApiError(
          "ValidationException",
          "the local runtime routes an alias to one version (weight 100)",
        );
      }
      runner.updateAlias(stateMachineAliasArn, route.stateMachineVersionArn);
      return { updateDate: Date.now() / 1000 };
    },
    DeleteStateMachineVersion: (request) => {
      runner.deleteVersion(parse(VersionArnSchema, request).stateMachineVersionArn);
      return {};
    },
    SendTaskSuccess: (request) => {
      const { taskToken, output } = parse(SendTaskSuccessSchema, request);
      runner.tokens.sendTaskSuccess(taskToken, output);
      return {};
    },
    SendTaskFailure: (request) => {
      const { taskToken, error, cause } = parse(SendTaskFailureSchema, request);
      runner.tokens.sendTaskFailure(taskToken, error, cause);
      return {};
    },
    SendTaskHeartbeat: (request) => {
      runner.tokens.sendTaskHeartbeat(parse(TokenSchema, request).taskToken);
      return {};
    },
  };
  return startAwsJsonServer({ targetPrefix: "AWSStepFunctions", jsonVersion: "1.0", operations, port });
}
