import { CfnOutput, type RemovalPolicy, Stack, type StackProps } from "aws-cdk-lib";
import type { IEmailIdentity } from "aws-cdk-lib/aws-ses";
import type { Construct } from "constructs";
import { EmailDoor } from "./constructs/email-door";
import { GoalDeadlines } from "./constructs/goal-deadlines";
import { GoalEventBus } from "./constructs/goal-event-bus";
import { GoalTable } from "./constructs/goal-table";
import { GoalsApi } from "./constructs/goals-api";
import { LoopSteps } from "./constructs/loop-steps";
import type { PatternLoop } from "./constructs/pattern-loop";
import { type PayloadSettings, parsePayloadSettings } from "./constructs/payload-bucket";
import { PlanExecuteLoop } from "./constructs/plan-execute-loop";
import { ReactLoop } from "./constructs/react-loop";
import { ReflexionLoop } from "./constructs/reflexion-loop";
import { ResumeHandler } from "./constructs/resume-handler";
import { SlackDoor } from "./constructs/slack-door";

// The payload settings' type and schema, for whatever reads them from configuration.
export { type PayloadSettings, PayloadSettingsSchema } from "./constructs/payload-bucket";

/**
 * The stack's output names: what `cdk deploy` prints and what the local runtime and the CLI read
 * (from `cdk.out` or the deployed stack). Renaming one breaks them.
 */
export const GOAL_LOOPS_OUTPUTS = {
  goalTableName: "GoalTableName",
  goalEventBusName: "GoalEventBusName",
  reactStateMachineArn: "ReactStateMachineArn",
  planExecuteStateMachineArn: "PlanExecuteStateMachineArn",
  reflexionStateMachineArn: "ReflexionStateMachineArn",
  goalsApiUrl: "GoalsApiUrl",
} as const;

export interface GoalLoopsStackProps extends StackProps {
  /**
   * What happens to the goal table, its key and its payload bucket when they leave the stack.
   *
   * @default RemovalPolicy.RETAIN
   */
  readonly removalPolicy?: RemovalPolicy;

  /**
   * The goal store's payload bucket: items over `inlineMaxBytes` move their large attributes to
   * it, files and tool results up to `maxBytes` are accepted, objects expire after
   * `expireAfterDays`. Checked at synth (`PayloadSettingsSchema`): a bad value fails naming it,
   * such as `payloads.inlineMaxBytes`.
   *
   * @default - every setting's default: { expireAfterDays: 365, inlineMaxBytes: 65536, maxBytes: 52428800 }
   */
  readonly payloads?: PayloadSettings;

  /**
   * The SES identity (a verified address) approval emails are sent from.
   *
   * @default - no sender: the email door still decides links, but no email is sent from AWS
   */
  readonly approvalEmailSender?: IEmailIdentity;
}

/**
 * The goal-loops stack. It only composes constructs, one per concern: the goal store (table and
 * payload bucket), the human-input bus, the ReAct loop and the goals API, wired through grants
 * (`goalTable.grantReadWriteData(fn)`, `stateMachine.grantStartExecution(fn)`).
 *
 * Construct IDs and output names are a public contract: renaming one replaces the resource.
 */
export class GoalLoopsStack extends Stack {
  readonly goalTable: GoalTable;
  readonly goalEventBus: GoalEventBus;
  /** The steps every pattern shares (LoadGoal, Act, AwaitApproval …). */
  readonly loopSteps: LoopSteps;
  readonly reactLoop: ReactLoop;
  readonly planExecuteLoop: PlanExecuteLoop;
  readonly reflexionLoop: ReflexionLoop;
  readonly goalsApi: GoalsApi;
  readonly emailDoor: EmailDoor;
  readonly resumeHandler: ResumeHandler;
  readonly slackDoor: SlackDoor;
  /** One EventBridge Scheduler schedule per goal deadline, so limits hold while nothing runs. */
  readonly goalDeadlines: GoalDeadlines;

