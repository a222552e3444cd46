import { decideApprovalFromDoor } from "../../lambdas/core/human/decide-approval";
import { handleRetryRequested } from "../../lambdas/core/human/handle-retry";
import type { HumanInputEvent } from "../../lambdas/core/human/human-input-events";
import { handleApprovalDecided } from "../../lambdas/core/human/resume-handler";
import { continueAsNewStep } from "../../lambdas/core/loop/continue-as-new";
import { requestApproval } from "../../lambdas/core/loop/gates/request-approval";
import type { LoopSettings } from "../../lambdas/core/loop/loop-deps";
import { reattachGoal } from "../../lambdas/core/loop/reattach-goal";
import { recordFailure } from "../../lambdas/core/loop/record-failure";
import { sequentialRunIds } from "../../lambdas/core/loop/run-ids";
import type { StepResult } from "../../lambdas/core/loop/step-result";
import type { GoalStore } from "../../lambdas/core/ports/goal-store";
import type { RunRef } from "../../lambdas/core/ports/run-control";
import { type TaskCallback, TaskTokenGoneError } from "../../lambdas/core/ports/task-callback";
import { InjectedCrash, type LoopDriver } from "../unit/loop/support";

/**
 * The world around one goal's runs, as the local runtime and Step Functions make it: a run executes
 * its states until it waits on a task token, ends, or its process dies (a commit that never lands);
 * a restart re-attaches the goal to a new run; a failed run is retried in a new run or redriven; a
 * human decides at a door whenever they like. Every effect goes through the real core code and the
 * goal store under test; only the process boundaries are simulated.
 */

/**
 * The goal store as a run's process sees it: `dieAtCommit(n)` makes its n-th commit from now fail
 * as a killed process would (nothing of it stored, the step never returns).
 */
export class MortalStore<G extends GoalStore = GoalStore> {
  readonly goals: G;
  private commitsLeft: number | undefined;

  constructor(real: G) {
    this.goals = new Proxy(real, {
      get: (target, property, receiver) => {
        if (property !== "commit") return Reflect.get(target, property, receiver);
        return (...args: Parameters<GoalStore["commit"]>) => {
          if (this.commitsLeft !== undefined) {
            this.commitsLeft -= 1;
            if (this.commitsLeft === 0) {
              this.commitsLeft = undefined;
              return Promise.reject(new InjectedCrash("the run's process died at a commit"));
            }
          }
          return target.commit(...args);
        };
      },
    });
  }

  dieAtCommit(nth: number | undefined): void {
    this.commitsLeft = nth;
  }
}

/** Step Functions' side of task tokens: a token answers once, and only while its run lives. */
export class TaskTokens implements TaskCallback {
  private readonly live = new Set<string>();
  private readonly answers = new Map<string, StepResult>();
  private issued = 0;

  issue(runId: string): string {
    this.issued += 1;
    const token = `token-${runId}-${this.issued}`;
    this.live.add(token);
    return token;
  }

  /** The process that held every wait died. */
  dieAll(): void {
    this.live.clear();
  }

  async succeed(token: string, output: StepResult): Promise<void> {
    if (!this.live.delete(token)) throw new TaskTokenGoneError("InvalidToken");
    this.answers.set(token, output);
  }

  answerTo(token: string): StepResult | undefined {
    return this.answers.get(token);
  }
}

/** How a dead run's goal gets a run again. */
export type Takeover = "reattach" | "retry" | "redrive";

const GATES = new Set(["approval", "limit_decision", "decision"]);
const STATE_MACHINE_ARN = "arn:aws:states:us-east-1:111111111111:stateMachine:loop";

export class RunChainWorld<S extends LoopSettings> {
  /** The run whose execution is alive, and the token its wait holds, if it waits. */
  private live: { readonly runId: string; token?: string } | undefined;
  private approvals = 0;

  constructor(
    private readonly driver: LoopDriver<S>,
    /** The store the runs' processes use (the driver's): commits there may die. */
    private readonly mortal: MortalStore<GoalStore>,
    /** The store as the doors and the restart see it: never dies. */
    private readonly goals: GoalStore,
    readonly goalId: string,
    private readonly tokens = new TaskTokens(),
  ) {}

