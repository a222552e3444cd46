import { describe, expect, it } from "vitest";
import type { GoalEvent } from "../../../lambdas/core/goal/goal-event";
import {
  commentFrame,
  eventFrame,
  retryFrame,
  SseParser,
} from "../../../lambdas/core/goal/goal-event-stream";

function anEvent(seq: number, type: string, fields: Record<string, string> = {}): GoalEvent {
  return { goalId: "g-1", seq, type, at: "2025-06-01T12:00:00.000Z", runId: "r1", ...fields };
}

/** Every frame `text` yields when fed in `chunks` pieces cut at the given offsets. */
function parseInPieces(text: string, cuts: readonly number[]) {
  const parser = new SseParser();
  const frames = [];
  let from = 0;
  for (const cut of [...cuts, text.length]) {
    frames.push(...parser.push(text.slice(from, cut)));
    from = cut;
  }
  return frames;
}

describe("the event stream's frames (encoder)", () => {
  it("writes one frame per event: id its seq, event its type, data the event on one line", () => {
    // Act
    const frame = eventFrame(anEvent(7, "tool.called", { note: "two\nlines" }));

    // Assess
    expect(frame).toBe(
      `id: 7\nevent: tool.called\ndata: ${JSON.stringify(anEvent(7, "tool.called", { note: "two\nlines" }))}\n\n`,
    );
    expect(frame.split("\n").filter((line) => line.startsWith("data:"))).toHaveLength(1);
  });

  it("keeps a comment on one line and rounds a retry to whole, non-negative milliseconds", () => {
    // Act & Assess
    expect(commentFrame("keep\r\nalive")).toBe(": keep alive\n\n");
    expect(retryFrame(1000.4)).toBe("retry: 1000\n\n");
    expect(retryFrame(-5)).toBe("retry: 0\n\n");
  });

  it("round-trips through the parser: what the server writes is what a client reads", () => {
    // Prepare
    const events = [anEvent(1, "run.started"), anEvent(2, "tool.called", { name: "notify" })];
    const text = retryFrame(1000) + events.map(eventFrame).join(commentFrame("keep-alive"));

    // Act
    const frames = new SseParser().push(text);

    // Assess
    expect(
      frames.map((frame) => ({ id: frame.id, event: frame.event, data: JSON.parse(frame.data) })),
    ).toEqual(events.map((event) => ({ id: String(event.seq), event: event.type, data: event })));
  });
});

describe("SseParser (the CLI's and the console's reader)", () => {
  it("dispatches a frame only at its blank line, whatever chunk boundary a read ends on", () => {
    // Prepare
    const text = eventFrame(anEvent(3, "goal.paused")) + eventFrame(anEvent(4, "goal.resumed"));

    // Act: every single cut point, and a read per character
    const whole = parseInPieces(text, []);
    const everyCut = Array.from({ length: text.length - 1 }, (_, cut) => parseInPieces(text, [cut + 1]));
    const perCharacter = parseInPieces(
      text,
      Array.from({ length: text.length - 1 }, (_, index) => index + 1),
    );

    // Assess
    expect(whole.map((frame) => frame.id)).toEqual(["3", "4"]);
    for (const frames of everyCut) expect(frames).toEqual(whole);
    expect(perCharacter).toEqual(whole);
  });

  it("holds a partial frame back until the rest arrives", () => {
    // Prepare
    const parser = new SseParser();

    // Act
    const first = parser.push('id: 9\nevent: progress\ndata: {"a":');
    const second = parser.push("1}\n");
    const third = parser.push("\n");

    // Assess
    expect(first).toEqual([]);
    expect(second).toEqual([]);
    expect(third).toEqual([{ id: "9", event: "progress", data: '{"a":1}' }]);
  });

  it("ignores comments and heartbeats, and a frame with no data", () => {
    // Act
    const frames = new SseParser().push(": keep-alive\n\nretry: 1000\n\nevent: lonely\n\n: hi\ndata: x\n\n");

    // Assess
    expect(frames).toEqual([{ id: "", event: "message", data: "x" }]);
  });

  it("joins multi-line data with LF and reads LF, CR and CRLF line ends, a CRLF split across reads too", () => {
    // Prepare
    const parser = new SseParser();

    // Act
    const frames = [
      ...parser.push("data: one\r\ndata: two\r"),
      ...parser.push("\ndata:three\r\r"),
      ...parser.push("data: four\n\n"),
    ];

    // Assess
    expect(frames).toEqual([
      { id: "", event: "message", data: "one\ntwo\nthree" },
      { id: "", event: "message", data: "four" },
    ]);
  });

  it("carries the last id over frames that set none: what a client sends back as Last-Event-ID", () => {
    // Prepare
    const parser = new SseParser();

    // Act
    const frames = parser.push("id: 12\ndata: a\n\ndata: b\n\nid: 13\ndata: c\n\nid: bad\0id\ndata: d\n\n");

    // Assess
    expect(frames.map((frame) => frame.id)).toEqual(["12", "12", "13", "13"]);
  });

  it("resets the event type after each frame", () => {
    // Act
    const frames = new SseParser().push("event: goal.paused\ndata: 1\n\ndata: 2\n\n");

    // Assess
    expect(frames.map((frame) => frame.event)).toEqual(["goal.paused", "message"]);
  });
});
