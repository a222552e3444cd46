import { Metrics } from "@aws-lambda-powertools/metrics";
import { DEFAULT_METRICS_NAMESPACE, type GoalMetrics, type MetricBatch } from "./goal-metrics";

/**
 * Goal metrics as CloudWatch Embedded Metric Format lines on stdout (Powertools Metrics), one line
 * per batch, written at once: a step that crashes later has still counted what it committed, and no
 * handler needs a flushing middleware. The namespace comes from POWERTOOLS_METRICS_NAMESPACE (set by
 * the stack), the `service` dimension from POWERTOOLS_SERVICE_NAME; POWERTOOLS_METRICS_DISABLED=true
 * (the local runtime sets it) writes nothing.
 */
export function createPowertoolsGoalMetrics(metrics = defaultMetrics()): GoalMetrics {
  return {
    publish(batches: readonly MetricBatch[]): void {
      for (const batch of batches) {
        if (batch.values.length === 0) continue;
        for (const dimensions of batch.dimensionSets) metrics.addDimensions({ ...dimensions });
        for (const { name, unit, value } of batch.values) metrics.addMetric(name, unit, value);
        metrics.publishStoredMetrics();
      }
    },
  };
}

function defaultMetrics(): Metrics {
  return new Metrics({
    namespace: process.env.POWERTOOLS_METRICS_NAMESPACE ?? DEFAULT_METRICS_NAMESPACE,
  });
}
