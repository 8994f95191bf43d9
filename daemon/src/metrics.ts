function labelKey(labels: Record<string, string>): string {
  return Object.entries(labels)
    .map(([k, v]) => `${k}="${v.replace(/["\\\n]/g, '_')}"`)
    .join(',');
}

/**
 * Process-local counters exposed at `GET /metrics` in the Prometheus text format, so operators
 * can alert on rejected agents (401s), validation failures and overload.
 */
export class Metrics {
  private readonly counters = new Map<string, { help: string; values: Map<string, number> }>();

  inc(name: string, help: string, labels: Record<string, string> = {}): void {
    let counter = this.counters.get(name);
    if (!counter) {
      counter = { help, values: new Map() };
      this.counters.set(name, counter);
    }
    const key = labelKey(labels);
    counter.values.set(key, (counter.values.get(key) ?? 0) + 1);
  }

  get(name: string, labels: Record<string, string> = {}): number {
    return this.counters.get(name)?.values.get(labelKey(labels)) ?? 0;
  }

  /** Counters plus the given gauges, in the Prometheus text exposition format. */
  render(gauges: Record<string, number>): string {
    const lines: string[] = [];
    for (const [name, { help, values }] of this.counters) {
      lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} counter`);
      for (const [labels, value] of values) lines.push(`${name}${labels ? `{${labels}}` : ''} ${value}`);
    }
    for (const [name, value] of Object.entries(gauges)) lines.push(`# TYPE ${name} gauge`, `${name} ${value}`);
    return `${lines.join('\n')}\n`;
  }
}
