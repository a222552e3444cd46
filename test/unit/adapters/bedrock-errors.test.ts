import {
  AccessDeniedException,
  InternalServerException,
  ModelErrorException,
  ModelNotReadyException,
  ModelTimeoutException,
  ResourceNotFoundException,
  ServiceQuotaExceededException,
  ServiceUnavailableException,
  ThrottlingException,
  ValidationException,
} from "@aws-sdk/client-bedrock-runtime";
import { describe, expect, it } from "vitest";
import {
  FATAL_MODEL_ERRORS,
  RETRYABLE_MODEL_ERRORS,
  toModelError,
} from "../../../lambdas/adapters/bedrock/bedrock-errors";
import { ModelFatalError, ModelRetryableError } from "../../../lambdas/core/ports/model-client";

const metadata = { $metadata: {} };

describe("toModelError", () => {
  it.each([
    ["ThrottlingException", new ThrottlingException({ message: "slow down", ...metadata })],
    ["ModelTimeoutException", new ModelTimeoutException({ message: "slow down", ...metadata })],
    ["ServiceUnavailableException", new ServiceUnavailableException({ message: "slow down", ...metadata })],
    ["InternalServerException", new InternalServerException({ message: "slow down", ...metadata })],
    ["ModelNotReadyException", new ModelNotReadyException({ message: "slow down", ...metadata })],
    ["ModelErrorException", new ModelErrorException({ message: "slow down", ...metadata })],
  ])("maps %s to a retryable error of the same name", (name, sdkError) => {
    // Act
    const error = toModelError(sdkError);

    // Assess
    expect(error).toBeInstanceOf(ModelRetryableError);
    expect(error.toErrorObject()).toEqual({ name, message: "slow down", retryable: true });
    expect(error.cause).toBe(sdkError);
  });

  it.each([
    ["ValidationException", new ValidationException({ message: "bad", ...metadata })],
    ["AccessDeniedException", new AccessDeniedException({ message: "bad", ...metadata })],
    ["ResourceNotFoundException", new ResourceNotFoundException({ message: "bad", ...metadata })],
    ["ServiceQuotaExceededException", new ServiceQuotaExceededException({ message: "bad", ...metadata })],
  ])("maps %s to a fatal error of the same name", (name, sdkError) => {
    // Act
    const error = toModelError(sdkError);

    // Assess
    expect(error).toBeInstanceOf(ModelFatalError);
    expect(error.toErrorObject()).toEqual({ name, message: "bad", retryable: false });
    expect(error.cause).toBe(sdkError);
  });

  it("keeps the local fixture endpoint's FixtureExhausted as a fatal error of that name", () => {
    // Prepare: an unmodelled error type is deserialized as an error carrying that name
    const endpointError = Object.assign(new Error("no turn 3 for role plan"), { name: "FixtureExhausted" });

    // Act
    const error = toModelError(endpointError);

    // Assess
    expect(error.toErrorObject()).toEqual({
      name: "FixtureExhausted",
      message: "no turn 3 for role plan",
      retryable: false,
    });
  });

  it("maps the HTTP/2 handler's TimeoutError to a retryable ModelRequestTimeout", () => {
    // Prepare
    const timeout = Object.assign(new Error("Stream timed out because of no activity for 10 ms"), {
      name: "TimeoutError",
    });

    // Act
    const error = toModelError(timeout);

    // Assess
    expect(error).toBeInstanceOf(ModelRetryableError);
    expect(error.name).toBe("ModelRequestTimeout");
    expect(error.message).toContain("no activity for 10 ms");
    expect(error.cause).toBe(timeout);
  });

  it.each(["ECONNRESET", "ECONNREFUSED", "EPIPE", "ETIMEDOUT", "EAI_AGAIN", "ERR_HTTP2_GOAWAY_SESSION"])(
    "maps a socket error with code %s to a retryable ModelConnectionError",
    (code) => {
      // Prepare
      const socketError = Object.assign(new Error("socket hang up"), { code });

      // Act
      const error = toModelError(socketError);

      // Assess
      expect(error).toBeInstanceOf(ModelRetryableError);
      expect(error.name).toBe("ModelConnectionError");
      expect(error.message).toContain(code);
    },
  );

  it("maps an unknown error to a fatal UnknownModelError that names the original", () => {
    // Prepare
    const original = new TypeError("Cannot read properties of undefined");

    // Act
    const error = toModelError(original);

    // Assess
    expect(error).toBeInstanceOf(ModelFatalError);
    expect(error.name).toBe("UnknownModelError");
    expect(error.retryable).toBe(false);
    expect(error.message).toBe("TypeError: Cannot read properties of undefined");
    expect(error.cause).toBe(original);
  });

  it("maps a thrown non-error value to UnknownModelError", () => {
    // Act
    const error = toModelError("boom");

    // Assess
    expect(error.name).toBe("UnknownModelError");
    expect(error.message).toBe("string: boom");
    expect(error.cause).toBe("boom");
  });

  it("returns a model error unchanged", () => {
    // Prepare
    const original = new ModelFatalError("MalformedModelResponse", "no message");

    // Act
    const error = toModelError(original);

    // Assess
    expect(error).toBe(original);
  });
});

describe("model error name lists", () => {
  it("name every retryable error toModelError throws, and only those", () => {
    // Assess: the Step Functions Retry matches these names, so they are a public contract
    expect(RETRYABLE_MODEL_ERRORS).toEqual([
      "ThrottlingException",
      "ModelTimeoutException",
      "ServiceUnavailableException",
      "InternalServerException",
      "ModelNotReadyException",
      "ModelErrorException",
      "ModelRequestTimeout",
      "ModelConnectionError",
    ]);
  });

  it("name every fatal error the Bedrock model client throws", () => {
    // Assess
    expect(FATAL_MODEL_ERRORS).toEqual([
      "ValidationException",
      "AccessDeniedException",
      "ResourceNotFoundException",
      "ServiceQuotaExceededException",
      "FixtureExhausted",
      "MalformedModelResponse",
      "UnknownModelError",
    ]);
  });

  it("never share a name", () => {
    // Assess
    const shared = RETRYABLE_MODEL_ERRORS.filter((name) =>
      (FATAL_MODEL_ERRORS as readonly string[]).includes(name),
    );
    expect(shared).toEqual([]);
  });
});