  constructor(scope: Construct, id: string, props: GoalLoopsStackProps = {}) {
    super(scope, id, props);
    const payloads = parsePayloadSettings(props.payloads, "GoalLoopsStack");

    this.goalTable = new GoalTable(this, "GoalTable", { removalPolicy: props.removalPolicy, payloads });
    this.goalEventBus = new GoalEventBus(this, "GoalEventBus");
    this.loopSteps = new LoopSteps(this, "LoopSteps", { goalTable: this.goalTable });
    const loopProps = { goalTable: this.goalTable, steps: this.loopSteps };
    this.reactLoop = new ReactLoop(this, "ReactLoop", loopProps);
    this.planExecuteLoop = new PlanExecuteLoop(this, "PlanExecuteLoop", loopProps);
    this.reflexionLoop = new ReflexionLoop(this, "ReflexionLoop", loopProps);
    const loops: PatternLoop[] = [this.reactLoop, this.planExecuteLoop, this.reflexionLoop];
    const stateMachines = Object.fromEntries(loops.map((loop) => [loop.pattern, loop.stateMachine]));
    this.goalsApi = new GoalsApi(this, "GoalsApi", {
      goalTable: this.goalTable,
      stateMachines,
      goalEventBus: this.goalEventBus,
      models: this.reactLoop,
    });
    this.resumeHandler = new ResumeHandler(this, "ResumeHandler", {
      goalTable: this.goalTable,
      goalEventBus: this.goalEventBus,
      stateMachines,
    });
    this.goalDeadlines = new GoalDeadlines(this, "GoalDeadlines", { goalEventBus: this.goalEventBus });
    // The API sets a new goal's schedule and moves it on POST /limits; the resume handler moves it
    // when a limit decision extends the deadline.
    const busArn = this.goalEventBus.eventBus.eventBusArn;
    this.goalDeadlines.grantSetDeadlines(this.goalsApi.handler, busArn);
    this.goalDeadlines.grantSetDeadlines(this.resumeHandler.function, busArn);
    // RequestApproval sets it again as every wait starts, so no wait outlives the deadline.
    this.goalDeadlines.grantSetDeadlines(this.loopSteps.functions.requestApproval, busArn);
    this.emailDoor = new EmailDoor(this, "EmailDoor", {
      goalTable: this.goalTable,
      goalEventBus: this.goalEventBus,
      restApi: this.goalsApi.restApi,
      senderIdentity: props.approvalEmailSender,
    });
    this.slackDoor = new SlackDoor(this, "SlackDoor", {
      goalTable: this.goalTable,
      goalEventBus: this.goalEventBus,
      restApi: this.goalsApi.restApi,
    });
    this.wireApprovalNotifiers();

    new CfnOutput(this, GOAL_LOOPS_OUTPUTS.goalTableName, {
      description: "DynamoDB table holding goals, their event logs, checkpoints and approvals",
      value: this.goalTable.table.tableName,
    });
    new CfnOutput(this, GOAL_LOOPS_OUTPUTS.goalEventBusName, {
      description: "EventBridge bus that carries human inputs (approvals, revisions, resumes, cancellations)",
      value: this.goalEventBus.eventBus.eventBusName,
    });
    const outputNames = {
      react: GOAL_LOOPS_OUTPUTS.reactStateMachineArn,
      plan_execute: GOAL_LOOPS_OUTPUTS.planExecuteStateMachineArn,
      reflexion: GOAL_LOOPS_OUTPUTS.reflexionStateMachineArn,
    };
    for (const loop of loops) {
      new CfnOutput(this, outputNames[loop.pattern], {
        description: `The ${loop.pattern} loop's state machine`,
        value: loop.stateMachine.stateMachineArn,
      });
    }
    new CfnOutput(this, GOAL_LOOPS_OUTPUTS.goalsApiUrl, {
      description: "Base URL of the goals API (IAM-signed requests): POST /goals, GET /goals …",
      value: this.goalsApi.url,
    });
  }

  /**
   * RequestApproval posts approval requests to Slack and emails them with signed links. The doors
   * come after the ReAct loop (they need the REST API, which needs the state machine), so their
   * settings are added to the function afterwards; they name only the secrets and the API's id,
   * which depend on nothing of the loop, so no cycle.
   */
  private wireApprovalNotifiers(): void {
    const requestApproval = this.loopSteps.functions.requestApproval;
    requestApproval.addEnvironment({
      ...this.slackDoor.notifierEnvironment,
      ...this.emailDoor.senderEnvironment,
    });
    this.slackDoor.grantPostApprovalMessages(requestApproval);
    this.emailDoor.grantSendApprovalEmails(requestApproval);
  }
}