  /** Starts the goal's first run; its process dies at its `dieAt`-th commit, if given. */
  start(dieAt?: number): Promise<void> {
    return this.runFrom(this.driver.load(this.goalId, "r1"), "r1", dieAt);
  }

  /** Whether a run lives, and whether it waits on a token. */
  get liveRun(): { readonly runId: string; readonly waits: boolean } | undefined {
    return this.live && { runId: this.live.runId, waits: this.live.token !== undefined };
  }

  /** The live run's process dies (a SIGKILL, a stop): every wait it held goes with it. */
  kill(): void {
    this.tokens.dieAll();
    this.live = undefined;
  }

  /**
   * The goal gets a new run, if it needs one: a re-attach (a restart), or for a running goal a
   * failure recorded and a retry (as a new run, or a redrive of the same one). With `loads`, the
   * run executes until it waits, ends or its process dies at its `dieAt`-th commit.
   */
  async takeOver(how: Takeover, options: { loads: boolean; dieAt?: number }): Promise<void> {
    this.kill();
    const found = await this.goals.getGoal(this.goalId);
    const status = found?.record.status;
    if (status !== "running" && status !== "waiting" && status !== "failed") return;
    const start =
      how === "reattach" || status === "waiting"
        ? await this.reattach()
        : await this.retry(how === "redrive");
    if (start && options.loads) await this.runFrom(start.position, start.runId, options.dieAt);
  }

  /** A human approves the approval the goal waits for, if it waits; a live wait goes on at once. */
  async decide(): Promise<boolean> {
    const found = await this.goals.getGoal(this.goalId);
    const approvalId = found?.record.status === "waiting" ? found.record.waitingFor?.approvalId : undefined;
    if (!approvalId) return false;
    const published: HumanInputEvent[] = [];
    const result = await decideApprovalFromDoor(
      {
        goals: this.goals,
        publisher: { publish: async (event) => void published.push(event) },
        now: this.driver.now,
      },
      { approvalId, decision: "approve", decidedBy: "ana", channel: "api" },
    );
    const event = published[0];
    if (event?.detailType !== "Approval Decided") {
      // Says what the door answered instead. A run-chains flake on DynamoDB Local stopped here with
      // `not_found`: its TTL job had deleted the approval (see createFakeClockGoalTable).
      throw new Error(
        `no decision was published for approval ${approvalId}: the door answered ${result.outcome}` +
          ` (approval ${"approval" in result ? `${result.approval.status}, expires ${result.approval.expiresAt}` : "not found"}, now ${this.driver.now().toISOString()})`,
      );
    }
    await handleApprovalDecided(
      { goals: this.goals, callback: this.tokens, now: this.driver.now },
      event.detail,
    );
    const token = this.live?.token;
    const answer = token === undefined ? undefined : this.tokens.answerTo(token);
    if (answer && this.live) await this.runFrom(Promise.resolve(answer), this.live.runId);
    return true;
  }

  /**
   * Until the goal ends: a waiting goal is approved, a goal no run lives for gets one (a restart),
   * and that run executes with nothing dying. Throws when it takes more than `rounds`.
   */
  async finish(rounds = 12): Promise<void> {
    for (let round = 0; round < rounds; round += 1) {
      const found = await this.goals.getGoal(this.goalId);
      const status = found?.record.status;
      if (status !== "running" && status !== "waiting" && status !== "failed") return;
      if (!this.live) {
        await this.takeOver(status === "failed" ? "retry" : "reattach", { loads: true });
      } else if (!(await this.decide())) {
        throw new Error(`goal ${this.goalId} is ${status} in a live run that does not wait`);
      }
    }
    throw new Error(`goal ${this.goalId} did not end within ${rounds} rounds`);
  }

  private async reattach() {
    const reattached = await reattachGoal({ goals: this.goals, now: this.driver.now }, this.goalId);
    if (!reattached) return undefined;
    return { runId: reattached.runId, position: this.driver.load(this.goalId, reattached.runId) };
  }

