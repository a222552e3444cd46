import { Worker } from "node:worker_threads";
import * as z from "zod";
import { type DynamoBackend, startDynalite } from "../test/support/dynamo-backends";

const ReplySchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("ready") }),
  z.object({ type: z.literal("times"), times: z.array(z.number()) }),
  z.object({ type: z.literal("error"), message: z.string() }),
]);
type Reply = z.infer<typeof ReplySchema>;

/**
 * The baseline of the orchestration overhead: the same core step functions as the Lambdas (LoadGoal,
 * VerifyAndReason, which acts too, ContinueAsNew) called one after another, without Step Functions,
 * Lambda sandboxes or an API, on the same work and the same threads as the local runtime:
 * - the steps run in a worker thread of their own (as a Lambda sandbox is one), and DynamoDB
 *   (dynalite over HTTP) and the Bedrock endpoint answer on the main thread, as the local stack's do;
 *   so the local side's use of two cores is the baseline's too, and the ratio holds on a loaded machine;
 * - the model calls go through the production Bedrock adapter and runtime client, over HTTP/2 to the
 *   plain stack's own local Bedrock endpoint and the same fixture, which checks cache points and signs
 *   and checks reasoning blocks as it does for the Lambdas.
 * The worker stays up between goals, so its code is as warm as a warm sandbox's.
 */
export class InProcessBaseline {
  /** The reply the bench waits for: one request at a time, each answered by one message. */
  private pending: { resolve: (reply: Reply) => void; reject: (error: Error) => void } | undefined;

  private constructor(
    private readonly worker: Worker,
    private readonly dynamodb: DynamoBackend,
  ) {
    const settle = (outcome: { reply: Reply } | { error: Error }) => {
      const waiting = this.pending;
      this.pending = undefined;
      if ("reply" in outcome) waiting?.resolve(outcome.reply);
      else waiting?.reject(outcome.error);
    };
    worker.on("message", (raw: unknown) => settle({ reply: ReplySchema.parse(raw) }));
    worker.on("error", (error) => settle({ error }));
    worker.on("exit", (code) =>
      settle({ error: new Error(`the in-process baseline's worker exited (${code})`) }),
    );
  }

  static async start(options: {
    readonly bedrockRuntimeUrl: string;
    readonly contextBudgetTokens: number;
  }): Promise<InProcessBaseline> {
    const dynamodb = await startDynalite();
    const worker = new Worker(new URL("./in-process-worker.mjs", import.meta.url), {
      workerData: { dynamodbEndpoint: dynamodb.endpoint, ...options },
      // As the local runtime sets it for its functions: no EMF lines for the goal metrics.
      env: { ...process.env, POWERTOOLS_METRICS_DISABLED: "true" },
    });
    const baseline = new InProcessBaseline(worker, dynamodb);
    const first = await baseline.reply();
    if (first.type !== "ready")
      throw new Error(`the in-process baseline did not start: ${JSON.stringify(first)}`);
    return baseline;
  }

  /** One goal of `iterations` on the baseline: the wall time of every iteration (reason + act), in ms. */
  async run(iterations: number): Promise<number[]> {
    const answered = this.reply();
    this.worker.postMessage({ type: "run", iterations });
    const reply = await answered;
    if (reply.type === "times") return reply.times;
    throw new Error(
      `the in-process baseline's goal failed: ${reply.type === "error" ? reply.message : reply.type}`,
    );
  }

  async close(): Promise<void> {
    this.worker.removeAllListeners("exit");
    await this.worker.terminate();
    await this.dynamodb.stop();
  }

  private reply(): Promise<Reply> {
    return new Promise<Reply>((resolve, reject) => {
      this.pending = { resolve, reject };
    });
  }
}
