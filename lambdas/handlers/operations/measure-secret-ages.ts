import { GOAL_METRICS, type GoalMetrics, METRIC_DIMENSIONS } from "../../adapters/metrics/goal-metrics";
import { isOverdue, type OwnedSecret, secretAgeDays } from "../../core/operations/secret-age";

export interface SecretAgeProbeDeps {
  /** The owned secrets the deployment reads (OWNED_SECRETS). */
  readonly secrets: readonly OwnedSecret[];
  /** When a secret's value last changed (DescribeSecret), by its id. */
  readonly changedDate: (secretId: string) => Promise<Date | undefined>;
  readonly metrics: GoalMetrics;
  readonly now: () => Date;
}

export interface SecretAge {
  readonly key: string;
  readonly ageDays: number;
  readonly rotateAfterDays: number;
  readonly owner: string;
  readonly overdue: boolean;
}

export interface SecretAgesMeasure {
  readonly ages: readonly SecretAge[];
  /** Secrets DescribeSecret did not answer for (deleted, access denied …), with why. */
  readonly unreadable: readonly { readonly key: string; readonly error: string }[];
}

/**
 * Publishes each owned secret's age in days (`SecretAgeDays`, dimension `Secret` = its
 * `secrets.<key>`), for one alarm per secret whose threshold is its `rotateAfterDays`. Run monthly
 * by a schedule: nothing else happens when a secret grows old, so only a periodic look sees it. A
 * secret it cannot describe publishes nothing (its alarm keeps its state) and is returned apart, so
 * the handler can fail and the function's error alarm name the problem.
 */
export async function measureSecretAges(deps: SecretAgeProbeDeps): Promise<SecretAgesMeasure> {
  const now = deps.now();
  const ages: SecretAge[] = [];
  const unreadable: { key: string; error: string }[] = [];
  for (const secret of deps.secrets) {
    let changedAt: Date | undefined;
    try {
      changedAt = await deps.changedDate(secret.secretId);
    } catch (error) {
      unreadable.push({ key: secret.key, error: describe(error) });
      continue;
    }
    if (changedAt === undefined) {
      unreadable.push({ key: secret.key, error: "DescribeSecret returned no date" });
      continue;
    }
    const ageDays = secretAgeDays(changedAt, now);
    ages.push({
      key: secret.key,
      ageDays,
      rotateAfterDays: secret.rotateAfterDays,
      owner: secret.owner,
      overdue: isOverdue(ageDays, secret.rotateAfterDays),
    });
  }
  deps.metrics.publish(
    ages.map(({ key, ageDays }) => ({
      dimensionSets: [{ [METRIC_DIMENSIONS.secret]: key }],
      values: [{ name: GOAL_METRICS.secretAgeDays, unit: "None" as const, value: ageDays }],
    })),
  );
  return { ages, unreadable };
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
