import { Duration } from "aws-cdk-lib";
import { type IResource, LambdaIntegration, ResponseTransferMode } from "aws-cdk-lib/aws-apigateway";
import type { RetentionDays } from "aws-cdk-lib/aws-logs";
import { Construct } from "constructs";
import { PARTITION_PREFIXES } from "../../lambdas/adapters/dynamodb/table-design";
import { GoalLoopFunction, type GoalLoopLogLevel } from "./goal-loop-function";
import type { GoalTable } from "./goal-table";
import { acknowledgeGoalTableGrant } from "./nag-acknowledgments";

/** API Gateway ends a streamed response at 15 minutes (FACTS); the function may run as long. */
const MAX_STREAM = Duration.minutes(15);

export interface GoalEventStreamProps {
  /** The goal store the stream reads goals and events from. */
  readonly goalTable: GoalTable;
  /** @default "INFO" */
  readonly logLevel?: GoalLoopLogLevel;
  /** @default RetentionDays.ONE_MONTH */
  readonly logRetention?: RetentionDays;
  /**
   * Streams open at once; past it a new one answers 429 with Retry-After. Each holds one
   * concurrent execution of the stream function for up to 15 minutes.
   *
   * @default - no bound
   */
  readonly maxOpen?: number;
}

/**
 * `GET /goals/{goalId}/stream`: a goal's events as Server-Sent Events, through API Gateway REST
 * response streaming (`responseTransferMode: STREAM`, Lambda `InvokeWithResponseStream`). A
 * function of its own, read-only on the goal store, so the goals API stays buffered and open
 * streams never use its concurrency.
 */
export class GoalEventStream extends Construct {
  readonly handler: GoalLoopFunction;

  constructor(scope: Construct, id: string, props: GoalEventStreamProps) {
    super(scope, id);
    this.handler = new GoalLoopFunction(this, "Handler", {
      bundle: "goal-event-stream",
      description: "goal-loops event stream: a goal's events as Server-Sent Events",
      timeout: MAX_STREAM,
      logLevel: props.logLevel,
      logRetention: props.logRetention,
      environment: {
        ...props.goalTable.environment,
        ...(props.maxOpen === undefined ? {} : { MAX_OPEN_STREAMS: String(props.maxOpen) }),
      },
    });
    props.goalTable.grantReadData(this.handler);
    acknowledgeGoalTableGrant(this.handler.role, props.goalTable);
    // The open streams' leases: one small item, rewritten whole by key; nothing else written.
    if (props.maxOpen !== undefined) {
      props.goalTable.grantItems(this.handler, { putSmall: [PARTITION_PREFIXES.streams] });
    }
  }

  /** Adds `GET <goal>/stream` under a goal resource (`/goals/{goalId}`), authorized like the rest (the API's default). */
  addRoute(goal: IResource): void {
    const integration = new LambdaIntegration(this.handler.function, {
      // One permission for the whole API, as for the goals API function.
      scopePermissionToMethod: false,
      responseTransferMode: ResponseTransferMode.STREAM,
      // A streamed integration may run up to 15 minutes; the function ends each stream before.
      timeout: MAX_STREAM,
    });
    goal.addResource("stream").addMethod("GET", integration, {
      requestParameters: { "method.request.path.goalId": true },
    });
  }
}
