import * as z from "zod";
import { wholeNumber } from "./parse-settings";

/**
 * `secrets` of the configuration: who owns each secret the stack reads, and how old it may get
 * before `goal-loops preflight` names it and the deployed stack's monthly secret-age alarm fires
 * (lib/constructs/secret-ages.ts). Keys: the stack's own secrets by role, and an MCP
 * server's credential as `mcp:<server name>`.
 */
export const STACK_SECRETS = ["slackSigningSecret", "slackBotToken", "emailLinkKey"] as const;

const SecretKeySchema = z
  .string()
  .regex(
    /^(slackSigningSecret|slackBotToken|emailLinkKey|mcp:[a-z][a-z0-9_-]{0,63})$/,
    "must be slackSigningSecret, slackBotToken, emailLinkKey, or mcp:<server name>",
  );

export const DEFAULT_ROTATE_AFTER_DAYS = 90;

export const SecretOwnerConfigSchema = z
  .strictObject({
    owner: z
      .string()
      .min(1)
      .max(200)
      .regex(/^[^\s<>"]+(\s[^\s<>"]+)*$/, "must be an e-mail address or a team name")
      .describe("Who rotates the secret: an e-mail address or a team"),
    rotateAfterDays: wholeNumber({ min: 1, max: 3650 }, "days")
      .default(DEFAULT_ROTATE_AFTER_DAYS)
      .describe(
        "How old the secret's current value may get before preflight and the monthly secret-age alarm name it for its owner",
      ),
  })
  .describe("A secret's owner and rotation age");

export const SecretsConfigSchema = z
  .record(SecretKeySchema, SecretOwnerConfigSchema)
  .describe("Owners and rotation ages of the secrets the stack reads");
export type SecretsConfig = z.output<typeof SecretsConfigSchema>;
export type SecretsConfigInput = z.input<typeof SecretsConfigSchema>;
