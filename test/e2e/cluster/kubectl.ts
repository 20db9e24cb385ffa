// kubectl against a test cluster, for the cluster e2e tests: JSON reads and applies that fail
// with kubectl's own error.
import type { TestCluster } from "../../harness/cluster.ts";

export async function kubectlJson<T = any>(cluster: TestCluster, args: string[]): Promise<T> {
  const r = await cluster.kubectl([...args, "-o", "json"]);
  if (r.code !== 0) throw new Error(`kubectl ${args.join(" ")} exited ${r.code}: ${r.stderr.trim()}`);
  return JSON.parse(r.stdout) as T;
}

export async function kubectlApply(cluster: TestCluster, obj: unknown): Promise<void> {
  const r = await cluster.kubectl(["apply", "-f", "-"], { stdin: JSON.stringify(obj) });
  if (r.code !== 0) throw new Error(`kubectl apply exited ${r.code}: ${r.stderr.trim()}`);
}
