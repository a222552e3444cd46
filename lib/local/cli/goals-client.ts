import { z } from "zod";
import { GoalEventSchema } from "../../../lambdas/core/goal-event";
import { GoalSnapshotSchema } from "../../../lambdas/core/goal-record";

const AcceptedGoalSchema = z.object({
  goalId: z.string(),
  status: z.string(),
  pattern: z.string(),
  runId: z.string(),
});
export type AcceptedGoal = z.infer<typeof AcceptedGoalSchema>;

const ApiErrorSchema = z.object({
  error: z.object({
    code: z.string(),
    message: z.string().optional(),
    issues: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
  }),
});
export type ApiErrorBody = z.infer<typeof ApiErrorSchema>["error"];

const EventPageSchema = z.object({ items: z.array(GoalEventSchema), nextSeq: z.number().int() });

/** The API answered with an error body (`{error:{code, message, issues}}`). */
export class GoalsApiError extends Error {
  override readonly name = "GoalsApiError";
  constructor(
    readonly status: number,
    readonly body: ApiErrorBody,
  ) {
    super(`${status} ${body.code}${body.message ? `: ${body.message}` : ""}`);
  }
}

/** A small client for the goals HTTP API (DESIGN §6), used by the CLI and the end-to-end tests. */
export class GoalsClient {
  constructor(private readonly baseUrl: string) {}

  async submitGoal(spec: unknown, options: { idempotencyKey?: string } = {}): Promise<AcceptedGoal> {
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (options.idempotencyKey) headers["idempotency-key"] = options.idempotencyKey;
    return this.request("POST", "/goals", AcceptedGoalSchema, { body: JSON.stringify(spec), headers });
  }

  async getGoal(goalId: string) {
    return this.request("GET", `/goals/${encodeURIComponent(goalId)}`, GoalSnapshotSchema);
  }

  async listEvents(goalId: string, after: number) {
    return this.request("GET", `/goals/${encodeURIComponent(goalId)}/events?after=${after}`, EventPageSchema);
  }

  /** True when a goals API answers at the base URL (the local stack is up). */
  async isReachable(): Promise<boolean> {
    try {
      const response = await fetch(`${this.baseUrl}/goals?limit=1`, { signal: AbortSignal.timeout(1500) });
      return response.status < 500;
    } catch {
      return false;
    }
  }

  private async request<S extends z.ZodType>(
    method: string,
    path: string,
    schema: S,
    init: { body?: string; headers?: Record<string, string> } = {},
  ): Promise<z.output<S>> {
    const response = await fetch(`${this.baseUrl}${path}`, { method, ...init });
    const text = await response.text();
    const json = parseJson(text);
    if (!response.ok) {
      const error = ApiErrorSchema.safeParse(json);
      throw new GoalsApiError(
        response.status,
        error.success ? error.data.error : { code: `HTTP${response.status}`, message: text.slice(0, 500) },
      );
    }
    const parsed = schema.safeParse(json);
    if (!parsed.success) {
      throw new Error(`Unexpected answer from ${method} ${path}: ${parsed.error.message}`);
    }
    return parsed.data;
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