  /** RecordFailure catches the dead run's error, then `POST /retry`: a new run, or a redrive. */
  private async retry(redrive: boolean) {
    const found = await this.goals.getGoal(this.goalId);
    if (!found) return undefined;
    const failedRunId = found.record.runId;
    const failure = { goalId: this.goalId, runId: failedRunId, error: { Error: "States.Timeout" } };
    const ports = { goals: this.goals, now: this.driver.now };
    const options = { fatalErrorNames: new Set<string>(), terminatingErrorNames: new Set<string>() };
    if (found.record.status === "running") await recordFailure(ports, options, failure);
    const started: RunRef[] = [];
    const retried = await handleRetryRequested(
      {
        ...ports,
        ids: sequentialRunIds,
        stateMachineArns: { [found.record.pattern]: STATE_MACHINE_ARN },
        runIsLive: async () => false,
        startRun: async (run) => void started.push(run),
        ...(redrive ? { redriveRun: { isRedrivable: async () => true, redrive: async () => true } } : {}),
      },
      {
        goalId: this.goalId,
        requestedBy: "ana",
        channel: "api",
        requestedAt: this.driver.now().toISOString(),
      },
    );
    if (retried.outcome === "ignored") return undefined;
    if (retried.outcome === "new_run") {
      return { runId: retried.runId, position: this.driver.load(this.goalId, retried.runId) };
    }
    // The redriven execution runs RecordFailure again, which hands the run back to the loop.
    const handedBack = await recordFailure(ports, options, failure);
    if (handedBack.outcome !== "redriven") throw new Error(`a redrive found ${handedBack.outcome}`);
    return { runId: failedRunId, position: Promise.resolve(handedBack.next) };
  }

  /**
   * Executes run `runId` from `position` as its state machine would, until it waits on a token, ends,
   * or its process dies at its `dieAt`-th commit (then no run lives).
   */
  private async runFrom(position: Promise<StepResult>, runId: string, dieAt?: number): Promise<void> {
    this.live = { runId };
    this.mortal.dieAtCommit(dieAt);
    try {
      let answer = await position;
      for (let transitions = 0; transitions < 200; transitions += 1) {
        if (GATES.has(answer.next)) {
          const token = this.tokens.issue(answer.runId);
          this.live = { runId: answer.runId, token };
          await this.park(answer, token);
          const woken = this.tokens.answerTo(token);
          if (!woken) return;
          this.live = { runId: answer.runId };
          answer = woken;
          continue;
        }
        if (answer.next === "continue_as_new") {
          const run = await continueAsNewStep(this.driver.ports(this.mortal.goals), {
            ...answer,
            stateMachineArn: STATE_MACHINE_ARN,
          });
          if (!run) return this.end();
          this.live = { runId: run.runId };
          answer = await this.driver.load(this.goalId, run.runId);
          continue;
        }
        const step = this.driver.step(answer);
        if (!step) return this.end();
        answer = await step;
      }
      throw new Error(`run ${runId} of goal ${this.goalId} did not settle within 200 transitions`);
    } catch (error) {
      if (!(error instanceof InjectedCrash)) throw error;
      this.kill();
    } finally {
      this.mortal.dieAtCommit(undefined);
    }
  }

  private end(): void {
    this.live = undefined;
  }

  /** AwaitApproval's Lambda with a token of this run (it may answer the token at once). */
  private park(position: StepResult, token: string) {
    if (position.next !== "approval" && position.next !== "limit_decision" && position.next !== "decision") {
      throw new Error(`no gate at ${position.next}`);
    }
    return requestApproval(
      {
        goals: this.mortal.goals,
        outbox: this.driver.table.adapters.outbox,
        callback: this.tokens,
        now: this.driver.now,
        newApprovalId: () => {
          this.approvals += 1;
          return `ap-${this.goalId}-${this.approvals}`;
        },
      },
      { approvalTimeoutSeconds: 3600 },
      { ...position, next: position.next, taskToken: token },
    );
  }
}
