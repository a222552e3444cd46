import * as z from "../zod";
import type { Pattern } from "./goal-spec";

/**
 * The alias every deploy points at its new state machine versions (and function versions): new
 * goals start on the version it names; `goal-loops rollback` points it back.
 */
export const LIVE_ALIAS = "live";

/**
 * The deployed version a goal runs on, fixed when the goal is created: every run of the goal
 * (continue-as-new, resume, retry, a run re-attached after a restart) starts on this state machine
 * version, whose definition names the Lambda versions of its steps. So a goal keeps its code from
 * its first step to its last, however long it waits.
 */
export const RunsOnSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    /** The version's label (`0.1.0-3f2a9c1e`), the same for every pattern of one deploy. */
    version: z.string().check(z.minLength(1), z.maxLength(128)),
    /** The pattern's state machine version the goal's runs start on (`…:stateMachine:<name>:<n>`). */
    stateMachineVersionArn: z.string().check(z.minLength(1), z.maxLength(2048)),
  }),
);
export type RunsOn = z.infer<typeof RunsOnSchema>;

/**
 * A deployed version as a new goal is put on it: the version, its pattern's state machine version,
 * and the record schema that version reads (its goals are stored in it).
 */
export interface VersionTarget extends RunsOn {
  readonly schema: number;
}

const QUALIFIED_STATE_MACHINE = /^(arn:[^:]+:states:[^:]*:[^:]*:stateMachine:[^:]+):[^:]+$/;

/** A state machine ARN without its version or alias (`…:stateMachine:<name>`). */
export function unqualifiedStateMachineArn(stateMachineArn: string): string {
  return QUALIFIED_STATE_MACHINE.exec(stateMachineArn)?.[1] ?? stateMachineArn;
}

/** The ARN of a state machine's `live` alias. */
export function liveAliasArn(stateMachineArn: string): string {
  return `${unqualifiedStateMachineArn(stateMachineArn)}:${LIVE_ALIAS}`;
}

/**
 * Where a run of an existing goal starts: the state machine version the goal runs on, or, for a goal
 * created before versions existed (no `runsOn`), its pattern's `live` alias. Undefined when the
 * goal's pattern has no state machine in this deployment.
 */
export function runStateMachineArn(
  record: { readonly pattern: Pattern; readonly runsOn?: RunsOn | undefined },
  stateMachineArns: Readonly<Partial<Record<Pattern, string>>>,
): string | undefined {
  const deployed = stateMachineArns[record.pattern];
  if (deployed === undefined) return undefined;
  return record.runsOn?.stateMachineVersionArn ?? liveAliasArn(deployed);
}

/**
 * The description every deploy gives its state machine versions: which deployed version a
 * Step Functions version belongs to and which record schema its code reads. Published by the CDK
 * (PatternLoop), read by the API and AwaitSubgoals (VersionDirectory) and by `goal-loops versions`.
 */
export function versionDescription(version: string, schema: number): string {
  return `goal-loops version ${version} record schema ${schema}`;
}

const DESCRIPTION = /^goal-loops version (\S{1,128}) record schema (\d{1,6})$/;

/** What `versionDescription` wrote, or undefined for a version published another way. */
export function parseVersionDescription(
  description: string | undefined,
): { readonly version: string; readonly schema: number } | undefined {
  const match = DESCRIPTION.exec(description ?? "");
  if (match === null) return undefined;
  return { version: match[1] ?? "", schema: Number(match[2]) };
}
