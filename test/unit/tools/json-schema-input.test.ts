import { describe, expect, it } from "vitest";
import { ValidationError } from "../../../lambdas/core/goal/errors";
import { toolInputCheck } from "../../../lambdas/tools/json-schema-input";

const TICKET = {
  type: "object",
  properties: {
    ticketId: { type: "string", pattern: "^T-\\d+$" },
    priority: { type: "integer", minimum: 1, maximum: 5 },
  },
  required: ["ticketId"],
  additionalProperties: false,
};

/** The ValidationError a check throws for `input`, or a failure when it lets the input through. */
function refusal(schema: Record<string, unknown>, input: unknown): ValidationError {
  try {
    toolInputCheck(schema, "lookup_ticket")(input);
  } catch (error) {
    if (error instanceof ValidationError) return error;
    throw error;
  }
  throw new Error(`expected ${JSON.stringify(input)} to be refused`);
}

describe("toolInputCheck", () => {
  it("answers input the schema accepts as it is", () => {
    // Prepare
    const check = toolInputCheck(TICKET, "lookup_ticket");

    // Act
    const input = check({ ticketId: "T-1042", priority: 2 });

    // Assess
    expect(input).toEqual({ ticketId: "T-1042", priority: 2 });
  });

  it("names every bad field and what was wrong with it, the tool in the message", () => {
    // Act
    const error = refusal(TICKET, { ticketId: 1042, priority: 9, extra: true });

    // Assess
    expect(error.issues).toEqual([
      { path: "ticketId", message: 'Instance type "number" is invalid. Expected "string".' },
      { path: "priority", message: "9 is greater than 5." },
      { path: "extra", message: "unknown field" },
    ]);
    expect(error.message).toBe(
      `Invalid input for tool 'lookup_ticket': ticketId: Instance type "number" is invalid. Expected "string".; priority: 9 is greater than 5.; extra: unknown field`,
    );
  });

  it("names a missing required field itself, and the pattern a string breaks", () => {
    // Act
    const missing = refusal(TICKET, {});
    const badPattern = refusal(TICKET, { ticketId: "X-1" });

    // Assess
    expect(missing.issues).toEqual([{ path: "ticketId", message: "required field missing" }]);
    expect(badPattern.issues).toEqual([{ path: "ticketId", message: "must match pattern ^T-\\d+$" }]);
  });

  it("follows $ref into definitions and names nested fields with dotted paths (draft-07)", () => {
    // Prepare
    const schema = {
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "object",
      definitions: { code: { type: "string", pattern: "^[A-Z]{3}$" } },
      properties: {
        items: {
          type: "array",
          items: { type: "object", properties: { code: { $ref: "#/definitions/code" } } },
        },
      },
    };

    // Act
    const error = refusal(schema, { items: [{ code: "ABC" }, { code: "abc" }] });

    // Assess
    expect(error.issues).toEqual([{ path: "items.1.code", message: "must match pattern ^[A-Z]{3}$" }]);
  });

  it("reports an anyOf that no alternative matches once, not each alternative's failures", () => {
    // Prepare
    const schema = {
      type: "object",
      properties: { when: { anyOf: [{ type: "string", format: "date" }, { type: "integer" }] } },
    };

    // Act
    const error = refusal(schema, { when: true });

    // Assess
    expect(error.issues).toEqual([{ path: "when", message: "Instance does not match any subschemas." }]);
  });

  it("fills in each missing property's default, nested ones too, without changing the input", () => {
    // Prepare
    const schema = {
      type: "object",
      properties: {
        limit: { type: "integer", default: 10 },
        filter: { type: "object", properties: { open: { type: "boolean", default: true } } },
      },
      required: ["limit"],
    };
    const input = { filter: {} };

    // Act
    const checked = toolInputCheck(schema, "search")(input);

    // Assess
    expect(checked).toEqual({ limit: 10, filter: { open: true } });
    expect(input).toEqual({ filter: {} });
  });

  it("leaves the tool's schema as it was (the spec the model gets)", () => {
    // Prepare
    const schema = structuredClone(TICKET);

    // Act
    refusal(schema, { ticketId: 1 });

    // Assess
    expect(Object.getOwnPropertyNames(schema)).toEqual(Object.getOwnPropertyNames(TICKET));
    expect(schema).toEqual(TICKET);
  });

  it("lets any object through a schema it cannot resolve, but never a non-object", () => {
    // Prepare
    const schema = { $ref: "https://example.com/elsewhere.json" };

    // Act
    const checked = toolInputCheck(schema, "elsewhere")({ a: 1 });
    const error = refusal(schema, [1]);

    // Assess
    expect(checked).toEqual({ a: 1 });
    expect(error.issues).toEqual([{ path: "", message: "expected an object, received array" }]);
  });
});
