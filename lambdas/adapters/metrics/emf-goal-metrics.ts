import { DEFAULT_METRICS_NAMESPACE, type GoalMetrics, type MetricBatch } from "./goal-metrics";

/**
 * Goal metrics as CloudWatch Embedded Metric Format lines on stdout, one line per batch, written at
 * once: a step that crashes later has still counted what it committed, and no handler needs a
 * flushing middleware. Written here rather than through Powertools Metrics, whose 12 KB of
 * buffering, validation and cold-start options were in every bundle for these few lines; the lines
 * are the ones it wrote (the same environment, the same `service` dimension on every set).
 *
 * The format (CloudWatch user guide, "Specification: Embedded metric format"): the values at the
 * root, and `_aws.CloudWatchMetrics[]` naming the namespace, the dimension sets (each a list of root
 * keys) and each metric's name and unit; a metric given twice holds an array of values.
 *
 * The environment: POWERTOOLS_METRICS_NAMESPACE (set by the stack) names the namespace,
 * POWERTOOLS_SERVICE_NAME the `service` dimension; POWERTOOLS_METRICS_DISABLED=true (the local
 * runtime sets it), or POWERTOOLS_DEV without POWERTOOLS_METRICS_DISABLED=false, writes nothing.
 */
export function createEmfGoalMetrics(
  env: NodeJS.ProcessEnv = process.env,
  write: (line: string) => void = (line) => process.stdout.write(line),
): GoalMetrics {
  const namespace = env.POWERTOOLS_METRICS_NAMESPACE || DEFAULT_METRICS_NAMESPACE;
  const service = env.POWERTOOLS_SERVICE_NAME || "service_undefined";
  return {
    publish(batches: readonly MetricBatch[]): void {
      if (metricsDisabled(env)) return;
      for (const batch of batches) {
        if (batch.values.length === 0) continue;
        write(`${JSON.stringify(emfLine(batch, namespace, service, Date.now()))}\n`);
      }
    },
  };
}

function metricsDisabled(env: NodeJS.ProcessEnv): boolean {
  const disabled = env.POWERTOOLS_METRICS_DISABLED?.toLowerCase();
  if (disabled !== undefined && disabled !== "") return disabled === "true" || disabled === "1";
  const dev = env.POWERTOOLS_DEV?.toLowerCase();
  return dev === "true" || dev === "1";
}

/** One batch as one EMF object: its dimensions and values at the root, their description in `_aws`. */
function emfLine(batch: MetricBatch, namespace: string, service: string, timestamp: number): object {
  const root: Record<string, unknown> = { service };
  const dimensionSets: string[][] = [];
  for (const dimensions of batch.dimensionSets) {
    Object.assign(root, dimensions);
    dimensionSets.push(["service", ...Object.keys(dimensions)]);
  }
  const metrics: { Name: string; Unit: string }[] = [];
  const values: Record<string, number | number[]> = {};
  for (const { name, unit, value } of batch.values) {
    const earlier = values[name];
    if (earlier === undefined) {
      metrics.push({ Name: name, Unit: unit });
      values[name] = value;
    } else {
      values[name] = Array.isArray(earlier) ? [...earlier, value] : [earlier, value];
    }
  }
  return {
    _aws: {
      Timestamp: timestamp,
      CloudWatchMetrics: [{ Namespace: namespace, Dimensions: dimensionSets, Metrics: metrics }],
    },
    ...root,
    ...values,
  };
}
