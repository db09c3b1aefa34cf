// The benchmark's bare-ceiling workflow (bench/webhooks.ts): it does nothing, so starting and
// finishing it costs only the server's own work (one workflow task). Bundled from this file
// alone by the benchmark's worker; the service's worker (workflows/index.ts) never loads it.
export async function emptyWorkflow(): Promise<void> {}
