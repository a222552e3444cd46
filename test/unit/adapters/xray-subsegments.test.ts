import { afterEach, describe, expect, it, vi } from "vitest";
import {
  daemonAddress,
  type SubsegmentDocument,
  traceContext,
  traced,
  withSubsegments,
} from "../../../lambdas/adapters/shared/xray-subsegments";

const HEADER = "Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1";
const CONTEXT = { traceId: "1-5759e988-bd862e3fe1be46a994272793", parentId: "53995c3f42cd8ad8" };

describe("traceContext", () => {
  it("reads a sampled invocation's trace and ignores unsampled or missing ones", () => {
    expect(traceContext(HEADER)).toEqual(CONTEXT);
    expect(traceContext(HEADER.replace("Sampled=1", "Sampled=0"))).toBeUndefined();
    expect(traceContext(undefined)).toBeUndefined();
    expect(traceContext("Root=1-abc")).toBeUndefined();
  });
});

describe("daemonAddress", () => {
  it("takes the UDP address in either form Lambda sets", () => {
    expect(daemonAddress("169.254.79.129:2000")).toEqual({ host: "169.254.79.129", port: 2000 });
    expect(daemonAddress("tcp:127.0.0.1:2000 udp:127.0.0.2:2001")).toEqual({ host: "127.0.0.2", port: 2001 });
    expect(daemonAddress(undefined)).toBeUndefined();
  });
});

describe("traced", () => {
  it("records the call as a subsegment of the invocation's segment, with its annotations", async () => {
    // Prepare
    const sent: SubsegmentDocument[] = [];

    // Act
    const answer = await traced("Bedrock.Converse", { role: "reason" }, async () => 42, {
      context: CONTEXT,
      sink: (document) => sent.push(document),
    });

    // Assess
    expect(answer).toBe(42);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({
      name: "Bedrock.Converse",
      trace_id: CONTEXT.traceId,
      parent_id: CONTEXT.parentId,
      type: "subsegment",
      annotations: { role: "reason" },
    });
    expect(sent[0]?.id).toMatch(/^[0-9a-f]{16}$/);
    expect(sent[0]?.end_time).toBeGreaterThanOrEqual(sent[0]?.start_time ?? Number.POSITIVE_INFINITY);
    expect(sent[0]?.fault).toBeUndefined();
  });

  it("marks a failed call as a fault with the error's name and rethrows it unchanged", async () => {
    // Prepare
    const sent: SubsegmentDocument[] = [];
    const error = Object.assign(new Error("slow down"), { name: "ThrottlingException" });

    // Act + Assess
    await expect(
      traced("Bedrock.Converse", {}, () => Promise.reject(error), {
        context: CONTEXT,
        sink: (d) => sent.push(d),
      }),
    ).rejects.toBe(error);
    expect(sent[0]).toMatchObject({
      fault: true,
      cause: { exceptions: [{ type: "ThrottlingException", message: "slow down" }] },
    });
  });

  it("sends nothing outside a sampled invocation", async () => {
    const sink = vi.fn();
    await traced("GoalStore.commit", {}, async () => "ok", { context: undefined, sink });
    expect(sink).not.toHaveBeenCalled();
  });
});

describe("withSubsegments", () => {
  afterEach(() => vi.unstubAllEnvs());

  it("traces each method that answers a promise as <port>.<method>, and passes synchronous answers through", async () => {
    // Prepare
    vi.stubEnv("_X_AMZN_TRACE_ID", HEADER);
    const sent: SubsegmentDocument[] = [];
    const port = {
      base: 10,
      async add(value: number) {
        return this.base + value;
      },
      names() {
        return ["a", "b"];
      },
    };
    const traced = withSubsegments(port, "Calculator", { sink: (document) => sent.push(document) });

    // Act
    const sum = await traced.add(5);
    const names = traced.names();

    // Assess
    expect(sum).toBe(15);
    expect(names).toEqual(["a", "b"]);
    expect(sent.map((document) => document.name)).toEqual(["Calculator.add"]);
  });
});
